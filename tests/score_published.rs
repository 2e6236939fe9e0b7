//! `coreval score` on the real SMT-COMP archives reproduces every number the
//! competition published for them (`tests/data/results/PUBLISHED.md`), read from
//! the JSON report. The expected values are parsed from PUBLISHED.md itself,
//! and the test counts the rows it checked, so it cannot pass vacuously.

use assert_cmd::Command;
use serde_json::Value;
use std::path::{Path, PathBuf};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/results")
        .join(name)
}

fn participants(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

/// The section of PUBLISHED.md from `start` to the next `## `.
fn section(start: &str) -> String {
    let text = std::fs::read_to_string(data("PUBLISHED.md")).expect("PUBLISHED.md");
    let from = text.find(start).expect("section heading");
    let rest = &text[from + start.len()..];
    rest[..rest.find("\n## ").unwrap_or(rest.len())].to_string()
}

/// Table body rows (not header, not separator) with `cells` cells.
fn rows(section: &str, cells: usize) -> Vec<Vec<String>> {
    section
        .lines()
        .filter(|l| l.starts_with('|'))
        .map(|l| {
            l.trim_matches('|')
                .split('|')
                .map(|c| c.trim().to_string())
                .collect::<Vec<_>>()
        })
        .filter(|r| r.len() == cells && !r[0].starts_with("solver") && !r[0].starts_with("---"))
        .collect()
}

/// Our value printed as published: rounded to thousandths (as the result
/// pages did), then to the published number of decimals.
fn same(ours: f64, published: &str) -> bool {
    let decimals = published.split('.').nth(1).map_or(0, str::len);
    let r = (ours * 1000.0).round() / 1000.0;
    format!("{r:.decimals$}") == published
}

fn score(csv: &str, rules: &str, table: &str) -> Value {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("out.json");
    Command::cargo_bin("coreval")
        .unwrap()
        .arg("score")
        .arg("--starexec")
        .arg(data(csv))
        .args(["--rules", rules, "--participants"])
        .arg(participants(table))
        .arg("--json")
        .arg(&json)
        .assert()
        .success();
    serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap()
}

fn number_after(text: &str, marker: &str) -> u64 {
    let i = text.find(marker).expect(marker) + marker.len();
    text[i..]
        .trim_start()
        .split(|c: char| !c.is_ascii_digit())
        .next()
        .unwrap()
        .parse()
        .unwrap()
}

fn check(v: &Value, field: &str, published: &str, what: &str) {
    let ours = v[field]
        .as_f64()
        .unwrap_or_else(|| panic!("{what}: no {field}"));
    assert!(
        same(ours, published),
        "{what}: {field} = {ours}, published {published}"
    );
}

#[test]
fn smtcomp2016_qf_lia_as_published() {
    let sec = section("## 2016, QF_LIA");
    let report = score(
        "smtcomp2016-unsat-core-QF_LIA.csv",
        "smtcomp-2016",
        "participants-2016-unsat-core.csv",
    );
    assert_eq!(report["edition"], "smtcomp-2016");
    assert_eq!(report["family"], "directory");
    assert_eq!(
        report["rules"]["time_limit"].as_f64(),
        Some(number_after(&sec, "time limit") as f64)
    );
    let div = &report["divisions"][0];
    assert_eq!(div["name"], "QF_LIA");
    assert_eq!(div["benchmarks"].as_u64(), Some(number_after(&sec, "(")));
    assert!(sec.contains("non-competitive division"));
    assert_eq!(div["competitive"], false);
    assert!(div["sequential"]["winner"].is_null());
    let solvers = div["sequential"]["solvers"].as_array().unwrap();
    let table = rows(&sec, 6);
    assert_eq!(table.len(), 4, "PUBLISHED.md 2016 table rows");
    let mut checked = 0;
    for (i, r) in table.iter().enumerate() {
        let (name, non_competing) = match r[0].strip_suffix(" (n)") {
            Some(n) => (n, true),
            None => (r[0].as_str(), false),
        };
        let s = solvers
            .iter()
            .find(|s| s["solver"] == r[1].as_str())
            .expect(&r[1]);
        let what = format!("2016 sequential {}", r[1]);
        assert_eq!(s["display"], name, "{what}");
        assert_eq!(s["competing"], !non_competing, "{what}");
        assert_eq!(
            s["rank"].as_u64(),
            Some(i as u64 + 1),
            "{what}: published order"
        );
        check(s, "errors", &r[2], &what);
        check(s, "correct", &r[3], &what);
        check(s, "cpu", &r[4], &what);
        check(s, "wall", &r[5], &what);
        checked += 4;
    }
    assert_eq!(checked, 16);
}

#[test]
fn smtcomp2019_qf_lia_as_published() {
    let sec = section("## 2019, QF_LIA");
    let report = score(
        "smtcomp2019-unsat-core-QF_LIA.csv",
        "smtcomp-2019",
        "participants-2019-unsat-core.csv",
    );
    assert_eq!(report["edition"], "smtcomp-2019");
    assert_eq!(
        report["rules"]["time_limit"].as_f64(),
        Some(number_after(&sec, "time limit") as f64)
    );
    let div = &report["divisions"][0];
    assert_eq!(div["benchmarks"].as_u64(), Some(number_after(&sec, "(")));
    assert_eq!(
        report["pairs"].as_u64(),
        Some(number_after(&sec, "The CSV holds"))
    );
    assert_eq!(div["competitive"], true);
    let winner = sec
        .split("Winner (sequential and parallel):")
        .nth(1)
        .and_then(|rest| rest.lines().next())
        .unwrap()
        .trim()
        .trim_end_matches('.')
        .to_string();
    for mode in ["sequential", "parallel"] {
        let w = div[mode]["winner"].as_str().unwrap();
        let s = div[mode]["solvers"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["solver"] == w)
            .unwrap();
        assert_eq!(
            s["display"].as_str(),
            Some(winner.as_str()),
            "{mode} winner"
        );
    }
    let table = rows(&sec, 10);
    assert_eq!(table.len(), 10, "PUBLISHED.md 2019 table rows");
    let mut checked = 0;
    for r in &table {
        let mode = r[3].as_str();
        let solvers = div[mode]["solvers"].as_array().unwrap();
        let s = solvers
            .iter()
            .find(|s| s["solver"] == r[1].as_str())
            .expect(&r[1]);
        let what = format!("2019 {mode} {}", r[1]);
        assert_eq!(s["display"], r[0].as_str(), "{what}");
        assert_eq!(s["competing"], r[2] == "yes", "{what}");
        check(s, "errors", &r[4], &what);
        check(s, "correct", &r[5], &what);
        check(s, "cpu", &r[6], &what);
        check(s, "wall", &r[7], &what);
        check(s, "timeouts", &r[8], &what);
        check(s, "memouts", &r[9], &what);
        checked += 6;
    }
    assert_eq!(checked, 60);
    // published order within each mode is the ranking
    for mode in ["sequential", "parallel"] {
        let published: Vec<&str> = table
            .iter()
            .filter(|r| r[3] == mode)
            .map(|r| r[1].as_str())
            .collect();
        let ours: Vec<&str> = div[mode]["solvers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["solver"].as_str().unwrap())
            .collect();
        assert_eq!(ours, published, "{mode} order");
    }
}
