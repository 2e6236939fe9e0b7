//! The process runner: the only part of coreval that starts processes.
//!
//! [`run`] starts one solver or checker command and turns whatever it does
//! into a [`RunOutcome`] — a crash, a hang, a flood of output, an answer
//! after the limit are data, never a panic or an `Err`. Each run gets stdin
//! from /dev/null, its own process group and an empty working directory of
//! its own (pooled, `workdir.rs`). At the wall-clock limit (or when `cancel`
//! becomes true) the whole group gets SIGTERM, then SIGKILL after the grace
//! period; when the direct child ends by itself, remaining members of its
//! group are killed too, so no grandchild keeps running (or keeps a pipe
//! open) behind a finished run.
//!
//! CPU time is that of the whole process tree, taken from `wait4`, which is
//! exact per child even with many runs in parallel threads (differences of
//! `getrusage(RUSAGE_CHILDREN)` are not: they mix all threads' children).
//! A process's `wait4` usage includes only descendants it waited for itself;
//! grandchildren orphaned by their parent would be re-parented to init and
//! their CPU time lost. coreval therefore makes itself a child subreaper
//! (`PR_SET_CHILD_SUBREAPER`): orphans of a run become children of coreval,
//! stay in the run's process group, and are reaped with `wait4(-pgid)` after
//! the leader, their usage added. Waits name one pid or one group only, so
//! parallel runs cannot steal each other's children. Peak memory is the
//! largest `ru_maxrss` among reaped processes.
//!
//! With [`use_trampoline`] (the `coreval` binary sets it), runs go through
//! a trampoline (`trampoline.rs`) that starts the solver: a child started
//! from coreval's memory would carry coreval's peak resident set in its
//! `ru_maxrss`. The trampoline is the run's subreaper (daemons that leave
//! the group are its children, killed and reaped when the solver ends) and
//! reports the solver's status and the usage of its whole tree; its own
//! usage is not counted. Each job slot keeps one (`zygote.rs`), which starts
//! every run's solver; without it, a trampoline executable is started per
//! run and leads the run's group.
//!
//! The `wait-timeout` crate is not used: it waits through `Child::try_wait`,
//! which reaps the child with `waitpid` and discards its resource usage, so
//! neither the child's nor its descendants' CPU time could be recovered.
//!
//! One thread supervises each run with a `poll` loop over the two output
//! pipes and the zygote's socket (its answer is the run's end), or a pidfd
//! of our own child (`pidfd_open`; without it, short growing polls of
//! `waitid(WNOWAIT)`), instead of reader and waiter threads: no threads are
//! created per run, and the child's exit is noticed before it is reaped, so
//! its pid — and the process-group id — stay reserved until the group has
//! been killed, which rules out signalling a recycled group id (the
//! zygote's window: `zygote.rs`). Output is
//! capped per stream (`capture.rs`); after the group is dead, reading stops
//! at end of file or after [`DRAIN_AFTER_EXIT`] (a process that left the
//! group may hold the pipe open forever).
//!
//! Children are started with `clone(CLONE_VM | CLONE_VFORK)` and `execve`
//! (`spawn.rs`), not `fork`: nothing of coreval's memory is copied, so the
//! cost of a spawn does not grow with coreval's threads and heap (with
//! `fork` the system time per run grew with the number of parallel jobs).
//!
//! Where a cgroup can be made (`cgroup/`), the memory limit is the job
//! slot's group's, on the memory charged to the whole tree; peak memory,
//! CPU time and memouts are the group's counters, and what is left in the
//! group at the end is killed. Otherwise the memory limit is RLIMIT_AS,
//! set between clone and exec: it bounds virtual memory, so runtimes that
//! reserve large address ranges (JVM, Go) need a generous value.
//! [`RunOutcome::measured_by`] says which.
//!
//! A killed coreval (SIGKILL) leaves nothing running for long: the kernel
//! kills each direct child with it (`PR_SET_PDEATHSIG`), and with a
//! `pid_dir`, a record per live group lets a later coreval kill the rest of
//! the groups left behind ([`reap_orphans`], `pidfile.rs`). A descendant
//! that left the group (`setsid`) and was re-parented to coreval itself
//! (no trampoline, or one killed by SIGKILL) is killed and reaped after the
//! run, its usage not counted ([`reap::kill_strays`]). Known gaps:
//! descendants of a parent that ignores SIGCHLD are auto-reaped by the
//! kernel with their usage lost; a process stuck in uninterruptible sleep
//! delays the outcome until SIGKILL takes effect.

mod capture;
pub mod cgroup;
mod entry;
mod observe;
mod pidfile;
mod process;
mod reap;
mod spawn;
mod trampoline;
mod workdir;
mod zygote;

pub use entry::{binary_main as trampoline_binary_main, main_if_asked as trampoline_main};
pub use pidfile::{reap_orphans, remove_slot_files};
pub use trampoline::{sibling_or_self as trampoline_for, use_trampoline};

use capture::Capture;
use process::{later, poll_once};
use reap::Usage;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use workdir::WorkDir;

/// Default grace period between SIGTERM and SIGKILL.
pub const DEFAULT_GRACE: Duration = Duration::from_secs(1);
/// Default number of bytes kept per output stream (16 MiB: a core of tens
/// of thousands of names fits with room to spare).
pub const DEFAULT_OUTPUT_CAP: usize = 16 << 20;
/// How long output is still read once the run's group is dead.
pub const DRAIN_AFTER_EXIT: Duration = Duration::from_millis(100);
/// How often `cancel` is looked at while nothing else happens.
const CANCEL_TICK: Duration = Duration::from_millis(20);
/// How long a run killed by a stop signal that the runner did not send
/// waits for `cancel` (see [`external_stop`]).
const EXTERNAL_STOP_WAIT: Duration = Duration::from_secs(1);
/// How long to wait for killed group members to be reapable.
const REAP_BOUND: Duration = Duration::from_secs(2);
/// Read buffer per run; grown to [`FLOOD_BUF`] for a flooding stream.
const READ_BUF: usize = 64 << 10;
const FLOOD_BUF: usize = 1 << 20;

/// What to run and under which limits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunSpec {
    /// The program: a path (a relative one is taken from coreval's working
    /// directory), or a bare name looked up in `PATH`.
    pub program: PathBuf,
    /// Its arguments (without the program itself). They are not rewritten:
    /// relative file paths would be read from the run's working directory,
    /// so pass absolute ones.
    pub args: Vec<String>,
    /// Variables added to (or replacing in) the inherited environment.
    pub env: Vec<(String, String)>,
    /// Working directory; `None`: an empty temporary directory of its own,
    /// emptied or removed after the run (`workdir.rs`).
    pub workdir: Option<PathBuf>,
    /// Wall-clock limit, after which the group gets SIGTERM.
    pub wall_limit: Duration,
    /// Time between SIGTERM and SIGKILL.
    pub grace: Duration,
    /// Address-space limit in bytes (RLIMIT_AS).
    pub memory_limit: Option<u64>,
    /// Bytes kept per output stream; the rest is counted and discarded.
    pub output_cap: usize,
    /// Directory for the records of live process groups ([`reap_orphans`]).
    pub pid_dir: Option<PathBuf>,
    /// Record the programs the process tree runs ([`RunOutcome::programs`]).
    pub observe: bool,
}

impl RunSpec {
    /// A spec with the defaults: empty temporary directory, inherited
    /// environment, [`DEFAULT_GRACE`], [`DEFAULT_OUTPUT_CAP`], no memory
    /// limit, no pid directory.
    pub fn new(program: impl Into<PathBuf>, args: Vec<String>, wall_limit: Duration) -> RunSpec {
        RunSpec {
            program: program.into(),
            args,
            env: Vec::new(),
            workdir: None,
            wall_limit,
            grace: DEFAULT_GRACE,
            memory_limit: None,
            output_cap: DEFAULT_OUTPUT_CAP,
            pid_dir: None,
            observe: false,
        }
    }
}

/// How the direct child ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Exit {
    /// Exited with this code.
    Exited(i32),
    /// Killed by this signal (ours at a timeout, or its own crash).
    Signaled(i32),
    /// Never ran: program missing or not executable, working directory
    /// unusable, or the run was cancelled before it started.
    FailedToStart(String),
}

impl Exit {
    /// The exit code; `None` for a signal (or a run that never started).
    pub fn code(&self) -> Option<i32> {
        match self {
            Exit::Exited(c) => Some(*c),
            _ => None,
        }
    }
}

impl fmt::Display for Exit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Exit::Exited(code) => write!(f, "exit code {code}"),
            Exit::Signaled(sig) => write!(f, "killed by signal {sig}"),
            Exit::FailedToStart(msg) => write!(f, "failed to start: {msg}"),
        }
    }
}

/// Everything observed about one run.
#[derive(Clone, Debug, PartialEq)]
pub struct RunOutcome {
    /// How the direct child ended.
    pub exit: Exit,
    /// The wall-clock limit passed before the child ended (any output is
    /// then a late answer, worth nothing).
    pub timed_out: bool,
    /// `cancel` became true before the child ended, and the group was
    /// killed.
    pub cancelled: bool,
    /// Seconds from start until the direct child ended.
    pub wall: f64,
    /// `user + sys`: CPU seconds of the whole process tree.
    pub cpu: f64,
    /// User CPU seconds of the tree.
    pub user: f64,
    /// System CPU seconds of the tree.
    pub sys: f64,
    /// Largest resident set size of any process of the tree, bytes.
    pub max_rss: u64,
    /// The first `output_cap` bytes of stdout.
    pub stdout: Vec<u8>,
    /// The first `output_cap` bytes of stderr.
    pub stderr: Vec<u8>,
    /// Bytes of stdout read beyond the cap and discarded.
    pub stdout_dropped: u64,
    /// Bytes of stderr read beyond the cap and discarded.
    pub stderr_dropped: u64,
    /// How the memory limit was enforced (`"rlimit-as"`, `"cgroup-v1"`,
    /// `"cgroup-v2"`), `None` without one.
    pub memory_limit_by: Option<String>,
    /// How the run was limited and measured (`cgroup/`).
    pub measured_by: cgroup::Measure,
    /// The run's cgroup saw the OOM killer kill one of its processes (a
    /// memout; always false when measured by rusage).
    pub memout: bool,
    /// When [`run`] was called and when it returned (working directory,
    /// spawn, supervision, reaping and output included): Unix seconds.
    pub start: f64,
    pub end: f64,
    /// With [`RunSpec::observe`]: the programs (`/proc/PID/exe`) seen
    /// running in the process tree, sorted (`observe.rs`; a child that
    /// lived between two looks is missed).
    pub programs: Vec<PathBuf>,
}

impl RunOutcome {
    /// Why the program could not be started; `None` when it started, or
    /// when it was cancelled before it could (an early stop is not a
    /// failure of the program).
    pub fn start_failure(&self) -> Option<&str> {
        match &self.exit {
            Exit::FailedToStart(why) if !self.cancelled => Some(why),
            _ => None,
        }
    }

    fn failed_to_start(msg: String, cancelled: bool) -> RunOutcome {
        RunOutcome {
            exit: Exit::FailedToStart(msg),
            timed_out: false,
            cancelled,
            wall: 0.0,
            cpu: 0.0,
            user: 0.0,
            sys: 0.0,
            max_rss: 0,
            stdout: Vec::new(),
            stderr: Vec::new(),
            stdout_dropped: 0,
            stderr_dropped: 0,
            memory_limit_by: None,
            measured_by: cgroup::Measure::Rusage,
            memout: false,
            start: 0.0,
            end: 0.0,
            programs: Vec::new(),
        }
    }
}

/// Now, in Unix seconds.
fn unix_now() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

/// Run a short auxiliary command (a version probe, a cluster client) with
/// the default guards and a wall-clock limit; never cancelled.
pub fn run_short(program: impl Into<PathBuf>, args: Vec<String>, limit: Duration) -> RunOutcome {
    run(&RunSpec::new(program, args, limit), &AtomicBool::new(false))
}

/// Runs `spec` to completion, a limit, or cancellation. Never panics, never
/// fails: every fault of the program is described in the outcome. When
/// `cancel` is already true nothing is started.
pub fn run(spec: &RunSpec, cancel: &AtomicBool) -> RunOutcome {
    let start = unix_now();
    let mut outcome = run_timed(spec, cancel);
    (outcome.start, outcome.end) = (start, unix_now().max(start));
    outcome
}

fn run_timed(spec: &RunSpec, cancel: &AtomicBool) -> RunOutcome {
    if cancel.load(Ordering::Relaxed) {
        return RunOutcome::failed_to_start("cancelled before start".into(), true);
    }
    process::become_subreaper();
    let mut leased = None;
    let workdir = match &spec.workdir {
        Some(dir) => dir.as_path(),
        None => match WorkDir::lease() {
            Ok(dir) => leased.insert(dir).path(),
            Err(e) => {
                let msg = format!("cannot create a working directory: {e}");
                return RunOutcome::failed_to_start(msg, false);
            }
        },
    };
    let started = Instant::now();
    let outcome = match process::spawn(spec, workdir) {
        Ok(child) => {
            let record = spec
                .pid_dir
                .as_deref()
                .and_then(|dir| pidfile::PidFile::create(dir, child.pid));
            let outcome = supervise(spec, workdir, cancel, child, started);
            if let Some(record) = record {
                record.remove();
            }
            outcome
        }
        Err(e) => RunOutcome::failed_to_start(cannot_run(spec, workdir, &e), false),
    };
    if let Some(dir) = leased {
        dir.release();
    }
    outcome
}

/// Why `spec` did not start.
fn cannot_run(spec: &RunSpec, workdir: &std::path::Path, e: &std::io::Error) -> String {
    format!(
        "cannot run {} in {}: {e}",
        spec.program.display(),
        workdir.display()
    )
}

/// Where a run is in the stop sequence.
#[derive(Clone, Copy, PartialEq)]
enum Stop {
    Running,
    /// SIGTERM sent; SIGKILL due at this instant.
    Terminating(Instant),
    /// SIGKILL sent at this instant.
    Killed(Instant),
}

/// True when the child died of SIGTERM, SIGINT or SIGHUP that the runner did
/// not send and `cancel` becomes true within [`EXTERNAL_STOP_WAIT`]: the
/// signal was meant for the whole job (`scancel`, a service stop, a shell
/// killing its process tree), which reaches the solver before coreval's own
/// handler raises `cancel`. Such a run is cancelled, not a crash of the
/// solver, so it is not recorded and runs again on resume. Without a stop
/// of coreval the signal is the solver's own outcome (it killed itself).
fn external_stop(exit: &Exit, cancel: &AtomicBool) -> bool {
    if !matches!(
        exit,
        Exit::Signaled(libc::SIGTERM | libc::SIGINT | libc::SIGHUP)
    ) {
        return false;
    }
    let until = Instant::now() + EXTERNAL_STOP_WAIT;
    loop {
        if cancel.load(Ordering::SeqCst) {
            return true;
        }
        if Instant::now() >= until {
            return false;
        }
        std::thread::sleep(CANCEL_TICK / 4);
    }
}

fn supervise(
    spec: &RunSpec,
    workdir: &std::path::Path,
    cancel: &AtomicBool,
    child: process::Spawned,
    started: Instant,
) -> RunOutcome {
    let (pid, zygote) = (child.pid, child.zygote);
    let (report, measure) = (child.report, child.measure);
    let pidfd = child.pidfd.as_ref().map(std::os::fd::AsRawFd::as_raw_fd);
    #[cfg(test)]
    let pidfd = pidfd.filter(|_| !tests::NO_PIDFD.with(|no| no.get()));
    // Readable at the run's end: the zygote's socket (its answer), or the
    // pidfd of our own child.
    let ended = match zygote {
        Some(_) => zygote::socket(),
        None => pidfd,
    };
    let mut out = Capture::new(child.stdout, spec.output_cap);
    let mut err = Capture::new(child.stderr, spec.output_cap);
    let mut buf = vec![0u8; READ_BUF];
    let deadline = later(started, spec.wall_limit);
    let (mut timed_out, mut cancelled) = (false, false);
    let mut stop = Stop::Running;
    let mut no_pidfd_tick = Duration::from_millis(1);
    let mut observer = spec.observe.then(|| observe::Observer::new(zygote));
    if let Some(o) = observer.as_mut() {
        o.sample(pid, true);
    }

    let exited_at = loop {
        let now = Instant::now();
        if stop == Stop::Running {
            cancelled = cancel.load(Ordering::Relaxed);
            timed_out = !cancelled && now >= deadline;
            if cancelled || timed_out {
                process::signal_group(pid, libc::SIGTERM);
                stop = Stop::Terminating(later(now, spec.grace));
            }
        }
        if let Stop::Terminating(kill_at) = stop {
            if now >= kill_at {
                process::signal_group(pid, libc::SIGKILL);
                stop = Stop::Killed(now);
            }
        }
        give_up_on_zygote(stop, zygote, now);
        let mut wake = match stop {
            Stop::Running => deadline.min(now + CANCEL_TICK),
            Stop::Terminating(kill_at) => kill_at,
            Stop::Killed(_) => now + CANCEL_TICK,
        };
        if let Some(o) = observer.as_mut() {
            o.sample(pid, false);
            wake = wake.min(now + observe::SAMPLE);
        }
        if ended.is_none() {
            wake = wake.min(now + no_pidfd_tick);
            no_pidfd_tick = (no_pidfd_tick * 2).min(CANCEL_TICK);
        }
        let fds = [out.raw_fd(), err.raw_fd(), ended];
        let (ready, exited) = poll_once(&fds, wake.saturating_duration_since(now));
        read_ready(ready, [&mut out, &mut err], &mut buf);
        if exited || (ended.is_none() && process::has_exited(pid)) {
            break Instant::now();
        }
    };

    // Our own child is a zombie and still holds the group id: kill
    // stragglers, then reap the leader and everything left in its group (a
    // zygote has done so before it answered).
    if let Some(o) = observer.as_mut() {
        o.sample(pid, true);
    }
    if zygote.is_none() {
        process::signal_group(pid, libc::SIGKILL);
    }
    let reaped = process::reap_leader(pid, zygote.is_some());
    let through = report.map(trampoline::read_report);
    let reported = matches!(through, Some(Some(_)));
    let mut solver_wall = None;
    let (status, mut usage) = match (through, reaped) {
        (Some(Some(trampoline::Report::Started(status, usage, wall))), _) => {
            solver_wall = Duration::try_from_secs_f64(wall).ok();
            (Ok(status), usage)
        }
        (Some(Some(trampoline::Report::ExecError(errno))), _) => {
            reap::reap_group(pid, REAP_BOUND);
            let e = std::io::Error::from_raw_os_error(errno);
            return RunOutcome::failed_to_start(cannot_run(spec, workdir, &e), false);
        }
        // A trampoline killed before it reported: its own peak is
        // coreval's, only its CPU time (with the orphans it reaped) counts.
        (Some(None), Ok((status, usage))) => (
            Ok(status),
            Usage {
                max_rss: 0,
                ..usage
            },
        ),
        (None, Ok((status, usage))) => (Ok(status), usage),
        (_, Err(e)) => (Err(e), Usage::default()),
    };
    let exit = reap::exit_of(pid, status);
    drain([&mut out, &mut err], &mut buf);
    out.close();
    err.close();
    // A zygote that reported has reaped the whole group; without it, what
    // is left is ours (orphans come to us, the subreaper of last resort).
    if zygote.is_none() || !reported {
        usage.add(reap::reap_group(pid, REAP_BOUND));
    }
    if !reported {
        reap::kill_strays();
    }
    // In a cgroup: what is left of the run killed, its counters taken.
    let by_group = measure.and_then(cgroup::end);
    let measured_by = match by_group {
        Some(_) => cgroup::method(),
        None => cgroup::Measure::Rusage,
    };
    if let Some(m) = by_group {
        (usage.user, usage.sys, usage.max_rss) = (m.user, m.sys, m.peak);
    }

    let cancelled = cancelled || (stop == Stop::Running && external_stop(&exit, cancel));
    let wall = exited_at.duration_since(started);
    let wall = solver_wall.map_or(wall, |w| w.min(wall));
    let timed_out = timed_out || (!cancelled && wall > spec.wall_limit);
    let (stdout, stdout_dropped) = out.finish();
    let (stderr, stderr_dropped) = err.finish();
    RunOutcome {
        exit,
        timed_out,
        cancelled,
        wall: wall.as_secs_f64(),
        cpu: usage.user + usage.sys,
        user: usage.user,
        sys: usage.sys,
        max_rss: usage.max_rss,
        stdout,
        stderr,
        stdout_dropped,
        stderr_dropped,
        memory_limit_by: spec
            .memory_limit
            .map(|_| measured_by.limit_by().to_string()),
        measured_by,
        memout: by_group.is_some_and(|m| m.oom_killed),
        start: 0.0,
        end: 0.0,
        programs: observer
            .map(|o| {
                let mut seen = o.finish();
                if let Some(exe) = trampoline::seen_as() {
                    seen.retain(|p| p != exe);
                }
                seen
            })
            .unwrap_or_default(),
    }
}

/// Kills the `zygote` of a run that it has not answered long after the
/// run's SIGKILL (a solver stuck in the kernel, or a lost answer): the end
/// of file on its socket ends the run, and the slot starts the trampoline
/// executable from then on.
fn give_up_on_zygote(stop: Stop, zygote: Option<libc::pid_t>, now: Instant) {
    if let (Stop::Killed(at), Some(z)) = (stop, zygote) {
        if now >= at + REAP_BOUND {
            // SAFETY: SIGKILL to our own child, the zygote.
            unsafe { libc::kill(z, libc::SIGKILL) };
        }
    }
}

/// Reads what the ended run's streams still hold, until their end of file
/// or [`DRAIN_AFTER_EXIT`] (a process that left the group may hold them).
fn drain(mut streams: [&mut Capture; 2], buf: &mut Vec<u8>) {
    let until = Instant::now() + DRAIN_AFTER_EXIT;
    loop {
        let now = Instant::now();
        let fds = [streams[0].raw_fd(), streams[1].raw_fd(), None];
        if now >= until || (fds[0].is_none() && fds[1].is_none()) {
            return;
        }
        let (ready, _) = poll_once(&fds, until - now);
        let [a, b] = &mut streams;
        read_ready(ready, [&mut **a, &mut **b], buf);
    }
}

/// Reads the streams that poll reported ready; switches to the large
/// buffer once one of them floods.
fn read_ready(ready: [bool; 2], streams: [&mut Capture; 2], buf: &mut Vec<u8>) {
    for (is_ready, stream) in ready.into_iter().zip(streams) {
        if is_ready {
            stream.read_available(buf);
            if stream.is_flooding() && buf.len() < FLOOD_BUF {
                buf.resize(FLOOD_BUF, 0);
            }
        }
    }
}

#[cfg(test)]
mod tests;
