//! Strict SMT-LIB 2.6 validation with smt2parser (`coreval lint`,
//! `coreval name --strict`).
//!
//! The scanner cuts the script into commands; each command's text is parsed
//! on its own, so an error is placed exactly (the command's position plus
//! the parser's offset inside it) and one bad command does not hide the
//! others. smt2parser has two known failure modes, both guarded here:
//! - it stops *silently* at some invalid tokens (`#z`, a non-UTF-8 string):
//!   the reader handed to it counts the bytes consumed, and a command not
//!   consumed to its last byte is an error at the first unread token;
//! - building its syntax tree recurses, so deep nesting overflows the stack
//!   (and memory grows with depth): the parser runs with the counting
//!   visitor `Smt2Counters`, which builds no tree (verified to depth 10⁶ in
//!   a 2 MB test thread), and commands nested deeper than [`MAX_DEPTH`]
//!   (measured by the scanner) are refused with a message saying so.

use crate::smtlib::SyntaxError;

use super::scanner::{Command, Scanner};
use anyhow::{Context, Result};
use smt2parser::{concrete::Error as ParseError, stats::Smt2Counters, CommandStream};
use std::cell::{Cell, RefCell};
use std::io::{BufRead, Read};
use std::path::Path;
use std::rc::Rc;

/// Deepest nesting the strict parser is asked to validate (its parse stack
/// takes ~150 bytes per level).
pub const MAX_DEPTH: u64 = 100_000;

/// What the parser's reader and [`StrictParser`] share.
#[derive(Default)]
struct Feed {
    /// The next command's text, taken by the reader when it runs dry.
    next: RefCell<Option<Vec<u8>>>,
    /// Bytes the parser consumed, in total.
    consumed: Cell<usize>,
    /// Drop what is left of the current command (after an error).
    discard: Cell<bool>,
}

/// The parser's input: one command after the other, each handed over by
/// [`StrictParser::check`]. Between commands it reports the end of input,
/// which the parser never reads past a command's closing parenthesis.
struct Feeder {
    feed: Rc<Feed>,
    cur: Vec<u8>,
    pos: usize,
}

impl Read for Feeder {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        let n = {
            let buf = self.fill_buf()?;
            let n = out.len().min(buf.len());
            out[..n].copy_from_slice(&buf[..n]);
            n
        };
        self.consume(n);
        Ok(n)
    }
}

impl BufRead for Feeder {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        if self.feed.discard.replace(false) {
            self.pos = self.cur.len();
        }
        if self.pos == self.cur.len() {
            if let Some(next) = self.feed.next.borrow_mut().take() {
                self.cur = next;
                self.pos = 0;
            }
        }
        Ok(&self.cur[self.pos..])
    }
    fn consume(&mut self, n: usize) {
        self.pos += n;
        self.feed.consumed.set(self.feed.consumed.get() + n);
    }
}

/// smt2parser, set up once and fed one command at a time: creating its
/// lexer builds a keyword automaton (~0.2 ms), which per command would make
/// strict validation 100× slower than the parse itself.
pub struct StrictParser {
    stream: CommandStream<Feeder, Smt2Counters>,
    feed: Rc<Feed>,
}

impl Default for StrictParser {
    fn default() -> Self {
        Self::new()
    }
}

impl StrictParser {
    pub fn new() -> Self {
        let feed = Rc::new(Feed::default());
        let reader = Feeder {
            feed: feed.clone(),
            cur: Vec::new(),
            pos: 0,
        };
        StrictParser {
            stream: CommandStream::new(reader, Smt2Counters::default(), None),
            feed,
        }
    }

    /// Validate one command.
    pub fn check(&mut self, cmd: &Command) -> Result<(), SyntaxError> {
        let text = &cmd.text;
        let at_offset = |offset: usize, message: String| {
            let (line, column) = cmd.position(offset);
            SyntaxError {
                line,
                column,
                message,
            }
        };
        if cmd.max_depth > MAX_DEPTH {
            return Err(at_offset(
                0,
                format!(
                    "nesting depth {} exceeds {MAX_DEPTH}, the deepest the strict parser is \
                     asked to validate: command not validated",
                    cmd.max_depth
                ),
            ));
        }
        *self.feed.next.borrow_mut() = Some(text.clone());
        let before = self.feed.consumed.get();
        let result = self.stream.next();
        let consumed = self.feed.consumed.get() - before;
        // Whatever the parser left of this command is not for the next one.
        self.feed.next.borrow_mut().take();
        self.feed.discard.set(true);
        let invalid_token = |pos: usize| {
            let start = token_start(text, pos);
            let end = (start + 1..text.len())
                .find(|&i| is_delimiter(text[i]))
                .unwrap_or(text.len());
            at_offset(
                start,
                format!(
                    "invalid token '{}'",
                    String::from_utf8_lossy(&text[start..end]).escape_debug()
                ),
            )
        };
        match result {
            Some(Ok(())) if consumed == text.len() => Ok(()),
            Some(Ok(())) => Err(at_offset(
                consumed,
                "the strict parser ended the command before its closing parenthesis".into(),
            )),
            None => Err(invalid_token(consumed)),
            Some(Err(e)) => {
                let message = match e {
                    ParseError::SyntaxError(_, m) | ParseError::ParsingError(_, m) => m,
                };
                if consumed < text.len() && message == "unexpected end of input" {
                    return Err(invalid_token(consumed));
                }
                // The parser fails on the token it just read: point at its
                // start (its own position is after the token, and counts
                // over everything it was fed).
                let last = consumed.saturating_sub(1);
                let start = if matches!(text.get(last), Some(b'(' | b')')) {
                    last
                } else {
                    token_start(text, last)
                };
                let SyntaxError { line, column, .. } = at_offset(start, String::new());
                Err(SyntaxError {
                    line,
                    column,
                    message: readable(&message),
                })
            }
        }
    }
}

/// Validate one command (a fresh parser: prefer [`StrictParser`] for
/// many).
pub fn check_command(cmd: &Command) -> Result<(), SyntaxError> {
    StrictParser::new().check(cmd)
}

/// smt2parser prints tokens with `Debug` (`unexpected token: Symbol("x")`,
/// `Numeral(BigUint { data: [1] })`): say it the SMT-LIB way.
fn readable(message: &str) -> String {
    let Some(tok) = message.strip_prefix("unexpected token: ") else {
        return format!("not SMT-LIB 2.6: {message}");
    };
    let kind = tok.split(['(', ' ']).next().unwrap_or(tok);
    let inner = tok
        .strip_prefix(kind)
        .and_then(|r| r.strip_prefix("(\""))
        .and_then(|r| r.strip_suffix("\")"));
    let what = match (kind, inner) {
        ("Symbol", Some(s)) => format!("symbol '{s}'"),
        ("Keyword", Some(s)) => format!("keyword ':{s}'"),
        ("String", _) => "a string literal".into(),
        ("Numeral" | "Decimal" | "Binary" | "Hexadecimal", _) => {
            format!("a {} literal", kind.to_lowercase())
        }
        ("LeftParen", _) => "'('".into(),
        ("RightParen", _) => "')'".into(),
        _ => format!("'{}'", reserved_word(kind)),
    };
    format!("not SMT-LIB 2.6: unexpected {what}")
}

/// `CheckSat` → `check-sat`, `Exclam` → `!`: smt2parser's names of
/// reserved words.
fn reserved_word(kind: &str) -> String {
    match kind {
        "Exclam" => "!".into(),
        "Underscore" => "_".into(),
        _ => {
            let mut out = String::new();
            for (i, c) in kind.chars().enumerate() {
                if c.is_ascii_uppercase() && i > 0 {
                    out.push('-');
                }
                out.push(c.to_ascii_lowercase());
            }
            out
        }
    }
}

fn is_delimiter(b: u8) -> bool {
    b.is_ascii_whitespace() || matches!(b, b'(' | b')')
}

/// Start of the token that contains byte `pos` (or ends right before it).
fn token_start(text: &[u8], pos: usize) -> usize {
    let mut s = pos.min(text.len().saturating_sub(1));
    while s > 0 && !is_delimiter(text[s - 1]) {
        s -= 1;
    }
    s
}

/// Every strict-parsing error of a script, at most `limit` of them; a scan
/// error ends the list.
pub fn lint_script<R: Read>(input: R, limit: usize) -> Vec<SyntaxError> {
    lint_commands(input, limit, &mut |_| Ok(()))
}

/// [`lint_script`], with `then` run on every command the strict parser
/// accepts (in order), its error listed with the parser's: how
/// `crate::scope` adds the symbols' scope.
pub fn lint_commands<R: Read>(
    input: R,
    limit: usize,
    then: &mut dyn FnMut(&Command) -> Result<(), SyntaxError>,
) -> Vec<SyntaxError> {
    let mut errors = Vec::new();
    let mut scanner = Scanner::new(input);
    let mut parser = StrictParser::new();
    while errors.len() < limit {
        match scanner.next_command() {
            Ok(Some(cmd)) => {
                if let Err(e) = parser.check(&cmd).and_then(|()| then(&cmd)) {
                    errors.push(e);
                }
            }
            Ok(None) => break,
            Err(e) => {
                errors.push(SyntaxError {
                    line: e.line,
                    column: e.column,
                    message: e.message,
                });
                break;
            }
        }
    }
    errors
}

/// [`lint_script`] on a file.
pub fn lint_file(path: &Path, limit: usize) -> Result<Vec<SyntaxError>> {
    let file = crate::store::regular::open(path)
        .with_context(|| format!("cannot open {}", path.display()))?;
    Ok(lint_script(file, limit))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::smtlib::scanner::commands;

    fn lint(src: &str) -> Vec<SyntaxError> {
        lint_script(src.as_bytes(), 100)
    }

    #[test]
    fn valid_script_passes() {
        let src = "(set-logic QF_LIA)\n(declare-fun x () Int)\n\
                   (assert (! (> x 0) :named |a b|)) ; c\n(check-sat)\n(get-unsat-core)\n(exit)";
        assert_eq!(lint(src), vec![]);
    }

    #[test]
    fn syntax_error_is_placed_in_the_file() {
        let e = lint("(set-logic QF_LIA)\n(declare-fun x () Int)\n(assert (> x 0) x)\n");
        assert_eq!(e.len(), 1);
        assert_eq!((e[0].line, e[0].column), (3, 17));
        assert_eq!(e[0].message, "not SMT-LIB 2.6: unexpected symbol 'x'");
    }

    #[test]
    fn silent_stop_at_invalid_token_is_caught() {
        let e = lint("(set-logic QF_BV)\n(assert (= #z01 x))");
        assert_eq!(e.len(), 1);
        assert_eq!((e[0].line, e[0].column), (2, 12));
        assert!(
            e[0].message.contains("invalid token '#z01'"),
            "{}",
            e[0].message
        );
        let e = lint("(exit)\n(assert (= x 007))");
        assert_eq!((e[0].line, e[0].column), (2, 14));
        assert!(e[0].message.contains("'007'"), "{}", e[0].message);
    }

    #[test]
    fn errors_on_later_lines_of_a_command() {
        let e = lint("(assert\n  (and p\n   q)\n   (x))");
        assert_eq!(e.len(), 1);
        assert_eq!(e[0].line, 4, "{e:?}");
    }

    #[test]
    fn every_command_is_checked() {
        let e = lint("(assert)\n(exit)\n(check-sat 1)\n(push 1)");
        assert_eq!(e.iter().map(|e| e.line).collect::<Vec<_>>(), vec![1, 3]);
    }

    #[test]
    fn deep_nesting_within_the_limit_does_not_overflow() {
        // Test threads have 2 MB stacks: a recursive parser would overflow.
        let depth = 50_000;
        let src = format!("(assert {}p{})", "(not ".repeat(depth), ")".repeat(depth));
        assert_eq!(lint(&src), vec![]);
    }

    #[test]
    fn deeper_than_the_limit_is_refused_with_a_message() {
        let depth = MAX_DEPTH as usize + 1;
        let src = format!(
            "(exit)\n(assert {}p{})",
            "(not ".repeat(depth),
            ")".repeat(depth)
        );
        let cmds = commands(src.as_bytes()).unwrap();
        let e = check_command(&cmds[1]).unwrap_err();
        assert_eq!((e.line, e.column), (2, 1));
        assert!(e.message.contains("not validated"), "{}", e.message);
    }

    #[test]
    fn positions_stay_right_after_earlier_commands_and_errors() {
        // One parser serves every command; its own counters run over all
        // of them, including the ones that failed half way.
        let src = "(exit) (exit 1)\n(assert (= #z1 x)) (assert\n (> x 0) x)\n(check-sat) (push a)";
        let e = lint(src);
        let at: Vec<(u64, u64)> = e.iter().map(|e| (e.line, e.column)).collect();
        assert_eq!(at.len(), 4, "{e:?}");
        assert_eq!(at, vec![(1, 14), (2, 12), (3, 10), (4, 19)]);
        assert_eq!(
            e[0].message,
            "not SMT-LIB 2.6: unexpected a numeral literal"
        );
        assert_eq!(e[2].message, "not SMT-LIB 2.6: unexpected symbol 'x'");
    }

    #[test]
    fn scan_errors_end_the_list() {
        let e = lint("(exit)\n(assert (and p q)\n");
        assert_eq!(e.len(), 1);
        assert!(e[0].message.contains("unbalanced"));
    }

    #[test]
    fn error_names_the_file() {
        let e = &lint("(exit 1)")[0];
        assert!(e.in_file(Path::new("x.smt2")).starts_with("x.smt2:1:"));
    }
}
