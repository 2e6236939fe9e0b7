//! `coreval selfcheck` against the loop an author would otherwise run,
//! `cvc5 --produce-unsat-cores --check-unsat-cores` one file after the
//! other, on the same real benchmarks: every file of
//! `tests/data/benchmarks` that declares `:status unsat`, has 20 to 60
//! assertions and is under 40 kB, kept when cvc5 answers it within 5 s (a
//! first pass, not timed).
//!
//! In one run, each with the built binary: the default selfcheck of the
//! real z3 (`checkers/venv/bin/z3 {file}`, every installed checker, the
//! references) on a cold cache (an empty `COREVAL_CACHE`), the same again
//! on that cache (warm), `--no-references` on a cold cache of its own, and
//! the cvc5 loop. Prints the wall times and the ratios to the loop
//! (targets: cold at most 2x, warm at most 1x).
//! Run: `cargo bench --bench selfcheck`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// The benchmarks of 20 to 60 assertions, relative to the repository.
fn candidates() -> Vec<PathBuf> {
    let root = Path::new(ROOT);
    let mut files = Vec::new();
    collect(&root.join("tests/data/benchmarks"), &mut files);
    files.retain(|f| {
        let Ok(text) = std::fs::read_to_string(f) else {
            return false;
        };
        let asserts = text.lines().filter(|l| l.starts_with("(assert")).count();
        text.len() < 40_000
            && (20..=60).contains(&asserts)
            && text.contains("(set-info :status unsat)")
    });
    files.sort();
    files
        .into_iter()
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

/// cvc5's own core check of `f` within `limit`: whether it answered unsat.
fn cvc5_checks(f: &Path, limit: Duration) -> bool {
    Command::new("cvc5")
        .current_dir(ROOT)
        .args(["--produce-unsat-cores", "--check-unsat-cores"])
        .arg(format!("--tlimit={}", limit.as_millis()))
        .arg(f)
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).starts_with("unsat"))
}

/// Seconds of one selfcheck with `cache`, and its summary line.
fn selfcheck(files: &[PathBuf], cache: &Path, extra: &[&str]) -> (f64, String) {
    let keep = cache.join("kept");
    let t = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_coreval"))
        .current_dir(ROOT)
        .env("COREVAL_CACHE", cache)
        .env_remove("COREVAL_CHECKERS")
        .args(["selfcheck", "--solver", "checkers/venv/bin/z3 {file}"])
        .arg("--keep")
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
    let files: Vec<PathBuf> = candidates()
        .into_iter()
        .filter(|f| cvc5_checks(f, Duration::from_secs(5)))
        .collect();
    println!("corpus: {} benchmarks of 20 to 60 assertions", files.len());
    let (cold, none) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let mut rows = Vec::new();
    for (label, cache, extra) in [
        ("default, cold cache", cold.path(), &[][..]),
        ("default, warm cache", cold.path(), &[][..]),
        (
            "--no-references, cold",
            none.path(),
            &["--no-references"][..],
        ),
    ] {
        let (secs, summary) = selfcheck(&files, cache, extra);
        println!("{label:<26} {secs:>7.2} s  {summary}");
        rows.push(secs);
    }
    let t = Instant::now();
    let checked = files
        .iter()
        .filter(|f| cvc5_checks(f, Duration::from_secs(20)))
        .count();
    let loop_secs = t.elapsed().as_secs_f64();
    println!(
        "{:<26} {loop_secs:>7.2} s  ({checked} of {} answered unsat, core checked)",
        "cvc5 --check-unsat-cores",
        files.len()
    );
    println!(
        "selfcheck / cvc5 loop: cold {:.2}x (target <= 2), warm {:.2}x (target <= 1), --no-references cold {:.2}x",
        rows[0] / loop_secs,
        rows[1] / loop_secs,
        rows[2] / loop_secs
    );
}
