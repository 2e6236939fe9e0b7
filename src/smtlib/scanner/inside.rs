//! The scanner inside a command, from its `(` to its matching `)`: the
//! bytes are copied to the command, and only the bytes that change state
//! are looked at one by one. One step per state:
//!
//! - [`Scanner::scan_code`]: command text outside strings, symbols and
//!   comments — the hot loop (whole chunks through `swar::skip`, the depth
//!   moved by a table delta);
//! - [`Scanner::scan_to_stop`]: a string literal, a quoted symbol or a
//!   comment, up to the byte that ends it (lines counted on the way);
//! - [`Scanner::after_quote`]: the byte after a `"` inside a string (`""`
//!   is an escaped quote);
//! - [`Scanner::finish_command`]: the closed command handed out, the next
//!   one's buffer ready.

use super::{swar, Command, Scanner, State, DELTA, SHORT, STOP};
use crate::smtlib::SyntaxError;
use std::io::Read;

impl<R: Read> Scanner<R> {
    /// Inside a command: copy bytes to the command, stopping at the bytes
    /// that change state; the command once its last `)` is seen.
    pub(super) fn step_command(&mut self) -> Result<Option<Command>, SyntaxError> {
        let end = self.len;
        let mut i = self.pos;
        let mut done = false;
        while i < end && !done {
            match self.state {
                State::Cmd => (i, done) = self.scan_code(i),
                State::Str | State::Quoted | State::Comment => i = self.scan_to_stop(i),
                State::StrQuote => i = self.after_quote(i),
                State::Top | State::TopComment => {
                    unreachable!("step_command runs inside a command")
                }
            }
        }
        self.reserve(i - self.pos);
        self.cur.text.extend_from_slice(&self.buf[self.pos..i]);
        self.pos = i;
        Ok(done.then(|| self.finish_command()))
    }

    /// Command text from `buf[i]` in state `Cmd`: whole 8-byte chunks when
    /// nothing but the depth and the line move (`swar::skip`), else bytes:
    /// the depth moves by a table delta (branch-free), and a byte leaves
    /// the fast path only when it changes state (`STOP`) or at depth ≤ 1
    /// (the head, between arguments, the final `)`). Returns where it
    /// stopped and whether the command closed there.
    #[inline]
    fn scan_code(&mut self, mut i: usize) -> (usize, bool) {
        let buf = &self.buf[..self.len];
        let end = self.len;
        let mut depth = self.depth;
        let mut max_depth = self.cur.max_depth;
        let mut done = false;
        let mut changed = false;
        while i < end && !changed {
            // Whole chunks first (see `swar`), then the byte loop for the
            // next chunk.
            i = swar::skip(
                buf,
                i,
                end,
                &mut depth,
                &mut max_depth,
                &mut self.line,
                &mut self.line_start,
                self.base,
            );
            let chunk_end = (i + 8).min(end);
            while i < chunk_end {
                let b = buf[i];
                i += 1;
                depth = depth.wrapping_add(DELTA[b as usize] as u64);
                max_depth = max_depth.max(depth);
                if !(STOP[b as usize] | (depth <= 1)) {
                    continue;
                }
                match b {
                    b')' => {
                        if depth == 0 {
                            done = true;
                            changed = true;
                            break;
                        }
                        if depth == 1 {
                            self.cur.depth1_end = (self.base + i as u64 - self.cur.offset) as usize;
                        }
                    }
                    b'\n' => {
                        self.line += 1;
                        self.line_start = self.base + i as u64;
                    }
                    b';' => {
                        self.cur.has_comment = true;
                        self.state = State::Comment;
                        changed = true;
                        break;
                    }
                    b'"' | b'|' => {
                        // The token starts at i - 1.
                        let abs = self.base + i as u64 - 1;
                        self.tok_line = self.line;
                        self.tok_col = abs - self.line_start + 1;
                        self.state = if b == b'"' { State::Str } else { State::Quoted };
                        changed = true;
                        break;
                    }
                    _ => {}
                }
            }
        }
        self.depth = depth;
        self.cur.max_depth = max_depth;
        (i, done)
    }

    /// Inside a string literal, a quoted symbol or a comment, from `buf[i]`:
    /// up to and past the byte that ends it (or to the end of the block),
    /// counting the newlines passed (strings and symbols may span lines).
    #[inline]
    fn scan_to_stop(&mut self, mut i: usize) -> usize {
        let stop = match self.state {
            State::Str => b'"',
            State::Quoted => b'|',
            _ => b'\n',
        };
        let end = self.len;
        let rest = &self.buf[i..end];
        // Most are short (`|x@1|`, `; c`): look at a few bytes before
        // calling the vectorised search.
        let short = &rest[..rest.len().min(SHORT)];
        let (found, newlines) = match short.iter().position(|&b| b == stop || b == b'\n') {
            Some(k) if rest[k] == stop => (Some(k), false),
            _ => (memchr::memchr(stop, rest), true),
        };
        let upto = found.unwrap_or(rest.len());
        if stop != b'\n' && newlines {
            for nl in memchr::memchr_iter(b'\n', &rest[..upto]) {
                self.line += 1;
                self.line_start = self.base + (i + nl) as u64 + 1;
            }
        }
        let Some(k) = found else {
            return end;
        };
        i += k;
        match self.state {
            State::Str => self.state = State::StrQuote,
            State::Quoted => self.state = State::Cmd,
            _ => {
                self.line += 1;
                self.line_start = self.base + i as u64 + 1;
                self.state = State::Cmd;
            }
        }
        i + 1
    }

    /// The byte `buf[i]` after a `"` inside a string: `""` is an escaped
    /// quote; anything else ends the string and is processed again as
    /// command text.
    #[inline]
    fn after_quote(&mut self, i: usize) -> usize {
        if self.buf[i] == b'"' {
            self.state = State::Str;
            i + 1
        } else {
            self.state = State::Cmd;
            i
        }
    }

    /// The command just closed; the scanner goes back to the top level with
    /// the next command's buffer ready: a recycled one, else one sized like
    /// this one (one allocation per command for similar commands).
    fn finish_command(&mut self) -> Command {
        self.state = State::Top;
        let hint = (self.cur.text.len() + 16).clamp(64, 1 << 16);
        let next = match self.spare.pop() {
            Some(mut spare) => {
                spare.reserve(hint);
                spare
            }
            None => Vec::with_capacity(hint),
        };
        let c = &mut self.cur;
        Command {
            text: std::mem::replace(&mut c.text, next),
            offset: c.offset,
            line: c.line,
            column: c.column,
            max_depth: c.max_depth,
            has_comment: c.has_comment,
            depth1_end: c.depth1_end,
        }
    }
}
