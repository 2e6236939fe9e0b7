//! coreval's measurements against BenchExec's: peak memory and CPU time of
//! the same commands run through `coreval::runner::run` (as the `coreval`
//! binary runs solvers: the slot's trampoline, a cgroup where one can be
//! made) and through `runexec --no-container` (PyPI `benchexec`,
//! `checkers/install.sh --dev`), interleaved, ROUNDS of each: a solver
//! that touches 200 MB (`tests/fixtures/memory/reserve.py 0.25 200`) and
//! one with two busy threads for 2 s (`tests/fixtures/memory/busy.py 2
//! 2`). Prints each round, then the medians and the ratios coreval/runexec
//! (target: within 10 %), and how coreval measured (`cgroup v1`, `cgroup
//! v2`, `rusage`).
//!
//! `cargo bench --bench runexec -- [--rounds N]` (default 5).

#[path = "support/runexec.rs"]
mod support;

use coreval::runner::{cgroup, run, use_trampoline, Exit, RunSpec};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::Duration;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn fixture(name: &str) -> String {
    Path::new(ROOT)
        .join("tests/fixtures/memory")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

/// coreval's CPU seconds and peak bytes for `python3 FIXTURE ARGS`.
fn ours(args: &[&str]) -> (f64, u64) {
    let mut all = vec![fixture(args[0])];
    all.extend(args[1..].iter().map(|a| a.to_string()));
    let o = run(
        &RunSpec::new("python3", all, Duration::from_secs(120)),
        &AtomicBool::new(false),
    );
    assert_eq!(o.exit, Exit::Exited(0), "{o:?}");
    (o.cpu, o.max_rss)
}

/// runexec's CPU seconds and peak bytes for the same command.
fn theirs(args: &[&str]) -> (f64, u64) {
    let mut command = vec!["python3".to_string(), fixture(args[0])];
    command.extend(args[1..].iter().map(|a| a.to_string()));
    support::measure(Path::new(ROOT), Path::new(ROOT), &command)
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(|a, b| a.total_cmp(b));
    xs[xs.len() / 2]
}

fn main() {
    let mut rounds = 5;
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        if a == "--rounds" {
            rounds = it.next().and_then(|n| n.parse().ok()).expect("--rounds N");
        }
    }
    let exe = PathBuf::from(ROOT).join("target/release/coreval-trampoline");
    if exe.exists() {
        use_trampoline(exe);
    }
    println!(
        "coreval measures by {} ({})",
        cgroup::method().words(),
        cgroup::why_rusage().unwrap_or("a cgroup per job slot")
    );
    let cases: [(&str, &[&str], bool); 2] = [
        (
            "200 MB solver, peak memory",
            &["reserve.py", "0.25", "200"],
            false,
        ),
        (
            "two busy threads for 2 s, CPU time",
            &["busy.py", "2", "2"],
            true,
        ),
    ];
    for (what, args, cpu) in cases {
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for round in 1..=rounds {
            let (x, y) = (ours(args), theirs(args));
            let (x, y) = if cpu {
                (x.0, y.0)
            } else {
                (x.1 as f64 / 1e6, y.1 as f64 / 1e6)
            };
            let unit = if cpu { "s" } else { "MB" };
            println!("{what}: round {round}: coreval {x:.3} {unit}, runexec {y:.3} {unit}");
            a.push(x);
            b.push(y);
        }
        let (x, y) = (median(a), median(b));
        println!(
            "median {what}: coreval/runexec {:.3} (target 0.9–1.1)",
            x / y
        );
    }
}
