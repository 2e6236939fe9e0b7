//! The command-level half of the renderer: what each command declares,
//! defines and binds (`declare-*`, `define-*`, datatypes, `match` cases),
//! expanded into jobs for [`Renderer::run`](super::Renderer). Terms and
//! sorts are in the parent module.

use super::{err, Job, Renderer, R};
use crate::smtlib::lexer::TokenKind;
use crate::smtlib::symbol::normalize_bytes;

impl Renderer {
    /// `((x S) …)`: checks the shape, pushes the printing jobs, returns the count.
    pub(super) fn sorted_vars(&mut self, text: &[u8], list: u32) -> R<u32> {
        let vars = self.list_kids(list, "a list of sorted variables ((x S) …)")?;
        self.seq.push(Job::Open);
        for &v in &vars {
            let k = self.list_kids(v, "a sorted variable (x S)")?;
            if k.len() != 2 {
                return err(&self.tree, v, "expected a sorted variable (x S)");
            }
            self.symbol_kid(text, k[0], "a variable name")?;
            self.seq
                .extend([Job::Open, Job::Name(k[0]), Job::Sort(k[1]), Job::Close]);
        }
        self.seq.push(Job::Close);
        Ok(vars.len() as u32)
    }

    /// Expand the command at the root into jobs.
    pub(super) fn command(&mut self, text: &[u8], root: u32) -> R {
        let k = self.list_kids(root, "a command")?;
        let Some(&head) = k.first() else {
            return err(&self.tree, root, "empty command");
        };
        let h = if self.tree.node(head).kind == TokenKind::Symbol {
            self.tree.bytes(text, head)
        } else {
            b""
        };
        let found = k.len();
        self.seq.extend([Job::Open, Job::Raw(head)]);
        match h {
            b"assert" => {
                self.arity(root, h, found, 2)?;
                self.seq.push(Job::Term(k[1]));
            }
            b"declare-fun" => {
                self.arity(root, h, found, 4)?;
                self.symbol_kid(text, k[1], "a function name")?;
                let args = self.list_kids(k[2], "a list of argument sorts")?;
                self.seq.extend([Job::DeclareFun(k[1]), Job::Open]);
                self.seq.extend(args.iter().map(|&a| Job::Sort(a)));
                self.seq.extend([Job::Close, Job::Sort(k[3])]);
            }
            b"declare-const" => {
                self.arity(root, h, found, 3)?;
                self.symbol_kid(text, k[1], "a constant name")?;
                self.seq.extend([Job::DeclareFun(k[1]), Job::Sort(k[2])]);
            }
            b"declare-sort" => {
                if k.len() != 2 {
                    self.arity(root, h, found, 3)?;
                }
                self.symbol_kid(text, k[1], "a sort name")?;
                self.seq.push(Job::DeclareSort(k[1]));
                self.seq.extend(k[2..].iter().map(|&a| Job::Raw(a)));
            }
            b"define-sort" => {
                self.arity(root, h, found, 4)?;
                self.define_sort(text, &k)?;
            }
            b"define-fun" | b"define-fun-rec" => {
                self.arity(root, h, found, 5)?;
                self.symbol_kid(text, k[1], "a function name")?;
                let recursive = h == b"define-fun-rec";
                if recursive {
                    self.register(text, k[1], false);
                }
                self.seq.push(Job::Name(k[1]));
                let n = self.sorted_vars(text, k[2])?;
                self.seq.extend([
                    Job::Sort(k[3]),
                    Job::BindPairs(k[2]),
                    Job::Term(k[4]),
                    Job::Unbind(n),
                ]);
                if !recursive {
                    self.seq.push(Job::RegisterFun(k[1]));
                }
            }
            b"define-funs-rec" => {
                self.arity(root, h, found, 3)?;
                self.define_funs_rec(text, &k)?;
            }
            b"define-const" => {
                self.arity(root, h, found, 4)?;
                self.symbol_kid(text, k[1], "a constant name")?;
                self.seq.extend([
                    Job::Name(k[1]),
                    Job::Sort(k[2]),
                    Job::Term(k[3]),
                    Job::RegisterFun(k[1]),
                ]);
            }
            b"declare-datatype" => {
                self.arity(root, h, found, 3)?;
                self.symbol_kid(text, k[1], "a datatype name")?;
                self.register(text, k[1], true);
                self.seq.extend([Job::Name(k[1]), Job::Datatype(k[2])]);
            }
            b"declare-datatypes" => {
                self.arity(root, h, found, 3)?;
                self.declare_datatypes(text, &k)?;
            }
            b"check-sat-assuming" | b"get-value" => {
                self.arity(root, h, found, 2)?;
                let terms = self.list_kids(k[1], "a list of terms")?;
                self.seq.push(Job::Open);
                self.seq.extend(terms.iter().map(|&t| Job::Term(t)));
                self.seq.push(Job::Close);
            }
            b"set-logic"
            | b"set-option"
            | b"set-info"
            | b"check-sat"
            | b"get-unsat-core"
            | b"get-model"
            | b"get-assertions"
            | b"get-assignment"
            | b"get-info"
            | b"get-option"
            | b"get-proof"
            | b"get-unsat-assumptions"
            | b"push"
            | b"pop"
            | b"reset"
            | b"reset-assertions"
            | b"exit"
            | b"echo" => {
                self.seq.extend(k[1..].iter().map(|&a| Job::Raw(a)));
            }
            _ if !self.rename => {
                self.seq.extend(k[1..].iter().map(|&a| Job::Raw(a)));
            }
            _ => {
                let name = String::from_utf8_lossy(self.tree.bytes(text, head)).into_owned();
                return err(
                    &self.tree,
                    head,
                    format!(
                        "unsupported command '{name}': cannot rename its symbols (use --no-rename)"
                    ),
                );
            }
        }
        self.seq.push(Job::Close);
        self.push_seq();
        Ok(())
    }

    /// The arity check of a command: `n` items with its head.
    fn arity(&self, root: u32, h: &[u8], found: usize, n: usize) -> R {
        if found == n {
            return Ok(());
        }
        let name = String::from_utf8_lossy(h);
        err(
            &self.tree,
            root,
            format!("{name}: expected {} arguments, found {}", n - 1, found - 1),
        )
    }

    /// `(define-sort S (P …) T)`, after its head.
    fn define_sort(&mut self, text: &[u8], k: &[u32]) -> R {
        self.symbol_kid(text, k[1], "a sort name")?;
        let params = self.list_kids(k[2], "a list of sort parameters")?;
        self.seq.extend([Job::Name(k[1]), Job::Open]);
        for &p in &params {
            self.symbol_kid(text, p, "a sort parameter")?;
            self.seq.push(Job::Name(p));
        }
        self.seq.extend([
            Job::Close,
            Job::BindSortParams(k[2]),
            Job::Sort(k[3]),
            Job::Unbind(params.len() as u32),
            Job::RegisterSort(k[1]),
        ]);
        Ok(())
    }

    /// `(define-funs-rec ((f ((x S) …) R) …) (body …))`, after its head.
    fn define_funs_rec(&mut self, text: &[u8], k: &[u32]) -> R {
        let decls = self.list_kids(k[1], "a list of function declarations")?;
        let bodies = self.list_kids(k[2], "a list of function bodies")?;
        if decls.len() != bodies.len() {
            return err(
                &self.tree,
                k[2],
                "define-funs-rec: as many bodies as declarations expected",
            );
        }
        let mut params = Vec::with_capacity(decls.len());
        self.seq.push(Job::Open);
        for &d in &decls {
            let dk = self.list_kids(d, "a declaration (f ((x S) …) R)")?;
            if dk.len() != 3 {
                return err(&self.tree, d, "expected a declaration (f ((x S) …) R)");
            }
            self.symbol_kid(text, dk[0], "a function name")?;
            self.register(text, dk[0], false);
            self.seq.extend([Job::Open, Job::Name(dk[0])]);
            let n = self.sorted_vars(text, dk[1])?;
            self.seq.extend([Job::Sort(dk[2]), Job::Close]);
            params.push((dk[1], n));
        }
        self.seq.extend([Job::Close, Job::Open]);
        for (&b, &(p, n)) in bodies.iter().zip(&params) {
            self.seq
                .extend([Job::BindPairs(p), Job::Term(b), Job::Unbind(n)]);
        }
        self.seq.push(Job::Close);
        Ok(())
    }

    /// `(declare-datatypes ((D n) …) (decl …))`, or SMT-LIB 2.5's
    /// `(declare-datatypes () ((D ctor …) …))`, after its head.
    fn declare_datatypes(&mut self, text: &[u8], k: &[u32]) -> R {
        let sorts = self.list_kids(k[1], "a list of sort declarations ((D n) …)")?;
        let decs = self.list_kids(k[2], "a list of datatype declarations")?;
        if sorts.is_empty() {
            // SMT-LIB 2.5: (declare-datatypes () ((D ctor …) …)).
            for &d in &decs {
                let dk = self.list_kids(d, "a datatype (D constructor …)")?;
                let Some(&name) = dk.first() else {
                    return err(&self.tree, d, "expected a datatype (D constructor …)");
                };
                self.symbol_kid(text, name, "a datatype name")?;
                self.register(text, name, true);
            }
            self.seq.extend([Job::Raw(k[1]), Job::Open]);
            for &d in &decs {
                let dk = self.tree.kids(d).to_vec();
                self.seq.extend([Job::Open, Job::Name(dk[0])]);
                self.seq.extend(dk[1..].iter().map(|&c| Job::Ctor(c)));
                self.seq.push(Job::Close);
            }
            self.seq.push(Job::Close);
        } else {
            if sorts.len() != decs.len() {
                return err(
                    &self.tree,
                    k[2],
                    "declare-datatypes: as many declarations as sorts expected",
                );
            }
            self.seq.push(Job::Open);
            for &s in &sorts {
                let sk = self.list_kids(s, "a sort declaration (D n)")?;
                if sk.len() != 2 {
                    return err(&self.tree, s, "expected a sort declaration (D n)");
                }
                self.symbol_kid(text, sk[0], "a datatype name")?;
                self.register(text, sk[0], true);
                self.seq
                    .extend([Job::Open, Job::Name(sk[0]), Job::Raw(sk[1]), Job::Close]);
            }
            self.seq.extend([Job::Close, Job::Open]);
            self.seq.extend(decs.iter().map(|&d| Job::Datatype(d)));
            self.seq.push(Job::Close);
        }
        Ok(())
    }

    /// Mark a declared name as a function (or sort) from now on.
    pub(super) fn register(&mut self, text: &[u8], id: u32, sort: bool) -> u32 {
        let name = normalize_bytes(self.tree.bytes(text, id));
        let i = self.tab.intern(name);
        if sort {
            self.tab.set_sort(i);
        } else {
            self.tab.set_fun(i);
        }
        i
    }

    /// `(pattern body)` of a `match`.
    pub(super) fn match_case(&mut self, text: &[u8], id: u32) -> R {
        let k = self.list_kids(id, "a match case (pattern term)")?;
        if k.len() != 2 {
            return err(&self.tree, id, "expected a match case (pattern term)");
        }
        let p = k[0];
        self.seq.push(Job::Open);
        let mut bound = 0;
        if self.tree.node(p).is_list() {
            let pk = self.tree.kids(p).to_vec();
            let Some(&c) = pk.first() else {
                return err(&self.tree, p, "expected a pattern (C x …)");
            };
            self.symbol_kid(text, c, "a constructor")?;
            self.seq.extend([Job::Open, Job::Term(c)]);
            for &x in &pk[1..] {
                self.symbol_kid(text, x, "a pattern variable")?;
                self.seq.push(Job::Name(x));
            }
            self.seq.push(Job::Close);
            for &x in &pk[1..] {
                self.seq.push(Job::BindVar(x));
                bound += 1;
            }
        } else {
            self.symbol_kid(text, p, "a pattern")?;
            let name = normalize_bytes(self.tree.bytes(text, p));
            let is_ctor = self.tab.lookup(name).is_some_and(|i| self.tab.is_ctor(i));
            if is_ctor {
                self.seq.push(Job::Term(p));
            } else {
                self.seq.extend([Job::Name(p), Job::BindVar(p)]);
                bound = 1;
            }
        }
        self.seq
            .extend([Job::Term(k[1]), Job::Unbind(bound), Job::Close]);
        self.push_seq();
        Ok(())
    }

    /// A datatype declaration: `(par (X …) (ctor …))` or `(ctor …)`.
    pub(super) fn datatype(&mut self, text: &[u8], id: u32) -> R {
        let k = self.list_kids(id, "a datatype declaration (constructor …)")?;
        if k.first()
            .is_some_and(|&h| self.tree.is_word(text, h, b"par"))
        {
            if k.len() != 3 {
                return err(&self.tree, id, "par: expected (par (X …) (constructor …))");
            }
            let params = self.list_kids(k[1], "a list of sort parameters")?;
            let ctors = self.list_kids(k[2], "a list of constructors")?;
            self.seq.extend([Job::Open, Job::Raw(k[0]), Job::Open]);
            for &p in &params {
                self.symbol_kid(text, p, "a sort parameter")?;
                self.seq.push(Job::Name(p));
            }
            self.seq
                .extend([Job::Close, Job::BindSortParams(k[1]), Job::Open]);
            self.seq.extend(ctors.iter().map(|&c| Job::Ctor(c)));
            self.seq
                .extend([Job::Close, Job::Unbind(params.len() as u32), Job::Close]);
        } else {
            self.seq.push(Job::Open);
            self.seq.extend(k.iter().map(|&c| Job::Ctor(c)));
            self.seq.push(Job::Close);
        }
        self.push_seq();
        Ok(())
    }

    /// A constructor `(C (sel S) …)`, or a bare `C` (SMT-LIB 2.5).
    pub(super) fn ctor(&mut self, text: &[u8], id: u32) -> R {
        if !self.tree.node(id).is_list() {
            self.symbol_kid(text, id, "a constructor")?;
            self.jobs.push(Job::DeclareCtor(id));
            return Ok(());
        }
        let k = self.tree.kids(id).to_vec();
        let Some(&c) = k.first() else {
            return err(&self.tree, id, "expected a constructor (C (selector S) …)");
        };
        self.symbol_kid(text, c, "a constructor name")?;
        self.seq.extend([Job::Open, Job::DeclareCtor(c)]);
        for &s in &k[1..] {
            let sk = self.list_kids(s, "a selector (s S)")?;
            if sk.len() != 2 {
                return err(&self.tree, s, "expected a selector (s S)");
            }
            self.symbol_kid(text, sk[0], "a selector name")?;
            self.seq.extend([
                Job::Open,
                Job::DeclareFun(sk[0]),
                Job::Sort(sk[1]),
                Job::Close,
            ]);
        }
        self.seq.push(Job::Close);
        self.push_seq();
        Ok(())
    }
}
