//! Which symbols a script uses without declaring them: the scope half of
//! strict validation (`coreval lint`, and every reproducer `coreval shrink`
//! prints). A symbol in a term must be bound (a `let`, a quantifier, a
//! `match` case, a function's parameter), declared or defined by an earlier
//! command (`declare-fun`, `declare-const`, `define-fun`, `define-fun-rec`,
//! `define-funs-rec`, `define-const`, a datatype's constructors, selectors
//! and `is-` testers), a `:named` term's name, or one of the theory symbols
//! of SMT-LIB 2.6's theories ([`THEORY_FUNCTIONS`]); a sort must be declared
//! (`declare-sort`, `define-sort`, a datatype), a sort parameter in scope, or
//! a theory sort. `push` and `pop` open and close scopes. Indexed
//! identifiers (`(_ extract 3 0)`) are theory symbols by construction.
//!
//! The syntax is the strict parser's concern ([`crate::smtlib::lint`]); a
//! command whose shape is not the one expected here is passed over, never
//! guessed. [`strict_script`] is both: the syntax of every command, then
//! its scope. Terms nest as deep as the input: the walk goes through
//! [`crate::process::deep::deep`].

use crate::model::sexp::{parse_all, Sexp};
use crate::process::deep::deep;
use crate::smtlib::lexer::{Lexer, TokenKind};
use crate::smtlib::lint::lint_commands;
use crate::smtlib::scanner::Command;
use crate::smtlib::SyntaxError;
use std::collections::HashSet;
use std::io::Read;
use std::path::Path;

mod theory;

/// Every strict error of a script, at most `limit`: a command the strict
/// parser refuses, or one that uses a symbol or sort out of scope (a
/// command with a syntax error is not looked at for its scope).
pub fn strict_script<R: Read>(input: R, limit: usize) -> Vec<SyntaxError> {
    let mut scope = Scope::new();
    lint_commands(input, limit, &mut |cmd| scope.command(cmd))
}

/// [`strict_script`] on a file.
pub fn strict_file(path: &Path, limit: usize) -> anyhow::Result<Vec<SyntaxError>> {
    use anyhow::Context;
    let file = crate::store::regular::open(path)
        .with_context(|| format!("cannot open {}", path.display()))?;
    Ok(strict_script(file, limit))
}

pub use theory::{THEORY_FUNCTIONS, THEORY_SORTS};

/// The symbols and sorts a script has declared so far, by scope.
#[derive(Default)]
pub struct Scope {
    /// Declared function symbols and sorts, innermost `push` last.
    frames: Vec<(HashSet<String>, HashSet<String>)>,
    theory_functions: HashSet<&'static str>,
    theory_sorts: HashSet<&'static str>,
    /// Every symbol counts as in scope: only what is declared is taken in
    /// ([`defines`]).
    lenient: bool,
}

/// The symbols and sorts that one command declares or defines (a
/// datatype's constructors, testers and selectors included).
pub fn defines(cmd: &Command) -> Vec<String> {
    let mut s = Scope {
        lenient: true,
        ..Scope::new()
    };
    // Lenient: nothing is out of scope.
    let _ = s.command(cmd);
    let (fs, ss) = s.frames.swap_remove(0);
    fs.into_iter().chain(ss).collect()
}

/// Every symbol a command's text names (its own declarations' too): what
/// it may use, over-approximated.
pub fn mentions(text: &[u8]) -> HashSet<String> {
    Lexer::new(text)
        .flatten()
        .filter(|t| t.is_symbol())
        .map(|t| String::from_utf8_lossy(t.symbol(text)).into_owned())
        .collect()
}

/// Bound variables and sort parameters of the term being walked.
#[derive(Default, Clone)]
struct Locals<'a> {
    vars: Vec<&'a str>,
    sorts: Vec<&'a str>,
}

impl Scope {
    pub fn new() -> Scope {
        Scope {
            frames: vec![Default::default()],
            theory_functions: THEORY_FUNCTIONS.iter().copied().collect(),
            theory_sorts: THEORY_SORTS.iter().copied().collect(),
            lenient: false,
        }
    }

    fn declare(&mut self, f: &str) {
        self.top().0.insert(f.to_string());
    }

    fn declare_sort(&mut self, s: &str) {
        self.top().1.insert(s.to_string());
    }

    fn top(&mut self) -> &mut (HashSet<String>, HashSet<String>) {
        if self.frames.is_empty() {
            self.frames.push(Default::default());
        }
        self.frames.last_mut().expect("a frame")
    }

    fn has_function(&self, f: &str, l: &Locals) -> bool {
        self.lenient
            || l.vars.contains(&f)
            || self.theory_functions.contains(f)
            || self.frames.iter().any(|(fs, _)| fs.contains(f))
    }

    fn has_sort(&self, s: &str, l: &Locals) -> bool {
        self.lenient
            || l.sorts.contains(&s)
            || self.theory_sorts.contains(s)
            || self.frames.iter().any(|(_, ss)| ss.contains(s))
    }

    /// Check one command and take in what it declares: the first symbol
    /// used out of scope, placed at the symbol's first occurrence in the
    /// command after the name a definition defines (a binder of the same
    /// name comes first: `(exists ((z Int)) …) z` points at the binder).
    pub fn command(&mut self, cmd: &Command) -> Result<(), SyntaxError> {
        let Ok(all) = parse_all(&cmd.text) else {
            return Ok(());
        };
        let Some(items) = all.first().and_then(Sexp::list) else {
            return Ok(());
        };
        match self.items(items) {
            Ok(()) => Ok(()),
            Err((what, name)) => {
                let offset = first_use(&cmd.text, &name);
                let (line, column) = cmd.position(offset);
                Err(SyntaxError {
                    line,
                    column,
                    message: format!("undefined {what} '{name}'"),
                })
            }
        }
    }

    /// `Err((kind, symbol))`: "symbol" or "sort", and its name.
    fn items(&mut self, items: &[Sexp]) -> Result<(), (&'static str, String)> {
        let none = Locals::default();
        let head = items.first().and_then(Sexp::sym).unwrap_or("");
        let arg = |i: usize| items.get(i);
        match head {
            "declare-fun" => {
                if let Some(Sexp::List(args)) = arg(2) {
                    args.iter().try_for_each(|s| self.sort(s, &none))?;
                }
                arg(3).map_or(Ok(()), |s| self.sort(s, &none))?;
                if let Some(f) = arg(1).and_then(Sexp::sym) {
                    self.declare(f)
                }
            }
            "declare-const" => {
                arg(2).map_or(Ok(()), |s| self.sort(s, &none))?;
                if let Some(f) = arg(1).and_then(Sexp::sym) {
                    self.declare(f)
                }
            }
            "define-fun" | "define-fun-rec" | "define-const" => {
                let f = arg(1).and_then(Sexp::sym);
                if head == "define-fun-rec" {
                    if let Some(f) = f {
                        self.declare(f)
                    }
                }
                let (params, range, body) = match head {
                    "define-const" => (None, arg(2), arg(3)),
                    _ => (arg(2), arg(3), arg(4)),
                };
                self.function(params, range, body)?;
                if let Some(f) = f {
                    self.declare(f)
                }
            }
            "define-funs-rec" => {
                let (Some(Sexp::List(decls)), Some(Sexp::List(bodies))) = (arg(1), arg(2)) else {
                    return Ok(());
                };
                for d in decls {
                    if let Some(f) = d.list().and_then(|d| d.first()?.sym()) {
                        self.declare(f)
                    }
                }
                for (d, body) in decls.iter().zip(bodies) {
                    let d = d.list().unwrap_or_default();
                    self.function(d.get(1), d.get(2), Some(body))?;
                }
            }
            "declare-sort" => {
                if let Some(s) = arg(1).and_then(Sexp::sym) {
                    self.declare_sort(s)
                }
            }
            "define-sort" => {
                let params: Vec<&str> = arg(2)
                    .and_then(Sexp::list)
                    .map_or(Vec::new(), |p| p.iter().filter_map(Sexp::sym).collect());
                let l = Locals {
                    sorts: params,
                    ..Locals::default()
                };
                arg(3).map_or(Ok(()), |s| self.sort(s, &l))?;
                if let Some(s) = arg(1).and_then(Sexp::sym) {
                    self.declare_sort(s)
                }
            }
            "declare-datatype" => {
                let name = arg(1).and_then(Sexp::sym);
                if let Some(d) = name {
                    self.declare_sort(d)
                }
                arg(2).map_or(Ok(()), |decl| self.datatype(decl))?;
            }
            "declare-datatypes" => self.datatypes(arg(1), arg(2))?,
            "assert" => arg(1).map_or(Ok(()), |t| self.term(t, &none))?,
            "check-sat-assuming" | "get-value" => {
                if let Some(Sexp::List(ts)) = arg(1) {
                    ts.iter().try_for_each(|t| self.term(t, &none))?;
                }
            }
            "push" => {
                let n = arg(1)
                    .and_then(atom)
                    .and_then(|n| n.parse().ok())
                    .unwrap_or(1);
                for _ in 0..n {
                    self.frames.push(Default::default());
                }
            }
            "pop" => {
                let n: usize = arg(1)
                    .and_then(atom)
                    .and_then(|n| n.parse().ok())
                    .unwrap_or(1);
                let keep = self.frames.len().saturating_sub(n).max(1);
                self.frames.truncate(keep);
            }
            "reset" => *self = Scope::new(),
            _ => {}
        }
        Ok(())
    }

    /// A function's parameters `((x S) …)`, its range and its body.
    fn function(
        &mut self,
        params: Option<&Sexp>,
        range: Option<&Sexp>,
        body: Option<&Sexp>,
    ) -> Result<(), (&'static str, String)> {
        let mut l = Locals::default();
        for p in params.and_then(Sexp::list).unwrap_or_default() {
            let p = p.list().unwrap_or_default();
            p.get(1).map_or(Ok(()), |s| self.sort(s, &l))?;
            if let Some(x) = p.first().and_then(Sexp::sym) {
                l.vars.push(x)
            }
        }
        range.map_or(Ok(()), |s| self.sort(s, &l))?;
        body.map_or(Ok(()), |t| self.term(t, &l))
    }

    /// `((D n) …) (decl …)` (SMT-LIB 2.6), or `(params) ((D ctor …) …)`
    /// (2.5, as z3 still reads it).
    fn datatypes(
        &mut self,
        sorts: Option<&Sexp>,
        decls: Option<&Sexp>,
    ) -> Result<(), (&'static str, String)> {
        let decls = decls.and_then(Sexp::list).unwrap_or_default();
        let old = decls.iter().all(|d| d.head().is_some_and(|h| h != "par"));
        if old && !decls.is_empty() {
            let params: Vec<&str> = sorts
                .and_then(Sexp::list)
                .map_or(Vec::new(), |p| p.iter().filter_map(Sexp::sym).collect());
            for d in decls {
                if let Some(n) = d.head() {
                    self.declare_sort(n)
                }
            }
            let l = Locals {
                sorts: params,
                ..Locals::default()
            };
            for d in decls {
                for c in d.list().unwrap_or_default().iter().skip(1) {
                    self.constructor(c, &l)?;
                }
            }
            return Ok(());
        }
        for s in sorts.and_then(Sexp::list).unwrap_or_default() {
            if let Some(n) = s.head() {
                self.declare_sort(n)
            }
        }
        decls.iter().try_for_each(|d| self.datatype(d))
    }

    /// `(par (T …) (ctor …))` or `(ctor …)`.
    fn datatype(&mut self, decl: &Sexp) -> Result<(), (&'static str, String)> {
        let items = decl.list().unwrap_or_default();
        let (params, ctors) = match decl.head() {
            Some("par") => (
                items.get(1).and_then(Sexp::list).unwrap_or_default(),
                items.get(2).and_then(Sexp::list).unwrap_or_default(),
            ),
            _ => (&[][..], items),
        };
        let l = Locals {
            sorts: params.iter().filter_map(Sexp::sym).collect(),
            ..Locals::default()
        };
        ctors.iter().try_for_each(|c| self.constructor(c, &l))
    }

    /// `(C (sel S) …)` or a bare `C`: C, `is-C` and the selectors.
    fn constructor(&mut self, c: &Sexp, l: &Locals) -> Result<(), (&'static str, String)> {
        let (name, fields) = match c {
            Sexp::List(v) => (v.first().and_then(Sexp::sym), &v[1.min(v.len())..]),
            atom => (atom.sym(), &[][..]),
        };
        if let Some(c) = name {
            self.declare(c);
            self.declare(&format!("is-{c}"));
        }
        for f in fields {
            let f = f.list().unwrap_or_default();
            f.get(1).map_or(Ok(()), |s| self.sort(s, l))?;
            if let Some(s) = f.first().and_then(Sexp::sym) {
                self.declare(s)
            }
        }
        Ok(())
    }

    fn sort(&self, s: &Sexp, l: &Locals) -> Result<(), (&'static str, String)> {
        match s {
            Sexp::Atom(..) => match s.sym() {
                Some(name) if !self.has_sort(name, l) => Err(("sort", name.to_string())),
                _ => Ok(()),
            },
            Sexp::List(v) => match v.first() {
                Some(h) if h.sym() == Some("_") => Ok(()),
                Some(h) => {
                    self.sort(h, l)?;
                    v[1..].iter().try_for_each(|a| deep(|| self.sort(a, l)))
                }
                None => Ok(()),
            },
        }
    }

    fn term<'a>(&mut self, t: &'a Sexp, l: &Locals<'a>) -> Result<(), (&'static str, String)> {
        let v = match t {
            Sexp::Atom(..) => {
                return match t.sym() {
                    Some(f) if !self.has_function(f, l) => Err(("symbol", f.to_string())),
                    _ => Ok(()),
                }
            }
            Sexp::List(v) => v,
        };
        let Some(head) = v.first() else {
            return Ok(());
        };
        match head.sym() {
            Some("_") => return Ok(()),
            Some("as") => {
                v.get(2).map_or(Ok(()), |s| self.sort(s, l))?;
                return match v.get(1) {
                    Some(id) if id.sym() != Some("const") => self.term(id, l),
                    _ => Ok(()),
                };
            }
            Some("let") => {
                let mut inner = l.clone();
                for b in v.get(1).and_then(Sexp::list).unwrap_or_default() {
                    let b = b.list().unwrap_or_default();
                    b.get(1).map_or(Ok(()), |t| deep(|| self.term(t, l)))?;
                    if let Some(x) = b.first().and_then(Sexp::sym) {
                        inner.vars.push(x)
                    }
                }
                return v.get(2).map_or(Ok(()), |t| deep(|| self.term(t, &inner)));
            }
            Some("forall" | "exists" | "lambda") => {
                let mut inner = l.clone();
                for b in v.get(1).and_then(Sexp::list).unwrap_or_default() {
                    let b = b.list().unwrap_or_default();
                    b.get(1).map_or(Ok(()), |s| self.sort(s, l))?;
                    if let Some(x) = b.first().and_then(Sexp::sym) {
                        inner.vars.push(x)
                    }
                }
                return v.get(2).map_or(Ok(()), |t| deep(|| self.term(t, &inner)));
            }
            Some("!") => {
                v.get(1).map_or(Ok(()), |t| deep(|| self.term(t, l)))?;
                let mut attrs = v[2.min(v.len())..].iter();
                while let Some(key) = attrs.next() {
                    match (atom(key), attrs.next()) {
                        (Some(":named"), Some(n)) => {
                            if let Some(n) = n.sym() {
                                self.declare(n)
                            }
                        }
                        (Some(":pattern" | ":no-pattern"), Some(Sexp::List(ps))) => {
                            ps.iter().try_for_each(|p| deep(|| self.term(p, l)))?;
                        }
                        _ => {}
                    }
                }
                return Ok(());
            }
            Some("match") => {
                v.get(1).map_or(Ok(()), |t| deep(|| self.term(t, l)))?;
                for case in v.get(2).and_then(Sexp::list).unwrap_or_default() {
                    let case = case.list().unwrap_or_default();
                    let mut inner = l.clone();
                    match case.first() {
                        Some(Sexp::List(p)) => {
                            p.iter()
                                .skip(1)
                                .filter_map(Sexp::sym)
                                .for_each(|x| inner.vars.push(x));
                        }
                        Some(p) => match p.sym() {
                            Some(x) if !self.has_function(x, l) => inner.vars.push(x),
                            _ => {}
                        },
                        None => {}
                    }
                    case.get(1)
                        .map_or(Ok(()), |t| deep(|| self.term(t, &inner)))?;
                }
                return Ok(());
            }
            _ => {}
        }
        v.iter().try_for_each(|a| deep(|| self.term(a, l)))
    }
}

/// The text of an atom that is no list.
fn atom(s: &Sexp) -> Option<&str> {
    match s {
        Sexp::Atom(_, text) => Some(text),
        Sexp::List(_) => None,
    }
}

/// Offset of the first symbol token of `text` whose normal form is `name`,
/// past the command's second token (the name a definition defines).
fn first_use(text: &[u8], name: &str) -> usize {
    let head = crate::smtlib::lexer::command_head(text).unwrap_or_default();
    let defines = head.starts_with(b"define") || head.starts_with(b"declare");
    Lexer::new(text)
        .flatten()
        .enumerate()
        .find(|(i, t)| {
            (*i > 2 || !defines)
                && matches!(t.kind, TokenKind::Symbol | TokenKind::QuotedSymbol)
                && t.symbol(text) == name.as_bytes()
        })
        .map_or(0, |(_, t)| t.start)
}

#[cfg(test)]
mod tests;
