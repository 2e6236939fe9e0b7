//! The elements of uninterpreted sorts that a model gives, as each solver
//! prints them, so that the evaluator can compare them and evaluate
//! quantifiers over a sort whose whole (finite) universe the model states:
//!
//! - z3: `(declare-fun U!val!0 () U)` per element, and the cardinality
//!   constraint `(forall ((x U)) (or (= x U!val!0) (= x U!val!1)))`, which
//!   states the universe;
//! - cvc5 and cvc4: the comments `; cardinality of U is 2` followed by one
//!   `; rep: (as @U_0 U)` (cvc5) or `; rep: @uc_U_0` (cvc4) per element,
//!   which state the universe, and values `(as @U_0 U)` / `@uc_U_0`;
//! - yices (`--smt2-model-format`) and bitwuzla: values `(as @const_1 U)`,
//!   with no universe stated (nothing read here).
//!
//! The elements read here are distinct when their names differ, so they
//! may be compared by name either way ([`super::eval::Env::elements`]);
//! other abstract values are read as distinct elements too, which builds
//! a structure of its own: an assertion true under it is satisfiable,
//! one false under it is not held against the model (the solver may have
//! meant two names for one element), see [`super::check`]. A universe is
//! only recorded when the model states it whole; a quantifier over a sort
//! without one stays unsupported.

use super::eval::Env;
use super::sexp::{self, Sexp};

/// Add the elements and the stated universes of the model `text` to `env`.
pub fn read(text: &str, env: &mut Env) {
    if let Ok(items) = sexp::parse_all(text.as_bytes()) {
        for it in &items {
            match it.head() {
                Some("model") | None => {
                    for inner in it.list().unwrap_or(&[]) {
                        item(inner, env);
                    }
                }
                _ => item(it, env),
            }
        }
    }
    comments(text, env);
}

/// One model item: z3's element declarations and cardinality constraints.
fn item(it: &Sexp, env: &mut Env) {
    let v = it.list().unwrap_or(&[]);
    match it.head() {
        Some("declare-fun") if v.len() == 4 && v[2].list().is_some_and(|p| p.is_empty()) => {
            if let Some(name) = v[1].sym() {
                env.elements.insert(name.to_string());
            }
        }
        Some("forall") => {
            if let Some((sort, elements)) = cardinality(v) {
                if elements.iter().all(|e| env.elements.contains(e)) {
                    env.universes.insert(sort, elements);
                }
            }
        }
        _ => {}
    }
}

/// `(forall ((x U)) (or (= x a) (= x b) …))` (or one `(= x a)`): the sort
/// and the elements.
fn cardinality(v: &[Sexp]) -> Option<(String, Vec<String>)> {
    let [_, vars, body] = v else { return None };
    let [var] = vars.list()? else { return None };
    let [x, sort] = var.list()? else { return None };
    let (x, sort) = (x.sym()?, sort.sym()?);
    let eqs: Vec<&Sexp> = match body.head() {
        Some("or") => body.list()?[1..].iter().collect(),
        Some("=") => vec![body],
        _ => return None,
    };
    let elements = eqs
        .iter()
        .map(|e| match e.list()? {
            [eq, a, b] if eq.sym() == Some("=") && a.sym() == Some(x) => b.sym().map(String::from),
            _ => None,
        })
        .collect::<Option<Vec<String>>>()?;
    (!elements.is_empty()).then(|| (sort.to_string(), elements))
}

/// cvc5's and cvc4's `; cardinality of U is N` and the `; rep: …` lines
/// after it: a universe when there are N of them.
fn comments(text: &str, env: &mut Env) {
    let mut current: Option<(String, usize, Vec<String>)> = None;
    let mut done = Vec::new();
    for line in text.lines().map(str::trim) {
        let Some(c) = line.strip_prefix(';') else {
            continue;
        };
        let c = c.trim();
        if let Some(rest) = c.strip_prefix("cardinality of ") {
            if let Some((sort, n)) = rest.split_once(" is ") {
                done.extend(current.take());
                if let Ok(n) = n.trim().parse() {
                    current = Some((sort.trim().to_string(), n, Vec::new()));
                }
            }
        } else if let Some(rep) = c.strip_prefix("rep:") {
            let rep = rep.trim();
            let name = match sexp::parse_all(rep.as_bytes()).ok().as_deref() {
                Some([Sexp::List(v)]) if v.len() == 3 && v[0].sym() == Some("as") => {
                    v[1].sym().map(String::from)
                }
                Some([a]) => a.sym().map(String::from),
                _ => None,
            };
            if let (Some(name), Some((_, _, reps))) = (name, current.as_mut()) {
                reps.push(name);
            }
        }
    }
    done.extend(current);
    for (sort, n, reps) in done {
        for r in &reps {
            env.elements.insert(r.clone());
        }
        if reps.len() == n && n > 0 {
            env.universes.insert(sort, reps);
        }
    }
}
