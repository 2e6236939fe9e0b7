//! Building the trees of a run's commands on a second thread while the
//! renderer prints them, for the runs that [`super::parallel`] cannot
//! split: with commuting, the renderer draws random numbers in output
//! order, so only one thread may print, but the tree of every command (a
//! third of the work) does not depend on anything printed before it.
//!
//! [`with_feed`] starts a builder over the run's commands in printing
//! order and hands a [`Feed`] to the printer (which attaches it to the
//! renderer); [`Feed::next`] hands
//! over the next tree, with the text it was built from so the renderer can
//! check it is the tree of the command it prints. Trees travel in batches
//! and come back to be reused, so memory stays bounded (a few batches).

use super::tree::Tree;
use crate::smtlib::OffsetError;
use std::sync::mpsc::{channel, sync_channel, Receiver, Sender};

/// Trees handed over (tests check that the feed is used).
#[cfg(test)]
pub static FED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// A command's tree, or why it has none; `text` is the command's span.
pub struct Built {
    tree: Tree,
    root: Result<u32, OffsetError>,
    text: (usize, usize),
}

/// Commands per batch, and batches built ahead of the printer.
const BATCH: usize = 512;
const BATCHES_AHEAD: usize = 4;

/// The printer's end: trees in printing order.
pub struct Feed {
    rx: Receiver<Vec<Built>>,
    back: Sender<Vec<Built>>,
    batch: Vec<Built>,
    next: usize,
}

impl Feed {
    /// The tree of `text` (the next command printed): swapped into `tree`,
    /// with its root. `None` when the builder is done or the text is not
    /// the one expected (the caller then builds the tree itself).
    pub fn next(&mut self, text: &[u8], tree: &mut Tree) -> Option<Result<u32, OffsetError>> {
        if self.next == self.batch.len() {
            let used = std::mem::replace(&mut self.batch, self.rx.recv().ok()?);
            let _ = self.back.send(used);
            self.next = 0;
        }
        let built = self.batch.get_mut(self.next)?;
        self.next += 1;
        if built.text != (text.as_ptr() as usize, text.len()) {
            return None;
        }
        std::mem::swap(tree, &mut built.tree);
        #[cfg(test)]
        FED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Some(built.root.clone())
    }
}

/// Run `run` with a feed of the trees of `items` (in order; `span` gives
/// an item's text as `buf[start..end]`), built on a second thread. `run`
/// must drop the feed before it returns: that ends a builder still waiting
/// to send.
pub fn with_feed<I: Sync, T>(
    buf: &[u8],
    items: &[I],
    span: fn(&I) -> (usize, usize),
    run: impl FnOnce(Feed) -> T,
) -> T {
    let (tx, rx) = sync_channel::<Vec<Built>>(BATCHES_AHEAD);
    let (back, recycled) = channel::<Vec<Built>>();
    std::thread::scope(|scope| {
        scope.spawn(move || {
            let named = memchr::memmem::Finder::new(b":named");
            for chunk in items.chunks(BATCH) {
                let mut batch = recycled.try_recv().unwrap_or_default();
                batch.resize_with(chunk.len(), || Built {
                    tree: Tree::default(),
                    root: Ok(0),
                    text: (0, 0),
                });
                for (b, it) in batch.iter_mut().zip(chunk) {
                    let (start, end) = span(it);
                    let text = &buf[start..end];
                    b.root = b.tree.build(text, named.find(text).is_some());
                    b.text = (text.as_ptr() as usize, text.len());
                }
                // A closed channel: the printer stopped (an error).
                if tx.send(batch).is_err() {
                    return;
                }
            }
        });
        run(Feed {
            rx,
            back,
            batch: Vec::new(),
            next: 0,
        })
    })
}
