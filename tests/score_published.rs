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

/// The subsection of PUBLISHED.md from `start` to the next heading.
fn subsection(start: &str) -> String {
    let text = std::fs::read_to_string(data("PUBLISHED.md")).expect("PUBLISHED.md");
    let from = text.find(start).expect(start);
    let rest = &text[from..];
    let end = rest[1..].find("\n#").map_or(rest.len(), |i| i + 1);
    rest[..end].to_string()
}

/// Our value printed as the `smtcomp`-era pages print it: rounded to
/// `places` decimals (3 up to 2020, 6 from 2024, trailing zeros dropped),
/// then to the published number of decimals.
fn same_at(ours: f64, published: &str, places: i32) -> bool {
    let decimals = published.split('.').nth(1).map_or(0, str::len);
    let p = 10f64.powi(places);
    let r = (ours * p).round() / p;
    format!("{r:.decimals$}") == published
}

fn run_json(args: &[&std::ffi::OsStr]) -> Value {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("out.json");
    Command::cargo_bin("coreval")
        .unwrap()
        .arg("score")
        .args(args)
        .arg("--json")
        .arg(&json)
        .assert()
        .success();
    serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap()
}

/// Check every row of a 9-column published table (solver, competing, mode,
/// errors, correct, CPU, wall, timeouts, memouts) against one division or
/// logic entry, order included; returns the numbers checked.
fn check_table(entry: &Value, sec: &str, places: i32, what: &str) -> usize {
    let table = rows(sec, 9);
    assert!(!table.is_empty(), "{what}: no published rows");
    let mut checked = 0;
    for mode in ["sequential", "parallel"] {
        let published: Vec<&Vec<String>> = table.iter().filter(|r| r[2] == mode).collect();
        let ours = entry[mode]["solvers"].as_array().unwrap();
        assert_eq!(ours.len(), published.len(), "{what} {mode}: solvers");
        for (s, r) in ours.iter().zip(&published) {
            let w = format!("{what} {mode} {}", r[0]);
            assert_eq!(s["display"], r[0].as_str(), "{w}: published order");
            assert_eq!(s["competing"], r[1] == "yes", "{w}");
            for (field, cell) in [
                ("errors", &r[3]),
                ("correct", &r[4]),
                ("cpu", &r[5]),
                ("wall", &r[6]),
                ("timeouts", &r[7]),
                ("memouts", &r[8]),
            ] {
                let v = s[field].as_f64().unwrap();
                assert!(
                    same_at(v, cell, places),
                    "{w}: {field} = {v}, published {cell}"
                );
                checked += 1;
            }
        }
    }
    checked
}

#[test]
fn smtcomp2020_lia_as_published() {
    let sec = subsection("### 2020, LIA");
    let report = run_json(&[
        "--starexec".as_ref(),
        data("smtcomp2020-unsat-core-LIA-main.csv").as_os_str(),
        "--starexec".as_ref(),
        data("smtcomp2020-unsat-core-LIA-fixed.csv").as_os_str(),
        "--exclude".as_ref(),
        data("smtcomp2020-excluded-LIA.txt").as_os_str(),
        "--rules".as_ref(),
        "smtcomp-2020".as_ref(),
        "--participants".as_ref(),
        participants("participants-2020-unsat-core.csv").as_os_str(),
    ]);
    assert_eq!(report["edition"], "smtcomp-2020");
    assert_eq!(report["rules"]["time_limit"].as_f64(), Some(1200.0));
    // a division is a logic in 2020: no logic level, no map
    assert!(report.get("logics").is_none() && report.get("division_map").is_none());
    let div = &report["divisions"][0];
    assert_eq!(div["name"], "LIA");
    assert_eq!(
        div["benchmarks"].as_u64(),
        Some(number_after(&sec, "logic page,"))
    );
    let checked = check_table(div, &sec, 3, "2020 LIA");
    assert_eq!(checked, 60);
    assert!(report["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .any(|w| w.as_str().unwrap().contains("40 pairs left out")));
}

#[test]
fn smtcomp2024_qf_linearintarith_as_published() {
    let report = run_json(&[
        "--smtcomp-results".as_ref(),
        data("smtcomp2024-results-uc-QF_LinearIntArith.json.gz").as_os_str(),
        "--smtcomp-benchmarks".as_ref(),
        data("smtcomp2024-benchmarks-QF_LinearIntArith.json.gz").as_os_str(),
        "--rules".as_ref(),
        "smtcomp-2024".as_ref(),
    ]);
    assert_eq!(report["edition"], "smtcomp-2024");
    assert_eq!(report["division_map"], "divisions/smtcomp-2024.toml");
    let mut checked = 0;
    let logics = report["logics"].as_array().unwrap();
    for logic in ["QF_IDL", "QF_LIA", "QF_LIRA"] {
        let sec = subsection(&format!("### 2024, {logic} "));
        let entry = logics.iter().find(|l| l["name"] == logic).expect(logic);
        assert_eq!(entry["logics"], serde_json::json!([logic]));
        assert_eq!(
            entry["benchmarks"].as_u64(),
            Some(number_after(&sec, "logic page,")),
            "{logic} benchmarks"
        );
        checked += check_table(entry, &sec, 6, &format!("2024 {logic}"));
    }
    let sec = subsection("### 2024, QF_LinearIntArith");
    assert_eq!(report["divisions"].as_array().unwrap().len(), 1);
    let div = &report["divisions"][0];
    assert_eq!(div["name"], "QF_LinearIntArith");
    assert_eq!(
        div["logics"],
        serde_json::json!(["QF_IDL", "QF_LIA", "QF_LIRA"])
    );
    assert_eq!(
        div["benchmarks"].as_u64(),
        Some(number_after(&sec, "division page,"))
    );
    checked += check_table(div, &sec, 6, "2024 QF_LinearIntArith");
    assert_eq!(checked, (8 + 8 + 6 + 8) * 6);
    // the tool's bad assertion counts: every negative reduction is named
    let negative: Vec<&str> = report["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|w| w.as_str())
        .filter(|w| w.starts_with("negative reduction"))
        .collect();
    assert_eq!(negative.len(), 11, "{negative:?}");
    assert!(negative
        .iter()
        .any(|w| w.contains("Yices2 on QF_LIA/fft/Sz64_1159.smt2") && w.contains("-4")));
}

#[test]
fn smtcomp2024_logic_pages_need_the_edition_not_the_old_rules() {
    // under 2020's accounting every 2024 time figure differs
    let report = run_json(&[
        "--smtcomp-results".as_ref(),
        data("smtcomp2024-results-uc-QF_LinearIntArith.json.gz").as_os_str(),
        "--smtcomp-benchmarks".as_ref(),
        data("smtcomp2024-benchmarks-QF_LinearIntArith.json.gz").as_os_str(),
        "--rules".as_ref(),
        "smtcomp-2020".as_ref(),
    ]);
    assert!(report.get("logics").is_none());
    let lia = report["divisions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["name"] == "QF_LIA")
        .unwrap();
    let cvc5 = lia["sequential"]["solvers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["solver"] == "cvc5")
        .unwrap();
    assert!(!same_at(cvc5["cpu"].as_f64().unwrap(), "9076.464065", 6));
}

#[test]
fn smtcomp2024_equality_nonlineararith_as_published() {
    // UFNIRA is in this division in the `smtcomp` tool's 2024 table; with it
    // the division rows are reproduced (without it cvc5 loses 49 timeouts)
    let report = run_json(&[
        "--smtcomp-results".as_ref(),
        data("smtcomp2024-results-uc-Equality+NonLinearArith.json.gz").as_os_str(),
        "--smtcomp-benchmarks".as_ref(),
        data("smtcomp2024-benchmarks-Equality+NonLinearArith.json.gz").as_os_str(),
        "--rules".as_ref(),
        "smtcomp-2024".as_ref(),
    ]);
    let logics = [
        "ANIA",
        "AUFDTNIRA",
        "AUFNIA",
        "AUFNIRA",
        "UFDTNIA",
        "UFDTNIRA",
        "UFNIA",
        "UFNIRA",
    ];
    assert_eq!(report["divisions"].as_array().unwrap().len(), 1);
    let div = &report["divisions"][0];
    assert_eq!(div["name"], "Equality+NonLinearArith");
    assert_eq!(div["logics"], serde_json::json!(logics));
    let sec = subsection("#### 2024 division Equality+NonLinearArith");
    assert_eq!(
        div["benchmarks"].as_u64(),
        Some(number_after(&sec, "division page,"))
    );
    let mut checked = check_table(div, &sec, 6, "2024 Equality+NonLinearArith");
    let ours = report["logics"].as_array().unwrap();
    for logic in logics {
        let sec = subsection(&format!("#### 2024 logic {logic} "));
        let entry = ours.iter().find(|l| l["name"] == logic).expect(logic);
        assert_eq!(
            entry["benchmarks"].as_u64(),
            Some(number_after(&sec, "logic page,")),
            "{logic} benchmarks"
        );
        checked += check_table(entry, &sec, 6, &format!("2024 {logic}"));
    }
    assert_eq!(checked, 9 * 4 * 6);
    assert!(!report["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .any(|w| w.as_str().unwrap().contains("in no division")));
}
