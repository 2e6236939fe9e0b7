//! The best-known column of `coreval selfcheck` means the same in two
//! identical runs whatever an earlier run left in the shared cache: a
//! best-known core that a solver of the author's own team found (here
//! `ref-z3`, left by a selfcheck of another team's solver) is shown with
//! where it comes from and `your team`, never dropped; and the reference
//! cores of a benchmark are checked only where they could be smaller than
//! the author's validated core (`best ≤ yours` elsewhere).

mod common;

use std::path::Path;
use std::process::Output;

const PRIME: &str = "tests/fixtures/selfcheck/unsat/QF_LIA/prime_cone_unsat_3.smt2";
const UNSAT: &str = "tests/fixtures/selfcheck/unsat";

/// `coreval selfcheck ARGS` from the repository root with check cache `cache`.
fn selfcheck(cache: &Path, args: &[&str]) -> Output {
    common::selfcheck_in(common::repo(), cache, args).0
}

fn text(o: &Output) -> String {
    format!(
        "{}\n--- stderr\n{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// Each result line's path and its best-known column (`None`: no column).
fn columns(o: &Output) -> Vec<(String, Option<String>)> {
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .filter(|l| l.starts_with("PASS") || l.starts_with("FAIL") || l.starts_with("SKIP"))
        .map(|l| {
            let path = l.rsplit("  ").next().unwrap().to_string();
            let column = l
                .split_once("best-known ")
                .map(|(_, rest)| rest.split("  ").next().unwrap().trim().to_string());
            (path, column)
        })
        .collect()
}

#[test]
fn an_own_team_best_known_core_is_shown_the_same_in_identical_runs() {
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("cache");
    // Another team's solver with full cores: the z3 reference's smaller
    // core becomes the cache's best-known core of each benchmark.
    let other = selfcheck(
        &cache,
        &[
            "--solver",
            "tests/fixtures/fake-solvers/unsat-core.sh {file}",
            "--team",
            "cvc",
            "--checkers",
            "z3,cvc5",
            PRIME,
        ],
    );
    assert_eq!(other.status.code(), Some(0), "{}", text(&other));
    let (_, column) = &columns(&other)[0];
    assert_eq!(
        column.as_deref(),
        Some("5/8 (ref-z3 (this selfcheck))"),
        "{}",
        text(&other)
    );
    // A z3 solver with padded cores, twice: the cached core is smaller
    // than its own, validated by this run's checkers, and of its team.
    let run = || {
        selfcheck(
            &cache,
            &[
                "--solver",
                "tests/fixtures/fake-solvers/z3-pad.sh {file}",
                "--checkers",
                "yices,cvc5,z3",
                "--no-references",
                UNSAT,
            ],
        )
    };
    let (first, second) = (run(), run());
    assert_eq!(first.status.code(), Some(0), "{}", text(&first));
    let (a, b) = (columns(&first), columns(&second));
    assert_eq!(a, b, "{}\n{}", text(&first), text(&second));
    assert!(a.iter().all(|(_, c)| c.is_some()), "{}", text(&first));
    let prime = a.iter().find(|(p, _)| p == PRIME).unwrap();
    assert_eq!(
        prime.1.as_deref(),
        Some("5/8 (ref-z3 (an earlier selfcheck), your team)"),
        "{}",
        text(&first)
    );
}

#[test]
fn reference_cores_no_smaller_than_the_authors_are_not_checked() {
    let tmp = tempfile::tempdir().unwrap();
    let work = tmp.path().join("campaign");
    let out = selfcheck(
        &tmp.path().join("cache"),
        &[
            "--solver",
            "tests/fixtures/fake-solvers/z3-core.sh {file}",
            "--checkers",
            "yices,cvc5,z3",
            "--workdir",
            work.to_str().unwrap(),
            PRIME,
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let all = text(&out);
    let line = all.lines().find(|l| l.ends_with(PRIME)).unwrap();
    assert!(
        line.contains("core 5/8") && line.contains("best ≤ yours"),
        "{all}"
    );
    assert!(
        all.contains("on 1 of 1 validated core(s) no reference's core was smaller than yours (so not checked)"),
        "{all}"
    );
    // The references ran; no checker was asked about their cores.
    let runs = std::fs::read_to_string(work.join("runs.jsonl")).unwrap();
    assert!(
        runs.contains("\"ref-yices\"") && runs.contains("\"ref-cvc5\""),
        "{runs}"
    );
    let cores = std::fs::read_to_string(work.join("cores.jsonl")).unwrap_or_default();
    assert!(!cores.contains("\"ref-"), "{cores}");
}
