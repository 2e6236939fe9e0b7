//! One team identity for `run` and `selfcheck` (issue 47, item 2): a
//! campaign's solver is of a checker's team when it declares it, when its
//! program has the checker's program's content (a copy of cvc5's binary
//! under another name), or when its runs were seen executing the checker's
//! program (a wrapper script that starts /usr/bin/cvc5 without spelling
//! its name). Such a checker judges none of its cores, and the reports
//! say which of the three left it out. Real cvc5 and yices.

mod common;

use serde_json::Value;
use std::path::Path;

const BENCHMARKS: &[&str] = &[
    "QF_UF/cvc5-test_regress_cli_regress0/bt-test-01.smt2",
    "QF_UF/cvc5-test_regress_cli_regress0_uf/cnf-iff.smt2",
];

fn executable(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
fn a_wrapper_and_a_copy_of_cvc5_are_team_cvc_and_the_report_says_why() {
    let dir = tempfile::tempdir().unwrap();
    let camp = dir.path().join("c");
    common::copy_examples(&camp.join("benchmarks"), BENCHMARKS);
    common::real_checkers(&camp.join("defs"));
    // Neither names cvc5: the script spells the path in two halves, the
    // copy has a name of its own. The benchmark reaches cvc5 after a
    // while, so that it is seen running (a child that lives less than the
    // runner's look at the tree takes may be missed).
    executable(
        &camp.join("wrap.sh"),
        "#!/bin/sh\np=/usr/bin/cv\n{ sleep 0.1; cat \"$1\"; } | \"${p}c5\" --lang=smt2 --minimal-unsat-cores\n",
    );
    std::fs::copy("/usr/bin/cvc5", camp.join("mysolver")).unwrap();
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
checkers = ["cvc5", "yices"]
[[solver]]
name = "wrapped"
team = "mine"
command = ["./wrap.sh", "{file}"]
[[solver]]
name = "copy"
team = "mine"
command = ["./mysolver", "--lang=smt2", "--minimal-unsat-cores", "{file}"]
[[solver]]
name = "declared"
team = "cvc"
command = ["./wrap.sh", "{file}"]
"#,
    )
    .unwrap();
    let out = common::coreval(&["run"], &camp, &camp);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.code().is_some_and(|c| c < 2), "{err}");

    // The wrapper's runs record what its process tree executed.
    let runs = common::jsonl(&camp.join("runs.jsonl"));
    let wrapped = runs.iter().find(|r| r["solver"] == "wrapped").unwrap();
    assert!(
        wrapped["programs"].to_string().contains("/usr/bin/cvc5"),
        "{wrapped}"
    );
    // cvc5 judged no core: every solver is of its team.
    let checks = common::jsonl(&camp.join("checks.jsonl"));
    assert!(!checks.is_empty());
    assert!(
        checks.iter().all(|k| k["checker"] != "cvc5"),
        "cvc5 judged a core of its own team: {checks:?}"
    );
    let pairs = common::jsonl(&camp.join("reports/pairs.jsonl"));
    assert_eq!(pairs.len(), 3 * BENCHMARKS.len());
    for p in &pairs {
        assert!(p["checkers"].get("cvc5").is_none(), "{p}");
        assert!(p["checkers"].get("yices").is_some(), "{p}");
    }

    // The facts say which of the three left cvc5 out, per solver.
    let scores: Value =
        serde_json::from_str(&std::fs::read_to_string(camp.join("reports/scores.json")).unwrap())
            .unwrap();
    let left_out = |name: &str| {
        let s = scores["facts"]["solvers"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == name)
            .unwrap()
            .clone();
        (s["left_out"].clone(), s["judged_by"].clone())
    };
    let yices = serde_json::json!(["yices"]);
    assert_eq!(
        left_out("wrapped"),
        (
            serde_json::json!(["cvc5 (executed by the solver)"]),
            yices.clone()
        )
    );
    assert_eq!(
        left_out("copy"),
        (
            serde_json::json!(["cvc5 (same program content)"]),
            yices.clone()
        )
    );
    assert_eq!(
        left_out("declared"),
        (serde_json::json!(["cvc5 (declared team)"]), yices)
    );
    let md = std::fs::read_to_string(camp.join("reports/report.md")).unwrap();
    assert!(md.contains("cvc5 (executed by the solver)"), "{md}");
    assert!(md.contains("cvc5 (same program content)"), "{md}");
}
