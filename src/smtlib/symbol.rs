//! SMT-LIB symbols: one normal form and the printing rule.
//!
//! `|abc|` and `abc` denote the same symbol (SMT-LIB 2.6 §3.1), so every
//! comparison of names in coreval goes through [`normalize`], and every
//! symbol coreval prints goes through [`quote`], which adds bars exactly when
//! the standard requires them (reserved words, a leading digit, characters
//! outside the simple-symbol alphabet, the empty symbol).

use std::borrow::Cow;

/// Reserved words and command names of SMT-LIB 2.6: they are not simple
/// symbols, so a symbol spelled like one must be printed quoted.
pub const RESERVED: &[&str] = &[
    "!",
    "_",
    "as",
    "BINARY",
    "DECIMAL",
    "exists",
    "forall",
    "HEXADECIMAL",
    "let",
    "lambda",
    "match",
    "NUMERAL",
    "par",
    "STRING",
    "assert",
    "check-sat",
    "check-sat-assuming",
    "declare-const",
    "declare-datatype",
    "declare-datatypes",
    "declare-fun",
    "declare-sort",
    "define-const",
    "define-fun",
    "define-fun-rec",
    "define-funs-rec",
    "define-sort",
    "echo",
    "exit",
    "get-assertions",
    "get-assignment",
    "get-info",
    "get-model",
    "get-option",
    "get-proof",
    "get-unsat-assumptions",
    "get-unsat-core",
    "get-value",
    "pop",
    "push",
    "reset",
    "reset-assertions",
    "set-info",
    "set-logic",
    "set-option",
];

/// True for the characters allowed in a simple symbol besides letters and digits.
#[inline]
pub fn is_symbol_punct(b: u8) -> bool {
    matches!(
        b,
        b'~' | b'!'
            | b'@'
            | b'$'
            | b'%'
            | b'^'
            | b'&'
            | b'*'
            | b'_'
            | b'-'
            | b'+'
            | b'='
            | b'<'
            | b'>'
            | b'.'
            | b'?'
            | b'/'
    )
}

/// True for every byte that may occur in a simple symbol.
#[inline]
pub fn is_symbol_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || is_symbol_punct(b)
}

/// True when `s` may be written without bars: non-empty, only simple-symbol
/// characters, no leading digit, not a reserved word.
pub fn is_simple(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && !b[0].is_ascii_digit()
        && b.iter().all(|&c| is_symbol_byte(c))
        && !RESERVED.contains(&s)
}

/// The normal form of a symbol as written in a script or a solver's output:
/// the text between the bars of a quoted symbol, the symbol itself otherwise.
pub fn normalize(raw: &str) -> &str {
    let b = raw.as_bytes();
    if b.len() >= 2 && b[0] == b'|' && b[b.len() - 1] == b'|' {
        &raw[1..raw.len() - 1]
    } else {
        raw
    }
}

/// Byte version of [`normalize`], for the scanner's spans.
pub fn normalize_bytes(raw: &[u8]) -> &[u8] {
    if raw.len() >= 2 && raw[0] == b'|' && raw[raw.len() - 1] == b'|' {
        &raw[1..raw.len() - 1]
    } else {
        raw
    }
}

/// Whether a normal-form symbol can be printed at all: a quoted symbol may
/// not contain `|` or `\`.
pub fn is_printable(s: &str) -> bool {
    !s.bytes().any(|b| b == b'|' || b == b'\\')
}

/// Print a normal-form symbol the way SMT-LIB requires: bare when it is a
/// simple symbol, between bars otherwise (`|assert|`, `|123|`, `|a b|`, `||`).
pub fn quote(s: &str) -> Cow<'_, str> {
    if is_simple(s) {
        Cow::Borrowed(s)
    } else {
        Cow::Owned(format!("|{s}|"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoted_and_bare_compare_equal() {
        assert_eq!(normalize("|abc|"), normalize("abc"));
        assert_eq!(normalize("||"), "");
        assert_eq!(normalize("|"), "|");
        assert_eq!(normalize_bytes(b"|a b|"), b"a b");
    }

    #[test]
    fn quotes_exactly_when_required() {
        assert_eq!(quote("abc"), "abc");
        assert_eq!(quote("a.b-c?"), "a.b-c?");
        assert_eq!(quote("assert"), "|assert|");
        assert_eq!(quote("123"), "|123|");
        assert_eq!(quote("a1"), "a1");
        assert_eq!(quote("a b"), "|a b|");
        assert_eq!(quote(""), "||");
        assert_eq!(quote(":foo"), "|:foo|");
        assert_eq!(quote("#b01"), "|#b01|");
        assert_eq!(quote("é"), "|é|");
        assert_eq!(quote("!"), "|!|");
        assert!(!is_printable("a|b"));
        assert!(is_printable("multi\nline"));
    }
}
