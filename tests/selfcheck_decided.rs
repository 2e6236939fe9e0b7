//! What `coreval selfcheck` tells on a terminal as each verdict is final
//! (`decided: TAG LABEL  PATH` on stderr, docs/authors.md) is true and
//! early: a verdict that needs no checker comes while another benchmark's
//! run still goes, and every `decided:` line is the verdict the ordered
//! list shows at the end (single-query benchmarks, incremental scripts,
//! the rehearsal's folded seeds). The terminal is `script`'s
//! pseudo-terminal ([`common::on_terminal`]); the solvers are wrappers
//! around the real z3.

mod common;

use std::collections::BTreeMap;

const CHAINED: &str = "tests/fixtures/selfcheck/unsat/QF_UF/chained-equality.smt2";
const BT: &str = "tests/fixtures/selfcheck/unsat/QF_UF/bt-test-01.smt2";
const PRIME: &str = "tests/fixtures/selfcheck/unsat/QF_LIA/prime_cone_unsat_3.smt2";

/// (tag, label) by path: of the `decided:` lines (each path told once),
/// and of the ordered list.
fn verdicts(lines: &[String]) -> (Verdicts, Verdicts) {
    let word = |l: &str| {
        let w: Vec<&str> = l.split_whitespace().collect();
        (
            w[w.len() - 1].to_string(),
            (w[0].to_string(), w[1].to_string()),
        )
    };
    let mut told = BTreeMap::new();
    for l in lines.iter().filter_map(|l| l.strip_prefix("decided: ")) {
        let (path, v) = word(l);
        assert!(told.insert(path.clone(), v).is_none(), "{path} told twice");
    }
    let list = lines
        .iter()
        .filter(|l| ["PASS ", "FAIL ", "SKIP "].iter().any(|t| l.starts_with(t)))
        .map(|l| word(l))
        .collect();
    (told, list)
}

type Verdicts = BTreeMap<String, (String, String)>;

/// `selfcheck` on a terminal with z3 dropping the first name of each core
/// (`z3-drop-first.sh`), the checkers yices, z3 and cvc5, and `more`: what
/// was told, the list, the text (each line with its time from the first),
/// and the exit code.
fn drop_first(more: &[&str]) -> (Verdicts, Verdicts, String, Option<i32>) {
    let kept = tempfile::tempdir().unwrap();
    let mut args = vec![
        "selfcheck",
        "--keep",
        kept.path().to_str().unwrap(),
        "--checkers",
        "yices,z3,cvc5",
        "--solver",
        "tests/fixtures/fake-solvers/z3-drop-first.sh {file}",
    ];
    args.extend(more);
    let (timed, code) = common::on_terminal(&args, &[]);
    let text = text(&timed);
    assert!(!text.contains("panicked"), "{text}");
    assert!(!text.contains("a coreval bug"), "{text}");
    let lines: Vec<String> = timed.into_iter().map(|(_, l)| l).collect();
    let (told, list) = verdicts(&lines);
    (told, list, text, code)
}

fn text(timed: &[(f64, String)]) -> String {
    let start = timed.first().map_or(0.0, |(t, _)| *t);
    timed
        .iter()
        .map(|(t, l)| format!("{:7.3} {l}\n", t - start))
        .collect()
}

#[test]
fn a_verdict_without_checkers_is_told_while_a_slow_run_goes_on() {
    let marks = tempfile::tempdir().unwrap();
    let mark = marks.path().join("slow-ended");
    let kept = tempfile::tempdir().unwrap();
    let keep = kept.path().to_str().unwrap();
    let args = [
        "selfcheck",
        "--keep",
        keep,
        "--checkers",
        "yices,z3,cvc5",
        "--no-references",
        "--jobs",
        "2",
        "--solver",
        "tests/fixtures/fake-solvers/z3-bogus-then-slow.sh {file}",
        PRIME,
        CHAINED,
        BT,
    ];
    let (timed, code) = common::on_terminal(&args, &[("COREVAL_SLOW_MARK", &mark)]);
    let text = text(&timed);
    assert!(!text.contains("panicked"), "{text}");
    assert_eq!(code, Some(1), "{text}");
    let at = |line: &str| {
        timed
            .iter()
            .find(|(_, l)| l == line)
            .unwrap_or_else(|| panic!("no line `{line}`:\n{text}"))
            .0
    };
    let bogus = at(&format!("decided: FAIL ill-formed:unknown-name  {CHAINED}"));
    let slow = at(&format!("decided: PASS validated  {PRIME}"));
    // When the slow run of prime_cone_unsat_3.smt2 ended (just before its
    // process did), by the wrapper's clock.
    let ended: f64 = std::fs::read_to_string(&mark)
        .unwrap_or_else(|e| panic!("{}: {e}\n{text}", mark.display()))
        .trim()
        .parse()
        .unwrap();
    assert!(
        bogus < ended && ended <= slow,
        "the ill-formed core told at {bogus:.3}, the slow run ended at {ended:.3}, its verdict at {slow:.3}:\n{text}"
    );
    let lines: Vec<String> = timed.into_iter().map(|(_, l)| l).collect();
    let (told, list) = verdicts(&lines);
    assert_eq!(told, list, "{text}");
    assert_eq!(list.len(), 3, "{text}");
}

#[test]
fn every_told_verdict_is_the_lists_single_query_and_incremental() {
    // Every kind of verdict, told at each moment: a benchmark that cannot
    // be named, an empty core, a refuted core, a `sat` the references
    // decide, incremental scripts.
    let (told, list, text, code) = drop_first(&[
        "tests/fixtures/selfcheck/author",
        "tests/fixtures/selfcheck/edges/sat-no-status.smt2",
        "tests/fixtures/selfcheck/incremental/scopes.smt2",
        "tests/fixtures/selfcheck/incremental/assumptions.smt2",
        PRIME,
    ]);
    assert_eq!(code, Some(1), "{text}");
    assert_eq!(list.len(), 8, "{text}");
    assert_eq!(told, list, "{text}");
}

#[test]
fn every_told_verdict_is_the_lists_rehearsal() {
    let (told, list, text, code) = drop_first(&[
        "--no-references",
        "--scrambles",
        "2",
        "tests/fixtures/selfcheck/order/first-redundant.smt2",
        CHAINED,
        BT,
    ]);
    assert!(matches!(code, Some(0 | 1)), "{text}");
    assert_eq!(list.len(), 3, "{text}");
    assert_eq!(told, list, "{text}");
}
