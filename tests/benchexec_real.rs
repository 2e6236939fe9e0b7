//! What real BenchExec writes, read back: `benchexec --no-container`
//! (PyPI, installed by `checkers/install.sh --dev`) runs the real z3 through
//! BenchExec's own z3 tool-info module on two bundled-style benchmarks, and
//! `coreval score --benchexec` finds every run's log in the
//! `.logfiles.zip` it wrote (BenchExec 3.35 names a result `RUNDEF.TASKS`
//! with `block="TASKS"`, and zips the logs in a folder) and reads each
//! answer and core. Needs root and cgroups, as BenchExec does; without
//! them the test says SKIPPED (under `CI` it fails).

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

const A: &str =
    "(set-info :status unsat)\n(set-option :produce-unsat-cores true)\n(set-logic QF_LIA)\n\
(declare-const x Int)\n(assert (! (> x 5) :named a1))\n(assert (! (< x 3) :named a2))\n\
(assert (! (> x 0) :named a3))\n(check-sat)\n(get-unsat-core)\n";
const B: &str = "(set-info :status unsat)\n(set-option :produce-unsat-cores true)\n(set-logic QF_LIA)\n\
(declare-const y Int)\n(assert (! (= y 1) :named b1))\n(assert (! (= y 2) :named b2))\n(check-sat)\n(get-unsat-core)\n";

const DEFINITION: &str = r#"<?xml version="1.0"?>
<!DOCTYPE benchmark PUBLIC "+//IDN sosy-lab.org//DTD BenchExec benchmark 2.3//EN" "https://www.sosy-lab.org/benchexec/benchmark-2.3.dtd">
<benchmark tool="z3" timelimit="20s" memlimit="1000 MB" cpuCores="1">
  <rundefinition name="z3"><option name="smt.core.minimize=true"/></rundefinition>
  <tasks name="uc"><include>QF_LIA/f/*.smt2</include></tasks>
</benchmark>
"#;

fn benchexec() -> Option<PathBuf> {
    let p = common::repo().join("checkers/venv/bin/benchexec");
    p.is_file().then_some(p)
}

/// What a command printed, stdout then stderr.
fn both(o: &std::process::Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// The result file benchexec wrote into `out`.
fn result_file(out: &Path) -> PathBuf {
    std::fs::read_dir(out)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.to_string_lossy().ends_with(".xml.bz2"))
        .expect("a result file")
}

#[test]
fn real_benchexec_results_and_logs_are_read() {
    let Some(benchexec) = benchexec() else {
        common::missing::skip("benchexec is not installed in checkers/venv");
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("bench");
    std::fs::create_dir_all(root.join("QF_LIA/f")).unwrap();
    std::fs::write(root.join("QF_LIA/f/a.smt2"), A).unwrap();
    std::fs::write(root.join("QF_LIA/f/b.smt2"), B).unwrap();
    std::fs::write(root.join("uc.xml"), DEFINITION).unwrap();
    let venv = common::repo().join("checkers/venv/bin");
    let path = format!(
        "{}:{}",
        venv.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let ran = Command::new(&benchexec)
        .current_dir(&root)
        .env("PATH", path)
        .args(["--no-container", "uc.xml", "-o"])
        .arg(tmp.path().join("out/"))
        .output()
        .unwrap();
    let said = both(&ran);
    if !ran.status.success() {
        // BenchExec needs cgroups (and root to use them here).
        common::missing::skip(&format!("benchexec could not run: {said}"));
        return;
    }
    let xml = result_file(&tmp.path().join("out"));
    let json = tmp.path().join("score.json");
    let out = common::command()
        .arg("score")
        .arg("--benchexec")
        .arg(&xml)
        .arg("--benchmarks")
        .arg(&root)
        .args(["--rules", "smtcomp-2025", "--json"])
        .arg(&json)
        .output()
        .unwrap();
    let text = both(&out);
    assert!(out.status.success(), "{text}\n{said}");
    assert!(!text.contains("no output log"), "{text}");
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(v["pairs"], 2, "{text}");
    // Both runs answered unsat with a core: imported cores, not yet checked.
    let warnings = v.to_string();
    assert!(
        warnings.contains("2 imported cores are unchecked"),
        "{text}\n{warnings}"
    );
}
