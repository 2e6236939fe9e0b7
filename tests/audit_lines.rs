//! Every audit line true (issue 28): after each kind of edit that
//! provenance covers (a solver's arguments, the time limit, `checker_time`,
//! a checker's build, `checkers_dir`, a benchmark), each "N run(s) redone"
//! and "checker K: … N answer(s) redone" a run prints equals the journal
//! lines that run added for it (a checker that never ran prints nothing), a
//! later unchanged run prints no note and no warning of records of another
//! configuration, and neither does `coreval score`. A `checkers_dir` of
//! links to the same programs redoes nothing. And `coreval score` after a
//! config edit refuses, leaves the reports byte-identical and exits
//! non-zero; `--partial` scores anyway; outputs named on the command line
//! are the only files written; a killed writer's temporary file is
//! removed. Real solvers (z3, yices, cvc5) on three small benchmarks.

mod common;

use serde_json::Value;
use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

const BENCHMARKS: &[&str] = &[
    "QF_UF/cvc5-test_regress_cli_regress0/bt-test-01.smt2",
    "QF_UF/cvc5-test_regress_cli_regress0_uf/cnf-iff.smt2",
    "QF_LRA/opensmt-test_regression_base_QF_LRA/distinct_unsat.smt2",
];

/// What an edit changes in `campaign.toml`.
#[derive(Clone)]
struct Config {
    args: &'static str,
    time: f64,
    checker_time: f64,
    checkers_dir: &'static str,
    early_stop: bool,
}

const BASE: Config = Config {
    args: "[]",
    time: 20.0,
    checker_time: 20.0,
    checkers_dir: "defs",
    early_stop: true,
};

fn write_config(camp: &Path, c: &Config) {
    std::fs::write(
        camp.join("campaign.toml"),
        format!(
            r#"benchmarks = "benchmarks"
checkers_dir = "{dir}"
cache = ".cache"
jobs = 2
[naming]
allow_no_status = true
[limits]
time = {time}
checker_time = {checker_time}
[check]
checkers = ["zw", "yices", "cvc5"]
early_stop = {early_stop}
[[solver]]
name = "z3"
definition = "z3"
args = {args}
"#,
            dir = c.checkers_dir,
            time = c.time,
            checker_time = c.checker_time,
            args = c.args,
            early_stop = c.early_stop,
        ),
    )
    .unwrap();
}

/// `zw`: z3 behind a wrapper script of a team of its own; `build` changes
/// the script's bytes (another build of the checker).
fn write_wrapper(defs: &Path, build: u32) {
    let z3 = common::repo().join("checkers/venv/bin/z3");
    let path = defs.join("zw.sh");
    std::fs::write(
        &path,
        format!("#!/bin/sh\n# build {build}\nexec {} \"$@\"\n", z3.display()),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// A campaign of z3 checked by zw, yices and cvc5, run once.
fn campaign(dir: &Path) -> PathBuf {
    let camp = dir.join("c");
    common::copy_examples(&camp.join("benchmarks"), BENCHMARKS);
    let defs = common::real_checkers(&camp.join("defs"));
    write_wrapper(&defs, 1);
    let z3def = std::fs::read_to_string(defs.join("z3.toml")).unwrap();
    let zw = z3def
        .replace("name = \"z3\"", "name = \"zw\"")
        .replace("team = \"z3\"", "team = \"zw\"")
        .replace("{checkers}/venv/bin/z3", "{checkers}/zw.sh");
    std::fs::write(defs.join("zw.toml"), zw).unwrap();
    write_config(&camp, &BASE);
    run(&camp);
    camp
}

fn run(camp: &Path) -> String {
    let out = common::coreval(&["run"], camp, camp);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "coreval run failed:\n{err}");
    err
}

/// The notes "NAME: WHY: N run(s) redone" (solvers) and "checker NAME:
/// WHY: N answer(s) redone", summed per name.
fn redone(stderr: &str) -> (BTreeMap<String, usize>, BTreeMap<String, usize>) {
    let (mut runs, mut answers) = (BTreeMap::new(), BTreeMap::new());
    for line in stderr.lines() {
        let Some(text) = line.strip_prefix("note: ") else {
            continue;
        };
        let Some(head) = text
            .strip_suffix(" run(s) redone")
            .or_else(|| text.strip_suffix(" answer(s) redone"))
        else {
            continue;
        };
        let (name, rest) = head.split_once(": ").unwrap();
        let n: usize = rest.rsplit(": ").next().unwrap().parse().unwrap();
        match name.strip_prefix("checker ") {
            Some(k) => *answers.entry(k.to_string()).or_default() += n,
            None => *runs.entry(name.to_string()).or_default() += n,
        }
    }
    (runs, answers)
}

fn lines(camp: &Path, journal: &str) -> Vec<Value> {
    let p = camp.join(journal);
    if p.exists() {
        common::jsonl(&p)
    } else {
        Vec::new()
    }
}

/// Run after an edit: every printed count equals the journal lines added
/// for it (a run of a pair, an answer of a checker on a core it had
/// answered before); then an unchanged run and `score` say nothing of
/// records of another configuration. Returns the counts printed.
fn run_and_audit(camp: &Path) -> (BTreeMap<String, usize>, BTreeMap<String, usize>) {
    let (runs0, checks0) = (lines(camp, "runs.jsonl"), lines(camp, "checks.jsonl"));
    let err = run(camp);
    let (runs1, checks1) = (lines(camp, "runs.jsonl"), lines(camp, "checks.jsonl"));
    let (said_runs, said_answers) = redone(&err);
    let mut added_runs: BTreeMap<String, usize> = BTreeMap::new();
    for r in &runs1[runs0.len()..] {
        *added_runs
            .entry(r["solver"].as_str().unwrap().to_string())
            .or_default() += 1;
    }
    let earlier: HashSet<(String, String)> = checks0
        .iter()
        .map(|k| (k["hash"].to_string(), k["checker"].to_string()))
        .collect();
    let mut again: BTreeMap<String, usize> = BTreeMap::new();
    for k in &checks1[checks0.len()..] {
        if earlier.contains(&(k["hash"].to_string(), k["checker"].to_string())) {
            *again
                .entry(k["checker"].as_str().unwrap().to_string())
                .or_default() += 1;
        }
    }
    assert_eq!(said_runs, added_runs, "run notes vs runs.jsonl:\n{err}");
    assert_eq!(said_answers, again, "answer notes vs checks.jsonl:\n{err}");
    // Nothing left to say: an unchanged run, and `score`.
    let err = run(camp);
    assert!(!err.contains("redone"), "{err}");
    assert!(!err.contains("another configuration"), "{err}");
    let out = common::coreval(&["score"], camp, camp);
    let score_err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{score_err}");
    assert!(!score_err.contains("another configuration"), "{score_err}");
    (said_runs, said_answers)
}

#[test]
fn solver_arguments_edited() {
    let dir = tempfile::tempdir().unwrap();
    let camp = campaign(dir.path());
    let edited = Config {
        args: "[\"-v:0\"]",
        ..BASE
    };
    write_config(&camp, &edited);
    let (runs, _) = run_and_audit(&camp);
    assert_eq!(runs.get("z3"), Some(&BENCHMARKS.len()), "{runs:?}");
}

#[test]
fn time_limit_edited() {
    let dir = tempfile::tempdir().unwrap();
    let camp = campaign(dir.path());
    write_config(&camp, &Config { time: 19.0, ..BASE });
    let (runs, answers) = run_and_audit(&camp);
    assert_eq!(runs.get("z3"), Some(&BENCHMARKS.len()), "{runs:?}");
    assert!(answers.is_empty(), "same cores, same checkers: {answers:?}");
}

#[test]
fn checker_time_edited() {
    let dir = tempfile::tempdir().unwrap();
    let camp = campaign(dir.path());
    write_config(
        &camp,
        &Config {
            checker_time: 19.0,
            ..BASE
        },
    );
    let (runs, answers) = run_and_audit(&camp);
    assert!(runs.is_empty(), "{runs:?}");
    assert!(!answers.is_empty(), "the answers are asked again");
}

#[test]
fn checker_build_changed() {
    // Early stop on: yices and cvc5 settle the cores, the new build of zw
    // is not needed, never runs and says nothing.
    let dir = tempfile::tempdir().unwrap();
    let camp = campaign(dir.path());
    write_wrapper(&camp.join("defs"), 2);
    let (runs, answers) = run_and_audit(&camp);
    assert!(runs.is_empty(), "{runs:?}");
    assert!(answers.keys().all(|k| k == "zw"), "{answers:?}");
}

#[test]
fn checker_build_changed_without_early_stop() {
    // Every checker asks every core: the new build of zw answers each again.
    let dir = tempfile::tempdir().unwrap();
    let camp = campaign(dir.path());
    let all = Config {
        early_stop: false,
        ..BASE
    };
    write_config(&camp, &all);
    run(&camp);
    write_wrapper(&camp.join("defs"), 2);
    let (runs, answers) = run_and_audit(&camp);
    assert!(runs.is_empty(), "{runs:?}");
    assert_eq!(
        answers.keys().collect::<Vec<_>>(),
        ["zw"],
        "only the new build is asked again: {answers:?}"
    );
}

#[test]
fn checkers_dir_of_links_redoes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let camp = campaign(dir.path());
    // Another folder of definitions: links to the same files and programs.
    let links = camp.join("links");
    std::fs::create_dir(&links).unwrap();
    for e in std::fs::read_dir(camp.join("defs")).unwrap() {
        let e = e.unwrap();
        std::os::unix::fs::symlink(e.path(), links.join(e.file_name())).unwrap();
    }
    write_config(
        &camp,
        &Config {
            checkers_dir: "links",
            ..BASE
        },
    );
    let (runs0, checks0) = (lines(&camp, "runs.jsonl"), lines(&camp, "checks.jsonl"));
    let (runs, answers) = run_and_audit(&camp);
    assert!(
        runs.is_empty() && answers.is_empty(),
        "{runs:?} {answers:?}"
    );
    assert_eq!(lines(&camp, "runs.jsonl").len(), runs0.len());
    assert_eq!(lines(&camp, "checks.jsonl").len(), checks0.len());
}

#[test]
fn benchmark_edited() {
    let dir = tempfile::tempdir().unwrap();
    let camp = campaign(dir.path());
    let f = camp.join("benchmarks").join(BENCHMARKS[0]);
    let text = std::fs::read_to_string(&f).unwrap();
    let edited = text.replacen("(check-sat)", "(assert true)\n(check-sat)", 1);
    assert_ne!(edited, text);
    std::fs::write(&f, edited).unwrap();
    let (runs, _) = run_and_audit(&camp);
    assert_eq!(runs.get("z3"), Some(&1), "{runs:?}");
}

/// Every file below `dir` with its bytes.
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

#[test]
fn score_after_a_config_edit_leaves_the_reports_as_they_were() {
    let dir = tempfile::tempdir().unwrap();
    let camp = campaign(dir.path());
    let reports = camp.join("reports");
    let before = snapshot(&reports);
    assert!(before.keys().any(|p| p.ends_with("pairs.jsonl")));
    write_config(&camp, &Config { time: 19.0, ..BASE });

    let out = common::coreval(&["score"], &camp, &camp);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success(),
        "a score without the redone runs: {err}"
    );
    assert!(err.contains("left as they were"), "{err}");
    let warnings: Vec<&str> = err.lines().filter(|l| l.starts_with("warning:")).collect();
    assert!(!warnings.is_empty(), "{err}");
    let distinct: HashSet<&&str> = warnings.iter().collect();
    assert_eq!(distinct.len(), warnings.len(), "each cause once:\n{err}");
    assert_eq!(snapshot(&reports), before, "reports byte-identical");

    // Named outputs are the only files written; --partial scores anyway;
    // a temporary file a killed writer left is removed.
    let torn = reports.join(".report.html.x1Yz2.coreval-tmp");
    std::fs::write(&torn, "half a report").unwrap();
    let elsewhere = dir.path().join("elsewhere/scores.json");
    let out = common::command()
        .arg("score")
        .arg(&camp)
        .arg("--partial")
        .arg("--json")
        .arg(&elsewhere)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(elsewhere.is_file());
    assert!(!torn.exists(), "the leftover temporary file is removed");
    assert_eq!(snapshot(&reports), before, "only --json was written");
    let written = std::fs::read_dir(elsewhere.parent().unwrap())
        .unwrap()
        .count();
    assert_eq!(written, 1, "no temporary file left beside the output");

    // Once redone, `score` publishes again.
    run(&camp);
    let out = common::coreval(&["score"], &camp, &camp);
    assert!(out.status.success());
}
