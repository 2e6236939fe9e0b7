//! From a failing core to a bug report (issue 30), the explanation and the
//! comparison: on planted faults around the real z3
//! (`tests/fixtures/fake-solvers/`), each FAIL names an original assertion
//! the checker's model falsifies, outside the printed core, with its line
//! in the author's file; `selfcheck --json` of a correct and of a faulty
//! solver, compared by `coreval diff` (and `--baseline`), name the new
//! failures and exit 1, a run compared with itself exits 0.

use std::collections::HashSet;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");
/// Real unsat benchmarks of 28 to 41 assertions on which dropping the first
/// name of z3's minimal core leaves a satisfiable core.
pub const LARGE: &[&str] = &[
    "tests/data/benchmarks/QF_LIA/doc-arithmetic_artifact_z_QF_LIA_prime-cone/prime_cone_unsat_17.smt2",
    "tests/data/benchmarks/QF_LIA/doc-arithmetic_artifact_z_QF_LIA_prime-cone/prime_cone_unsat_18.smt2",
    "tests/data/benchmarks/QF_LIA/doc-omberger_more_slacked_cut_lemmas_15-vars/cut_lemma_03_002.smt2.slack.smt2",
    "tests/data/benchmarks/QF_LIA/doc-arithmetic_artifact_z_QF_LIA_calypto/problem-002666.cvc.1.smt2",
];

mod common;
use common::ran::Ran as Run;

fn coreval(args: &[&str], cache: &std::path::Path) -> Run {
    common::ran::coreval(args, &[], cache, 600)
}

fn solver(script: &str, rest: &str) -> String {
    format!("tests/fixtures/fake-solvers/{script} {{file}}{rest}")
}

/// The 1-based line of each top-level assert of a file.
fn assert_lines(path: &str) -> Vec<usize> {
    let text = std::fs::read_to_string(format!("{ROOT}/{path}")).unwrap();
    text.lines()
        .enumerate()
        .filter(|(_, l)| l.trim_start().starts_with("(assert"))
        .map(|(i, _)| i + 1)
        .collect()
}

#[test]
fn each_refutation_names_a_falsified_assertion_outside_the_core_with_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let keep = dir.path().join("kept");
    let mut args = vec![
        "selfcheck",
        "--solver",
        "tests/fixtures/fake-solvers/z3-drop-first.sh {file}",
        "--no-references",
        "--checkers",
        "yices,cvc5",
        "--keep",
        keep.to_str().unwrap(),
        "tests/fixtures/selfcheck/unsat",
    ];
    args.extend(LARGE);
    let r = coreval(&args, &dir.path().join("cache"));
    assert_eq!(r.code, 1, "{}", r.show());
    let failed: Vec<&str> = r
        .stdout
        .lines()
        .filter(|l| l.starts_with("FAIL refuted"))
        .collect();
    assert!(failed.len() >= 5, "{}", r.show());
    for line in failed {
        let path = line.split_whitespace().last().unwrap();
        let block = r.block(path);
        let names = block
            .iter()
            .find(|l| l.starts_with("names printed"))
            .unwrap_or_else(|| panic!("{path}: no names\n{}", r.show()));
        let core: HashSet<&str> = names
            .split(": ")
            .nth(1)
            .unwrap()
            .split(", ")
            .map(|n| n.split(' ').next().unwrap())
            .collect();
        let why = block
            .iter()
            .find(|l| l.contains("satisfies the core but falsifies"))
            .unwrap_or_else(|| panic!("{path}: no explanation\n{}", r.show()));
        // `…falsifies N assertion(s) outside the core: cv7 (FILE:12), …`
        let listed = why.split("outside the core: ").nth(1).unwrap();
        let first = listed.split("), ").next().unwrap();
        let (name, at) = first.split_once(" (").unwrap();
        assert!(!core.contains(name), "{name} is in the core: {why}");
        let line: usize = at
            .strip_prefix(&format!("{path}:"))
            .unwrap_or_else(|| panic!("{at} is not in {path}"))
            .trim_end_matches(')')
            .split(|c: char| !c.is_ascii_digit())
            .next()
            .unwrap()
            .parse()
            .unwrap();
        assert!(
            assert_lines(path).contains(&line),
            "{path}:{line} is no assertion's line: {why}"
        );
    }
}

#[test]
fn diff_names_new_failures_and_a_run_with_itself_is_no_regression() {
    let dir = tempfile::tempdir().unwrap();
    let (good, bad) = (dir.path().join("good.json"), dir.path().join("bad.json"));
    let cache = dir.path().join("cache");
    let files = ["tests/fixtures/selfcheck/unsat"];
    let run = |script: &str, out: &std::path::Path, extra: &[&str]| {
        let s = solver(script, "");
        let mut args = vec![
            "selfcheck",
            "--solver",
            &s,
            "--no-references",
            "--checkers",
            "yices,cvc5",
            "--json",
            out.to_str().unwrap(),
        ];
        args.extend(extra);
        args.extend(files);
        coreval(&args, &cache)
    };
    let r = run("z3-core.sh", &good, &[]);
    assert_eq!(r.code, 0, "{}", r.show());
    let r = run("z3-drop-first.sh", &bad, &[]);
    assert_eq!(r.code, 1, "{}", r.show());
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&good).unwrap()).unwrap();
    let first = &json["results"][0];
    assert!(
        first["core"].is_array() && first["core_size"].is_u64() && first["time"].is_f64(),
        "{json}"
    );

    let d = coreval(
        &["diff", good.to_str().unwrap(), bad.to_str().unwrap()],
        &cache,
    );
    assert_eq!(d.code, 1, "{}", d.show());
    assert!(d.stdout.contains("new failures: 4"), "{}", d.show());
    for f in [
        "prime_cone_unsat_3.smt2",
        "distinct_unsat.smt2",
        "bt-test-01.smt2",
        "chained-equality.smt2",
    ] {
        assert!(
            d.stdout
                .lines()
                .any(|l| l.contains(f) && l.contains("validated -> refuted")),
            "{f}\n{}",
            d.show()
        );
    }
    assert!(d.stdout.contains("cores shrank"), "{}", d.show());
    let same = coreval(
        &["diff", good.to_str().unwrap(), good.to_str().unwrap()],
        &cache,
    );
    assert_eq!(same.code, 0, "{}", same.show());
    assert!(same.stdout.contains("new failures: 0"), "{}", same.show());
    // Backwards: the failures are fixed.
    let fixed = coreval(
        &["diff", bad.to_str().unwrap(), good.to_str().unwrap()],
        &cache,
    );
    assert_eq!(fixed.code, 0, "{}", fixed.show());
    assert!(
        fixed.stdout.contains("fixed failures: 4"),
        "{}",
        fixed.show()
    );
    // --baseline: the faulty solver against the correct run fails, the
    // correct one against its own run passes.
    let again = dir.path().join("again.json");
    let r = run(
        "z3-drop-first.sh",
        &again,
        &["--baseline", good.to_str().unwrap()],
    );
    assert_eq!(r.code, 1, "{}", r.show());
    assert!(
        r.stdout.contains("compared with the baseline") && r.stdout.contains("new failures: 4"),
        "{}",
        r.show()
    );
    let r = run(
        "z3-core.sh",
        &again,
        &["--baseline", good.to_str().unwrap()],
    );
    assert_eq!(r.code, 0, "{}", r.show());
    let bad_input = coreval(&["diff", "README.md", good.to_str().unwrap()], &cache);
    assert_eq!(bad_input.code, 2, "{}", bad_input.show());
    assert!(
        bad_input.stderr.contains("README.md"),
        "{}",
        bad_input.show()
    );
}
