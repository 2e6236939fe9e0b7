//! An error only on evidence (issue 28): a campaign of real solvers (z3,
//! cvc5) checked by real checkers (z3, cvc5) plus one checker of its own
//! definition and team, `liar` (`tests/fixtures/fake-solvers/always-sat.sh`),
//! that answers `sat` to everything and prints no model when asked. Under
//! the current presets (`smtcomp-2025`, `unanimous`, `quorum:1`) no valid
//! core of any solver is scored as an error, not even cvc5's, whose own
//! team is left out so that z3's `unsat` stands alone against the unproven
//! `sat`; the pair is disputed. Under a past edition's preset
//! (`smtcomp-2016`) the edition's own count stands, with the refutation
//! marked uncertified. The solver's own team is shown left out in every
//! view (pairs.jsonl, the detail view, `coreval show`), and `coreval show`
//! prints the verdict, the votes with their certification, the core with
//! the line of each assertion and commands that repeat the runs.

mod common;

use serde_json::Value;
use std::path::{Path, PathBuf};

const BENCHMARKS: &[&str] = &[
    "QF_UF/cvc5-test_regress_cli_regress0/bt-test-01.smt2",
    "QF_LRA/opensmt-test_regression_base_QF_LRA/distinct_unsat.smt2",
];

fn campaign(dir: &Path, policy: &str) -> PathBuf {
    let camp = dir.join(policy.replace(':', "-"));
    common::copy_examples(&camp.join("benchmarks"), BENCHMARKS);
    let defs = common::real_checkers(&camp.join("defs"));
    std::fs::write(
        defs.join("liar.toml"),
        format!(
            "name = \"liar\"\nteam = \"liar\"\ncommand = [{:?}, \"{{file}}\"]\nlogics = [\"*\"]\n\
             produces_cores = false\nversion_command = [\"/bin/echo\", \"1\"]\ninstall_hint = \"tests/fixtures\"\n",
            common::fake_solver("always-sat.sh")
        ),
    )
    .unwrap();
    let solvers = "[[solver]]\nname = \"z3\"\ndefinition = \"z3\"\n\
                   [[solver]]\nname = \"cvc5\"\ndefinition = \"cvc5\"\n";
    write_config(&camp, r#"["z3", "cvc5", "liar"]"#, policy, solvers);
    camp
}

/// `campaign.toml`: the benchmarks and definitions below `camp`, 20 s limits.
fn write_config(camp: &Path, checkers: &str, policy: &str, solvers: &str) {
    std::fs::write(
        camp.join("campaign.toml"),
        format!(
            "benchmarks = \"benchmarks\"\ncheckers_dir = \"defs\"\njobs = 2\n\
             [naming]\nallow_no_status = true\n[limits]\ntime = 20.0\nchecker_time = 20.0\n\
             [check]\ncheckers = {checkers}\npolicy = \"{policy}\"\n{solvers}"
        ),
    )
    .unwrap();
}

fn run(camp: &Path) -> Vec<Value> {
    let out = common::coreval(&["run"], camp, camp);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(matches!(out.status.code(), Some(0 | 1)), "{err}");
    common::jsonl(&camp.join("reports/pairs.jsonl"))
}

#[test]
fn an_unproven_sat_charges_no_error_under_the_current_presets() {
    let dir = tempfile::tempdir().unwrap();
    let policies = ["smtcomp-2025", "unanimous", "quorum:1", "smtcomp-2016"];
    let camps: Vec<PathBuf> = policies.iter().map(|p| campaign(dir.path(), p)).collect();
    let results: Vec<Vec<Value>> = std::thread::scope(|s| {
        let handles: Vec<_> = camps.iter().map(|c| s.spawn(|| run(c))).collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for (policy, pairs) in policies.iter().zip(&results) {
        assert_eq!(pairs.len(), 2 * BENCHMARKS.len(), "{policy}");
        for p in pairs {
            let v = common::verdict(p);
            // Every pair has the liar's `sat`, uncertified: no model.
            let cert = &p["certifications"]["liar"];
            assert_eq!(cert["status"], "uncertified", "{policy}: {p}");
            assert!(
                cert["why"].as_str().unwrap().contains("no model"),
                "{policy}: {p}"
            );
            assert_eq!(
                p["disputed"], true,
                "{policy}: an unsat stands beside it: {p}"
            );
            if *policy == "smtcomp-2016" {
                // A past edition counts as it did, the certification beside it.
                assert_eq!(v, "refuted", "{p}");
                assert_eq!(p["refutation"], "uncertified", "{p}");
            } else {
                assert_ne!(
                    v, "refuted",
                    "{policy}: a valid core scored as an error: {p}"
                );
                assert_eq!(p["checkers"]["liar"], "other", "{policy}: {p}");
            }
            // The solver's own team is left out, never counted.
            let own = p["solver"].as_str().unwrap();
            assert!(p["checkers"].get(own).is_none(), "{p}");
            assert_eq!(
                p["not_counted"][own], "left out: the solver's own team (declared team)",
                "{policy}: {p}"
            );
        }
        if *policy == "smtcomp-2025" {
            // cvc5's cores: z3's one `unsat` against the unproven `sat`.
            for p in pairs.iter().filter(|p| p["solver"] == "cvc5") {
                assert_eq!(common::verdict(p), "validated", "{p}");
            }
        }
    }

    // The detail view: every pair has one; the left-out team is shown so.
    let camp = &camps[0];
    let page = std::fs::read_to_string(camp.join("reports/report.html")).unwrap();
    for i in 0..results[0].len() {
        assert!(
            page.contains(&format!("id=\"pair-{i}\"")),
            "no detail view {i}"
        );
    }
    assert!(
        page.contains("left out: the solver&#39;s own team")
            || page.contains("left out: the solver's own team")
    );

    // `coreval show` in a terminal.
    let out = common::command()
        .args(["show"])
        .arg(camp)
        .args(["cvc5", BENCHMARKS[0]])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.starts_with(&format!("cvc5 on {}: validated, disputed", BENCHMARKS[0])),
        "{text}"
    );
    assert!(text.contains("liar 1: sat → counted as other"), "{text}");
    assert!(
        text.contains("uncertified: the checker printed no model"),
        "{text}"
    );
    assert!(
        text.contains("cvc5") && text.contains("left out: the solver's own team"),
        "{text}"
    );
    assert!(
        text.contains("z3 ") && text.contains(": unsat → unsat"),
        "{text}"
    );
    // The core, each name with its line in the named benchmark.
    let named = camp.join("named");
    let core_lines: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.starts_with("core: "))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .collect();
    assert!(!core_lines.is_empty(), "{text}");
    for l in &core_lines {
        let (name, at) = l.trim().split_once("  ").unwrap();
        let (file, line) = at.rsplit_once(':').unwrap();
        let src = std::fs::read_to_string(camp.join(file)).unwrap();
        let line: usize = line.parse().unwrap();
        let from_line: String = src.lines().skip(line - 1).collect::<Vec<_>>().join("\n");
        let assertion = from_line.split("(assert").nth(1).unwrap();
        assert!(
            assertion.contains(&format!(":named {name}")),
            "{name} at {file}:{line}"
        );
        assert!(camp.join(file).starts_with(&named));
    }
    // Each command repeats its run from the campaign folder.
    let commands: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.starts_with("to repeat"))
        .skip(1)
        .filter(|l| !l.trim_start().starts_with('#'))
        .collect();
    assert_eq!(commands.len(), 1 + 3, "solver and three checkers: {text}");
    let solver = std::process::Command::new("sh")
        .arg("-c")
        .arg(commands[0].trim())
        .current_dir(camp)
        .output()
        .unwrap();
    let printed = String::from_utf8_lossy(&solver.stdout);
    assert_eq!(
        printed.lines().next(),
        Some("unsat"),
        "{}: {printed}",
        commands[0]
    );
}

/// The model of a certified refutation is kept, named in the check record
/// and shown in the detail view and by `coreval show`.
#[test]
fn the_model_of_a_certified_refutation_is_kept_and_shown() {
    let dir = tempfile::tempdir().unwrap();
    let camp = dir.path().join("c");
    common::copy_examples(&camp.join("benchmarks"), BENCHMARKS);
    common::real_checkers(&camp.join("defs"));
    let liar = common::fake_solver("z3-drop-first.sh");
    let solver = format!("[[solver]]\nname = \"liar\"\ncommand = [{liar:?}, \"{{file}}\"]\n");
    write_config(&camp, r#"["yices", "cvc5"]"#, "smtcomp-2025", &solver);
    run(&camp);
    let checks = common::jsonl(&camp.join("checks.jsonl"));
    let certified: Vec<&Value> = checks
        .iter()
        .filter(|k| k["certification"]["status"] == "certified")
        .collect();
    assert!(!certified.is_empty(), "a certified refutation: {checks:?}");
    for k in &certified {
        let model = k["model"].as_str().expect("the model's file is named");
        let text = std::fs::read_to_string(camp.join(model)).unwrap();
        assert!(text.contains("define-fun"), "{model}: {text}");
    }
    let pairs = common::jsonl(&camp.join("reports/pairs.jsonl"));
    let p = pairs
        .iter()
        .find(|p| p["refutation"] == "certified")
        .expect("a certified refutation");
    let bench = p["benchmark"].as_str().unwrap();
    let page = std::fs::read_to_string(camp.join("reports/report.html")).unwrap();
    assert!(
        page.contains("cores/models/") && page.contains(".model"),
        "the model is linked"
    );
    let out = common::command()
        .arg("show")
        .arg(&camp)
        .args(["liar", bench])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("refuted (certified)"), "{text}");
    assert!(text.contains("model (cores/models/"), "{text}");
    assert!(text.contains("define-fun"), "{text}");
}
