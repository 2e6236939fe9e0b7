//! Incremental and assumption cores in campaigns (`[naming] incremental`),
//! end to end with the real solvers and checkers: z3 and cvc5
//! (`cvc5 --incremental`) as solvers under test validate on scripts with
//! scopes and `check-sat-assuming` (`tests/data/incremental/`); wrappers
//! around z3 with the reported faults fail with the right flag — a
//! too-small assumption core (z3#7098), `()` for a false assumption
//! (z3#8045), a core naming an assertion of a popped scope (opensmt#619),
//! `sat` on a query declared and proven unsat (a contradiction);
//! a re-run redoes nothing; without the option the scripts stay
//! ineligible. Fault injection: `tests/fixtures/fake-solvers/`.

mod common;

use common::{coreval, fake_solver, jsonl, repo};
use coreval::campaign::setup::ConfigFile;
use serde_json::Value;
use std::path::Path;

const SCOPES: &str = "QF_LIA/coreval/scopes.smt2";
const ASSUMPTIONS: &str = "QF_LIA/coreval/assumptions.smt2";

/// A campaign over `tests/data/incremental` in `dir` with `solvers`
/// (name, command), incremental scripts accepted or not.
fn campaign(dir: &Path, solvers: &[(&str, Vec<String>)], incremental: bool) {
    let mut cfg = ConfigFile::new(repo().join("tests/data/incremental"));
    cfg.cache = Some(dir.join("cache"));
    cfg.jobs = 2;
    cfg.naming.incremental = incremental;
    cfg.limits.time = Some(20.0);
    cfg.check.checkers = vec!["z3".into(), "yices".into(), "cvc5".into()];
    for (name, command) in solvers {
        let words: Vec<&str> = command.iter().map(String::as_str).collect();
        cfg.solver_command(name, &words);
    }
    cfg.write_to(dir).unwrap();
}

/// `coreval run DIR`: exit code and stderr.
fn run(dir: &Path) -> (Option<i32>, String) {
    let out = coreval(&["run"], dir, repo());
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!stderr.contains("panicked"), "{stderr}");
    (out.status.code(), stderr)
}

/// The incremental rows of `pairs.jsonl`.
fn incremental_pairs(dir: &Path) -> Vec<Value> {
    jsonl(&dir.join("reports/pairs.jsonl"))
        .into_iter()
        .filter(|p| p["incremental"] == true)
        .collect()
}

/// The row of (solver, benchmark).
fn pair<'a>(rows: &'a [Value], solver: &str, bench: &str) -> &'a Value {
    rows.iter()
        .find(|p| p["solver"] == solver && p["benchmark"] == bench)
        .unwrap_or_else(|| panic!("no pair {solver} {bench}: {rows:#?}"))
}

/// The pair's verdict: its label, as for single-query pairs.
fn label(p: &Value) -> String {
    p["verdict"].as_str().expect("a verdict label").to_string()
}

fn words(w: &[&str]) -> Vec<String> {
    w.iter().map(|s| s.to_string()).collect()
}

#[test]
fn z3_and_cvc5_validate_and_faults_fail_with_their_flag() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let z3 = repo().join("checkers/venv/bin/z3");
    let z3 = z3.to_str().unwrap();
    campaign(
        dir,
        &[
            ("z3", words(&[z3, "-smt2", "{file}"])),
            ("cvc5", words(&["cvc5", "--incremental", "{file}"])),
            (
                "small",
                words(&[&fake_solver("z3-small-assumptions.sh"), "{file}"]),
            ),
            (
                "empty",
                words(&[&fake_solver("z3-empty-assumptions.sh"), "{file}"]),
            ),
            (
                "stale",
                words(&[&fake_solver("z3-stale-core.sh"), "{file}"]),
            ),
            (
                "liar",
                words(&[&fake_solver("z3-first-unsat-sat.sh"), "{file}"]),
            ),
        ],
        true,
    );
    let (code, stderr) = run(dir);
    assert_eq!(code, Some(1), "{stderr}");
    let rows = incremental_pairs(dir);
    assert_eq!(rows.len(), 12, "{rows:#?}");
    for solver in ["z3", "cvc5"] {
        for bench in [SCOPES, ASSUMPTIONS] {
            let p = pair(&rows, solver, bench);
            assert_eq!(label(p), "validated", "{p:#}");
            let queries = p["queries"].as_array().unwrap();
            assert!(!queries.is_empty());
            for q in queries {
                assert_eq!(q["verdict"], "validated", "{q:#}");
                // Never judged by its own team.
                let own = if solver == "z3" { "z3" } else { "cvc5" };
                assert!(q["checkers"].get(own).is_none(), "{q:#}");
                assert_eq!(q["checkers"]["yices"], "unsat", "{q:#}");
            }
        }
    }
    // z3 lists the assertions' names among the assumptions, and answers
    // the define-fun assumption `big` as its body: both accepted, said.
    let z3 = pair(&rows, "z3", ASSUMPTIONS);
    let notes = z3["queries"].to_string();
    assert!(
        notes.contains("is an assertion's name, not an assumption: ignored"),
        "{notes}"
    );
    assert!(notes.contains("read as the assumption big"), "{notes}");
    // A too-small assumption core: refuted at the first query, certified.
    let small = pair(&rows, "small", ASSUMPTIONS);
    assert_eq!(
        (label(small), &small["line"]),
        ("refuted".into(), &Value::from(13))
    );
    assert_eq!(small["queries"][0]["refutation"], "certified", "{small:#}");
    // `()` for `false`: refuted where the assertions alone are satisfiable.
    let empty = pair(&rows, "empty", ASSUMPTIONS);
    assert_eq!(label(empty), "refuted", "{empty:#}");
    let fals = &empty["queries"][2];
    assert_eq!(
        (fals["answer"].as_str(), fals["verdict"].as_str()),
        (Some("()"), Some("refuted"))
    );
    // A name of a popped scope.
    let stale = pair(&rows, "stale", SCOPES);
    assert_eq!(label(stale), "ill-formed:popped-scope", "{stale:#}");
    assert_eq!(stale["line"], 22);
    assert!(stale["queries"][1]["why"]
        .as_str()
        .unwrap()
        .contains("popped scope"));
    // `sat` where the script declares `:status unsat` and other solvers'
    // cores prove the query unsat: a contradiction, at that line.
    let liar = pair(&rows, "liar", SCOPES);
    assert_eq!(
        (label(liar), &liar["line"]),
        ("contradiction".into(), &Value::from(12))
    );
    let flags = liar["flags"].to_string();
    assert!(
        flags.contains("line 12: sat, but the script declares :status unsat before it"),
        "{flags}"
    );
    assert!(
        flags.contains("line 12: sat, but cvc5's core on this query was validated (unsat)")
            || flags.contains("line 12: sat, but z3's core on this query was validated (unsat)"),
        "{flags}"
    );
    // Said on stderr and in the report, not in any division's score.
    assert!(
        stderr.contains(
            "incremental: stale on QF_LIA/coreval/scopes.smt2: ill-formed:popped-scope (line 22)"
        ),
        "{stderr}"
    );
    let md = std::fs::read_to_string(dir.join("reports/report.md")).unwrap();
    assert!(md.contains("## Incremental and assumption cores"), "{md}");
    assert!(md.contains("| z3 | 2 | 5 | 5 | 0 |  |"), "{md}");
    assert!(
        md.contains("QF_LIA/coreval/scopes.smt2:22: ill-formed:popped-scope"),
        "{md}"
    );
    let html = std::fs::read_to_string(dir.join("reports/report.html")).unwrap();
    assert!(html.contains("id=\"incremental\""));
    let scores: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("reports/scores.json")).unwrap())
            .unwrap();
    assert_eq!(scores["pairs"], 0, "incremental pairs are not scored");
    assert_eq!(scores["incremental"].as_array().unwrap().len(), 6);
    // The index says which benchmarks are incremental.
    let index = common::read_index(&dir.join("named"));
    assert!(index.iter().all(|e| e.incremental), "{index:?}");
    // A re-run redoes nothing and decides the same.
    let journals = |d: &Path| {
        ["runs.jsonl", "checks.jsonl", "incremental.jsonl"]
            .map(|j| std::fs::read(d.join(j)).unwrap())
    };
    let before = journals(dir);
    let (again, stderr) = run(dir);
    assert_eq!(again, Some(1), "{stderr}");
    assert_eq!(
        journals(dir),
        before,
        "a re-run appended records:\n{stderr}"
    );
    assert!(stderr.contains("0 checker runs"), "{stderr}");
    assert_eq!(incremental_pairs(dir), rows);
}

#[test]
fn without_the_option_incremental_scripts_stay_ineligible() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let z3 = repo().join("checkers/venv/bin/z3");
    campaign(
        dir,
        &[("z3", words(&[z3.to_str().unwrap(), "-smt2", "{file}"]))],
        false,
    );
    let (code, stderr) = run(dir);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stderr.contains("scopes.smt2:7:1: 'push': incremental scripts are not in the track"),
        "{stderr}"
    );
    assert!(
        stderr.contains("check-sat-assuming is not in the track"),
        "{stderr}"
    );
    let index = common::read_index(&dir.join("named"));
    assert!(index.iter().all(|e| !e.incremental && e.output.is_none()));
    assert!(incremental_pairs(dir).is_empty());
}
