//! `coreval score --benchexec-xml DIR` (src/export/benchexec_xml.rs): one
//! BenchExec result file per solver, which BenchExec's own
//! `table-generator` (PyPI, installed by `checkers/install.sh --dev`) turns
//! into its HTML and CSV tables, every pair's status in them: the bundled
//! 2024 results of the `smtcomp` tool (timeouts, memouts, unknowns,
//! validated cores) and a small campaign (a refuted core, a `sat`).
//! Without table-generator the tests say SKIPPED (under `CI` they fail).

mod common;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

fn table_generator() -> Option<PathBuf> {
    let p = common::repo().join("checkers/venv/bin/table-generator");
    p.is_file().then_some(p)
}

/// `coreval score ARGS`; panics with its stderr when it fails.
fn score(args: &[&std::ffi::OsStr]) {
    let out = common::command().arg("score").args(args).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "coreval score failed:\n{err}");
}

/// The files of `dir` whose names end with `suffix`, sorted.
fn files(dir: &Path, suffix: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.to_string_lossy().ends_with(suffix))
        .collect();
    v.sort();
    v
}

/// table-generator on `results`, into `out`: its CSV table as (task
/// name, solver) → status, and its HTML table's text.
fn tables(
    tg: &Path,
    results: &[PathBuf],
    out: &Path,
) -> (HashMap<(String, String), String>, String) {
    let ran = std::process::Command::new(tg)
        .arg("-o")
        .arg(out)
        .arg("-q")
        .args(results)
        .output()
        .unwrap();
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&ran.stdout),
        String::from_utf8_lossy(&ran.stderr)
    );
    assert!(ran.status.success(), "table-generator failed:\n{said}");
    let csv = files(out, ".table.csv");
    let html = files(out, ".table.html");
    assert_eq!((csv.len(), html.len()), (1, 1), "{said}");
    let text = std::fs::read_to_string(&csv[0]).unwrap();
    let lines: Vec<Vec<&str>> = text.lines().map(|l| l.split('\t').collect()).collect();
    // Line 2: the run set of each column (`SOLVER.EDITION`); line 3: the
    // columns' titles.
    let tools = lines
        .iter()
        .find(|l| l[0] == "run set")
        .expect("a run set line");
    let titles = lines
        .iter()
        .position(|l| l.contains(&"status"))
        .expect("a status column");
    let status_columns: Vec<(usize, String)> = lines[titles]
        .iter()
        .enumerate()
        .filter(|(_, t)| **t == "status")
        .map(|(i, _)| {
            let set = tools[i].trim();
            (i, set.trim_end_matches(".smtcomp-2024").to_string())
        })
        .collect();
    assert!(!status_columns.is_empty());
    let mut statuses = HashMap::new();
    for row in &lines[titles + 1..] {
        for (i, tool) in &status_columns {
            let cell = row.get(*i).copied().unwrap_or("");
            if !cell.is_empty() {
                statuses.insert((row[0].to_string(), tool.clone()), cell.to_string());
            }
        }
    }
    (statuses, std::fs::read_to_string(&html[0]).unwrap())
}

/// Every `(solver, benchmark id, status)` in the CSV table: the table names
/// a task by its id, or by the id's tail when a common folder is dropped.
fn assert_every_status(
    table: &HashMap<(String, String), String>,
    expected: &[(String, String, String)],
) {
    assert_eq!(table.len(), expected.len(), "one status per pair");
    for (solver, id, status) in expected {
        let found: Vec<&String> = table
            .iter()
            .filter(|((name, tool), _)| tool == solver && id.ends_with(name.as_str()))
            .map(|(_, s)| s)
            .collect();
        assert_eq!(found, [status], "{solver} on {id}");
    }
}

#[test]
fn the_2024_results_become_benchexec_tables() {
    let Some(tg) = table_generator() else {
        common::missing::skip("table-generator is not installed in checkers/venv");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let data = common::repo().join("tests/data/results");
    let results = data.join("smtcomp2024-results-uc-QF_LinearIntArith.json.gz");
    let out = dir.path().join("bx");
    score(&[
        "--smtcomp-results".as_ref(),
        results.as_os_str(),
        "--smtcomp-benchmarks".as_ref(),
        data.join("smtcomp2024-benchmarks-QF_LinearIntArith.json.gz")
            .as_os_str(),
        "--rules".as_ref(),
        "smtcomp-2024".as_ref(),
        "--benchexec-xml".as_ref(),
        out.as_os_str(),
    ]);
    let written = files(&out, ".xml.bz2");
    let names: Vec<String> = written
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        names,
        ["OpenSMT", "SMTInterpol", "Yices2", "cvc5"]
            .map(|s| format!("{s}.results.smtcomp-2024.xml.bz2"))
    );
    // What each row of the tool's file becomes in BenchExec's words.
    let rows = coreval::store::smtcomp_json::read_results(&results).unwrap();
    let expected: Vec<(String, String, String)> = rows
        .results
        .iter()
        .map(|r| {
            let status = match r.result.as_str() {
                "unsat" => "unsat",
                "Timeout" => "TIMEOUT",
                "OutOfMemory" => "OUT OF MEMORY",
                "unknown" => "unknown",
                other => panic!("no such result in the 2024 file: {other}"),
            };
            (r.solver.clone(), r.file.id(), status.to_string())
        })
        .collect();
    for s in ["TIMEOUT", "OUT OF MEMORY", "unknown", "unsat"] {
        assert!(expected.iter().any(|e| e.2 == s), "{s}");
    }
    let (table, html) = tables(&tg, &written, &dir.path().join("tables"));
    assert_every_status(&table, &expected);
    for solver in ["OpenSMT", "SMTInterpol", "Yices2", "cvc5"] {
        assert!(html.contains(solver), "{solver} in the HTML table");
    }
}

const BENCHMARKS: &[&str] = &[
    "QF_UF/cvc5-test_regress_cli_regress0/bt-test-01.smt2",
    "QF_LRA/opensmt-test_regression_base_QF_LRA/distinct_unsat.smt2",
    "QF_LIA/doc-arithmetic_artifact_z_QF_LIA_prime-cone/prime_cone_unsat_10.smt2",
];

#[test]
fn a_campaigns_pairs_become_benchexec_tables() {
    let Some(tg) = table_generator() else {
        common::missing::skip("table-generator is not installed in checkers/venv");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let camp = dir.path().join("campaign");
    common::faulty_campaign(
        &camp,
        BENCHMARKS,
        "time = 20.0\nmemory_mb = 2000",
        &[("liar", "z3-drop-first.sh"), ("says sat", "always-sat.sh")],
    );
    let out = dir.path().join("bx");
    score(&[
        camp.as_os_str(),
        "--benchexec-xml".as_ref(),
        out.as_os_str(),
    ]);
    let written = files(&out, ".xml.bz2");
    assert_eq!(written.len(), 3, "{written:?}");
    assert!(written
        .iter()
        .any(|p| p.ends_with("says_sat.results.smtcomp-2024.xml.bz2")));
    // The run set's attributes as BenchExec writes them.
    let mut xml = String::new();
    use std::io::Read;
    bzip2::read::BzDecoder::new(std::fs::File::open(&written[0]).unwrap())
        .read_to_string(&mut xml)
        .unwrap();
    for attr in [
        "benchmarkname=\"campaign\"",
        "timelimit=\"20s\"",
        "memlimit=\"2097152000B\"",
        "date=\"",
        "starttime=\"",
        "generator=\"coreval ",
    ] {
        assert!(xml.contains(attr), "{attr} in\n{xml}");
    }
    let pairs = common::jsonl(&camp.join("reports/pairs.jsonl"));
    let expected: Vec<(String, String, String)> = pairs
        .iter()
        .map(|p| {
            let status = match common::verdict(p).as_str() {
                "validated" => "unsat",
                "refuted" => "unsat (core refuted)",
                "sat-answer" => "sat",
                other => panic!("unexpected verdict {other}: {p}"),
            };
            let s = |k: &str| p[k].as_str().unwrap().to_string();
            (s("solver"), s("benchmark"), status.to_string())
        })
        .collect();
    assert!(
        expected.iter().any(|e| e.2 == "unsat (core refuted)"),
        "a refuted core: {expected:?}"
    );
    let (table, html) = tables(&tg, &written, &dir.path().join("tables"));
    assert_every_status(&table, &expected);
    assert!(html.contains("core refuted") && html.contains("says sat"));
}
