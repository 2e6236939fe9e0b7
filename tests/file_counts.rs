//! Counts of files and what a benchmark is known by: naming counts FILES,
//! each once with all its reasons (a file listed under several names, an
//! empty file with four reasons); FIFOs, broken links and link loops are
//! listed in the reports as what they are; an unreadable file is not
//! malformed; `run` exits 1 when a benchmark could not be named; messages of
//! `name FILE` name the file; and a same-size edit that keeps the
//! modification time (`touch -r`) is renamed and re-run.

mod common;

use common::{coreval_run, jsonl};
use coreval::campaign::setup::ConfigFile;
use std::os::unix::fs::symlink;
use std::path::Path;

const UNSAT: &str = "(set-logic QF_UF)\n(declare-const p Bool)\n(declare-const q Bool)\n\
                     (assert p)\n(assert (not p))\n(assert q)\n(check-sat)\n(exit)\n";
const SAT: &str = "(set-logic QF_UF)\n(set-info :status sat)\n(declare-const p Bool)\n\
                   (assert p)\n(assert p)\n(check-sat)\n(exit)\n";

/// A benchmark tree with one case of each kind under `root/QF_UF`:
/// `good` (named), `sat` and two links to it (one ineligible file, three
/// names), `empty` (ineligible for several reasons), `bad` (malformed),
/// `unreadable` (a link to a file that cannot be read, even by root:
/// `/proc/self/mem` at offset 0), `fifo`, `broken` and `loop` (skipped).
fn tree(root: &Path) {
    let d = root.join("QF_UF");
    std::fs::create_dir_all(&d).unwrap();
    std::fs::write(d.join("good.smt2"), UNSAT).unwrap();
    std::fs::write(d.join("sat.smt2"), SAT).unwrap();
    symlink("sat.smt2", d.join("sat-link1.smt2")).unwrap();
    symlink("sat.smt2", d.join("sat-link2.smt2")).unwrap();
    std::fs::write(d.join("empty.smt2"), "").unwrap();
    std::fs::write(d.join("bad.smt2"), "(set-logic QF_UF)\n(assert (and\n").unwrap();
    symlink("/proc/self/mem", d.join("unreadable.smt2")).unwrap();
    let fifo = std::ffi::CString::new(d.join("fifo.smt2").to_str().unwrap()).unwrap();
    // SAFETY: mkfifo with a valid path.
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o644) }, 0);
    symlink("nowhere.smt2", d.join("broken.smt2")).unwrap();
    symlink("loop.smt2", d.join("loop.smt2")).unwrap();
}

/// The campaign `camp` on `camp/bench`: z3 under test, yices and cvc5
/// check (definitions in `scratch/checkers`).
fn configure(camp: &Path, scratch: &Path) {
    let kdir = common::real_checkers(&scratch.join("checkers"));
    let mut config = ConfigFile::new("bench");
    config.checkers_dir = Some(kdir);
    config.jobs = 2;
    config.naming.allow_no_status = true;
    config.check.checkers = vec!["yices".into(), "cvc5".into()];
    config.solver_definition("z3", "z3");
    config.write_to(camp).unwrap();
}

#[test]
fn each_file_counts_once_and_skipped_paths_are_listed_as_what_they_are() {
    let tmp = tempfile::tempdir().unwrap();
    let camp = tmp.path().join("campaign");
    tree(&camp.join("bench"));
    configure(&camp, tmp.path());
    let (code, stderr) = coreval_run(&camp, &[]);
    assert_eq!(
        code,
        Some(1),
        "malformed and unreadable files fail the run: {stderr}"
    );
    assert!(
        stderr.contains(
            "name: 5 files (7 names): 1 named, 2 ineligible, 1 malformed, 1 failed, 3 skipped"
        ),
        "{stderr}"
    );
    let scores: serde_json::Value =
        serde_json::from_slice(&std::fs::read(camp.join("reports/scores.json")).unwrap()).unwrap();
    let b = &scores["facts"]["benchmarks"];
    assert_eq!(b["found"], 5, "{b}");
    assert_eq!(b["names"], 7, "{b}");
    assert_eq!(b["named"], 1, "{b}");
    assert_eq!(b["ineligible_files"], 2, "{b}");
    assert_eq!(b["malformed_files"], 1, "{b}");
    assert_eq!(b["failed_files"], 1, "{b}");
    let listed = |key: &str| -> Vec<String> {
        b[key]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap().to_string())
            .collect()
    };
    let (malformed, unreadable, skipped) =
        (listed("malformed"), listed("failed"), listed("skipped"));
    assert!(
        malformed.len() == 1 && malformed[0].starts_with("QF_UF/bad.smt2:"),
        "{malformed:?}"
    );
    assert!(
        unreadable.len() == 1 && unreadable[0].starts_with("QF_UF/unreadable.smt2: cannot read"),
        "{unreadable:?}"
    );
    let of = |name: &str| {
        skipped
            .iter()
            .find(|s| s.contains(&format!("QF_UF/{name}.smt2: ")))
            .unwrap_or_else(|| panic!("{name} not in {skipped:?}"))
            .clone()
    };
    assert_eq!(skipped.len(), 3, "{skipped:?}");
    assert!(of("fifo").contains("a FIFO"), "{skipped:?}");
    assert!(of("broken").contains("broken link"), "{skipped:?}");
    assert!(of("loop").contains("link loop"), "{skipped:?}");
    assert!(!of("loop").contains("broken"), "{skipped:?}");
    let md = std::fs::read_to_string(camp.join("reports/report.md")).unwrap();
    assert!(
        md.contains(
            "Benchmarks: 5 files found (7 names), 1 named, 2 ineligible, 1 malformed, 1 failed, 3 skipped."
        ),
        "{md}"
    );
    assert!(md.contains("- skipped: ") && md.contains("a FIFO"), "{md}");
    let html = std::fs::read_to_string(camp.join("reports/report.html")).unwrap();
    assert!(html.contains("link loop"), "html lists the loop");
}

#[test]
fn messages_of_name_file_name_the_file() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("bad.smt2");
    std::fs::write(&file, "(set-logic QF_UF)\n(assert (and\n").unwrap();
    let out = common::command()
        .arg("name")
        .arg(&file)
        .arg("-o")
        .arg(tmp.path().join("out"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    let at = format!("{}:", file.display());
    assert!(stderr.lines().any(|l| l.starts_with(&at)), "{stderr}");
    assert!(!stderr.contains("bad.smt2/bad.smt2"), "{stderr}");
}

#[test]
fn a_same_size_edit_that_keeps_the_mtime_is_renamed_and_rerun() {
    let tmp = tempfile::tempdir().unwrap();
    let camp = tmp.path().join("campaign");
    let d = camp.join("bench/QF_UF");
    std::fs::create_dir_all(&d).unwrap();
    let file = d.join("good.smt2");
    std::fs::write(&file, UNSAT).unwrap();
    configure(&camp, tmp.path());
    let (code, stderr) = coreval_run(&camp, &[]);
    assert_eq!(code, Some(0), "{stderr}");
    let runs_before = jsonl(&camp.join("runs.jsonl")).len();
    let named_before = std::fs::read_to_string(camp.join("named/QF_UF/good.smt2")).unwrap();

    // Same size, same modification time: `q` becomes `r` (as `touch -r`).
    let mtime = std::fs::metadata(&file).unwrap().modified().unwrap();
    let edited = UNSAT.replace('q', "r");
    assert_eq!(edited.len(), UNSAT.len());
    std::fs::write(&file, &edited).unwrap();
    std::fs::File::options()
        .write(true)
        .open(&file)
        .unwrap()
        .set_modified(mtime)
        .unwrap();
    assert_eq!(std::fs::metadata(&file).unwrap().modified().unwrap(), mtime);

    let (code, stderr) = coreval_run(&camp, &[]);
    assert_eq!(code, Some(0), "{stderr}");
    let named_after = std::fs::read_to_string(camp.join("named/QF_UF/good.smt2")).unwrap();
    assert_ne!(named_before, named_after, "renamed");
    assert!(named_after.contains("declare-const r"), "{named_after}");
    let runs = jsonl(&camp.join("runs.jsonl"));
    assert_eq!(runs.len(), runs_before + 1, "z3 ran again: {stderr}");
    // The unchanged benchmark is not renamed again.
    let (code, stderr) = coreval_run(&camp, &[]);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(
        jsonl(&camp.join("runs.jsonl")).len(),
        runs.len(),
        "{stderr}"
    );
    assert!(stderr.contains("(1 from an earlier run)"), "{stderr}");
}
