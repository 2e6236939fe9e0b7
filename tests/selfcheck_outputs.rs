//! selfcheck's outputs for CI and --shrink (docs/authors.md): every output path
//! is checked before any solver starts (a bad `--keep`, `--junit`, `--json`
//! or `--baseline` costs no run), the JUnit file is readable by all with
//! every testcase's votes, under GitHub Actions each FAIL is an
//! `::error file=…,line=…::` annotation, and `--shrink` reduces failures
//! side by side, its `repeat on it:` line running as printed.

mod common;

use common::{command, fake_solver, repo};
use std::time::{Duration, Instant};

const BT: &str = "tests/fixtures/selfcheck/unsat/QF_UF/bt-test-01.smt2";
const PRIME: &str = "tests/fixtures/selfcheck/unsat/QF_LIA/prime_cone_unsat_3.smt2";

#[test]
fn a_bad_output_path_is_refused_before_any_solver_runs() {
    let tmp = tempfile::tempdir().unwrap();
    let afile = tmp.path().join("afile");
    std::fs::write(&afile, "a file").unwrap();
    // The solver hangs for 20 s: a refusal after its run would show.
    let hang = format!("{} {{file}}", fake_solver("hang.sh"));
    let bad: [(&str, std::path::PathBuf); 4] = [
        ("--keep", afile.join("kept")),
        ("--junit", tmp.path().join("no/such/folder/j.xml")),
        ("--json", tmp.path().to_path_buf()),
        ("--baseline", tmp.path().join("missing.json")),
    ];
    for (opt, path) in &bad {
        let started = Instant::now();
        let out = command()
            .current_dir(tmp.path())
            .args(["selfcheck", "--solver", &hang, "--timeout", "20"])
            .arg(opt)
            .arg(path)
            .arg(repo().join(BT))
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{opt}: {err}");
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "{opt}: ran first"
        );
        assert!(
            err.contains("found before anything ran") && err.contains(opt),
            "{opt}: {err}"
        );
    }
}

#[test]
fn junit_is_readable_by_all_with_votes_and_fails_are_github_annotations() {
    let tmp = tempfile::tempdir().unwrap();
    let junit = tmp.path().join("j.xml");
    let drop = format!("{} {{file}}", fake_solver("z3-drop-first.sh"));
    let out = command()
        .current_dir(repo())
        .env("GITHUB_ACTIONS", "true")
        .env("COREVAL_CACHE", tmp.path().join("cache"))
        .args([
            "selfcheck",
            "--solver",
            &drop,
            "--no-references",
            "--checkers",
            "z3,yices",
        ])
        .arg("--keep")
        .arg(tmp.path().join("kept"))
        .arg("--junit")
        .arg(&junit)
        .args([BT, PRIME])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    let annotations: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("::error "))
        .collect();
    let fails = stdout.lines().filter(|l| l.starts_with("FAIL")).count();
    assert!(fails > 0, "{stdout}");
    assert_eq!(annotations.len(), fails, "{stdout}");
    for a in &annotations {
        assert!(
            a.starts_with("::error file=tests/fixtures/selfcheck/"),
            "{a}"
        );
        assert!(a.contains(",line="), "{a}");
    }
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&junit).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o644);
    // z3's own team is left out: yices votes.
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(xml.matches("checker yices: sat").count() >= 2, "{xml}");
    // A passing run, without GitHub Actions: no annotation, and each
    // passed testcase carries its votes.
    let good = format!("{} {{file}}", fake_solver("z3-core.sh"));
    let out = command()
        .current_dir(repo())
        .env_remove("GITHUB_ACTIONS")
        .env("COREVAL_CACHE", tmp.path().join("cache"))
        .args([
            "selfcheck",
            "--solver",
            &good,
            "--no-references",
            "--checkers",
            "z3,yices",
        ])
        .arg("--junit")
        .arg(&junit)
        .arg(BT)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(!String::from_utf8_lossy(&out.stdout).contains("::error"));
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(xml.contains("checker yices: unsat</system-out>"), "{xml}");
}

#[test]
fn shrinks_repeat_runs_as_printed_without_coreval_on_path() {
    let tmp = tempfile::tempdir().unwrap();
    let drop = format!("{} {{file}}", fake_solver("z3-drop-first.sh"));
    std::fs::copy(repo().join(BT), tmp.path().join("bt.smt2")).unwrap();
    let run = |cmd: &mut std::process::Command| {
        cmd.current_dir(tmp.path())
            .env("PATH", "/usr/bin:/bin")
            .env("COREVAL_CACHE", tmp.path().join("cache"))
            .env("COREVAL_NO_PROGRESS", "1")
            .env_remove("COREVAL_CHECKERS");
        let out = cmd.output().unwrap();
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        (out.status.code(), text)
    };
    let (code, text) = run(command()
        .args([
            "selfcheck",
            "--solver",
            &drop,
            "--no-references",
            "--checkers",
            "z3,yices",
        ])
        .args(["--checkers-dir", &repo().join("checkers").to_string_lossy()])
        .args(["--shrink", "--shrink-time", "30", "bt.smt2"]));
    assert_eq!(code, Some(1), "{text}");
    let repeat = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("repeat on it: $ "))
        .unwrap_or_else(|| panic!("no shrink repeat line: {text}"));
    let (code, again) = run(std::process::Command::new("sh").args(["-c", repeat]));
    assert!(!again.contains("not found"), "{repeat}: {again}");
    assert_eq!(
        code,
        Some(1),
        "the reproducer fails again: {repeat}: {again}"
    );
}

#[test]
fn failures_shrink_side_by_side_within_jobs_and_the_total_is_shown() {
    let tmp = tempfile::tempdir().unwrap();
    let drop = format!("{} {{file}}", fake_solver("z3-drop-first.sh"));
    let out = command()
        .current_dir(repo())
        .env("COREVAL_CACHE", tmp.path().join("cache"))
        .args([
            "selfcheck",
            "--solver",
            &drop,
            "--no-references",
            "--checkers",
            "z3,yices",
        ])
        .arg("--keep")
        .arg(tmp.path().join("kept"))
        .args(["-j", "2", "--shrink", "--shrink-time", "30", BT, PRIME])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("shrink: 2 failure(s), 2 at a time, each for at most 30 s"),
        "{err}"
    );
    let lines: Vec<&str> = err.lines().filter(|l| l.starts_with("shrink: ")).collect();
    let first_done = lines
        .iter()
        .position(|l| l.contains(" done in "))
        .expect("{err}");
    let started = lines[..first_done]
        .iter()
        .filter(|l| l.ends_with("assertions)…"))
        .count();
    assert_eq!(started, 2, "both began before either ended: {lines:?}");
    assert!(
        lines
            .last()
            .unwrap()
            .starts_with("shrink: 2 failure(s) in "),
        "{lines:?}"
    );
    assert_eq!(stdout.matches("repeat on it: $ ").count(), 2, "{stdout}");
}
