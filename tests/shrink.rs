//! `coreval selfcheck --shrink` (issue 30): a faulty wrapper around the real
//! z3 (`tests/fixtures/fake-solvers/z3-drop-first.sh`) fails on real
//! benchmarks of 28 to 41 assertions; each FAIL gets a reproducer, the
//! printed command repeats the failure on it from scratch, and each
//! reproducer keeps at most a third of the assertions (the minimal unsat
//! cores of two of them are 27.5 % and 30 % of their assertions, and
//! ddSMT's term-level work within the default budget on a loaded machine
//! does not reliably go below them: the 25 % median is not asserted
//! here; see `cargo bench --bench shrink`). Bad input: a
//! reproducer path that cannot be written, ddSMT missing or failing, an
//! interrupted shrink: each a clear line, the verdicts kept.

use std::io::{BufRead, BufReader};
use std::path::Path;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");
/// Real unsat benchmarks of 33 to 40 assertions whose minimal unsat cores
/// are small, so that a reproducer can be.
const LARGE: &[&str] = &[
    "tests/data/benchmarks/QF_LIA/doc-arithmetic_artifact_z_QF_LIA_calypto/problem-002666.cvc.1.smt2",
    "tests/data/benchmarks/QF_LIA/doc-AV_2009_benchmarks_coef-size_smt_size-10/c10_problem__002.smt2.slack.smt2",
    "tests/data/benchmarks/QF_LIA/doc-omberger_more_slacked_cut_lemmas_15-vars/cut_lemma_03_002.smt2.slack.smt2",
];
const DROP: &str = "tests/fixtures/fake-solvers/z3-drop-first.sh {file}";

mod common;
use common::ran::Ran as Run;

fn coreval(args: &[&str], env: &[(&str, &str)], cache: &Path) -> Run {
    common::ran::coreval(args, env, cache, 900)
}

fn selfcheck(keep: &Path, extra: &[&str], files: &[&str], env: &[(&str, &str)]) -> Run {
    let mut args = vec![
        "selfcheck",
        "--solver",
        DROP,
        "--no-references",
        "--checkers",
        "yices,cvc5",
        "--keep",
        keep.to_str().unwrap(),
        "--shrink",
    ];
    args.extend(extra);
    args.extend(files);
    coreval(args.as_slice(), env, &keep.join("../cache"))
}

/// `reproducer: PATH (K of N assertions, B of B0 bytes)` → (PATH, K, N).
fn reproducer(line: &str) -> (String, usize, usize) {
    let rest = line.strip_prefix("reproducer: ").unwrap();
    let (path, sizes) = rest.rsplit_once(" (").unwrap();
    let w: Vec<&str> = sizes.split_whitespace().collect();
    (
        path.to_string(),
        w[0].parse().unwrap(),
        w[2].parse().unwrap(),
    )
}

#[test]
fn reproducers_of_large_benchmarks_fail_again_and_keep_a_third_at_most() {
    let dir = tempfile::tempdir().unwrap();
    let keep = dir.path().join("kept");
    let r = selfcheck(&keep, &[], LARGE, &[]);
    assert_eq!(r.code, 1, "{}", r.show());
    let mut shares = Vec::new();
    for path in LARGE {
        let line = r
            .detail(path, "reproducer: ")
            .unwrap_or_else(|| panic!("{path}: no reproducer\n{}", r.show()));
        let (file, k, n) = reproducer(line);
        assert!((28..=41).contains(&n), "{line}");
        shares.push(k as f64 / n as f64);
        let repeat = r.detail(path, "repeat on it: $ ").unwrap();
        let words = shlex::split(repeat.strip_prefix("repeat on it: $ ").unwrap()).unwrap();
        // This program: by name when PATH finds it, else by its path.
        assert!(
            words[0] == "coreval" || words[0].ends_with("/coreval"),
            "{repeat}"
        );
        assert_eq!(words[1], "selfcheck", "{repeat}");
        assert!(words.last().unwrap() == &file, "{repeat}");
        // From scratch: the printed command, on the reproducer alone (its
        // own files kept out of the checkout).
        let again_keep = dir.path().join("again");
        let mut again: Vec<&str> = words[1..].iter().map(String::as_str).collect();
        again.extend(["--keep", again_keep.to_str().unwrap()]);
        let again = coreval(&again, &[], &dir.path().join("cache2"));
        assert_eq!(again.code, 1, "{path}: {}", again.show());
        assert!(
            again
                .stdout
                .lines()
                .any(|l| l.starts_with("FAIL refuted") && l.ends_with(&file)),
            "{path}: {}",
            again.show()
        );
    }
    assert!(
        shares.iter().all(|s| *s <= 1.0 / 3.0),
        "shares {shares:?}\n{}",
        r.show()
    );
    // The benchmark with a small unsat core (3 of 33) shrinks below a tenth.
    assert!(shares[0] <= 0.1, "shares {shares:?}\n{}", r.show());
}

#[test]
fn a_reproducer_that_cannot_be_written_and_a_missing_or_failing_ddsmt_are_said() {
    let dir = tempfile::tempdir().unwrap();
    let keep = dir.path().join("kept");
    let prime = "tests/fixtures/selfcheck/unsat/QF_LIA/prime_cone_unsat_3.smt2";
    // A folder where the reproducer goes: it cannot be written.
    std::fs::create_dir_all(
        keep.join("tests/fixtures/selfcheck/unsat/QF_LIA/prime_cone_unsat_3.repro.smt2/x"),
    )
    .unwrap();
    let r = selfcheck(&keep, &["--shrink-time", "20"], &[prime], &[]);
    assert_eq!(r.code, 1, "{}", r.show());
    assert!(
        r.stdout
            .lines()
            .any(|l| l.starts_with("FAIL refuted") && l.ends_with(prime)),
        "{}",
        r.show()
    );
    let line = r.detail(prime, "reproducer: ").unwrap();
    assert!(
        line.starts_with("reproducer: none (cannot write the reproducer "),
        "{line}"
    );

    let fails = format!("{ROOT}/tests/fixtures/shrink/ddsmt-fails.sh");
    for (env, said) in [
        (
            "/nonexistent/ddsmt",
            "ddSMT not found: $COREVAL_DDSMT is /nonexistent/ddsmt",
        ),
        (
            fails.as_str(),
            "ddSMT failed (exit 3): ddsmt: planted failure",
        ),
    ] {
        let keep = dir.path().join(format!("k{}", said.len()));
        let r = selfcheck(
            &keep,
            &["--shrink-time", "30"],
            &[prime],
            &[("COREVAL_DDSMT", env)],
        );
        assert_eq!(r.code, 1, "{}", r.show());
        assert!(r.detail(prime, "core refuted").is_some(), "{}", r.show());
        let line = r.detail(prime, "reproducer: ").unwrap();
        let (file, k, n) = reproducer(line);
        assert!(
            k <= n && Path::new(ROOT).join(&file).exists() || Path::new(&file).exists(),
            "{line}"
        );
        let note = r
            .detail(prime, "term-level pass not done: ")
            .unwrap_or_else(|| panic!("{}", r.show()));
        assert!(
            note.contains(said) && note.ends_with("the assertion-level reproducer is kept"),
            "{note}"
        );
    }
}

#[test]
fn an_interrupted_shrink_keeps_the_verdicts_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let keep = dir.path().join("kept");
    let bin = assert_cmd::cargo::cargo_bin("coreval");
    let mut child = std::process::Command::new(bin)
        .current_dir(ROOT)
        .env("COREVAL_CACHE", dir.path().join("cache"))
        .env_remove("COREVAL_CHECKERS")
        .args([
            "selfcheck",
            "--solver",
            DROP,
            "--no-references",
            "--checkers",
            "yices,cvc5",
        ])
        .arg("--keep")
        .arg(&keep)
        .args(["--shrink", LARGE[0]])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut err = BufReader::new(child.stderr.take().unwrap());
    let mut seen = String::new();
    loop {
        let mut l = String::new();
        if err.read_line(&mut l).unwrap() == 0 {
            panic!("no shrink started: {seen}");
        }
        seen.push_str(&l);
        if l.starts_with("shrink: ") {
            break;
        }
    }
    std::thread::sleep(std::time::Duration::from_secs(3));
    // SAFETY: a signal to our own child; kill touches no memory.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut err, &mut rest).unwrap();
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let show = format!("{stdout}\n--- stderr\n{seen}{rest}");
    assert_eq!(out.status.code(), Some(1), "{show}");
    assert!(
        stdout
            .lines()
            .any(|l| l.starts_with("FAIL refuted") && l.ends_with(LARGE[0])),
        "{show}"
    );
    assert!(rest.contains("shrink interrupted"), "{show}");
    assert!(
        stdout.contains("shrink interrupted: the reproducer is the smallest failing file reached")
            || stdout.contains("reproducer: none (interrupted"),
        "{show}"
    );
}

#[test]
fn a_reproducer_keeps_the_definitions_its_assertions_use_and_passes_lint() {
    let dir = tempfile::tempdir().unwrap();
    let keep = dir.path().join("kept");
    let file = "tests/fixtures/shrink/defined.smt2";
    let r = selfcheck(&keep, &["--shrink-time", "60"], &[file], &[]);
    assert_eq!(r.code, 1, "{}", r.show());
    let line = r.detail(file, "reproducer: ").unwrap();
    let (path, _, _) = reproducer(line);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    for used in ["big", "small"] {
        if text.contains(&format!("({used} ")) {
            assert!(
                text.contains(&format!("(define-fun {used} ")),
                "{used}: {text}"
            );
        }
    }
    let lint = common::command().args(["lint", &path]).output().unwrap();
    assert!(
        lint.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&lint.stderr)
    );
    let z3 = std::process::Command::new(format!("{ROOT}/checkers/venv/bin/z3"))
        .args(["-smt2", &path])
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&z3.stdout);
    assert!(
        !said.contains("error"),
        "z3 on the reproducer: {said}\n{text}"
    );
}
