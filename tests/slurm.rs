//! `coreval slurm` on a real local Slurm cluster, with a stand-in `coreval`
//! in the jobs (`tests/fixtures/slurm/fake-coreval.sh`) so that only the
//! Slurm side is under test: the job chain solve → merge → check → merge +
//! score runs in that order, the `%K` throttle holds, every task records its
//! exit code, `status` reads the journals, a second submission over running
//! jobs is refused, and `cancel` stops everything. The cluster is found or
//! started as described in `tests/slurm_support/mod.rs`; every test skips
//! with a message when `sbatch` is absent or no cluster can be started.

mod common;
mod slurm_support;

use slurm_support::{cluster, coreval, named_example, root, run_ok, wait_idle};
use std::path::Path;
use std::time::{Duration, Instant};

/// One line of the stand-in's call log.
#[derive(Debug)]
struct Call {
    start: bool,
    time: f64,
    args: String,
}

fn calls(log: &Path) -> Vec<Call> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .map(|l| {
            let mut f = l.splitn(3, ' ');
            Call {
                start: f.next() == Some("START"),
                time: f.next().unwrap().parse().unwrap(),
                args: f.next().unwrap_or("").to_string(),
            }
        })
        .collect()
}

/// Most calls of `verb` running at once.
fn max_concurrent(calls: &[Call], verb: &str) -> usize {
    let mut ev: Vec<(f64, i32)> = calls
        .iter()
        .filter(|c| c.args.starts_with(verb))
        .map(|c| (c.time, if c.start { 1 } else { -1 }))
        .collect();
    ev.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let (mut now, mut max) = (0i32, 0i32);
    for (_, d) in ev {
        now += d;
        max = max.max(now);
    }
    max as usize
}

fn span(calls: &[Call], verb: &str) -> (f64, f64) {
    let times: Vec<f64> = calls
        .iter()
        .filter(|c| c.args.starts_with(verb))
        .map(|c| c.time)
        .collect();
    assert!(!times.is_empty(), "no `{verb}` call in {calls:?}");
    (
        times.iter().cloned().fold(f64::MAX, f64::min),
        times.iter().cloned().fold(f64::MIN, f64::max),
    )
}

#[test]
fn job_chain_runs_in_order_within_the_throttle() {
    let Some(cl) = cluster() else { return };
    let campaign = named_example(cl);
    let log = campaign.with_file_name("calls.log");
    let fake = root().join("tests/fixtures/slurm/fake-coreval.sh");
    run_ok(
        coreval(cl)
            .args(["slurm", "submit"])
            .arg(&campaign)
            .args(["--shards", "4", "--throttle", "2", "--coreval"])
            .arg(&fake)
            .env("FAKE_COREVAL_LOG", &log)
            .env("FAKE_COREVAL_SLEEP", "1"),
    );
    let st = wait_idle(cl, &campaign, Duration::from_secs(180));
    let c = calls(&log);
    // One solve and one check task per shard, with the shard as I/N.
    for verb in ["solve", "check"] {
        for i in 0..4 {
            let want = format!("{verb} {} --shard {i}/4 --jobs 1", campaign.display());
            assert_eq!(
                c.iter().filter(|x| x.start && x.args == want).count(),
                1,
                "{want} in {c:?}"
            );
        }
        assert!(
            max_concurrent(&c, verb) <= 2,
            "throttle %2 broken for {verb}: {c:?}"
        );
    }
    // solve → merge → check → merge → score stage.
    let merges: Vec<f64> = c
        .iter()
        .filter(|x| x.start && x.args.starts_with("merge"))
        .map(|x| x.time)
        .collect();
    assert_eq!(merges.len(), 2, "{c:?}");
    assert!(span(&c, "solve").1 <= merges[0], "{c:?}");
    assert!(merges[0] <= span(&c, "check").0, "{c:?}");
    assert!(span(&c, "check").1 <= merges[1], "{c:?}");
    assert!(merges[1] <= span(&c, "run").0, "{c:?}");
    // Every task recorded its exit code; the journals (empty: the stand-in
    // solves nothing) still say that solving is missing everywhere.
    for s in st["per_shard"].as_array().unwrap() {
        assert_eq!(s["solve_task"]["exit"], 0, "{s}");
        assert_eq!(s["check_task"]["exit"], 0, "{s}");
    }
    assert_eq!(st["missing_solve"], serde_json::json!([0, 1, 2, 3]));
    let subs = st["submissions"].as_array().unwrap();
    let stages: Vec<&str> = subs.iter().map(|s| s["stage"].as_str().unwrap()).collect();
    assert_eq!(stages, ["solve", "merge", "check", "merge"]);
    assert_eq!(subs[2]["after"][0], subs[1]["job"]);
    for f in ["solve.sbatch", "check.sbatch", "merge.sbatch"] {
        assert!(campaign.join("slurm").join(f).is_file(), "{f}");
    }
}

#[test]
fn cancel_stops_running_and_pending_tasks() {
    let Some(cl) = cluster() else { return };
    let campaign = named_example(cl);
    let log = campaign.with_file_name("calls.log");
    run_ok(
        coreval(cl)
            .args(["slurm", "submit"])
            .arg(&campaign)
            .args([
                "--shards",
                "3",
                "--throttle",
                "1",
                "--stage",
                "solve",
                "--coreval",
            ])
            .arg(root().join("tests/fixtures/slurm/fake-coreval.sh"))
            .env("FAKE_COREVAL_LOG", &log)
            .env("FAKE_COREVAL_SLEEP", "120"),
    );
    let t0 = Instant::now();
    while !calls(&log).iter().any(|c| c.start) {
        assert!(t0.elapsed() < Duration::from_secs(60), "no task started");
        std::thread::sleep(Duration::from_millis(200));
    }
    // No second submission over running jobs of the same campaign.
    let again = coreval(cl)
        .args(["slurm", "submit"])
        .arg(&campaign)
        .arg("--missing")
        .output()
        .unwrap();
    assert_eq!(again.status.code(), Some(2));
    let err = String::from_utf8_lossy(&again.stderr);
    assert!(err.contains("still queued or running"), "{err}");
    let out = run_ok(coreval(cl).args(["slurm", "cancel"]).arg(&campaign));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cancelled: "));
    let st = wait_idle(cl, &campaign, Duration::from_secs(60));
    // A cancelled task writes no exit record; nothing ran to its end.
    for s in st["per_shard"].as_array().unwrap() {
        assert!(s["solve_task"].is_null(), "{s}");
    }
    assert!(!calls(&log).iter().any(|c| !c.start));
    let text = run_ok(coreval(cl).args(["slurm", "status"]).arg(&campaign));
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.contains("no job queued; shards [0, 1, 2] are incomplete"),
        "{text}"
    );
}
