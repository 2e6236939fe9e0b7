//! The s-expression tree of one command, built without recursion.
//!
//! Renaming needs to know which symbol is a binder and which a use, and
//! commuting needs the argument lists of applications, so each command the
//! scrambler rewrites is turned into a flat arena of nodes: atoms point at a
//! token of the command's text, lists at a range of child indices. The
//! builder keeps an explicit stack of open lists, so a nesting depth of 10⁶
//! costs memory, not stack. Buffers are reused from command to command.

use crate::smtlib::bitlex::{BitLexer, Bitmaps};
use crate::smtlib::lexer::{Lexer, Token, TokenKind};
use crate::smtlib::OffsetError;

/// One node: an atom (a token) or a list of children.
#[derive(Clone, Copy, Debug)]
pub struct Node {
    /// Byte span in the command's text (for a list, from `(` to `)`).
    pub start: u32,
    pub end: u32,
    /// The token's kind; `Open` for a list.
    pub kind: TokenKind,
    /// Whether a `:named` attribute occurs in this subtree.
    pub named: bool,
    /// Children: `kids[first..first + len]` (lists only).
    pub first: u32,
    pub len: u32,
}

impl Node {
    pub fn is_list(&self) -> bool {
        self.kind == TokenKind::Open
    }
}

/// The arena. [`Tree::build`] fills it from a command's text.
#[derive(Default)]
pub struct Tree {
    pub nodes: Vec<Node>,
    kids: Vec<u32>,
    pending: Vec<u32>,
    frames: Vec<(u32, usize)>,
    bitmaps: Bitmaps,
}

impl Tree {
    /// Parse `text`, which must be exactly one balanced s-expression (the
    /// scanner guarantees it for a command). Returns the root's index.
    /// With `track_named` false the `named` flags are left false (the
    /// caller knows the text has no `:named`).
    pub fn build(&mut self, text: &[u8], track_named: bool) -> Result<u32, OffsetError> {
        if text.len() > u32::MAX as usize {
            return Err(OffsetError {
                offset: 0,
                message: "command longer than 4 GiB".into(),
            });
        }
        self.nodes.clear();
        self.kids.clear();
        self.pending.clear();
        self.frames.clear();
        let mut maps = std::mem::take(&mut self.bitmaps);
        let built = match BitLexer::new(text, &mut maps) {
            Some(tokens) => self.build_from(text, tokens, track_named),
            None => self.build_from(text, Lexer::new(text), track_named),
        };
        self.bitmaps = maps;
        built
    }

    fn build_from(
        &mut self,
        text: &[u8],
        tokens: impl Iterator<Item = Result<Token, OffsetError>>,
        track_named: bool,
    ) -> Result<u32, OffsetError> {
        for tok in tokens {
            let tok = tok.map_err(|e| OffsetError {
                offset: e.offset,
                message: e.message,
            })?;
            match tok.kind {
                TokenKind::Open => self.frames.push((tok.start as u32, self.pending.len())),
                TokenKind::Close => {
                    let Some((start, from)) = self.frames.pop() else {
                        return Err(OffsetError {
                            offset: tok.start,
                            message: "unbalanced ')'".into(),
                        });
                    };
                    let first = self.kids.len() as u32;
                    let mut named = false;
                    for &k in self.pending[from..].iter().filter(|_| track_named) {
                        let n = &self.nodes[k as usize];
                        named |= n.named
                            || (n.kind == TokenKind::Keyword
                                && &text[n.start as usize..n.end as usize] == b":named");
                    }
                    self.kids.extend(self.pending.drain(from..));
                    let id = self.nodes.len() as u32;
                    self.nodes.push(Node {
                        start,
                        end: tok.end as u32,
                        kind: TokenKind::Open,
                        named,
                        first,
                        len: self.kids.len() as u32 - first,
                    });
                    self.pending.push(id);
                }
                kind => {
                    let id = self.nodes.len() as u32;
                    self.nodes.push(Node {
                        start: tok.start as u32,
                        end: tok.end as u32,
                        kind,
                        named: false,
                        first: 0,
                        len: 0,
                    });
                    self.pending.push(id);
                }
            }
        }
        if let Some(&(start, _)) = self.frames.last() {
            return Err(OffsetError {
                offset: start as usize,
                message: "unbalanced '(': not closed".into(),
            });
        }
        match self.pending[..] {
            [root] => Ok(root),
            _ => Err(OffsetError {
                offset: 0,
                message: "expected exactly one s-expression".into(),
            }),
        }
    }

    pub fn node(&self, id: u32) -> &Node {
        &self.nodes[id as usize]
    }

    /// The children of a list node (empty for an atom).
    pub fn kids(&self, id: u32) -> &[u32] {
        let n = &self.nodes[id as usize];
        &self.kids[n.first as usize..(n.first + n.len) as usize]
    }

    /// Mutable children, to permute them.
    pub fn kids_mut(&mut self, id: u32) -> &mut [u32] {
        let n = self.nodes[id as usize];
        &mut self.kids[n.first as usize..(n.first + n.len) as usize]
    }

    /// The bytes of a node in `text`.
    pub fn bytes<'a>(&self, text: &'a [u8], id: u32) -> &'a [u8] {
        let n = &self.nodes[id as usize];
        &text[n.start as usize..n.end as usize]
    }

    /// True when the node is the unquoted symbol `word` (reserved words such
    /// as `let` or `!` are only recognised unquoted).
    pub fn is_word(&self, text: &[u8], id: u32, word: &[u8]) -> bool {
        let n = &self.nodes[id as usize];
        n.kind == TokenKind::Symbol && &text[n.start as usize..n.end as usize] == word
    }

    /// True for symbol and quoted-symbol atoms.
    pub fn is_symbol(&self, id: u32) -> bool {
        matches!(
            self.nodes[id as usize].kind,
            TokenKind::Symbol | TokenKind::QuotedSymbol
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn show(t: &Tree, text: &[u8], id: u32) -> String {
        // Iterative printer for the test (no recursion either).
        let mut out = String::new();
        let mut stack = vec![Some(id)];
        while let Some(item) = stack.pop() {
            match item {
                None => out.push(')'),
                Some(i) if t.node(i).is_list() => {
                    out.push('(');
                    stack.push(None);
                    for &k in t.kids(i).iter().rev() {
                        stack.push(Some(k));
                    }
                }
                Some(i) => {
                    out.push_str(std::str::from_utf8(t.bytes(text, i)).unwrap());
                    out.push(' ');
                }
            }
        }
        out
    }

    #[test]
    fn builds_lists_and_atoms() {
        let text = b"(assert (and x ; c\n (! |y z| :named n)))";
        let mut t = Tree::default();
        let root = t.build(text, true).unwrap();
        assert_eq!(show(&t, text, root), "(assert (and x (! |y z| :named n )))");
        assert!(t.node(root).named);
        let and = t.kids(root)[1];
        assert!(t.is_word(text, t.kids(and)[0], b"and"));
        assert!(!t.node(t.kids(and)[1]).named);
        assert!(t.node(t.kids(and)[2]).named);
    }

    #[test]
    fn deep_nesting_does_not_recurse() {
        let depth = 1_000_000;
        let mut text = Vec::with_capacity(depth * 6 + 20);
        text.extend_from_slice(b"(assert ");
        for _ in 0..depth {
            text.extend_from_slice(b"(not ");
        }
        text.push(b'p');
        text.extend(std::iter::repeat_n(b')', depth + 1));
        let mut t = Tree::default();
        let root = t.build(&text, true).unwrap();
        assert_eq!(t.kids(root).len(), 2);
        assert_eq!(t.nodes.len(), 2 * depth + 3);
    }

    #[test]
    fn reports_lexical_errors() {
        let mut t = Tree::default();
        let e = t.build(b"(assert |x)", true).unwrap_err();
        assert_eq!(e.offset, 8);
    }
}
