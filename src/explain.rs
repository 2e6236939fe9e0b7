//! Why a refuted core is wrong, in the author's terms: the model a checker
//! gave for the core-only benchmark (certified: it satisfies every
//! assertion of the core) is evaluated on *every* assertion of the
//! original benchmark, and those it falsifies are named with their line in
//! the author's file: "the model satisfies the core but falsifies cv7
//! (FILE:12)", the assertions the core needed. Where coreval's evaluator
//! ([`crate::model`]) cannot decide an assertion (quantifiers, strings…),
//! the explanation says so instead of guessing.
//!
//! [`explain`] is the whole judgement, from texts: a model, a named
//! benchmark, a core. [`for_pair`] finds the model of a campaign's refuted
//! pair (kept by certification, [`crate::check::certify::kept_model`], or
//! asked again of the checker when its answer came from the cache) and
//! returns the lines that selfcheck's FAIL block and the HTML detail view
//! print. [`Terms`] is the author's view of a scrambled variant: on one
//! (`--scrambles K`) the solver saw shuffled assertions named `cvN` and
//! renamed symbols (`x_1`); a FAIL is told in the author's file instead,
//! each assertion by its own `:named` name (else `assertion N`) and line,
//! each model symbol by the name the author declared, through the
//! descrambling map ([`crate::scramble::map`]); kept files stay scrambled.

use crate::campaign::setup::Campaign;
use crate::campaign::verdict::certification::Certification;
use crate::campaign::verdict::pair::PairVerdict;
use crate::checkers::SolverDef;
use crate::model::{self, Truth};
use crate::scramble::map::DescrambleMap;
use crate::smtlib::scanner::Scanner;
use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::atomic::AtomicBool;

/// The line of each top-level assertion of a file, in order: assertion
/// `N` (named `cvN`, or by its own name) is at `lines[N - 1]`; empty when
/// the file cannot be read (a scan error ends the list).
pub fn assertion_lines(path: &Path) -> Vec<u64> {
    let Ok(file) = crate::store::regular::open(path) else {
        return Vec::new();
    };
    let mut scanner = crate::smtlib::scanner::Scanner::new(file);
    let mut out = Vec::new();
    while let Ok(Some(cmd)) = scanner.next_command() {
        if cmd.head() == "assert" {
            out.push(cmd.line);
        }
    }
    out
}

/// One assertion of the benchmark outside the core, and its truth.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// Its name in the named benchmark.
    pub name: String,
    /// 0-based among the benchmark's top-level assertions.
    pub index: usize,
    pub truth: Truth,
}

/// What a model makes of a benchmark's assertions.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Explanation {
    /// Outside the core, false under the model.
    pub falsified: Vec<Finding>,
    /// Outside the core, not decided by the evaluator.
    pub undecided: Vec<Finding>,
    /// Core members the model does not make true (a model that does not
    /// satisfy the core explains nothing), with their positions.
    pub core_not_true: Vec<(usize, String)>,
    /// Assertions outside the core.
    pub outside: usize,
}

/// Evaluate every assertion of `benchmark` (a named benchmark's bytes)
/// under `model` (the text a checker printed after `sat`); `core` holds the
/// names of the core (normal form). `Err`: the model or the benchmark
/// cannot be read or evaluated at all.
pub fn explain(model: &str, benchmark: &[u8], core: &[String]) -> Result<Explanation, String> {
    let mut env = model::read_model(model)?;
    let asserts = model::assertions(benchmark, &mut env).map_err(|e| match e {
        model::ModelCheck::Unsupported(what) => format!("not evaluated ({what})"),
        model::ModelCheck::Unreadable(why) => why,
        other => format!("{other:?}"),
    })?;
    let core: HashSet<&str> = core.iter().map(String::as_str).collect();
    let mut out = Explanation::default();
    for (index, a) in asserts.iter().enumerate() {
        let name = a
            .name
            .clone()
            .unwrap_or_else(|| format!("assertion {}", index + 1));
        let truth = model::truth(&env, &a.term);
        if core.contains(name.as_str()) {
            if truth != Truth::True {
                out.core_not_true.push((index, name));
            }
            continue;
        }
        out.outside += 1;
        let f = Finding { name, index, truth };
        match f.truth {
            Truth::True => {}
            Truth::False { .. } => out.falsified.push(f),
            Truth::Undecided(_) | Truth::Missing(_) => out.undecided.push(f),
        }
    }
    Ok(out)
}

/// Assertions listed by name before `… N more`.
const SHOWN: usize = 12;

/// How the author sees the assertions and symbols of the file a solver
/// read (a scrambled variant's through its descrambling map: see
/// [`Terms`]). A closure `Fn(usize) -> String` is a place alone.
pub trait Author {
    /// Where assertion `i` (0-based) is in the author's file: `FILE:12`.
    fn place(&self, i: usize) -> String;
    /// What the author calls assertion `i`, printed `printed`.
    fn name(&self, _i: usize, printed: &str) -> String {
        quote(printed)
    }
    /// Text naming symbols of the file read, in the author's symbols.
    fn term(&self, text: &str) -> String {
        text.to_string()
    }
}

impl<F: Fn(usize) -> String> Author for F {
    fn place(&self, i: usize) -> String {
        self(i)
    }
}

impl Explanation {
    /// The report lines; `at` says what and where an assertion is in the
    /// author's file (`cv3 (FILE:12)`), `whose` whose model it is (`z3's model`).
    pub fn lines(&self, whose: &str, at: &dyn Author) -> Vec<String> {
        let mut out = Vec::new();
        if !self.core_not_true.is_empty() {
            let names: Vec<String> = self
                .core_not_true
                .iter()
                .map(|(i, n)| at.name(*i, n))
                .collect();
            out.push(format!(
                "explanation: {whose} does not make the core true ({}): nothing to explain",
                names.join(", ")
            ));
            return out;
        }
        let list = |fs: &[Finding], what: &dyn Fn(&Finding) -> String| {
            let mut parts: Vec<String> = fs
                .iter()
                .take(SHOWN)
                .map(|f| {
                    let name = at.name(f.index, &f.name);
                    format!("{name} ({}{})", at.place(f.index), what(f))
                })
                .collect();
            if fs.len() > SHOWN {
                parts.push(format!("… {} more", fs.len() - SHOWN));
            }
            parts.join(", ")
        };
        if !self.falsified.is_empty() {
            out.push(format!(
                "explanation: {whose} satisfies the core but falsifies {}: {}",
                count(self.falsified.len()),
                list(&self.falsified, &|f| match &f.truth {
                    Truth::False { defaults } if !defaults.is_empty() => format!(
                        "; with defaults for {}, which the model leaves out",
                        at.term(&defaults.join(", "))
                    ),
                    _ => String::new(),
                })
            ));
        }
        if !self.undecided.is_empty() {
            out.push(format!(
                "explanation: coreval's evaluator cannot decide {} under {whose}: {}",
                count(self.undecided.len()),
                list(&self.undecided, &|f| match &f.truth {
                    Truth::Undecided(what) => format!("; {}", at.term(what)),
                    Truth::Missing(s) => format!("; {} has no value", at.term(s)),
                    _ => String::new(),
                })
            ));
        }
        if self.falsified.is_empty() && self.undecided.is_empty() {
            out.push(format!(
                "explanation: {whose} satisfies the core and the {} other assertion(s) too: \
                 the benchmark itself is satisfiable under it",
                self.outside
            ));
        }
        out
    }
}

fn count(n: usize) -> String {
    match n {
        1 => "1 assertion outside the core".into(),
        n => format!("{n} assertions outside the core"),
    }
}

fn quote(n: &str) -> String {
    crate::smtlib::symbol::quote(n).into_owned()
}

/// `at` for [`Explanation::lines`]: `SHOWN:LINE` from the lines of the
/// author's assertions (in order), else `assertion N`.
pub fn locator<'a>(shown: &'a str, lines: &'a [u64]) -> impl Fn(usize) -> String + 'a {
    move |i| match lines.get(i) {
        Some(l) => format!("{shown}:{l}"),
        None => format!("assertion {}", i + 1),
    }
}

/// The explanation lines of a campaign's refuted pair `v` whose core
/// (`core`, the names printed) was refuted by a certified `sat`: the first
/// checker whose `sat` was certified gives the model; `named` is the named
/// benchmark the solver ran on, `at` places an assertion in the author's
/// file. Empty when the refutation is not certified.
pub fn for_pair(
    c: &Campaign,
    v: &PairVerdict,
    core: &[String],
    named: &Path,
    defs: &[SolverDef],
    at: &dyn Author,
    cancel: &AtomicBool,
) -> Vec<String> {
    let (Some(hash), Some(checker)) = (
        v.core_hash.as_deref(),
        v.details
            .certifications
            .iter()
            .find(|(_, c)| matches!(c, Certification::Certified { .. }))
            .map(|(k, _)| k.as_str()),
    ) else {
        return Vec::new();
    };
    if v.pair.verdict != crate::campaign::verdict::pair::Verdict::Refuted {
        return Vec::new();
    }
    let whose = format!("{checker}'s model");
    let core_file = c.cores_dir().join(format!("{hash}.smt2"));
    let model =
        match std::fs::read_to_string(crate::check::certify::kept_model(c, &core_file, checker)) {
            Ok(m) => Ok(m),
            // A `sat` from the cache: its model was not kept in this campaign.
            Err(_) => ask_again(c, checker, &core_file, defs, cancel),
        };
    let bench = std::fs::read(named).map_err(|e| format!("cannot read {}: {e}", named.display()));
    match model.and_then(|m| explain(&m, &bench?, core)) {
        Ok(e) => e.lines(&whose, at),
        Err(why) => vec![format!("explanation: not available ({why})")],
    }
}

/// Ask `checker` for its model of the core-only benchmark once more (the
/// file it reads: its dialect's variant where it needs one).
fn ask_again(
    c: &Campaign,
    checker: &str,
    core: &Path,
    defs: &[SolverDef],
    cancel: &AtomicBool,
) -> Result<String, String> {
    let k = defs
        .iter()
        .find(|d| d.name == checker)
        .ok_or_else(|| format!("no definition of {checker} to ask for its model"))?;
    let file = match crate::rebuild::Dialect::new(k.accepts_named, &k.unsupported_commands) {
        None => core.to_path_buf(),
        Some(d) => match crate::rebuild::store_variant(core, &d) {
            Ok(Ok(v)) => v,
            _ => core.to_path_buf(),
        },
    };
    crate::check::certify::model_run(c, k, &file, cancel).0
}

/// How to say, in the author's file, where an assertion of the file the
/// solver read is, what it is called there, and what a symbol is.
pub struct Terms {
    /// The author's file as shown.
    shown: String,
    /// Line and own name of each of the author's assertions, in order.
    assertions: Vec<(u64, Option<String>)>,
    /// The descrambling map of a scrambled variant.
    map: Option<DescrambleMap>,
    /// Fresh symbol → the author's (normal form).
    symbols: HashMap<String, String>,
}

impl Terms {
    /// The terms of the author's file `source` (shown as `shown`), read as written (`map` is `None`) or through
    /// the descrambling map of its scrambled variant.
    pub fn new(shown: &str, source: &Path, map: Option<DescrambleMap>) -> Terms {
        let symbols = map
            .as_ref()
            .map(|m| m.symbols.0.iter().cloned().collect())
            .unwrap_or_default();
        Terms {
            shown: shown.to_string(),
            assertions: own_assertions(source),
            map,
            symbols,
        }
    }

    /// Whether the solver read a scrambled variant.
    pub fn scrambled(&self) -> bool {
        self.map.is_some()
    }

    /// The 0-based position in the author's file of assertion `i` of the
    /// file the solver read.
    pub fn original(&self, i: usize) -> Option<usize> {
        match &self.map {
            Some(m) => m.original_position(i),
            None => Some(i),
        }
    }

    /// What the author calls assertion `i` of the file the solver read
    /// (on a scrambled variant; `None` as written: its printed name is).
    pub fn own_name(&self, i: usize) -> Option<String> {
        self.map.as_ref()?;
        let o = self.original(i)?;
        Some(
            match self.assertions.get(o).and_then(|(_, n)| n.as_deref()) {
                Some(n) => quote(n),
                None => format!("assertion {}", o + 1),
            },
        )
    }

    /// `text` with every fresh symbol of a scrambled variant replaced by
    /// the author's (quoted where SMT-LIB needs bars).
    pub fn symbols_in(&self, text: &str) -> String {
        if self.symbols.is_empty() {
            return text.to_string();
        }
        let simple = |c: char| c.is_ascii_alphanumeric() || "~!@$%^&*_-+=<>.?/".contains(c);
        let mut out = String::with_capacity(text.len());
        let mut word = String::new();
        let flush = |word: &mut String, out: &mut String| {
            match self.symbols.get(word.as_str()) {
                Some(original) => out.push_str(&quote(original)),
                None => out.push_str(word),
            }
            word.clear();
        };
        for c in text.chars() {
            if simple(c) {
                word.push(c);
            } else {
                flush(&mut word, &mut out);
                out.push(c);
            }
        }
        flush(&mut word, &mut out);
        out
    }
}

impl Author for Terms {
    fn place(&self, i: usize) -> String {
        match self.original(i).and_then(|o| self.assertions.get(o)) {
            Some((l, _)) => format!("{}:{l}", self.shown),
            None => format!("assertion {}", i + 1),
        }
    }

    fn name(&self, i: usize, printed: &str) -> String {
        self.own_name(i).unwrap_or_else(|| quote(printed))
    }

    fn term(&self, text: &str) -> String {
        self.symbols_in(text)
    }
}

/// The line and the own `:named` name of each top-level assertion of the
/// author's file (empty when it cannot be read; a scan error ends it).
fn own_assertions(source: &Path) -> Vec<(u64, Option<String>)> {
    let Ok(file) = crate::store::regular::open(source) else {
        return Vec::new();
    };
    let mut scanner = Scanner::new(file);
    let mut out = Vec::new();
    while let Ok(Some(cmd)) = scanner.next_command() {
        if cmd.head() == "assert" {
            out.push((cmd.line, crate::scramble::map::top_level_name(&cmd.text)));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const BENCH: &str = "(set-logic QF_LIA)(declare-fun x () Int)(declare-fun y () Int)\
        (assert (! (> x 0) :named cv1))(assert (! (< x 5) :named cv2))\
        (assert (! (> x 10) :named cv3))(assert (! (forall ((z Int)) (> z y)) :named cv4))\
        (assert (! (= y 2) :named cv5))(check-sat)";

    #[test]
    fn falsified_and_undecided_assertions_are_named_with_their_lines() {
        let model = "((define-fun x () Int 1)(define-fun y () Int 2))";
        let e = explain(model, BENCH.as_bytes(), &["cv1".into(), "cv2".into()]).unwrap();
        assert_eq!(e.outside, 3);
        assert_eq!(e.falsified.len(), 1);
        assert_eq!(
            (e.falsified[0].name.as_str(), e.falsified[0].index),
            ("cv3", 2)
        );
        assert_eq!(e.undecided.len(), 1);
        assert_eq!(e.undecided[0].name, "cv4");
        let lines = e.lines("z3's model", &locator("b.smt2", &[3, 4, 7, 9, 11]));
        assert!(
            lines[0].contains("z3's model satisfies the core but falsifies 1 assertion outside the core: cv3 (b.smt2:7)"),
            "{lines:?}"
        );
        assert!(
            lines[1].contains("cannot decide") && lines[1].contains("cv4 (b.smt2:9; "),
            "{lines:?}"
        );
    }

    #[test]
    fn defaults_are_said_and_a_model_of_everything_is_noticed() {
        // y left out: completed with 0, which falsifies cv5.
        let e = explain(
            "((define-fun x () Int 1))",
            BENCH.as_bytes(),
            &["cv1".into()],
        )
        .unwrap();
        let cv5 = e.falsified.iter().find(|f| f.name == "cv5").unwrap();
        assert_eq!(
            cv5.truth,
            Truth::False {
                defaults: vec!["y".into()]
            }
        );
        let lines = e.lines("m", &locator("b", &[]));
        assert!(
            lines[0].contains("cv5 (assertion 5; with defaults for y"),
            "{lines:?}"
        );
        let sat = "(set-logic QF_LIA)(declare-fun x () Int)(assert (! (> x 0) :named a))(assert (! (< x 3) :named b))";
        let e = explain("((define-fun x () Int 1))", sat.as_bytes(), &["a".into()]).unwrap();
        assert!(e
            .lines("m", &locator("b", &[]))
            .join("")
            .contains("satisfiable under it"));
        // A model that does not satisfy the core explains nothing.
        let e = explain("((define-fun x () Int 7))", sat.as_bytes(), &["b".into()]).unwrap();
        assert_eq!(e.core_not_true, [(1, "b".to_string())]);
        assert!(explain("(((", sat.as_bytes(), &[]).is_err());
    }

    #[test]
    fn scrambled_names_and_symbols_become_the_authors() {
        let dir = tempfile::tempdir().unwrap();
        let source = dir.path().join("a.smt2");
        std::fs::write(
            &source,
            "(declare-const x Int)\n(declare-const |y z| Int)\n\
             (assert (! (> x 0) :named pos))\n(assert (< |y z| 0))\n",
        )
        .unwrap();
        let mut map: DescrambleMap = serde_json::from_str(
            r#"{"format": "coreval-descramble-1", "seed": 1, "shuffle": true,
                "rename": true, "commute": false, "window": 1, "prefix": "x_",
                "assertions": [1, 0], "symbols": {}, "status": null, "removed": []}"#,
        )
        .unwrap();
        map.symbols = crate::scramble::map::SymbolMap(vec![
            ("x_1".into(), "y z".into()),
            ("x_2".into(), "x".into()),
        ]);
        let t = Terms::new("a.smt2", &source, Some(map));
        assert_eq!(t.name(0, "cv1"), "assertion 2");
        assert_eq!(t.name(1, "cv2"), "pos");
        assert_eq!(
            (t.place(0), t.place(1)),
            ("a.smt2:4".into(), "a.smt2:3".into())
        );
        assert_eq!(
            t.term("x_1 = (- 1), x_2 = 0, x_10"),
            "|y z| = (- 1), x = 0, x_10"
        );
        let plain = Terms::new("a.smt2", &source, None);
        assert_eq!(plain.name(0, "cv1"), "cv1");
        assert_eq!(plain.term("x_1 = 0"), "x_1 = 0");
        assert_eq!(plain.place(1), "a.smt2:4");
    }
}
