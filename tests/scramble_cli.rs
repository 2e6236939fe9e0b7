//! `coreval scramble` from the command line: folder trees, thread counts,
//! the competition seed procedure, bad files.

mod common;

use predicates::str::contains;
use std::path::{Path, PathBuf};

fn benchmarks(family: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/benchmarks")
        .join(family)
}

/// Every file below `dir`, relative path → bytes, sorted.
fn tree(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let rel = p.strip_prefix(dir).unwrap().to_path_buf();
                out.push((rel, std::fs::read(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn same_bytes_whatever_the_thread_count() {
    let tmp = tempfile::tempdir().unwrap();
    let input = benchmarks("QF_LIA");
    let mut trees = Vec::new();
    for jobs in ["1", "2", "4"] {
        let out = tmp.path().join(format!("j{jobs}"));
        common::cmd()
            .args(["scramble", "--seed", "77", "--commute", "-j", jobs, "-o"])
            .arg(&out)
            .arg(&input)
            .assert()
            .success()
            .stderr(contains("seed 77"));
        trees.push(tree(&out));
    }
    let n = trees[0].len();
    assert!(n >= 2 * 31, "{n} files");
    assert!(trees[0]
        .iter()
        .any(|(p, _)| p.to_string_lossy().ends_with(".descramble.json")));
    assert_eq!(trees[0], trees[1]);
    assert_eq!(trees[0], trees[2]);
    // Another seed gives other files.
    let other = tmp.path().join("other");
    common::cmd()
        .args(["scramble", "--seed", "78", "--commute", "-o"])
        .arg(&other)
        .arg(&input)
        .assert()
        .success();
    assert_ne!(tree(&other), trees[0]);
}

#[test]
fn seed_from_entrants_and_nyse() {
    let tmp = tempfile::tempdir().unwrap();
    let csv = tmp.path().join("entrants.csv");
    std::fs::write(
        &csv,
        "solver,number,organizer\nA,4000000000,\nB,123456789,no\nOrganizers' solver,99,yes\n",
    )
    .unwrap();
    let expect = (4_000_000_000u64 + 123_456_789 + 10_512) % (1 << 30);
    let input = benchmarks("QF_UF/cvc5-test_regress_cli_regress0_uf");
    let a = tmp.path().join("a");
    let b = tmp.path().join("b");
    common::cmd()
        .args(["scramble", "--nyse", "10,512.83", "--seed-from"])
        .arg(&csv)
        .arg("-o")
        .arg(&a)
        .arg(&input)
        .assert()
        .success()
        .stderr(contains(format!(
            "seed {expect} = (2 entrant numbers + NYSE 10512) mod 2^30"
        )));
    common::cmd()
        .args(["scramble", "--seed", &expect.to_string(), "-o"])
        .arg(&b)
        .arg(&input)
        .assert()
        .success();
    assert_eq!(tree(&a), tree(&b));
    // from 2024 the smtcomp tool's formula: the modulo first, then 100 × NYSE
    let tool = (4_000_000_000u64 + 123_456_789) % (1 << 30) + 1_051_283;
    common::cmd()
        .args([
            "scramble",
            "--nyse",
            "10,512.83",
            "--rules",
            "smtcomp-2024",
            "--seed-from",
        ])
        .arg(&csv)
        .arg("-o")
        .arg(tmp.path().join("t"))
        .arg(&input)
        .assert()
        .success()
        .stderr(contains(format!(
            "seed {tool} = (2 entrant numbers mod 2^30) + 100 × NYSE 10,512.83"
        )));
    // --seed-from needs --nyse, and one seed source is required.
    common::cmd()
        .args(["scramble", "--seed-from"])
        .arg(&csv)
        .arg("-o")
        .arg(tmp.path().join("c"))
        .arg(&input)
        .assert()
        .failure();
    common::cmd()
        .args(["scramble", "-o"])
        .arg(tmp.path().join("c"))
        .arg(&input)
        .assert()
        .failure();
}

#[test]
fn a_bad_file_is_reported_and_the_others_go_on() {
    let tmp = tempfile::tempdir().unwrap();
    let input = tmp.path().join("in");
    std::fs::create_dir_all(input.join("fam")).unwrap();
    std::fs::write(
        input.join("fam/good.smt2"),
        "(set-logic QF_UF)\n(set-info :status unsat)\n(declare-fun p () Bool)\n(assert p)\n(assert (not p))\n(check-sat)\n",
    )
    .unwrap();
    std::fs::write(
        input.join("fam/bad.smt2"),
        "(set-logic QF_UF)\n(declare-fun p () Bool)\n(assert (let p))\n",
    )
    .unwrap();
    let out = tmp.path().join("out");
    common::cmd()
        .args(["scramble", "--seed", "3", "-o"])
        .arg(&out)
        .arg(&input)
        .assert()
        .code(1)
        .stderr(contains("bad.smt2:3:9: let: expected (let ((x t) …) body)"))
        .stderr(contains("scrambled 1 of 2"));
    assert!(out.join("fam/good.smt2").exists());
    assert!(!out.join("fam/bad.smt2").exists());
    let map =
        coreval::scramble::DescrambleMap::load(&out.join("fam/good.descramble.json")).unwrap();
    assert_eq!(map.status.as_deref(), Some("unsat"));
    assert_eq!(map.assertions.len(), 2);
    // An output folder inside the input folder is refused.
    common::cmd()
        .args(["scramble", "--seed", "3", "-o"])
        .arg(input.join("sub"))
        .arg(&input)
        .assert()
        .code(2)
        .stderr(contains("inside the input folder"));
}
