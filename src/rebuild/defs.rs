//! Names that outlive their assertion. `(! t :named foo)` defines `foo` as
//! `t` for the rest of the script, so another assertion may use `foo` as a
//! term. When the core drops the assertion that holds the definition but
//! keeps one that uses it, the core-only benchmark must still define `foo`:
//! the dropped assertion leaves `(define-fun foo () S t)` behind (its term,
//! not its assertion), with `:named` attributes inside `t` removed and inner
//! definitions first.
//!
//! [`referenced`] finds, in one pass over the named benchmark, every named
//! term (nested, or a top-level name of the benchmark's own) whose name
//! another command uses, with its sort: `Bool` when it stands where a
//! formula must (an assertion, an argument of `and`/`or`/`not`/`=>`/`xor`,
//! a quantifier's body), else from its head (a predicate, a declared
//! function's range, a bit-vector literal's width). A name whose sort
//! cannot be told gets no definition: the checkers then reject the core-only
//! benchmark, and the core stays *not validated*, never wrongly validated.

use super::dialect::{skip_item, strip_named, Nest};
use crate::smtlib::lexer::{Lexer, Token, TokenKind};
use crate::smtlib::scanner::Scanner;
use anyhow::Result;
use std::collections::{HashMap, HashSet};
use std::io::{Read, Write};

/// Named terms used elsewhere: normal-form name → sort (as SMT-LIB text).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Referenced(HashMap<Vec<u8>, Vec<u8>>);

impl Referenced {
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// Heads whose application is a formula.
const PREDICATES: &[&str] = &[
    "=",
    "distinct",
    "<",
    "<=",
    ">",
    ">=",
    "and",
    "or",
    "not",
    "=>",
    "xor",
    "forall",
    "exists",
    "bvult",
    "bvule",
    "bvugt",
    "bvuge",
    "bvslt",
    "bvsle",
    "bvsgt",
    "bvsge",
    "fp.eq",
    "fp.lt",
    "fp.leq",
    "fp.gt",
    "fp.geq",
    "fp.isNormal",
    "fp.isSubnormal",
    "fp.isZero",
    "fp.isInfinite",
    "fp.isNaN",
    "fp.isNegative",
    "fp.isPositive",
    "str.in_re",
    "str.in.re",
    "str.prefixof",
    "str.suffixof",
    "str.contains",
    "str.<",
    "str.<=",
    "str.is_digit",
    "is_int",
    "divisible",
];

/// Heads whose arguments are formulas.
const CONNECTIVES: &[&str] = &["and", "or", "not", "=>", "xor", "assert"];

fn tokens(text: &[u8]) -> Option<Vec<Token>> {
    Lexer::new(text).collect::<std::result::Result<_, _>>().ok()
}

/// One `(! t … :named N …)` of a command: token index of its `(`, the name.
fn named_terms(toks: &[Token], text: &[u8], nest: &Nest) -> Vec<(usize, Vec<u8>)> {
    let mut out = Vec::new();
    for i in 0..toks.len().saturating_sub(1) {
        if toks[i].kind == TokenKind::Open
            && toks[i + 1].kind == TokenKind::Symbol
            && toks[i + 1].bytes(text) == b"!"
        {
            let close = nest.end(i) - 1;
            let mut k = nest.end(i + 2);
            while k + 1 < close {
                if toks[k].bytes(text) == b":named" && toks[k + 1].is_symbol() {
                    out.push((i, toks[k + 1].symbol(text).to_vec()));
                }
                k += 1;
            }
        }
    }
    out
}

/// The head symbol of the list enclosing token `at`, if any.
fn enclosing_head<'t>(toks: &[Token], text: &'t [u8], nest: &Nest, at: usize) -> Option<&'t [u8]> {
    let j = *nest.parent.get(at)?;
    toks.get(j.checked_add(1)?)
        .filter(|t| t.kind == TokenKind::Symbol)
        .map(|t| t.bytes(text))
}

/// The sort of the term at token `i`, when it can be told: through `!`
/// and the `then` branch of `ite` by a loop, as deep as they nest, and no
/// further than a named term whose sort is known (`known`, by its `(`).
fn sort_of(
    toks: &[Token],
    text: &[u8],
    nest: &Nest,
    mut i: usize,
    sorts: &HashMap<Vec<u8>, Vec<u8>>,
    known: &HashMap<usize, Option<Vec<u8>>>,
) -> Option<Vec<u8>> {
    loop {
        if let Some(sort) = known.get(&i) {
            return sort.clone();
        }
        let t = toks.get(i)?;
        if t.is_symbol() {
            let s = t.symbol(text);
            if s == b"true" || s == b"false" {
                return Some(b"Bool".to_vec());
            }
            return sorts.get(s).cloned();
        }
        if t.kind == TokenKind::Literal {
            let b = t.bytes(text);
            return match b.get(..2) {
                Some(b"#b") => Some(format!("(_ BitVec {})", b.len() - 2).into_bytes()),
                Some(b"#x") => Some(format!("(_ BitVec {})", 4 * (b.len() - 2)).into_bytes()),
                _ => None,
            };
        }
        if t.kind != TokenKind::Open {
            return None;
        }
        let head = toks.get(i + 1)?;
        if !head.is_symbol() {
            return None;
        }
        let h = head.bytes(text);
        if PREDICATES.iter().any(|p| p.as_bytes() == h) {
            return Some(b"Bool".to_vec());
        }
        i = match h {
            b"!" => i + 2,
            b"ite" => nest.end(i + 2),
            _ => return sorts.get(head.symbol(text)).cloned(),
        };
    }
}

/// Record what a declaration or definition says about a symbol's sort.
fn declare(toks: &[Token], text: &[u8], sorts: &mut HashMap<Vec<u8>, Vec<u8>>) {
    let head = toks.get(1).map(|t| t.bytes(text));
    let Some(name) = toks.get(2).filter(|t| t.is_symbol()) else {
        return;
    };
    let range_at = match head {
        Some(b"declare-const") => 3,
        Some(b"declare-fun" | b"define-fun" | b"define-fun-rec") => skip_item(toks, 3),
        _ => return,
    };
    if range_at < toks.len() {
        let end = skip_item(toks, range_at) - 1;
        let sort = &text[toks[range_at].start..toks[end].end];
        sorts.insert(name.symbol(text).to_vec(), sort.to_vec());
    }
}

/// One pass over a named benchmark: every named term whose name another
/// command uses, with its sort (see the module doc). `own_name` tells the
/// top-level names coreval's naming added (never used elsewhere).
pub fn referenced<R: Read>(named: R, own_name: &dyn Fn(&str) -> bool) -> Result<Referenced> {
    let mut sc = Scanner::new(named);
    let mut sorts: HashMap<Vec<u8>, Vec<u8>> = HashMap::new();
    let mut defined: HashMap<Vec<u8>, Option<Vec<u8>>> = HashMap::new();
    let mut used: HashSet<Vec<u8>> = HashSet::new();
    while let Some(cmd) = sc.next_command()? {
        let Some(toks) = tokens(&cmd.text) else {
            continue;
        };
        let text = &cmd.text[..];
        declare(&toks, text, &mut sorts);
        for (k, t) in toks.iter().enumerate() {
            let value_of_named = k > 0 && toks[k - 1].bytes(text) == b":named";
            if t.is_symbol() && !value_of_named && !defined.is_empty() {
                let s = t.symbol(text);
                if defined.contains_key(s) {
                    used.insert(s.to_vec());
                }
            }
        }
        if cmd.head() != "assert" {
            continue;
        }
        let nest = Nest::of(&toks);
        // Inner terms first: an outer term's sort may be an inner one's.
        let mut known = HashMap::new();
        for (i, name) in named_terms(&toks, text, &nest).into_iter().rev() {
            let top = i == 2;
            if top && own_name(&String::from_utf8_lossy(&name)) {
                continue;
            }
            let in_formula = top
                || enclosing_head(&toks, text, &nest, i)
                    .is_some_and(|h| CONNECTIVES.iter().any(|c| c.as_bytes() == h))
                || is_quantifier_body(&toks, text, &nest, i);
            let sort = if in_formula {
                Some(b"Bool".to_vec())
            } else {
                sort_of(&toks, text, &nest, i + 2, &sorts, &known)
            };
            if let Some(s) = &sort {
                sorts.insert(name.clone(), s.clone());
            }
            known.insert(i, sort.clone());
            defined.insert(name, sort);
        }
    }
    Ok(Referenced(
        defined
            .into_iter()
            .filter(|(n, _)| used.contains(n))
            .filter_map(|(n, s)| Some((n, s?)))
            .collect(),
    ))
}

/// Whether the term at `i` is the body of a `forall`/`exists`.
fn is_quantifier_body(toks: &[Token], text: &[u8], nest: &Nest, i: usize) -> bool {
    matches!(
        enclosing_head(toks, text, nest, i),
        Some(b"forall" | b"exists")
    ) && toks
        .get(i.wrapping_sub(1))
        .is_some_and(|t| t.kind == TokenKind::Close)
}

/// Write the definitions a dropped assertion leaves behind: one
/// `(define-fun N () S t)` per named term of `text` in `referenced`, inner
/// ones first. Returns how many.
pub fn leave_definitions<W: Write>(
    text: &[u8],
    referenced: &Referenced,
    out: &mut W,
) -> Result<u64> {
    if referenced.is_empty() {
        return Ok(0);
    }
    let Some(toks) = tokens(text) else {
        return Ok(0);
    };
    let nest = Nest::of(&toks);
    let mut terms: Vec<(usize, usize, &Vec<u8>, Vec<u8>)> = named_terms(&toks, text, &nest)
        .into_iter()
        .filter_map(|(i, name)| {
            let (stored, sort) = referenced.0.get_key_value(&name)?;
            Some((nest.end(i), i, stored, sort.clone()))
        })
        .collect();
    terms.sort_by_key(|(end, ..)| *end);
    for (_, i, name, sort) in &terms {
        let term_end = nest.end(i + 2) - 1;
        let term = &text[toks[i + 2].start..toks[term_end].end];
        let body = match strip_named(term, &mut HashSet::new())? {
            Ok((t, _)) => t.into_owned(),
            Err(_) => term.to_vec(),
        };
        out.write_all(b"(define-fun ")?;
        out.write_all(crate::smtlib::symbol::quote(&String::from_utf8_lossy(name)).as_bytes())?;
        out.write_all(b" () ")?;
        out.write_all(sort)?;
        out.write_all(b" ")?;
        out.write_all(&body)?;
        out.write_all(b")\n")?;
    }
    Ok(terms.len() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn defs(src: &str) -> HashMap<String, String> {
        let r = referenced(src.as_bytes(), &super::super::numbered_with("cv")).unwrap();
        r.0.into_iter()
            .map(|(k, v)| (String::from_utf8(k).unwrap(), String::from_utf8(v).unwrap()))
            .collect()
    }

    /// `t` named `n0`, that named `n1`, and so on up to `n{n-1}`.
    fn chain(t: &str, n: usize) -> String {
        let mut s = "(! ".repeat(n);
        s.push_str(t);
        for i in 0..n {
            s.push_str(&format!(" :named n{i})"));
        }
        s
    }

    #[test]
    fn names_nested_a_hundred_thousand_deep_get_their_sort_without_recursion() {
        let n = 100_000;
        let term = chain("(= x 5)", n);
        // Under `ite`, so that each name's sort comes from its term.
        let last = n - 1;
        let src = format!(
            "(declare-fun x () Int)\n(assert (! (ite {term} x 0) :named cv1))\n\
             (assert (! (and n0 n{last} (= n{} n2)) :named cv2))\n",
            n / 2
        );
        let started = std::time::Instant::now();
        let d = crate::process::deep::on_small_stack(move || defs(&src));
        assert_eq!(d.len(), 4, "{d:?}");
        assert!(d.values().all(|s| s == "Bool"), "{d:?}");
        // Linear: a quadratic walk took minutes at this depth.
        assert!(started.elapsed().as_secs() < 20, "{:?}", started.elapsed());
    }

    #[test]
    fn names_nested_a_hundred_thousand_deep_are_stripped_in_linear_time() {
        let n = 100_000;
        let term = chain("p", n);
        let cmd = format!("(assert {term})");
        let started = std::time::Instant::now();
        let (out, removed) = strip_named(cmd.as_bytes(), &mut HashSet::new())
            .unwrap()
            .unwrap();
        assert_eq!((&out[..], removed), (&b"(assert p)"[..], n as u64));
        assert!(started.elapsed().as_secs() < 20, "{:?}", started.elapsed());
    }

    #[test]
    fn used_names_and_their_sorts() {
        let src =
            "(set-logic QF_ABV)\n(declare-fun x () Int)\n(declare-fun f (Int) (_ BitVec 8))\n\
(assert (! (or (! (= x 5) :named foo) (= x 7)) :named cv1))\n\
(assert (! (= (! (f x) :named fx) (! #x0f :named lit)) :named cv2))\n\
(assert (! (= (! (+ x 1) :named unknown) 3) :named cv3))\n\
(assert (! (and foo (= fx lit) (= unknown 4) own) :named cv4))\n\
(assert (! (= x 9) :named own))\n(assert (! (= x 9) :named unused))\n";
        let d = defs(src);
        assert_eq!(d.get("foo").map(String::as_str), Some("Bool"));
        assert_eq!(d.get("fx").map(String::as_str), Some("(_ BitVec 8)"));
        assert_eq!(d.get("lit").map(String::as_str), Some("(_ BitVec 8)"));
        // `+` has no sort here: no definition rather than a wrong one.
        assert!(!d.contains_key("unknown") && !d.contains_key("unused"));
        // A user's own top-level name is a definition too, once used (here before).
        assert!(!d.contains_key("own"), "used only before it is defined");
        assert!(!d.contains_key("cv1"));
    }

    #[test]
    fn dropped_assertion_leaves_its_definitions_inner_first() {
        let src = "(declare-fun p () Bool)\n(declare-fun q () Bool)\n\
(assert (! (and (! (or p (! q :named b)) :named a) p) :named cv1))\n(assert (and a b))\n";
        let r = referenced(src.as_bytes(), &super::super::numbered_with("cv")).unwrap();
        let mut out = Vec::new();
        let text = b"(assert (! (and (! (or p (! q :named b)) :named a) p) :named cv1))";
        assert_eq!(leave_definitions(text, &r, &mut out).unwrap(), 2);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "(define-fun b () Bool q)\n(define-fun a () Bool (or p q))\n"
        );
    }
}
