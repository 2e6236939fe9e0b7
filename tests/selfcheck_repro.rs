//! `coreval selfcheck` failures repeated from their printout alone (issue
//! 22): broken wrappers around the real z3 (`tests/fixtures/fake-solvers/`)
//! and a solver as an author writes it (`tests/fixtures/selfcheck/solvers/`)
//! each get the right verdict, and the test then parses the commands the
//! detail lines print (`solver: $ …`, `checker K answered A: $ …`), runs them
//! from the folder selfcheck ran in, and gets the same answers. Also: the
//! edges (a confirmed `sat`, incremental scripts, nothing judged) and the
//! team by observation of a wrapper that runs z3.

use assert_cmd::Command;
use std::path::Path;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");
const PRIME: &str = "tests/fixtures/selfcheck/unsat/QF_LIA/prime_cone_unsat_3.smt2";
const SAT: &str = "tests/fixtures/selfcheck/edges/sat-no-status.smt2";
const INCREMENTAL: &str = "tests/fixtures/selfcheck/edges/incremental.smt2";

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
    junit: String,
    keep: tempfile::TempDir,
}

/// `coreval selfcheck ARGS` from the repository root, with a fresh cache,
/// a keep folder of its own and JUnit XML.
fn selfcheck(args: &[&str]) -> Run {
    let keep = tempfile::tempdir().unwrap();
    let junit = keep.path().join("junit.xml");
    let out = Command::cargo_bin("coreval")
        .unwrap()
        .current_dir(ROOT)
        .env("COREVAL_CACHE", keep.path().join("cache"))
        .env_remove("COREVAL_CHECKERS")
        .arg("selfcheck")
        .args(args)
        .arg("--keep")
        .arg(keep.path().join("kept"))
        .arg("--junit")
        .arg(&junit)
        .timeout(std::time::Duration::from_secs(300))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!stderr.contains("panicked"), "{stderr}");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr,
        junit: std::fs::read_to_string(&junit).unwrap_or_default(),
        keep,
    }
}

impl Run {
    fn show(&self) -> String {
        format!(
            "exit {}\n--- stdout\n{}--- stderr\n{}",
            self.code, self.stdout, self.stderr
        )
    }
    fn line(&self, path: &str) -> &str {
        self.stdout
            .lines()
            .find(|l| l.ends_with(&format!("  {path}")))
            .unwrap_or_else(|| panic!("no line for {path}\n{}", self.show()))
    }
    /// The detail lines below the line of `path`, unindented.
    fn details(&self, path: &str) -> Vec<String> {
        let mut lines = self.stdout.lines();
        let head = self.line(path);
        lines.find(|l| *l == head);
        lines
            .take_while(|l| l.starts_with("     "))
            .map(|l| l.trim_start().to_string())
            .collect()
    }
    /// The detail starting with `prefix`.
    fn detail(&self, path: &str, prefix: &str) -> String {
        self.details(path)
            .into_iter()
            .find(|d| d.starts_with(prefix))
            .unwrap_or_else(|| panic!("no detail {prefix:?}\n{}", self.show()))
    }
    /// Every printed checker command on the core of `path`: (checker,
    /// answer printed, command words).
    fn checker_commands(&self, path: &str) -> Vec<(String, String, Vec<String>)> {
        self.details(path)
            .iter()
            .filter_map(|d| {
                let rest = d.strip_prefix("checker ")?;
                let (head, cmd) = rest.split_once(": $ ")?;
                let (k, answer) = head.split_once(" answered ")?;
                Some((k.to_string(), answer.to_string(), words(cmd)))
            })
            .collect()
    }
    /// The printed solver command of `path`.
    fn solver_command(&self, path: &str) -> Vec<String> {
        words(
            self.detail(path, "solver: $ ")
                .strip_prefix("solver: $ ")
                .unwrap(),
        )
    }
}

fn words(cmd: &str) -> Vec<String> {
    shlex::split(cmd).unwrap_or_else(|| panic!("not shell words: {cmd}"))
}

/// Run printed words from the repository root (where selfcheck ran).
fn run_words(w: &[String]) -> std::process::Output {
    std::process::Command::new(&w[0])
        .args(&w[1..])
        .current_dir(ROOT)
        .output()
        .unwrap_or_else(|e| panic!("{w:?}: {e}"))
}

/// The first answer line a run printed.
fn first_line(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .to_string()
}

/// Each printed checker command answers what was printed beside it, on a
/// kept file that exists; returns the answers.
fn checkers_repeat(r: &Run, path: &str) -> Vec<String> {
    let cmds = r.checker_commands(path);
    assert!(!cmds.is_empty(), "no checker command\n{}", r.show());
    for (k, answer, w) in &cmds {
        let file = w.iter().find(|a| a.ends_with(".smt2")).unwrap();
        assert!(
            Path::new(ROOT).join(file).is_file() || Path::new(file).is_file(),
            "{file}"
        );
        assert!(
            file.starts_with(&r.keep.path().to_string_lossy().into_owned()),
            "{file} is not in the keep folder"
        );
        let got = first_line(&run_words(w));
        if answer == "sat" || answer == "unsat" {
            assert_eq!(&got, answer, "checker {k}: {w:?}\n{}", r.show());
        }
    }
    cmds.into_iter().map(|(_, a, _)| a).collect()
}

fn fake(script: &str, rest: &str) -> String {
    format!("tests/fixtures/fake-solvers/{script} {{file}}{rest}")
}

#[test]
fn a_dropped_name_is_repeated_by_its_printed_commands() {
    let r = selfcheck(&[
        "--solver",
        &fake("z3-drop-first.sh", ""),
        "--no-references",
        "--checkers",
        "yices,cvc5",
        PRIME,
    ]);
    assert_eq!(r.code, 1, "{}", r.show());
    assert!(r.line(PRIME).starts_with("FAIL refuted"), "{}", r.show());
    assert!(checkers_repeat(&r, PRIME).iter().any(|a| a == "sat"));
    // The solver command, run again, prints the same core.
    let out = run_words(&r.solver_command(PRIME));
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let core = text.lines().find(|l| l.starts_with('(')).unwrap();
    let names = r.detail(PRIME, "names printed (4): ");
    for n in core
        .trim_matches(|c| c == '(' || c == ')')
        .split_whitespace()
    {
        assert!(names.contains(&format!("{n} ({PRIME}:")), "{n} in {names}");
    }
    // The JUnit failure carries the same lines.
    assert!(r
        .junit
        .contains("solver: $ tests/fixtures/fake-solvers/z3-drop-first.sh"));
    assert!(
        r.junit.contains("checker yices answered sat: $ ")
            || r.junit.contains("checker cvc5 answered sat: $ ")
    );
    // Nothing points into the deleted campaign.
    assert!(!r.stdout.contains("coreval-selfcheck-"), "{}", r.show());
}

#[test]
fn an_unknown_name_is_named_with_the_solver_stderr() {
    let r = selfcheck(&[
        "--solver",
        &fake("z3-fault.sh", " unknown"),
        "--no-references",
        "--checkers",
        "yices",
        PRIME,
    ]);
    assert_eq!(r.code, 1, "{}", r.show());
    assert!(
        r.line(PRIME).starts_with("FAIL ill-formed:unknown-name"),
        "{}",
        r.show()
    );
    assert!(r
        .detail(PRIME, "names printed")
        .contains("bogus (not an assertion name)"));
    assert!(
        r.details(PRIME)
            .iter()
            .any(|d| d.starts_with("| z3-fault: unknown on ")),
        "{}",
        r.show()
    );
    let out = run_words(&r.solver_command(PRIME));
    assert!(String::from_utf8_lossy(&out.stdout).contains(" bogus)"));
    assert!(r.junit.contains("| z3-fault: unknown on "), "{}", r.junit);
}

#[test]
fn a_crash_after_the_core_fails_and_repeats() {
    let r = selfcheck(&[
        "--solver",
        &fake("z3-then.sh", " segv"),
        "--no-references",
        "--checkers",
        "yices,cvc5",
        PRIME,
    ]);
    assert_eq!(r.code, 1, "{}", r.show());
    assert!(
        r.line(PRIME).starts_with("FAIL failed-after-answer"),
        "{}",
        r.show()
    );
    use std::os::unix::process::ExitStatusExt;
    let out = run_words(&r.solver_command(PRIME));
    assert_eq!(out.status.signal(), Some(libc::SIGSEGV), "{out:?}");
    assert_eq!(first_line(&out), "unsat");
    // The core itself holds: the checkers said unsat, and say it again.
    assert!(checkers_repeat(&r, PRIME).iter().all(|a| a == "unsat"));
}

#[test]
fn a_core_on_stderr_gets_the_answer_stream_hint() {
    let args = [
        "--solver",
        &fake("z3-fault.sh", " stderr-core"),
        "--no-references",
        "--checkers",
        "yices",
    ];
    let r = selfcheck(&[&args[..], &[PRIME]].concat());
    assert_eq!(r.code, 1, "{}", r.show());
    assert!(
        r.line(PRIME).starts_with("FAIL unsat-no-core"),
        "{}",
        r.show()
    );
    assert!(
        r.stdout
            .contains("a core on stderr: run with --answer-stream both"),
        "{}",
        r.show()
    );
    let out = run_words(&r.solver_command(PRIME));
    assert!(String::from_utf8_lossy(&out.stderr).contains("(cv"));
    let r = selfcheck(&[&args[..], &["--answer-stream", "both", PRIME]].concat());
    assert_eq!(r.code, 0, "{}", r.show());
    assert!(r.line(PRIME).starts_with("PASS validated"), "{}", r.show());
}

#[test]
fn a_huge_core_line_is_counted_once_and_a_cut_one_is_said_so() {
    let solver = fake("z3-fault.sh", " repeat 300000");
    let base = [
        "--solver",
        &solver,
        "--no-references",
        "--checkers",
        "yices",
    ];
    let r = selfcheck(&[&base[..], &[PRIME]].concat());
    assert_eq!(r.code, 1, "{}", r.show());
    assert!(r.line(PRIME).starts_with("FAIL ill-formed"), "{}", r.show());
    assert_eq!(
        r.stdout.matches("listed 300000 times").count(),
        1,
        "{}",
        r.show()
    );
    assert!(!r.stdout.contains("listed twice"), "{}", r.show());
    assert!(r
        .detail(PRIME, "names printed (300000): ")
        .contains(") ×300000"));
    assert!(
        r.stdout.len() < 20_000,
        "{} bytes of report",
        r.stdout.len()
    );
    // Cut at 1 MB: said so, a SKIP, and nothing was judged (exit 3).
    let r = selfcheck(&[&base[..], &["--output-cap", "1", PRIME]].concat());
    assert_eq!(r.code, 3, "{}", r.show());
    assert!(
        r.line(PRIME).starts_with("SKIP truncated-output"),
        "{}",
        r.show()
    );
    assert!(
        r.stdout.contains("raise the cap with --output-cap MB"),
        "{}",
        r.show()
    );
    let out = run_words(&r.solver_command(PRIME));
    assert!(out.stdout.len() > 1 << 20, "{} bytes", out.stdout.len());
    assert!(r.junit.contains("truncated-output"));
}

#[test]
fn a_padded_core_passes_without_repro_lines() {
    let r = selfcheck(&[
        "--solver",
        &fake("z3-pad.sh", ""),
        "--no-references",
        "--checkers",
        "yices,cvc5",
        PRIME,
    ]);
    assert_eq!(r.code, 0, "{}", r.show());
    let line = r.line(PRIME);
    assert!(
        line.starts_with("PASS validated")
            && line.contains("core 8/8")
            && line.contains("reduction 0 "),
        "{}",
        r.show()
    );
    assert!(!r.keep.path().join("kept").exists());
}

#[test]
fn a_relative_solver_path_runs_where_selfcheck_started() {
    let solver = "python3 tests/fixtures/selfcheck/solvers/mysolver.py {file}";
    let r = selfcheck(&[
        "--solver",
        solver,
        "--no-references",
        "--checkers",
        "yices",
        PRIME,
    ]);
    assert_eq!(r.code, 0, "{}", r.show());
    assert!(r.line(PRIME).starts_with("PASS validated"), "{}", r.show());
    let drop = format!("{solver} drop");
    let r = selfcheck(&[
        "--solver",
        &drop,
        "--no-references",
        "--checkers",
        "yices",
        PRIME,
    ]);
    assert_eq!(r.code, 1, "{}", r.show());
    assert!(r.line(PRIME).starts_with("FAIL refuted"), "{}", r.show());
    let w = r.solver_command(PRIME);
    assert_eq!(
        w[..2],
        ["python3", "tests/fixtures/selfcheck/solvers/mysolver.py"]
    );
    assert_eq!(first_line(&run_words(&w)), "unsat");
    assert!(r.detail(PRIME, "| ").contains("mysolver: engine finished"));
    assert_eq!(checkers_repeat(&r, PRIME), ["sat"]);
}

#[test]
fn a_wrapper_that_runs_z3_is_team_z3_by_observation() {
    let r = selfcheck(&[
        "--solver",
        "tests/fixtures/selfcheck/solvers/mysolver.sh {file} drop",
        "--no-references",
        "--checkers",
        "yices,z3",
        PRIME,
    ]);
    assert_eq!(r.code, 1, "{}", r.show());
    assert!(
        r.stderr
            .contains("(team mysolver.sh, z3; was seen running "),
        "{}",
        r.show()
    );
    assert!(r.stderr.contains("bin/z3 (checker z3)"), "{}", r.show());
    assert!(
        r.stderr.contains("left out as the solver's team: z3;"),
        "{}",
        r.show()
    );
    assert!(r.line(PRIME).starts_with("FAIL refuted"), "{}", r.show());
    let used: Vec<String> = r.checker_commands(PRIME).into_iter().map(|c| c.0).collect();
    assert_eq!(used, ["yices"]);
    // Without any checker's program: the default, and the hint.
    let r = selfcheck(&[
        "--solver",
        &fake("always-sat.sh", ""),
        "--no-references",
        "--checkers",
        "yices",
        PRIME,
    ]);
    assert!(r.stderr.contains("say so with --team NAME"), "{}", r.show());
}

#[test]
fn edges_sat_confirmed_incremental_without_a_core_query_nothing_judged() {
    let r = selfcheck(&[
        "--solver",
        &fake("z3-core.sh", ""),
        "--checkers",
        "yices,cvc5",
        SAT,
        INCREMENTAL,
    ]);
    assert_eq!(r.code, 0, "{}", r.show());
    assert!(
        r.line(SAT).starts_with("PASS sat-confirmed"),
        "{}",
        r.show()
    );
    // An incremental script is checked as it is (docs/authors.md, "Incremental and
    // assumption cores"); this one asks for no core, so nothing is judged.
    assert!(
        r.line(INCREMENTAL).starts_with("SKIP no-unsat-query"),
        "{}",
        r.show()
    );
    // Skips only: exit 3.
    let r = selfcheck(&[
        "--solver",
        &fake("hang.sh", ""),
        "--no-references",
        "--checkers",
        "yices",
        "--timeout",
        "0.5",
        PRIME,
        INCREMENTAL,
    ]);
    assert_eq!(r.code, 3, "{}", r.show());
    assert!(r.stderr.contains("nothing could be judged"), "{}", r.show());
}
