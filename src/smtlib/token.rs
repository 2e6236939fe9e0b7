//! SMT-LIB tokens and byte classes: what the [`lexer`](super::lexer)
//! yields and the table it and the [`bitlex`](super::bitlex) word
//! classifier read bytes with.

/// What a token is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TokenKind {
    /// `(`
    Open,
    /// `)`
    Close,
    /// A simple symbol (`abc`, `+`, `assert`).
    Symbol,
    /// A quoted symbol, bars included (`|a b|`).
    QuotedSymbol,
    /// A keyword, colon included (`:named`).
    Keyword,
    /// A string literal, quotes included, `""` escapes left as written.
    String,
    /// A numeral, decimal, `#x…` or `#b…` literal.
    Literal,
}

/// One token: its kind and its byte span in the input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Token {
    pub kind: TokenKind,
    pub start: usize,
    pub end: usize,
}

impl Token {
    /// The token's bytes in `src`.
    pub fn bytes<'a>(&self, src: &'a [u8]) -> &'a [u8] {
        &src[self.start..self.end]
    }

    /// True for symbols and quoted symbols.
    pub fn is_symbol(&self) -> bool {
        matches!(self.kind, TokenKind::Symbol | TokenKind::QuotedSymbol)
    }

    /// The symbol's normal form (bars removed), for symbol tokens.
    pub fn symbol<'a>(&self, src: &'a [u8]) -> &'a [u8] {
        super::symbol::normalize_bytes(self.bytes(src))
    }
}

/// White space between tokens: SMT-LIB's tab, line feed, carriage return
/// and space, plus the vertical tab and form feed that the scanner also
/// accepts between commands (so that a gap never holds a token).
#[inline]
pub fn is_whitespace(b: u8) -> bool {
    CLASS[b as usize] & WHITE != 0
}

/// Bytes that end a symbol, keyword or literal.
#[inline]
pub(super) fn is_delimiter(b: u8) -> bool {
    CLASS[b as usize] & DELIM != 0
}

pub(super) const WHITE: u8 = 1;
const DELIM: u8 = 2;

/// Byte classes as one table lookup each (the lexer's inner loops run once
/// per byte of every command the scrambler rewrites).
pub(super) static CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let white = [b' ', b'\t', b'\n', b'\r', 0x0b, 0x0c];
    let mut i = 0;
    while i < white.len() {
        t[white[i] as usize] = WHITE | DELIM;
        i += 1;
    }
    let delim = [b'(', b')', b'"', b'|', b';'];
    let mut i = 0;
    while i < delim.len() {
        t[delim[i] as usize] = DELIM;
        i += 1;
    }
    t
};
