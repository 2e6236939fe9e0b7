//! `coreval selfcheck` setups that must not mislead, and what it prints,
//! with the real checkers: an unrelated `checkers/` folder in the current
//! directory does not hide the installed checkers (the folder in use is
//! named); references are chosen once the team is observed (a wrapper that
//! runs z3 gets no z3 reference); a `sat` FAIL that rests on a reference's
//! core prints that reference's run; the model behind a refutation is
//! printed and kept; control bytes a solver prints are escaped.

mod common;

use std::path::Path;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");
const PRIME: &str = "tests/fixtures/selfcheck/unsat/QF_LIA/prime_cone_unsat_3.smt2";
const OWN_NAMES: &str = "tests/fixtures/selfcheck/author/own-names.smt2";

struct Run {
    code: i32,
    stdout: String,
    all: String,
    keep: tempfile::TempDir,
}

/// `coreval selfcheck ARGS` run in `dir`, with a fresh cache and a keep
/// folder of its own.
fn selfcheck_in(dir: &Path, args: &[&str]) -> Run {
    let keep = tempfile::tempdir().unwrap();
    let kept = keep.path().join("kept");
    let mut all = args.to_vec();
    all.extend(["--keep", kept.to_str().unwrap()]);
    let (out, text) = common::selfcheck_in(dir, &keep.path().join("cache"), &all);
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        all: text,
        keep,
    }
}

#[test]
fn an_empty_checkers_folder_here_does_not_hide_the_installed_ones() {
    let here = tempfile::tempdir().unwrap();
    std::fs::create_dir(here.path().join("checkers")).unwrap();
    let solver = format!("{ROOT}/tests/fixtures/fake-solvers/z3-core.sh {{file}}");
    let bench = format!("{ROOT}/{PRIME}");
    let r = selfcheck_in(
        here.path(),
        &[
            "--solver",
            &solver,
            "--no-references",
            "--checkers",
            "yices,cvc5",
            &bench,
        ],
    );
    assert_eq!(r.code, 0, "{}", r.all);
    assert!(r.stdout.starts_with("PASS validated"), "{}", r.all);
    // The header names the folder in use.
    assert!(
        r.all
            .contains(&format!("checkers yices, cvc5 of {ROOT}/checkers (")),
        "{}",
        r.all
    );
    // An error names it too.
    let r = selfcheck_in(
        here.path(),
        &["--solver", &solver, "--checkers", "nope", &bench],
    );
    assert_eq!(r.code, 2, "{}", r.all);
    assert!(
        r.all
            .contains(&format!("no definition 'nope' in {ROOT}/checkers")),
        "{}",
        r.all
    );
}

#[test]
fn references_are_chosen_after_the_team_is_observed() {
    // A shell script running a Python script running z3: team z3 only by
    // observation. z3 must be neither a checker nor a reference of it.
    let r = selfcheck_in(
        Path::new(ROOT),
        &[
            "--solver",
            "tests/fixtures/selfcheck/solvers/mysolver.sh {file}",
            "--checkers",
            "yices,z3,cvc5",
            PRIME,
        ],
    );
    assert!(
        r.all.contains("(team mysolver.sh, z3; was seen running "),
        "{}",
        r.all
    );
    let header = r
        .all
        .lines()
        .find(|l| l.starts_with("selfcheck: 1 benchmark(s); solver"))
        .unwrap_or_else(|| panic!("{}", r.all));
    let refs = header.split("references ").last().unwrap();
    assert!(!refs.contains("z3"), "{header}");
    assert!(refs.contains("yices"), "{header}");
    assert!(!r.stdout.contains("ref-z3"), "{}", r.all);
}

#[test]
fn a_sat_failure_prints_the_reference_run_behind_it() {
    let r = selfcheck_in(
        Path::new(ROOT),
        &[
            "--solver",
            "tests/fixtures/fake-solvers/always-sat.sh {file}",
            "--checkers",
            "yices,z3,cvc5",
            OWN_NAMES,
        ],
    );
    assert_eq!(r.code, 1, "{}", r.all);
    let line = r
        .stdout
        .lines()
        .find(|l| l.starts_with("     ref-") && l.contains("'s run, which decides it: $ "))
        .unwrap_or_else(|| panic!("{}", r.all));
    let cmd = line.split_once(": $ ").unwrap().1;
    let out = common::shell(cmd);
    let printed = String::from_utf8_lossy(&out.stdout);
    assert_eq!(printed.lines().next(), Some("unsat"), "{cmd}: {printed}");
    assert!(
        r.stdout.contains("  checker ") && r.stdout.contains(" answered unsat: $ "),
        "{}",
        r.all
    );
}

#[test]
fn the_model_behind_a_refutation_is_printed_and_kept() {
    let r = selfcheck_in(
        Path::new(ROOT),
        &[
            "--solver",
            "tests/fixtures/fake-solvers/z3-noisy.sh {file}",
            "--no-references",
            "--checkers",
            "yices,cvc5",
            PRIME,
        ],
    );
    assert_eq!(r.code, 1, "{}", r.all);
    assert!(r.stdout.contains("core refuted (certified)"), "{}", r.all);
    let model = r
        .stdout
        .lines()
        .find_map(|l| l.trim().strip_prefix("model of "))
        .unwrap_or_else(|| panic!("{}", r.all));
    // `cvc5 (KEEP/….model-cvc5.smt2): x = 3, …`
    let (file, values) = model.split_once(" (").unwrap().1.split_once("): ").unwrap();
    assert!(file.starts_with(r.keep.path().to_str().unwrap()), "{model}");
    let kept = std::fs::read_to_string(file.split(',').next().unwrap()).unwrap();
    assert!(kept.contains("define-fun"), "{kept}");
    assert!(values.contains(" = "), "{model}");
    // The solver's ESC, BEL and NUL are shown escaped, never raw.
    for raw in ['\u{1b}', '\u{7}', '\0'] {
        assert!(!r.stdout.contains(raw), "{raw:?}: {}", r.all);
    }
    assert!(r.stdout.contains("| \\e[31mred\\a\\0done"), "{}", r.all);
}
