//! Checking a model against a script, by coreval's own evaluation: every
//! `assert` of a core-only benchmark is evaluated under the `define-fun`s
//! a checker printed after `sat` (`(get-model)`), with the script's own
//! definitions, `let`, `ite` and `:named` terms. Core, integer and real
//! arithmetic (exact), bit-vectors, arrays, uninterpreted functions and
//! sorts, and quantifiers over the finite universes a model states
//! ([`universe`]) are evaluated; a script or model with anything else
//! (other quantifiers, strings, floating point, datatypes…) is
//! [`ModelCheck::Unsupported`], with the construct named, so that the
//! caller can ask another checker instead.
//!
//! A model that leaves a declared symbol out is completed with a default
//! value of its sort (the solvers leave out what does not matter); an
//! assertion found false under such a completion is not held against the
//! model ([`ModelCheck::Incomplete`]).

pub mod eval;
pub mod sexp;
pub mod universe;
pub mod value;

use eval::{Env, Fun};
use sexp::Sexp;
use value::Stuck;

/// What the evaluation of a script under a model found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ModelCheck {
    /// Every assertion is true.
    Satisfies,
    /// This assertion (1-based among the script's asserts, and its text,
    /// shortened) is false under the model.
    Violates { assertion: usize, text: String },
    /// An assertion is false only under the defaults given to symbols the
    /// model left out.
    Incomplete { missing: Vec<String> },
    /// The evaluator cannot decide (the construct it does not support).
    Unsupported(String),
    /// The model text could not be read.
    Unreadable(String),
}

/// The model's entries (`define-fun`, and the `declare-fun`s of z3's
/// sort elements) from a checker's output after its `sat` line:
/// `(model (define-fun …) …)`, `((define-fun …) …)`, or boolector's lines
/// `name bits` (an `x` bit is free: read as 0).
pub fn entries(text: &str) -> Result<Vec<Sexp>, String> {
    let items = match sexp::parse_all(text.as_bytes()) {
        Ok(v) if !v.is_empty() => v,
        Ok(_) => return Err("no model in the output".into()),
        Err(_) => return boolector_lines(text),
    };
    if items
        .iter()
        .all(|i| i.head().is_none() && i.list().is_none())
    {
        return boolector_lines(text);
    }
    let mut out = Vec::new();
    for it in &items {
        match it.head() {
            Some("error") => return Err(format!("the checker printed {it}")),
            Some("define-fun" | "declare-fun") => out.push(it.clone()),
            Some("model") | None => {
                let inner = it.list().ok_or_else(|| format!("unexpected output {it}"))?;
                out.extend(
                    inner
                        .iter()
                        .filter(|d| matches!(d.head(), Some("define-fun" | "declare-fun")))
                        .cloned(),
                );
            }
            Some(_) => return Err(format!("unexpected output {it}")),
        }
    }
    Ok(out)
}

/// `name = value` for each symbol that `script` declares and the model
/// `text` defines, in the script's order: a constant's value, a function's
/// definition as `(lambda (params) body)`; each cut at 100 characters.
pub fn values(text: &str, script: &[u8]) -> Vec<String> {
    let (Ok(entries), Ok(cmds)) = (entries(text), sexp::parse_all(script)) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for c in &cmds {
        let v = c.list().unwrap_or(&[]);
        let (Some("declare-fun" | "declare-const"), Some(name)) =
            (c.head(), v.get(1).and_then(Sexp::sym))
        else {
            continue;
        };
        let Some(d) = entries.iter().find(|d| {
            d.head() == Some("define-fun")
                && d.list().and_then(|l| l.get(1)).and_then(Sexp::sym) == Some(name)
        }) else {
            continue;
        };
        let l = d.list().unwrap_or(&[]);
        let (Some(params), Some(body)) = (l.get(2), l.get(4)) else {
            continue;
        };
        let value = match params.list() {
            Some([]) => body.to_string(),
            _ => format!("(lambda {params} {body})"),
        };
        let value: String = match value.char_indices().nth(100) {
            Some((at, _)) => format!("{}…", &value[..at]),
            None => value,
        };
        out.push(format!("{} = {value}", crate::smtlib::symbol::quote(name)));
    }
    out
}

/// The evaluator's environment of a model's [`entries`].
pub fn read_model(text: &str) -> Result<Env, String> {
    let mut env = Env::default();
    for d in entries(text)? {
        let v = d.list().unwrap_or(&[]);
        match (d.head(), v.get(1).and_then(Sexp::sym)) {
            (Some("define-fun"), Some(name)) if v.len() == 5 => {
                let params = v[2]
                    .list()
                    .unwrap_or(&[])
                    .iter()
                    .map(|p| {
                        p.list()
                            .and_then(|p| p.first())
                            .and_then(Sexp::sym)
                            .map(str::to_string)
                    })
                    .collect::<Option<Vec<String>>>()
                    .ok_or_else(|| format!("malformed model entry {d}"))?;
                env.funs.insert(
                    name.to_string(),
                    Fun {
                        params,
                        body: v[4].clone(),
                    },
                );
            }
            (Some("declare-fun"), Some(name)) => {
                env.elements.insert(name.to_string());
            }
            _ => return Err(format!("malformed model entry {d}")),
        }
    }
    universe::read(text, &mut env);
    Ok(env)
}

fn boolector_lines(text: &str) -> Result<Vec<Sexp>, String> {
    let mut out = Vec::new();
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
        let (name, bits) = line
            .split_once(' ')
            .filter(|(_, b)| !b.is_empty() && b.bytes().all(|c| matches!(c, b'0' | b'1' | b'x')))
            .ok_or_else(|| format!("no model in the output (line `{line}`)"))?;
        let def = format!(
            "(define-fun {} () (_ BitVec {}) #b{})",
            crate::smtlib::symbol::quote(name),
            bits.len(),
            bits.replace('x', "0")
        );
        out.extend(sexp::parse_all(def.as_bytes())?);
    }
    Ok(out)
}

/// What one assertion evaluated to under a model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Truth {
    True,
    /// False; `defaults` lists the symbols the model left out and that
    /// were given a default value on the way (empty: false under the model
    /// as printed).
    False {
        defaults: Vec<String>,
    },
    /// The evaluator cannot decide: the construct it does not support.
    Undecided(String),
    /// A symbol the model leaves out that the evaluator cannot complete.
    Missing(String),
}

/// One top-level assertion of a script: its `:named` name, when the
/// assertion is `(! t :named n)`, and its term.
#[derive(Clone, Debug)]
pub struct Assertion {
    pub name: Option<String>,
    pub term: Sexp,
}

/// Read `script`'s declarations and definitions into `env` and return its
/// assertions in order; `Err` when the script cannot be evaluated at all.
pub fn assertions(script: &[u8], env: &mut Env) -> Result<Vec<Assertion>, ModelCheck> {
    let cmds = match sexp::parse_all(script) {
        Ok(c) => c,
        Err(e) => return Err(ModelCheck::Unreadable(format!("the script: {e}"))),
    };
    let mut asserts = Vec::new();
    for c in &cmds {
        let v = c.list().unwrap_or(&[]);
        let name = v.get(1).and_then(Sexp::sym).map(str::to_string);
        match (c.head(), name) {
            (Some("declare-fun"), Some(n)) if v.len() == 4 => {
                env.declared.insert(n, v[3].clone());
            }
            (Some("declare-const"), Some(n)) if v.len() == 3 => {
                env.declared.insert(n, v[2].clone());
            }
            (Some("define-fun"), Some(n)) if v.len() == 5 => {
                let params = v[2].list().unwrap_or(&[]);
                let params = params
                    .iter()
                    .filter_map(|p| p.list()?.first()?.sym().map(str::to_string))
                    .collect();
                // The script's definition wins over the model's copy of it.
                env.funs.insert(
                    n,
                    Fun {
                        params,
                        body: v[4].clone(),
                    },
                );
            }
            (Some("assert"), _) if v.len() == 2 => {
                named_terms(&v[1], env);
                asserts.push(Assertion {
                    name: top_name(&v[1]),
                    term: v[1].clone(),
                });
            }
            (
                Some(
                    "declare-sort" | "set-logic" | "set-info" | "set-option" | "check-sat" | "exit"
                    | "get-model" | "get-unsat-core",
                ),
                _,
            ) => {}
            (Some(other), _) => return Err(ModelCheck::Unsupported(format!("command {other}"))),
            (None, _) => return Err(ModelCheck::Unreadable("a command without a head".into())),
        }
    }
    Ok(asserts)
}

/// The truth of one assertion's term under `env` (after [`assertions`]).
pub fn truth(env: &Env, term: &Sexp) -> Truth {
    env.completed.borrow_mut().clear();
    env.compared_abstract.set(false);
    let value = env.eval(term).and_then(|v| v.as_bool());
    // Abstract values read as distinct elements make a structure of their
    // own: true under it is satisfiable, false is no proof.
    let value = match value {
        Ok(false) if env.compared_abstract.get() => Err(Stuck::Unsupported(
            "abstract values of an uninterpreted sort compared (they need not be distinct)".into(),
        )),
        v => v,
    };
    match value {
        Ok(true) => Truth::True,
        Ok(false) => Truth::False {
            defaults: env.completed.borrow().clone(),
        },
        Err(Stuck::Unsupported(what)) => Truth::Undecided(what),
        Err(Stuck::Missing(s)) => Truth::Missing(s),
    }
}

/// Evaluate every assertion of `script` under `env` (the model read by
/// [`read_model`]).
pub fn check(script: &[u8], mut env: Env) -> ModelCheck {
    let asserts = match assertions(script, &mut env) {
        Ok(a) => a,
        Err(e) => return e,
    };
    let mut incomplete = None;
    let mut stuck = None;
    for (i, a) in asserts.iter().enumerate() {
        match truth(&env, &a.term) {
            Truth::True => {}
            Truth::False { defaults } if defaults.is_empty() => {
                let mut text = a.term.to_string();
                if text.len() > 200 {
                    let cut = (0..=200)
                        .rev()
                        .find(|i| text.is_char_boundary(*i))
                        .unwrap_or(0);
                    text.truncate(cut);
                    text.push('…');
                }
                return ModelCheck::Violates {
                    assertion: i + 1,
                    text,
                };
            }
            Truth::False { defaults } => {
                incomplete.get_or_insert(defaults);
            }
            Truth::Undecided(what) => {
                stuck.get_or_insert(what);
            }
            Truth::Missing(s) => {
                incomplete.get_or_insert(vec![s]);
            }
        }
    }
    match (stuck, incomplete) {
        (Some(what), _) => ModelCheck::Unsupported(what),
        (None, Some(missing)) => ModelCheck::Incomplete { missing },
        (None, None) => ModelCheck::Satisfies,
    }
}

/// The name of `(! t … :named n …)`.
fn top_name(t: &Sexp) -> Option<String> {
    let v = t.list()?;
    if t.head() != Some("!") {
        return None;
    }
    v.get(2..)?
        .windows(2)
        .find_map(|p| match (&p[0], p[1].sym()) {
            (Sexp::Atom(crate::smtlib::lexer::TokenKind::Keyword, k), Some(n)) if k == ":named" => {
                Some(n.to_string())
            }
            _ => None,
        })
}

/// Register the `(! t :named n)` subterms of an assertion as definitions.
fn named_terms(t: &Sexp, env: &mut Env) {
    let Some(v) = t.list() else { return };
    if t.head() == Some("!") && v.len() >= 2 {
        for pair in v[2..].windows(2) {
            if let (Sexp::Atom(crate::smtlib::lexer::TokenKind::Keyword, k), Some(n)) =
                (&pair[0], pair[1].sym())
            {
                if k == ":named" {
                    env.funs.insert(
                        n.to_string(),
                        Fun {
                            params: Vec::new(),
                            body: v[1].clone(),
                        },
                    );
                }
            }
        }
    }
    for x in v {
        crate::process::deep::deep(|| named_terms(x, env));
    }
}

#[cfg(test)]
mod tests;
