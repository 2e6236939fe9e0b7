//! How far `coreval selfcheck --shrink` takes a failure (issue 30): three
//! planted bugs around the real z3 (`tests/fixtures/fake-solvers/`) —
//! `z3-drop-first.sh` drops a needed name (refuted), `z3-says-sat.sh`
//! answers `sat` (sat), `z3-fault.sh … unknown` invents a name
//! (ill-formed:unknown-name) — on real unsat benchmarks of 33 to 45
//! assertions from `tests/data/benchmarks`. Each failure is shrunk within
//! the budget; then the printed command is run on each reproducer from
//! scratch, and must fail the same way. Prints one row per (bug,
//! benchmark) and the median share of the assertions a reproducer keeps.
//!
//! `cargo bench --bench shrink [-- --shrink-time S]` (default 120 s, as
//! `--shrink-time`); exit code 1 when a reproducer does not fail again or
//! the median share is above 25 %.

use std::path::Path;
use std::process::Command;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");
const BENCHMARKS: &[&str] = &[
    "tests/data/benchmarks/QF_LIA/doc-arithmetic_artifact_z_QF_LIA_calypto/problem-002666.cvc.1.smt2",
    "tests/data/benchmarks/QF_LIA/doc-AV_2009_benchmarks_coef-size_smt_size-10/c10_problem__002.smt2.slack.smt2",
    "tests/data/benchmarks/QF_LIA/doc-omberger_more_slacked_cut_lemmas_15-vars/cut_lemma_03_002.smt2.slack.smt2",
];
const BUGS: &[(&str, &str, &str)] = &[
    (
        "drop a needed name",
        "tests/fixtures/fake-solvers/z3-drop-first.sh {file}",
        "refuted",
    ),
    (
        "answer sat",
        "tests/fixtures/fake-solvers/z3-says-sat.sh {file}",
        "sat",
    ),
    (
        "invent a name",
        "tests/fixtures/fake-solvers/z3-fault.sh {file} unknown",
        "ill-formed:unknown-name",
    ),
];

fn coreval(args: &[String], cache: &Path) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_coreval"))
        .current_dir(ROOT)
        .env("COREVAL_CACHE", cache)
        .env_remove("COREVAL_CHECKERS")
        .args(args)
        .output()
        .expect("coreval runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

/// The detail lines under the result line of `path`.
fn block<'a>(stdout: &'a str, path: &str) -> Vec<&'a str> {
    let mut lines = stdout.lines().skip_while(|l| !l.ends_with(path));
    lines.next();
    lines
        .take_while(|l| l.starts_with("     "))
        .map(str::trim)
        .collect()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let time = args
        .iter()
        .position(|a| a == "--shrink-time")
        .and_then(|i| args.get(i + 1))
        .map_or("120".to_string(), String::clone);
    let dir = tempfile::tempdir().unwrap();
    let mut shares = Vec::new();
    let mut bad = 0;
    println!("shrink-time {time} s; bug | benchmark | verdict | kept | bytes | fails again");
    for (bug, solver, kind) in BUGS {
        let keep = dir.path().join(kind.replace(':', "-"));
        let mut words: Vec<String> = [
            "selfcheck",
            "--solver",
            solver,
            "--no-references",
            "--checkers",
            "yices,cvc5",
            "--shrink",
            "--shrink-time",
            &time,
            "--keep",
            keep.to_str().unwrap(),
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        words.extend(BENCHMARKS.iter().map(|s| s.to_string()));
        let started = std::time::Instant::now();
        let (code, stdout) = coreval(&words, &dir.path().join("cache"));
        let wall = started.elapsed().as_secs_f64();
        assert_eq!(code, 1, "{bug}: selfcheck exit {code}\n{stdout}");
        for b in BENCHMARKS {
            let lines = block(&stdout, b);
            let name = Path::new(b).file_name().unwrap().to_string_lossy();
            let Some(r) = lines.iter().find(|l| l.starts_with("reproducer: ")) else {
                println!("{bug} | {name} | no reproducer: {lines:?}");
                bad += 1;
                continue;
            };
            // `reproducer: PATH (K of N assertions, B of B0 bytes)`
            let (path, sizes) = r["reproducer: ".len()..].rsplit_once(" (").unwrap();
            let w: Vec<&str> = sizes.split_whitespace().collect();
            let (k, n): (f64, f64) = (w[0].parse().unwrap(), w[2].parse().unwrap());
            let repeat = lines
                .iter()
                .find_map(|l| l.strip_prefix("repeat on it: $ "))
                .unwrap();
            let mut again = shlex::split(repeat).unwrap();
            again.remove(0);
            again.extend([
                "--keep".into(),
                dir.path().join("again").to_string_lossy().into_owned(),
            ]);
            let (code2, out2) = coreval(&again, &dir.path().join("cache-again"));
            let fails = code2 == 1
                && out2
                    .lines()
                    .any(|l| l.starts_with(&format!("FAIL {kind} ")) && l.ends_with(path));
            bad += usize::from(!fails);
            shares.push(k / n);
            println!(
                "{bug} | {name} | {kind} | {k} of {n} ({:.0} %) | {} of {} | {}",
                100.0 * k / n,
                w[4],
                w[6],
                if fails { "yes" } else { "NO" }
            );
        }
        println!(
            "{bug}: selfcheck with --shrink took {wall:.1} s for {} benchmarks",
            BENCHMARKS.len()
        );
    }
    shares.sort_by(f64::total_cmp);
    let median = shares.get(shares.len() / 2).copied().unwrap_or(1.0);
    println!(
        "median reproducer keeps {:.1} % of the assertions ({} reproducers); {bad} did not fail again",
        100.0 * median,
        shares.len()
    );
    if bad > 0 || median > 0.25 {
        std::process::exit(1);
    }
}
