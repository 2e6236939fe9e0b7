//! Issue 14, items 1 and 2 in a campaign (`coreval run`), end to end with
//! the real checkers:
//! - a solver that contradicts itself (`unsat`, a core, then `sat`) or
//!   crashes after `unsat` never scores more than the clean answer: no
//!   reduction in any edition; contradictory output is an error under the
//!   editions that count ill-formed output as one. The flag is in
//!   `pairs.jsonl`, `pairs.csv` and a warning of `report.md`;
//! - an inline `[[solver]] command` that runs cvc5 is of team `cvc`, so no
//!   cvc checker judges its cores, whatever `team` it declares; a wrapper
//!   script around z3 is of team z3.
//!
//! Fault injection: `tests/fixtures/fake-solvers/`.

mod common;

use common::{copy_examples, coreval, fake_solver, jsonl, repo};
use coreval::campaign::setup::ConfigFile;
use std::collections::HashMap;
use std::path::Path;

/// z3's minimal cores leave out some assertions of both.
const BENCHMARKS: [&str; 2] = [
    "QF_LIA/doc-arithmetic_artifact_z_QF_LIA_prime-cone/prime_cone_unsat_5.smt2",
    "QF_LIA/doc-arithmetic_artifact_z_QF_LIA_prime-cone/prime_cone_unsat_10.smt2",
];

/// `coreval ARGS DIR`, which must end with 0 or 1; its stderr.
fn run(dir: &Path, args: &[&str]) -> String {
    let out = coreval(args, dir, repo());
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "{args:?}: {:?}\n{stderr}",
        out.status.code()
    );
    stderr
}

/// (solver, benchmark) → (par_e, par_n, contradiction) from `pairs.csv`.
fn scores(dir: &Path) -> HashMap<(String, String), (String, String, String)> {
    let mut r = csv::Reader::from_path(dir.join("reports/pairs.csv")).unwrap();
    let h = r.headers().unwrap().clone();
    let col = |name: &str| h.iter().position(|c| c == name).unwrap();
    let (s, b, e, n, c) = (
        col("solver"),
        col("benchmark"),
        col("par_e"),
        col("par_n"),
        col("contradiction"),
    );
    r.records()
        .map(|row| {
            let row = row.unwrap();
            (
                (row[s].to_string(), row[b].to_string()),
                (row[e].to_string(), row[n].to_string(), row[c].to_string()),
            )
        })
        .collect()
}

#[test]
fn contradictions_score_nothing_and_show_in_the_reports() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    copy_examples(&dir.join("benchmarks"), &BENCHMARKS);
    let mut cfg = ConfigFile::new("benchmarks");
    cfg.cache = Some(dir.join("cache"));
    cfg.jobs = 2;
    cfg.naming.allow_no_status = true;
    cfg.limits.time = Some(20.0);
    cfg.check.checkers = vec!["z3".into(), "yices".into(), "cvc4".into()];
    cfg.check.early_stop = false;
    // z3 with minimal cores, then clean, then `sat`, then SIGSEGV.
    cfg.solver_command("clean", &[&fake_solver("z3-core.sh"), "{file}"])
        .solver_command("contra", &[&fake_solver("z3-then.sh"), "{file}", "sat"])
        .solver_command("crash", &[&fake_solver("z3-then.sh"), "{file}", "segv"])
        .solver_command(
            "mine",
            &[
                "/usr/bin/cvc5",
                "--lang=smt2",
                "--produce-unsat-cores",
                "{file}",
            ],
        );
    cfg.solvers.last_mut().unwrap().team = Some("my-team".into());
    cfg.write_to(dir).unwrap();
    let stderr = run(dir, &["run"]);
    assert!(
        stderr.contains(
            "solver 'mine' runs /usr/bin/cvc5 (checker cvc5): it is of team my-team, cvc, \
             whose checkers do not judge its cores"
        ),
        "{stderr}"
    );

    let pairs = jsonl(&dir.join("reports/pairs.jsonl"));
    for p in &pairs {
        let solver = p["solver"].as_str().unwrap();
        let want = match solver {
            "contra" => Some("contradictory-output"),
            "crash" => Some("failed-after-answer"),
            _ => None,
        };
        assert_eq!(p["contradiction"].as_str(), want, "{p}");
        // z3's core, before what follows it: the checkers validate it.
        assert_eq!(common::verdict(p), "validated", "{p}");
        // cvc5 under another team name is still team cvc: cvc4 stays off;
        // the z3 wrappers are team z3: z3 stays off.
        let judged: Vec<&str> = p["checkers"]
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        let want = if solver == "mine" {
            ["yices", "z3"]
        } else {
            ["cvc4", "yices"]
        };
        assert_eq!(judged, want, "{p}");
    }

    let md = std::fs::read_to_string(dir.join("reports/report.md")).unwrap();
    assert!(
        md.contains("4 pair(s) contradicted themselves or failed after answering: no reduction;"),
        "{md}"
    );
    // smtcomp-2025: ill-formed output is no error; the reduction is withheld.
    let s = scores(dir);
    for b in BENCHMARKS {
        let of = |solver: &str| s[&(solver.to_string(), b.to_string())].clone();
        let clean = of("clean");
        assert!(
            clean.1.parse::<u64>().unwrap() > 0 && clean.0 == "0",
            "{clean:?}"
        );
        assert_eq!(
            of("contra"),
            ("0".into(), "0".into(), "contradictory-output".into())
        );
        assert_eq!(
            of("crash"),
            ("0".into(), "0".into(), "failed-after-answer".into())
        );
    }

    // smtcomp-2019 counts ill-formed output as an error: so is a contradiction.
    let config = std::fs::read_to_string(dir.join("campaign.toml")).unwrap();
    std::fs::write(
        dir.join("campaign.toml"),
        config.replace("rules = \"smtcomp-2025\"", "rules = \"smtcomp-2019\""),
    )
    .unwrap();
    run(dir, &["run", "--stage", "score"]);
    let s = scores(dir);
    for b in BENCHMARKS {
        let of = |solver: &str| s[&(solver.to_string(), b.to_string())].clone();
        assert_eq!(
            of("contra"),
            ("1".into(), "0".into(), "contradictory-output".into())
        );
        assert_eq!(
            of("crash"),
            ("0".into(), "0".into(), "failed-after-answer".into())
        );
        assert_eq!(of("clean").0, "0");
    }
    let md = std::fs::read_to_string(dir.join("reports/report.md")).unwrap();
    assert!(
        md.contains("and contradictory output is an error under this edition"),
        "{md}"
    );
}
