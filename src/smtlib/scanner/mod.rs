//! Streaming top-level scanner for SMT-LIB 2.6 scripts.
//!
//! It reads any `Read` in large blocks and yields each top-level command as
//! its bytes plus where it started, keeping the text between commands
//! (white space and comments) as a *gap*, so that a rewriter can write the
//! script back byte for byte. Inside a command it only tracks what can hide
//! a parenthesis: string literals (with `""` escapes), `|quoted symbols|`
//! (which may hold newlines and parentheses) and `;` comments. Nesting is a
//! counter, so a depth of 10⁶ costs nothing, and only the current command is
//! held in memory, so a script of hundreds of MB streams through.
//!
//! This is coreval's hot path; smt2parser (see [`super::lint`]) is used only
//! for strict validation because it is ~60× slower and can use tens of times
//! the input's size in memory.

use crate::smtlib::SyntaxError;

use std::io::{self, Read};

/// Size of the blocks read from the input…
const BLOCK: usize = 1 << 20;

/// …after a first block of this size, grown ×4 while reads fill it, so that
/// a small input (most benchmarks, every solver answer) costs no 1 MB
/// zeroed buffer.
const FIRST_BLOCK: usize = 64 << 10;

/// Bytes of a stray top-level token quoted in the error message.
const STRAY_SHOWN: usize = 20;
/// Bytes of a string, quoted symbol or comment looked at one by one before
/// searching the rest with `memchr`.
const SHORT: usize = 24;

/// One top-level command.
#[derive(Clone, Debug, Default)]
pub struct Command {
    /// The command's bytes, from its `(` to its matching `)`.
    pub text: Vec<u8>,
    /// Byte offset of the `(` in the input.
    pub offset: u64,
    /// 1-based line of the `(`.
    pub line: u64,
    /// 1-based byte column of the `(`.
    pub column: u64,
    /// Deepest nesting reached inside the command (1 for `(exit)`).
    pub max_depth: u64,
    /// Whether a `;` comment occurs inside the command.
    pub has_comment: bool,
    /// Offset in `text` just after the last `)` that closed a group
    /// directly inside the command (an argument), 0 if none: a point where
    /// [`Command::args_span`] can resume lexing without walking the
    /// arguments' insides.
    pub depth1_end: usize,
}

impl Command {
    /// Line and column of byte `offset` of the command's text.
    pub fn position(&self, offset: usize) -> (u64, u64) {
        super::position_in_text(&self.text, offset, self.line, self.column)
    }
    /// The head symbol (`assert`, `set-logic`…), or `""` when the command
    /// does not start with a simple symbol.
    pub fn head(&self) -> &str {
        super::lexer::command_head(&self.text)
            .and_then(|h| std::str::from_utf8(h).ok())
            .unwrap_or("")
    }

    /// Span of the command's arguments inside `text`: from the first token
    /// after the head to the end of the last token before the closing
    /// parenthesis (white space and comments around them excluded).
    pub fn args_span(&self) -> (usize, usize) {
        args_span(&self.text, self.has_comment, self.depth1_end)
    }
}

/// [`Command::args_span`] of the command `t` with those fields.
pub fn args_span(t: &[u8], has_comment: bool, depth1_end: usize) -> (usize, usize) {
    let head_end = super::lexer::command_head_span(t).map_or(1, |(_, e)| e);
    args_span_after(t, head_end, has_comment, depth1_end)
}

/// Where the head of the command `t` ends when it is `assert`.
#[inline]
pub fn assert_head_end(t: &[u8]) -> Option<usize> {
    if t.len() > 7 && &t[..7] == b"(assert" && super::token::is_delimiter(t[7]) {
        return Some(7);
    }
    super::lexer::command_head_span(t)
        .filter(|&(s, e)| &t[s..e] == b"assert")
        .map(|(_, e)| e)
}

/// [`args_span`] with the end of the head known.
#[inline]
pub fn args_span_after(
    t: &[u8],
    head_end: usize,
    has_comment: bool,
    depth1_end: usize,
) -> (usize, usize) {
    use super::lexer::{is_whitespace, Lexer};
    let close = t.len().saturating_sub(1);
    let mut start = head_end;
    while start < close && is_whitespace(t[start]) {
        start += 1;
    }
    if !has_comment {
        let mut end = close;
        while end > start && is_whitespace(t[end - 1]) {
            end -= 1;
        }
        return (start, end);
    }
    // Comments may sit before the first or after the last argument:
    // the span runs from the first token to the end of the last one.
    // Only the tail after the last argument group is lexed, so a giant
    // commented term costs no more than a plain one.
    let mut first_lx = Lexer::new(&t[start..close]);
    let first = match first_lx.next() {
        Some(Ok(tok)) => start + tok.start,
        _ => return (start, start),
    };
    (first, last_token_end(t, depth1_end.max(first)))
}

/// The end of [`args_span_after`]'s span from the command's bytes after
/// `tail[0]` alone, where the first argument starts before `tail[0]` and
/// the last argument group closes after it (`depth1_end`, relative to
/// `tail`, is not 0).
pub fn args_end_in_tail(tail: &[u8], has_comment: bool, depth1_end: usize) -> usize {
    use super::lexer::is_whitespace;
    if !has_comment {
        let mut end = tail.len().saturating_sub(1);
        while end > depth1_end && is_whitespace(tail[end - 1]) {
            end -= 1;
        }
        return end;
    }
    last_token_end(tail, depth1_end)
}

/// The end of the last token of `t[resume..]` before the command's final
/// `)`, or `resume` when there is none.
fn last_token_end(t: &[u8], resume: usize) -> usize {
    let close = t.len().saturating_sub(1);
    let mut end = resume;
    for tok in super::lexer::Lexer::new(&t[resume..close]).flatten() {
        end = resume + tok.end;
    }
    end
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// Between commands.
    Top,
    /// In a comment between commands.
    TopComment,
    /// Inside a command, outside strings, symbols and comments.
    Cmd,
    Str,
    /// Saw a `"` inside a string: either the end or the first half of `""`.
    StrQuote,
    Quoted,
    Comment,
}

/// Depth change of each byte inside a command: `(` +1, `)` −1 (as u64,
/// wrapping).
static DELTA: [i8; 256] = {
    let mut t = [0i8; 256];
    t[b'(' as usize] = 1;
    t[b')' as usize] = -1;
    t
};

/// Bytes that change the scanner's state inside a command, or its line.
static STOP: [bool; 256] = {
    let mut t = [false; 256];
    t[b'"' as usize] = true;
    t[b'|' as usize] = true;
    t[b';' as usize] = true;
    t[b'\n' as usize] = true;
    t
};

/// The scanner. Call [`Scanner::next_command`] until it returns `Ok(None)`;
/// [`Scanner::gap`] then holds the text after the last command.
pub struct Scanner<R> {
    input: R,
    buf: Vec<u8>,
    pos: usize,
    len: usize,
    eof: bool,
    failed: bool,
    /// Absolute offset of `buf[0]`.
    base: u64,
    line: u64,
    /// Absolute offset of the byte after the last newline.
    line_start: u64,
    state: State,
    depth: u64,
    cur: Command,
    gap: Vec<u8>,
    /// Position of the token that opened the current string or symbol.
    tok_line: u64,
    tok_col: u64,
    /// Bytes of the whole input, when known ([`Scanner::with_size_hint`]).
    size_hint: Option<u64>,
    /// Emptied command buffers for the next commands ([`Scanner::recycle`]).
    spare: Vec<Vec<u8>>,
}

/// Recycled command buffers larger than this are freed, not kept.
const SPARE_MAX: usize = 1 << 16;

/// A command longer than this grows to the rest of the input at once when
/// the input's size is known (see [`Scanner::with_size_hint`]).
const BIG_COMMAND: usize = 16 << 20;

impl<R: Read> Scanner<R> {
    pub fn new(input: R) -> Self {
        Self::with_first_block(input, FIRST_BLOCK)
    }

    /// A scanner whose first read is of `first` bytes.
    fn with_first_block(input: R, first: usize) -> Self {
        Scanner {
            input,
            buf: vec![0; first],
            pos: 0,
            len: 0,
            eof: false,
            failed: false,
            base: 0,
            line: 1,
            line_start: 0,
            state: State::Top,
            depth: 0,
            cur: Command::default(),
            gap: Vec::new(),
            tok_line: 0,
            tok_col: 0,
            size_hint: None,
            spare: Vec::new(),
        }
    }

    /// A scanner that starts between two commands, at absolute offset
    /// `base` of line `line` (whose first byte is at `line_start`): the
    /// input is read from there, and offsets, lines and columns go on from
    /// that point.
    pub fn resume(input: R, base: u64, line: u64, line_start: u64) -> Self {
        let mut sc = Scanner::new(input);
        (sc.base, sc.line, sc.line_start) = (base, line, line_start);
        sc
    }

    /// Gives the text buffer of a command the caller is done with back:
    /// a later command is scanned into it instead of a new allocation
    /// (a buffer over [`SPARE_MAX`] is freed instead).
    pub fn recycle(&mut self, mut text: Vec<u8>) {
        if text.capacity() <= SPARE_MAX {
            text.clear();
            self.spare.push(text);
        }
    }

    /// [`Scanner::recycle`] for many buffers.
    pub fn recycle_all(&mut self, texts: Vec<Vec<u8>>) {
        for text in texts {
            self.recycle(text);
        }
    }

    /// Tell the scanner how many bytes the input has. A command that
    /// outgrows `BIG_COMMAND` (16 MiB) is then given room for the rest of the
    /// input in one step instead of doubling its buffer: peak memory for a
    /// giant assertion stays near its size (an allocator may keep the
    /// outgrown buffers of a doubling chain resident for a while).
    pub fn with_size_hint(mut self, bytes: u64) -> Self {
        self.size_hint = Some(bytes);
        self
    }

    /// Room for `more` bytes in the current command (see [`Self::with_size_hint`]).
    fn reserve(&mut self, more: usize) {
        let text = &mut self.cur.text;
        if text.capacity() - text.len() >= more || text.len() + more < BIG_COMMAND {
            return;
        }
        if let Some(total) = self.size_hint {
            let rest = total.saturating_sub(self.cur.offset) as usize;
            if rest >= text.len() + more {
                text.reserve_exact(rest - text.len());
            }
        }
    }

    /// White space and comments before the command last returned (or, after
    /// the end, after the last command).
    pub fn gap(&self) -> &[u8] {
        &self.gap
    }

    fn column_at(&self, abs: u64) -> u64 {
        abs - self.line_start + 1
    }

    fn error(&mut self, line: u64, column: u64, message: String) -> SyntaxError {
        self.failed = true;
        SyntaxError {
            line,
            column,
            message,
        }
    }

    fn fill(&mut self) -> Result<bool, SyntaxError> {
        if self.eof {
            return Ok(false);
        }
        if self.len == self.buf.len() && self.buf.len() < BLOCK {
            let grown = (self.buf.len() * 4).min(BLOCK);
            self.buf.resize(grown, 0);
        }
        self.base += self.len as u64;
        self.pos = 0;
        self.len = 0;
        loop {
            match self.input.read(&mut self.buf) {
                Ok(0) => {
                    self.eof = true;
                    return Ok(false);
                }
                Ok(n) => {
                    self.len = n;
                    return Ok(true);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    let (l, c) = (self.line, self.column_at(self.base));
                    return Err(self.error(l, c, format!("read error: {e}")));
                }
            }
        }
    }

    /// The next top-level command, `Ok(None)` at the end of the input.
    /// After an error the scanner stays finished.
    pub fn next_command(&mut self) -> Result<Option<Command>, SyntaxError> {
        if self.failed {
            return Ok(None);
        }
        self.gap.clear();
        loop {
            if self.pos == self.len && !self.fill()? {
                return self.at_eof();
            }
            if let Some(cmd) = self.step()? {
                return Ok(Some(cmd));
            }
        }
    }

    fn at_eof(&mut self) -> Result<Option<Command>, SyntaxError> {
        let (l, c) = (self.tok_line, self.tok_col);
        match self.state {
            State::Top | State::TopComment => Ok(None),
            State::Str => Err(self.error(
                l,
                c,
                "unterminated string literal: expected '\"' before the end of the file".into(),
            )),
            State::Quoted => Err(self.error(
                l,
                c,
                "unterminated quoted symbol: expected '|' before the end of the file".into(),
            )),
            State::Cmd | State::StrQuote | State::Comment => {
                let (l, c, d) = (self.cur.line, self.cur.column, self.depth);
                Err(self.error(
                    l,
                    c,
                    format!("unbalanced parentheses: the command opened here is not closed at the end of the file (expected {d} more ')')"),
                ))
            }
        }
    }

    /// Process the buffered bytes; returns a command as soon as one closes.
    fn step(&mut self) -> Result<Option<Command>, SyntaxError> {
        let mut i = self.pos;
        let end = self.len;
        match self.state {
            State::Top => {
                while i < end {
                    let b = self.buf[i];
                    match b {
                        b'\n' => {
                            self.line += 1;
                            self.line_start = self.base + i as u64 + 1;
                        }
                        b' ' | b'\t' | b'\r' | b'\x0c' | b'\x0b' => {}
                        b';' => {
                            self.gap.extend_from_slice(&self.buf[self.pos..=i]);
                            self.pos = i + 1;
                            self.state = State::TopComment;
                            return Ok(None);
                        }
                        b'(' => {
                            self.gap.extend_from_slice(&self.buf[self.pos..i]);
                            let abs = self.base + i as u64;
                            // Field by field: `cur.text` is already allocated
                            // (see `inside::finish_command`).
                            let column = self.column_at(abs);
                            let c = &mut self.cur;
                            (c.offset, c.line, c.column) = (abs, self.line, column);
                            (c.max_depth, c.has_comment, c.depth1_end) = (1, false, 0);
                            c.text.clear();
                            c.text.push(b'(');
                            self.depth = 1;
                            self.pos = i + 1;
                            self.state = State::Cmd;
                            return Ok(None);
                        }
                        _ => {
                            let abs = self.base + i as u64;
                            let (l, c) = (self.line, self.column_at(abs));
                            let what = if b == b')' {
                                "unbalanced ')': no command is open here".to_string()
                            } else {
                                format!(
                                    "stray token '{}' at top level: expected '(' starting a command",
                                    String::from_utf8_lossy(&self.stray_token(i)).escape_debug()
                                )
                            };
                            return Err(self.error(l, c, what));
                        }
                    }
                    i += 1;
                }
                self.gap.extend_from_slice(&self.buf[self.pos..end]);
                self.pos = end;
                Ok(None)
            }
            State::TopComment => {
                match memchr::memchr(b'\n', &self.buf[i..end]) {
                    Some(k) => {
                        let nl = i + k;
                        self.gap.extend_from_slice(&self.buf[i..=nl]);
                        self.line += 1;
                        self.line_start = self.base + nl as u64 + 1;
                        self.pos = nl + 1;
                        self.state = State::Top;
                    }
                    None => {
                        self.gap.extend_from_slice(&self.buf[i..end]);
                        self.pos = end;
                    }
                }
                Ok(None)
            }
            _ => self.step_command(),
        }
    }

    /// Up to [`STRAY_SHOWN`] bytes of the token starting at `buf[i]`, for an
    /// error message; reads past the block if needed, so the message does
    /// not depend on where the reads ended (the scan stops here anyway).
    fn stray_token(&mut self, i: usize) -> Vec<u8> {
        let ends = |c: &u8| super::lexer::is_whitespace(*c) || *c == b'(' || *c == b')';
        let mut tok: Vec<u8> = Vec::with_capacity(STRAY_SHOWN);
        let mut more = self.buf[i..self.len].to_vec();
        loop {
            for &c in &more {
                if ends(&c) || tok.len() == STRAY_SHOWN {
                    return tok;
                }
                tok.push(c);
            }
            let mut chunk = [0u8; STRAY_SHOWN];
            let n = match self.input.read(&mut chunk[..STRAY_SHOWN - tok.len()]) {
                Ok(n) if n > 0 => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => 0,
                _ => return tok,
            };
            more = chunk[..n].to_vec();
        }
    }
}

/// The command `text` as [`Scanner`] yields it, placed at `offset`, `line`
/// and `column` of a file; `None` unless `text` is exactly one command
/// (from its `(` to the matching `)`).
pub fn command_of(text: &[u8], offset: u64, line: u64, column: u64) -> Option<Command> {
    // Room for the text only: not the 64 KiB a stream starts with.
    let mut sc = Scanner::with_first_block(text, text.len().clamp(64, FIRST_BLOCK));
    let mut cmd = sc.next_command().ok()??;
    if cmd.text.len() != text.len() || !sc.gap().is_empty() {
        return None;
    }
    (cmd.offset, cmd.line, cmd.column) = (offset, line, column);
    Some(cmd)
}

/// Convenience: every command of an in-memory script, or the first error.
pub fn commands(src: &[u8]) -> Result<Vec<Command>, SyntaxError> {
    let mut sc = Scanner::new(src);
    let mut out = Vec::new();
    while let Some(c) = sc.next_command()? {
        out.push(c);
    }
    Ok(out)
}

pub mod blocks;
mod inside;
pub mod prefetch;
mod swar;

#[cfg(test)]
mod tests;
