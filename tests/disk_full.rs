//! Full disk and read-only campaign folder: `coreval run` stops with a clear
//! error that names the file and the cause (exit 2), the journals stay valid
//! (whole lines, nothing twice, no benchmark recorded as failed), and once
//! space is freed or the folder writable again, the same command finishes
//! with the verdicts of an undisturbed run.
//!
//! The campaign folder is a small tmpfs, filled up or remounted read-only
//! between stages (root ignores file permissions, so `chmod` proves
//! nothing). Where tmpfs cannot be mounted (no CAP_SYS_ADMIN) the tests say
//! so and stop; `journal.rs`'s unit tests cover a failing append (ENOSPC
//! from `/dev/full`) without privileges.

mod common;

use common::{copy_examples, coreval_run, jsonl, q, repo, verdict};
use std::collections::{BTreeMap, HashSet};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

const BENCHMARKS: &[&str] = &[
    "QF_UF/cvc5-test_regress_cli_regress0/bt-test-01.smt2",
    "QF_UF/opensmt-test_regression_base_QF_UF/issue226b.smt2",
    "QF_LIA/opensmt-test_regression_base_QF_LIA/distinct_unsat.smt2",
    "QF_AX/opensmt-test_regression_base_QF_AX/nested_arrays.smt2",
    "QF_UFLIA/cvc5-test_regress_cli_regress0/bug303.smt2",
];

fn config(bench: &Path, cache: &Path, solvers: &[&str]) -> String {
    let mut c = format!(
        "benchmarks = {}\ncheckers_dir = {}\njobs = 2\ncache = {}\n[naming]\nallow_no_status = true\n\
         [limits]\ntime = 20.0\nchecker_time = 20.0\n[check]\ncheckers = [\"z3\", \"yices\", \"cvc5\"]\n",
        q(bench),
        q(&repo().join("checkers")),
        q(cache)
    );
    for s in solvers {
        c.push_str(&format!(
            "[[solver]]\nname = \"{s}\"\ndefinition = \"{s}\"\n"
        ));
    }
    c
}

/// A tmpfs mounted on a folder, unmounted when dropped.
struct Tmpfs(PathBuf);

impl Tmpfs {
    fn mount(dir: &Path) -> Option<Tmpfs> {
        std::fs::create_dir_all(dir).unwrap();
        let out = Command::new("mount")
            .args(["-t", "tmpfs", "-o", "size=2m", "tmpfs"])
            .arg(dir)
            .output()
            .ok()?;
        if !out.status.success() {
            common::missing::skip(&format!(
                "tmpfs cannot be mounted here: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            ));
            return None;
        }
        Some(Tmpfs(dir.to_path_buf()))
    }

    fn remount(&self, mode: &str) {
        let ok = Command::new("mount")
            .args(["-o", &format!("remount,{mode}")])
            .arg(&self.0)
            .status()
            .unwrap()
            .success();
        assert!(ok, "cannot remount {} {mode}", self.0.display());
    }

    /// Takes every free byte (a filler file).
    fn fill(&self) {
        let mut f = std::fs::File::create(self.0.join(".filler")).unwrap();
        let chunk = vec![0u8; 4096];
        loop {
            if let Err(e) = f.write_all(&chunk) {
                assert_eq!(e.raw_os_error(), Some(libc::ENOSPC), "{e}");
                break;
            }
        }
    }

    /// Remove the filler and wait until its space is back: a child that
    /// another test of this process forked while the filler was open holds
    /// a copy of its descriptor until it execs, and on a loaded machine that
    /// can take a while.
    fn free(&self) {
        std::fs::remove_file(self.0.join(".filler")).unwrap();
        let probe = self.0.join(".probe");
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        while std::fs::write(&probe, vec![0u8; 64 * 1024]).is_err() {
            assert!(
                std::time::Instant::now() < deadline,
                "the filler's space did not come back"
            );
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        std::fs::remove_file(&probe).unwrap();
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.0).status();
    }
}

fn finished(dir: &Path, args: &[&str]) {
    let (code, err) = coreval_run(dir, args);
    assert!(matches!(code, Some(0 | 1)), "coreval run {args:?}: {err}");
}

/// A tool error naming a file of the campaign and the cause.
fn assert_clear_error(dir: &Path, (code, err): (Option<i32>, String), cause: &str) -> String {
    assert_eq!(code, Some(2), "{err}");
    let line = err
        .lines()
        .find(|l| l.starts_with("Error:"))
        .unwrap_or_else(|| panic!("no error line: {err}"));
    assert!(
        line.contains(dir.to_str().unwrap()) && line.contains(cause),
        "unclear: {line}"
    );
    line.to_string()
}

/// Every journal holds whole, well-formed lines and no key twice; no
/// benchmark was recorded as failed.
fn assert_journals_valid(dir: &Path) {
    let s = |v: &serde_json::Value, k: &str| v[k].as_str().unwrap_or_default().to_string();
    // Each journal with the key of its records.
    type Key<'a> = &'a dyn Fn(&serde_json::Value) -> String;
    let journals: [(&str, Key); 4] = [
        ("runs.jsonl", &|r| {
            format!("{} {}", s(r, "solver"), s(r, "benchmark"))
        }),
        ("cores.jsonl", &|r| {
            format!("{} {}", s(r, "solver"), s(r, "benchmark"))
        }),
        ("checks.jsonl", &|r| {
            format!("{} {}", s(r, "hash"), s(r, "checker"))
        }),
        ("named/index.jsonl", &|r| s(r, "id")),
    ];
    for (name, key) in journals {
        let path = dir.join(name);
        let Ok(bytes) = std::fs::read(&path) else {
            continue;
        };
        assert!(
            bytes.is_empty() || bytes.ends_with(b"\n"),
            "{name}: torn last line"
        );
        let mut seen = HashSet::new();
        for r in jsonl(&path) {
            assert!(seen.insert(key(&r)), "{name}: twice: {}", key(&r));
            assert_ne!(
                r["outcome"], "failed",
                "{name}: a benchmark recorded as failed: {r}"
            );
        }
    }
}

fn verdicts(dir: &Path) -> BTreeMap<String, String> {
    jsonl(&dir.join("reports/pairs.jsonl"))
        .iter()
        .map(|p| {
            assert_eq!(p["pending"], false, "{p}");
            (format!("{} {}", p["solver"], p["benchmark"]), verdict(p))
        })
        .collect()
}

/// The undisturbed run of the same campaign, on an ordinary folder.
fn reference(tmp: &Path, bench: &Path) -> BTreeMap<String, String> {
    let dir = tmp.join("reference");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("campaign.toml"),
        config(bench, &tmp.join("ref-cache"), &["z3", "yices", "cvc5"]),
    )
    .unwrap();
    finished(&dir, &[]);
    verdicts(&dir)
}

#[test]
fn full_disk_in_every_stage() {
    let tmp = tempfile::tempdir().unwrap();
    let bench = tmp.path().join("bench");
    copy_examples(&bench, BENCHMARKS);
    let dir = tmp.path().join("campaign");
    let Some(fs) = Tmpfs::mount(&dir) else { return };
    let cache = tmp.path().join("cache");
    std::fs::write(dir.join("campaign.toml"), config(&bench, &cache, &["z3"])).unwrap();

    // Naming: the named files cannot be written. No benchmark counts as failed.
    fs.fill();
    let e = assert_clear_error(&dir, coreval_run(&dir, &[]), "(disk full)");
    println!("naming: {e}");
    assert_journals_valid(&dir);
    fs.free();
    finished(&dir, &["--stage", "name"]);
    finished(&dir, &["--stage", "solve"]);

    // Solving: records that do not fit are cut back, not left half written.
    std::fs::write(
        dir.join("campaign.toml"),
        config(&bench, &cache, &["z3", "yices", "cvc5"]),
    )
    .unwrap();
    fs.fill();
    let before = jsonl(&dir.join("runs.jsonl")).len();
    let e = assert_clear_error(&dir, coreval_run(&dir, &[]), "(disk full)");
    println!("solving: {e}");
    assert!(e.contains("runs.jsonl"), "{e}");
    assert_journals_valid(&dir);
    assert!(jsonl(&dir.join("runs.jsonl")).len() >= before);

    // Checking: core-only benchmarks and check records cannot be written.
    fs.free();
    finished(&dir, &["--stage", "solve"]);
    fs.fill();
    let e = assert_clear_error(&dir, coreval_run(&dir, &[]), "(disk full)");
    println!("checking: {e}");
    assert_journals_valid(&dir);

    // Scoring: the reports cannot be written; the journals are untouched.
    fs.free();
    finished(&dir, &["--stage", "check"]);
    let journals = std::fs::read(dir.join("checks.jsonl")).unwrap();
    fs.fill();
    let e = assert_clear_error(&dir, coreval_run(&dir, &[]), "(disk full)");
    println!("scoring: {e}");
    assert!(e.contains("reports"), "{e}");
    assert_eq!(std::fs::read(dir.join("checks.jsonl")).unwrap(), journals);

    // Space again: the same command finishes, as if nothing had happened.
    fs.free();
    finished(&dir, &[]);
    assert_journals_valid(&dir);
    assert_eq!(verdicts(&dir), reference(tmp.path(), &bench));
    drop(fs);
}

#[test]
fn read_only_campaign_folder() {
    let tmp = tempfile::tempdir().unwrap();
    let bench = tmp.path().join("bench");
    copy_examples(&bench, BENCHMARKS);
    let dir = tmp.path().join("campaign");
    let Some(fs) = Tmpfs::mount(&dir) else { return };
    let cache = tmp.path().join("cache");
    std::fs::write(
        dir.join("campaign.toml"),
        config(&bench, &cache, &["z3", "yices", "cvc5"]),
    )
    .unwrap();

    fs.remount("ro");
    let e = assert_clear_error(&dir, coreval_run(&dir, &[]), "(read-only file system)");
    println!("naming: {e}");
    fs.remount("rw");
    finished(&dir, &["--stage", "name"]);

    fs.remount("ro");
    let e = assert_clear_error(&dir, coreval_run(&dir, &[]), "(read-only file system)");
    println!("solving: {e}");
    assert!(e.contains("runs.jsonl"), "{e}");
    fs.remount("rw");
    finished(&dir, &["--stage", "solve"]);

    fs.remount("ro");
    let e = assert_clear_error(&dir, coreval_run(&dir, &[]), "(read-only file system)");
    println!("checking: {e}");
    fs.remount("rw");
    assert_journals_valid(&dir);

    finished(&dir, &[]);
    assert_journals_valid(&dir);
    assert_eq!(verdicts(&dir), reference(tmp.path(), &bench));
    drop(fs);
}

/// A group of records (`Journal::append_all`, the check stage's group
/// commit) that does not fit is cut off whole: the first part of it does
/// fit (the free end of the journal's last page), the rest does not, and
/// the journal keeps only the records written before.
#[test]
fn append_all_on_a_full_disk_leaves_whole_lines() {
    #[derive(serde::Serialize, serde::Deserialize)]
    struct R {
        k: usize,
        pad: String,
    }
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("fs");
    let Some(fs) = Tmpfs::mount(&dir) else { return };
    let path = dir.join("checks.jsonl");
    let journal = coreval::store::journal::Journal::open(&path).unwrap();
    journal
        .append(&R {
            k: 0,
            pad: String::new(),
        })
        .unwrap();
    let before = std::fs::read(&path).unwrap();
    fs.fill();
    let group: Vec<R> = (1..=20)
        .map(|k| R {
            k,
            pad: "x".repeat(1000),
        })
        .collect();
    let e = format!("{:#}", journal.append_all(&group).unwrap_err());
    assert!(
        e.contains("checks.jsonl") && e.contains("(disk full)"),
        "{e}"
    );
    let after = std::fs::read(&path).unwrap();
    assert!(
        after == before,
        "no half line is left: {} bytes were added",
        after.len().saturating_sub(before.len())
    );
    fs.free();
    journal.append_all(&group).unwrap();
    let (records, report) = coreval::store::journal::read_all::<R>(&path).unwrap();
    assert!(!report.torn_tail && report.bad_lines.is_empty());
    assert_eq!(records.len(), 21);
    drop(fs);
}
