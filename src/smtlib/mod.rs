//! SMT-LIB text: the streaming top-level scanner, the in-memory lexer for
//! one command, and symbol normal forms.
pub mod bitlex;
pub mod lexer;
pub mod lint;
pub mod scanner;
pub mod symbol;
