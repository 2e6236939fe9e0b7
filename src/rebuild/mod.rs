//! Core-only benchmarks: a named benchmark and a reported core in, the
//! benchmark restricted to the core's assertions out.
//!
//! The rebuild streams the named file through the scanner and keeps every
//! command but the assertions whose names are not in the core (names compared
//! in normal form, so `|a1|` ≡ `a1`), the naming option
//! `:produce-unsat-cores`, `(get-unsat-core)` and the `:status` (which is
//! what the checkers decide, see [`rebuild`]). It keeps declarations,
//! definitions, `set-info`, `set-logic`, comments and every annotation the
//! benchmark itself carries (`:pattern` included — the official tool dropped
//! them). The `(! t :named N)` wrapper that coreval's naming added is taken
//! off again (`(assert t)`), so the bytes depend only on *which* assertions
//! are kept: identical cores from different solvers, in any order and any
//! quoting, give identical files, stored once under the hash of their bytes
//! ([`store`]) and checked once.
//!
//! A checker with a narrower dialect ([`Dialect`]: no `:named`, rejected
//! commands, as boolector 1.5) gets a variant of that file ([`adapt`],
//! [`store_variant`]): option and output commands dropped, `declare-const`
//! as a nullary `declare-fun`, `:named` attributes removed; a file that
//! needs another rejected command is [`NotApplicable`] to that checker.
//!
//! A dropped assertion whose `:named` term another command refers to by
//! name leaves that definition behind as a `define-fun` ([`defs`]).

mod defs;
mod dialect;

pub use defs::{referenced, Referenced};

pub use dialect::{adapt, store_variant, Adapted, Dialect, NotApplicable};

use crate::smtlib::lexer::{Lexer, Token, TokenKind};
use crate::smtlib::scanner::{Command, Scanner};
use crate::smtlib::symbol;
use anyhow::{Context, Result};
use std::collections::HashSet;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// What a rebuild kept.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RebuildStats {
    /// Named assertions kept (in the core).
    pub kept: u64,
    /// Named assertions dropped.
    pub dropped: u64,
    /// Assertions without a top-level name (always kept).
    pub unnamed: u64,
}

/// The top-level name of an assertion `(assert (! t … :named N …))`, and
/// the span of `t` when the `!` carries nothing but that one `:named`.
pub struct AssertName {
    pub name: String,
    /// Span of `t` in the command text when the wrapper can be taken off.
    pub bare_term: Option<(usize, usize)>,
}

/// Find the top-level `:named` of an assert command's text.
pub fn assert_name(text: &[u8]) -> Option<AssertName> {
    let toks: Vec<Token> = Lexer::new(text)
        .collect::<std::result::Result<_, _>>()
        .ok()?;
    // ( assert ( ! t attrs… ) )
    if toks.len() < 7
        || toks[2].kind != TokenKind::Open
        || toks[3].kind != TokenKind::Symbol
        || toks[3].bytes(text) != b"!"
        || toks[toks.len() - 2].kind != TokenKind::Close
    {
        return None;
    }
    // Skip t (one token or one balanced list): the attributes start there.
    let i = dialect::skip_item(&toks, 4);
    if i > toks.len() - 2 {
        return None;
    }
    let term_end = toks[i - 1].end;
    let attrs = &toks[i..toks.len() - 2];
    let mut name = None;
    let mut k = 0;
    let mut attr_count = 0;
    while k < attrs.len() {
        if attrs[k].kind == TokenKind::Keyword {
            attr_count += 1;
            if attrs[k].bytes(text) == b":named" && attrs.get(k + 1).is_some_and(|t| t.is_symbol())
            {
                name = Some(String::from_utf8_lossy(attrs[k + 1].symbol(text)).into_owned());
            }
        }
        k += 1;
    }
    let name = name?;
    let bare_term = (attr_count == 1 && attrs.len() == 2).then_some((toks[4].start, term_end));
    Some(AssertName { name, bare_term })
}

/// True when the command states the benchmark's `:status`: a core-only
/// benchmark's status is what the checkers decide (cvc5 1.0.3 aborts with
/// "Expected result unsat but got sat" on a refuted core that keeps
/// `:status unsat`, printing no answer; z3 adds an error).
fn is_status(cmd: &Command) -> bool {
    cmd.head() == "set-info" && {
        let (s, e) = cmd.args_span();
        let args = &cmd.text[s..e];
        args.starts_with(b":status") && args.get(7).is_none_or(|b| b.is_ascii_whitespace())
    }
}

/// True when the command sets `:produce-unsat-cores`.
fn is_core_option(cmd: &Command) -> bool {
    cmd.head() == "set-option" && {
        let (s, e) = cmd.args_span();
        cmd.text[s..e].starts_with(b":produce-unsat-cores")
    }
}

/// Rebuild the core-only benchmark. `core` holds normal-form names;
/// `own_name` tells which names coreval's naming added (their wrapper is
/// removed). A name in the core that is no assertion's is ignored here: the
/// verdict stage flags it before any rebuild.
pub fn rebuild<R: Read, W: Write>(
    named: R,
    out: W,
    core: &HashSet<String>,
    own_name: &dyn Fn(&str) -> bool,
) -> Result<RebuildStats> {
    rebuild_defining(named, out, core, own_name, &Referenced::default())
}

/// [`rebuild`], where a dropped assertion leaves behind the definitions of
/// its named terms that are in `referenced` (see [`referenced`]).
pub fn rebuild_defining<R: Read, W: Write>(
    named: R,
    mut out: W,
    core: &HashSet<String>,
    own_name: &dyn Fn(&str) -> bool,
    referenced: &Referenced,
) -> Result<RebuildStats> {
    let mut sc = Scanner::new(named);
    let mut stats = RebuildStats::default();
    while let Some(cmd) = sc.next_command()? {
        out.write_all(sc.gap())?;
        match cmd.head() {
            "get-unsat-core" => continue,
            "set-option" if is_core_option(&cmd) => continue,
            "set-info" if is_status(&cmd) => continue,
            "assert" => match assert_name(&cmd.text) {
                None => {
                    stats.unnamed += 1;
                    out.write_all(&cmd.text)?;
                }
                Some(n) if !core.contains(symbol::normalize(&n.name)) => {
                    stats.dropped += 1;
                    defs::leave_definitions(&cmd.text, referenced, &mut out)?;
                }
                Some(n) => {
                    stats.kept += 1;
                    match n.bare_term {
                        Some((s, e)) if own_name(&n.name) => {
                            out.write_all(b"(assert ")?;
                            out.write_all(&cmd.text[s..e])?;
                            out.write_all(b")")?;
                        }
                        _ => out.write_all(&cmd.text)?,
                    }
                }
            },
            _ => out.write_all(&cmd.text)?,
        }
    }
    out.write_all(sc.gap())?;
    out.flush()?;
    Ok(stats)
}

/// Rebuild into the content-addressed store `dir`: the file is named by the
/// BLAKE3 hash of its bytes. Returns the hash, the path and the stats; an
/// existing file with that hash is left as it is.
///
/// `names_used`: whether the benchmark may use a named term by its name
/// (it has nested names, or top-level names of its own); only then is it
/// read twice, first for [`referenced`].
pub fn store(
    named_path: &Path,
    dir: &Path,
    core: &HashSet<String>,
    own_name: &dyn Fn(&str) -> bool,
    names_used: bool,
) -> Result<(String, PathBuf, RebuildStats)> {
    let open = || {
        std::fs::File::open(named_path)
            .map(|f| std::io::BufReader::with_capacity(1 << 20, f))
            .with_context(|| format!("cannot read {}", named_path.display()))
    };
    let mut bytes = Vec::new();
    let refs = match names_used {
        true => referenced(open()?, own_name),
        false => Ok(Referenced::default()),
    };
    let stats = refs
        .and_then(|refs| rebuild_defining(open()?, &mut bytes, core, own_name, &refs))
        .map_err(|e| match e.downcast_ref::<crate::smtlib::SyntaxError>() {
            Some(scan) => anyhow::anyhow!("cannot rebuild a core: {}", scan.in_file(named_path)),
            None => e.context(format!("cannot rebuild a core of {}", named_path.display())),
        })?;
    let hash = blake3::hash(&bytes).to_hex().to_string();
    let path = dir.join(format!("{hash}.smt2"));
    if !path.exists() {
        crate::store::journal::write_atomic(&path, &bytes)?;
    }
    Ok((hash, path, stats))
}

/// `own_name` for names made of `prefix` and a number, as naming writes them.
pub fn numbered_with(prefix: &str) -> impl Fn(&str) -> bool + '_ {
    move |n: &str| {
        n.strip_prefix(prefix)
            .is_some_and(|rest| !rest.is_empty() && rest.bytes().all(|b| b.is_ascii_digit()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NAMED: &str =
        "; c\n(set-option :produce-unsat-cores true)\n(set-logic UF)\n(set-info :status unsat)\n(set-info :status-x 1)\n(declare-fun p (Int) Bool)\n\
(assert (! (forall ((x Int)) (! (p x) :pattern ((p x)))) :named cv1))\n\
(assert (! (not (p 0)) :named cv2))\n(assert (! (= 1 1) :named cv3))\n(assert (> 2 1))\n\
(check-sat)\n(get-unsat-core)\n(exit)\n";

    fn run(core: &[&str]) -> (String, RebuildStats) {
        let core: HashSet<String> = core
            .iter()
            .map(|s| symbol::normalize(s).to_string())
            .collect();
        let mut out = Vec::new();
        let st = rebuild(NAMED.as_bytes(), &mut out, &core, &numbered_with("cv")).unwrap();
        (String::from_utf8(out).unwrap(), st)
    }

    #[test]
    fn keeps_core_assertions_and_annotations() {
        let (out, st) = run(&["cv1", "|cv2|"]);
        assert_eq!(
            st,
            RebuildStats {
                kept: 2,
                dropped: 1,
                unnamed: 1
            }
        );
        assert!(
            out.contains("(assert (forall ((x Int)) (! (p x) :pattern ((p x)))))"),
            "{out}"
        );
        assert!(out.contains("(assert (not (p 0)))"));
        assert!(!out.contains("(= 1 1)"));
        assert!(out.contains("(assert (> 2 1))"));
        assert!(!out.contains("produce-unsat-cores") && !out.contains("get-unsat-core"));
        assert!(!out.contains(":status unsat") && out.contains("(set-info :status-x 1)"));
        assert!(out.starts_with("; c\n(set-logic UF)") || out.starts_with("; c\n\n(set-logic UF)"));
        assert!(out.contains("(check-sat)") && out.contains("(exit)"));
    }

    #[test]
    fn order_and_quoting_do_not_change_the_bytes() {
        assert_eq!(run(&["cv2", "cv1"]).0, run(&["|cv1|", "cv2"]).0);
    }

    #[test]
    fn foreign_names_keep_their_wrapper() {
        let text = b"(assert (! (and a b) :named user))";
        let n = assert_name(text).unwrap();
        assert_eq!(n.name, "user");
        assert!(!numbered_with("cv")("user"));
        assert!(
            numbered_with("cv")("cv12")
                && !numbered_with("cv")("cv")
                && !numbered_with("cv")("cv1x")
        );
    }

    #[test]
    fn extra_attributes_block_unwrapping() {
        let n = assert_name(b"(assert (! p :weight 2 :named |a b|))").unwrap();
        assert_eq!(n.name, "a b");
        assert!(n.bare_term.is_none());
        assert!(assert_name(b"(assert (and (! p :named x) q))").is_none());
    }
}
