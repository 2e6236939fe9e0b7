//! Incremental and assumption cores in `coreval selfcheck`, end to end with
//! the real solvers: z3 and cvc5 pass on scripts with scopes and
//! `check-sat-assuming` (`tests/fixtures/selfcheck/incremental/`), and
//! wrappers around z3 with the reported faults fail: a too-small assumption
//! core (z3#7098), `()` for a false assumption (z3#8045), a core naming an
//! assertion of a popped scope (opensmt#619).

mod common;

use std::process::Output;

const SCOPES: &str = "tests/fixtures/selfcheck/incremental/scopes.smt2";
const ASSUMPTIONS: &str = "tests/fixtures/selfcheck/incremental/assumptions.smt2";

/// `coreval selfcheck --solver SOLVER FILES` from the repository root.
fn selfcheck(solver: &str, files: &[&str]) -> (Output, String) {
    let mut args = vec!["--solver", solver];
    args.extend(files);
    selfcheck_in(common::repo(), &args)
}

/// The result line of `file` and the detail lines under it.
fn block<'a>(text: &'a str, file: &str) -> Vec<&'a str> {
    let mut lines = text
        .lines()
        .skip_while(|l| !(l.starts_with(['P', 'F', 'S']) && l.ends_with(file)));
    let head = lines
        .next()
        .unwrap_or_else(|| panic!("no line for {file}:\n{text}"));
    let mut out = vec![head];
    out.extend(lines.take_while(|l| l.starts_with("     ")));
    out
}

#[test]
fn z3_and_cvc5_pass_on_scopes_and_assumptions() {
    for solver in [
        "checkers/venv/bin/z3 -smt2 {file}",
        "cvc5 --incremental {file}",
    ] {
        let (out, text) = selfcheck(solver, &[SCOPES, ASSUMPTIONS]);
        assert_eq!(out.status.code(), Some(0), "{solver}: {text}");
        assert!(
            text.contains("2 benchmark(s): 2 passed, 0 failed, 0 skipped"),
            "{text}"
        );
        for f in [SCOPES, ASSUMPTIONS] {
            assert!(
                block(&text, f)[0].starts_with("PASS validated"),
                "{solver}: {text}"
            );
        }
    }
}

#[test]
fn z3_conventions_in_unsat_assumptions_are_accepted_and_said() {
    // z3 lists the names of named assertions in its unsat assumptions, and a
    // define-fun assumption comes back as its body: both accepted, and said
    // in the details (printed under a failure: the wrapper's first answer
    // fails, its second is z3's own).
    let (out, text) = selfcheck(
        "tests/fixtures/fake-solvers/z3-small-assumptions.sh {file}",
        &[ASSUMPTIONS],
    );
    assert_eq!(out.status.code(), Some(1), "{text}");
    let b = block(&text, ASSUMPTIONS).join("\n");
    assert!(
        b.contains("line 14: unsat, get-unsat-assumptions ((> x 10) q aq): validated"),
        "{b}"
    );
    assert!(
        b.contains("(> x 10) read as the assumption big (its definition)"),
        "{b}"
    );
    assert!(
        b.contains("aq is an assertion's name, not an assumption: ignored"),
        "{b}"
    );
}

#[test]
fn too_small_assumption_core_is_refuted() {
    let (out, text) = selfcheck(
        "tests/fixtures/fake-solvers/z3-small-assumptions.sh {file}",
        &[ASSUMPTIONS],
    );
    assert_eq!(out.status.code(), Some(1), "{text}");
    let b = block(&text, ASSUMPTIONS);
    assert!(b[0].starts_with("FAIL refuted"), "{text}");
    let b = b.join("\n");
    assert!(
        b.contains(
            "line 12: unsat, get-unsat-assumptions (ap q aq): refuted (yices sat, cvc5 sat)"
        ),
        "{b}"
    );
    assert!(
        b.contains("line 17: unsat, get-unsat-assumptions (false): validated"),
        "{b}"
    );
}

#[test]
fn empty_answer_for_a_false_assumption_is_refuted() {
    let (out, text) = selfcheck(
        "tests/fixtures/fake-solvers/z3-empty-assumptions.sh {file}",
        &[ASSUMPTIONS, SCOPES],
    );
    assert_eq!(out.status.code(), Some(1), "{text}");
    let b = block(&text, ASSUMPTIONS);
    assert!(b[0].starts_with("FAIL refuted"), "{text}");
    assert!(
        b.join("\n")
            .contains("line 17: unsat, get-unsat-assumptions (): refuted"),
        "{text}"
    );
    // Empty cores inside scopes: refuted too.
    let s = block(&text, SCOPES).join("\n");
    assert!(
        s.starts_with("FAIL refuted") && s.contains("line 10: unsat, get-unsat-core (): refuted"),
        "{s}"
    );
}

#[test]
fn a_name_from_a_popped_scope_is_ill_formed() {
    let (out, text) = selfcheck(
        "tests/fixtures/fake-solvers/z3-stale-core.sh {file}",
        &[SCOPES],
    );
    assert_eq!(out.status.code(), Some(1), "{text}");
    let b = block(&text, SCOPES);
    assert!(b[0].starts_with("FAIL ill-formed:popped-scope"), "{text}");
    let b = b.join("\n");
    assert!(
        b.contains("line 10: unsat, get-unsat-core (xpos xneg): validated"),
        "{b}"
    );
    assert!(b.contains("line 17: unsat, get-unsat-core (xpos xsmall xneg): ill-formed (xneg names an assertion of a popped scope)"), "{b}");
}

#[test]
fn incremental_and_single_query_results_keep_argument_order() {
    let prime = "tests/fixtures/selfcheck/unsat/QF_LIA/prime_cone_unsat_3.smt2";
    let (out, text) = selfcheck(
        "checkers/venv/bin/z3 -smt2 {file}",
        &[SCOPES, prime, ASSUMPTIONS],
    );
    assert_eq!(out.status.code(), Some(0), "{text}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let files: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("PASS"))
        .filter_map(|l| l.split_whitespace().last())
        .collect();
    assert_eq!(files, [SCOPES, prime, ASSUMPTIONS], "{text}");
}

#[test]
fn an_answer_against_the_declared_status_fails() {
    const STATUS: &str = "tests/fixtures/selfcheck/incremental/scopes-status.smt2";
    let (out, text) = selfcheck("checkers/venv/bin/z3 -smt2 {file}", &[STATUS]);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(block(&text, STATUS)[0].starts_with("PASS"), "{text}");
    // The first `unsat` printed as `sat`, where the script says unsat.
    let (out, text) = selfcheck(
        "tests/fixtures/fake-solvers/z3-first-unsat-sat.sh {file}",
        &[STATUS],
    );
    assert_eq!(out.status.code(), Some(1), "{text}");
    let b = block(&text, STATUS);
    assert!(b[0].starts_with("FAIL contradictory-output"), "{text}");
    assert!(
        b.contains(&"     line 12: sat, but the script declares :status unsat before it"),
        "{text}"
    );
}

const OPTIONS: &str = "tests/fixtures/selfcheck/incremental-options/cvc5-options.smt2";

/// `coreval selfcheck ARGS` run in `dir`, with its own check cache.
fn selfcheck_in(dir: &std::path::Path, args: &[&str]) -> (Output, String) {
    let cache = tempfile::tempdir().unwrap();
    let mut all = vec!["--checkers", "yices,z3,cvc5", "--no-references"];
    all.extend(args);
    common::selfcheck_in(dir, cache.path(), &all)
}

/// The result lines of a report, each without its time column.
fn verdict_lines(out: &Output) -> Vec<String> {
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| l.starts_with(['P', 'F', 'S']) && !l.starts_with("selfcheck"))
        .map(|l| {
            l.split_whitespace()
                .filter(|w| !w.contains('.') || w.ends_with(".smt2"))
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect()
}

#[test]
fn relative_and_absolute_workdirs_give_the_same_verdicts() {
    let tmp = tempfile::tempdir().unwrap();
    let root = common::repo();
    let fixtures = root.join("tests/fixtures/selfcheck/incremental");
    for fake in ["z3-stale-core.sh", "z3-small-assumptions.sh", "z3-core.sh"] {
        let solver = format!(
            "{} {{file}}",
            root.join("tests/fixtures/fake-solvers")
                .join(fake)
                .display()
        );
        let args = |w: &str| -> Vec<String> {
            vec![
                "--solver".into(),
                solver.clone(),
                "--workdir".into(),
                w.into(),
                fixtures.display().to_string(),
            ]
        };
        let rel = format!("rel-{fake}");
        let abs = tmp.path().join(format!("abs-{fake}"));
        let a: Vec<String> = args(&rel);
        let (relative, rt) = selfcheck_in(
            tmp.path(),
            &a.iter().map(String::as_str).collect::<Vec<_>>(),
        );
        let b: Vec<String> = args(abs.to_str().unwrap());
        let (absolute, at) = selfcheck_in(
            tmp.path(),
            &b.iter().map(String::as_str).collect::<Vec<_>>(),
        );
        assert_eq!(
            relative.status.code(),
            absolute.status.code(),
            "{fake}: {rt}\n{at}"
        );
        assert_eq!(
            verdict_lines(&relative),
            verdict_lines(&absolute),
            "{fake}: {rt}\n{at}"
        );
        assert!(!verdict_lines(&relative).is_empty(), "{rt}");
        assert!(!rt.contains("SKIP undecided"), "{fake}: {rt}");
    }
}

#[test]
fn real_z3_passes_with_options_it_does_not_know() {
    // z3 answers the two cvc5-only options with an `(error …)` each: those
    // are the options' replies, not output left over; the check scripts
    // leave the options out, so z3 as a checker votes too.
    for solver in [
        "checkers/venv/bin/z3 -smt2 {file}",
        "cvc5 --incremental {file}",
    ] {
        let (out, text) = selfcheck(solver, &[OPTIONS]);
        assert_eq!(out.status.code(), Some(0), "{solver}: {text}");
        assert!(
            block(&text, OPTIONS)[0].starts_with("PASS validated"),
            "{solver}: {text}"
        );
    }
    // Under a failure the replies are listed, flagged, with each vote and
    // the reading of a core that leaves an assumption out (cvc5's).
    let (out, text) = selfcheck(
        "tests/fixtures/fake-solvers/z3-first-unsat-sat.sh {file}",
        &[OPTIONS],
    );
    assert_ne!(out.status.code(), Some(0), "{text}");
    let b = block(&text, OPTIONS).join("\n");
    assert!(
        b.contains("flagged: line 7: (set-option :unsat-cores-mode assumptions) answered (error"),
        "{b}"
    );
    assert!(!b.contains("output item(s) after the last command"), "{b}");
}

#[test]
fn incremental_failures_are_kept_and_repeat_as_printed() {
    let tmp = tempfile::tempdir().unwrap();
    let keep = tmp.path().join("kept");
    let (out, _) = selfcheck_in(
        common::repo(),
        &[
            "--keep",
            keep.to_str().unwrap(),
            "--solver",
            "tests/fixtures/fake-solvers/z3-small-assumptions.sh {file}",
            ASSUMPTIONS,
        ],
    );
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(out.status.code(), Some(1), "{text}");
    let b = block(&text, ASSUMPTIONS);
    let solver = b
        .iter()
        .find_map(|l| l.trim().strip_prefix("solver: $ "))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(solver.contains(keep.to_str().unwrap()), "{solver}");
    // The solver command runs as printed and answers as judged.
    let replay = common::shell(solver);
    let replayed = String::from_utf8_lossy(&replay.stdout);
    assert!(replayed.contains("(ap q aq)"), "{replayed}");
    // Each check script is kept, with every checker's command and answer.
    let scripts: Vec<&str> = b
        .iter()
        .filter_map(|l| {
            l.trim()
                .split_once("check script of answer ")
                .map(|(_, r)| r)
        })
        .map(|r| r.split_once(": ").unwrap().1)
        .collect();
    assert!(!scripts.is_empty(), "{text}");
    for s in &scripts {
        assert!(std::path::Path::new(s).is_file(), "{s}");
    }
    let checkers: Vec<(&str, &str)> = b
        .iter()
        .filter_map(|l| l.trim().strip_prefix("checker "))
        .map(|l| {
            let (head, cmd) = l.split_once(": $ ").unwrap();
            (head.split_once(" answered ").unwrap().1, cmd)
        })
        .collect();
    assert!(!checkers.is_empty(), "{text}");
    for (answer, cmd) in checkers {
        let o = common::shell(cmd);
        let first = String::from_utf8_lossy(&o.stdout);
        let first = first.lines().next().unwrap_or("");
        assert!(
            answer.starts_with(first) || answer.starts_with("no vote"),
            "{answer} vs {first}: {cmd}"
        );
    }
}
