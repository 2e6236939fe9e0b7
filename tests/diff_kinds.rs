//! `coreval diff` lists every change of verdict, not only pass/fail (issue
//! 47, item 7): two campaigns in which 56 pairs went from validated to
//! not-validated printed zeros and exited 0. Here each change is counted
//! by kind and listed under what it did (no longer passing, now passing,
//! other changes, new and fixed failures), incremental pairs included, and
//! a pass lost is a regression (exit 1) in campaigns and selfcheck files
//! alike. Each campaign is a real one (z3 on one benchmark, so that `diff`
//! finds it current), whose `reports/pairs.jsonl` is then written anew by
//! coreval's own writer ([`coreval::report::pairs_jsonl::write`]).

mod common;

use coreval::campaign::verdict::pair::PairVerdict;
use serde_json::json;
use std::path::Path;

const BENCH: &str = "QF_UF/cvc5-test_regress_cli_regress0/bt-test-01.smt2";

/// A pair of solver `s` on benchmark `b` whose verdict is `kind`.
fn pair(s: &str, b: &str, kind: &str) -> PairVerdict {
    serde_json::from_value(json!({
        "solver": s, "benchmark": b, "division": "QF_UF", "assertions": 3,
        "core_size": 2, "verdict": {"kind": kind}, "status": "complete",
        "cpu": 1.0, "wall": 1.0, "core": ["a", "b"], "checkers": {},
        "disputed": false, "confirmed_by_own_team": false, "pending": false,
        "flags": [], "core_hash": null, "policy": "smtcomp-2025"
    }))
    .unwrap()
}

/// A campaign folder `dir`, run, whose `reports/pairs.jsonl` then holds
/// the pairs and incremental pairs (solver, script, verdict label).
fn campaign(dir: &Path, pairs: &[PairVerdict], incremental: &[(&str, &str, &str)]) {
    let tmp = dir.parent().unwrap();
    let bench = tmp.join("bench");
    if !bench.exists() {
        common::copy_examples(&bench, &[BENCH]);
    }
    std::fs::create_dir_all(dir).unwrap();
    let config = format!(
        "benchmarks = {}\ncheckers_dir = {}\ncache = {}\n[naming]\nallow_no_status = true\n\
         [limits]\ntime = 20.0\nchecker_time = 20.0\n[check]\ncheckers = [\"yices\"]\n\
         [[solver]]\nname = \"z3\"\ndefinition = \"z3\"\n",
        common::q(&bench),
        common::q(&common::repo().join("checkers")),
        common::q(&tmp.join("cache")),
    );
    std::fs::write(dir.join("campaign.toml"), config).unwrap();
    let out = common::command().arg("run").arg(dir).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let path = dir.join("reports/pairs.jsonl");
    coreval::report::pairs_jsonl::write(&path, pairs, &[], None).unwrap();
    let mut text = std::fs::read_to_string(&path).unwrap();
    for (s, b, v) in incremental {
        let row = json!({
            "solver": s, "benchmark": b, "logic": "QF_UF", "incremental": true,
            "verdict": v, "queries": [], "answers": [], "wall": 1.0, "cpu": 1.0
        });
        text.push_str(&format!("{row}\n"));
    }
    std::fs::write(&path, text).unwrap();
}

/// `coreval diff OLD NEW`: exit code and stdout (a panic fails the test).
fn diff(old: &Path, new: &Path) -> (i32, String, String) {
    let out = common::command()
        .arg("diff")
        .arg(old)
        .arg(new)
        .output()
        .unwrap();
    let r = common::ran::Ran::of(out);
    (r.code, r.stdout, r.stderr)
}

#[test]
fn fifty_six_pairs_no_longer_validated_are_counted_listed_and_a_regression() {
    let tmp = tempfile::tempdir().unwrap();
    let (a, b) = (tmp.path().join("A"), tmp.path().join("B"));
    let bench = |i: usize| format!("QF_UF/b{i:02}.smt2");
    let mut old: Vec<PairVerdict> = (0..60)
        .map(|i| pair("z3", &bench(i), "validated"))
        .collect();
    old.push(pair("z3", "QF_UF/u.smt2", "unknown"));
    old.push(pair("z3", "QF_UF/r.smt2", "refuted"));
    let mut new: Vec<PairVerdict> = (0..60)
        .map(|i| {
            pair(
                "z3",
                &bench(i),
                if i < 56 { "not-validated" } else { "validated" },
            )
        })
        .collect();
    new.push(pair("z3", "QF_UF/u.smt2", "no-answer"));
    new.push(pair("z3", "QF_UF/r.smt2", "sat-answer"));
    campaign(&a, &old, &[("z3", "inc/s.smt2", "validated")]);
    campaign(&b, &new, &[("z3", "inc/s.smt2", "timeout")]);

    let (code, out, err) = diff(&a, &b);
    assert_eq!(code, 1, "a pass lost is a regression\n{out}{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "verdicts changed: 59 of 63 in both runs", "{out}");
    assert_eq!(lines[1], "  validated -> not-validated: 56", "{out}");
    for kind in [
        "  refuted -> sat: 1",
        "  unknown -> no-answer: 1",
        "  validated -> timeout: 1",
    ] {
        assert!(lines[2..5].contains(&kind), "{kind}\n{out}");
    }
    for (section, n) in [
        ("new failures", 0),
        ("fixed failures", 0),
        ("no longer passing", 57),
        ("now passing", 0),
        ("other verdict changes", 2),
    ] {
        assert!(
            out.contains(&format!("\n{section}: {n}\n")),
            "{section}\n{out}"
        );
    }
    for i in 0..56 {
        let row = format!("  z3 {}: validated -> not-validated", bench(i));
        assert!(lines.contains(&row.as_str()), "{row}\n{out}");
    }
    assert!(
        lines.contains(&"  z3 inc/s.smt2: validated -> timeout"),
        "{out}"
    );
    assert_eq!(
        lines.last(),
        Some(&"diff: NEW no longer passes where OLD passed"),
        "{out}"
    );

    // Backwards: the passes come back, nothing is lost.
    let (code, out, _) = diff(&b, &a);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("\nnow passing: 57\n") && out.contains("\nno longer passing: 0\n"),
        "{out}"
    );
    // A run with itself: nothing changed.
    let (code, out, _) = diff(&a, &a);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.starts_with("verdicts changed: 0 of 63 in both runs\n"),
        "{out}"
    );

    // A row that is no pair is an error naming its line, not skipped.
    let path = b.join("reports/pairs.jsonl");
    let mut text = std::fs::read_to_string(&path).unwrap();
    text.push_str("{\"solver\": \"z3\"}\n");
    std::fs::write(&path, &text).unwrap();
    let (code, out, err) = diff(&a, &b);
    assert_eq!(code, 2, "{out}{err}");
    let at = format!("pairs.jsonl:{}", text.lines().count());
    assert!(err.contains(&at), "{at}: {err}");
}

#[test]
fn a_selfcheck_benchmark_that_passed_and_is_now_skipped_is_a_regression() {
    let tmp = tempfile::tempdir().unwrap();
    let file = |name: &str, results: serde_json::Value| {
        let path = tmp.path().join(name);
        let run = json!({"coreval": "selfcheck", "version": "0", "solver": "s",
                         "elapsed": 1.0, "results": results});
        std::fs::write(&path, run.to_string()).unwrap();
        path
    };
    let result = |path: &str, verdict: &str, outcome: &str| json!({"path": path, "verdict": verdict, "outcome": outcome, "core_size": 2});
    let old = file(
        "old.json",
        json!([
            result("a.smt2", "validated", "passed"),
            result("b.smt2", "timeout", "skipped"),
        ]),
    );
    let new = file(
        "new.json",
        json!([
            result("a.smt2", "not-validated", "skipped"),
            result("b.smt2", "validated", "passed"),
        ]),
    );
    let (code, out, _) = diff(&old, &new);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("\nno longer passing: 1\n  a.smt2: validated -> not-validated\n")
            && out.contains("\nnow passing: 1\n  b.smt2: timeout -> validated\n"),
        "{out}"
    );
    assert!(
        out.ends_with("diff: NEW no longer passes where OLD passed\n"),
        "{out}"
    );
}
