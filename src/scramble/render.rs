//! Print one command with fresh names and permuted commutative arguments.
//!
//! The renderer walks a command's [`Tree`] with an explicit job stack (no
//! recursion, so any nesting depth works) and knows the SMT-LIB 2.6 roles of
//! its parts: which symbols are declared (`declare-fun`, `define-sort`,
//! datatypes, `:named`), which are bound and where their scope ends (`let`,
//! `forall`, `exists`, `lambda`, `match`, function parameters, sort
//! parameters), which are uses in term or sort position, and which parts
//! are opaque (indices, attribute values other than `:named`, `:pattern`
//! and `:no-pattern`, options, keywords, literals). Opaque parts are copied
//! token by token. Tokens are separated by one space: comments and the
//! original layout do not survive.

use super::commute::permutable_from;
use super::random::GlibcRandom;
use super::symtab::SymTab;
use super::tree::{Tree, TreeError};
use crate::smtlib::lexer::TokenKind;
use crate::smtlib::symbol::normalize_bytes;

#[derive(Clone, Copy, Debug)]
enum Job {
    /// A term.
    Term(u32),
    /// A sort.
    Sort(u32),
    /// Copied as is.
    Raw(u32),
    Open,
    Close,
    /// A binder's name or a definition's name printed before it takes effect.
    Name(u32),
    DeclareFun(u32),
    DeclareSort(u32),
    DeclareCtor(u32),
    RegisterFun(u32),
    RegisterSort(u32),
    /// Bind the first symbol of every pair in a list `((x …) …)`.
    BindPairs(u32),
    BindVar(u32),
    /// Bind every symbol of a list `(X Y …)` as a sort parameter.
    BindSortParams(u32),
    Unbind(u32),
    Datatype(u32),
    Ctor(u32),
    MatchCase(u32),
}

/// Options and state that live across the commands of one file.
pub struct Renderer {
    pub tab: SymTab,
    pub rename: bool,
    pub commute: bool,
    pub difference_logic: bool,
    tree: Tree,
    jobs: Vec<Job>,
    seq: Vec<Job>,
    space: bool,
}

type R<T = ()> = Result<T, TreeError>;

fn err<T>(tree: &Tree, id: u32, message: impl Into<String>) -> R<T> {
    Err(TreeError {
        offset: tree.node(id).start as usize,
        message: message.into(),
    })
}

impl Renderer {
    pub fn new(tab: SymTab, rename: bool, commute: bool) -> Self {
        Renderer {
            tab,
            rename,
            commute,
            difference_logic: false,
            tree: Tree::default(),
            jobs: Vec::new(),
            seq: Vec::new(),
            space: false,
        }
    }

    /// Render the command `text` into `out` (no trailing newline). On error
    /// `out` may hold part of the command; the caller discards it.
    pub fn render(&mut self, text: &[u8], rng: &mut GlibcRandom, out: &mut Vec<u8>) -> R {
        let root = self.tree.build(text)?;
        self.jobs.clear();
        self.seq.clear();
        self.space = false;
        let result = self
            .command(text, root)
            .and_then(|()| self.run(text, rng, out));
        if result.is_err() {
            self.tab.unbind_all();
        }
        result
    }

    /// Push `seq` so that its first job runs first.
    fn push_seq(&mut self) {
        self.jobs.extend(self.seq.drain(..).rev());
    }

    fn symbol_kid(&self, text: &[u8], id: u32, what: &str) -> R<u32> {
        if self.tree.is_symbol(id) {
            Ok(id)
        } else {
            let found = String::from_utf8_lossy(self.tree.bytes(text, id)).into_owned();
            err(&self.tree, id, format!("expected {what}, found '{found}'"))
        }
    }

    fn list_kids(&self, id: u32, what: &str) -> R<Vec<u32>> {
        if self.tree.node(id).is_list() {
            Ok(self.tree.kids(id).to_vec())
        } else {
            err(&self.tree, id, format!("expected {what}"))
        }
    }

    /// `((x S) …)`: checks the shape, pushes the printing jobs, returns the count.
    fn sorted_vars(&mut self, text: &[u8], list: u32) -> R<u32> {
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
    fn command(&mut self, text: &[u8], root: u32) -> R {
        let k = self.list_kids(root, "a command")?;
        let Some(&head) = k.first() else {
            return err(&self.tree, root, "empty command");
        };
        let h = if self.tree.node(head).kind == TokenKind::Symbol {
            self.tree.bytes(text, head)
        } else {
            b""
        };
        let arity = |n: usize| -> R {
            if k.len() == n {
                Ok(())
            } else {
                let name = String::from_utf8_lossy(h);
                err(
                    &self.tree,
                    root,
                    format!(
                        "{name}: expected {} arguments, found {}",
                        n - 1,
                        k.len() - 1
                    ),
                )
            }
        };
        self.seq.extend([Job::Open, Job::Raw(head)]);
        match h {
            b"assert" => {
                arity(2)?;
                self.seq.push(Job::Term(k[1]));
            }
            b"declare-fun" => {
                arity(4)?;
                self.symbol_kid(text, k[1], "a function name")?;
                let args = self.list_kids(k[2], "a list of argument sorts")?;
                self.seq.extend([Job::DeclareFun(k[1]), Job::Open]);
                self.seq.extend(args.iter().map(|&a| Job::Sort(a)));
                self.seq.extend([Job::Close, Job::Sort(k[3])]);
            }
            b"declare-const" => {
                arity(3)?;
                self.symbol_kid(text, k[1], "a constant name")?;
                self.seq.extend([Job::DeclareFun(k[1]), Job::Sort(k[2])]);
            }
            b"declare-sort" => {
                if k.len() != 2 {
                    arity(3)?;
                }
                self.symbol_kid(text, k[1], "a sort name")?;
                self.seq.push(Job::DeclareSort(k[1]));
                self.seq.extend(k[2..].iter().map(|&a| Job::Raw(a)));
            }
            b"define-sort" => {
                arity(4)?;
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
            }
            b"define-fun" | b"define-fun-rec" => {
                arity(5)?;
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
                arity(3)?;
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
            }
            b"define-const" => {
                arity(4)?;
                self.symbol_kid(text, k[1], "a constant name")?;
                self.seq.extend([
                    Job::Name(k[1]),
                    Job::Sort(k[2]),
                    Job::Term(k[3]),
                    Job::RegisterFun(k[1]),
                ]);
            }
            b"declare-datatype" => {
                arity(3)?;
                self.symbol_kid(text, k[1], "a datatype name")?;
                self.register(text, k[1], true);
                self.seq.extend([Job::Name(k[1]), Job::Datatype(k[2])]);
            }
            b"declare-datatypes" => {
                arity(3)?;
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
            }
            b"check-sat-assuming" | b"get-value" => {
                arity(2)?;
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

    /// Mark a declared name as a function (or sort) from now on.
    fn register(&mut self, text: &[u8], id: u32, sort: bool) -> u32 {
        let name = normalize_bytes(self.tree.bytes(text, id));
        let i = self.tab.intern(name);
        let s = self.tab.sym_mut(i);
        if sort {
            s.sort = true;
        } else {
            s.fun = true;
        }
        i
    }

    fn put(&mut self, bytes: &[u8], out: &mut Vec<u8>) {
        if self.space {
            out.push(b' ');
        }
        out.extend_from_slice(bytes);
        self.space = true;
    }

    /// Print a symbol node under its fresh name (or as written when not
    /// renaming), interning it.
    fn put_name(&mut self, text: &[u8], id: u32, out: &mut Vec<u8>) -> u32 {
        let raw = self.tree.bytes(text, id);
        let i = self.tab.intern(normalize_bytes(raw));
        if self.rename {
            if self.space {
                out.push(b' ');
            }
            self.tab.write_fresh(i, out);
            self.space = true;
        } else {
            self.put(raw, out);
        }
        i
    }

    /// A term-position symbol: a user symbol gets its fresh name, a datatype
    /// tester `is-C` follows its constructor, anything else is copied.
    fn put_term_symbol(&mut self, text: &[u8], id: u32, out: &mut Vec<u8>) {
        let raw = self.tree.bytes(text, id);
        if self.rename {
            let name = normalize_bytes(raw);
            if let Some(i) = self.tab.term_ref(name) {
                if self.space {
                    out.push(b' ');
                }
                self.tab.write_fresh(i, out);
                self.space = true;
                return;
            }
            if let Some(ctor) = name.strip_prefix(b"is-") {
                if let Some(i) = self.tab.lookup(ctor).filter(|&i| self.tab.sym(i).ctor) {
                    self.put(b"is-", out);
                    self.tab.write_fresh(i, out);
                    return;
                }
            }
        }
        self.put(raw, out);
    }

    fn run(&mut self, text: &[u8], rng: &mut GlibcRandom, out: &mut Vec<u8>) -> R {
        while let Some(job) = self.jobs.pop() {
            match job {
                Job::Open => {
                    if self.space {
                        out.push(b' ');
                    }
                    out.push(b'(');
                    self.space = false;
                }
                Job::Close => {
                    out.push(b')');
                    self.space = true;
                }
                Job::Raw(id) => {
                    if self.tree.node(id).is_list() {
                        let kids = self.tree.kids(id);
                        self.jobs.push(Job::Close);
                        self.jobs.extend(kids.iter().rev().map(|&k| Job::Raw(k)));
                        self.jobs.push(Job::Open);
                    } else {
                        self.put(self.tree.bytes(text, id), out);
                    }
                }
                Job::Name(id) => {
                    self.put_name(text, id, out);
                }
                Job::DeclareFun(id) | Job::DeclareSort(id) | Job::DeclareCtor(id) => {
                    let i = self.put_name(text, id, out);
                    let s = self.tab.sym_mut(i);
                    match job {
                        Job::DeclareSort(_) => s.sort = true,
                        Job::DeclareCtor(_) => {
                            s.fun = true;
                            s.ctor = true;
                        }
                        _ => s.fun = true,
                    }
                }
                Job::RegisterFun(id) => {
                    self.register(text, id, false);
                }
                Job::RegisterSort(id) => {
                    self.register(text, id, true);
                }
                Job::BindPairs(list) => {
                    for k in 0..self.tree.kids(list).len() {
                        let pair = self.tree.kids(list)[k];
                        let var = self.tree.kids(pair)[0];
                        let name = normalize_bytes(self.tree.bytes(text, var));
                        self.tab.bind(name, false);
                    }
                }
                Job::BindVar(id) => {
                    let name = normalize_bytes(self.tree.bytes(text, id));
                    self.tab.bind(name, false);
                }
                Job::BindSortParams(list) => {
                    for k in 0..self.tree.kids(list).len() {
                        let p = self.tree.kids(list)[k];
                        let name = normalize_bytes(self.tree.bytes(text, p));
                        self.tab.bind(name, true);
                    }
                }
                Job::Unbind(n) => self.tab.unbind(n as usize),
                Job::Sort(id) => self.sort(text, id, out)?,
                Job::Term(id) => self.term(text, id, rng, out)?,
                Job::Datatype(id) => self.datatype(text, id)?,
                Job::Ctor(id) => self.ctor(text, id)?,
                Job::MatchCase(id) => self.match_case(text, id)?,
            }
        }
        Ok(())
    }

    fn sort(&mut self, text: &[u8], id: u32, out: &mut Vec<u8>) -> R {
        let node = *self.tree.node(id);
        if !node.is_list() {
            if !self.tree.is_symbol(id) {
                return err(&self.tree, id, "expected a sort");
            }
            let raw = self.tree.bytes(text, id);
            match self
                .tab
                .sort_ref(normalize_bytes(raw))
                .filter(|_| self.rename)
            {
                Some(i) => {
                    if self.space {
                        out.push(b' ');
                    }
                    self.tab.write_fresh(i, out);
                    self.space = true;
                }
                None => self.put(raw, out),
            }
            return Ok(());
        }
        let kids = self.tree.kids(id);
        match kids.first() {
            None => err(&self.tree, id, "expected a sort, found ()"),
            Some(&h) if self.tree.is_word(text, h, b"_") => {
                self.jobs.push(Job::Raw(id));
                Ok(())
            }
            Some(_) => {
                self.jobs.push(Job::Close);
                self.jobs.extend(kids.iter().rev().map(|&k| Job::Sort(k)));
                self.jobs.push(Job::Open);
                Ok(())
            }
        }
    }

    fn term(&mut self, text: &[u8], id: u32, rng: &mut GlibcRandom, out: &mut Vec<u8>) -> R {
        let node = *self.tree.node(id);
        if !node.is_list() {
            if self.tree.is_symbol(id) {
                self.put_term_symbol(text, id, out);
            } else {
                self.put(self.tree.bytes(text, id), out);
            }
            return Ok(());
        }
        let k = self.tree.kids(id).to_vec();
        let Some(&head) = k.first() else {
            return err(&self.tree, id, "expected a term, found ()");
        };
        let word = |w: &[u8]| self.tree.is_word(text, head, w);
        self.seq.extend([Job::Open, Job::Raw(head)]);
        if word(b"let") {
            if k.len() != 3 {
                return err(&self.tree, id, "let: expected (let ((x t) …) body)");
            }
            let bl = k[1];
            if self.commute && !self.tree.node(bl).named && self.tree.node(bl).is_list() {
                rng.shuffle(self.tree.kids_mut(bl));
            }
            let binds = self.list_kids(bl, "a list of bindings ((x t) …)")?;
            self.seq.push(Job::Open);
            for &b in &binds {
                let bk = self.list_kids(b, "a binding (x t)")?;
                if bk.len() != 2 {
                    return err(&self.tree, b, "expected a binding (x t)");
                }
                self.symbol_kid(text, bk[0], "a variable name")?;
                self.seq
                    .extend([Job::Open, Job::Name(bk[0]), Job::Term(bk[1]), Job::Close]);
            }
            self.seq.extend([
                Job::Close,
                Job::BindPairs(bl),
                Job::Term(k[2]),
                Job::Unbind(binds.len() as u32),
            ]);
        } else if word(b"forall") || word(b"exists") || word(b"lambda") {
            if k.len() != 3 {
                return err(&self.tree, id, "expected (forall ((x S) …) body)");
            }
            let n = self.sorted_vars(text, k[1])?;
            self.seq
                .extend([Job::BindPairs(k[1]), Job::Term(k[2]), Job::Unbind(n)]);
        } else if word(b"match") {
            if k.len() != 3 {
                return err(
                    &self.tree,
                    id,
                    "match: expected (match t ((pattern term) …))",
                );
            }
            let cases = self.list_kids(k[2], "a list of match cases")?;
            self.seq.extend([Job::Term(k[1]), Job::Open]);
            self.seq.extend(cases.iter().map(|&c| Job::MatchCase(c)));
            self.seq.push(Job::Close);
        } else if word(b"!") {
            if k.len() < 2 {
                return err(&self.tree, id, "!: expected (! term attribute …)");
            }
            self.seq.push(Job::Term(k[1]));
            let mut i = 2;
            while i < k.len() {
                let kw = k[i];
                if self.tree.node(kw).kind != TokenKind::Keyword {
                    return err(&self.tree, kw, "expected an attribute keyword");
                }
                self.seq.push(Job::Raw(kw));
                let value = k
                    .get(i + 1)
                    .copied()
                    .filter(|&v| self.tree.node(v).kind != TokenKind::Keyword);
                i += 1;
                let Some(v) = value else { continue };
                i += 1;
                match self.tree.bytes(text, kw) {
                    b":named" => {
                        self.symbol_kid(text, v, "a name after :named")?;
                        self.seq.push(Job::DeclareFun(v));
                    }
                    b":pattern" => {
                        let terms = self.list_kids(v, "a list of pattern terms after :pattern")?;
                        self.seq.push(Job::Open);
                        self.seq.extend(terms.iter().map(|&t| Job::Term(t)));
                        self.seq.push(Job::Close);
                    }
                    b":no-pattern" => self.seq.push(Job::Term(v)),
                    _ => self.seq.push(Job::Raw(v)),
                }
            }
        } else if word(b"as") {
            if k.len() != 3 {
                return err(&self.tree, id, "as: expected (as identifier sort)");
            }
            self.seq.extend([Job::Term(k[1]), Job::Sort(k[2])]);
        } else if word(b"_") {
            // Indexed identifier: only the tester (_ is C) names a user symbol.
            if k.len() == 3 && self.tree.is_word(text, k[1], b"is") && self.tree.is_symbol(k[2]) {
                self.seq.extend([Job::Raw(k[1]), Job::Term(k[2])]);
            } else {
                self.seq.extend(k[1..].iter().map(|&a| Job::Raw(a)));
            }
        } else {
            // Application; the head is a symbol or a qualified identifier.
            if !self.tree.is_symbol(head) && !self.tree.node(head).is_list() {
                let found = String::from_utf8_lossy(self.tree.bytes(text, head)).into_owned();
                return err(
                    &self.tree,
                    head,
                    format!("expected a function symbol, found '{found}'"),
                );
            }
            if k.len() < 2 {
                return err(&self.tree, id, "an application needs arguments");
            }
            self.seq.pop();
            self.seq.push(Job::Term(head));
            let mut args = k[1..].to_vec();
            if self.commute && !node.named && self.tree.is_symbol(head) {
                let op = normalize_bytes(self.tree.bytes(text, head));
                if self.tab.term_ref(op).is_none() {
                    if let Some(from) = permutable_from(op, args.len(), self.difference_logic) {
                        rng.shuffle(&mut args[from..]);
                    }
                }
            }
            self.seq.extend(args.iter().map(|&a| Job::Term(a)));
        }
        self.seq.push(Job::Close);
        self.push_seq();
        Ok(())
    }

    /// `(pattern body)` of a `match`.
    fn match_case(&mut self, text: &[u8], id: u32) -> R {
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
            let is_ctor = self.tab.lookup(name).is_some_and(|i| self.tab.sym(i).ctor);
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
    fn datatype(&mut self, text: &[u8], id: u32) -> R {
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
    fn ctor(&mut self, text: &[u8], id: u32) -> R {
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

#[cfg(test)]
mod tests;
