//! Scanning one big script on a second thread, so that reading and cutting
//! it into commands overlaps with what the caller does with each command
//! (naming writes it, the scrambler renames it). On a machine with a core
//! to spare, one file then goes through at close to the speed of the
//! slower half instead of the sum of both.
//!
//! [`with_commands`] hands the caller a [`Commands`] source: the plain
//! [`Scanner`] or, with `prefetch`, a [`Prefetch`] fed by a scoped thread
//! that runs the scanner and an optional per-command `prepare` step (the
//! scrambler lexes there). Commands travel in batches of about
//! [`BATCH_BYTES`] through a channel of [`BATCHES_AHEAD`] batches, so memory
//! stays bounded: a few batches plus the command being scanned. If the
//! caller stops early, the producer notices at its next send and ends.
//!
//! Nothing is allocated per command in the steady state: emptied batches
//! go back to the producer, with the text buffers of the commands the
//! caller handed back ([`Commands::recycle`]), which the scanner fills
//! again. Without it, every command's buffer was allocated on one thread
//! and freed on the other, and the allocator kept faulting in fresh pages.

use super::{Command, Scanner};
use crate::smtlib::SyntaxError;
use std::collections::VecDeque;
use std::io::Read;
use std::ops::Range;
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};

/// Bytes of command text per batch.
pub const BATCH_BYTES: usize = 256 << 10;
/// Batches scanned ahead of the caller.
pub const BATCHES_AHEAD: usize = 4;

/// A source of top-level commands: the scanner's interface.
pub trait Commands<T = ()> {
    /// The next command and what `prepare` made of it; `None` at the end.
    fn next_command(&mut self) -> Result<Option<(Command, T)>, SyntaxError>;
    /// The text between the previous command (or the start) and the one
    /// just returned (or the end of the script).
    fn gap(&self) -> &[u8];
    /// Hands a command the caller is done with back, so that its buffer
    /// holds a later command (optional: dropping it is as correct).
    fn recycle(&mut self, cmd: Command);
}

/// The scanner itself, preparing each command in line.
struct Inline<R, F> {
    sc: Scanner<R>,
    prepare: F,
}

impl<R: Read, T, F: FnMut(&Command) -> T> Commands<T> for Inline<R, F> {
    fn next_command(&mut self) -> Result<Option<(Command, T)>, SyntaxError> {
        Ok(self.sc.next_command()?.map(|c| {
            let t = (self.prepare)(&c);
            (c, t)
        }))
    }

    fn gap(&self) -> &[u8] {
        self.sc.gap()
    }

    fn recycle(&mut self, cmd: Command) {
        self.sc.recycle(cmd.text);
    }
}

/// Commands scanned on the producer thread.
struct Batch<T> {
    items: VecDeque<(Command, T, Range<usize>)>,
    /// The gaps before the items, one after the other.
    gaps: Vec<u8>,
    /// The last batch: the gap after the last command, and the scan error
    /// that ended the script early, if any.
    end: Option<(Vec<u8>, Option<SyntaxError>)>,
}

/// An emptied batch on its way back to the producer, with the command
/// buffers the caller recycled meanwhile.
struct Spare<T> {
    items: VecDeque<(Command, T, Range<usize>)>,
    gaps: Vec<u8>,
    texts: Vec<Vec<u8>>,
}

/// Command buffers sent back per batch at most (the rest are freed).
const SPARE_TEXTS: usize = 1 << 14;

/// The consumer side of a prefetching scan.
pub struct Prefetch<T> {
    rx: Receiver<Batch<T>>,
    back: SyncSender<Spare<T>>,
    batch: VecDeque<(Command, T, Range<usize>)>,
    gaps: Vec<u8>,
    gap: Range<usize>,
    texts: Vec<Vec<u8>>,
    end: Option<(Vec<u8>, Option<SyntaxError>)>,
    finished: bool,
}

impl<T> Prefetch<T> {
    /// Sends the emptied current batch (and the recycled buffers) back to
    /// the producer; dropped when the producer has enough spares or ended.
    fn give_back(&mut self) {
        let spare = Spare {
            items: std::mem::take(&mut self.batch),
            gaps: std::mem::take(&mut self.gaps),
            texts: std::mem::take(&mut self.texts),
        };
        let _ = self.back.try_send(spare);
    }
}

impl<T> Commands<T> for Prefetch<T> {
    fn next_command(&mut self) -> Result<Option<(Command, T)>, SyntaxError> {
        loop {
            if let Some((cmd, t, gap)) = self.batch.pop_front() {
                self.gap = gap;
                return Ok(Some((cmd, t)));
            }
            if let Some((tail, error)) = self.end.take() {
                self.gaps = tail;
                self.gap = 0..self.gaps.len();
                self.finished = true;
                return match error {
                    Some(e) => Err(e),
                    None => Ok(None),
                };
            }
            if self.finished {
                return Ok(None);
            }
            let Ok(b) = self.rx.recv() else {
                // The producer died without an end marker: it panicked,
                // and the scope re-raises that panic.
                self.finished = true;
                return Ok(None);
            };
            self.give_back();
            self.batch = b.items;
            self.gaps = b.gaps;
            self.end = b.end;
        }
    }

    fn gap(&self) -> &[u8] {
        &self.gaps[self.gap.clone()]
    }

    fn recycle(&mut self, mut cmd: Command) {
        if self.texts.len() < SPARE_TEXTS {
            cmd.text.clear();
            self.texts.push(cmd.text);
        }
    }
}

/// Run `consume` over the commands of `sc`, each with what `prepare`
/// made of it. With `prefetch`, the scanner and `prepare` run on a second
/// thread, ahead of `consume`; without, in line. Same commands, same gaps,
/// same errors either way.
pub fn with_commands<R, T, F, C, O>(
    mut sc: Scanner<R>,
    prefetch: bool,
    mut prepare: F,
    consume: C,
) -> O
where
    R: Read + Send,
    T: Send,
    F: FnMut(&Command) -> T + Send,
    C: FnOnce(&mut dyn Commands<T>) -> O,
{
    if !prefetch {
        let mut inline = Inline { sc, prepare };
        return consume(&mut inline);
    }
    let (tx, rx) = sync_channel::<Batch<T>>(BATCHES_AHEAD);
    let (back, spares) = sync_channel::<Spare<T>>(BATCHES_AHEAD + 2);
    std::thread::scope(|scope| {
        scope.spawn(move || {
            loop {
                let mut batch = match spares.try_recv() {
                    Ok(spare) => {
                        sc.recycle_all(spare.texts);
                        Batch {
                            items: spare.items,
                            gaps: spare.gaps,
                            end: None,
                        }
                    }
                    Err(_) => Batch {
                        items: VecDeque::new(),
                        gaps: Vec::new(),
                        end: None,
                    },
                };
                let mut bytes = 0;
                while bytes < BATCH_BYTES && batch.end.is_none() {
                    match sc.next_command() {
                        Ok(Some(cmd)) => {
                            let from = batch.gaps.len();
                            batch.gaps.extend_from_slice(sc.gap());
                            bytes += cmd.text.len() + 64;
                            let t = prepare(&cmd);
                            batch.items.push_back((cmd, t, from..batch.gaps.len()));
                        }
                        Ok(None) => batch.end = Some((sc.gap().to_vec(), None)),
                        Err(e) => batch.end = Some((Vec::new(), Some(e))),
                    }
                }
                let last = batch.end.is_some();
                // A closed channel: the consumer stopped early.
                if tx.send(batch).is_err() || last {
                    return;
                }
            }
        });
        let mut source = Prefetch {
            rx,
            back,
            batch: VecDeque::new(),
            gaps: Vec::new(),
            gap: 0..0,
            texts: Vec::new(),
            end: None,
            finished: false,
        };
        let out = consume(&mut source);
        drop(source); // unblocks a producer waiting to send
        out
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (gap before, text, what `prepare` made) per command.
    type Seen = Vec<(Vec<u8>, Vec<u8>, usize)>;

    /// Every command with its gap, and the final gap or error.
    fn collect(src: &[u8], prefetch: bool) -> (Seen, Result<Vec<u8>, String>) {
        with_commands(
            Scanner::new(src),
            prefetch,
            |c| c.text.len(),
            |s| {
                let mut items = Vec::new();
                loop {
                    match s.next_command() {
                        Ok(Some((c, n))) => {
                            items.push((s.gap().to_vec(), c.text.clone(), n));
                            // Buffers handed back hold later commands.
                            s.recycle(c);
                        }
                        Ok(None) => return (items, Ok(s.gap().to_vec())),
                        Err(e) => return (items, Err(e.to_string())),
                    }
                }
            },
        )
    }

    #[test]
    fn same_commands_gaps_and_errors_with_and_without_prefetch() {
        let mut big = Vec::new();
        for i in 0..50_000 {
            big.extend_from_slice(format!("; c{i}\n(assert (> x {i}))\n").as_bytes());
        }
        big.extend_from_slice(b"  ; the end\n");
        let bad = [&big[..], b"(assert |open"].concat();
        for src in [&b""[..], b"(a)", b" (a) ; t", &big, &bad] {
            let (a, b) = (collect(src, false), collect(src, true));
            assert_eq!(a, b);
        }
        let (items, end) = collect(&big, true);
        assert_eq!(items.len(), 50_000);
        assert_eq!(items[7].0, b"\n; c7\n");
        assert_eq!(items[7].2, items[7].1.len());
        assert_eq!(end.unwrap(), b"\n  ; the end\n");
        assert!(collect(&bad, true).1.unwrap_err().contains("quoted symbol"));
    }

    #[test]
    fn a_consumer_that_stops_early_ends_the_producer() {
        let big: Vec<u8> = b"(assert p)\n".repeat(1 << 20);
        let first = with_commands(
            Scanner::new(&big[..]),
            true,
            |_| (),
            |s| s.next_command().unwrap().map(|(c, ())| c.text),
        );
        assert_eq!(first.unwrap(), b"(assert p)");
    }
}
