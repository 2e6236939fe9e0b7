//! The one-pass renderer for `assert` commands: tokens are renamed as they
//! are read, without building a [`Tree`](super::super::tree::Tree).
//!
//! Most of a benchmark's bytes are assertions, so this path carries the
//! scrambler's speed. It is a pushdown automaton over the term grammar: a
//! stack of frames, one per open list, each knowing what its children are
//! (terms, sorts, binders, attributes, opaque parts) and what to do when
//! it closes (bind a `let`'s variables after its binding list, unbind
//! them after its body). It prints exactly what the tree path prints
//! (tests compare both on every construct and on the shared benchmarks).
//!
//! It gives up — and the caller renders the command with the tree path —
//! on commutation (which needs argument lists), on `match` and `par`, and
//! on anything malformed, so that every error is reported by the tree
//! path. What it changed before giving up is undone or harmless: binders
//! are closed, the flags of `:named` names are restored, and interned
//! symbols and fresh numbers were assigned in the order the tree path
//! assigns them (both print in reading order).

use super::Renderer;
use crate::smtlib::bitlex::BitLexer;
use crate::smtlib::lexer::{command_head, Lexer, Token, TokenKind};
use crate::smtlib::symbol::normalize_bytes;
use crate::smtlib::OffsetError;

/// What the children of an open list are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Ctx {
    /// `(assert t)`.
    Assert,
    /// A list in term position before its head.
    TermList,
    /// An application `(f t …)`.
    App,
    /// `(let ((x t) …) t)`.
    Let,
    Bindings,
    Binding,
    /// `(forall ((x S) …) t)`, `exists`, `lambda`.
    Quant,
    SortedVars,
    SortedVar,
    /// `(! t :attr value …)`.
    Annot,
    /// The terms after `:pattern`.
    Pattern,
    /// `(_ …)` in term position: copied.
    Index,
    /// `(_ is C)`: `C` is a term-position symbol.
    Tester,
    /// `(as t S)`.
    As,
    /// A list in sort position before its head.
    SortList,
    /// A list sort after its head.
    Sort,
    /// Copied token by token.
    Raw,
}

/// The attribute whose value comes next in an [`Ctx::Annot`] frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Attr {
    None,
    Named,
    Pattern,
    NoPattern,
    Other,
}

#[derive(Clone, Copy, Debug)]
pub(super) struct Frame {
    ctx: Ctx,
    /// Children seen so far.
    pos: u32,
    /// Binders opened by this frame (`let`, quantifiers).
    binds: u32,
    /// Binding lists: where their names start in `Renderer::names`.
    mark: u32,
    attr: Attr,
}

/// What one child of the top frame is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    Term,
    Sort,
    Raw,
    /// A variable being bound (printed now, bound when its list closes).
    BindName,
    /// The name after `:named`.
    Named,
    /// A list of the given kind (an atom there is an error).
    List(Ctx),
    /// A keyword or value in an attribute list.
    Attribute,
    GiveUp,
}

/// Reserved words that start a special term form.
fn special(word: &[u8]) -> Option<Ctx> {
    Some(match word {
        b"let" => Ctx::Let,
        b"forall" | b"exists" | b"lambda" => Ctx::Quant,
        b"!" => Ctx::Annot,
        b"_" => Ctx::Index,
        b"as" => Ctx::As,
        _ => return None,
    })
}

impl Renderer {
    /// Render an `assert` in one pass; false when the command needs the
    /// tree path (see the module doc). On false, `out` may hold part of
    /// the command and the caller discards it.
    pub(super) fn render_stream(&mut self, text: &[u8], out: &mut Vec<u8>) -> bool {
        if command_head(text) != Some(&b"assert"[..]) {
            return false; // not worth classifying the command's bytes
        }
        let mut frames = std::mem::take(&mut self.frames);
        frames.clear();
        self.names.clear();
        self.undo.clear();
        let mut maps = std::mem::take(&mut self.bitmaps);
        let done = match BitLexer::new(text, &mut maps) {
            Some(lx) => self.stream(text, lx, &mut frames, out),
            None => self.stream(text, Lexer::new(text), &mut frames, out),
        };
        self.bitmaps = maps;
        if !done {
            self.tab.unbind_all();
            for &(i, flags) in self.undo.iter().rev() {
                self.tab.restore_flags(i, flags);
            }
        }
        self.frames = frames;
        done
    }

    fn stream<L>(
        &mut self,
        text: &[u8],
        mut lx: L,
        frames: &mut Vec<Frame>,
        out: &mut Vec<u8>,
    ) -> bool
    where
        L: Iterator<Item = Result<Token, OffsetError>> + Clone,
    {
        match (lx.next(), lx.next()) {
            (Some(Ok(o)), Some(Ok(h)))
                if o.kind == TokenKind::Open
                    && h.kind == TokenKind::Symbol
                    && h.bytes(text) == b"assert" => {}
            _ => return false,
        }
        out.extend_from_slice(b"(assert");
        self.space = true;
        frames.push(Frame {
            ctx: Ctx::Assert,
            pos: 1,
            binds: 0,
            mark: 0,
            attr: Attr::None,
        });
        while let Some(tok) = lx.next() {
            let Ok(tok) = tok else { return false };
            let Some(top) = frames.last_mut() else {
                return false; // a token after the command's `)`
            };
            if tok.kind == TokenKind::Close {
                let f = *top;
                frames.pop();
                if !self.close(text, f, frames) {
                    return false;
                }
                out.push(b')');
                self.space = true;
                continue;
            }
            let bytes = tok.bytes(text);
            let pos = top.pos;
            top.pos += 1;
            // The head of a list in term or sort position decides its kind.
            if top.ctx == Ctx::TermList && pos == 0 {
                match tok.kind {
                    TokenKind::Symbol => match special(bytes) {
                        Some(ctx) => {
                            top.ctx = ctx;
                            self.put(bytes, out);
                            continue;
                        }
                        None if matches!(bytes, b"match" | b"par") => return false,
                        None => {
                            top.ctx = Ctx::App;
                            self.put_term_bytes(bytes, out);
                            continue;
                        }
                    },
                    TokenKind::QuotedSymbol => {
                        top.ctx = Ctx::App;
                        self.put_term_bytes(bytes, out);
                        continue;
                    }
                    TokenKind::Open => top.ctx = Ctx::App, // the head is a term
                    _ => return false,
                }
            } else if top.ctx == Ctx::SortList && pos == 0 {
                if tok.kind == TokenKind::Symbol && bytes == b"_" {
                    top.ctx = Ctx::Raw;
                    self.put(bytes, out);
                    continue;
                }
                top.ctx = Ctx::Sort;
            } else if top.ctx == Ctx::Index && pos == 1 && tok.kind == TokenKind::Symbol {
                // `(_ is C)` exactly: C is renamed; any other `_` is copied.
                if bytes == b"is" && tester_follows(lx.clone()) {
                    top.ctx = Ctx::Tester;
                }
            }
            let role = role(frames.last_mut().expect("a frame"), pos, tok.kind, bytes);
            if tok.kind == TokenKind::Open {
                let ctx = match role {
                    Role::Term => Ctx::TermList,
                    Role::Sort => Ctx::SortList,
                    Role::Raw => Ctx::Raw,
                    Role::List(ctx) => ctx,
                    _ => return false,
                };
                let mark = self.names.len() as u32;
                frames.push(Frame {
                    ctx,
                    pos: 0,
                    binds: 0,
                    mark,
                    attr: Attr::None,
                });
                if self.space {
                    out.push(b' ');
                }
                out.push(b'(');
                self.space = false;
                continue;
            }
            let symbol = matches!(tok.kind, TokenKind::Symbol | TokenKind::QuotedSymbol);
            match role {
                Role::Term if symbol => self.put_term_bytes(bytes, out),
                Role::Term | Role::Raw | Role::Attribute => self.put(bytes, out),
                Role::Sort if symbol => self.put_sort_bytes(bytes, out),
                Role::BindName if symbol => {
                    self.put_name_bytes(bytes, out);
                    self.names.push((tok.start as u32, tok.end as u32));
                }
                Role::Named if symbol => {
                    let i = self.put_name_bytes(bytes, out);
                    self.undo.push((i, self.tab.flags_of(i)));
                    self.tab.set_fun(i);
                }
                _ => return false,
            }
        }
        frames.is_empty()
    }

    /// The list `f` has just closed (`frames` holds its ancestors): check
    /// its arity and open or close its binders. False on a malformed list.
    fn close(&mut self, text: &[u8], f: Frame, frames: &mut [Frame]) -> bool {
        let n = f.pos;
        match f.ctx {
            Ctx::Assert => n == 2,
            Ctx::TermList | Ctx::SortList => false, // `()`
            Ctx::App => n >= 2,
            Ctx::Let | Ctx::Quant => {
                self.tab.unbind(f.binds as usize);
                n == 3
            }
            Ctx::Binding | Ctx::SortedVar => n == 2,
            Ctx::As => n == 3,
            Ctx::Bindings | Ctx::SortedVars => {
                // Bound after the whole list: a `let` is parallel.
                let from = f.mark as usize;
                for &(start, end) in &self.names[from..] {
                    let name = normalize_bytes(&text[start as usize..end as usize]);
                    self.tab.bind(name, false);
                }
                let bound = (self.names.len() - from) as u32;
                self.names.truncate(from);
                match frames.last_mut() {
                    Some(parent) => {
                        parent.binds = bound;
                        true
                    }
                    None => false,
                }
            }
            Ctx::Annot => n >= 2,
            Ctx::Pattern | Ctx::Index | Ctx::Tester | Ctx::Sort | Ctx::Raw => true,
        }
    }
}

/// After `(_ is`: whether exactly one symbol and `)` follow.
fn tester_follows(mut lx: impl Iterator<Item = Result<Token, OffsetError>>) -> bool {
    matches!(
        (lx.next(), lx.next()),
        (Some(Ok(c)), Some(Ok(e)))
            if c.is_symbol() && e.kind == TokenKind::Close
    )
}

/// The role of child number `pos` of frame `f`, a token of kind `kind`.
#[inline(always)]
fn role(f: &mut Frame, pos: u32, kind: TokenKind, bytes: &[u8]) -> Role {
    match f.ctx {
        Ctx::Assert => {
            if pos == 1 {
                Role::Term
            } else {
                Role::GiveUp
            }
        }
        Ctx::App | Ctx::Pattern => Role::Term,
        Ctx::Let => match pos {
            1 => Role::List(Ctx::Bindings),
            2 => Role::Term,
            _ => Role::GiveUp,
        },
        Ctx::Bindings => Role::List(Ctx::Binding),
        Ctx::Binding => match pos {
            0 => Role::BindName,
            1 => Role::Term,
            _ => Role::GiveUp,
        },
        Ctx::Quant => match pos {
            1 => Role::List(Ctx::SortedVars),
            2 => Role::Term,
            _ => Role::GiveUp,
        },
        Ctx::SortedVars => Role::List(Ctx::SortedVar),
        Ctx::SortedVar => match pos {
            0 => Role::BindName,
            1 => Role::Sort,
            _ => Role::GiveUp,
        },
        Ctx::Annot => {
            if pos == 1 {
                return Role::Term;
            }
            if kind == TokenKind::Keyword {
                f.attr = match bytes {
                    b":named" => Attr::Named,
                    b":pattern" => Attr::Pattern,
                    b":no-pattern" => Attr::NoPattern,
                    _ => Attr::Other,
                };
                return Role::Attribute;
            }
            let attr = std::mem::replace(&mut f.attr, Attr::None);
            match attr {
                Attr::None => Role::GiveUp,
                Attr::Named => Role::Named,
                Attr::Pattern => Role::List(Ctx::Pattern),
                Attr::NoPattern => Role::Term,
                Attr::Other => Role::Raw,
            }
        }
        Ctx::Index | Ctx::Raw => Role::Raw,
        Ctx::Tester => {
            if pos == 2 {
                Role::Term
            } else {
                Role::Raw
            }
        }
        Ctx::As => match pos {
            1 => Role::Term,
            2 => Role::Sort,
            _ => Role::GiveUp,
        },
        Ctx::Sort | Ctx::SortList => Role::Sort,
        Ctx::TermList => Role::Term, // the head is a list: a term
    }
}
