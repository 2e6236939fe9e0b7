//! The fast path of [`super::name_file`]: the input is read in large
//! blocks, cut into commands by the block scanner
//! ([`blocks`](crate::smtlib::scanner::blocks), bitmasks over 64 bytes) and
//! written from the read buffer, with only `(! ` and ` :named PN)` added
//! around each plain assertion's term; the output is hashed and written on
//! a second thread ([`super::sink`]).
//!
//! A plain assertion (head `assert`, a term, no `:` byte, no name seen so
//! far in the file, no `check-sat` before it) is handled here; any other
//! command becomes the [`Command`] the byte scanner would have made of it
//! and goes through the same [`Pass::command`] as in the slow path. At the
//! first thing the block scanner does not judge (a byte between commands
//! that is neither white space nor a comment, an input that ends inside a
//! command, a read error), the rest of the input, from the end of the last
//! command written, is handed to the byte scanner ([`Pass::drive`]): its
//! messages and positions are the ones a user sees.

use super::sink::Sink;
use super::Pass;
use crate::smtlib::scanner::blocks::{Blocks, Span};
use crate::smtlib::scanner::prefetch::with_commands;
use crate::smtlib::scanner::{args_span_after, assert_head_end, command_of, Scanner};
use std::io::{self, Read, Write};

/// Bytes read at a time.
const READ: usize = 256 << 10;

/// A command still open when the buffer holds this much gets room for the
/// rest of the input at once (when its size is known), not a chain of
/// doublings.
const BIG: usize = 4 * READ;

/// Where the pass stands in the input.
struct Cursor {
    /// The bytes read and not yet dropped, `buf[..filled]`; `buf[0]` is at
    /// `base`.
    buf: Vec<u8>,
    filled: usize,
    base: u64,
    /// Start of the line that holds `buf[0]`.
    base_line_start: u64,
    /// Blocks scanned up to here (a multiple of 64, or the end).
    scanned: u64,
    /// The end of the last command named.
    done: u64,
    /// Input bytes written to the output up to here: the output of every
    /// command up to `done` is written but for its last bytes, which are
    /// the input's, `copied..done` (written with the next gap).
    copied: u64,
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
        buf: vec![0; first],
        filled: 0,
        base: 0,
        base_line_start: 0,
        scanned: 0,
        done: 0,
        copied: 0,
    };
    let mut blocks = Blocks::new();
    let mut spans: Vec<Span> = Vec::new();
    loop {
        at.make_room(size_hint);
        let eof = match at.read(&mut input) {
            Ok(eof) => eof,
            Err(e) => {
                let failed = Failed(Some(e));
                return hand_over(&mut at, &blocks, failed, pass, out, clashed);
            }
        };
        at.scan(&mut blocks, &mut spans, eof);
        for span in spans.drain(..) {
            if clashed() {
                return Ok(false);
            }
            if !emit(&mut at, &span, pass, out)? {
                return hand_over(&mut at, &blocks, &mut input, pass, out, clashed);
            }
        }
        if blocks.stopped().is_some() || (eof && !blocks.at_rest()) {
            return hand_over(&mut at, &blocks, &mut input, pass, out, clashed);
        }
        if eof {
            if clashed() {
                return Ok(false);
            }
            out.write_all(at.slice(at.copied, at.base + at.filled as u64))?;
            pass.size += at.base + at.filled as u64 - at.done;
            return Ok(true);
        }
    }
}

impl Cursor {
    /// The input bytes `from..to`, all in the buffer.
    #[inline(always)]
    fn slice(&self, from: u64, to: u64) -> &[u8] {
        &self.buf[(from - self.base) as usize..(to - self.base) as usize]
    }

    /// Drop the bytes already written and make room for the next read.
    fn make_room(&mut self, size_hint: Option<u64>) {
        let copied = (self.copied - self.base) as usize;
        if copied > 0 {
            if let Some(j) = memchr::memrchr(b'\n', &self.buf[..copied]) {
                self.base_line_start = self.base + j as u64 + 1;
            }
            self.buf.copy_within(copied..self.filled, 0);
            self.filled -= copied;
            self.base = self.copied;
        }
        let len = self.filled;
        if self.buf.len() - len >= READ.min(self.buf.len() / 2) {
            return;
        }
        let grown = match size_hint {
            Some(total) if len >= BIG => {
                (total.saturating_sub(self.base) as usize + 64).max(len + READ)
            }
            _ => (len * 2).max(len + READ),
        };
        self.buf.resize(grown, 0);
    }

    /// Read until the buffer is full or the input ends; whether it ended.
    fn read<R: Read>(&mut self, input: &mut R) -> io::Result<bool> {
        while self.filled < self.buf.len() {
            match input.read(&mut self.buf[self.filled..]) {
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
        let buf = &self.buf[..self.filled];
        let mut i = (self.scanned - self.base) as usize;
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

/// Write the gap before the command `span` and the command; `Ok(false)`
/// (nothing written) when the byte scanner must take over from the gap.
#[inline]
fn emit(at: &mut Cursor, span: &Span, pass: &mut Pass, out: &mut Sink) -> io::Result<bool> {
    let text = at.slice(span.start, span.end);
    let head_end = match span.colon || !pass.rw.option_written {
        true => None,
        false => assert_head_end(text),
    };
    if let Some(head_end) = head_end {
        let (s, e) = args_span_after(text, head_end, span.has_comment, span.depth1_end);
        if s < e {
            if let Some(number) = pass.analyzer.plain_assertion(text.len()) {
                let term = span.start + s as u64;
                out.write_all(at.slice(at.copied, term))?;
                out.write_all(b"(! ")?;
                out.write_all(&text[s..e])?;
                out.write_all(pass.rw.label(number))?;
                pass.size = span.end;
                (at.copied, at.done) = (span.start + e as u64, span.end);
                return Ok(true);
            }
        }
    }
    let Some(cmd) = command_of(text, span.start, span.line, span.column) else {
        return Ok(false);
    };
    out.write_all(at.slice(at.copied, span.start))?;
    pass.command(out, &cmd)?;
    (at.copied, at.done) = (span.end, span.end);
    Ok(true)
}

/// The byte scanner takes over from the end of the last command named: it
/// reads the bytes of the buffer after it, then `rest`.
fn hand_over<R: Read + Send>(
    at: &mut Cursor,
    blocks: &Blocks,
    rest: R,
    pass: &mut Pass,
    out: &mut Sink,
    clashed: &dyn Fn() -> bool,
) -> io::Result<bool> {
    out.write_all(at.slice(at.copied, at.done))?;
    at.copied = at.done;
    // The block scanner knows the line at `scanned`, the start of the
    // block where it stopped, which may be before or after `done`.
    let from = (at.done - at.base) as usize;
    let scanned = (at.scanned - at.base) as usize;
    let newlines = |b: &[u8]| b.iter().filter(|&&b| b == b'\n').count() as u64;
    let line = match from <= scanned {
        true => blocks.line() - newlines(&at.buf[from..scanned]),
        false => blocks.line() + newlines(&at.buf[scanned..from]),
    };
    let line_start = match memchr::memrchr(b'\n', &at.buf[..from]) {
        Some(j) => at.base + j as u64 + 1,
        None => at.base_line_start,
    };
    let buffered = io::Cursor::new(at.buf[from..at.filled].to_vec());
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
