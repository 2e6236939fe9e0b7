//! The trampoline: a small process between coreval and each solver, so that
//! what a run records is the solver's own.
//!
//! Why: a child's `ru_maxrss` starts from the resident size of the memory
//! it ran in before `execve` (the kernel keeps the larger of the old and the
//! new memory's peak). A child started by coreval — with `fork` or with the
//! `clone(CLONE_VM)` of `spawn.rs` — runs in coreval's memory until
//! `execve`, so every run recorded coreval's own peak (tens to hundreds of
//! MB) instead of the solver's. The trampoline is the small executable
//! `coreval-trampoline` built and installed beside `coreval`
//! (`src/bin/coreval-trampoline.rs`: no allocator of its own, no runtime
//! set-up, a fraction of coreval's start-up cost per run), or, when that
//! file is missing, coreval's own executable started with [`ARGV0`] (see
//! [`sibling_or_self`]). Single-threaded, it starts the solver in its own
//! memory (`spawn::vfork_exec`: the solver's memory before `execve` is the
//! trampoline's few hundred KB, as under `/usr/bin/time`), waits for it,
//! and reports its usage on descriptor 3.
//!
//! A job slot keeps one such process from run to run (`zygote.rs`), which
//! starts each run's solver itself and does the same work for it; the
//! executable is started per run only where that is not possible.
//!
//! It is also the run's child subreaper: descendants whose parent ends —
//! grandchildren, and daemons that left the group with `setsid` or a double
//! fork — become its children rather than coreval's. When the solver has
//! ended, the trampoline kills and reaps every other child until none is
//! left (a daemon's own group with it), so no process a run started
//! survives the run, and adds their usage. Orphans that end during the run
//! are reaped as they end.
//!
//! Report (one line on descriptor 3, close-on-exec for the solver):
//! `ok STATUS USER SYS MAXRSS WALL` (the solver's `wait` status; CPU
//! seconds and the largest resident set in bytes over the solver and every
//! reaped descendant; seconds from the solver's fork to its end, so that
//! the trampoline's own start is not the solver's time), or `exec-error ERRNO` when the solver could not be started.
//! A trampoline killed by SIGKILL (a run that ignored SIGTERM past the
//! grace period) reports nothing; the runner then reaps what is left
//! itself (`mod.rs`).
//!
//! Arguments: `ARGV0 LIMIT THP PROGRAM ARG…`, LIMIT being the
//! address-space limit in bytes or `-`, THP the solver's value of
//! [`NO_THP`]'s variable (`=VALUE`, or `-`: unset); the working directory, descriptors 0–2, process
//! group and environment are set up by the runner before the trampoline
//! starts.

use super::observe::own_children;
use super::reap::{wait4, Usage};
use super::spawn::{
    bind_to_parent, candidates, cstring, errno, exec_candidates, reset_signals, vfork_exec,
};
use std::ffi::{CString, OsString};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::ptr;

/// Set in the trampoline's environment by the runner: the allocator's
/// transparent huge pages off. Its first allocations (before `main`) would
/// otherwise fault in 2 MiB pages, which the solver's copy of the
/// trampoline's memory, and so its `ru_maxrss`, would start with. The
/// solver gets the variable as it was (`THP` argument).
pub(super) const NO_THP: (&str, &str) = ("MIMALLOC_ALLOW_THP", "0");

/// What the runner adds to a trampoline's environment: [`NO_THP`], and
/// the huge-page setting its children get back (`hugepages`).
pub(super) fn environment() -> [(String, String); 2] {
    [
        (NO_THP.0.into(), NO_THP.1.into()),
        (
            crate::process::hugepages::CHILDREN_VAR.into(),
            crate::process::hugepages::children_value().into(),
        ),
    ]
}

/// `argv[0]` that makes the coreval executable a trampoline.
pub const ARGV0: &str = "coreval-trampoline";
/// The report descriptor.
const REPORT_FD: libc::c_int = 3;
/// Signals the runner sends to the group to stop a run: the trampoline
/// outlives them to reap and report (SIGKILL still ends it).
pub(super) const STOP_SIGNALS: [libc::c_int; 3] = [libc::SIGTERM, libc::SIGINT, libc::SIGHUP];
/// Rounds of killing leftover children at the end (each round kills the
/// children that the previous round's victims left to us).
const SWEEP_ROUNDS: usize = 1000;

/// The trampoline executable when runs go through one, and the path its
/// `/proc/PID/exe` reads as (left out of a run's `programs`).
static TRAMPOLINE: std::sync::OnceLock<(PathBuf, PathBuf)> = std::sync::OnceLock::new();

/// Start every later run through the trampoline `exe`: coreval's own
/// executable, whose `main` calls [`super::entry::main_if_asked`] first (`coreval`
/// passes `/proc/self/exe`; a test passes the built binary). Without it,
/// runs are started directly and `max_rss` is at least coreval's own peak.
/// Only the first call counts.
pub fn use_trampoline(exe: impl Into<PathBuf>) {
    let exe = exe.into();
    let seen = std::fs::canonicalize(&exe).unwrap_or_else(|_| exe.clone());
    let _ = TRAMPOLINE.set((exe, seen));
}

/// The trampoline to start runs through, if any.
pub(super) fn exe() -> Option<&'static Path> {
    TRAMPOLINE.get().map(|(exe, _)| exe.as_path())
}

/// What a run's observed programs show the trampoline as.
pub(super) fn seen_as() -> Option<&'static Path> {
    TRAMPOLINE.get().map(|(_, seen)| seen.as_path())
}

/// The file name of the trampoline executable beside `coreval`.
pub const BINARY: &str = "coreval-trampoline";

/// The trampoline for the executable `exe` (coreval's own, as found by
/// `std::env::current_exe`): [`BINARY`] in the same directory when it is
/// there, else `/proc/self/exe` (coreval started again with [`ARGV0`]).
pub fn sibling_or_self(exe: Option<&Path>) -> PathBuf {
    exe.and_then(Path::parent)
        .map(|dir| dir.join(BINARY))
        .filter(|p| p.is_file())
        .unwrap_or_else(|| PathBuf::from("/proc/self/exe"))
}

/// The trampoline's work; returns its exit code.
///
/// # Safety
/// Only in a single-threaded process (its child runs in its memory, Rust
/// code that allocates nothing).
pub(super) unsafe fn trampoline(args: &[OsString]) -> i32 {
    libc::fcntl(REPORT_FD, libc::F_SETFD, libc::FD_CLOEXEC);
    let Some((limit, thp, program, rest)) = parse(args) else {
        report(&format!("exec-error {}\n", libc::EINVAL));
        return 127;
    };
    // The solver's environment as the runner made it.
    match thp {
        Some(v) => std::env::set_var(NO_THP.0, v),
        None => std::env::remove_var(NO_THP.0),
    }
    let path = std::env::var_os("PATH");
    let (Ok(cands), Ok(argv)) = (
        candidates(program.as_os_str(), path.as_deref()),
        std::iter::once(program)
            .chain(rest)
            .map(|a| cstring(a.as_os_str()))
            .collect::<std::io::Result<Vec<CString>>>(),
    ) else {
        report(&format!("exec-error {}\n", libc::EINVAL));
        return 127;
    };
    extern "C" {
        static environ: *const *const libc::c_char;
    }
    run_solver(limit, &list(&cands), &list(&argv), environ)
}

/// NULL-terminated pointers to `v`'s strings.
pub(super) fn list(v: &[CString]) -> Vec<*const libc::c_char> {
    v.iter()
        .map(|s| s.as_ptr())
        .chain(std::iter::once(ptr::null()))
        .collect()
}

/// Starts the solver (the first of the `PATH` candidates `cands` that can
/// be executed, with `argv` and `envp`, under `limit`), waits for it and
/// every descendant left to us, and reports on [`REPORT_FD`]; returns the
/// trampoline's exit code. Descriptors 0–3, the working directory and the
/// process group are set up already.
///
/// # Safety
/// Only in a single-threaded process; the arrays are NULL-terminated.
pub(super) unsafe fn run_solver(
    limit: Option<libc::rlimit>,
    cands: &[*const libc::c_char],
    argv: &[*const libc::c_char],
    envp: *const *const libc::c_char,
) -> i32 {
    libc::fcntl(REPORT_FD, libc::F_SETFD, libc::FD_CLOEXEC);
    // SIGPIPE, which the Rust runtime ignores, as `spawn.rs` does.
    let mut restore = vec![libc::SIGPIPE];
    for sig in STOP_SIGNALS {
        if libc::signal(sig, libc::SIG_IGN) != libc::SIG_IGN {
            restore.push(sig);
        }
    }
    libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
    let me = libc::getpid();
    let forked = std::time::Instant::now();
    // In our memory until `execve`, as in the zygote (`zygote.rs`).
    let mut child = || {
        reset_signals(&restore);
        // The runner made the trampoline's group: the solver stays in it.
        let error = bind_to_parent(me, false, limit.as_ref());
        if error != 0 {
            return error;
        }
        exec_candidates(cands.as_ptr(), argv.as_ptr(), envp)
    };
    let solver = match vfork_exec(&mut child) {
        Ok(pid) => pid,
        Err(e) => {
            report(&format!(
                "exec-error {}\n",
                e.raw_os_error().unwrap_or(libc::EIO)
            ));
            return 127;
        }
    };
    let mut total = Usage::default();
    wait_for(solver, &mut total);
    let wall = forked.elapsed().as_secs_f64();
    sweep(solver, &mut total);
    let (status, usage) = loop {
        match wait4(solver, 0) {
            Ok(Some((_, status, usage))) => break (status, usage),
            Err(e) if e.raw_os_error() == Some(libc::EINTR) => continue,
            _ => {
                report(&format!("exec-error {}\n", libc::ECHILD));
                return 127;
            }
        }
    };
    total.add(usage);
    report(&format!(
        "ok {status} {} {} {} {wall}\n",
        total.user, total.sys, total.max_rss
    ));
    0
}

/// What [`parse`] returns: limit, the solver's value of [`NO_THP`]'s
/// variable, program, arguments.
type Parsed = (
    Option<libc::rlimit>,
    Option<OsString>,
    OsString,
    Vec<OsString>,
);

/// `LIMIT THP PROGRAM ARG…` → (limit, THP, program, args); THP is `-`
/// (unset) or `=VALUE`.
fn parse(args: &[OsString]) -> Option<Parsed> {
    let (limit, rest) = args.split_first()?;
    let (thp, rest) = rest.split_first()?;
    let (program, rest) = rest.split_first()?;
    let thp = match thp.as_bytes() {
        b"-" => None,
        [b'=', value @ ..] => Some(OsString::from(std::ffi::OsStr::from_bytes(value))),
        _ => return None,
    };
    let limit = match limit.as_bytes() {
        b"-" => None,
        bytes => {
            let v: libc::rlim_t = std::str::from_utf8(bytes).ok()?.parse().ok()?;
            Some(libc::rlimit {
                rlim_cur: v,
                rlim_max: v,
            })
        }
    };
    Some((limit, thp, program.clone(), rest.to_vec()))
}

pub(super) fn report(line: &str) {
    // SAFETY: write of a valid buffer to our report descriptor.
    unsafe { libc::write(REPORT_FD, line.as_ptr().cast(), line.len()) };
}

/// Waits until `solver` has ended (without reaping it), reaping every other
/// child that ends meanwhile and adding its usage.
pub(super) fn wait_for(solver: libc::pid_t, total: &mut Usage) {
    loop {
        // SAFETY: zeroed siginfo_t is a valid out-parameter for waitid.
        let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
        let flags = libc::WEXITED | libc::WNOWAIT | libc::__WALL;
        // SAFETY: waitid on any child with a valid siginfo_t.
        let r = unsafe { libc::waitid(libc::P_ALL, 0, &mut info, flags) };
        if r != 0 {
            if errno() == libc::EINTR {
                continue;
            }
            return;
        }
        // SAFETY: waitid filled `info`.
        let pid = unsafe { info.si_pid() };
        if pid == solver {
            return;
        }
        if let Ok(Some((_, _, usage))) = wait4(pid, 0) {
            total.add(usage);
        }
    }
}

/// Kills and reaps every child but `solver` (a group leader with its
/// group), round after round, until no other child is left.
pub(super) fn sweep(solver: libc::pid_t, total: &mut Usage) {
    // SAFETY: getpgrp cannot fail.
    let group = unsafe { libc::getpgrp() };
    for _ in 0..SWEEP_ROUNDS {
        let others: Vec<libc::pid_t> = own_children()
            .into_iter()
            .filter(|&c| c != solver)
            .collect();
        if others.is_empty() {
            return;
        }
        for &c in &others {
            // SAFETY: signals to our own children (and the groups they
            // lead, never ours).
            unsafe {
                if libc::getpgid(c) == c && c != group {
                    libc::kill(-c, libc::SIGKILL);
                }
                libc::kill(c, libc::SIGKILL);
            }
        }
        for c in others {
            if let Ok(Some((_, _, usage))) = wait4(c, 0) {
                total.add(usage);
            }
        }
    }
}

/// What a trampoline reported.
pub(super) enum Report {
    /// The solver ran: its `wait` status, the usage of it and its
    /// descendants, and the seconds from its fork to its end.
    Started(super::reap::Status, Usage, f64),
    /// The solver could not be started (error number).
    ExecError(i32),
}

/// Reads the report of a trampoline that has ended; `None` when it wrote
/// none (it was killed).
pub(super) fn read_report(fd: std::os::fd::OwnedFd) -> Option<Report> {
    // The trampoline has ended: what it wrote is in the pipe, made
    // non-blocking (`process.rs`) in case a copy of the write end lingers.
    // Its one line, written at once, is the whole report.
    let bytes = super::observe::read_until(&mut std::fs::File::from(fd), Some(b'\n'));
    let text = String::from_utf8_lossy(&bytes);
    let words: Vec<&str> = text.split_whitespace().collect();
    match words.as_slice() {
        ["ok", status, user, sys, rss, wall] => Some(Report::Started(
            super::reap::decode(status.parse().ok()?),
            Usage {
                user: user.parse().ok()?,
                sys: sys.parse().ok()?,
                max_rss: rss.parse().ok()?,
            },
            wall.parse().ok()?,
        )),
        ["exec-error", errno] => Some(Report::ExecError(errno.parse().ok()?)),
        _ => None,
    }
}
