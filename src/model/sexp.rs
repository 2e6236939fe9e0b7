//! S-expressions of a script or of a solver's model, built from the
//! [`Lexer`](crate::smtlib::lexer::Lexer)'s tokens: what the model
//! evaluator walks. Symbols are kept in normal form (bars removed).
//!
//! A term nests as deep as its input says: whatever walks it recursively
//! does so through [`deep`](crate::process::deep::deep), and a tree is dropped
//! without recursion.

use crate::process::deep::{deep, drop_flat};
use crate::smtlib::lexer::{Lexer, TokenKind};

/// One s-expression.
pub enum Sexp {
    /// A symbol (normal form), keyword, numeral, decimal, `#x…`/`#b…` or
    /// string literal (quotes kept).
    Atom(TokenKind, String),
    List(Vec<Sexp>),
}

impl Sexp {
    /// The symbol, when this is one.
    pub fn sym(&self) -> Option<&str> {
        match self {
            Sexp::Atom(TokenKind::Symbol | TokenKind::QuotedSymbol, s) => Some(s),
            _ => None,
        }
    }

    /// The list's items, when this is a list.
    pub fn list(&self) -> Option<&[Sexp]> {
        match self {
            Sexp::List(v) => Some(v),
            _ => None,
        }
    }

    /// The head symbol of a list (`assert` of `(assert …)`).
    pub fn head(&self) -> Option<&str> {
        self.list()?.first()?.sym()
    }
}

impl Clone for Sexp {
    fn clone(&self) -> Sexp {
        match self {
            Sexp::Atom(k, s) => Sexp::Atom(*k, s.clone()),
            Sexp::List(v) => deep(|| Sexp::List(v.clone())),
        }
    }
}

impl PartialEq for Sexp {
    fn eq(&self, other: &Sexp) -> bool {
        match (self, other) {
            (Sexp::Atom(k, s), Sexp::Atom(l, t)) => k == l && s == t,
            (Sexp::List(v), Sexp::List(w)) => deep(|| v == w),
            _ => false,
        }
    }
}

impl Eq for Sexp {}

impl std::fmt::Debug for Sexp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Sexp::Atom(k, s) => f.debug_tuple("Atom").field(k).field(s).finish(),
            Sexp::List(v) => deep(|| f.debug_tuple("List").field(v).finish()),
        }
    }
}

impl Drop for Sexp {
    /// Without recursion: the lists below are taken apart onto a heap
    /// stack, so that each `Sexp` dropped holds no list.
    fn drop(&mut self) {
        if let Sexp::List(v) = self {
            drop_flat(v, |x| match x {
                Sexp::List(inner) => Some(inner),
                Sexp::Atom(..) => None,
            });
        }
    }
}

impl std::fmt::Display for Sexp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        deep(|| self.write(f))
    }
}

impl Sexp {
    fn write(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Sexp::Atom(TokenKind::QuotedSymbol, s) if !crate::smtlib::symbol::is_simple(s) => {
                write!(f, "|{s}|")
            }
            Sexp::Atom(_, s) => f.write_str(s),
            Sexp::List(v) => {
                f.write_str("(")?;
                for (i, x) in v.iter().enumerate() {
                    if i > 0 {
                        f.write_str(" ")?;
                    }
                    deep(|| x.write(f))?;
                }
                f.write_str(")")
            }
        }
    }
}

/// Every top-level s-expression of `src`, or why it cannot be read.
pub fn parse_all(src: &[u8]) -> Result<Vec<Sexp>, String> {
    let mut stack: Vec<Vec<Sexp>> = vec![Vec::new()];
    for t in Lexer::new(src) {
        let t = t.map_err(|e| format!("offset {}: {}", e.offset, e.message))?;
        match t.kind {
            TokenKind::Open => stack.push(Vec::new()),
            TokenKind::Close => {
                if stack.len() < 2 {
                    return Err(format!("offset {}: unbalanced `)`", t.start));
                }
                let done = stack.pop().unwrap_or_default();
                if let Some(top) = stack.last_mut() {
                    top.push(Sexp::List(done));
                }
            }
            kind => {
                let text = if t.is_symbol() {
                    t.symbol(src)
                } else {
                    t.bytes(src)
                };
                let text = String::from_utf8_lossy(text).into_owned();
                if let Some(top) = stack.last_mut() {
                    top.push(Sexp::Atom(kind, text));
                }
            }
        }
    }
    if stack.len() != 1 {
        return Err("unbalanced `(`".into());
    }
    Ok(stack.pop().unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_symbols_and_literals() {
        let v = parse_all(b"(assert (! (> |x| 3) :named a1)) ; c\n(check-sat)").unwrap();
        assert_eq!(v.len(), 2);
        assert_eq!(v[0].head(), Some("assert"));
        assert_eq!(v[0].to_string(), "(assert (! (> x 3) :named a1))");
        assert!(parse_all(b"(a (b)").is_err());
        assert!(parse_all(b"a)").is_err());
    }
}
