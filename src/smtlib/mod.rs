//! SMT-LIB text: the streaming top-level scanner, the in-memory lexers for
//! one command (byte by byte, and by bitmaps for the commonest commands),
//! and symbol normal forms.
pub mod bitlex;
pub mod lexer;
pub mod lint;
pub mod scanner;
pub mod symbol;
