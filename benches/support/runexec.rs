//! BenchExec's `runexec --no-container` of one command, for the tests and
//! the bench of runs in cgroups (`tests/cgroup.rs`,
//! `benches/runexec.rs`): its CPU
//! seconds and peak memory, as it prints them (`cputime=…s`, `memory=…B`).

use std::path::Path;
use std::process::Command;

/// `checkers/venv/bin/runexec` (`checkers/install.sh --dev`) of
/// `command`, run in `cwd`: CPU seconds and peak bytes.
pub fn measure(root: &Path, cwd: &Path, command: &[String]) -> (f64, u64) {
    let exe = root.join("checkers/venv/bin/runexec");
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(&exe)
        .args(["--no-container", "--output"])
        .arg(dir.path().join("log"))
        .arg("--")
        .args(command)
        .current_dir(cwd)
        .output()
        .unwrap_or_else(|e| panic!("{}: {e} (bash checkers/install.sh --dev)", exe.display()));
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let value = |key: &str, unit: &str| -> f64 {
        let line = text.lines().find(|l| l.starts_with(key));
        let line = line.unwrap_or_else(|| panic!("runexec printed no {key}: {text} {out:?}"));
        line[key.len()..].trim_end_matches(unit).parse().unwrap()
    };
    (value("cputime=", "s"), value("memory=", "B") as u64)
}
