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
//!
//! A plain assertion that outgrows [`BIG`] (a giant term) is not held
//! whole: after a checkpoint of the output, it is sent in parts, `(! `
//! first, while the scan is inside its term; its end adds the label. If
//! its end shows that it must be named another way (a `:` in it, an input
//! that ends inside it, a read error), the output goes back to the
//! checkpoint, the input is read again from the end of the command before
//! it, and the command is held whole as any other.

use super::sink::{Batch, Edit, Sink};
use super::Pass;
use crate::smtlib::lexer::is_whitespace;
use crate::smtlib::scanner::blocks::{Blocks, Span};
use crate::smtlib::scanner::prefetch::with_commands;
use crate::smtlib::scanner::{
    args_end_in_tail, args_span_after, assert_head_end, command_of, Scanner,
};
use std::io::{self, Read, Seek, SeekFrom};

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
    /// The giant assertion being sent in parts, and the command not to
    /// send so (rewound) by its start.
    stream: Option<Stream>,
    held: Option<u64>,
}

/// A giant assertion sent in parts: the block scanner's open span, and
/// where the output is taken back to if need be (the end of the command
/// before it: the byte scanner writes no gap before a command it rejects),
/// with its line and the start of that line.
#[derive(Clone, Copy)]
struct Stream {
    cmd: Span,
    from: u64,
    line: u64,
    line_start: u64,
}

/// Name from `input` into `out`: `Ok(false)` when `clashed` says the
/// prefix occurs in the input (the output is then partial). `size_hint`:
/// the input's length, when known.
pub(super) fn run<R: Read + Seek + Send>(
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
        stream: None,
        held: None,
    };
    let mut blocks = Blocks::new();
    let mut spans: Vec<Span> = Vec::with_capacity(first / 64);
    'read: loop {
        let eof = match at.read(&mut input) {
            Ok(eof) => eof,
            Err(_) if at.stream.is_some() => {
                // Read again from the giant command's start: the error
                // comes again, or not.
                at.rewind(&mut input, &mut blocks, out)?;
                continue;
            }
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
            if at.stream.is_some_and(|g| g.cmd.start == span.start) {
                if !at.end_stream(&span, pass) {
                    at.rewind(&mut input, &mut blocks, out)?;
                    continue 'read;
                }
                continue;
            }
            if !emit(&mut at, &span, pass) {
                return hand_over(at, &blocks, &mut input, pass, out, clashed);
            }
        }
        if blocks.stopped().is_some() || (eof && !blocks.at_rest()) {
            if at.stream.is_some() {
                at.rewind(&mut input, &mut blocks, out)?;
                continue;
            }
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
        at.stream_giant(&blocks, pass);
        at.make_room(out, size_hint, &blocks)?;
    }
}

impl Cursor {
    /// Offset in the buffer of the input's byte `abs`.
    #[inline(always)]
    fn at(&self, abs: u64) -> usize {
        (abs - self.base) as usize
    }

    /// Send the bytes of the commands named (the batch up to `done`, or
    /// further into a giant assertion sent in parts) and make room for the
    /// next read: the rest moves to a new batch.
    fn make_room(
        &mut self,
        out: &mut Sink,
        size_hint: Option<u64>,
        blocks: &Blocks,
    ) -> io::Result<()> {
        // A giant assertion goes as far as the scan while inside its term
        // (its end, where the label goes, comes later).
        let cut = match (self.stream, blocks.open_command()) {
            (Some(_), Some((_, depth))) if depth >= 2 => self.scanned,
            (Some(_), _) => self.base,
            (None, _) => self.done,
        };
        let done = self.at(cut);
        let rest = self.filled - done;
        let room = self.batch.input.len() - rest;
        let len = match size_hint {
            _ if room >= READ.min(self.batch.input.len() / 2) => self.batch.input.len(),
            Some(total) if rest >= BIG => {
                (total.saturating_sub(cut) as usize + 64).max(rest + READ)
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
        (self.base, self.filled) = (cut, rest);
        out.send_batch(full)
    }

    /// Start sending the open command in parts when it is a plain
    /// assertion so far that outgrew [`BIG`], with the scan inside its
    /// term: a checkpoint before it, `(! ` before its term.
    fn stream_giant(&mut self, blocks: &Blocks, pass: &Pass) {
        let Some((cmd, depth)) = blocks.open_command() else {
            return;
        };
        let big = self.filled - self.at(cmd.start) >= BIG;
        if !big || self.stream.is_some() || self.held == Some(cmd.start) || depth < 2 {
            return;
        }
        if cmd.colon || !pass.rw.option_written || !pass.analyzer.plain_possible() {
            return;
        }
        let t = &self.batch.input[self.at(cmd.start)..self.at(self.scanned)];
        let Some(head_end) = assert_head_end(t) else {
            return;
        };
        // The term starts at the first byte after the head that is not
        // white space (a comment there: not sent in parts).
        let Some(k) = t[head_end..].iter().position(|&b| !is_whitespace(b)) else {
            return;
        };
        if t[head_end + k] == b';' {
            return;
        }
        let (from, s) = (self.at(self.done), self.at(cmd.start) + head_end + k);
        let buf = &self.batch.input;
        let gap = &buf[from..self.at(cmd.start)];
        let line = cmd.line - memchr::memchr_iter(b'\n', gap).count() as u64;
        let line_start = match memchr::memrchr(b'\n', &buf[..from]) {
            Some(j) => self.base + j as u64 + 1,
            None => self.base_line_start,
        };
        self.batch.edits.push(Edit::Checkpoint { at: from });
        self.batch.edits.push(Edit::Open { s });
        self.stream = Some(Stream {
            cmd,
            from: self.done,
            line,
            line_start,
        });
    }

    /// The giant assertion sent in parts ends with `span`: its label
    /// before the end of its last argument; `false` (nothing done) when it
    /// must be named another way.
    fn end_stream(&mut self, span: &Span, pass: &mut Pass) -> bool {
        // The part not sent starts inside the term, before the last
        // argument group closes (`depth1_end`).
        let from = self.base - span.start;
        debug_assert!(self.done < self.base);
        let depth1_end = span.depth1_end as u64;
        if span.colon || depth1_end <= from {
            return false;
        }
        let tail = &self.batch.input[..self.at(span.end)];
        let e = args_end_in_tail(tail, span.has_comment, (depth1_end - from) as usize);
        let Some(n) = pass
            .analyzer
            .plain_assertion((span.end - span.start) as usize)
        else {
            return false;
        };
        self.batch.edits.push(Edit::Label { e, n });
        pass.size = span.end;
        self.done = span.end;
        self.stream = None;
        true
    }

    /// Back to the checkpoint before the giant assertion sent in parts:
    /// the output is cut there and the input read again from its start,
    /// to be held whole this time.
    fn rewind<R: Read + Seek>(
        &mut self,
        input: &mut R,
        blocks: &mut Blocks,
        out: &mut Sink,
    ) -> io::Result<()> {
        let g = self.stream.take().expect("a command sent in parts");
        out.rewind()?;
        input.seek(SeekFrom::Start(g.from))?;
        *blocks = Blocks::at_line(g.line, g.line_start);
        (self.base, self.filled, self.scanned) = (g.from, 0, g.from);
        self.base_line_start = g.line_start;
        self.held = Some(g.cmd.start);
        self.batch.edits.clear();
        self.batch.side.clear();
        Ok(())
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
