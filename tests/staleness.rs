//! One staleness test for `run`, `score`, `show` and `diff` (issue 47,
//! item 3): what `coreval run` would redo, `score CAMPAIGN` refuses
//! (non-zero exit, reports untouched, each cause said once), and so do
//! `show` and `diff` of the campaign, a benchmark whose content changed
//! since it was named included. Real z3 and yices.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

const BENCHMARKS: &[&str] = &[
    "QF_UF/cvc5-test_regress_cli_regress0/bt-test-01.smt2",
    "QF_UF/cvc5-test_regress_cli_regress0_uf/cnf-iff.smt2",
];

fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(snapshot(&p));
        } else {
            out.insert(p.clone(), std::fs::read(&p).unwrap());
        }
    }
    out
}

/// `coreval ARGS` in `camp`: whether it succeeded, and its stderr.
fn coreval(args: &[&str], camp: &Path) -> (bool, String) {
    let out = common::command()
        .args(args)
        .current_dir(camp)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    (out.status.success(), err)
}

/// The lines of `err` that say `what`.
fn saying<'e>(err: &'e str, what: &str) -> Vec<&'e str> {
    err.lines().filter(|l| l.contains(what)).collect()
}

#[test]
fn after_a_benchmark_changed_score_show_and_diff_refuse_until_run_redoes_it() {
    let dir = tempfile::tempdir().unwrap();
    let camp = dir.path().join("c");
    common::copy_examples(&camp.join("benchmarks"), BENCHMARKS);
    common::real_checkers(&camp.join("defs"));
    std::fs::write(
        camp.join("campaign.toml"),
        r#"benchmarks = "benchmarks"
checkers_dir = "defs"
jobs = 2
[naming]
allow_no_status = true
[limits]
time = 20.0
checker_time = 20.0
[check]
checkers = ["yices"]
[[solver]]
name = "z3"
definition = "z3"
"#,
    )
    .unwrap();
    let c = camp.to_str().unwrap();
    let (ok, err) = coreval(&["run", c], &camp);
    assert!(ok, "{err}");
    let (ok, err) = coreval(&["score", c], &camp);
    assert!(ok, "nothing changed, nothing refused: {err}");
    let reports = snapshot(&camp.join("reports"));

    // The same bytes and a comment: another benchmark for the runs.
    let edited = BENCHMARKS[1];
    let source = camp.join("benchmarks").join(edited);
    let mut text = std::fs::read(&source).unwrap();
    text.extend_from_slice(b"\n; edited\n");
    std::fs::write(&source, text).unwrap();

    let cause = "changed since they were named";
    let (ok, err) = coreval(&["score", c], &camp);
    assert!(!ok, "scored the old verdicts of {edited}: {err}");
    let warned = saying(&err, cause);
    assert_eq!(
        warned.iter().filter(|l| l.starts_with("warning:")).count(),
        1,
        "the cause said once:\n{err}"
    );
    assert_eq!(saying(&err, edited).len(), 1, "{err}");
    assert!(err.contains("left as they were"), "{err}");
    assert_eq!(
        snapshot(&camp.join("reports")),
        reports,
        "reports untouched"
    );

    let (ok, err) = coreval(&["show", c, "z3", BENCHMARKS[0]], &camp);
    assert!(!ok, "show of a stale campaign: {err}");
    assert_eq!(saying(&err, edited).len(), 1, "{err}");
    let (ok, err) = coreval(&["diff", c, c], &camp);
    assert!(!ok, "diff of a stale campaign: {err}");
    assert_eq!(saying(&err, edited).len(), 1, "{err}");
    assert_eq!(
        snapshot(&camp.join("reports")),
        reports,
        "reports untouched"
    );

    // `run` names it again and redoes its pair; then all is current.
    let (ok, err) = coreval(&["run", c], &camp);
    assert!(ok, "{err}");
    assert!(err.contains("benchmark changed"), "{err}");
    for args in [
        &["score", c][..],
        &["show", c, "z3", edited],
        &["diff", c, c],
    ] {
        let (ok, err) = coreval(args, &camp);
        assert!(ok, "{args:?}: {err}");
        assert!(saying(&err, cause).is_empty(), "{args:?}: {err}");
    }
}
