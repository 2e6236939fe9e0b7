//! A small S-expression reader for incremental scripts and their solvers'
//! answers: atoms (symbols, literals, strings, keywords) and lists, with
//! comments skipped. A quoted symbol `|abc|` whose contents are a simple
//! symbol reads as `abc`, so names compare the way SMT-LIB defines them.
//! [`Sexp`]'s `Display` is the canonical text: one space between items.
//!
//! Why not [`crate::model::sexp`], the model evaluator's reader: that one
//! stands on the SMT-LIB lexer, which refuses what is not SMT-LIB, and
//! keeps token kinds for evaluation. A solver's transcript is judged as it
//! is, whatever it printed (a warning line is an answer that does not
//! match its command, not an unreadable output), and names keep the text
//! they were written with (`|a b|`), so the messages quote them as printed.

use crate::process::deep::{deep, drop_flat};
use std::fmt;

/// An atom or a list. It nests as deep as the text it was read from:
/// cloning, comparing, printing and dropping it take no stack per level
/// ([`crate::process::deep`]).
pub enum Sexp {
    Atom(String),
    List(Vec<Sexp>),
}

impl Clone for Sexp {
    fn clone(&self) -> Sexp {
        match self {
            Sexp::Atom(a) => Sexp::Atom(a.clone()),
            Sexp::List(l) => deep(|| Sexp::List(l.clone())),
        }
    }
}

impl PartialEq for Sexp {
    fn eq(&self, other: &Sexp) -> bool {
        match (self, other) {
            (Sexp::Atom(a), Sexp::Atom(b)) => a == b,
            (Sexp::List(l), Sexp::List(m)) => deep(|| l == m),
            _ => false,
        }
    }
}

impl Eq for Sexp {}

impl fmt::Debug for Sexp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Sexp::Atom(a) => f.debug_tuple("Atom").field(a).finish(),
            Sexp::List(l) => deep(|| f.debug_tuple("List").field(l).finish()),
        }
    }
}

impl Drop for Sexp {
    fn drop(&mut self) {
        if let Sexp::List(l) = self {
            drop_flat(l, |x| match x {
                Sexp::List(inner) => Some(inner),
                Sexp::Atom(_) => None,
            });
        }
    }
}

impl Sexp {
    pub fn atom(&self) -> Option<&str> {
        match self {
            Sexp::Atom(a) => Some(a),
            Sexp::List(_) => None,
        }
    }
    pub fn list(&self) -> Option<&[Sexp]> {
        match self {
            Sexp::List(l) => Some(l),
            Sexp::Atom(_) => None,
        }
    }
    /// `(error …)`.
    pub fn is_error(&self) -> bool {
        self.list()
            .and_then(|l| l.first())
            .and_then(Sexp::atom)
            .is_some_and(|h| h == "error")
    }
}

impl fmt::Display for Sexp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        deep(|| self.write(f))
    }
}

impl Sexp {
    fn write(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Sexp::Atom(a) => f.write_str(a),
            Sexp::List(l) => {
                f.write_str("(")?;
                for (i, s) in l.iter().enumerate() {
                    if i > 0 {
                        f.write_str(" ")?;
                    }
                    deep(|| s.write(f))?;
                }
                f.write_str(")")
            }
        }
    }
}

/// Every top-level expression of `text`, or where it stops making sense.
pub fn parse_all(text: &str) -> Result<Vec<Sexp>, String> {
    let b = text.as_bytes();
    let mut stack: Vec<Vec<Sexp>> = vec![Vec::new()];
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        match c {
            b';' => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'(' => {
                stack.push(Vec::new());
                i += 1;
            }
            b')' => {
                let l = stack.pop().filter(|_| !stack.is_empty());
                let Some(l) = l else {
                    return Err(format!("unbalanced ')' at byte {i}"));
                };
                stack.last_mut().expect("outer level").push(Sexp::List(l));
                i += 1;
            }
            c if c.is_ascii_whitespace() => i += 1,
            b'"' | b'|' => {
                let start = i;
                i += 1;
                loop {
                    match b.get(i) {
                        None => return Err(format!("unterminated literal at byte {start}")),
                        Some(&x) if x == c && c == b'"' && b.get(i + 1) == Some(&b'"') => i += 2,
                        Some(&x) if x == c => break,
                        Some(_) => i += 1,
                    }
                }
                i += 1;
                let raw = &text[start..i];
                let inner = &raw[1..raw.len() - 1];
                let atom = if c == b'|' && crate::smtlib::symbol::is_simple(inner) {
                    inner
                } else {
                    raw
                };
                stack
                    .last_mut()
                    .expect("a level")
                    .push(Sexp::Atom(atom.into()));
            }
            _ => {
                let start = i;
                while i < b.len()
                    && !b[i].is_ascii_whitespace()
                    && !matches!(b[i], b'(' | b')' | b'"' | b'|' | b';')
                {
                    i += 1;
                }
                stack
                    .last_mut()
                    .expect("a level")
                    .push(Sexp::Atom(text[start..i].into()));
            }
        }
    }
    if stack.len() != 1 {
        return Err("unbalanced '(' at the end".into());
    }
    Ok(stack.pop().unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_lists_literals_and_quoted_symbols() {
        let v = parse_all("(a |b| |c d| \"x \"\" y\") ; note\n(\n b\n)").unwrap();
        assert_eq!(v.len(), 2);
        assert_eq!(v[0].to_string(), "(a b |c d| \"x \"\" y\")");
        assert_eq!(v[1].to_string(), "(b)");
        assert!(parse_all("(a").is_err() && parse_all("a)").is_err());
        assert!(parse_all("(error \"x\")").unwrap()[0].is_error());
    }

    #[test]
    fn a_script_nested_two_hundred_thousand_deep_is_read_printed_and_dropped() {
        use crate::process::deep::{nested_not, on_small_stack};
        let n = 200_000;
        let text = format!(
            "(set-logic QF_UF)(declare-const p Bool)(assert {})(check-sat)",
            nested_not(n)
        );
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("deep.smt2");
        std::fs::write(&path, &text).unwrap();
        // What `selfcheck` does with every benchmark (not incremental).
        let cmds = on_small_stack(move || super::super::read_commands(&path).map(|c| c.len()));
        assert_eq!(cmds, Some(4));
        on_small_stack(move || {
            let v = parse_all(&text).unwrap();
            let copy = v.clone();
            assert!(copy == v);
            assert_eq!(v[2].to_string(), format!("(assert {})", nested_not(n)));
            assert!(format!("{:?}", v[2]).starts_with("List([Atom(\"assert\")"));
        });
    }
}
