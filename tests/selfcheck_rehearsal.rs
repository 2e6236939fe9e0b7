//! `coreval selfcheck --scrambles K`, the competition rehearsal, end to end
//! with the real z3, yices and cvc5: a solver wrapper whose core depends on
//! assertion order (`tests/fixtures/fake-solvers/z3-drop-file-first.sh`)
//! passes on the benchmark as written and fails once it is scrambled, the
//! failure naming its seed, keeping the scrambled file and repeating from
//! the printed command; a correct solver passes on every seed.

mod common;

use std::path::Path;
use std::process::Output;

const ORDER: &str = "tests/fixtures/selfcheck/order/first-redundant.smt2";
const PRIME: &str = "tests/fixtures/selfcheck/unsat/QF_LIA/prime_cone_unsat_3.smt2";
const SCOPES: &str = "tests/fixtures/selfcheck/incremental/scopes.smt2";
const DROP_FILE_FIRST: &str = "tests/fixtures/fake-solvers/z3-drop-file-first.sh {file}";

/// `coreval selfcheck ARGS` from the repository root, with its own check cache.
fn selfcheck(cache: &Path, args: &[&str]) -> Output {
    let out = common::command()
        .current_dir(common::repo())
        .env("COREVAL_CACHE", cache)
        .arg("selfcheck")
        .args(["--checkers", "yices,z3,cvc5", "--no-references"])
        .args(args)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{err}");
    out
}

fn text(o: &Output) -> String {
    format!(
        "{}\n--- stderr\n{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

#[test]
fn order_dependent_core_passes_as_written_and_fails_scrambled() {
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("cache");
    let plain = selfcheck(&cache, &["--solver", DROP_FILE_FIRST, ORDER]);
    assert_eq!(plain.status.code(), Some(0), "{}", text(&plain));
    assert!(
        String::from_utf8_lossy(&plain.stdout).starts_with("PASS validated"),
        "{}",
        text(&plain)
    );

    let work = tmp.path().join("work");
    let w = work.to_str().unwrap();
    let scrambled = selfcheck(
        &cache,
        &[
            "--solver",
            DROP_FILE_FIRST,
            "--scrambles",
            "4",
            "--workdir",
            w,
            ORDER,
        ],
    );
    let all = text(&scrambled);
    assert_eq!(scrambled.status.code(), Some(1), "{all}");
    // The seeds are printed: the 2025 formula with entrant number 0.
    assert!(
        all.contains("seeds 100, 200, 300, 400 (smtcomp-2025"),
        "{all}"
    );
    let stdout = String::from_utf8_lossy(&scrambled.stdout);
    assert!(stdout.starts_with("FAIL order-dependent"), "{all}");
    assert!(
        stdout.contains(
            "order-dependent core: validated on seed(s) 100, failed on seed(s) 200, 300, 400"
        ),
        "{all}"
    );
    // Each failing seed is named, with its core in original positions (the
    // wrapper dropped assertion 2, which scrambling moved first), the kept
    // scrambled file and a command that repeats it.
    let failing = stdout
        .lines()
        .find(|l| l.trim_start().starts_with("seed 200: FAIL refuted"))
        .unwrap_or_else(|| panic!("{all}"));
    assert!(failing.contains("(original assertions {3})"), "{all}");
    let kept = stdout
        .lines()
        .find_map(|l| l.trim().strip_prefix("scrambled file kept: "))
        .unwrap_or_else(|| panic!("{all}"));
    assert!(kept.starts_with(w) && kept.contains("seed-200"), "{all}");
    let body = std::fs::read_to_string(kept).unwrap();
    assert!(body.contains("x_1") && !body.contains("(< y 0)"), "{body}");
    let repeat = stdout
        .lines()
        .find_map(|l| l.trim().strip_prefix("repeat: coreval selfcheck "))
        .unwrap_or_else(|| panic!("{all}"));
    let words = shlex::split(repeat).unwrap();
    assert!(words.contains(&"--scramble-seeds".to_string()) && words.contains(&"200".to_string()));
    let again = common::command()
        .current_dir(common::repo())
        .env("COREVAL_CACHE", &cache)
        .arg("selfcheck")
        .args(&words)
        .output()
        .unwrap();
    let again_text = text(&again);
    assert_eq!(again.status.code(), Some(1), "{again_text}");
    assert!(
        again_text.contains("seed 200: FAIL refuted"),
        "{again_text}"
    );
    assert!(
        again_text.contains("seeds: 0 passed, 1 failed"),
        "{again_text}"
    );
}

#[test]
fn correct_solver_passes_on_every_seed_of_an_older_formula() {
    let tmp = tempfile::tempdir().unwrap();
    let out = selfcheck(
        tmp.path(),
        &[
            "--solver",
            "tests/fixtures/fake-solvers/z3-core.sh {file}",
            "--scrambles",
            "3",
            "--rules",
            "smtcomp-2019",
            "--scramble-base",
            "41",
            ORDER,
            PRIME,
            SCOPES,
        ],
    );
    let all = text(&out);
    assert_eq!(out.status.code(), Some(0), "{all}");
    assert!(all.contains("seeds 42, 43, 44 (smtcomp-2019"), "{all}");
    // The incremental script is run as written on every seed.
    assert!(all.contains("3 benchmark(s): 3 passed, 0 failed"), "{all}");
}

#[test]
fn rehearsal_options_are_checked() {
    let tmp = tempfile::tempdir().unwrap();
    let zero = selfcheck(
        tmp.path(),
        &["--solver", DROP_FILE_FIRST, "--scrambles", "0", ORDER],
    );
    assert_eq!(zero.status.code(), Some(2), "{}", text(&zero));
    assert!(text(&zero).contains("--scrambles must be between 1 and 1000"));
    let no_k = selfcheck(
        tmp.path(),
        &[
            "--solver",
            DROP_FILE_FIRST,
            "--rules",
            "smtcomp-2019",
            ORDER,
        ],
    );
    assert_eq!(no_k.status.code(), Some(2), "{}", text(&no_k));
}
