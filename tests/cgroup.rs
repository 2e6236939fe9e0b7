//! Runs limited and measured by cgroups (`src/runner/cgroup/`), against
//! BenchExec's `runexec --no-container` on the same commands (PyPI
//! `benchexec`, `checkers/install.sh --dev`):
//!
//! - under a 1000 MB limit, a solver that reserves 64 GB of address space
//!   (MAP_NORESERVE, as a JVM or Go runtime does) and touches 50 MB runs;
//!   one that touches 1.5 GB is a memout with a peak under 1.1 GB;
//! - peak memory of a 200 MB solver and CPU time of a two-thread busy one
//!   within 10 % of runexec's;
//! - a campaign whose solver reserves 64 GB and then runs z3 gets its core
//!   validated under `memory_mb = 1000`, and its report says how runs were
//!   measured; with `COREVAL_CGROUP=off` the same solver is a memout under
//!   RLIMIT_AS, and the report says rusage;
//! - a coreval killed by SIGKILL during a run leaves its groups and a
//!   daemon of its solver behind, which the next coreval removes.
//!
//! Needs root with cgroup v1 `memory` and `cpuacct` or a delegated cgroup
//! v2 (CI has them): elsewhere the tests say SKIPPED, and fail when `CI`
//! is set on a machine with cgroup v1 as root.

mod common;
#[path = "../benches/support/runexec.rs"]
mod runexec;

use coreval::runner::cgroup::{self, Measure};
use coreval::runner::{run, use_trampoline, Exit, RunOutcome, RunSpec};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::Duration;

const MB: u64 = 1 << 20;

fn fixture(name: &str) -> String {
    common::repo()
        .join("tests/fixtures/memory")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

/// Whether runs here go through cgroups; says SKIPPED (or fails in CI)
/// when they do not.
fn cgroups() -> bool {
    if cgroup::method() != Measure::Rusage {
        return true;
    }
    let why = cgroup::why_rusage().unwrap_or("?");
    // In CI, as root beside a cgroup v1 memory hierarchy (CI's machines),
    // a group must be made; a pure v2 host without delegation is skipped.
    let v1_as_root = std::path::Path::new("/sys/fs/cgroup/memory/cgroup.procs").exists()
        // SAFETY: geteuid cannot fail.
        && unsafe { libc::geteuid() } == 0;
    if v1_as_root {
        common::missing::skip(&format!(
            "coreval runs as root beside cgroup v1, but no cgroup can be made: {why}"
        ));
    } else {
        eprintln!("SKIPPED (no cgroup: {why})");
    }
    false
}

fn python(args: &[&str], limit: Option<u64>) -> RunOutcome {
    use_trampoline(env!("CARGO_BIN_EXE_coreval-trampoline"));
    let mut all = vec![fixture(args[0])];
    all.extend(args[1..].iter().map(|a| a.to_string()));
    let mut spec = RunSpec::new("python3", all, Duration::from_secs(60));
    spec.memory_limit = limit;
    run(&spec, &AtomicBool::new(false))
}

/// `runexec --no-container` of `python3 FIXTURE ARGS`: CPU seconds and
/// peak memory in bytes.
fn runexec(args: &[&str]) -> (f64, u64) {
    let mut command = vec!["python3".to_string(), fixture(args[0])];
    command.extend(args[1..].iter().map(|a| a.to_string()));
    runexec::measure(common::repo(), common::repo(), &command)
}

fn median<T: PartialOrd + Copy>(mut xs: Vec<T>) -> T {
    xs.sort_by(|a, b| a.partial_cmp(b).unwrap());
    xs[xs.len() / 2]
}

#[test]
fn a_64_gb_reservation_runs_under_1000_mb_and_touching_1_5_gb_is_a_memout() {
    if !cgroups() {
        return;
    }
    let limit = Some(1000 * MB);
    let o = python(&["reserve.py", "64", "50"], limit);
    assert_eq!(
        (&o.exit, o.stdout.as_slice()),
        (&Exit::Exited(0), &b"done\n"[..]),
        "{o:?}"
    );
    assert!(!o.memout && o.measured_by != Measure::Rusage, "{o:?}");
    assert_eq!(o.memory_limit_by.as_deref(), Some(o.measured_by.limit_by()));
    assert!(
        (50 * MB..200 * MB).contains(&o.max_rss),
        "peak {}",
        o.max_rss
    );

    let o = python(&["reserve.py", "2", "1500"], limit);
    assert!(o.memout, "{o:?}");
    assert_eq!(o.exit, Exit::Signaled(libc::SIGKILL));
    assert!(o.max_rss < 1100 * MB, "peak {}", o.max_rss);
    assert!(o.max_rss > 900 * MB, "peak {}", o.max_rss);
}

#[test]
fn peak_memory_and_cpu_time_are_runexecs_within_10_percent() {
    if !cgroups() {
        return;
    }
    let (mut ours, mut theirs) = (Vec::new(), Vec::new());
    for _ in 0..3 {
        let o = python(&["reserve.py", "0.25", "200"], None);
        assert_eq!(o.exit, Exit::Exited(0), "{o:?}");
        ours.push(o.max_rss);
        theirs.push(runexec(&["reserve.py", "0.25", "200"]).1);
    }
    let (ours, theirs) = (median(ours), median(theirs));
    let ratio = ours as f64 / theirs as f64;
    eprintln!("200 MB solver: peak {ours} B, runexec {theirs} B ({ratio:.3})");
    assert!(
        (0.9..=1.1).contains(&ratio),
        "peak {ours} vs runexec {theirs}"
    );

    let (mut ours, mut theirs) = (Vec::new(), Vec::new());
    for _ in 0..3 {
        let o = python(&["busy.py", "2", "2"], None);
        assert_eq!(o.exit, Exit::Exited(0), "{o:?}");
        ours.push(o.cpu);
        theirs.push(runexec(&["busy.py", "2", "2"]).0);
    }
    let (ours, theirs) = (median(ours), median(theirs));
    let ratio = ours / theirs;
    eprintln!("two busy threads: cpu {ours:.3} s, runexec {theirs:.3} s ({ratio:.3})");
    assert!(
        (0.9..=1.1).contains(&ratio),
        "cpu {ours} vs runexec {theirs}"
    );
}

/// A campaign of one benchmark whose solver reserves 64 GB, touches 50 MB
/// and then runs z3, under `memory_mb = 1000`.
fn reserving_campaign(dir: &Path) -> PathBuf {
    let camp = dir.join("camp");
    let id = "QF_LIA/doc-arithmetic_artifact_z_QF_LIA_prime-cone/prime_cone_unsat_5.smt2";
    common::copy_examples(&camp.join("benchmarks"), &[id]);
    let z3 = common::repo().join("checkers/venv/bin/z3");
    let config = format!(
        "benchmarks = \"benchmarks\"\njobs = 1\ncache = \".cache\"\n\
         [limits]\ntime = 30.0\nmemory_mb = 1000\n\
         [[solver]]\nname = \"reserving\"\n\
         command = [\"python3\", {:?}, \"64\", \"50\", {:?}, \"{{file}}\"]\n\
         [[solver]]\nname = \"z3\"\ndefinition = \"z3\"\n",
        fixture("reserve.py"),
        z3.to_string_lossy()
    );
    std::fs::write(camp.join("campaign.toml"), config).unwrap();
    camp
}

#[test]
fn a_campaign_says_how_its_runs_were_measured_and_rusage_is_the_fallback() {
    if !cgroups() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let camp = reserving_campaign(tmp.path());
    let (code, err) = common::coreval_run(&camp, &[]);
    assert_eq!(code, Some(0), "{err}");
    let pairs = common::jsonl(&camp.join("reports/pairs.jsonl"));
    let reserving = pairs.iter().find(|p| p["solver"] == "reserving").unwrap();
    assert_eq!(common::verdict(reserving), "validated", "{reserving}");
    let runs = common::jsonl(&camp.join("runs.jsonl"));
    let by = serde_json::to_value(cgroup::method()).unwrap();
    assert!(runs.iter().all(|r| r["cgroup"] == by), "{runs:?}");
    let report = std::fs::read_to_string(camp.join("reports/report.md")).unwrap();
    let words = format!("measured by {} (2 runs)", cgroup::method().words());
    assert!(report.contains(&words), "{report}");

    // Without cgroups: RLIMIT_AS refuses the reservation.
    let tmp = tempfile::tempdir().unwrap();
    let camp = reserving_campaign(tmp.path());
    let out = common::command()
        .args(["run"])
        .arg(&camp)
        .env(cgroup::SWITCH, "off")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("runs measured by rusage, memory limit by RLIMIT_AS"),
        "{err}"
    );
    let pairs = common::jsonl(&camp.join("reports/pairs.jsonl"));
    let reserving = pairs.iter().find(|p| p["solver"] == "reserving").unwrap();
    assert_ne!(common::verdict(reserving), "validated", "{reserving}");
    let report = std::fs::read_to_string(camp.join("reports/report.md")).unwrap();
    assert!(report.contains("measured by rusage (2 runs)"), "{report}");
}

/// The folders named `coreval.<pid>.*` below the cgroup mounts.
fn groups_of(pid: u32) -> Vec<PathBuf> {
    fn walk(dir: &Path, depth: usize, prefix: &str, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten().filter(|e| e.path().is_dir()) {
            if e.file_name().to_string_lossy().starts_with(prefix) {
                out.push(e.path());
            } else if depth > 0 {
                walk(&e.path(), depth - 1, prefix, out);
            }
        }
    }
    let mut out = Vec::new();
    walk(
        Path::new("/sys/fs/cgroup"),
        5,
        &format!("coreval.{pid}."),
        &mut out,
    );
    out
}

#[test]
fn a_killed_corevals_groups_and_processes_go_with_the_next_run() {
    if !cgroups() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let camp = tmp.path().join("camp");
    let id = "QF_LIA/doc-arithmetic_artifact_z_QF_LIA_prime-cone/prime_cone_unsat_5.smt2";
    common::copy_examples(&camp.join("benchmarks"), &[id]);
    let pids = tmp.path().join("pids");
    std::fs::create_dir(&pids).unwrap();
    // The solver leaves a daemon (setsid: out of its process group) and
    // hangs until the time limit.
    let config = format!(
        "benchmarks = \"benchmarks\"\njobs = 1\ncache = \".cache\"\n\
         [limits]\ntime = 3.0\n\
         [[solver]]\nname = \"daemon\"\n\
         command = [\"sh\", \"-c\", \"\\\"$0\\\" \\\"$1\\\"; sleep 30\", {:?}, {:?}, \"{{file}}\"]\n",
        common::fake_solver("setsid-daemon.sh"),
        pids.to_string_lossy()
    );
    std::fs::write(camp.join("campaign.toml"), config).unwrap();
    let mut first = common::procs::Running::start(&["run"], &camp);
    let pid = first.child.id();
    let seen = common::procs::eventually(20.0, || {
        !common::procs::daemon_pids(&pids).is_empty() && !groups_of(pid).is_empty()
    });
    assert!(seen, "no daemon or no group of coreval {pid}");
    let daemons = common::procs::daemon_pids(&pids);
    first.kill();
    let _ = first.wait();
    assert!(
        !groups_of(pid).is_empty(),
        "a killed coreval cannot remove its groups"
    );
    // What the next run has to kill: the kernel killed the solver with
    // its parents, not the daemon that left them.
    let left: Vec<_> = (daemons.iter().copied())
        .filter(|&d| common::procs::pid_alive(d))
        .collect();
    assert!(!left.is_empty(), "daemons {daemons:?} died with coreval");

    let (code, err) = common::coreval_run(&camp, &[]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(
        groups_of(pid),
        Vec::<PathBuf>::new(),
        "groups of the killed coreval"
    );
    for d in daemons {
        assert!(!common::procs::pid_alive(d), "daemon {d} of the killed run");
    }
}
