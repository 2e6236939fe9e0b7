//! `coreval score --smtcomp-json DIR` (src/export/smtcomp_json.rs): the
//! scored pairs written as the `smtcomp` tool's own files. The bundled 2024
//! files, imported and exported again, come back row for row (every field,
//! times to the last digit); a small campaign of real and faulty solvers,
//! scored with the export, scores the same from the exported files as from
//! its own records; every exported row has exactly the fields and value
//! types of the tool's schema (pydantic `defs.Results`, `defs.Benchmarks`).

mod common;

use serde_json::Value;
use std::io::Read;
use std::path::Path;

const DATASETS: [&str; 2] = ["QF_LinearIntArith", "Equality+NonLinearArith"];

/// A gzip-compressed JSON file.
fn gz_json(path: &Path) -> Value {
    let raw = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut text = String::new();
    flate2::read::GzDecoder::new(&raw[..])
        .read_to_string(&mut text)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The decompressed text of a gzip file.
fn gz_text(path: &Path) -> String {
    let mut text = String::new();
    flate2::read::GzDecoder::new(&std::fs::read(path).unwrap()[..])
        .read_to_string(&mut text)
        .unwrap();
    text
}

/// `coreval score ARGS`; panics with its stderr when it fails.
fn score(args: &[&std::ffi::OsStr]) -> String {
    let out = common::command().arg("score").args(args).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "coreval score failed:\n{err}");
    err
}

fn os<S: AsRef<std::ffi::OsStr> + ?Sized>(s: &S) -> &std::ffi::OsStr {
    s.as_ref()
}

/// Score the tool's files `results` + `benchmarks` under `rules` into the
/// JSON report `json`, exporting them again into `export` when given.
fn score_tool_files(
    results: &Path,
    benchmarks: &Path,
    rules: &str,
    json: &Path,
    export: Option<&Path>,
) {
    let mut args = vec![
        os("--smtcomp-results"),
        os(results),
        os("--smtcomp-benchmarks"),
        os(benchmarks),
        os("--rules"),
        os(rules),
        os("--json"),
        os(json),
    ];
    if let Some(dir) = export {
        args.extend([os("--smtcomp-json"), os(dir)]);
    }
    score(&args);
}

/// The key names of each object of `text`'s first `{"track":…}` row, in
/// the order written.
fn first_row_keys(text: &str) -> Vec<String> {
    let start = text.find("{\"track\"").expect("a row");
    let end = start + text[start..].find("\"nb_answers\"").expect("nb_answers") + 13;
    let row = &text[start..end];
    let keys = regex::Regex::new(r#""([a-z_]+)":"#).unwrap();
    keys.captures_iter(row).map(|c| c[1].to_string()).collect()
}

/// Every row of the results file and entry of the benchmark list has the
/// tool's fields, no others, with the tool's types and values; the keys in
/// the tool's order. Returns the `result` values seen.
fn check_schema(results: &Path, benchmarks: &Path) -> std::collections::BTreeSet<String> {
    let keys = |v: &Value| -> Vec<String> {
        let mut k: Vec<String> = v.as_object().expect("an object").keys().cloned().collect();
        k.sort();
        k
    };
    let sorted = |k: &[&str]| {
        let mut k: Vec<String> = k.iter().map(|s| s.to_string()).collect();
        k.sort();
        k
    };
    let check_file = |f: &Value| {
        assert_eq!(
            keys(f),
            sorted(&["incremental", "logic", "family", "name"]),
            "{f}"
        );
        assert_eq!(f["incremental"], false, "{f}");
        assert!(f["logic"].as_str().is_some_and(|l| !l.is_empty()), "{f}");
        assert!(
            f["name"]
                .as_str()
                .is_some_and(|n| !n.is_empty() && !n.contains('/')),
            "{f}"
        );
        let family = f["family"].as_array().expect("family is a list");
        assert!(
            family
                .iter()
                .all(|x| x.as_str().is_some_and(|s| !s.is_empty())),
            "{f}"
        );
    };
    let v = gz_json(results);
    assert_eq!(keys(&v), sorted(&["results"]));
    let allowed = coreval::export::smtcomp_json::RESULTS;
    let mut seen = std::collections::BTreeSet::new();
    let rows = v["results"].as_array().expect("results is a list");
    assert!(!rows.is_empty());
    for r in rows {
        assert_eq!(
            keys(r),
            sorted(&[
                "track",
                "solver",
                "file",
                "result",
                "cpu_time",
                "wallclock_time",
                "memory_usage",
                "nb_answers"
            ]),
            "{r}"
        );
        assert_eq!(r["track"], "UnsatCore", "{r}");
        assert!(r["solver"].as_str().is_some_and(|s| !s.is_empty()), "{r}");
        check_file(&r["file"]);
        let result = r["result"].as_str().expect("result is a string");
        assert!(allowed.contains(&result), "{r}");
        seen.insert(result.to_string());
        for t in ["cpu_time", "wallclock_time", "memory_usage"] {
            assert!(r[t].is_f64() && r[t].as_f64().unwrap() >= 0.0, "{t} of {r}");
        }
        let n = r["nb_answers"].as_i64().expect("nb_answers is an integer");
        assert!(r["nb_answers"].is_i64() && n >= 0, "{r}");
        if !["unsat", "UnsatCoreNotValidated"].contains(&result) {
            assert_eq!(n, 0, "a row without a core has nb_answers 0: {r}");
        }
    }
    let text = gz_text(results);
    assert_eq!(
        first_row_keys(&text),
        [
            "track",
            "solver",
            "file",
            "incremental",
            "logic",
            "family",
            "name",
            "result",
            "cpu_time",
            "wallclock_time",
            "memory_usage",
            "nb_answers"
        ],
        "the tool's order of keys"
    );
    let b = gz_json(benchmarks);
    assert_eq!(keys(&b), sorted(&["incremental", "non_incremental"]));
    assert_eq!(b["incremental"], serde_json::json!([]));
    let list = b["non_incremental"].as_array().expect("a list");
    assert!(!list.is_empty());
    for e in list {
        assert_eq!(keys(e), sorted(&["file", "status", "asserts"]), "{e}");
        check_file(&e["file"]);
        assert!(
            ["sat", "unsat", "unknown"].contains(&e["status"].as_str().unwrap_or("")),
            "{e}"
        );
        assert!(e["asserts"].is_u64(), "{e}");
    }
    let text = gz_text(benchmarks);
    assert!(
        text.starts_with(
            "{\"incremental\":[],\"non_incremental\":[{\"file\":{\"incremental\":false,\"logic\":"
        ),
        "{}",
        &text[..80]
    );
    let entry = &text[text.find("\"name\":").unwrap()..];
    let after_file = &entry[entry.find("},").unwrap() + 2..];
    assert!(
        after_file.starts_with("\"status\":\"") && after_file.contains("\"asserts\":"),
        "{}",
        &after_file[..40]
    );
    seen
}

#[test]
fn the_bundled_2024_files_come_back_row_for_row() {
    let dir = tempfile::tempdir().unwrap();
    for d in DATASETS {
        let data = common::repo().join("tests/data/results");
        let results = data.join(format!("smtcomp2024-results-uc-{d}.json.gz"));
        let benchmarks = data.join(format!("smtcomp2024-benchmarks-{d}.json.gz"));
        let out = dir.path().join(d);
        score_tool_files(
            &results,
            &benchmarks,
            "smtcomp-2024",
            &dir.path().join(format!("{d}.json")),
            Some(&out),
        );
        let (ours, list) = (
            out.join("results-uc-2024.json.gz"),
            out.join("benchmarks-2024.json.gz"),
        );
        let original = gz_json(&results);
        let exported = gz_json(&ours);
        let (a, b) = (
            original["results"].as_array().unwrap(),
            exported["results"].as_array().unwrap(),
        );
        assert_eq!(a.len(), b.len(), "{d}: rows");
        for (i, (x, y)) in a.iter().zip(b).enumerate() {
            assert_eq!(x, y, "{d}: row {} differs", i + 1);
        }
        // The list: the entries of the benchmarks with results, in the
        // original's order, each as the original wrote it.
        let with_results: std::collections::HashSet<String> =
            a.iter().map(|r| r["file"].to_string()).collect();
        let original = gz_json(&benchmarks);
        let expected: Vec<&Value> = original["non_incremental"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| with_results.contains(&e["file"].to_string()))
            .collect();
        let got = gz_json(&list);
        let got: Vec<&Value> = got["non_incremental"].as_array().unwrap().iter().collect();
        assert_eq!(got, expected, "{d}: benchmark list");
        let seen = check_schema(&ours, &list);
        assert!(
            seen.contains("unsat") && seen.contains("Timeout"),
            "{d}: {seen:?}"
        );
    }
}

const BENCHMARKS: &[&str] = &[
    "QF_UF/cvc5-test_regress_cli_regress0/bt-test-01.smt2",
    "QF_UF/cvc5-test_regress_cli_regress0_uf/cnf-iff.smt2",
    "QF_LRA/opensmt-test_regression_base_QF_LRA/distinct_unsat.smt2",
    "QF_LIA/doc-arithmetic_artifact_z_QF_LIA_prime-cone/prime_cone_unsat_10.smt2",
];

/// A campaign of z3, a z3 that drops an essential name from its cores
/// (refuted), one that says `sat` to all, one that crashes and one that
/// hangs past the limit, judged by yices and cvc5 under the 2024 rules.
fn campaign(camp: &Path) {
    common::faulty_campaign(
        camp,
        BENCHMARKS,
        "time = 2.0\ngrace = 0.5",
        &[
            ("liar", "z3-drop-first.sh"),
            ("sayssat", "always-sat.sh"),
            ("crash", "crash.sh"),
            ("hang", "hang.sh"),
        ],
    );
}

#[test]
fn a_campaign_scores_the_same_from_the_exported_files() {
    let dir = tempfile::tempdir().unwrap();
    let camp = dir.path().join("campaign");
    campaign(&camp);
    let (own, export) = (dir.path().join("own.json"), dir.path().join("export"));
    score(&[
        os(&camp),
        os("--json"),
        os(&own),
        os("--smtcomp-json"),
        os(&export),
    ]);
    let (results, list) = (
        export.join("results-uc-2024.json.gz"),
        export.join("benchmarks-2024.json.gz"),
    );
    let seen = check_schema(&results, &list);
    for r in [
        "unsat",
        "UnsatCoreNotValidated",
        "sat",
        "Timeout",
        "unknown",
    ] {
        assert!(seen.contains(r), "no `{r}` row among {seen:?}");
    }
    let again = dir.path().join("again.json");
    score_tool_files(&results, &list, "smtcomp-2024", &again, None);
    let own: Value = serde_json::from_slice(&std::fs::read(&own).unwrap()).unwrap();
    let again: Value = serde_json::from_slice(&std::fs::read(&again).unwrap()).unwrap();
    assert_eq!(own["pairs"], again["pairs"]);
    let (a, b) = (
        own["divisions"].as_array().unwrap(),
        again["divisions"].as_array().unwrap(),
    );
    assert!(!a.is_empty());
    assert_eq!(a.len(), b.len());
    for (x, y) in a.iter().zip(b) {
        assert_eq!(x, y, "division {}", x["name"]);
    }
    // Memory comes from the runs (their max RSS).
    let rows = gz_json(&results);
    let z3 = rows["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["solver"] == "z3")
        .unwrap();
    assert!(z3["memory_usage"].as_f64().unwrap() > 0.0, "{z3}");
}

#[test]
fn an_export_folder_that_cannot_be_written_is_refused_before_any_work() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("a-file");
    std::fs::write(&file, "x").unwrap();
    let data = common::repo().join("tests/data/results");
    let out = common::command()
        .arg("score")
        .arg("--smtcomp-results")
        .arg(data.join("smtcomp2024-results-uc-QF_LinearIntArith.json.gz"))
        .arg("--smtcomp-benchmarks")
        .arg(data.join("smtcomp2024-benchmarks-QF_LinearIntArith.json.gz"))
        .args(["--rules", "smtcomp-2024", "--smtcomp-json"])
        .arg(&file)
        .arg("--benchexec-xml")
        .arg(file.join("below"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("2 output problem(s), found before anything ran"),
        "{err}"
    );
    assert!(
        err.contains("--smtcomp-json") && err.contains("--benchexec-xml"),
        "{err}"
    );
    assert!(!err.contains("scored"), "nothing was scored: {err}");
}
