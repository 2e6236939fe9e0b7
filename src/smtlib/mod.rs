//! SMT-LIB text: the streaming top-level scanner and symbol normal forms.
pub mod symbol;
