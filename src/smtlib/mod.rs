//! SMT-LIB text: the streaming top-level scanner, the in-memory lexers for
//! one command (byte by byte, and by bitmaps for the commonest commands),
//! and symbol normal forms; and the two error types every reader of
//! SMT-LIB text reports with.
pub mod bitlex;
pub mod lexer;
pub mod lint;
pub mod scanner;
pub mod symbol;
pub mod token;

use std::fmt;

/// An error at a 1-based line and byte column of a script: what the
/// scanner, the strict parser and the naming stage report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SyntaxError {
    /// 1-based line.
    pub line: u64,
    /// 1-based byte column.
    pub column: u64,
    /// What was found and what was expected.
    pub message: String,
}

impl SyntaxError {
    /// `path:line:column: message`, the form editors jump to.
    pub fn in_file(&self, path: &std::path::Path) -> String {
        format!(
            "{}:{}:{}: {}",
            path.display(),
            self.line,
            self.column,
            self.message
        )
    }
}

impl fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "line {}, column {}: {}",
            self.line, self.column, self.message
        )
    }
}

impl std::error::Error for SyntaxError {}

/// An error at a byte offset of one command's text (the lexers, the term
/// trees); the caller knows where the command starts and turns it into a
/// [`SyntaxError`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OffsetError {
    pub offset: usize,
    pub message: String,
}

impl fmt::Display for OffsetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "byte {}: {}", self.offset, self.message)
    }
}

impl std::error::Error for OffsetError {}

/// Line and column of byte `offset` of a text that starts at (`line`,
/// `column`): how a command's byte offset becomes a [`SyntaxError`]'s place.
pub fn position_in_text(text: &[u8], offset: usize, line: u64, column: u64) -> (u64, u64) {
    let before = &text[..offset.min(text.len())];
    match memchr::memrchr(b'\n', before) {
        None => (line, column + offset as u64),
        Some(nl) => (
            line + memchr::memchr_iter(b'\n', before).count() as u64,
            (offset - nl) as u64,
        ),
    }
}
