//! Competition scale on one machine (`cargo bench --bench scale`): a
//! synthetic campaign of N three-assertion benchmarks (1 000 distinct
//! contents) × S instant solvers, checked by K instant checkers of other
//! teams (`benches/support/scale.rs`), each stage a `coreval` child
//! measured by `wait4`: naming, solve, check, `score`, a `run` with
//! nothing to do (twice: both must leave the reports `score` wrote
//! untouched), peak RSS, journal bytes per record, report sizes, and
//! whether headless Chromium opens `report.html` (first screen drawn,
//! sortable tables). The instant programs measure coreval's own overhead.
//!
//! `cargo bench --bench scale -- [--pairs P] [--solvers S] [--checkers K]
//! [--distinct D] [--jobs J] [--synth] [--dir DIR] [--reuse]` (defaults
//! 100 000 pairs, 5 solvers, 3 checkers, 1 000 distinct, 2 jobs, a temp
//! dir). `--reuse` with `--dir DIR` of a campaign an earlier run of this
//! benchmark built at the same shape (its `runs.jsonl` holds one record
//! per pair): naming, solve and check are not run again, only `score` and
//! the nothing-to-do runs are measured (to compare builds of coreval on
//! the same campaign; `score` always writes, so the reports are fresh).
//! `--synth` skips the solve stage: `runs.jsonl` is written by the
//! benchmark in the solve stage's format (the 1 000 000-pair figures start
//! there: `--pairs 1000000 --synth`); naming, check and scoring are real.
//! Targets (README, "Performance"): 100 000 pairs: nothing-to-do `run` ≤
//! 1.5 s and ≤ 150 MB, `score` ≤ 3 s, ≤ 300 bytes per run record;
//! 1 000 000: ≤ 10 s and ≤ 1 GB, `score` ≤ 20 s and ≤ 1.5 GB.

#[path = "support/scale.rs"]
mod scale;

use scale::{Cost, Shape};
use std::path::{Path, PathBuf};

fn main() {
    let mut pairs = 100_000;
    let mut shape = Shape {
        benchmarks: 0,
        solvers: 5,
        checkers: 3,
        distinct: 1000,
        jobs: 2,
    };
    let (mut synth, mut reuse, mut dir) = (false, false, None::<PathBuf>);
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let mut num = || -> usize {
            it.next()
                .and_then(|v| v.parse().ok())
                .unwrap_or_else(|| panic!("{arg} needs a number"))
        };
        match arg.as_str() {
            "--pairs" => pairs = num(),
            "--solvers" => shape.solvers = num(),
            "--checkers" => shape.checkers = num(),
            "--distinct" => shape.distinct = num(),
            "--jobs" => shape.jobs = num(),
            "--synth" => synth = true,
            "--reuse" => reuse = true,
            "--dir" => dir = it.next().map(PathBuf::from),
            _ => {} // `cargo bench` passes `--bench`
        }
    }
    shape.benchmarks = pairs.div_ceil(shape.solvers);
    shape.distinct = shape.distinct.clamp(1, shape.benchmarks.max(1));
    let tmp = tempfile::tempdir().unwrap();
    let dir = dir.unwrap_or_else(|| tmp.path().join("campaign"));
    std::fs::create_dir_all(&dir).unwrap();
    println!(
        "coreval {}\n{} benchmarks ({} distinct) × {} solvers = {} pairs, {} checkers, jobs = {}, in {}",
        scale::BIN,
        shape.benchmarks,
        shape.distinct,
        shape.solvers,
        shape.pairs(),
        shape.checkers,
        shape.jobs,
        dir.display()
    );
    let built = scale::journal_size(&dir, "runs.jsonl").1 == shape.pairs()
        && dir.join("campaign.toml").exists();
    if reuse && built {
        println!(
            "reusing the campaign built in {}: naming, solve and check not run",
            dir.display()
        );
    } else {
        build(&dir, shape, synth);
    }
    let line = |what: &str, c: Cost| println!("{what:<34} {c}");
    line("score", scale::coreval(&["score", dir.to_str().unwrap()]));
    let before = scale::report_sizes(&dir);
    let stamp = |name: &str| {
        std::fs::metadata(dir.join("reports").join(name))
            .and_then(|m| m.modified())
            .ok()
    };
    let html_before = stamp("report.html");
    line("run, nothing to do", scale::stage(&dir, None));
    line("run, nothing to do (again)", scale::stage(&dir, None));
    println!(
        "reports rewritten by the nothing-to-do runs: {}",
        if stamp("report.html") == html_before {
            "no"
        } else {
            "yes"
        }
    );
    for name in ["runs.jsonl", "cores.jsonl", "checks.jsonl"] {
        let (bytes, n) = scale::journal_size(&dir, name);
        println!(
            "{name:<14} {n:>9} records {:>12} bytes {:>7.0} bytes/record",
            bytes,
            bytes as f64 / n.max(1) as f64
        );
    }
    for (name, bytes) in before {
        println!("reports/{name:<24} {:>10.2} MB", bytes as f64 / 1e6);
    }
    let t = std::time::Instant::now();
    match scale::report_opens(&dir) {
        None => println!("report.html: no Chromium here, not opened"),
        Some(ok) => println!(
            "report.html opens in Chromium (first screen drawn, sortable tables): {} ({:.1} s)",
            if ok { "yes" } else { "NO" },
            t.elapsed().as_secs_f64()
        ),
    }
}

/// Generate the campaign, then name, solve (or synthesize `runs.jsonl`) and
/// check it, measuring each stage and its nothing-to-do run.
fn build(dir: &Path, shape: Shape, synth: bool) {
    let t = std::time::Instant::now();
    scale::generate(dir, shape);
    println!("generated in {:.1} s", t.elapsed().as_secs_f64());
    let line = |what: &str, c: Cost| println!("{what:<34} {c}");
    line("name", scale::stage(dir, Some("name")));
    if synth {
        let t = std::time::Instant::now();
        let n = scale::synth_runs(dir);
        println!(
            "{:<34} {:8.2} s (in this process; {n} records)",
            "solve (synthesized runs.jsonl)",
            t.elapsed().as_secs_f64()
        );
    } else {
        line("solve", scale::stage(dir, Some("solve")));
    }
    line("solve, nothing to do", scale::stage(dir, Some("solve")));
    line("check", scale::stage(dir, Some("check")));
    line("check, nothing to do", scale::stage(dir, Some("check")));
}
