//! Streaming scanner: block boundaries never change the result, the gaps and
//! command texts put back together are the input (up to the error point),
//! every error points at the byte it names, and the in-memory lexer agrees
//! with the scanner on every command (tokens, depth, argument span).

use coreval::smtlib::lexer::{Lexer, TokenKind};
use coreval::smtlib::scanner::{Command, Scanner};
use coreval::smtlib::SyntaxError;
use std::io::{self, Read};

/// A reader that hands out the input in pieces of the given sizes (cycled).
struct Chunked<'a> {
    rest: &'a [u8],
    sizes: &'a [usize],
    k: usize,
}

impl Read for Chunked<'_> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let want = self.sizes[self.k % self.sizes.len()];
        self.k += 1;
        let n = want.min(out.len()).min(self.rest.len());
        out[..n].copy_from_slice(&self.rest[..n]);
        self.rest = &self.rest[n..];
        Ok(n)
    }
}

/// Everything a scan yields, comparable across readers.
#[derive(Debug, PartialEq)]
pub struct Scan {
    /// (gap before, command) in order.
    pub commands: Vec<(Vec<u8>, Cmd)>,
    /// The text after the last command, or the error.
    pub end: Result<Vec<u8>, SyntaxError>,
}

/// The fields of [`Command`] (which has no `PartialEq`).
#[derive(Debug, PartialEq)]
pub struct Cmd {
    pub text: Vec<u8>,
    pub offset: u64,
    pub line: u64,
    pub column: u64,
    pub max_depth: u64,
    pub has_comment: bool,
    pub head: String,
    pub args: (usize, usize),
}

impl From<Command> for Cmd {
    fn from(c: Command) -> Self {
        Cmd {
            head: c.head().to_string(),
            args: c.args_span(),
            text: c.text,
            offset: c.offset,
            line: c.line,
            column: c.column,
            max_depth: c.max_depth,
            has_comment: c.has_comment,
        }
    }
}

pub fn scan(input: impl Read) -> Scan {
    let mut sc = Scanner::new(input);
    let mut commands = Vec::new();
    loop {
        match sc.next_command() {
            Ok(Some(c)) => commands.push((sc.gap().to_vec(), Cmd::from(c))),
            Ok(None) => {
                let end = Ok(sc.gap().to_vec());
                assert!(sc.next_command().unwrap().is_none(), "scanner restarted");
                return Scan { commands, end };
            }
            Err(e) => {
                assert!(
                    matches!(sc.next_command(), Ok(None)),
                    "scanner did not stay finished after an error"
                );
                return Scan {
                    commands,
                    end: Err(e),
                };
            }
        }
    }
}

/// Byte offset of a 1-based (line, column), if the line exists.
pub fn offset_of(data: &[u8], line: u64, column: u64) -> Option<usize> {
    let mut start = 0usize;
    for _ in 1..line {
        start += data[start..].iter().position(|&b| b == b'\n')? + 1;
    }
    Some(start + column.checked_sub(1)? as usize)
}

/// True for the bytes the scanner accepts between commands.
fn is_gap_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c)
}

/// A gap is white space and `;` comments, each comment ended by `\n`
/// (except a last one at the end of the input).
fn check_gap(gap: &[u8], at_end: bool) {
    let mut i = 0;
    while i < gap.len() {
        if gap[i] == b';' {
            match gap[i..].iter().position(|&b| b == b'\n') {
                Some(k) => i += k + 1,
                None => {
                    assert!(at_end, "comment without newline inside a gap: {gap:?}");
                    return;
                }
            }
        } else {
            assert!(is_gap_space(gap[i]), "byte {:#x} in a gap", gap[i]);
            i += 1;
        }
    }
    // The lexer must see nothing here either.
    assert!(
        Lexer::new(gap).next().is_none(),
        "the lexer finds a token in the gap {gap:?}"
    );
}

/// The lexer on one command's text: no error, balanced, the same depth, and
/// the argument span runs from the first token after the head to the end of
/// the last one before the closing parenthesis.
pub fn check_command_tokens(c: &Cmd) {
    let t = &c.text;
    let mut depth = 0u64;
    let mut max = 0u64;
    let mut toks = Vec::new();
    for tok in Lexer::new(t) {
        let tok = tok.unwrap_or_else(|e| panic!("lexer error {e} in a scanned command {t:?}"));
        assert_eq!(
            depth == 0,
            toks.is_empty(),
            "tokens after the command closed"
        );
        match tok.kind {
            TokenKind::Open => {
                depth += 1;
                max = max.max(depth);
            }
            TokenKind::Close => depth -= 1,
            _ => {}
        }
        toks.push(tok);
    }
    assert_eq!(depth, 0, "lexer: unbalanced command {t:?}");
    assert_eq!(max, c.max_depth, "max_depth differs from the lexer's");
    let last = toks.last().expect("a command has tokens");
    assert_eq!(last.end, t.len(), "command text ends after its ')'");
    // Head: the second token when it is a simple symbol.
    let head_tok = toks.get(1).filter(|k| k.kind == TokenKind::Symbol);
    let expect_head = head_tok
        .and_then(|k| std::str::from_utf8(k.bytes(t)).ok())
        .unwrap_or("");
    assert_eq!(c.head, expect_head);
    let first_arg = if head_tok.is_some() { 2 } else { 1 };
    let args = &toks[first_arg.min(toks.len() - 1)..toks.len() - 1];
    let (s, e) = c.args;
    match (args.first(), args.last()) {
        (Some(f), Some(l)) => assert_eq!((s, e), (f.start, l.end), "args_span of {t:?}"),
        _ => assert_eq!(s, e, "args_span of a command without arguments {t:?}"),
    }
}

/// The invariants of one input.
pub fn check(data: &[u8]) {
    let whole = scan(data);
    let trickle = scan(Chunked {
        rest: data,
        sizes: &[1],
        k: 0,
    });
    assert_eq!(whole, trickle, "one byte per read changed the result");
    let sizes = [3, 1, 7, 2, 64, 5];
    let chunked = scan(Chunked {
        rest: data,
        sizes: &sizes,
        k: data.len() % 6,
    });
    assert_eq!(whole, chunked, "uneven reads changed the result");

    // Gaps and command texts put back together.
    let mut pos = 0usize;
    let (mut line, mut line_start) = (1u64, 0usize);
    for (gap, c) in &whole.commands {
        assert_eq!(&data[pos..pos + gap.len()], &gap[..], "gap bytes");
        check_gap(gap, false);
        let before = &data[line_start..pos + gap.len()];
        if let Some(k) = before.iter().rposition(|&b| b == b'\n') {
            line += before.iter().filter(|&&b| b == b'\n').count() as u64;
            line_start += k + 1;
        }
        pos += gap.len();
        assert_eq!(c.offset, pos as u64, "command offset");
        assert_eq!(
            (c.line, c.column),
            (line, (pos - line_start + 1) as u64),
            "command position"
        );
        assert_eq!(&data[pos..pos + c.text.len()], &c.text[..], "command bytes");
        assert!(c.text.starts_with(b"(") && c.text.ends_with(b")"));
        check_command_tokens(c);
        let nl = c.text.iter().filter(|&&b| b == b'\n').count() as u64;
        if nl > 0 {
            line += nl;
            line_start = pos + c.text.iter().rposition(|&b| b == b'\n').unwrap() + 1;
        }
        pos += c.text.len();
    }
    match &whole.end {
        Ok(tail) => {
            assert_eq!(&data[pos..], &tail[..], "the final gap is the rest");
            check_gap(tail, true);
        }
        Err(e) => check_error(data, pos, e),
    }
}

/// An error points at a byte after the last command, and that byte is the
/// one the message talks about.
fn check_error(data: &[u8], pos: usize, e: &SyntaxError) {
    let at = offset_of(data, e.line, e.column)
        .unwrap_or_else(|| panic!("error position {}:{} is not in the input", e.line, e.column));
    assert!(
        at >= pos && at < data.len(),
        "error at byte {at}, last command ended at {pos}: {e}"
    );
    let b = data[at];
    let m = &e.message;
    if m.starts_with("unterminated string") {
        assert_eq!(b, b'"', "{e}");
    } else if m.starts_with("unterminated quoted symbol") {
        assert_eq!(b, b'|', "{e}");
    } else if m.starts_with("unbalanced parentheses") {
        assert_eq!(b, b'(', "{e}");
        check_gap(&data[pos..at], false);
    } else if m.starts_with("unbalanced ')'") {
        assert_eq!(b, b')', "{e}");
        check_gap(&data[pos..at], false);
    } else if m.starts_with("stray token") {
        assert!(!is_gap_space(b) && !b"();".contains(&b), "{e}");
        check_gap(&data[pos..at], false);
    } else {
        panic!("unexpected scanner message: {e}");
    }
}
