//! A checker's variant of a core-only benchmark, for checkers with a
//! narrower SMT-LIB dialect (`accepts_named = false`, `unsupported_commands`
//! in their definitions; boolector 1.5 is the case in point).
//!
//! [`adapt`] streams the core-only file once: rejected commands that only
//! set options or ask for output are dropped, `declare-const` becomes a
//! nullary `declare-fun`, and for a checker without `:named` every `:named`
//! attribute goes (with its `(! …)` wrapper when nothing else is in it).
//! A checker that rejects `define-fun` gets nullary definitions (what a
//! dropped assertion leaves behind for its named terms, see
//! [`super::defs`]) inlined: every later use of the name becomes the term.
//! A file that needs any other rejected command (`define-fun` with
//! parameters, `push`…), or refers to a named term by its name, is
//! [`NotApplicable`]: the check stage
//! records that instead of an answer. Variants are stored next to the core
//! as `cores/<hash>.<dialect id>.smt2` ([`store_variant`]), one per distinct
//! set of restrictions.

use crate::smtlib::lexer::{Lexer, Token, TokenKind};
use crate::smtlib::scanner::Scanner;
use anyhow::{Context, Result};
use std::collections::{HashMap, HashSet};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// What a checker's parser cannot take ([`crate::checkers::SolverDef`]'s
/// `accepts_named = false` and `unsupported_commands`), as far as a
/// core-only benchmark is concerned.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Dialect {
    /// Whether `(! t :named n)` may stay.
    pub accepts_named: bool,
    /// Commands the checker rejects, sorted and unique.
    pub rejected: Vec<String>,
}

/// Why a core-only benchmark cannot be given to a checker at all.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NotApplicable {
    /// The script needs this rejected command (`define-fun`, `push`…).
    Command { command: String, line: u64 },
    /// A `:named` term is referred to by its name later on, so the name
    /// cannot be removed for a checker that rejects `:named`.
    NameUsed { name: String, line: u64 },
}

impl std::fmt::Display for NotApplicable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NotApplicable::Command { command, line } => {
                write!(
                    f,
                    "line {line}: needs `{command}`, which the checker rejects"
                )
            }
            NotApplicable::NameUsed { name, line } => write!(
                f,
                "line {line}: refers to the :named term `{name}`, and the checker rejects :named"
            ),
        }
    }
}

/// What [`adapt`] did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Adapted {
    /// The script suits the checker as it is (nothing was written).
    Unchanged,
    /// A variant was written: this many commands dropped, `declare-const`s
    /// rewritten and `:named` attributes removed.
    Changed {
        dropped: u64,
        rewritten: u64,
        names_removed: u64,
    },
    /// The checker cannot be given this script (partial output: discard it).
    NotApplicable(NotApplicable),
}

impl Dialect {
    /// The restrictions of `accepts_named` and a list of rejected commands;
    /// `None` when there are none.
    pub fn new(accepts_named: bool, rejected: &[String]) -> Option<Dialect> {
        let mut rejected = rejected.to_vec();
        rejected.sort();
        rejected.dedup();
        (!accepts_named || !rejected.is_empty()).then_some(Dialect {
            accepts_named,
            rejected,
        })
    }

    fn rejects(&self, command: &str) -> bool {
        self.rejected
            .binary_search_by(|c| c.as_str().cmp(command))
            .is_ok()
    }

    /// A short stable id of the restrictions, for variant file names:
    /// checkers with the same restrictions share one variant.
    pub fn id(&self) -> String {
        let mut h = blake3::Hasher::new();
        h.update(if self.accepts_named {
            b"named\n"
        } else {
            b"no-named\n"
        });
        for c in &self.rejected {
            h.update(c.as_bytes());
            h.update(b"\n");
        }
        h.finalize().to_hex()[..12].to_string()
    }
}

/// Commands that only set options or ask for output: a checker that
/// rejects them gets the script without them (its answer does not depend
/// on them).
fn droppable(head: &str) -> bool {
    head.starts_with("get-") || matches!(head, "set-option" | "set-info" | "echo")
}

/// Derive a checker's variant of a core-only benchmark: rejected option and
/// output commands dropped, `declare-const` rewritten as a nullary
/// `declare-fun`, and (for a checker without `:named`) every `:named`
/// attribute removed, with its `(! …)` wrapper when nothing else is left in
/// it. A script that needs another rejected command, or refers to a named
/// term by its name, is [`Adapted::NotApplicable`].
pub fn adapt<R: Read, W: Write>(core_only: R, mut out: W, d: &Dialect) -> Result<Adapted> {
    let mut sc = Scanner::new(core_only);
    let (mut dropped, mut rewritten, mut names_removed) = (0, 0, 0);
    let mut names: HashSet<Vec<u8>> = HashSet::new();
    let mut inlined: HashMap<Vec<u8>, Vec<u8>> = HashMap::new();
    while let Some(cmd) = sc.next_command().map_err(|e| anyhow::anyhow!("{e}"))? {
        out.write_all(sc.gap())?;
        let head = cmd.head();
        let cmd_text = match inline(&cmd.text, &inlined)? {
            Ok(t) => t,
            Err(()) => {
                return Ok(Adapted::NotApplicable(NotApplicable::Command {
                    command: "define-fun".into(),
                    line: cmd.line,
                }))
            }
        };
        if d.rejects(head) {
            if droppable(head) {
                dropped += 1;
                continue;
            }
            if head == "define-fun" {
                if let Some((name, body)) = nullary_definition(&cmd_text)? {
                    let body = if d.accepts_named {
                        body
                    } else {
                        match strip_named(&body, &mut names)? {
                            Ok((t, _)) => t.into_owned(),
                            Err(name) => {
                                return Ok(Adapted::NotApplicable(NotApplicable::NameUsed {
                                    name,
                                    line: cmd.line,
                                }))
                            }
                        }
                    };
                    inlined.insert(name, body);
                    rewritten += 1;
                    continue;
                }
            }
            if head != "declare-const" {
                return Ok(Adapted::NotApplicable(NotApplicable::Command {
                    command: head.to_string(),
                    line: cmd.line,
                }));
            }
        }
        let text = if d.accepts_named {
            std::borrow::Cow::Borrowed(&cmd_text[..])
        } else {
            match strip_named(&cmd_text, &mut names)? {
                Ok((t, n)) => {
                    names_removed += n;
                    t
                }
                Err(name) => {
                    return Ok(Adapted::NotApplicable(NotApplicable::NameUsed {
                        name,
                        line: cmd.line,
                    }))
                }
            }
        };
        if head == "declare-const" && d.rejects(head) {
            rewritten += 1;
            out.write_all(&declare_const_as_fun(&text)?)?;
        } else {
            out.write_all(&text)?;
        }
    }
    out.write_all(sc.gap())?;
    out.flush()?;
    Ok(if dropped + rewritten + names_removed == 0 {
        Adapted::Unchanged
    } else {
        Adapted::Changed {
            dropped,
            rewritten,
            names_removed,
        }
    })
}

/// `(define-fun N () S t)` → (N in normal form, t); `None` for a
/// definition with parameters.
fn nullary_definition(text: &[u8]) -> Result<Option<(Vec<u8>, Vec<u8>)>> {
    let toks = tokens(text)?;
    // ( define-fun N ( ) S… t )
    if toks.len() < 7
        || !toks[2].is_symbol()
        || toks[3].kind != TokenKind::Open
        || toks[4].kind != TokenKind::Close
    {
        return Ok(None);
    }
    let body = skip_item(&toks, 5);
    if body + 1 >= toks.len() {
        return Ok(None);
    }
    let end = skip_item(&toks, body) - 1;
    Ok(Some((
        toks[2].symbol(text).to_vec(),
        text[toks[body].start..toks[end].end].to_vec(),
    )))
}

/// Every use of an inlined name in `text` replaced by its term;
/// `Err(())` when such a name is bound again (`(let ((N …`, `((N Sort)`),
/// where replacing it would change the meaning.
#[allow(clippy::type_complexity)]
fn inline<'t>(
    text: &'t [u8],
    inlined: &HashMap<Vec<u8>, Vec<u8>>,
) -> Result<std::result::Result<std::borrow::Cow<'t, [u8]>, ()>> {
    if inlined.is_empty() {
        return Ok(Ok(std::borrow::Cow::Borrowed(text)));
    }
    let toks = tokens(text)?;
    let mut out = Vec::new();
    let mut pos = 0;
    for (k, t) in toks.iter().enumerate() {
        let Some(body) = t.is_symbol().then(|| inlined.get(t.symbol(text))).flatten() else {
            continue;
        };
        if k > 0 && toks[k - 1].kind == TokenKind::Open {
            return Ok(Err(())); // a binder (or an application of a constant)
        }
        out.extend_from_slice(&text[pos..t.start]);
        out.extend_from_slice(body);
        pos = t.end;
    }
    if pos == 0 {
        return Ok(Ok(std::borrow::Cow::Borrowed(text)));
    }
    out.extend_from_slice(&text[pos..]);
    Ok(Ok(std::borrow::Cow::Owned(out)))
}

/// `(declare-const x S)` → `(declare-fun x () S)`.
fn declare_const_as_fun(text: &[u8]) -> Result<Vec<u8>> {
    let toks = tokens(text)?;
    // ( declare-const x S… )
    anyhow::ensure!(
        toks.len() >= 5 && toks[2].is_symbol(),
        "malformed declare-const: {}",
        String::from_utf8_lossy(text)
    );
    let sort = &text[toks[3].start..toks[toks.len() - 1].start];
    let mut v = b"(declare-fun ".to_vec();
    v.extend_from_slice(toks[2].bytes(text));
    v.extend_from_slice(b" () ");
    v.extend_from_slice(sort.trim_ascii_end());
    v.push(b')');
    Ok(v)
}

fn tokens(text: &[u8]) -> Result<Vec<Token>> {
    Lexer::new(text)
        .collect::<std::result::Result<Vec<_>, _>>()
        .map_err(|e| anyhow::anyhow!("{e}"))
}

/// Index just past the balanced item (one token or one list) at `i`.
pub(super) fn skip_item(toks: &[Token], mut i: usize) -> usize {
    let mut depth = 0i64;
    while i < toks.len() {
        match toks[i].kind {
            TokenKind::Open => depth += 1,
            TokenKind::Close => depth -= 1,
            _ => {}
        }
        i += 1;
        if depth <= 0 {
            break;
        }
    }
    i
}

/// The nesting of a command's tokens, found in one pass, so that each
/// named term costs what it holds, not what encloses it: [`skip_item`]
/// from every `(!` of a chain nested 100 000 deep walked it 100 000 times
/// (here and in `defs.rs`).
pub(super) struct Nest {
    /// The index after the item that starts at each token (after the
    /// matching `)` of a `(`), as [`skip_item`] finds it.
    pub(super) end: Vec<usize>,
    /// The `(` of the list around each token (`usize::MAX`: none).
    pub(super) parent: Vec<usize>,
}

impl Nest {
    pub(super) fn of(toks: &[Token]) -> Nest {
        let n = toks.len();
        let (mut end, mut parent) = (vec![n; n], vec![usize::MAX; n]);
        let mut open = Vec::new();
        for (i, t) in toks.iter().enumerate() {
            parent[i] = open.last().copied().unwrap_or(usize::MAX);
            match t.kind {
                TokenKind::Open => open.push(i),
                TokenKind::Close => {
                    if let Some(o) = open.pop() {
                        end[o] = i + 1;
                    }
                    end[i] = i + 1;
                }
                _ => end[i] = i + 1,
            }
        }
        Nest { end, parent }
    }

    pub(super) fn end(&self, i: usize) -> usize {
        self.end.get(i).copied().unwrap_or(i + 1)
    }
}

/// Remove the `:named` attributes of one command. `names` holds the names
/// removed so far; a later use of one of them is `Err(name)`.
#[allow(clippy::type_complexity)]
pub(super) fn strip_named<'t>(
    text: &'t [u8],
    names: &mut HashSet<Vec<u8>>,
) -> Result<std::result::Result<(std::borrow::Cow<'t, [u8]>, u64), String>> {
    let toks = tokens(text)?;
    let nest = Nest::of(&toks);
    let mut cuts: Vec<(usize, usize)> = Vec::new();
    let mut removed = 0;
    let mut i = 0;
    while i < toks.len() {
        let t = toks[i];
        if t.kind == TokenKind::Keyword
            && t.bytes(text) == b":named"
            && toks.get(i + 1).is_some_and(|n| n.is_symbol())
        {
            names.insert(toks[i + 1].symbol(text).to_vec());
            i += 2;
            continue;
        }
        if t.is_symbol() && names.contains(t.symbol(text)) {
            return Ok(Err(String::from_utf8_lossy(t.symbol(text)).into_owned()));
        }
        if t.kind == TokenKind::Open
            && toks
                .get(i + 1)
                .is_some_and(|b| b.kind == TokenKind::Symbol && b.bytes(text) == b"!")
        {
            let term_end = nest.end(i + 2);
            let close = nest.end(i) - 1;
            // Attributes: a keyword and an optional value.
            let (mut k, mut kept, mut named_cuts) = (term_end, 0, Vec::new());
            while k < close {
                let value_end = match toks.get(k + 1) {
                    Some(v) if k + 1 < close && v.kind != TokenKind::Keyword => nest.end(k + 1),
                    _ => k + 1,
                };
                if toks[k].bytes(text) == b":named" && value_end == k + 2 {
                    named_cuts.push((toks[k - 1].end, toks[k + 1].end));
                } else {
                    kept += 1;
                }
                k = value_end;
            }
            if !named_cuts.is_empty() {
                removed += named_cuts.len() as u64;
                if kept == 0 {
                    cuts.push((t.start, toks[i + 2].start));
                    cuts.push((toks[term_end - 1].end, toks[close].end));
                } else {
                    cuts.extend(named_cuts);
                }
            }
        }
        i += 1;
    }
    if cuts.is_empty() {
        return Ok(Ok((std::borrow::Cow::Borrowed(text), 0)));
    }
    cuts.sort();
    let mut out = Vec::with_capacity(text.len());
    let mut pos = 0;
    for (s, e) in cuts {
        if s >= pos {
            out.extend_from_slice(&text[pos..s]);
            pos = e;
        }
    }
    out.extend_from_slice(&text[pos..]);
    Ok(Ok((std::borrow::Cow::Owned(out), removed)))
}

/// [`adapt`] a stored core-only benchmark `cores/<hash>.smt2` into
/// `cores/<hash>.<dialect id>.smt2` (written once). Returns the file to give
/// the checker (the original when nothing changes), or why there is none.
pub fn store_variant(
    core_path: &Path,
    d: &Dialect,
) -> Result<std::result::Result<PathBuf, NotApplicable>> {
    let variant = core_path.with_extension(format!("{}.smt2", d.id()));
    if variant.exists() {
        return Ok(Ok(variant));
    }
    let file = std::fs::File::open(core_path)
        .with_context(|| format!("cannot read {}", core_path.display()))?;
    let mut bytes = Vec::new();
    let adapted = adapt(
        std::io::BufReader::with_capacity(1 << 20, file),
        &mut bytes,
        d,
    )
    .with_context(|| format!("cannot adapt {}", core_path.display()))?;
    Ok(match adapted {
        Adapted::Unchanged => Ok(core_path.to_path_buf()),
        Adapted::Changed { .. } => {
            crate::store::journal::write_atomic(&variant, &bytes)?;
            Ok(variant)
        }
        Adapted::NotApplicable(why) => Err(why),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn boolector() -> Dialect {
        let rejected: Vec<String> = [
            "set-option",
            "declare-const",
            "define-fun",
            "get-model",
            "get-value",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        Dialect::new(false, &rejected).unwrap()
    }

    fn adapted(src: &str, d: &Dialect) -> (String, Adapted) {
        let mut out = Vec::new();
        let a = adapt(src.as_bytes(), &mut out, d).unwrap();
        (String::from_utf8(out).unwrap(), a)
    }

    #[test]
    fn variant_drops_options_and_rewrites_declare_const() {
        let src = "; keep me\n(set-option :print-success false)\n(set-logic QF_BV)\n\
(declare-const x (_ BitVec 4))\n(declare-const |y z| (_ BitVec 4) )\n\
(assert (! (= x (bvadd x #x1)) :named u1))\n(assert (and (! (= x |y z|) :pattern (x) :named n2) true))\n\
(check-sat)\n(get-model)\n(exit)\n";
        let (out, a) = adapted(src, &boolector());
        assert_eq!(
            a,
            Adapted::Changed {
                dropped: 2,
                rewritten: 2,
                names_removed: 2
            }
        );
        assert_eq!(
            out,
            "; keep me\n\n(set-logic QF_BV)\n(declare-fun x () (_ BitVec 4))\n(declare-fun |y z| () (_ BitVec 4))\n\
(assert (= x (bvadd x #x1)))\n(assert (and (! (= x |y z|) :pattern (x)) true))\n(check-sat)\n\n(exit)\n"
        );
    }

    #[test]
    fn variant_not_applicable_when_a_rejected_command_is_needed() {
        let src = "(set-logic QF_BV)\n(declare-fun x () (_ BitVec 4))\n\
(define-fun two ((y (_ BitVec 4))) (_ BitVec 4) y)\n(assert (= x (two x)))\n(check-sat)\n";
        let (_, a) = adapted(src, &boolector());
        assert_eq!(
            a,
            Adapted::NotApplicable(NotApplicable::Command {
                command: "define-fun".into(),
                line: 3
            })
        );
        let msg = NotApplicable::Command {
            command: "define-fun".into(),
            line: 3,
        }
        .to_string();
        assert!(
            msg.contains("line 3") && msg.contains("define-fun"),
            "{msg}"
        );
    }

    #[test]
    fn nullary_definitions_are_inlined_for_a_checker_without_define_fun() {
        let src = "(set-logic QF_BV)\n(declare-fun x () (_ BitVec 4))\n\
(define-fun foo () Bool (= x #x5))\n(assert (or foo (= x #x6)))\n(assert (not |foo|))\n(check-sat)\n";
        let (out, a) = adapted(src, &boolector());
        assert_eq!(
            a,
            Adapted::Changed {
                dropped: 0,
                rewritten: 1,
                names_removed: 0
            }
        );
        assert_eq!(
            out,
            "(set-logic QF_BV)\n(declare-fun x () (_ BitVec 4))\n\n\
(assert (or (= x #x5) (= x #x6)))\n(assert (not (= x #x5)))\n(check-sat)\n"
        );
        // Bound again by a `let`: not inlined, not applicable.
        let shadow =
            "(set-logic QF_BV)\n(define-fun foo () Bool true)\n(assert (let ((foo false)) foo))\n";
        assert!(matches!(
            adapted(shadow, &boolector()).1,
            Adapted::NotApplicable(NotApplicable::Command { line: 3, .. })
        ));
    }

    #[test]
    fn variant_not_applicable_when_a_name_is_used_as_a_term() {
        let src = "(set-logic QF_LIA)\n(declare-fun x () Int)\n(assert (or (! (= x 5) :named foo) (= x 6)))\n\
(assert (= |foo| (= x 7)))\n(check-sat)\n";
        let (_, a) = adapted(src, &boolector());
        assert_eq!(
            a,
            Adapted::NotApplicable(NotApplicable::NameUsed {
                name: "foo".into(),
                line: 4
            })
        );
        // A checker that takes :named needs no change at all.
        let d = Dialect::new(true, &["get-model".to_string()]).unwrap();
        assert_eq!(adapted(src, &d).1, Adapted::Unchanged);
    }

    #[test]
    fn dialects_of_unrestricted_checkers_and_ids() {
        assert!(Dialect::new(true, &[]).is_none());
        let a = Dialect::new(false, &["b".to_string(), "a".to_string(), "a".to_string()]).unwrap();
        let b = Dialect::new(false, &["a".to_string(), "b".to_string()]).unwrap();
        assert_eq!(a.id(), b.id(), "order and duplicates do not matter");
        assert_ne!(
            a.id(),
            Dialect::new(true, &["a".to_string(), "b".to_string()])
                .unwrap()
                .id()
        );
    }

    #[test]
    fn stored_variants_sit_next_to_the_core() {
        let dir = tempfile::tempdir().unwrap();
        let core = dir.path().join("abc.smt2");
        std::fs::write(&core, "(set-option :a 1)\n(set-logic QF_BV)\n(declare-const x Bool)\n(assert x)\n(check-sat)\n").unwrap();
        let v = store_variant(&core, &boolector()).unwrap().unwrap();
        assert_eq!(v, dir.path().join(format!("abc.{}.smt2", boolector().id())));
        assert_eq!(
            std::fs::read_to_string(&v).unwrap(),
            "\n(set-logic QF_BV)\n(declare-fun x () Bool)\n(assert x)\n(check-sat)\n"
        );
        let plain = Dialect::new(true, &["push".to_string()]).unwrap();
        assert_eq!(
            store_variant(&core, &plain).unwrap().unwrap(),
            core,
            "nothing to change: the core itself"
        );
    }
}
