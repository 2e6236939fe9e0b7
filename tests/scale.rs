//! The scale benchmark (`benches/scale.rs`) run small: its synthetic
//! campaign (instant fake solvers and checkers: they measure coreval's own
//! overhead, no core is judged on its merits here) goes through every
//! stage, the journals hold one record per pair, a run record stays under
//! 300 bytes, and a `run` with nothing to do leaves the reports as they
//! were. Also with `runs.jsonl` written by the benchmark (the million's
//! starting point), which the stages must take as their own.

#[path = "../benches/support/scale.rs"]
mod scale;

use scale::Shape;
use std::path::Path;

fn shape() -> Shape {
    Shape {
        benchmarks: 30,
        solvers: 2,
        checkers: 2,
        distinct: 4,
        jobs: 2,
    }
}

fn modified(dir: &Path, name: &str) -> std::time::SystemTime {
    std::fs::metadata(dir.join("reports").join(name))
        .and_then(|m| m.modified())
        .unwrap()
}

fn every_stage(dir: &Path, synth: bool) {
    let s = shape();
    scale::generate(dir, s);
    assert!(scale::stage(dir, Some("name")).ok);
    if synth {
        assert_eq!(scale::synth_runs(dir), s.pairs());
    } else {
        assert!(scale::stage(dir, Some("solve")).ok);
    }
    let check = scale::stage(dir, Some("check"));
    assert!(check.ok && check.rss > 0 && check.wall > 0.0);
    assert!(scale::coreval(&["score", dir.to_str().unwrap()]).ok);
    let (bytes, runs) = scale::journal_size(dir, "runs.jsonl");
    assert_eq!(runs, s.pairs());
    assert!(bytes as f64 / runs as f64 <= 300.0, "{bytes} bytes");
    assert_eq!(scale::journal_size(dir, "cores.jsonl").1, s.pairs());
    let pairs = std::fs::read_to_string(dir.join("reports/pairs.jsonl")).unwrap();
    assert_eq!(pairs.lines().count(), s.pairs());
    assert!(
        pairs.lines().all(|l| l.contains("\"kind\":\"validated\"")),
        "every core of the instant solvers is valid:\n{pairs}"
    );
    // Nothing to do: the reports `score` wrote are current, twice over.
    let before = modified(dir, "report.html");
    assert!(scale::stage(dir, None).ok);
    assert!(scale::stage(dir, None).ok);
    assert_eq!(modified(dir, "report.html"), before, "reports rewritten");
    // A changed input (a journal touched): written again.
    let runs = std::fs::File::options()
        .append(true)
        .open(dir.join("runs.jsonl"))
        .unwrap();
    let later = std::time::SystemTime::now() + std::time::Duration::from_secs(2);
    runs.set_modified(later).unwrap();
    assert!(scale::stage(dir, None).ok);
    assert_ne!(modified(dir, "report.html"), before, "reports kept");
    assert_eq!(scale::journal_size(dir, "runs.jsonl").1, s.pairs());
    assert_ne!(
        scale::report_opens(dir),
        Some(false),
        "report.html does not open"
    );
}

#[test]
fn the_scale_campaign_runs_small_end_to_end() {
    let dir = tempfile::tempdir().unwrap();
    every_stage(dir.path(), false);
}

#[test]
fn journals_written_by_the_benchmark_are_the_stages_own() {
    let dir = tempfile::tempdir().unwrap();
    every_stage(dir.path(), true);
}
