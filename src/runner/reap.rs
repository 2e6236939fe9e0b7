//! Reaping: wait for a child (or the rest of its process group) with
//! `wait4` and add up the resource usage of what was reaped. Shared by the
//! spawner (a child that failed to exec) and the supervision loop.
//!
//! Waits only ever name one pid or one `-pgid`: several runs go on in
//! parallel threads of one process, and a `wait(-1)` in one of them would
//! steal (and lose the usage of) another run's children.

use std::io;
use std::time::{Duration, Instant};

/// Resource usage summed over reaped processes.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Usage {
    pub user: f64,
    pub sys: f64,
    /// Largest resident set seen, bytes.
    pub max_rss: u64,
}

impl Usage {
    fn from_rusage(ru: &libc::rusage) -> Usage {
        let secs = |tv: libc::timeval| tv.tv_sec as f64 + tv.tv_usec as f64 / 1e6;
        Usage {
            user: secs(ru.ru_utime),
            sys: secs(ru.ru_stime),
            // Linux reports ru_maxrss in KiB.
            max_rss: (ru.ru_maxrss.max(0) as u64).saturating_mul(1024),
        }
    }

    pub(super) fn add(&mut self, other: Usage) {
        self.user += other.user;
        self.sys += other.sys;
        self.max_rss = self.max_rss.max(other.max_rss);
    }
}

/// How a reaped process ended.
pub(super) enum Status {
    Exited(i32),
    Signaled(i32),
}

/// Reaps the child `pid` (blocking) and returns how it ended and its usage,
/// which includes the descendants it waited for itself.
pub(super) fn reap(pid: libc::pid_t) -> io::Result<(Status, Usage)> {
    loop {
        match wait4(pid, 0) {
            Ok(Some((_, status, usage))) => return Ok((decode(status), usage)),
            Ok(None) => continue,
            Err(e) if e.raw_os_error() == Some(libc::EINTR) => continue,
            Err(e) => return Err(e),
        }
    }
}

pub(super) fn decode(status: libc::c_int) -> Status {
    if libc::WIFSIGNALED(status) {
        Status::Signaled(libc::WTERMSIG(status))
    } else {
        Status::Exited(libc::WEXITSTATUS(status))
    }
}

/// Reaps every remaining child of ours in process group `pgid` (orphaned
/// grandchildren re-parented to us, see [`super::process::become_subreaper`]) and sums their
/// usage. Call it after the group got SIGKILL: it waits for members still
/// dying, but gives up after `bound` (a process stuck in the kernel).
pub(super) fn reap_group(pgid: libc::pid_t, bound: Duration) -> Usage {
    let mut total = Usage::default();
    let give_up = Instant::now() + bound;
    let mut pause = Duration::from_micros(50);
    loop {
        match wait4(-pgid, libc::WNOHANG) {
            Ok(Some((_, _, usage))) => total.add(usage),
            Ok(None) => {
                if Instant::now() >= give_up {
                    return total;
                }
                std::thread::sleep(pause);
                pause = (pause * 2).min(Duration::from_millis(10));
            }
            Err(e) if e.raw_os_error() == Some(libc::EINTR) => {}
            // ECHILD: no child of ours left in the group.
            Err(_) => return total,
        }
    }
}

/// `wait4` on one pid or one `-pgid`, any kind of child (`__WALL`).
/// `Ok(None)`: WNOHANG and nothing has exited yet.
pub(super) fn wait4(
    target: libc::pid_t,
    flags: libc::c_int,
) -> io::Result<Option<(libc::pid_t, libc::c_int, Usage)>> {
    let mut status = 0;
    // SAFETY: zeroed rusage is a valid out-parameter.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: wait4 with valid pointers to locals.
    let r = unsafe { libc::wait4(target, &mut status, flags | libc::__WALL, &mut ru) };
    match r {
        -1 => Err(io::Error::last_os_error()),
        0 => Ok(None),
        pid => Ok(Some((pid, status, Usage::from_rusage(&ru)))),
    }
}

/// Kills and reaps the children of this process that left its session
/// (`setsid`): daemons of runs whose trampoline could not reap them (it was
/// killed), or of runs started without one. Run leaders stay in coreval's
/// session (they only get a process group of their own), so none of them
/// is taken for a stray. Their usage is not added to any run: which run
/// started them is unknown.
pub(super) fn kill_strays() {
    // SAFETY: getsid(0) reads our own session id.
    let ours = unsafe { libc::getsid(0) };
    for _ in 0..100 {
        let strays: Vec<libc::pid_t> = super::observe::children("self")
            .into_iter()
            // SAFETY: getsid only reads another process's session id.
            .filter(|&c| {
                let sid = unsafe { libc::getsid(c) };
                sid >= 0 && sid != ours
            })
            .collect();
        if strays.is_empty() {
            return;
        }
        for &c in &strays {
            // SAFETY: SIGKILL to a child of ours that leads its own session
            // (and group), and to that group.
            unsafe {
                libc::kill(-c, libc::SIGKILL);
                libc::kill(c, libc::SIGKILL);
            }
        }
        for c in strays {
            let _ = wait4(c, 0);
        }
    }
}

/// How the run's leader `pid` ended, from its reaped status.
pub(super) fn exit_of(pid: libc::pid_t, status: io::Result<Status>) -> super::Exit {
    use super::Exit;
    match status {
        Ok(Status::Exited(code)) => Exit::Exited(code),
        Ok(Status::Signaled(sig)) => Exit::Signaled(sig),
        Err(e) => Exit::FailedToStart(format!("process {pid} was reaped elsewhere: {e}")),
    }
}
