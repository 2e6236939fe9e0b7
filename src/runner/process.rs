//! Process primitives of the runner: spawn a command in its own process
//! group, notice its exit without reaping it, signal the group, and reap the
//! leader and every other group member with `wait4` so that their resource
//! usage adds up to the CPU time of the whole tree.
//!
//! All raw libc calls of the runner (other than the child's side of a
//! spawn in `spawn.rs`, the waits in `reap.rs`, pipe reads in `capture.rs`
//! and `/proc` parsing in `pidfile.rs`) live here, so the supervision loop in `mod.rs` stays free
//! of `unsafe`.
//!
//! Waits only ever name one pid or one `-pgid`: several runs go on in
//! parallel threads of one process, and a `wait(-1)` in one of them would
//! steal (and lose the usage of) another run's children.

use super::RunSpec;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::path::Path;
use std::sync::Once;
use std::time::{Duration, Instant};

/// A started command: its pid (also its process-group id), a pidfd when the
/// kernel has `pidfd_open` (Linux ≥ 5.3), and the read ends of its pipes
/// (with the trampoline's report, `trampoline.rs`, when it runs through
/// one).
pub(super) struct Spawned {
    pub pid: libc::pid_t,
    pub pidfd: Option<OwnedFd>,
    pub stdout: OwnedFd,
    pub stderr: OwnedFd,
    pub report: Option<OwnedFd>,
    /// The zygote that started it (`zygote.rs`), which reaps it.
    pub zygote: Option<libc::pid_t>,
    /// Its slot's cgroup counters at the start (`cgroup/`); `None`: the
    /// run is limited and measured by rusage.
    pub measure: Option<super::cgroup::Start>,
}

/// Makes this process the reaper of its orphaned descendants, once: a
/// solver's grandchild whose parent exits without waiting is then
/// re-parented to us instead of init, and [`super::reap::reap_group`] collects its usage.
pub(super) fn become_subreaper() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // SAFETY: plain prctl; failure only means orphans go to init and
        // their CPU time is not counted.
        unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) };
    });
}

/// Starts `spec` in `workdir`: stdin from /dev/null, stdout and stderr piped,
/// a new process group, and the address-space limit when one is asked for.
///
/// The child is started the way `posix_spawn` does it (`spawn.rs`): a
/// `clone(CLONE_VM | CLONE_VFORK)` that shares our memory until `execve`,
/// instead of a `fork` that copies the page tables of a large, many-threaded
/// parent and write-protects all of its memory.
pub(super) fn spawn(spec: &RunSpec, workdir: &Path) -> io::Result<Spawned> {
    // The child changes directory before exec, so a relative program path
    // would be looked up in the new working directory.
    let program = if spec.program.is_relative() && spec.program.components().count() > 1 {
        std::env::current_dir()?.join(&spec.program)
    } else {
        spec.program.clone()
    };
    // The slot's cgroup holds the memory limit where there is one;
    // RLIMIT_AS otherwise.
    let measure = super::cgroup::begin(spec.memory_limit);
    let limit = match measure {
        Some(_) => None,
        None => spec.memory_limit.map(address_space_limit),
    };
    let (stdout_r, stdout_w) = pipe(0)?;
    let (stderr_r, stderr_w) = pipe(0)?;
    let null = dev_null()?;
    let mut fds = [
        null.as_raw_fd(),
        stdout_w.as_raw_fd(),
        stderr_w.as_raw_fd(),
        -1,
    ];
    // (A program path that is not text is started directly.)
    let trampoline = super::trampoline::exe().zip(program.to_str());
    let (pid, report) = match trampoline {
        Some((exe, name)) => {
            // Non-blocking: a report is one short line, written at once.
            let (report_r, report_w) = pipe(libc::O_NONBLOCK)?;
            fds[3] = report_w.as_raw_fd();
            // Started by this thread's zygote when it has one.
            let solver = super::spawn::Prepared::new(&program, spec, workdir)?;
            if let Some(started) = super::zygote::spawn(exe, &solver, fds, limit) {
                let (pid, zygote) = started?;
                return Ok(Spawned {
                    pid,
                    // The zygote's answer marks the end (`zygote.rs`).
                    pidfd: None,
                    stdout: stdout_r,
                    stderr: stderr_r,
                    report: Some(report_r),
                    zygote: Some(zygote),
                    measure,
                });
            }
            // The trampoline starts the program under the limit.
            let mut through = spec.clone();
            let var = super::trampoline::NO_THP.0;
            let thp = match spec.env.iter().rev().find(|(k, _)| k == var) {
                Some((_, v)) => Some(v.clone()),
                None => std::env::var(var).ok(),
            };
            through.env.extend(super::trampoline::environment());
            through.args = [
                limit.map_or("-".to_string(), |l| l.rlim_cur.to_string()),
                thp.map_or("-".to_string(), |v| format!("={v}")),
                name.to_string(),
            ]
            .into_iter()
            .chain(spec.args.iter().cloned())
            .collect();
            let mut prepared = super::spawn::Prepared::new(exe, &through, workdir)?;
            prepared.set_argv0(super::trampoline::ARGV0)?;
            prepared.join = measure.map_or(Vec::new(), |_| super::cgroup::join_fds());
            (prepared.start(fds, None)?, Some(report_r))
        }
        None => {
            let mut prepared = super::spawn::Prepared::new(&program, spec, workdir)?;
            prepared.join = measure.map_or(Vec::new(), |_| super::cgroup::join_fds());
            (prepared.start(fds, limit)?, None)
        }
    };
    Ok(Spawned {
        pid,
        pidfd: pidfd_open(pid),
        stdout: stdout_r,
        stderr: stderr_r,
        report,
        zygote: None,
        measure,
    })
}

/// Reaps the run's leader `pid`: the answer of the zygote that started it
/// (`via_zygote`, `zygote.rs`), or as our own child.
pub(super) fn reap_leader(
    pid: libc::pid_t,
    via_zygote: bool,
) -> io::Result<(super::reap::Status, super::reap::Usage)> {
    if via_zygote {
        super::zygote::finished()
    } else {
        super::reap::reap(pid)
    }
}

/// `/dev/null`, the runs' standard input, opened once.
fn dev_null() -> io::Result<&'static std::fs::File> {
    static NULL: std::sync::OnceLock<std::fs::File> = std::sync::OnceLock::new();
    if let Some(f) = NULL.get() {
        return Ok(f);
    }
    let f = std::fs::File::open("/dev/null")?;
    Ok(NULL.get_or_init(|| f))
}

/// A pipe, both ends close-on-exec and with `flags`: (read end, write end).
fn pipe(flags: libc::c_int) -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0; 2];
    // SAFETY: pipe2 fills two fresh descriptors that we then own.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC | flags) } != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: both descriptors are fresh and owned by nobody else.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

/// RLIMIT_AS (soft and hard) for the child. The hard limit is never raised
/// above the current one, which would fail.
fn address_space_limit(bytes: u64) -> libc::rlimit {
    let mut current = libc::rlimit {
        rlim_cur: 0,
        rlim_max: libc::RLIM_INFINITY,
    };
    // SAFETY: getrlimit writes into a valid struct.
    if unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut current) } != 0 {
        current.rlim_max = libc::RLIM_INFINITY;
    }
    let value = (bytes as libc::rlim_t).min(current.rlim_max);
    libc::rlimit {
        rlim_cur: value,
        rlim_max: value,
    }
}

fn pidfd_open(pid: libc::pid_t) -> Option<OwnedFd> {
    // SAFETY: pidfd_open takes a pid and flags and returns a new descriptor
    // (close-on-exec) or -1.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
    if fd < 0 {
        return None;
    }
    // SAFETY: a fresh descriptor owned by nobody else.
    Some(unsafe { OwnedFd::from_raw_fd(fd as libc::c_int) })
}

/// Sends `sig` to every member of process group `pgid`; false when the group
/// no longer exists.
pub(super) fn signal_group(pgid: libc::pid_t, sig: libc::c_int) -> bool {
    if pgid <= 1 {
        return false;
    }
    // SAFETY: kill with a negative pid signals a process group.
    unsafe { libc::kill(-pgid, sig) == 0 }
}

/// Whether the child `pid` has exited, without reaping it (so its pid, and
/// with it the process-group id, stays reserved). Used when there is no
/// pidfd. An error (no such child) counts as exited so that callers move on
/// to [`reap`], which reports it.
pub(super) fn has_exited(pid: libc::pid_t) -> bool {
    loop {
        // SAFETY: zeroed siginfo_t is a valid out-parameter for waitid.
        let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
        let flags = libc::WEXITED | libc::WNOHANG | libc::WNOWAIT;
        // SAFETY: waitid on one specific child with a valid siginfo_t.
        let r = unsafe { libc::waitid(libc::P_PID, pid as libc::id_t, &mut info, flags) };
        if r == 0 {
            // SAFETY: waitid filled `info` (si_pid is 0 if nothing exited).
            return unsafe { info.si_pid() } != 0;
        }
        if io::Error::last_os_error().raw_os_error() != Some(libc::EINTR) {
            return true;
        }
    }
}

/// Waits up to `timeout` for `fds` to become readable; returns the `revents`
/// of each (all zero on timeout or interruption).
pub(super) fn poll_readable(fds: &[libc::c_int], timeout: Duration) -> [libc::c_short; 3] {
    let mut set = [libc::pollfd {
        fd: -1,
        events: 0,
        revents: 0,
    }; 3];
    for (slot, &fd) in set.iter_mut().zip(fds) {
        slot.fd = fd;
        slot.events = libc::POLLIN;
    }
    // Round up so that a sub-millisecond remainder does not spin.
    let ms = timeout.as_micros().div_ceil(1000).min(i32::MAX as u128) as libc::c_int;
    // SAFETY: `set` holds `fds.len()` (≤ 3) initialised pollfd entries.
    let r = unsafe { libc::poll(set.as_mut_ptr(), fds.len().min(3) as libc::nfds_t, ms) };
    let mut revents = [0; 3];
    if r > 0 {
        for (out, slot) in revents.iter_mut().zip(&set) {
            *out = slot.revents;
        }
    }
    revents
}

/// `t + d`, saturating at a century for absurd limits (`Duration::MAX`).
pub(super) fn later(t: Instant, d: Duration) -> Instant {
    const CENTURY: Duration = Duration::from_secs(100 * 365 * 24 * 3600);
    t.checked_add(d.min(CENTURY)).unwrap_or(t)
}

/// Polls the open descriptors among `fds` (stdout, stderr, pidfd) once;
/// returns which output streams are readable and whether the pidfd says the
/// child has exited.
pub(super) fn poll_once(fds: &[Option<libc::c_int>; 3], timeout: Duration) -> ([bool; 2], bool) {
    let mut raw = [0; 3];
    let mut slot = [usize::MAX; 3];
    let mut n = 0;
    for (i, fd) in fds.iter().enumerate() {
        if let Some(fd) = fd {
            raw[n] = *fd;
            slot[i] = n;
            n += 1;
        }
    }
    let revents = poll_readable(&raw[..n], timeout);
    let ready = |i: usize| slot[i] != usize::MAX && revents[slot[i]] != 0;
    ([ready(0), ready(1)], ready(2))
}
