//! In-memory lexer on arbitrary bytes: tokens are ordered, in bounds and of
//! the kind their bytes say; only white space and comments lie between them;
//! an error points at the opening `"` or `|` and ends the iteration; the
//! bitmap lexer agrees with it.

use coreval::smtlib::bitlex::{BitLexer, Bitmaps};
use coreval::smtlib::lexer::{command_head, Lexer, TokenKind};

fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c)
}

fn is_delimiter(b: u8) -> bool {
    is_space(b) || b"()\"|;".contains(&b)
}

/// Only white space and `;` comments in `data[from..to]`; a comment ends
/// at `\n`, so one without it must run to the end of the input.
fn assert_skippable(data: &[u8], from: usize, to: usize) {
    let between = &data[from..to];
    let mut i = 0;
    while i < between.len() {
        if between[i] == b';' {
            match between[i..].iter().position(|&b| b == b'\n') {
                Some(k) => i += k + 1,
                None => {
                    assert_eq!(to, data.len(), "a token inside a comment: {between:?}");
                    return;
                }
            }
        } else {
            assert!(
                is_space(between[i]),
                "the lexer skipped byte {:#x} in {between:?}",
                between[i]
            );
            i += 1;
        }
    }
}

pub fn check(data: &[u8]) {
    let mut lx = Lexer::new(data);
    let mut prev_end = 0usize;
    loop {
        let before = lx.position();
        assert!(before >= prev_end && before <= data.len());
        match lx.next() {
            None => {
                assert_skippable(data, prev_end, data.len());
                break;
            }
            Some(Err(e)) => {
                assert!(e.offset >= prev_end && e.offset < data.len(), "{e}");
                assert_skippable(data, prev_end, e.offset);
                let rest = &data[e.offset + 1..];
                match data[e.offset] {
                    b'"' => {
                        assert!(e.message.contains("string"), "{e}");
                        // Every `"` after the opening one pairs up as `""`.
                        let quotes = rest.iter().filter(|&&b| b == b'"').count();
                        assert!(quotes % 2 == 0, "a string could have ended: {e}");
                    }
                    b'|' => {
                        assert!(e.message.contains("quoted symbol"), "{e}");
                        assert!(!rest.contains(&b'|'), "a symbol could have ended: {e}");
                    }
                    b => panic!("error at byte {b:#x}: {e}"),
                }
                assert!(lx.next().is_none(), "tokens after an error");
                break;
            }
            Some(Ok(t)) => {
                assert!(t.start >= prev_end && t.start < t.end && t.end <= data.len());
                assert_skippable(data, prev_end, t.start);
                let b = t.bytes(data);
                match t.kind {
                    TokenKind::Open => assert_eq!(b, b"("),
                    TokenKind::Close => assert_eq!(b, b")"),
                    TokenKind::String => {
                        assert!(b.len() >= 2 && b[0] == b'"' && b[b.len() - 1] == b'"');
                        let inner = &b[1..b.len() - 1];
                        let mut i = 0;
                        while i < inner.len() {
                            if inner[i] == b'"' {
                                assert_eq!(inner.get(i + 1), Some(&b'"'), "lone quote in {b:?}");
                                i += 2;
                            } else {
                                i += 1;
                            }
                        }
                    }
                    TokenKind::QuotedSymbol => {
                        assert!(b.len() >= 2 && b[0] == b'|' && b[b.len() - 1] == b'|');
                        assert!(!b[1..b.len() - 1].contains(&b'|'));
                        assert_eq!(t.symbol(data), &b[1..b.len() - 1]);
                    }
                    TokenKind::Symbol | TokenKind::Keyword | TokenKind::Literal => {
                        assert!(!b.iter().any(|&c| is_delimiter(c)), "delimiter in {b:?}");
                        assert!(
                            t.end == data.len() || is_delimiter(data[t.end]),
                            "atom {b:?} stops before a non-delimiter"
                        );
                        let want = match b[0] {
                            b':' => TokenKind::Keyword,
                            b'#' | b'0'..=b'9' => TokenKind::Literal,
                            _ => TokenKind::Symbol,
                        };
                        assert_eq!(t.kind, want, "{b:?}");
                    }
                }
                assert_eq!(
                    t.is_symbol(),
                    matches!(t.kind, TokenKind::Symbol | TokenKind::QuotedSymbol)
                );
                prev_end = t.end;
            }
        }
    }
    // The head of a command is its second token when that is a symbol.
    let toks: Vec<_> = Lexer::new(data).take(2).collect();
    let want = match toks.as_slice() {
        [Ok(o), Ok(h)] if o.kind == TokenKind::Open && h.kind == TokenKind::Symbol => {
            Some(h.bytes(data))
        }
        _ => None,
    };
    assert_eq!(command_head(data), want);
    // The bitmap lexer gives the same tokens, or declines the input
    // exactly when it holds a string, quoted symbol or comment byte.
    let mut maps = Bitmaps::default();
    match BitLexer::new(data, &mut maps) {
        Some(bits) => assert_eq!(
            bits.collect::<Vec<_>>(),
            Lexer::new(data).collect::<Vec<_>>()
        ),
        None => assert!(data.iter().any(|b| b"\"|;".contains(b))),
    }
}
