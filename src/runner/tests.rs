//! The runner's own tests: a start failure is not a cancellation, and the
//! fallback without pidfd (kernels before 5.3), on the same fixtures as
//! `tests/runner.rs`, exit noticed by `waitid(WNOWAIT)` polls (runs then
//! start the trampoline executable: the zygote needs no pidfd).
use super::*;
use std::cell::Cell;

thread_local! {
    pub(super) static NO_PIDFD: Cell<bool> = const { Cell::new(false) };
}

#[test]
fn a_run_cancelled_before_it_starts_is_no_start_failure() {
    let spec = RunSpec::new("/bin/true", vec![], Duration::from_secs(5));
    let out = run(&spec, &std::sync::atomic::AtomicBool::new(true));
    assert!(out.cancelled && matches!(out.exit, Exit::FailedToStart(_)));
    assert_eq!(out.start_failure(), None);
    let missing = RunSpec::new(
        "/nonexistent/coreval-no-such-solver",
        vec![],
        Duration::from_secs(5),
    );
    let out = run(&missing, &std::sync::atomic::AtomicBool::new(false));
    assert!(!out.cancelled);
    assert!(out.start_failure().is_some(), "{:?}", out.exit);
}

fn run_without_pidfd(name: &str, limit: f64) -> (RunOutcome, f64) {
    let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/fake-solvers")
        .join(name);
    let mut spec = RunSpec::new(
        fixture,
        vec!["b.smt2".into()],
        Duration::from_secs_f64(limit),
    );
    spec.grace = Duration::from_millis(300);
    NO_PIDFD.with(|no| no.set(true));
    let t = Instant::now();
    let outcome = run(&spec, &AtomicBool::new(false));
    NO_PIDFD.with(|no| no.set(false));
    (outcome, t.elapsed().as_secs_f64())
}

#[test]
fn without_pidfd_answers_are_collected() {
    let (o, secs) = run_without_pidfd("grandchild-pipe.sh", 10.0);
    assert_eq!(o.exit, Exit::Exited(0));
    assert_eq!(o.stdout, b"unsat\n(a1 a2)\n");
    assert!(!o.timed_out && secs < 1.5, "took {secs}s");
}

#[test]
fn without_pidfd_hangs_are_killed() {
    let (o, secs) = run_without_pidfd("hang.sh", 0.3);
    assert_eq!(o.exit, Exit::Signaled(libc::SIGKILL));
    assert!(o.timed_out);
    assert!((0.6..1.4).contains(&secs), "took {secs}s");
}
