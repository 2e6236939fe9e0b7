//! What `coreval selfcheck`'s reference solvers cost, on the test corpus:
//! the 4 benchmarks of `tests/fixtures/selfcheck/unsat` and the first 22
//! (sorted by path) files under `tests/data/benchmarks/{QF_UF,QF_LIA}` from
//! the regression and prime-cone families that declare `:status unsat` and
//! are under 20 kB; solver
//! `tests/fixtures/fake-solvers/z3-core.sh`, every installed checker.
//!
//! In one run, each with the built binary and a cache folder of its own:
//! `--no-references` and the default on a cold cache (empty), then both
//! again on the same caches (warm), and cvc5's own core check
//! (`cvc5 --produce-unsat-cores --check-unsat-cores`, one file after the
//! other) on the same files. Prints the wall times and the ratios
//! default / `--no-references` (targets: ≤ 1.5 warm, ≤ 3 cold).
//! Run: `cargo bench --bench selfcheck`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn corpus() -> Vec<PathBuf> {
    let root = Path::new(ROOT);
    let mut files: Vec<PathBuf> = Vec::new();
    for d in ["QF_UF", "QF_LIA"] {
        collect(&root.join("tests/data/benchmarks").join(d), &mut files);
    }
    // Regression-sized files, as an author's folder holds (the slacked and
    // calypto families take z3 seconds each: not what selfcheck is for).
    files.retain(|f| {
        let p = f.to_string_lossy();
        (p.contains("regress") || p.contains("prime-cone"))
            && f.metadata().is_ok_and(|m| m.len() < 20_000)
            && std::fs::read_to_string(f).is_ok_and(|t| t.contains("(set-info :status unsat)"))
    });
    files.sort();
    files.truncate(22);
    let mut all = Vec::new();
    collect(&root.join("tests/fixtures/selfcheck/unsat"), &mut all);
    all.sort();
    all.extend(files);
    all.into_iter()
        .map(|f| f.strip_prefix(root).unwrap().to_path_buf())
        .collect()
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            collect(&p, out);
        } else if p.extension().is_some_and(|x| x == "smt2") {
            out.push(p);
        }
    }
}

/// Seconds of one selfcheck with `cache`, and its summary line.
fn selfcheck(files: &[PathBuf], cache: &Path, extra: &[&str]) -> (f64, String) {
    let keep = cache.join("kept");
    let t = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_coreval"))
        .current_dir(ROOT)
        .env("COREVAL_CACHE", cache)
        .env_remove("COREVAL_CHECKERS")
        .args([
            "selfcheck",
            "--solver",
            "tests/fixtures/fake-solvers/z3-core.sh {file}",
        ])
        .args(["--timeout", "20", "--checker-timeout", "20", "--keep"])
        .arg(&keep)
        .args(extra)
        .args(files)
        .output()
        .expect("coreval runs");
    let secs = t.elapsed().as_secs_f64();
    let text = String::from_utf8_lossy(&out.stdout);
    let summary = text
        .lines()
        .rfind(|l| l.starts_with("selfcheck: "))
        .unwrap_or("(no summary)")
        .to_string();
    (secs, summary)
}

fn main() {
    let files = corpus();
    println!("corpus: {} benchmarks", files.len());
    let none = tempfile::tempdir().unwrap();
    let all = tempfile::tempdir().unwrap();
    let mut rows = Vec::new();
    for (label, cache, extra) in [
        (
            "cold --no-references",
            none.path(),
            &["--no-references"][..],
        ),
        ("cold default", all.path(), &[][..]),
        (
            "warm --no-references",
            none.path(),
            &["--no-references"][..],
        ),
        ("warm default", all.path(), &[][..]),
    ] {
        let (secs, summary) = selfcheck(&files, cache, extra);
        println!("{label:<22} {secs:>8.2} s  {summary}");
        rows.push(secs);
    }
    let t = Instant::now();
    let mut checked = 0;
    for f in &files {
        let out = Command::new("cvc5")
            .current_dir(ROOT)
            .args([
                "--produce-unsat-cores",
                "--check-unsat-cores",
                "--tlimit=20000",
            ])
            .arg(f)
            .output();
        if out.is_ok_and(|o| String::from_utf8_lossy(&o.stdout).starts_with("unsat")) {
            checked += 1;
        }
    }
    let cvc5 = t.elapsed().as_secs_f64();
    println!(
        "{:<22} {cvc5:>8.2} s  ({checked} of {} answered unsat with their core checked)",
        "cvc5 --check-unsat-cores",
        files.len()
    );
    println!(
        "default / --no-references: cold {:.2}x (target <= 3), warm {:.2}x (target <= 1.5)",
        rows[1] / rows[0],
        rows[3] / rows[2]
    );
}
