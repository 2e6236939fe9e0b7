//! Measurements of the solver alone by rusage (`COREVAL_CGROUP=off`, the
//! path of machines without cgroups; `tests/cgroup.rs` has the cgroup
//! one): runs go through the trampoline
//! executable `coreval-trampoline` (as the `coreval` binary starts them when
//! it is installed beside it; `tests/runner.rs` uses coreval's own
//! executable, the fallback) and record the solver's own peak memory,
//! within 10 % of what `/usr/bin/time -f %M` says for the same command, and
//! leave no process behind, daemons that left the group with `setsid`
//! included.

mod common;

use common::procs::{daemon_pids, pid_alive};
use coreval::runner::{run, use_trampoline, Exit, RunOutcome, RunSpec};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/fake-solvers")
        .join(name)
}

/// This test process measures by rusage: set before its first run, and
/// the same in every test of it.
fn rusage() {
    std::env::set_var(coreval::runner::cgroup::SWITCH, "off");
}

fn run_through_trampoline(program: &Path, args: &[String]) -> RunOutcome {
    rusage();
    use_trampoline(env!("CARGO_BIN_EXE_coreval-trampoline"));
    let spec = RunSpec::new(program, args.to_vec(), Duration::from_secs(60));
    run(&spec, &AtomicBool::new(false))
}

/// `/usr/bin/time -f %M` of the same command, in bytes.
fn time_max_rss(program: &Path, args: &[String]) -> u64 {
    let out = Command::new("/usr/bin/time")
        .args(["-f", "%M"])
        .arg(program)
        .args(args)
        .output()
        .expect("/usr/bin/time (Debian package `time`, checkers/install.sh --dev)");
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8_lossy(&out.stderr);
    let kib: u64 = text.trim().lines().last().unwrap().trim().parse().unwrap();
    kib * 1024
}

/// Runs of each side compared: one run of the same shell script peaks
/// anywhere in a ±7 % band (how the pipe's chunks reach the shell varies with
/// timing: `/usr/bin/time -f %M rss.sh 700000` ranged 2804–3168 KiB over 20
/// runs), so single samples differ by more than the tolerance on their own.
const SAMPLES: usize = 7;

fn median(mut xs: Vec<u64>) -> u64 {
    xs.sort_unstable();
    xs[xs.len() / 2]
}

/// Our `max_rss` and `/usr/bin/time`'s for `program ARGS` (medians of
/// [`SAMPLES`] interleaved runs each), asserted within 10 % of each other;
/// returns ours.
fn assert_like_time(program: &Path, args: &[String]) -> u64 {
    let (mut ours, mut theirs) = (Vec::new(), Vec::new());
    for _ in 0..SAMPLES {
        let o = run_through_trampoline(program, args);
        assert_eq!(o.exit, Exit::Exited(0), "{o:?}");
        assert_eq!(o.measured_by, coreval::runner::cgroup::Measure::Rusage);
        ours.push(o.max_rss);
        theirs.push(time_max_rss(program, args));
    }
    let (ours_all, theirs_all) = (ours.clone(), theirs.clone());
    let (ours, theirs) = (median(ours), median(theirs));
    let ratio = ours as f64 / theirs as f64;
    assert!(
        (0.9..=1.1).contains(&ratio),
        "{} {args:?}: median max_rss {ours} vs /usr/bin/time {theirs} ({ratio:.3}); \
         ours {ours_all:?}, theirs {theirs_all:?}",
        program.display()
    );
    ours
}

#[test]
fn max_rss_of_a_3_mb_and_a_200_mb_program_is_what_time_says() {
    let small = assert_like_time(&fixture("rss.sh"), &["700000".into()]);
    assert!((2 << 20..5 << 20).contains(&small), "{small}");
    let large = assert_like_time(&fixture("rss.sh"), &["100000000".into()]);
    assert!((150 << 20..260 << 20).contains(&large), "{large}");
}

#[test]
fn a_solver_that_only_exits_is_not_charged_corevals_memory() {
    // coreval (this test binary) holds far more than `true` ever does. The
    // solver starts from a copy of the trampoline's memory (the slot's
    // `coreval-trampoline`, about 1.3 MB, docs/reliability.md), where
    // `/usr/bin/time`'s child starts from its ~1 MB: below that, the two
    // differ by that floor.
    let hog = std::hint::black_box(vec![1u8; 64 << 20]);
    let o = run_through_trampoline(Path::new("/bin/true"), &[]);
    assert_eq!(o.exit, Exit::Exited(0));
    assert!(o.max_rss < 2 << 20, "{}", o.max_rss);
    drop(hog);
}

#[test]
fn the_trampoline_passes_exit_codes_signals_and_start_failures() {
    let sh =
        |script: &str| run_through_trampoline(Path::new("/bin/sh"), &["-c".into(), script.into()]);
    assert_eq!(sh("exit 3").exit, Exit::Exited(3));
    assert_eq!(sh("kill -SEGV $$").exit, Exit::Signaled(libc::SIGSEGV));
    let o = run_through_trampoline(&fixture("no-such-solver"), &[]);
    let Exit::FailedToStart(msg) = &o.exit else {
        panic!("{:?}", o.exit)
    };
    assert!(msg.contains("no-such-solver"), "{msg}");
    for bad in ["no-shebang.sh", "bad-interpreter.sh"] {
        let o = run_through_trampoline(&fixture(bad), &[]);
        assert!(matches!(o.exit, Exit::FailedToStart(_)), "{bad}: {o:?}");
    }
    // A bare name is looked up in PATH, as without the trampoline.
    let o = run_through_trampoline(Path::new("echo"), &["unsat".into()]);
    assert_eq!((o.exit, o.stdout), (Exit::Exited(0), b"unsat\n".to_vec()));
}

#[test]
fn a_setsid_daemon_of_a_solver_does_not_survive_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let arg = dir.path().to_string_lossy().into_owned();
    let o = run_through_trampoline(&fixture("setsid-daemon.sh"), &[arg]);
    assert_eq!((o.exit, o.stdout), (Exit::Exited(0), b"unsat\n".to_vec()));
    let pids = daemon_pids(dir.path());
    assert_eq!(pids.len(), 1, "{pids:?}");
    assert!(!pid_alive(pids[0]), "daemon {} outlived the run", pids[0]);
}

#[test]
fn bytes_dropped_from_a_flood_are_counted() {
    use_trampoline(env!("CARGO_BIN_EXE_coreval-trampoline"));
    let mut spec = RunSpec::new(
        "/bin/sh",
        vec!["-c".into(), "echo unsat; head -c 1000000 /dev/zero".into()],
        Duration::from_secs(60),
    );
    spec.output_cap = 1000;
    rusage();
    let o = run(&spec, &AtomicBool::new(false));
    assert_eq!(o.stdout.len(), 1000);
    assert_eq!(o.stdout_dropped, 1_000_006 - 1000);
}

#[test]
fn solvers_keep_the_huge_page_setting_coreval_turned_off_for_itself() {
    common::procs::assert_solvers_keep_thp(|script| {
        run_through_trampoline(Path::new("/bin/sh"), &["-c".into(), script.into()])
    });
}
