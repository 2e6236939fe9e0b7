//! Fault injection for the process runner: every fake solver in
//! `tests/fixtures/fake-solvers/` run through `coreval::runner::run`, with
//! the outcome and the time it took asserted. Also the CPU accounting of
//! process trees (including orphaned grandchildren) under parallel runs,
//! cancellation, and the cleanup of groups left by a killed coreval.

use coreval::runner::cgroup::Measure;
use coreval::runner::{reap_orphans, run, Exit, RunOutcome, RunSpec};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Scheduling slack allowed on top of limit + grace (the test machine is
/// small and shared).
const SLACK: f64 = 0.75;

/// Runs go through coreval's own executable as the trampoline, as the
/// `coreval` binary starts them when `coreval-trampoline` is not beside it
/// (`runner/trampoline.rs`; `tests/measure.rs` uses that one); the direct start is tested by the runner's
/// unit tests and by the library-level campaign tests.
fn through_trampoline() {
    coreval::runner::use_trampoline(env!("CARGO_BIN_EXE_coreval"));
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/fake-solvers")
        .join(name)
}

/// A spec for fixture `name` with the benchmark argument, `limit` seconds of
/// wall time and a 0.5 s grace period.
fn spec(name: &str, limit: f64) -> RunSpec {
    let mut s = RunSpec::new(
        fixture(name),
        vec!["bench.smt2".into()],
        Duration::from_secs_f64(limit),
    );
    s.grace = Duration::from_millis(500);
    s
}

fn sh(script: &str, limit: f64) -> RunSpec {
    RunSpec::new(
        "/bin/sh",
        vec!["-c".into(), script.into()],
        Duration::from_secs_f64(limit),
    )
}

/// Runs `spec` and returns the outcome and the seconds `run` took.
fn timed(spec: &RunSpec) -> (RunOutcome, f64) {
    let t = Instant::now();
    let outcome = run(spec, &AtomicBool::new(false));
    (outcome, t.elapsed().as_secs_f64())
}

/// State (field 3) of a process, `None` when it does not exist.
fn proc_state(pid: i32) -> Option<(char, String)> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let open = text.find('(')?;
    let close = text.rfind(')')?;
    let state = text[close + 1..].trim_start().chars().next()?;
    Some((state, text[open + 1..close].to_string()))
}

/// Live (non-zombie) processes of process group `pgid`.
fn live_members(pgid: i32) -> Vec<i32> {
    let mut live = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|s| s.parse::<i32>().ok())
        else {
            continue;
        };
        let Ok(text) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        let Some(close) = text.rfind(')') else {
            continue;
        };
        let f: Vec<&str> = text[close + 1..].split_whitespace().collect();
        if f.len() > 2 && f[2] == pgid.to_string() && f[0] != "Z" && f[0] != "X" {
            live.push(pid);
        }
    }
    live
}

#[test]
fn well_behaved_solver_answers() {
    through_trampoline();
    let (o, secs) = timed(&spec("unsat-core.sh", 10.0));
    assert_eq!(o.exit, Exit::Exited(0));
    assert_eq!(o.stdout, b"unsat\n(a1 a2)\n");
    assert!(!o.timed_out && !o.cancelled);
    assert_eq!((o.stdout_dropped, o.stderr_dropped), (0, 0));
    assert_eq!(o.memory_limit_by, None);
    assert!(o.wall > 0.0 && o.wall <= secs, "wall {} vs {secs}", o.wall);
    assert!(secs < 2.0, "took {secs}s");
}

#[test]
fn relative_program_path_is_taken_from_our_directory() {
    through_trampoline();
    // Integration tests run in the package root.
    let mut s = spec("unsat-core.sh", 10.0);
    s.program = PathBuf::from("tests/fixtures/fake-solvers/unsat-core.sh");
    let (o, _) = timed(&s);
    assert_eq!(o.exit, Exit::Exited(0), "{:?}", o.exit);
    assert_eq!(o.stdout, b"unsat\n(a1 a2)\n");
}

#[test]
fn absurd_limits_do_not_overflow() {
    through_trampoline();
    let mut s = spec("unsat-core.sh", 1.0);
    s.wall_limit = Duration::MAX;
    s.grace = Duration::MAX;
    let (o, _) = timed(&s);
    assert_eq!(o.exit, Exit::Exited(0));
    assert!(!o.timed_out);
}

#[test]
fn answer_shaped_fixtures_are_captured_verbatim() {
    through_trampoline();
    let cases: [(&str, &[u8]); 5] = [
        (
            "success-lines.sh",
            b"success\nsuccess\nsuccess\nunsat\n(a1 a2)\nsuccess\n",
        ),
        ("two-answers.sh", b"sat\nunsat\n(a1 a2)\n"),
        ("core-before-unsat.sh", b"(a1 a2)\nunsat\n"),
        ("silent.sh", b""),
        (
            "garbage.sh",
            b"\xff\xfegarbage \xc0\x80 \xed\xa0\x80\n\xff\n",
        ),
    ];
    for (name, expected) in cases {
        let (o, secs) = timed(&spec(name, 10.0));
        assert_eq!(o.exit, Exit::Exited(0), "{name}");
        assert_eq!(o.stdout, expected, "{name}");
        assert!(!o.timed_out, "{name}");
        assert!(secs < 2.0, "{name} took {secs}s");
    }
    let (o, _) = timed(&spec("garbage.sh", 10.0));
    assert!(std::str::from_utf8(&o.stdout).is_err());
    assert_eq!(o.stderr, b"\xff not utf-8 either\n");
}

#[test]
fn crash_by_signal_is_reported() {
    through_trampoline();
    let (o, secs) = timed(&spec("crash.sh", 10.0));
    assert_eq!(o.exit, Exit::Signaled(libc::SIGSEGV));
    assert!(o.stdout.is_empty());
    assert!(String::from_utf8_lossy(&o.stderr).contains("about to crash"));
    assert!(!o.timed_out);
    assert!(secs < 2.0, "took {secs}s");
}

#[test]
fn hang_ignoring_sigterm_is_killed_after_grace() {
    through_trampoline();
    let s = spec("hang.sh", 0.5);
    let (o, secs) = timed(&s);
    assert_eq!(o.exit, Exit::Signaled(libc::SIGKILL));
    assert!(o.timed_out && !o.cancelled);
    // SIGTERM at 0.5 s is ignored, SIGKILL at 1.0 s (counted from before
    // the spawn; the wall reported is the solver's own, from its fork).
    assert!((1.0..1.0 + SLACK).contains(&secs), "took {secs}s");
    assert!((0.9..1.0 + SLACK).contains(&o.wall), "wall {}", o.wall);
}

#[test]
fn answer_after_the_limit_is_a_timeout() {
    through_trampoline();
    let mut s = spec("late-answer.sh", 0.5);
    s.grace = Duration::from_secs(2);
    let (o, secs) = timed(&s);
    assert_eq!(o.exit, Exit::Exited(0), "it answers on SIGTERM and exits 0");
    assert_eq!(o.stdout, b"unsat\n(a1 a2)\n");
    assert!(o.timed_out, "the answer came after the limit");
    assert!((0.5..0.5 + SLACK).contains(&secs), "took {secs}s");
}

#[test]
fn grandchild_holding_the_pipe_is_killed_and_does_not_block() {
    through_trampoline();
    let (o, secs) = timed(&spec("grandchild-pipe.sh", 10.0));
    assert_eq!(o.exit, Exit::Exited(0));
    assert_eq!(o.stdout, b"unsat\n(a1 a2)\n");
    assert!(!o.timed_out);
    assert!(secs < 1.5, "took {secs}s");
    let stderr = String::from_utf8_lossy(&o.stderr);
    let pid: i32 = stderr
        .trim()
        .strip_prefix("grandchild ")
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("no pid in {stderr:?}"));
    match proc_state(pid) {
        None => {}
        Some((state, comm)) => assert!(
            comm != "sleep" || state == 'Z',
            "grandchild sleep {pid} still running ({state})"
        ),
    }
}

#[test]
fn grandchild_that_left_the_group_stops_reading_in_bounded_time() {
    through_trampoline();
    let (o, secs) = timed(&spec("escaped-grandchild.sh", 10.0));
    assert_eq!(o.exit, Exit::Exited(0));
    assert_eq!(o.stdout, b"unsat\n(a1 a2)\n");
    // Its sleep holds stdout for 5 s; reading stops 0.1 s after the exit.
    assert!(secs < 1.5, "took {secs}s");
}

#[test]
fn one_gigabyte_flood_is_capped_and_drained() {
    through_trampoline();
    let mut s = spec("flood.sh", 120.0);
    s.output_cap = 1 << 20;
    let (o, secs) = timed(&s);
    assert_eq!(o.exit, Exit::Exited(0));
    assert!(!o.timed_out);
    assert_eq!(o.stdout.len(), 1 << 20);
    assert!(o.stdout.starts_with(b"unsat\nunsat\n"));
    assert_eq!(o.stdout_dropped, (1u64 << 30) - (1 << 20));
    assert!(secs < 30.0, "1 GiB drained in {secs}s");
    eprintln!("flood: 1 GiB in {secs:.2}s");
}

#[test]
fn stderr_is_capped_like_stdout() {
    through_trampoline();
    let mut s = sh("head -c 100000 /dev/zero >&2; echo unsat", 10.0);
    s.output_cap = 1000;
    let (o, _) = timed(&s);
    assert_eq!(o.exit, Exit::Exited(0));
    assert_eq!(o.stdout, b"unsat\n");
    assert_eq!((o.stderr.len(), o.stderr_dropped), (1000, 99_000));
}

#[test]
fn memory_hog_fails_under_the_limit() {
    through_trampoline();
    let mut s = spec("memhog.py", 60.0);
    s.memory_limit = Some(256 << 20);
    let (o, secs) = timed(&s);
    assert_ne!(
        o.exit,
        Exit::Exited(0),
        "stderr: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(matches!(o.exit, Exit::Exited(_) | Exit::Signaled(_)));
    assert!(!String::from_utf8_lossy(&o.stdout).contains("unsat"));
    // Under RLIMIT_AS its allocation fails; in a cgroup the OOM killer
    // ends it at the limit (tests/cgroup.rs compares the two).
    match o.measured_by {
        Measure::Rusage => {
            assert!(String::from_utf8_lossy(&o.stderr).contains("MemoryError"));
            assert_eq!(o.memory_limit_by.as_deref(), Some("rlimit-as"));
        }
        by => {
            assert!(o.memout && o.exit == Exit::Signaled(libc::SIGKILL), "{o:?}");
            assert_eq!(o.memory_limit_by.as_deref(), Some(by.limit_by()));
        }
    }
    assert!(
        o.max_rss > 0 && o.max_rss <= 256 << 20,
        "max_rss {}",
        o.max_rss
    );
    assert!(!o.timed_out);
    assert!(secs < 10.0, "took {secs}s");
}

#[test]
fn program_that_cannot_start_is_an_outcome() {
    through_trampoline();
    let (o, _) = timed(&RunSpec::new(
        fixture("no-such-solver"),
        vec![],
        Duration::from_secs(5),
    ));
    let Exit::FailedToStart(msg) = &o.exit else {
        panic!("{:?}", o.exit)
    };
    assert!(msg.contains("no-such-solver"), "{msg}");

    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join("not-executable.sh");
    std::fs::write(&plain, "#!/bin/sh\necho unsat\n").unwrap();
    let (o, _) = timed(&RunSpec::new(&plain, vec![], Duration::from_secs(5)));
    assert!(matches!(o.exit, Exit::FailedToStart(_)), "{:?}", o.exit);
    assert!(o.stdout.is_empty() && !o.timed_out);
}

#[test]
fn runs_in_a_fresh_directory_with_env_and_null_stdin() {
    through_trampoline();
    // `cat` would block forever on an inherited terminal or pipe.
    let script = "cat; pwd; echo \"$COREVAL_T\"; touch left-behind";
    let mut s = sh(script, 10.0);
    s.env = vec![("COREVAL_T".into(), "xyz".into())];
    let (o, secs) = timed(&s);
    assert_eq!(o.exit, Exit::Exited(0));
    assert!(secs < 2.0);
    let text = String::from_utf8(o.stdout).unwrap();
    let mut lines = text.lines();
    let dir = PathBuf::from(lines.next().unwrap());
    assert_eq!(lines.next(), Some("xyz"));
    let parent = dir.parent().unwrap().file_name().unwrap().to_str().unwrap();
    assert!(parent.starts_with("coreval-work-"), "{}", dir.display());
    assert!(
        !dir.exists(),
        "directory {} left dirty is removed",
        dir.display()
    );

    // Every run starts in an empty directory, also after dirty ones.
    for _ in 0..3 {
        let (o, _) = timed(&sh("ls -A; touch x; pwd", 10.0));
        let text = String::from_utf8(o.stdout).unwrap();
        let dir = PathBuf::from(text.trim());
        assert!(dir.is_absolute(), "only pwd printed: {text:?}");
        assert!(!dir.exists());
    }
    let (o, _) = timed(&sh("ls -A", 10.0));
    assert_eq!(o.stdout, b"");

    let given = tempfile::tempdir().unwrap();
    let mut s = sh(script, 10.0);
    s.workdir = Some(given.path().to_path_buf());
    let (o, _) = timed(&s);
    assert_eq!(o.exit, Exit::Exited(0));
    assert!(given.path().join("left-behind").exists());
}

#[test]
fn cancel_kills_the_group_and_pid_record_lives_only_while_running() {
    through_trampoline();
    let pid_dir = tempfile::tempdir().unwrap();
    let mut s = spec("hang.sh", 60.0);
    s.grace = Duration::from_millis(300);
    s.pid_dir = Some(pid_dir.path().to_path_buf());
    let cancel = AtomicBool::new(false);
    let started = Instant::now();
    let (o, records_while_running) = std::thread::scope(|scope| {
        let runner = scope.spawn(|| run(&s, &cancel));
        std::thread::sleep(Duration::from_millis(300));
        let records = std::fs::read_dir(pid_dir.path()).unwrap().count();
        cancel.store(true, Ordering::Relaxed);
        (runner.join().unwrap(), records)
    });
    let secs = started.elapsed().as_secs_f64();
    assert_eq!(records_while_running, 1);
    assert_eq!(std::fs::read_dir(pid_dir.path()).unwrap().count(), 0);
    assert!(o.cancelled && !o.timed_out);
    assert_eq!(
        o.exit,
        Exit::Signaled(libc::SIGKILL),
        "hang.sh ignores SIGTERM"
    );
    assert!((0.6..0.6 + SLACK).contains(&secs), "took {secs}s");

    let (o, _) = {
        let t = Instant::now();
        (run(&s, &AtomicBool::new(true)), t.elapsed())
    };
    assert!(o.cancelled && matches!(o.exit, Exit::FailedToStart(_)));
}

/// Not a test: the process that `reap_orphans_kills_groups_of_a_killed_coreval`
/// starts (this test binary again) and then kills, leaving a solver behind.
#[test]
#[ignore = "helper process of reap_orphans_kills_groups_of_a_killed_coreval"]
fn helper_coreval_that_gets_killed() {
    through_trampoline();
    let Some(dir) = std::env::var_os("COREVAL_TEST_PID_DIR") else {
        return;
    };
    let mut s = spec("hang.sh", 600.0);
    s.pid_dir = Some(dir.into());
    run(&s, &AtomicBool::new(false));
}

#[test]
fn reap_orphans_kills_groups_of_a_killed_coreval() {
    through_trampoline();
    let pid_dir = tempfile::tempdir().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let mut helper = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "helper_coreval_that_gets_killed", "--ignored"])
        .args(["--nocapture", "--test-threads=1"])
        .env("COREVAL_TEST_PID_DIR", pid_dir.path())
        // Its working-directory pool dies with it: keep it in our temp dir.
        .env("TMPDIR", tmp.path())
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let waited = Instant::now();
    // The slot's record file holds the group id first (blanks between
    // runs).
    let pgid = loop {
        let records: Vec<String> = std::fs::read_dir(pid_dir.path())
            .unwrap()
            .flatten()
            .filter_map(|e| std::fs::read_to_string(e.path()).ok())
            .collect();
        if let [record] = records.as_slice() {
            if let Some(pgid) = record.split_whitespace().next() {
                break pgid.parse::<i32>().unwrap();
            }
        }
        assert!(waited.elapsed() < Duration::from_secs(20), "no pid record");
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(!live_members(pgid).is_empty());
    assert_eq!(reap_orphans(pid_dir.path()), 0, "its coreval is alive");
    assert_eq!(std::fs::read_dir(pid_dir.path()).unwrap().count(), 1);

    helper.kill().unwrap();
    helper.wait().unwrap();
    assert!(
        !live_members(pgid).is_empty(),
        "the solver outlived coreval"
    );
    assert_eq!(reap_orphans(pid_dir.path()), 1);
    assert_eq!(std::fs::read_dir(pid_dir.path()).unwrap().count(), 0);
    let killed = Instant::now();
    while !live_members(pgid).is_empty() {
        assert!(killed.elapsed() < Duration::from_secs(5), "group survived");
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(reap_orphans(pid_dir.path()), 0);
}

/// The interpreter behind `python3`, so that a version-manager shim (a bash
/// script) does not add its own CPU time to the measurement.
fn real_python() -> String {
    let out = std::process::Command::new("python3")
        .args(["-c", "import sys; print(sys.executable)"])
        .output()
        .expect("python3 is needed for the CPU tests");
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

#[test]
fn cpu_time_of_process_trees_is_exact_in_parallel() {
    through_trampoline();
    let python = real_python();
    let secs_each = 1.0;
    let expected = 2.0 * secs_each; // two busy loops per run
    for round in 0..2 {
        let runs = ["wait", "orphan"].map(|mode| {
            let mut s = spec("cpu-tree.sh", 120.0);
            s.args.push(mode.into());
            s.args.push(secs_each.to_string());
            s.env.push(("PYTHON".into(), python.clone()));
            (mode, s)
        });
        let outcomes: Vec<(&str, RunOutcome)> = std::thread::scope(|scope| {
            let handles: Vec<_> = runs
                .iter()
                .map(|(mode, s)| (*mode, scope.spawn(|| timed(s).0)))
                .collect();
            handles
                .into_iter()
                .map(|(m, h)| (m, h.join().unwrap()))
                .collect()
        });
        for (mode, o) in outcomes {
            assert_eq!(o.exit, Exit::Exited(0), "{mode}: {:?}", o);
            assert_eq!(o.stdout, b"unsat\n(a1 a2)\n", "{mode}");
            let error = (o.cpu - expected).abs() / expected;
            eprintln!(
                "round {round} {mode}: cpu {:.3}s (user {:.3} sys {:.3}) wall {:.2}s",
                o.cpu, o.user, o.sys, o.wall
            );
            assert!(
                error < 0.10,
                "{mode}: cpu {:.3}s, expected {expected}s",
                o.cpu
            );
            assert!((o.user + o.sys - o.cpu).abs() < 1e-9);
        }
    }
}

/// `scancel` (or a service stop) sends SIGTERM to every process of the job:
/// the solver may die of it before coreval's handler raises `cancel`. The
/// run is then cancelled (not recorded, run again on resume), not a crash.
#[test]
fn external_sigterm_followed_by_a_stop_is_a_cancel() {
    through_trampoline();
    let s = sh("echo unsat; kill -TERM $$; sleep 5", 10.0);
    let cancel = AtomicBool::new(false);
    let o = std::thread::scope(|scope| {
        let runner = scope.spawn(|| run(&s, &cancel));
        std::thread::sleep(Duration::from_millis(300));
        cancel.store(true, Ordering::SeqCst);
        runner.join().unwrap()
    });
    assert_eq!(o.exit, Exit::Signaled(libc::SIGTERM));
    assert!(o.cancelled && !o.timed_out);
}

/// Without a stop of coreval, a solver killed by its own SIGTERM is its own
/// outcome and is recorded (after waiting a second for a stop).
#[test]
fn sigterm_without_a_stop_is_the_solvers_own_outcome() {
    through_trampoline();
    let (o, secs) = timed(&sh("kill -TERM $$; sleep 5", 10.0));
    assert_eq!(o.exit, Exit::Signaled(libc::SIGTERM));
    assert!(!o.cancelled && !o.timed_out);
    assert!((1.0..1.0 + SLACK).contains(&secs), "took {secs}s");
    let (o, secs) = timed(&sh("kill -SEGV $$", 10.0));
    assert_eq!(o.exit, Exit::Signaled(libc::SIGSEGV));
    assert!(
        !o.cancelled && secs < SLACK,
        "a crash is not waited on: {secs}s"
    );
}

#[test]
fn child_starts_with_default_signals_its_own_group_and_a_path_lookup() {
    through_trampoline();
    // A bare name is looked up in PATH (the run's own PATH when it sets one);
    // the child blocks no signal and does not inherit the ignored SIGPIPE of
    // the Rust runtime; it runs in a process group of its own.
    let mut s = RunSpec::new(
        "cat",
        vec!["/proc/self/status".into(), "/proc/self/stat".into()],
        Duration::from_secs(10),
    );
    s.env = vec![("PATH".into(), "/nonexistent:/bin:/usr/bin".into())];
    let (o, _) = timed(&s);
    assert_eq!(o.exit, Exit::Exited(0), "{o:?}");
    let text = String::from_utf8(o.stdout).unwrap();
    let field = |name: &str| {
        let line = text.lines().find(|l| l.starts_with(name)).unwrap();
        u64::from_str_radix(line.split_whitespace().nth(1).unwrap(), 16).unwrap()
    };
    assert_eq!(field("SigBlk:"), 0, "no signal blocked");
    assert_eq!(
        field("SigIgn:") & (1 << (libc::SIGPIPE - 1)),
        0,
        "SIGPIPE not ignored"
    );
    let stat = text.lines().last().unwrap();
    let after = &stat[stat.rfind(')').unwrap() + 2..];
    let f: Vec<&str> = after.split_whitespace().collect();
    let pid: &str = stat.split_whitespace().next().unwrap();
    // Field 5, the group: the run's own, not ours, led by the solver when
    // the slot's zygote forked it (`runner/zygote.rs`), or by the
    // trampoline (its parent, field 4) when that was executed for the run.
    assert!(f[2] == pid || f[2] == f[1], "the run leads its own group");
    // SAFETY: getpgrp cannot fail and touches no memory.
    assert_ne!(f[2], unsafe { libc::getpgrp() }.to_string());

    let missing = RunSpec::new("no-such-program-xyz", vec![], Duration::from_secs(10));
    let (o, _) = timed(&missing);
    assert!(
        matches!(&o.exit, Exit::FailedToStart(m) if m.contains("No such file")),
        "{:?}",
        o.exit
    );
}

/// Instant runs in a row through each job slot's zygote
/// (`runner/zygote.rs`), more slots than cores so that a run often ends
/// before its runner has read that it started: each run starts once and is
/// measured — its status and its own peak.
#[test]
fn instant_runs_in_a_row_start_once_and_are_measured() {
    through_trampoline();
    let dir = tempfile::tempdir().unwrap();
    let (slots, runs) = (8, 60);
    std::thread::scope(|s| {
        for slot in 0..slots {
            let log = dir.path().join(format!("starts-{slot}"));
            s.spawn(move || {
                for k in 0..runs {
                    let script = format!("echo {k} >> '{}'; exit 3", log.display());
                    let (o, _) = timed(&sh(&script, 10.0));
                    assert_eq!(o.exit, Exit::Exited(3), "slot {slot} run {k}: {o:?}");
                    assert!(!o.timed_out && !o.cancelled, "slot {slot} run {k}: {o:?}");
                    assert!(o.max_rss > 0 && o.max_rss < 64 << 20, "run {k}: {o:?}");
                }
                let starts = std::fs::read_to_string(&log).unwrap();
                let expected: String = (0..runs).map(|k| format!("{k}\n")).collect();
                assert_eq!(starts, expected, "slot {slot}");
            });
        }
    });
}
