//! In-memory SMT-LIB tokens of one command (or of a solver's answer).
//!
//! The streaming [`scanner`](super::scanner) cuts a script into top-level
//! commands without looking inside them; this lexer walks the bytes of one
//! command when a stage needs its tokens (the head symbol, `:named`
//! attributes, the names in a core). It is iterative, so nesting depth costs
//! nothing, and it never allocates: tokens are spans into the input.

use super::token::{is_delimiter, CLASS, WHITE};
pub use super::token::{is_whitespace, Token, TokenKind};
use crate::smtlib::OffsetError;

/// Iterator over the tokens of `src`; comments and white space are skipped.
#[derive(Clone)]
pub struct Lexer<'a> {
    src: &'a [u8],
    pos: usize,
    failed: bool,
}

impl<'a> Lexer<'a> {
    pub fn new(src: &'a [u8]) -> Self {
        Lexer {
            src,
            pos: 0,
            failed: false,
        }
    }

    /// Byte offset where the next token search starts.
    pub fn position(&self) -> usize {
        self.pos
    }

    fn fail(
        &mut self,
        offset: usize,
        message: impl Into<String>,
    ) -> Option<Result<Token, OffsetError>> {
        self.failed = true;
        Some(Err(OffsetError {
            offset,
            message: message.into(),
        }))
    }
}

impl Iterator for Lexer<'_> {
    type Item = Result<Token, OffsetError>;

    /// Inlined: the scrambler calls this for every token of every command;
    /// the rare tokens (strings, quoted symbols, comments) are out of line.
    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        let src = self.src;
        let mut start = self.pos;
        let b = loop {
            // Tokens are mostly separated by one space or none: take that
            // one without a branch, which would be mispredicted half the time.
            if let Some(&c) = src.get(start) {
                start += (CLASS[c as usize] & WHITE) as usize;
            }
            while start < src.len() && is_whitespace(src[start]) {
                start += 1;
            }
            match *src.get(start)? {
                b';' => start = comment_end(src, start),
                b => break b,
            }
        };
        let kind = match b {
            b'(' => {
                self.pos = start + 1;
                TokenKind::Open
            }
            b')' => {
                self.pos = start + 1;
                TokenKind::Close
            }
            b'"' | b'|' => {
                self.pos = start;
                return self.rare();
            }
            _ => {
                self.pos = atom_end(src, start + 1);
                match b {
                    b':' => TokenKind::Keyword,
                    b'#' | b'0'..=b'9' => TokenKind::Literal,
                    _ => TokenKind::Symbol,
                }
            }
        };
        Some(Ok(Token {
            kind,
            start,
            end: self.pos,
        }))
    }
}

impl Lexer<'_> {
    /// A string literal or a quoted symbol at `self.pos`.
    #[inline(never)]
    fn rare(&mut self) -> Option<Result<Token, OffsetError>> {
        let src = self.src;
        let start = self.pos;
        let kind = match src[start] {
            b'"' => {
                let mut i = start + 1;
                loop {
                    match memchr::memchr(b'"', &src[i..]) {
                        None => return self.fail(start, "unterminated string literal"),
                        Some(k) => {
                            i += k + 1;
                            if src.get(i) == Some(&b'"') {
                                i += 1; // `""` escape
                            } else {
                                break;
                            }
                        }
                    }
                }
                self.pos = i;
                TokenKind::String
            }
            _ => match memchr::memchr(b'|', &src[start + 1..]) {
                None => return self.fail(start, "unterminated quoted symbol"),
                Some(k) => {
                    self.pos = start + k + 2;
                    TokenKind::QuotedSymbol
                }
            },
        };
        Some(Ok(Token {
            kind,
            start,
            end: self.pos,
        }))
    }
}

/// Where the comment at `src[start]` ends: at its line feed (as in the
/// scanner, a lone carriage return does not end it) or at the end.
#[inline(never)]
fn comment_end(src: &[u8], start: usize) -> usize {
    memchr::memchr(b'\n', &src[start..]).map_or(src.len(), |k| start + k)
}

/// The end of the symbol, keyword or literal whose bytes continue at
/// `src[i]`: the first delimiter at or after `i`, or the end. SSE2 (always
/// present on x86_64) takes 16 bytes at a time, so a short token costs no
/// loop; a byte loop elsewhere and near the end of `src`.
#[inline(always)]
fn atom_end(src: &[u8], mut i: usize) -> usize {
    #[cfg(target_arch = "x86_64")]
    while i + 16 <= src.len() {
        // The bitmap lexer's classifier: any of its three classes delimits.
        let (white, paren, special) = super::bitlex::classify(src[i..i + 16].try_into().unwrap());
        let mask = white | paren | special;
        if mask != 0 {
            return i + mask.trailing_zeros() as usize;
        }
        i += 16;
    }
    while i < src.len() && !is_delimiter(src[i]) {
        i += 1;
    }
    i
}

/// The head symbol of a command's text `( head …)`, or `None` when the
/// command does not start with a symbol.
pub fn command_head(text: &[u8]) -> Option<&[u8]> {
    command_head_span(text).map(|(s, e)| &text[s..e])
}

/// The span of [`command_head`] in `text`. Called for every command, so
/// the usual `(head` is read directly; the lexer handles the rest (white
/// space or a comment before the head, a non-symbol).
pub fn command_head_span(text: &[u8]) -> Option<(usize, usize)> {
    if let (Some(b'('), Some(&c)) = (text.first(), text.get(1)) {
        if !is_delimiter(c) {
            let end = text[1..]
                .iter()
                .position(|&b| is_delimiter(b))
                .map_or(text.len(), |k| k + 1);
            let symbol = !(c == b':' || c == b'#' || c.is_ascii_digit());
            return symbol.then_some((1, end));
        }
    }
    let mut lx = Lexer::new(text);
    match lx.next()? {
        Ok(t) if t.kind == TokenKind::Open => {}
        _ => return None,
    }
    match lx.next()? {
        Ok(t) if t.kind == TokenKind::Symbol => Some((t.start, t.end)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(src: &str) -> Vec<(TokenKind, String)> {
        Lexer::new(src.as_bytes())
            .map(|t| {
                let t = t.unwrap();
                (
                    t.kind,
                    String::from_utf8_lossy(t.bytes(src.as_bytes())).into_owned(),
                )
            })
            .collect()
    }

    #[test]
    fn tokens_of_an_assert() {
        use TokenKind::*;
        let toks = kinds("(assert (! (> x 1.5) :named |a b|)) ; done\n\"s\"\"t\" #b01");
        assert_eq!(
            toks,
            vec![
                (Open, "(".into()),
                (Symbol, "assert".into()),
                (Open, "(".into()),
                (Symbol, "!".into()),
                (Open, "(".into()),
                (Symbol, ">".into()),
                (Symbol, "x".into()),
                (Literal, "1.5".into()),
                (Close, ")".into()),
                (Keyword, ":named".into()),
                (QuotedSymbol, "|a b|".into()),
                (Close, ")".into()),
                (Close, ")".into()),
                (String, "\"s\"\"t\"".into()),
                (Literal, "#b01".into()),
            ]
        );
    }

    #[test]
    fn quoted_symbols_hold_anything_but_bars() {
        let toks = kinds("|multi\nline (x) ; no comment|");
        assert_eq!(toks.len(), 1);
        assert_eq!(toks[0].0, TokenKind::QuotedSymbol);
    }

    #[test]
    fn unterminated_tokens_are_errors() {
        let e = Lexer::new(b"(a \"open").find_map(|t| t.err()).unwrap();
        assert_eq!(e.offset, 3);
        assert!(e.message.contains("string"));
        let e = Lexer::new(b"(a |open").find_map(|t| t.err()).unwrap();
        assert!(e.message.contains("quoted symbol"));
    }

    #[test]
    fn atom_ends_agree_with_the_byte_classes() {
        // Every byte value at every place of a 40-byte window.
        for b in 0..=255u8 {
            for at in 0..40 {
                let mut src = vec![b'a'; 40];
                src[at] = b;
                let want = if is_delimiter(b) { at } else { 40 };
                assert_eq!(atom_end(&src, 0), want, "byte {b} at {at}");
                assert_eq!(
                    atom_end(&src, at.min(39)),
                    if is_delimiter(b) { at } else { 40 }
                );
            }
        }
    }

    #[test]
    fn comments_and_white_space_between_tokens() {
        let toks = kinds(" ; c1\n;c2\n\x0b( a;c3\r b\n)\t;end");
        let text: Vec<String> = toks.into_iter().map(|(_, t)| t).collect();
        assert_eq!(text, ["(", "a", ")"]);
    }

    #[test]
    fn head_of_commands() {
        assert_eq!(command_head(b"( ; c\n assert x)"), Some(&b"assert"[..]));
        assert_eq!(command_head(b"((x))"), None);
        assert_eq!(command_head(b"(assert)"), Some(&b"assert"[..]));
        assert_eq!(command_head(b"(check-sat;c\n)"), Some(&b"check-sat"[..]));
        assert_eq!(command_head(b"(:x y)"), None);
        assert_eq!(command_head(b"(12 y)"), None);
        assert_eq!(command_head(b"(|assert| y)"), None);
        assert_eq!(command_head(b"(\tpush 1)"), Some(&b"push"[..]));
    }
}
