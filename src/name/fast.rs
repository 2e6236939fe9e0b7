//! The fast path of [`super::name_file`]: the input is read in large
//! blocks, cut into commands by the block scanner
//! ([`blocks`](crate::smtlib::scanner::blocks), bitmasks over 64 bytes),
//! and each read buffer goes to the writing thread ([`super::sink`]) with
//! the edits that name it: `(! ` and ` :named PN)` around each plain
//! assertion's term; no command is copied out of the buffer.
//!
//! A plain assertion (head `assert`, a term, no `:` byte, no name seen so
//! far in the file, no `check-sat` before it) is handled here; any other
//! command becomes the [`Command`](crate::smtlib::scanner::Command) the byte scanner would have made of it
//! and goes through the same [`Pass::command`] as in the slow path (its
//! output replaces the command's bytes). At the
//! first thing the block scanner does not judge (a byte between commands
//! that is neither white space nor a comment, an input that ends inside a
//! command, a read error), the rest of the input, from the end of the last
//! command written, is handed to the byte scanner ([`Pass::drive`]): its
//! messages and positions are the ones a user sees.

use super::sink::{Batch, Edit, Sink};
use super::Pass;
use crate::smtlib::scanner::blocks::{Blocks, Span};
use crate::smtlib::scanner::prefetch::with_commands;
use crate::smtlib::scanner::{args_span_after, assert_head_end, command_of, Scanner};
use std::io::{self, Read};

/// Bytes read at a time.
const READ: usize = 256 << 10;

/// A command still open when the buffer holds this much gets room for the
/// rest of the input at once (when its size is known), not a chain of
/// doublings.
const BIG: usize = 4 * READ;

/// Where the pass stands in the input.
struct Cursor {
    /// The bytes read and not yet sent, `batch.input[..filled]`, with the
    /// edits of the commands named in them; `batch.input[0]` is at `base`.
    batch: Batch,
    filled: usize,
    base: u64,
    /// Start of the line that holds `batch.input[0]`.
    base_line_start: u64,
    /// Blocks scanned up to here (a multiple of 64, or the end).
    scanned: u64,
    /// The end of the last command named.
    done: u64,
}

/// Name from `input` into `out`: `Ok(false)` when `clashed` says the
/// prefix occurs in the input (the output is then partial). `size_hint`:
/// the input's length, when known.
pub(super) fn run<R: Read + Send>(
    mut input: R,
    pass: &mut Pass,
    out: &mut Sink,
    clashed: &dyn Fn() -> bool,
    size_hint: Option<u64>,
) -> io::Result<bool> {
    let first = size_hint.map_or(READ, |n| (n as usize + 64).min(READ));
    let mut at = Cursor {
        batch: out.batch(first),
        filled: 0,
        base: 0,
        base_line_start: 0,
        scanned: 0,
        done: 0,
    };
    let mut blocks = Blocks::new();
    let mut spans: Vec<Span> = Vec::with_capacity(first / 64);
    loop {
        let eof = match at.read(&mut input) {
            Ok(eof) => eof,
            Err(e) => {
                let failed = Failed(Some(e));
                return hand_over(at, &blocks, failed, pass, out, clashed);
            }
        };
        at.scan(&mut blocks, &mut spans, eof);
        for span in spans.drain(..) {
            if clashed() {
                return Ok(false);
            }
            if !emit(&mut at, &span, pass) {
                return hand_over(at, &blocks, &mut input, pass, out, clashed);
            }
        }
        if blocks.stopped().is_some() || (eof && !blocks.at_rest()) {
            return hand_over(at, &blocks, &mut input, pass, out, clashed);
        }
        if eof {
            if clashed() {
                return Ok(false);
            }
            pass.size += at.base + at.filled as u64 - at.done;
            at.batch.to = at.filled;
            out.send_batch(at.batch)?;
            return Ok(true);
        }
        at.make_room(out, size_hint)?;
    }
}

impl Cursor {
    /// Offset in the buffer of the input's byte `abs`.
    #[inline(always)]
    fn at(&self, abs: u64) -> usize {
        (abs - self.base) as usize
    }

    /// Send the bytes of the commands named (the batch up to `done`) and
    /// make room for the next read: the rest moves to a new batch.
    fn make_room(&mut self, out: &mut Sink, size_hint: Option<u64>) -> io::Result<()> {
        let done = self.at(self.done);
        let rest = self.filled - done;
        let room = self.batch.input.len() - rest;
        let len = match size_hint {
            _ if room >= READ.min(self.batch.input.len() / 2) => self.batch.input.len(),
            Some(total) if rest >= BIG => {
                (total.saturating_sub(self.done) as usize + 64).max(rest + READ)
            }
            _ => (rest * 2).max(rest + READ),
        };
        if done == 0 {
            self.batch.input.resize(len, 0);
            return Ok(());
        }
        if let Some(j) = memchr::memrchr(b'\n', &self.batch.input[..done]) {
            self.base_line_start = self.base + j as u64 + 1;
        }
        let mut next = out.batch(len);
        next.input[..rest].copy_from_slice(&self.batch.input[done..self.filled]);
        let mut full = std::mem::replace(&mut self.batch, next);
        full.to = done;
        (self.base, self.filled) = (self.done, rest);
        out.send_batch(full)
    }

    /// Read until the buffer is full or the input ends; whether it ended.
    fn read<R: Read>(&mut self, input: &mut R) -> io::Result<bool> {
        let buf = &mut self.batch.input;
        while self.filled < buf.len() {
            match input.read(&mut buf[self.filled..]) {
                Ok(0) => return Ok(true),
                Ok(n) => self.filled += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(false)
    }

    /// Scan the whole blocks read (and, at the end of the input, the last
    /// bytes, padded).
    fn scan(&mut self, blocks: &mut Blocks, spans: &mut Vec<Span>, eof: bool) {
        let buf = &self.batch.input[..self.filled];
        let mut i = self.at(self.scanned);
        i += blocks.scan_all(&buf[i..], self.scanned, spans);
        if eof && i < buf.len() && blocks.stopped().is_none() {
            let mut last = [b' '; 64];
            last[..buf.len() - i].copy_from_slice(&buf[i..]);
            blocks.scan(&last, self.base + i as u64, spans);
            if blocks.stopped().is_none() {
                i = buf.len();
            }
        }
        self.scanned = self.base + i as u64;
    }
}

/// Name the command `span`: the edit that makes its output; `false`
/// (nothing done) when the byte scanner must take over from before it.
#[inline]
fn emit(at: &mut Cursor, span: &Span, pass: &mut Pass) -> bool {
    let (start, end) = (at.at(span.start), at.at(span.end));
    let b = &mut at.batch;
    let text = &b.input[start..end];
    let head_end = match span.colon || !pass.rw.option_written {
        true => None,
        false => assert_head_end(text),
    };
    if let Some(head_end) = head_end {
        let (s, e) = args_span_after(text, head_end, span.has_comment, span.depth1_end);
        if s < e {
            if let Some(n) = pass.analyzer.plain_assertion(text.len()) {
                let (s, e) = (start + s, start + e);
                b.edits.push(Edit::Assert { s, e, n });
                pass.size = span.end;
                at.done = span.end;
                return true;
            }
        }
    }
    let Some(cmd) = command_of(text, span.start, span.line, span.column) else {
        return false;
    };
    let from = b.side.len();
    // Writing into a vector cannot fail.
    let _ = pass.command(&mut b.side, &cmd);
    let to = b.side.len();
    b.edits.push(Edit::Replace {
        start,
        end,
        from,
        to,
    });
    at.done = span.end;
    true
}

/// The byte scanner takes over from the end of the last command named: it
/// reads the bytes of the buffer after it, then `rest`.
fn hand_over<R: Read + Send>(
    mut at: Cursor,
    blocks: &Blocks,
    rest: R,
    pass: &mut Pass,
    out: &mut Sink,
    clashed: &dyn Fn() -> bool,
) -> io::Result<bool> {
    // The block scanner knows the line at `scanned`, the start of the
    // block where it stopped, which may be before or after `done`.
    let from = at.at(at.done);
    let scanned = at.at(at.scanned);
    let buf = &at.batch.input;
    let newlines = |b: &[u8]| b.iter().filter(|&&b| b == b'\n').count() as u64;
    let line = match from <= scanned {
        true => blocks.line() - newlines(&buf[from..scanned]),
        false => blocks.line() + newlines(&buf[scanned..from]),
    };
    let line_start = match memchr::memrchr(b'\n', &buf[..from]) {
        Some(j) => at.base + j as u64 + 1,
        None => at.base_line_start,
    };
    let buffered = io::Cursor::new(buf[from..at.filled].to_vec());
    at.batch.to = from;
    out.send_batch(at.batch)?;
    let sc = Scanner::resume(buffered.chain(rest), at.done, line, line_start);
    with_commands(sc, false, |_| (), |source| pass.drive(source, out, clashed))
}

/// A reader that fails once with the error a read gave, then ends.
struct Failed(Option<io::Error>);

impl Read for Failed {
    fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
        match self.0.take() {
            Some(e) => Err(e),
            None => Ok(0),
        }
    }
}

#[cfg(test)]
mod tests;
