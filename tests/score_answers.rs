//! `coreval score --answers` on real answer-track data reproduces the
//! published pages: the 2019 single-query results for strings
//! (`tests/data/results/smtcomp2019-single-query-strings.csv.gz`) against
//! the QF_S and QF_SLIA pages copied in `tests/data/results/PUBLISHED.md`
//! (errors, correct, CPU, wall, solved, solved sat/unsat, timeouts, memouts,
//! order, competing). The expected values are parsed from PUBLISHED.md.

mod common;

use assert_cmd::Command;
use serde_json::Value;
use std::path::{Path, PathBuf};

fn data(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(rel)
}

/// The table rows (13 cells) of the PUBLISHED.md section headed `heading`.
fn published(heading: &str) -> (u64, Vec<Vec<String>>) {
    let text = std::fs::read_to_string(data("results/PUBLISHED.md")).unwrap();
    let from = text.find(heading).expect(heading);
    let rest = &text[from..];
    let sec = &rest[..rest[1..].find("\n#").map_or(rest.len(), |i| i + 1)];
    let benchmarks = sec
        .split('(')
        .nth(1)
        .and_then(|s| s.split_whitespace().next())
        .unwrap()
        .parse()
        .unwrap();
    let rows = sec
        .lines()
        .filter(|l| l.starts_with('|'))
        .map(|l| {
            l.trim_matches('|')
                .split('|')
                .map(|c| c.trim().to_string())
                .collect::<Vec<_>>()
        })
        .filter(|r| r.len() == 13 && !r[0].starts_with("solver") && !r[0].starts_with("---"))
        .collect();
    (benchmarks, rows)
}

/// Printed as the 2019 pages did: rounded to thousandths.
fn same(ours: f64, published: &str) -> bool {
    let decimals = published.split('.').nth(1).map_or(0, str::len);
    let r = (ours * 1000.0).round() / 1000.0;
    format!("{r:.decimals$}") == published
}

#[test]
fn smtcomp2019_single_query_strings_as_published() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("out.json");
    let md = dir.path().join("out.md");
    let html = dir.path().join("out.html");
    Command::cargo_bin("coreval")
        .unwrap()
        .args(["score", "--answers", "sq-2019", "--starexec"])
        .arg(data("results/smtcomp2019-single-query-strings.csv.gz"))
        .arg("--participants")
        .arg(data("participants-2019-single-query-strings.csv"))
        .arg("--json")
        .arg(&json)
        .arg("--markdown")
        .arg(&md)
        .arg("--html")
        .arg(&html)
        .assert()
        .success();
    let report: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(report["edition"], "sq-2019");
    assert_eq!(report["answers_preset"], "sq-2019");
    assert_eq!(report["rules"]["time_limit"].as_f64(), Some(2400.0));
    let mut checked = 0;
    for logic in ["QF_S", "QF_SLIA"] {
        let (benchmarks, table) = published(&format!("### 2019 single query {logic} ("));
        let div = report["divisions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|d| d["name"] == logic)
            .expect(logic);
        assert_eq!(div["benchmarks"].as_u64(), Some(benchmarks), "{logic}");
        for mode in ["sequential", "parallel"] {
            let rows: Vec<&Vec<String>> = table.iter().filter(|r| r[3] == mode).collect();
            let ours = div[mode]["solvers"].as_array().unwrap();
            assert_eq!(ours.len(), rows.len(), "{logic} {mode}");
            for (s, r) in ours.iter().zip(rows) {
                let what = format!("{logic} {mode} {}", r[0]);
                assert_eq!(s["solver"], r[1].as_str(), "{what}: published order");
                assert_eq!(s["display"], r[0].as_str(), "{what}");
                assert_eq!(s["competing"], r[2] == "yes", "{what}");
                let solved = s["sat"].as_f64().unwrap() + s["unsat"].as_f64().unwrap();
                for (ours, cell) in [
                    (s["errors"].as_f64().unwrap(), &r[4]),
                    (s["correct"].as_f64().unwrap(), &r[5]),
                    (s["cpu"].as_f64().unwrap(), &r[6]),
                    (s["wall"].as_f64().unwrap(), &r[7]),
                    (solved, &r[8]),
                    (s["sat"].as_f64().unwrap(), &r[9]),
                    (s["unsat"].as_f64().unwrap(), &r[10]),
                    (s["timeouts"].as_f64().unwrap(), &r[11]),
                    (s["memouts"].as_f64().unwrap(), &r[12]),
                ] {
                    assert!(same(ours, cell), "{what}: {ours} published {cell}");
                    checked += 1;
                }
            }
        }
    }
    assert_eq!(checked, (2 + 4) * 9);
    // the same renderers as for cores
    let md = std::fs::read_to_string(&md).unwrap();
    assert!(
        md.starts_with("# Answer scores (sq-2019") && md.contains("| errors | correct |"),
        "{md}"
    );
    assert!(md.contains("QF_SLIA") && md.contains("2018-CVC4"), "{md}");
    assert!(std::fs::read_to_string(&html).unwrap().contains("QF_SLIA"));
}

#[test]
fn answers_refuse_unknown_presets_and_core_options() {
    let out = Command::cargo_bin("coreval")
        .unwrap()
        .args(["score", "--answers", "sq-2018", "--starexec"])
        .arg(data("results/smtcomp2019-single-query-strings.csv.gz"))
        .assert()
        .failure();
    let err = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert!(
        err.contains("unknown answer preset `sq-2018`") && err.contains("sq-2019"),
        "{err}"
    );
    let out = Command::cargo_bin("coreval")
        .unwrap()
        .args([
            "score",
            "--answers",
            "sq-2019",
            "--rules",
            "smtcomp-2019",
            "--starexec",
        ])
        .arg(data("results/smtcomp2019-single-query-strings.csv.gz"))
        .assert()
        .failure();
    let err = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert!(err.contains("--rules"), "{err}");
}

/// A campaign's own answers: its current solve records, scored with the
/// benchmark's declared status as the expected answer (every benchmark of
/// the bundled example is declared `unsat`).
#[test]
fn a_campaigns_own_answers_are_scored() {
    let dir = tempfile::tempdir().unwrap();
    let camp = dir.path().join("campaign");
    common::copy_example_campaign(&camp);
    for stage in ["name", "solve"] {
        Command::cargo_bin("coreval")
            .unwrap()
            .args(["run", "--stage", stage])
            .arg(&camp)
            .assert()
            .success();
    }
    let json = dir.path().join("answers.json");
    Command::cargo_bin("coreval")
        .unwrap()
        .arg("score")
        .arg(&camp)
        .args(["--answers", "sq-2025", "--json"])
        .arg(&json)
        .assert()
        .success();
    let report: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let runs: Vec<Value> = std::fs::read_to_string(camp.join("runs.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(!runs.is_empty());
    let mut solvers: Vec<&str> = runs.iter().map(|r| r["solver"].as_str().unwrap()).collect();
    solvers.sort();
    solvers.dedup();
    for solver in solvers {
        let unsat = |in_time: bool| {
            runs.iter()
                .filter(|r| r["solver"] == solver && r["answer"] == "unsat")
                // `timed_out` is left out of a record when false.
                .filter(|r| !in_time || r["timed_out"] != true)
                .count() as f64
        };
        let (mut correct, mut errors) = (0.0, 0.0);
        for d in report["divisions"].as_array().unwrap() {
            for s in d["parallel"]["solvers"].as_array().unwrap() {
                if s["solver"] == solver {
                    correct += s["correct"].as_f64().unwrap();
                    errors += s["errors"].as_f64().unwrap();
                    assert_eq!(s["sat"].as_f64(), Some(0.0), "{solver}");
                }
            }
        }
        assert_eq!(errors, 0.0, "{solver}");
        assert!(
            (unsat(true)..=unsat(false)).contains(&correct) && correct > 0.0,
            "{solver}: {correct} correct, {} unsat answers",
            unsat(false)
        );
    }
    // Both sources at once are refused.
    Command::cargo_bin("coreval")
        .unwrap()
        .arg("score")
        .arg(&camp)
        .args(["--answers", "sq-2025", "--starexec"])
        .arg(data("results/smtcomp2019-single-query-strings.csv.gz"))
        .assert()
        .failure();
}
