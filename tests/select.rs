//! `coreval select` on a synthetic benchmark list of the smtcomp tool's
//! shape: three logics of 250, 800 and 3 000 eligible benchmarks beside
//! benchmarks each excluded for a reason, written plain and gzipped, with
//! single-query results. The caps of 2025 and 2026, new families first,
//! the seed deciding the sample, the exclusions counted, and a folder of
//! `.smt2` files read the same way.

mod common;

use serde_json::{json, Value};
use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};

/// One benchmark of the list: logic, family, name, status, asserts.
type Bench = (&'static str, String, String, &'static str, u64);

/// The benchmarks, and the single-query results (file id, result) rows.
fn data() -> (Vec<Bench>, Vec<(Bench, &'static str)>) {
    let mut list: Vec<Bench> = Vec::new();
    let mut sq = Vec::new();
    // QF_A: 250 eligible, two of them unknown with two `unsat` answers.
    for i in 0..248 {
        list.push((
            "QF_A",
            format!("famA{}", i % 5),
            format!("a{i}.smt2"),
            "unsat",
            5,
        ));
    }
    for i in 0..2 {
        let b: Bench = (
            "QF_A",
            "famA0".into(),
            format!("confirmed{i}.smt2"),
            "unknown",
            5,
        );
        sq.push((b.clone(), "unsat"));
        sq.push((b.clone(), "unsat"));
        sq.push((b.clone(), "unknown"));
        list.push(b);
    }
    // The excluded ones, in QF_A.
    for i in 0..3 {
        list.push((
            "QF_A",
            "famA1".into(),
            format!("one-assert{i}.smt2"),
            "unsat",
            1,
        ));
    }
    for i in 0..4 {
        list.push(("QF_A", "famA1".into(), format!("sat{i}.smt2"), "sat", 5));
    }
    for i in 0..5 {
        list.push((
            "QF_A",
            "famA2".into(),
            format!("unknown{i}.smt2"),
            "unknown",
            5,
        ));
    }
    let once: Bench = (
        "QF_A",
        "famA2".into(),
        "unknown-once.smt2".into(),
        "unknown",
        5,
    );
    sq.push((once.clone(), "unsat"));
    list.push(once);
    for i in 0..2 {
        let b: Bench = ("QF_A", "famA3".into(), format!("torn{i}.smt2"), "unsat", 5);
        sq.push((b.clone(), "unsat"));
        sq.push((b.clone(), "sat"));
        list.push(b);
    }
    // QF_B: 800, six in three families of 2025.
    for (fam, n) in [("2025-foo", 3), ("20250317-bar", 2), ("2025x", 1)] {
        for i in 0..n {
            list.push(("QF_B", fam.into(), format!("new{i}.smt2"), "unsat", 3));
        }
    }
    for i in 0..794 {
        list.push((
            "QF_B",
            format!("famB{}", i % 7),
            format!("b{i}.smt2"),
            "unsat",
            3,
        ));
    }
    // QF_C: 3 000, 1 420 in 710 families of 2025 (more than the 2026 cap).
    for f in 0..710 {
        for i in 0..2 {
            list.push((
                "QF_C",
                format!("2025-c{f}"),
                format!("n{i}.smt2"),
                "unsat",
                2,
            ));
        }
    }
    for i in 0..1580 {
        list.push((
            "QF_C",
            format!("famC{}", i % 11),
            format!("c{i}.smt2"),
            "unsat",
            2,
        ));
    }
    (list, sq)
}

fn file(b: &Bench) -> Value {
    json!({"logic": b.0, "family": [b.1], "name": b.2})
}

/// The list and the results written in `dir`: (list, list.gz, results.gz).
fn write_data(dir: &Path) -> (PathBuf, PathBuf, PathBuf) {
    let (list, sq) = data();
    let benches: Vec<Value> = (list.iter())
        .map(|b| json!({"file": file(b), "status": b.3, "asserts": b.4}))
        .collect();
    let text = json!({"non_incremental": benches, "incremental": []}).to_string();
    let plain = dir.join("benchmarks-2026.json");
    std::fs::write(&plain, &text).unwrap();
    let gz = dir.join("benchmarks-2026.json.gz");
    gzip(&gz, text.as_bytes());
    let rows: Vec<Value> = (sq.iter().enumerate())
        .map(|(k, (b, r))| {
            json!({"track": "SingleQuery", "solver": format!("s{k}"), "file": file(b),
                   "result": r, "cpu_time": 1.0, "wallclock_time": 1.0})
        })
        .collect();
    let results = dir.join("results-sq-2025.json.gz");
    gzip(&results, json!({ "results": rows }).to_string().as_bytes());
    (plain, gz, results)
}

fn gzip(path: &Path, bytes: &[u8]) {
    let f = std::fs::File::create(path).unwrap();
    let mut e = flate2::write::GzEncoder::new(f, flate2::Compression::fast());
    e.write_all(bytes).unwrap();
    e.finish().unwrap();
}

/// `coreval select ARGS`: exit code, stdout, stderr.
fn select(args: &[&str]) -> (Option<i32>, String, String) {
    let out = common::command().arg("select").args(args).output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A selection's ids and its JSON report.
fn run(
    input: &Path,
    results: &Path,
    rules: &str,
    seed: &str,
    extra: &[&str],
) -> (Vec<String>, Value) {
    let dir = input.parent().unwrap();
    let out = dir.join(format!("selected-{rules}-{seed}.txt"));
    let report = dir.join(format!("report-{rules}-{seed}.json"));
    let mut args = vec![
        input.to_str().unwrap(),
        "--rules",
        rules,
        "--seed",
        seed,
        "--results",
        results.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--report",
        report.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let (code, stdout, stderr) = select(&args);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stdout.contains("total"), "{stdout}");
    let ids: Vec<String> = (std::fs::read_to_string(&out).unwrap().lines())
        .map(str::to_string)
        .collect();
    let report: Value = serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
    (ids, report)
}

/// (logic, eligible, cap, new, picked) per logic of a report.
fn counts(report: &Value) -> Vec<(String, u64, u64, u64, u64)> {
    let n = |l: &Value, k: &str| l[k].as_u64().unwrap();
    (report["logics"].as_array().unwrap().iter())
        .map(|l| {
            let logic = l["logic"].as_str().unwrap().to_string();
            (
                logic,
                n(l, "eligible"),
                n(l, "cap"),
                n(l, "new"),
                n(l, "picked"),
            )
        })
        .collect()
}

fn in_logic<'a>(ids: &'a [String], logic: &str) -> Vec<&'a String> {
    ids.iter()
        .filter(|i| i.starts_with(&format!("{logic}/")))
        .collect()
}

#[test]
fn caps_of_2025_and_2026_new_families_first_and_the_seed() {
    let tmp = tempfile::tempdir().unwrap();
    let (plain, gz, results) = write_data(tmp.path());
    let (ids, report) = run(&plain, &results, "smtcomp-2025", "42", &[]);
    let s = |x: &str| x.to_string();
    assert_eq!(
        counts(&report),
        [
            (s("QF_A"), 250, 250, 0, 250),
            (s("QF_B"), 800, 400, 0, 400),
            (s("QF_C"), 3000, 1500, 0, 1500)
        ]
    );
    assert_eq!(ids.len(), 2150);
    let mut sorted = ids.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(sorted, ids, "sorted, each once");
    // The exclusions, each counted under its reason.
    let e = &report["excluded"];
    assert_eq!(
        (e["few_asserts"].as_u64(), e["not_unsat"].as_u64()),
        (Some(3), Some(4))
    );
    assert_eq!(
        (e["unknown_unconfirmed"].as_u64(), e["conflict"].as_u64()),
        (Some(6), Some(2))
    );
    let has = |ids: &[String], x: &str| ids.iter().any(|i| i == x);
    assert!(has(&ids, "QF_A/famA0/confirmed0.smt2") && has(&ids, "QF_A/famA0/confirmed1.smt2"));
    for gone in [
        "QF_A/famA1/one-assert0.smt2",
        "QF_A/famA1/sat0.smt2",
        "QF_A/famA2/unknown0.smt2",
        "QF_A/famA2/unknown-once.smt2",
        "QF_A/famA3/torn0.smt2",
    ] {
        assert!(!has(&ids, gone), "{gone}");
    }
    // Gzipped: the same list, the same selection.
    let (from_gz, _) = run(&gz, &results, "smtcomp-2025", "42", &[]);
    assert_eq!(from_gz, ids);
    // The same seed again gives the same; another seed another.
    assert_eq!(run(&plain, &results, "smtcomp-2025", "42", &[]).0, ids);
    let (other, _) = run(&plain, &results, "smtcomp-2025", "43", &[]);
    assert_eq!(other.len(), ids.len());
    assert_ne!(other, ids);
    // The rules allow the torn benchmarks to stay.
    let (kept, report) = run(
        &plain,
        &results,
        "smtcomp-2025",
        "42",
        &["--keep-conflicts"],
    );
    assert!(has(&kept, "QF_A/famA3/torn0.smt2") && has(&kept, "QF_A/famA3/torn1.smt2"));
    assert_eq!(report["logics"][0]["picked"].as_u64(), Some(252));

    // 2026: other caps, and the families of 2025 are new.
    let (ids, report) = run(&gz, &results, "smtcomp-2026", "42", &[]);
    assert_eq!(
        counts(&report),
        [
            (s("QF_A"), 250, 250, 0, 250),
            (s("QF_B"), 800, 400, 6, 400),
            (s("QF_C"), 3000, 700, 1420, 700)
        ]
    );
    let b = in_logic(&ids, "QF_B");
    let new_b = b.iter().filter(|i| i.starts_with("QF_B/2025")).count();
    assert_eq!(new_b, 6, "every new benchmark of QF_B is picked");
    // QF_C has more new families than its cap: one benchmark of each of 700.
    let c = in_logic(&ids, "QF_C");
    assert!(
        c.iter().all(|i| i.starts_with("QF_C/2025-c")),
        "only new ones"
    );
    let families: BTreeSet<&str> = c.iter().map(|i| i.split('/').nth(1).unwrap()).collect();
    assert_eq!((c.len(), families.len()), (700, 700));
    let (again, _) = run(&plain, &results, "smtcomp-2026", "42", &[]);
    assert_eq!(again, ids);
    assert_ne!(run(&plain, &results, "smtcomp-2026", "7", &[]).0, ids);
}

#[test]
fn a_folder_of_benchmarks_is_read_with_the_analyzer() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("bench");
    let write = |id: &str, text: &str| {
        let p = root.join(id);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    };
    let body = "(declare-fun p () Bool)\n(assert p)\n(assert (not p))\n(check-sat)\n";
    for i in 0..3 {
        write(
            &format!("QF_UF/2025-new/x{i}.smt2"),
            &format!("(set-logic QF_UF)\n(set-info :status unsat)\n{body}"),
        );
    }
    write(
        "QF_UF/old/y.smt2",
        &format!("(set-logic QF_UF)\n(set-info :status unsat)\n{body}"),
    );
    write(
        "QF_UF/old/sat.smt2",
        &format!("(set-logic QF_UF)\n(set-info :status sat)\n{body}"),
    );
    write(
        "QF_UF/old/one.smt2",
        "(set-logic QF_UF)\n(set-info :status unsat)\n(assert false)\n(check-sat)\n",
    );
    write("QF_UF/old/broken.smt2", "(set-logic QF_UF)\n(assert (\n");
    let out = tmp.path().join("list.txt");
    let (code, stdout, stderr) = select(&[
        root.to_str().unwrap(),
        "--rules",
        "smtcomp-2026",
        "--seed",
        "1",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(0), "{stderr}");
    let ids = std::fs::read_to_string(&out).unwrap();
    assert_eq!(
        ids,
        "QF_UF/2025-new/x0.smt2\nQF_UF/2025-new/x1.smt2\nQF_UF/2025-new/x2.smt2\nQF_UF/old/y.smt2\n"
    );
    let row = stdout.lines().find(|l| l.starts_with("QF_UF")).unwrap();
    let cells: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(cells, ["QF_UF", "4", "4", "3", "1", "4"], "{stdout}");
    assert!(
        stdout.contains("1 fewer than 2 assertions, 1 status not unsat")
            && stdout.contains("1 unusable files"),
        "{stdout}"
    );
}

#[test]
fn bad_input_is_an_error_naming_the_file() {
    let tmp = tempfile::tempdir().unwrap();
    let bad = tmp.path().join("benchmarks-2026.json");
    std::fs::write(&bad, "{\"non_incremental\": [{\"file\": 3}]}").unwrap();
    let out = tmp.path().join("out.txt");
    let args = |input: &Path, rules: &str| {
        select(&[
            input.to_str().unwrap(),
            "--rules",
            rules,
            "--seed",
            "1",
            "--out",
            out.to_str().unwrap(),
        ])
    };
    let (code, _, err) = args(&bad, "smtcomp-2026");
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains(&bad.display().to_string()) && err.contains("not a benchmark list"),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
    let (code, _, err) = args(&tmp.path().join("missing.json"), "smtcomp-2026");
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("missing.json"), "{err}");
    std::fs::write(&bad, "{\"non_incremental\": []}").unwrap();
    let (code, _, err) = args(&bad, "smtcomp-2019");
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("not of smtcomp-2019"), "{err}");
    assert!(!out.exists(), "nothing written");
}
