//! Printing a shuffled run of commands, on one thread or — for a long run
//! of assertions — on two, with the same bytes either way.
//!
//! The output of a command depends on the symbol table, and printing
//! changes the table: the first output of a symbol assigns its fresh
//! number, `:named` declares a name, binders open and close scopes. The
//! second half of a run can nevertheless be printed ahead of time, by a
//! second renderer on a copy of the table taken before the first half,
//! when that copy is what the table would be at the start of the second
//! half. That is checked, not assumed: the second half is kept only when
//! neither half assigned a fresh number (every symbol printed was already
//! numbered: the table is then unchanged but for binders, which every
//! command closes again), no assertion of the run has a `:named` name (the
//! only way an assertion declares a symbol), nothing is commuted (that
//! draws random numbers in output order), and both halves printed without
//! error. Otherwise the second half is printed again, in sequence, by the
//! first renderer. In a large benchmark every symbol is numbered once its
//! declarations have been printed, so from the second run of assertions
//! on, both cores print.

use super::random::GlibcRandom;
use super::render::Renderer;
use crate::smtlib::OffsetError;

/// Second halves printed ahead and used (tests check that the path runs).
#[cfg(test)]
pub static AHEAD_USED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// One command of a run: its text is `buf[start..end]`.
pub struct Item {
    pub start: usize,
    pub end: usize,
    pub line: u64,
    pub column: u64,
    /// Original assertion position (assertions only).
    pub orig: u32,
}

/// Commands of a run whose text is fetched into the cache ahead of printing.
const PREFETCH_AHEAD: usize = 4;

/// Print `items` of `buf` in order with `renderer`, each on its own line,
/// calling `block` whenever `out` holds at least `block_size` bytes. Stops
/// at the first error: (index of the item, error). A run of at least
/// `renderer.trees_ahead_min` bytes has its trees built on a second thread
/// ([`super::tree_feed`]).
pub fn print_items<E>(
    renderer: &mut Renderer,
    rng: &mut GlibcRandom,
    buf: &[u8],
    items: &[Item],
    out: &mut Vec<u8>,
    block_size: usize,
    mut block: impl FnMut(&mut Vec<u8>) -> Result<(), E>,
) -> Result<(), PrintError<E>> {
    let mut print = |renderer: &mut Renderer| {
        for (k, it) in items.iter().enumerate() {
            // Shuffled commands are read from random places of a buffer
            // larger than the caches: ask for the next ones early.
            for ahead in items.iter().skip(k + 1).take(PREFETCH_AHEAD) {
                prefetch(&buf[ahead.start..ahead.end]);
            }
            let mark = out.len();
            if let Err(e) = renderer.render(&buf[it.start..it.end], rng, out) {
                out.truncate(mark);
                return Err(PrintError::Render(k, e));
            }
            out.push(b'\n');
            if out.len() >= block_size {
                block(out).map_err(PrintError::Write)?;
            }
        }
        Ok(())
    };
    let long = renderer.trees_ahead_min.is_some_and(|min| {
        items.len() > 1 && items.iter().map(|it| it.end - it.start).sum::<usize>() >= min
    });
    if long {
        let span = |it: &Item| (it.start, it.end);
        super::tree_feed::with_feed(buf, items, span, |feed| {
            renderer.feed = Some(feed);
            let printed = print(renderer);
            // Dropping the feed ends a builder still waiting to send.
            renderer.feed = None;
            printed
        })
    } else {
        print(renderer)
    }
}

/// Why [`print_items`] stopped.
pub enum PrintError<E> {
    /// Item number and its error.
    Render(usize, OffsetError),
    Write(E),
}

/// How to cut the head of `items`: (first piece, second piece) in items.
/// A piece holds about `min_piece` bytes of text, or more so that copying
/// the symbol table costs little next to printing a piece (a piece is at
/// least the table's size: the copy then takes ~1 % of the time printing
/// does); what is left when it is shorter than two such pieces is cut in
/// two halves. (all, 0) when the items are shorter than two `min_piece`.
pub fn halves(renderer: &Renderer, items: &[Item], min_piece: usize) -> (usize, usize) {
    let total: usize = items.iter().map(|it| it.end - it.start).sum();
    let min_piece = min_piece.max(1);
    if total < 2 * min_piece || items.len() < 2 {
        return (items.len(), 0);
    }
    let piece = min_piece.max(renderer.tab.memory()).min(total / 2);
    let mut bytes = 0;
    let mut cut = 0;
    for (k, it) in items.iter().enumerate() {
        bytes += it.end - it.start;
        if cut == 0 && bytes >= piece {
            cut = k + 1;
        } else if cut != 0 && bytes >= 2 * piece {
            return (cut, k + 1 - cut);
        }
    }
    // The second piece is all that is left.
    (cut, items.len() - cut)
}

/// The second renderer and its output, kept from run to run so that its
/// allocations are reused.
#[derive(Default)]
pub struct Ahead {
    copy: Option<Renderer>,
    /// The second half's output, after a [`Ahead::print_split`] that
    /// returned true.
    pub out: Vec<u8>,
}

impl Ahead {
    /// Print the first half of a run with `renderer` (through
    /// `print_first`, on this thread) while a copy prints `second` on
    /// another thread into `self.out`. Returns what `print_first`
    /// returned and whether `self.out` is valid (see the module doc).
    pub fn print_split<T>(
        &mut self,
        renderer: &mut Renderer,
        buf: &[u8],
        second: &[Item],
        print_first: impl FnOnce(&mut Renderer) -> T,
    ) -> (T, bool) {
        assert!(
            !renderer.commute,
            "commuting draws random numbers in output order"
        );
        let numbered = renderer.tab.fresh_count();
        let copy = match &mut self.copy {
            Some(copy) => {
                copy.copy_from(renderer);
                copy
            }
            None => self.copy.insert(renderer.fork()),
        };
        let out = &mut self.out;
        out.clear();
        let (first, ahead) = std::thread::scope(|scope| {
            let helper = scope.spawn(move || {
                // Without commuting the renderer draws no random numbers.
                let mut rng = GlibcRandom::new(0);
                let block = |_: &mut Vec<u8>| Ok::<(), ()>(());
                let printed = print_items(copy, &mut rng, buf, second, out, usize::MAX, block);
                printed.is_ok() && copy.tab.fresh_count() == numbered
            });
            let first = print_first(renderer);
            let ahead = match helper.join() {
                Ok(valid) => valid,
                Err(panic) => std::panic::resume_unwind(panic),
            };
            (first, ahead)
        });
        let valid = ahead && renderer.tab.fresh_count() == numbered;
        #[cfg(test)]
        if valid {
            AHEAD_USED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
        (first, valid)
    }
}

/// Ask the CPU to bring the first bytes of `text` into the cache (a hint;
/// nothing on other architectures).
#[inline]
fn prefetch(text: &[u8]) {
    #[cfg(target_arch = "x86_64")]
    for line in text.chunks(64).take(4) {
        // SAFETY: a prefetch is only a hint; the address is valid anyway.
        unsafe {
            std::arch::x86_64::_mm_prefetch(line.as_ptr().cast(), std::arch::x86_64::_MM_HINT_T0)
        };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = text;
}
