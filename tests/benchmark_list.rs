//! The campaign key `benchmark_list` (what `coreval select --out` writes):
//! only the listed benchmarks of the root are named, solved, checked and
//! scored (a shorter list leaves the others out of the index and the
//! scores), and a listed id with no file is refused before any work, with
//! `campaign.toml:LINE` and the list's own line. Real solvers: z3 under
//! test, yices checking.

mod common;

use common::{copy_examples, coreval_run, jsonl, q, repo};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

const BENCHMARKS: &[&str] = &[
    "QF_UF/cvc5-test_regress_cli_regress0/bt-test-01.smt2",
    "QF_UF/cvc5-test_regress_cli_regress0_uf/cnf_abc.smt2",
    "QF_LIA/opensmt-test_regression_base_QF_LIA/distinct_unsat.smt2",
    "QF_AX/opensmt-test_regression_base_QF_AX/nested_arrays.smt2",
];

/// A campaign over the four benchmarks taking those of `list` (the file's text).
fn campaign(tmp: &Path, list: &str) -> PathBuf {
    let bench = tmp.join("bench");
    copy_examples(&bench, BENCHMARKS);
    let dir = tmp.join("c");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("selected.txt"), list).unwrap();
    let text = format!(
        "benchmarks = {}\nbenchmark_list = \"selected.txt\"\ncheckers_dir = {}\njobs = 2\n\
         cache = {}\n[naming]\nallow_no_status = true\n[limits]\ntime = 20.0\n\
         checker_time = 20.0\n[check]\ncheckers = [\"yices\"]\n\
         [[solver]]\nname = \"z3\"\ndefinition = \"z3\"\n",
        q(&bench),
        q(&repo().join("checkers")),
        q(&tmp.join("cache")),
    );
    std::fs::write(dir.join("campaign.toml"), text).unwrap();
    dir
}

#[test]
fn only_the_listed_benchmarks_are_named_and_run() {
    let tmp = tempfile::tempdir().unwrap();
    let list = format!(
        "# coreval select: two of four\n{}\n\n  {}  \n",
        BENCHMARKS[0], BENCHMARKS[2]
    );
    let dir = campaign(tmp.path(), &list);
    let (code, err) = coreval_run(&dir, &[]);
    assert_eq!(code, Some(0), "{err}");
    let wanted: BTreeSet<String> = [BENCHMARKS[0], BENCHMARKS[2]].map(String::from).into();
    let named: BTreeSet<String> = (common::read_index(&dir.join("named")).into_iter())
        .map(|e| e.id)
        .collect();
    assert_eq!(named, wanted);
    let ran: BTreeSet<String> = (jsonl(&dir.join("runs.jsonl")).iter())
        .map(|r| r["benchmark"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(ran, wanted);
    assert!(!dir.join("named").join(BENCHMARKS[1]).exists());
    let pairs = jsonl(&dir.join("reports/pairs.jsonl"));
    assert_eq!(pairs.len(), 2, "{pairs:?}");
    // A shorter list: the benchmark left out is no longer named or scored.
    std::fs::write(dir.join("selected.txt"), format!("{}\n", BENCHMARKS[0])).unwrap();
    let (code, err) = coreval_run(&dir, &[]);
    assert_eq!(code, Some(0), "{err}");
    let named: Vec<String> = (common::read_index(&dir.join("named")).into_iter())
        .map(|e| e.id)
        .collect();
    assert_eq!(named, [BENCHMARKS[0]]);
    let pairs = jsonl(&dir.join("reports/pairs.jsonl"));
    let scored: Vec<&str> = pairs
        .iter()
        .map(|p| p["benchmark"].as_str().unwrap())
        .collect();
    assert_eq!(scored, [BENCHMARKS[0]], "{pairs:?}");
}

#[test]
fn a_listed_id_without_a_file_is_refused_with_its_lines() {
    let tmp = tempfile::tempdir().unwrap();
    let list = format!(
        "{}\nQF_UF/nowhere/missing.smt2\n{}\n",
        BENCHMARKS[0], BENCHMARKS[3]
    );
    let dir = campaign(tmp.path(), &list);
    let (code, err) = coreval_run(&dir, &[]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("campaign.toml:2: benchmark_list: ")
            && err.contains("selected.txt:2: \"QF_UF/nowhere/missing.smt2\" has no file below"),
        "{err}"
    );
    assert!(!err.contains(BENCHMARKS[3]), "only the missing one: {err}");
    assert!(!dir.join("named").exists(), "nothing ran");
    assert!(!dir.join("runs.jsonl").exists());

    // A list that cannot be read, or that names nothing.
    std::fs::remove_file(dir.join("selected.txt")).unwrap();
    let (code, err) = coreval_run(&dir, &[]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("campaign.toml:2: benchmark_list: cannot read the benchmark list")
            && err.contains("selected.txt"),
        "{err}"
    );
    std::fs::write(dir.join("selected.txt"), "# nothing\n\n").unwrap();
    let (code, err) = coreval_run(&dir, &[]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("names no benchmark"), "{err}");
}
