//! Bounded and interruptible at any `jobs`, measured by rusage like
//! `/usr/bin/time` (`COREVAL_CGROUP=off`):
//! `--jobs 100000` on the bundled example is capped with a note and ends,
//! its runs' `max_rss` within 10 % of `/usr/bin/time -f %M` for the same
//! commands; SIGTERM at `jobs = 512` is answered within 2 s and leaves no
//! process of the campaign behind, the daemons of a solver that `setsid`s
//! included.

mod common;

use common::procs::{daemon_pids, eventually, pid_alive, solver_processes, Running};
use common::repo;
use coreval::campaign::setup::ConfigFile;
use std::time::{Duration, Instant};

#[test]
fn jobs_beyond_the_machine_are_capped_and_runs_measure_the_solver_alone() {
    let dir = tempfile::tempdir().unwrap();
    let camp = dir.path().join("campaign");
    common::copy_example_campaign(&camp);
    let t = Instant::now();
    // Measured by rusage, as /usr/bin/time measures (runs in cgroups are
    // compared with BenchExec's runexec in tests/cgroup.rs).
    let off = [(coreval::runner::cgroup::SWITCH, "off")];
    let r = Running::start_with(&["run", "--jobs", "100000"], &camp, &off);
    let (code, stderr) = r.wait();
    let secs = t.elapsed().as_secs_f64();
    assert_eq!(code, Some(0), "{stderr}");
    let cap = coreval::process::jobs::cap();
    assert!(
        stderr.contains(&format!("note: jobs 100000 capped at {cap}")),
        "{stderr}"
    );
    // README: 6.4 s on an idle 2-core machine; this one may be shared.
    eprintln!("run --jobs 100000 on the example: {secs:.1} s");
    assert!(secs < 60.0, "took {secs:.1} s");

    // A sample of the runs, measured again with /usr/bin/time from the
    // campaign folder: one per solver, the largest of its runs.
    let runs = common::jsonl(&camp.join("runs.jsonl"));
    let mut sample: Vec<&serde_json::Value> = Vec::new();
    for solver in ["z3", "cvc5", "yices"] {
        let mut of: Vec<&serde_json::Value> =
            runs.iter().filter(|r| r["solver"] == solver).collect();
        of.sort_by_key(|r| r["max_rss"].as_u64());
        sample.extend(of.last());
        sample.extend(of.first());
    }
    assert!(sample.len() >= 4, "{runs:?}");
    let distinct: std::collections::HashSet<u64> =
        runs.iter().filter_map(|r| r["max_rss"].as_u64()).collect();
    assert!(distinct.len() * 2 > runs.len(), "{distinct:?}");
    for r in sample {
        let words: Vec<String> = common::provenance_of(&camp, r)["command"]
            .as_array()
            .unwrap()
            .iter()
            .map(|w| w.as_str().unwrap().to_string())
            .collect();
        let out = std::process::Command::new("/usr/bin/time")
            .args(["-f", "%M"])
            .args(&words)
            .current_dir(&camp)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        let theirs = err
            .trim()
            .lines()
            .last()
            .unwrap()
            .trim()
            .parse::<u64>()
            .unwrap()
            * 1024;
        let ours = r["max_rss"].as_u64().unwrap();
        let ratio = ours as f64 / theirs as f64;
        assert!(
            (0.9..=1.1).contains(&ratio),
            "{words:?}: max_rss {ours}, /usr/bin/time {theirs} ({ratio:.3})"
        );
    }
}

#[test]
fn sigterm_at_512_jobs_is_answered_within_2_s_and_no_process_survives() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("campaign");
    let bench = dir.join("bench/QF_UF/php");
    std::fs::create_dir_all(&bench).unwrap();
    // z3 cannot finish the pigeonhole instance within the limit.
    for i in 0..4 {
        std::fs::copy(
            repo().join("tests/fixtures/solver-output/inputs/php11.smt2"),
            bench.join(format!("php{i}.smt2")),
        )
        .unwrap();
    }
    let daemons = tmp.path().join("daemons");
    std::fs::create_dir_all(&daemons).unwrap();
    let kdir = common::real_checkers(&tmp.path().join("checkers"));
    let mut config = ConfigFile::new("bench");
    config.checkers_dir = Some(kdir);
    config.jobs = 512;
    config.naming.allow_no_status = true;
    config.naming.named_policy = coreval::benchmark::NamedPolicy::Strip;
    (config.limits.time, config.limits.grace) = (Some(60.0), 1.0);
    config.check.checkers = vec!["z3".into()];
    let daemon = repo().join("tests/fixtures/fake-solvers/setsid-daemon.sh");
    config.solver_definition("z3", "z3").solver_command(
        "daemon",
        &[
            daemon.to_str().unwrap(),
            daemons.to_str().unwrap(),
            "{file}",
        ],
    );
    config.write_to(&dir).unwrap();

    let mut r = Running::start(&["run"], &dir);
    let running = eventually(60.0, || {
        solver_processes(&dir)
            .iter()
            .filter(|p| p.cmdline.contains("z3"))
            .count()
            >= 2
            && daemon_pids(&daemons).len() >= 4
    });
    assert!(running, "the solvers never started: {:?}", r.lines);
    let t = Instant::now();
    // SAFETY: SIGTERM to our own child.
    unsafe { libc::kill(r.child.id() as i32, libc::SIGTERM) };
    let ended = eventually(2.0, || r.exited());
    let secs = t.elapsed().as_secs_f64();
    assert!(ended, "SIGTERM not answered within 2 s");
    let (code, stderr) = r.wait();
    assert_eq!(code, Some(130), "{stderr}");
    assert!(stderr.contains("capped at"), "{stderr}");
    eprintln!("SIGTERM answered in {secs:.2} s");
    // Nothing of the campaign is left: solvers, trampolines, daemons.
    std::thread::sleep(Duration::from_millis(200));
    let left = solver_processes(&dir);
    assert!(left.is_empty(), "{left:?}");
    for pid in daemon_pids(&daemons) {
        assert!(!pid_alive(pid), "daemon {pid} survived");
    }
}
