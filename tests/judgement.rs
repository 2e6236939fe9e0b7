//! One judgement in every mode (docs/reliability.md, "Certified
//! refutations" and "Faults on coreval's side"):
//!
//! - the certification matrix: real z3 cores (valid) checked only by
//!   checkers that misbehave in one way each (no model, an incomplete,
//!   wrong or unreadable model, a model run that times out, a timeout, a
//!   crash, an error, silence, a flood), under every current preset, in a
//!   campaign and in selfcheck: no valid core is ever charged an error;
//! - a `sat` is an error only on a benchmark known to be unsat;
//! - coreval's own faults (a named file that vanishes while its solver
//!   runs, a model script that cannot be written) leave the work undone,
//!   and the next run does it.

mod common;

use common::{command, fake_solver, jsonl, q, repo, verdict};
use coreval::campaign::verdict::policy::Policy;
use std::path::Path;

const LIA: &str = "QF_LIA/doc-arithmetic_artifact_z_QF_LIA_prime-cone/prime_cone_unsat_3.smt2";
const LRA: &str = "QF_LRA/opensmt-test_regression_base_QF_LRA/distinct_unsat.smt2";

/// Every misbehaviour of `tests/fixtures/fake-solvers/misbehave.sh`.
const MODES: &[&str] = &[
    "no-model",
    "incomplete",
    "wrong",
    "unreadable",
    "model-timeout",
    "timeout",
    "crash",
    "error",
    "silence",
    "flood",
];

/// The current presets (those that count only certified `sat` votes),
/// from the list every command accepts; `quorum:K` as 1 and 2.
fn current_presets() -> Vec<String> {
    Policy::PRESETS
        .iter()
        .flat_map(|p| match *p {
            "quorum:K" => vec!["quorum:1".to_string(), "quorum:2".to_string()],
            p => vec![p.to_string()],
        })
        .filter(|p| !p.parse::<Policy>().unwrap().counts_uncertified_votes())
        .collect()
}

/// A definition of the checker `name` running misbehave.sh in `mode`.
fn misbehaving(defs: &Path, name: &str, mode: &str) {
    std::fs::create_dir_all(defs).unwrap();
    let def = format!(
        "name = \"{name}\"\nteam = \"{name}\"\ncommand = [{}, \"{mode}\", \"{{file}}\"]\n\
         logics = [\"*\"]\nproduces_cores = false\nversion_command = [\"/bin/echo\", \"1.0\"]\n\
         install_hint = \"none\"\n",
        q(Path::new(&fake_solver("misbehave.sh")))
    );
    std::fs::write(defs.join(format!("{name}.toml")), def).unwrap();
}

/// A campaign folder over copies of corpus benchmarks.
fn campaign(dir: &Path, benchmarks: &[&str], extra: &str) {
    for b in benchmarks {
        let to = dir.join("benchmarks").join(b);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(repo().join("tests/data/benchmarks").join(b), &to).unwrap();
    }
    let config = format!(
        "benchmarks = \"benchmarks\"\njobs = 2\ncache = \".cache\"\ncheckers_dir = \"defs\"\n{extra}\n\
         [naming]\nallow_no_status = true\n[limits]\ntime = 20.0\nchecker_time = 3.0\n"
    );
    std::fs::write(dir.join("campaign.toml"), config).unwrap();
}

/// `coreval ARGS DIR` beside DIR: exit code and stderr (never a panic).
fn coreval(args: &[&str], dir: &Path) -> (Option<i32>, String) {
    let out = command()
        .args(args)
        .arg(dir)
        .current_dir(dir.parent().unwrap())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!err.contains("panicked"), "{err}");
    (out.status.code(), err)
}

fn pairs(dir: &Path) -> Vec<serde_json::Value> {
    jsonl(&dir.join("reports/pairs.jsonl"))
}

#[test]
fn no_checker_misbehaviour_charges_a_valid_core_with_an_error_in_a_campaign() {
    let presets = current_presets();
    assert!(presets.len() >= 4, "{presets:?}");
    for mode in MODES {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("c");
        for preset in &presets {
            // The case beside each mode: a checker that never answers.
            let cfg = format!(
                "[check]\ncheckers = [\"bad\", \"sleeper\"]\nearly_stop = false\npolicy = \"{preset}\"\n\
                 [[solver]]\nname = \"z3\"\ncommand = [{}, \"{{file}}\"]\n",
                q(Path::new(&fake_solver("z3-core.sh")))
            );
            campaign(&dir, &[LIA, LRA], &cfg);
            misbehaving(&dir.join("defs"), "bad", mode);
            misbehaving(&dir.join("defs"), "sleeper", "timeout");
            let (code, err) = coreval(&["run"], &dir);
            assert_eq!(code, Some(0), "{mode} under {preset}: {err}");
            let all = pairs(&dir);
            assert_eq!(all.len(), 2, "{mode}");
            for p in &all {
                let v = verdict(p);
                assert!(
                    !["refuted", "sat-answer"].contains(&v.as_str())
                        && !v.starts_with("ill-formed"),
                    "{mode} under {preset}: a valid z3 core charged an error: {p}"
                );
            }
        }
    }
}

#[test]
fn no_checker_misbehaviour_fails_a_valid_core_in_selfcheck() {
    let z3 = fake_solver("z3-core.sh");
    let bench = repo().join("tests/fixtures/selfcheck/unsat/QF_LIA/prime_cone_unsat_3.smt2");
    for mode in MODES {
        let tmp = tempfile::tempdir().unwrap();
        let defs = tmp.path().join("defs");
        misbehaving(&defs, "bad", mode);
        for preset in current_presets() {
            let out = command()
                .current_dir(tmp.path())
                .env("COREVAL_CACHE", tmp.path().join("cache"))
                .args(["selfcheck", "--solver", &format!("{z3} {{file}}")])
                .arg("--checkers-dir")
                .arg(&defs)
                .args([
                    "--checkers",
                    "bad",
                    "--no-references",
                    "--checker-timeout",
                    "3",
                ])
                .args(["--policy", &preset])
                .arg(&bench)
                .output()
                .unwrap();
            let text = format!(
                "{}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
            assert!(!text.contains("panicked"), "{text}");
            assert!(
                !text.lines().any(|l| l.starts_with("FAIL")),
                "{mode} under {preset}: {text}"
            );
            assert_ne!(out.status.code(), Some(1), "{mode} under {preset}: {text}");
        }
    }
}

#[test]
fn a_sat_is_an_error_only_on_a_benchmark_known_unsat() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("c");
    let cfg = format!(
        "[check]\ncheckers = [\"z3\", \"yices\"]\n\
         [[solver]]\nname = \"z3\"\ncommand = [{}, \"{{file}}\"]\n\
         [[solver]]\nname = \"yes\"\ncommand = [{}, \"{{file}}\"]\n",
        q(Path::new(&fake_solver("z3-core.sh"))),
        q(Path::new(&fake_solver("always-sat.sh")))
    );
    campaign(&dir, &[LIA], &cfg);
    common::real_checkers(&dir.join("defs"));
    // A satisfiable benchmark without :status, and an unsat one whose
    // status is taken away: z3's validated core shows it unsat.
    let edge = repo().join("tests/fixtures/selfcheck/edges/sat-no-status.smt2");
    std::fs::create_dir_all(dir.join("benchmarks/QF_LIA/edge")).unwrap();
    std::fs::copy(&edge, dir.join("benchmarks/QF_LIA/edge/sat-no-status.smt2")).unwrap();
    let lia = dir.join("benchmarks").join(LIA);
    let text = std::fs::read_to_string(&lia).unwrap();
    std::fs::write(&lia, text.replace("(set-info :status unsat)", "")).unwrap();
    let (code, err) = coreval(&["run"], &dir);
    let by = |solver: &str, bench: &str| -> String {
        let all = pairs(&dir);
        let p = all
            .iter()
            .find(|p| p["solver"] == solver && p["benchmark"].as_str().unwrap().contains(bench))
            .unwrap_or_else(|| panic!("{solver} {bench}: {all:?}"));
        verdict(p)
    };
    assert_eq!(by("z3", "prime_cone"), "validated", "{err}");
    assert_eq!(
        by("yes", "prime_cone"),
        "sat-answer",
        "known unsat by z3's validated core"
    );
    assert_eq!(by("z3", "sat-no-status"), "sat-unconfirmed", "{err}");
    assert_eq!(by("yes", "sat-no-status"), "sat-unconfirmed");
    assert_eq!(code, Some(1), "the wrong sat fails the run: {err}");
    let md = std::fs::read_to_string(dir.join("reports/report.md")).unwrap();
    assert!(
        md.contains("sat-unconfirmed"),
        "the report lists them: {md}"
    );
}

#[test]
fn a_named_file_that_vanishes_during_its_run_is_redone_by_the_next_run() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("c");
    let marker = tmp.path().join("vanish-once");
    std::fs::write(&marker, "").unwrap();
    let cfg = format!(
        "[check]\ncheckers = [\"z3\", \"yices\"]\n\
         [[solver]]\nname = \"z3\"\ncommand = [{}, {}, \"{{file}}\"]\n",
        q(Path::new(&fake_solver("z3-vanish-once.sh"))),
        q(&marker)
    );
    campaign(&dir, &[LIA], &cfg);
    common::real_checkers(&dir.join("defs"));
    let (code, err) = coreval(&["run"], &dir);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("left undone") && err.contains("vanished during the run"),
        "{err}"
    );
    let runs = dir.join("runs.jsonl");
    assert!(!runs.exists() || jsonl(&runs).is_empty(), "no outcome kept");
    let (code, err) = coreval(&["run"], &dir);
    assert_eq!(code, Some(0), "{err}");
    assert!(!err.contains("1 already done"), "{err}");
    assert_eq!(verdict(&pairs(&dir)[0]), "validated");
}

#[test]
fn a_model_script_that_cannot_be_written_is_asked_again_by_the_next_run() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("c");
    let cfg = format!(
        "[check]\ncheckers = [\"z3\", \"yices\"]\nearly_stop = false\n\
         [[solver]]\nname = \"planted\"\ncommand = [{}, \"20000\", \"{{file}}\"]\n",
        q(Path::new(&fake_solver("planted-minus-one.sh")))
    );
    campaign(&dir, &[LIA], &cfg);
    common::real_checkers(&dir.join("defs"));
    // Where the model scripts go, a file: every write there fails.
    std::fs::create_dir_all(dir.join("cores")).unwrap();
    std::fs::write(dir.join("cores/models"), "in the way").unwrap();
    let (code, err) = coreval(&["run"], &dir);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("not kept: a fault on coreval's side"), "{err}");
    let checks = jsonl(&dir.join("checks.jsonl"));
    assert!(
        checks.iter().all(|r| r["answer"] != "sat"),
        "no sat kept without its certification: {checks:?}"
    );
    std::fs::remove_file(dir.join("cores/models")).unwrap();
    let (code, err) = coreval(&["run"], &dir);
    assert_eq!(code, Some(1), "{err}");
    let p = &pairs(&dir)[0];
    assert_eq!(verdict(p), "refuted", "{p}");
    let checks = jsonl(&dir.join("checks.jsonl"));
    assert!(checks
        .iter()
        .filter(|r| r["answer"] == "sat")
        .all(|r| r["certification"]["status"] == "certified"));
}
