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
//! original layout do not survive. Without commuting, an `assert` is
//! printed in one pass without a tree ([`stream`]; tests check that both
//! paths print the same bytes, on every construct and on the shared
//! benchmarks).

use super::commute::permutable_from;
use super::random::GlibcRandom;
use super::symtab::SymTab;
use super::tree::Tree;
use crate::smtlib::lexer::TokenKind;
use crate::smtlib::symbol::normalize_bytes;
use crate::smtlib::OffsetError;

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
    /// Children of the special form being expanded.
    scratch: Vec<u32>,
    named_finder: memchr::memmem::Finder<'static>,
    /// Use the one-pass path when possible (tests turn it off to compare).
    stream: bool,
    space: bool,
    /// The one-pass path's open lists, the spans of the variables of its
    /// open binding lists, and the flags of the `:named` names it declared
    /// (restored when it gives up).
    frames: Vec<stream::Frame>,
    names: Vec<(u32, u32)>,
    undo: Vec<(u32, u8)>,
    bitmaps: crate::smtlib::bitlex::Bitmaps,
    /// Runs of at least this many bytes have their trees built on a second
    /// thread ([`super::tree_feed`]); the feed while one is printed.
    pub trees_ahead_min: Option<usize>,
    pub feed: Option<super::tree_feed::Feed>,
}

type R<T = ()> = Result<T, OffsetError>;

fn err<T>(tree: &Tree, id: u32, message: impl Into<String>) -> R<T> {
    Err(OffsetError {
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
            scratch: Vec::new(),
            named_finder: memchr::memmem::Finder::new(b":named"),
            stream: true,
            space: false,
            frames: Vec::new(),
            names: Vec::new(),
            undo: Vec::new(),
            bitmaps: Default::default(),
            trees_ahead_min: None,
            feed: None,
        }
    }

    /// A renderer in the same state, with a copy of the table.
    pub fn fork(&self) -> Renderer {
        let mut r = Renderer::new(self.tab.clone(), self.rename, self.commute);
        r.difference_logic = self.difference_logic;
        r.stream = self.stream;
        r
    }

    /// Become a copy of `other` (as [`Self::fork`], reusing allocations).
    pub fn copy_from(&mut self, other: &Renderer) {
        self.tab.clone_from(&other.tab);
        (self.rename, self.commute) = (other.rename, other.commute);
        self.difference_logic = other.difference_logic;
        self.stream = other.stream;
    }

    /// Render the command `text` into `out` (no trailing newline). On error
    /// `out` may hold part of the command; the caller discards it.
    pub fn render(&mut self, text: &[u8], rng: &mut GlibcRandom, out: &mut Vec<u8>) -> R {
        let mark = out.len();
        if !self.commute && self.stream && self.render_stream(text, out) {
            return Ok(());
        }
        out.truncate(mark);
        let root = match self
            .feed
            .as_mut()
            .and_then(|f| f.next(text, &mut self.tree))
        {
            Some(built) => built?,
            None => {
                let named = self.named_finder.find(text).is_some();
                self.tree.build(text, named)?
            }
        };
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

    #[inline]
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
        self.put_name_bytes(self.tree.bytes(text, id), out)
    }

    /// [`Self::put_name`] for a symbol token's bytes.
    fn put_name_bytes(&mut self, raw: &[u8], out: &mut Vec<u8>) -> u32 {
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
        self.put_term_bytes(raw, out);
    }

    /// [`Self::put_term_symbol`] for a symbol token's bytes.
    #[inline(always)]
    fn put_term_bytes(&mut self, raw: &[u8], out: &mut Vec<u8>) {
        if self.rename {
            let name = normalize_bytes(raw);
            let mark = out.len();
            if self.space {
                out.push(b' ');
            }
            if self.tab.write_ref(name, false, out) {
                self.space = true;
                return;
            }
            out.truncate(mark);
            if let Some(ctor) = name.strip_prefix(b"is-") {
                if let Some(i) = self.tab.lookup(ctor).filter(|&i| self.tab.is_ctor(i)) {
                    self.put(b"is-", out);
                    self.tab.write_fresh(i, out);
                    return;
                }
            }
        }
        self.put(raw, out);
    }

    /// A sort-position symbol: a user sort gets its fresh name.
    fn put_sort_bytes(&mut self, raw: &[u8], out: &mut Vec<u8>) {
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
                    match job {
                        Job::DeclareSort(_) => self.tab.set_sort(i),
                        Job::DeclareCtor(_) => self.tab.set_ctor(i),
                        _ => self.tab.set_fun(i),
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
            self.put_sort_bytes(self.tree.bytes(text, id), out);
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
        let Some(&head) = self.tree.kids(id).first() else {
            return err(&self.tree, id, "expected a term, found ()");
        };
        let hn = *self.tree.node(head);
        let word: &[u8] = if hn.kind == TokenKind::Symbol {
            &text[hn.start as usize..hn.end as usize]
        } else {
            b""
        };
        match word {
            b"let" | b"forall" | b"exists" | b"lambda" | b"match" | b"!" | b"as" | b"_" => {
                let mut k = std::mem::take(&mut self.scratch);
                k.clear();
                k.extend_from_slice(self.tree.kids(id));
                let r = self.special(text, id, word, &k, rng);
                self.scratch = k;
                r
            }
            _ => self.application(text, id, head, rng),
        }
    }

    /// `(f a …)` or `((as f S) a …)`: arguments of a commutative theory
    /// operator may be permuted in place.
    fn application(&mut self, text: &[u8], id: u32, head: u32, rng: &mut GlibcRandom) -> R {
        let node = *self.tree.node(id);
        let head_is_symbol = self.tree.is_symbol(head);
        if !head_is_symbol && !self.tree.node(head).is_list() {
            let found = String::from_utf8_lossy(self.tree.bytes(text, head)).into_owned();
            return err(
                &self.tree,
                head,
                format!("expected a function symbol, found '{found}'"),
            );
        }
        let nargs = node.len as usize - 1;
        if nargs == 0 {
            return err(&self.tree, id, "an application needs arguments");
        }
        if self.commute && !node.named && head_is_symbol {
            let op = normalize_bytes(self.tree.bytes(text, head));
            if let Some(from) = permutable_from(op, nargs, self.difference_logic) {
                if self.tab.term_ref(op).is_none() {
                    rng.shuffle(&mut self.tree.kids_mut(id)[1 + from..]);
                }
            }
        }
        self.jobs.push(Job::Close);
        let kids = self.tree.kids(id);
        self.jobs
            .extend(kids[1..].iter().rev().map(|&a| Job::Term(a)));
        self.jobs.extend([Job::Term(head), Job::Open]);
        Ok(())
    }

    /// Binders, annotations and qualified or indexed identifiers; `k` are
    /// the node's children, `word` its head.
    fn special(
        &mut self,
        text: &[u8],
        id: u32,
        word: &[u8],
        k: &[u32],
        rng: &mut GlibcRandom,
    ) -> R {
        self.seq.extend([Job::Open, Job::Raw(k[0])]);
        match word {
            b"let" => {
                if k.len() != 3 {
                    return err(&self.tree, id, "let: expected (let ((x t) …) body)");
                }
                let bl = k[1];
                if !self.tree.node(bl).is_list() {
                    return err(&self.tree, bl, "expected a list of bindings ((x t) …)");
                }
                if self.commute && !self.tree.node(bl).named {
                    rng.shuffle(self.tree.kids_mut(bl));
                }
                self.seq.push(Job::Open);
                for &b in self.tree.kids(bl) {
                    let bk = self.tree.kids(b);
                    if !self.tree.node(b).is_list() || bk.len() != 2 {
                        return err(&self.tree, b, "expected a binding (x t)");
                    }
                    self.symbol_kid(text, bk[0], "a variable name")?;
                    self.seq
                        .extend([Job::Open, Job::Name(bk[0]), Job::Term(bk[1]), Job::Close]);
                }
                let n = self.tree.kids(bl).len() as u32;
                self.seq.extend([
                    Job::Close,
                    Job::BindPairs(bl),
                    Job::Term(k[2]),
                    Job::Unbind(n),
                ]);
            }
            b"forall" | b"exists" | b"lambda" => {
                if k.len() != 3 {
                    return err(&self.tree, id, "expected (forall ((x S) …) body)");
                }
                let n = self.sorted_vars(text, k[1])?;
                self.seq
                    .extend([Job::BindPairs(k[1]), Job::Term(k[2]), Job::Unbind(n)]);
            }
            b"match" => {
                if k.len() != 3 {
                    return err(
                        &self.tree,
                        id,
                        "match: expected (match t ((pattern term) …))",
                    );
                }
                if !self.tree.node(k[2]).is_list() {
                    return err(&self.tree, k[2], "expected a list of match cases");
                }
                self.seq.extend([Job::Term(k[1]), Job::Open]);
                let cases = self.tree.kids(k[2]);
                self.seq.extend(cases.iter().map(|&c| Job::MatchCase(c)));
                self.seq.push(Job::Close);
            }
            b"!" => {
                if k.len() < 2 {
                    return err(&self.tree, id, "!: expected (! term attribute …)");
                }
                self.seq.push(Job::Term(k[1]));
                self.attributes(text, &k[2..])?;
            }
            b"as" => {
                if k.len() != 3 {
                    return err(&self.tree, id, "as: expected (as identifier sort)");
                }
                self.seq.extend([Job::Term(k[1]), Job::Sort(k[2])]);
            }
            _ => {
                // `_`: an indexed identifier; only the tester (_ is C)
                // names a user symbol.
                if k.len() == 3 && self.tree.is_word(text, k[1], b"is") && self.tree.is_symbol(k[2])
                {
                    self.seq.extend([Job::Raw(k[1]), Job::Term(k[2])]);
                } else {
                    self.seq.extend(k[1..].iter().map(|&a| Job::Raw(a)));
                }
            }
        }
        self.seq.push(Job::Close);
        self.push_seq();
        Ok(())
    }

    /// The attributes of `(! t attribute …)`.
    fn attributes(&mut self, text: &[u8], k: &[u32]) -> R {
        let mut i = 0;
        while i < k.len() {
            let kw = k[i];
            if self.tree.node(kw).kind != TokenKind::Keyword {
                return err(&self.tree, kw, "expected an attribute keyword");
            }
            self.seq.push(Job::Raw(kw));
            i += 1;
            let Some(&v) = k
                .get(i)
                .filter(|&&v| self.tree.node(v).kind != TokenKind::Keyword)
            else {
                continue;
            };
            i += 1;
            match self.tree.bytes(text, kw) {
                b":named" => {
                    self.symbol_kid(text, v, "a name after :named")?;
                    self.seq.push(Job::DeclareFun(v));
                }
                b":pattern" => {
                    if !self.tree.node(v).is_list() {
                        return err(&self.tree, v, "expected a list of terms after :pattern");
                    }
                    self.seq.push(Job::Open);
                    let terms = self.tree.kids(v);
                    self.seq.extend(terms.iter().map(|&t| Job::Term(t)));
                    self.seq.push(Job::Close);
                }
                b":no-pattern" => self.seq.push(Job::Term(v)),
                _ => self.seq.push(Job::Raw(v)),
            }
        }
        Ok(())
    }
}

mod commands;
mod stream;
#[cfg(test)]
mod tests;
