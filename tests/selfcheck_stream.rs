//! `coreval selfcheck` on a terminal prints each result as soon as it is
//! final (`decided: …` on stderr), then the ordered list on stdout as
//! before; off a terminal (pipes, CI, the documentation's examples) only
//! the ordered list. The terminal is `script`'s pseudo-terminal; the late
//! benchmark is made late by a wrapper around z3 that sleeps on it
//! (`tests/fixtures/fake-solvers/z3-slow-assumptions.sh`).

mod common;

const PRIME: &str = "tests/fixtures/selfcheck/unsat/QF_LIA/prime_cone_unsat_3.smt2";
const SCOPES: &str = "tests/fixtures/selfcheck/incremental/scopes.smt2";
const ASSUMPTIONS: &str = "tests/fixtures/selfcheck/incremental/assumptions.smt2";
const SOLVER: &str = "tests/fixtures/fake-solvers/z3-slow-assumptions.sh {file}";

/// The PASS/FAIL/SKIP lines of the ordered list, each as (tag, path).
fn ordered(lines: &[String]) -> Vec<(String, String)> {
    lines
        .iter()
        .filter(|l| l.starts_with("PASS") || l.starts_with("FAIL") || l.starts_with("SKIP"))
        .map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            (w[0].to_string(), w[w.len() - 1].to_string())
        })
        .collect()
}

#[test]
fn each_result_is_printed_when_decided_and_the_list_keeps_argument_order() {
    let args = [
        "selfcheck",
        "--checkers",
        "yices,z3,cvc5",
        "--no-references",
        "--solver",
        SOLVER,
        SCOPES,
        ASSUMPTIONS,
        PRIME,
    ];
    let (timed, code) = common::on_terminal(&args, &[]);
    let start = timed.first().map_or(0.0, |(t, _)| *t);
    let timed: Vec<(f64, String)> = timed.into_iter().map(|(t, l)| (t - start, l)).collect();
    let end = timed.last().map_or(0.0, |(t, _)| *t);
    let text: String = timed
        .iter()
        .map(|(t, l)| format!("{t:7.3} {l}\n"))
        .collect();
    assert!(!text.contains("panicked"), "{text}");
    assert_eq!(code, Some(0), "{text}");
    let at = |what: &str| {
        timed
            .iter()
            .find(|(_, l)| l.starts_with("decided: ") && l.ends_with(what))
            .unwrap_or_else(|| panic!("no `decided:` line for {what}:\n{text}"))
            .0
    };
    let (scopes, assumptions) = (at(SCOPES), at(ASSUMPTIONS));
    // The solver sleeps 4 s on assumptions.smt2 after scopes.smt2 is judged:
    // scopes' verdict was on the terminal while the late one still ran.
    assert!(
        scopes + 2.0 < assumptions && scopes + 2.0 < end,
        "scopes decided at {scopes:.3} s, assumptions at {assumptions:.3} s, end {end:.3} s:\n{text}"
    );
    assert!(
        timed
            .iter()
            .any(|(_, l)| l == &format!("decided: PASS validated  {SCOPES}")),
        "{text}"
    );
    // Decided in another order (the single-query core once checked, before
    // the incremental scripts run), listed in the arguments' order, once each.
    let lines: Vec<String> = timed.into_iter().map(|(_, l)| l).collect();
    let order = |v: &[(String, String)]| v.iter().map(|(_, p)| p.clone()).collect::<Vec<_>>();
    let decided: Vec<String> = lines
        .iter()
        .filter_map(|l| l.strip_prefix("decided: "))
        .map(|l| l.split_whitespace().last().unwrap().to_string())
        .collect();
    assert_eq!(decided, [PRIME, SCOPES, ASSUMPTIONS], "{text}");
    let list = ordered(&lines);
    assert_eq!(order(&list), [SCOPES, ASSUMPTIONS, PRIME], "{text}");
    assert!(list.iter().all(|(tag, _)| tag == "PASS"), "{text}");

    // Off a terminal: the same ordered list, and no `decided:` line.
    let cache = tempfile::tempdir().unwrap();
    let (out, piped) = common::selfcheck_in(common::repo(), cache.path(), &args[1..]);
    assert_eq!(out.status.code(), Some(0), "{piped}");
    assert!(!piped.contains("decided:"), "{piped}");
    let piped_lines: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(String::from)
        .collect();
    assert_eq!(ordered(&piped_lines), list, "{piped}");
}
