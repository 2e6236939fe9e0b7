//! Starting a child without copying the parent: the runner's `posix_spawn`.
//!
//! `fork` copies the page tables of the whole parent and write-protects all
//! of its private memory; in a parent with many threads and a large heap
//! that costs system time per spawn that grows with the parent (and every
//! thread then takes copy-on-write faults on memory it writes), which is
//! why the per-run system time grew with the number of parallel jobs. The
//! runner needs work between fork and exec that `posix_spawn` cannot do
//! (`PR_SET_PDEATHSIG`, a check that the parent is still alive), so it
//! does what glibc's `posix_spawn` does itself: `clone(CLONE_VM |
//! CLONE_VFORK)`. The child runs on a stack of its own inside our memory,
//! the calling thread is suspended until the child has called `execve` (or
//! exited), and nothing is copied. Everything is prepared before the clone
//! (argument and environment arrays, the `PATH` candidates, descriptors,
//! limits); the child only makes system calls and writes its error number
//! into the shared argument block before `_exit(127)`.
//!
//! Signals: all are blocked around the clone, so that no handler of ours
//! runs on the child's stack in shared memory; the child resets every
//! caught signal (and SIGPIPE, which the Rust runtime ignores) to the
//! default action and unblocks all signals right before `execve`, as
//! `std::process::Command` does.

use super::RunSpec;
use std::ffi::{CString, OsStr, OsString};
use std::io;
use std::os::fd::RawFd;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::ptr;

/// The child's stack between clone and exec (a few system calls).
const CHILD_STACK: usize = 64 << 10;
/// Highest signal number plus one (`_NSIG` on Linux).
const NSIG: libc::c_int = 65;

/// Everything `execve` needs, as C strings, built before the clone.
pub(super) struct Prepared {
    /// Paths to try in order: the program, or each `PATH` entry joined
    /// with a bare name.
    pub(super) candidates: Vec<CString>,
    pub(super) argv: Vec<CString>,
    pub(super) envp: Vec<CString>,
    pub(super) workdir: CString,
    /// `cgroup.procs` descriptors the child writes `0` to before
    /// `execve`, joining the slot's group (`cgroup/`); empty: none.
    pub(super) join: Vec<RawFd>,
}

/// What the runner's child reads, in the memory it shares with the
/// suspended parent thread.
struct ChildArgs {
    candidates: *const *const libc::c_char,
    argv: *const *const libc::c_char,
    envp: *const *const libc::c_char,
    workdir: *const libc::c_char,
    /// Descriptors to become 0, 1, 2 (stdin, stdout, stderr) and 3 (the
    /// trampoline's report pipe, `trampoline.rs`; -1: none).
    fds: [RawFd; 4],
    limit: Option<libc::rlimit>,
    parent: libc::pid_t,
    join: *const RawFd,
    joins: usize,
}

impl Prepared {
    /// `program` (absolute, or a bare name looked up in `PATH`) with the
    /// arguments and environment of `spec`, started in `workdir`.
    pub(super) fn new(program: &Path, spec: &RunSpec, workdir: &Path) -> io::Result<Prepared> {
        let mut env: Vec<(OsString, OsString)> = std::env::vars_os().collect();
        for (k, v) in &spec.env {
            env.retain(|(key, _)| key.as_bytes() != k.as_bytes());
            env.push((k.into(), v.into()));
        }
        let name = program.as_os_str();
        let path = env
            .iter()
            .find(|(k, _)| k == "PATH")
            .map(|(_, v)| v.as_os_str());
        let candidates = candidates(name, path)?;
        let mut argv = vec![cstring(name)?];
        for a in &spec.args {
            argv.push(cstring(OsStr::new(a))?);
        }
        let envp = env
            .iter()
            .map(|(k, v)| {
                let mut kv = k.clone();
                kv.push("=");
                kv.push(v);
                cstring(&kv)
            })
            .collect::<io::Result<_>>()?;
        Ok(Prepared {
            candidates,
            argv,
            envp,
            workdir: cstring(workdir.as_os_str())?,
            join: Vec::new(),
        })
    }

    /// Replaces `argv[0]` (by default the program as given).
    pub(super) fn set_argv0(&mut self, argv0: &str) -> io::Result<()> {
        self.argv[0] = cstring(OsStr::new(argv0))?;
        Ok(())
    }

    /// Starts the child with `fds` as its descriptors 0 to 3 (they may be
    /// close-on-exec: they are duplicated; -1: left closed), in a process group of
    /// its own, killed when the calling thread dies, under `limit`
    /// (RLIMIT_AS). Returns its pid once it has called `execve`; an error
    /// when it could not (the child is reaped then).
    pub(super) fn start(
        &self,
        fds: [RawFd; 4],
        limit: Option<libc::rlimit>,
    ) -> io::Result<libc::pid_t> {
        let list = |v: &[CString]| -> Vec<*const libc::c_char> {
            v.iter()
                .map(|s| s.as_ptr())
                .chain(std::iter::once(ptr::null()))
                .collect()
        };
        let (candidates, argv, envp) = (list(&self.candidates), list(&self.argv), list(&self.envp));
        let args = ChildArgs {
            candidates: candidates.as_ptr(),
            argv: argv.as_ptr(),
            envp: envp.as_ptr(),
            workdir: self.workdir.as_ptr(),
            fds,
            limit,
            // SAFETY: getpid cannot fail.
            parent: unsafe { libc::getpid() },
            join: self.join.as_ptr(),
            joins: self.join.len(),
        };
        // SAFETY: `exec` only makes async-signal-safe system calls on data
        // prepared above, which outlives the suspended clone.
        unsafe { vfork_exec(&mut || exec(&args)) }
    }
}

/// Runs `child` in a new process that shares our memory
/// (`clone(CLONE_VM | CLONE_VFORK)`, on a stack of its own): `child` sets
/// the process up and calls `execve`, or returns the error number of the
/// step that failed. Returns the pid once it has called `execve` (the
/// calling thread is suspended until then); the error when it could not
/// (the child is reaped then).
///
/// # Safety
/// `child` must only make async-signal-safe system calls (no allocation,
/// no lock, no panic): it runs in the caller's memory while the caller is
/// suspended.
pub(super) unsafe fn vfork_exec(child: &mut dyn FnMut() -> libc::c_int) -> io::Result<libc::pid_t> {
    let mut shared = Shared {
        child: child as *mut (dyn FnMut() -> libc::c_int + '_),
        error: 0,
    };
    // Only written by the child: a stack needs no zeroing.
    let mut stack: Vec<u8> = Vec::with_capacity(CHILD_STACK);
    // The stack grows down from its (16-byte aligned) top.
    let top = (stack.as_mut_ptr() as usize + CHILD_STACK) & !15;
    // SAFETY: sigset_t values are plain data, filled by sigfillset; the
    // mask is restored right after the clone.
    let mut all: libc::sigset_t = std::mem::zeroed();
    let mut old: libc::sigset_t = std::mem::zeroed();
    libc::sigfillset(&mut all);
    libc::pthread_sigmask(libc::SIG_SETMASK, &all, &mut old);
    // The child sets the huge-page setting of the memory it shares with
    // this process for the program it executes; this process takes its
    // own back after (`hugepages`).
    let spawning = crate::process::hugepages::Spawning::begin();
    // SAFETY: CLONE_VFORK suspends this thread until the child has exec'd
    // or exited, so `shared`, what `child` refers to and `stack` outlive
    // every use the child makes of them; `child_main` never returns.
    let pid = libc::clone(
        child_main,
        top as *mut libc::c_void,
        libc::CLONE_VM | libc::CLONE_VFORK | libc::SIGCHLD,
        ptr::addr_of_mut!(shared).cast(),
    );
    let clone_error = io::Error::last_os_error();
    drop(spawning);
    libc::pthread_sigmask(libc::SIG_SETMASK, &old, ptr::null_mut());
    drop(stack);
    if pid < 0 {
        return Err(clone_error);
    }
    // SAFETY: the child wrote `error` (if at all) before it exited; it no
    // longer runs in our memory.
    let error = ptr::read_volatile(ptr::addr_of!(shared.error));
    if error != 0 {
        let _ = super::reap::reap(pid);
        return Err(io::Error::from_raw_os_error(error));
    }
    Ok(pid)
}

/// What [`child_main`] runs, and the error number it writes back, in the
/// memory it shares with the suspended parent thread.
struct Shared<'a> {
    child: *mut (dyn FnMut() -> libc::c_int + 'a),
    error: libc::c_int,
}

/// The paths `execvp` would try for `name`: itself when it holds a `/`,
/// else `name` in each directory of `path` (`/bin:/usr/bin` when unset).
pub(super) fn candidates(name: &OsStr, path: Option<&OsStr>) -> io::Result<Vec<CString>> {
    if name.is_empty() {
        return Err(io::Error::from_raw_os_error(libc::ENOENT));
    }
    if name.as_bytes().contains(&b'/') {
        return Ok(vec![cstring(name)?]);
    }
    let path = path.unwrap_or(OsStr::new("/bin:/usr/bin"));
    std::env::split_paths(path)
        .map(|dir| {
            let dir = if dir.as_os_str().is_empty() {
                Path::new(".").to_path_buf()
            } else {
                dir
            };
            cstring(dir.join(name).as_os_str())
        })
        .collect()
}

pub(super) fn cstring(s: &OsStr) -> io::Result<CString> {
    CString::new(s.as_bytes()).map_err(|_| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("a NUL byte in {}", s.to_string_lossy()),
        )
    })
}

/// The child between clone and exec. It never returns: `execve` replaces
/// it, or it records why not and exits with 127.
extern "C" fn child_main(arg: *mut libc::c_void) -> libc::c_int {
    let shared = arg.cast::<Shared<'_>>();
    // SAFETY: `arg` is the parent's `Shared`, alive while it waits.
    unsafe {
        let error = (*(*shared).child)();
        ptr::write_volatile(ptr::addr_of_mut!((*shared).error), error.max(1));
        libc::_exit(127)
    }
}

/// The current error number (in the parent thread's `errno`, which the
/// child shares and the suspended parent does not use).
pub(super) fn errno() -> libc::c_int {
    // SAFETY: __errno_location returns this thread's errno slot.
    unsafe { *libc::__errno_location() }
}

/// Sets the child up and calls `execve`; returns the error number of the
/// step that failed.
///
/// # Safety
/// Only in the child made by [`Prepared::start`]: it changes the signal
/// dispositions, process group, limits, directory and descriptors of the
/// calling process.
unsafe fn exec(a: &ChildArgs) -> libc::c_int {
    reset_signals(&[libc::SIGPIPE]);
    let error = bind_to_parent(a.parent, true, a.limit.as_ref());
    if error != 0 {
        return error;
    }
    for i in 0..a.joins {
        if libc::write(*a.join.add(i), b"0".as_ptr().cast(), 1) != 1 {
            return errno();
        }
    }
    if libc::chdir(a.workdir) != 0 {
        return errno();
    }
    for (target, &fd) in a.fds.iter().enumerate() {
        if fd < 0 {
            continue;
        }
        // The runtime keeps 0, 1 and 2 open, so our descriptors are ≥ 3;
        // one that already is 3 only loses close-on-exec.
        let target = target as libc::c_int;
        let done = if fd == target {
            libc::fcntl(fd, libc::F_SETFD, 0)
        } else {
            libc::dup2(fd, target)
        };
        if done < 0 {
            return errno();
        }
    }
    exec_candidates(a.candidates, a.argv, a.envp)
}

/// In a child before `execve`, what every solver's process gets: a process
/// group of its own (with `own_group`), SIGKILL when its `parent` dies (and
/// no start at all when it has died already: nothing runs unsupervised),
/// and the address-space `limit`. 0 or the error number.
///
/// # Safety
/// Only in a child between fork (or clone) and exec.
pub(super) unsafe fn bind_to_parent(
    parent: libc::pid_t,
    own_group: bool,
    limit: Option<&libc::rlimit>,
) -> libc::c_int {
    if (own_group && libc::setpgid(0, 0) != 0)
        || libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0) != 0
    {
        return errno();
    }
    if libc::getppid() != parent {
        return libc::ESRCH;
    }
    crate::process::hugepages::restore_in_child();
    match limit {
        Some(limit) if libc::setrlimit(libc::RLIMIT_AS, limit) != 0 => errno(),
        _ => 0,
    }
}

/// Resets every caught signal, and those of `also` (ignored ones), to the
/// default action, and unblocks all signals: what a program expects to
/// start with.
///
/// # Safety
/// Only in a child between fork (or clone) and exec.
pub(super) unsafe fn reset_signals(also: &[libc::c_int]) {
    SignalReset::new(also).apply();
}

/// The signals [`reset_signals`] resets, found once by a single-threaded
/// process whose actions no longer change (the zygote), so that each child
/// it forks resets only those (a handful of calls instead of one per
/// signal: ~15 µs a run).
pub(super) struct SignalReset {
    signals: [libc::c_int; NSIG as usize],
    len: usize,
}

impl SignalReset {
    /// The caught signals of this process, and those of `also` not at
    /// their default action.
    pub(super) fn new(also: &[libc::c_int]) -> Self {
        let mut r = SignalReset {
            signals: [0; NSIG as usize],
            len: 0,
        };
        for sig in 1..NSIG {
            // SAFETY: zeroed sigaction is a valid out-parameter; a query
            // changes nothing.
            let mut old: libc::sigaction = unsafe { std::mem::zeroed() };
            if sig == libc::SIGKILL
                || sig == libc::SIGSTOP
                || unsafe { libc::sigaction(sig, ptr::null(), &mut old) } != 0
            {
                continue;
            }
            let handled = old.sa_sigaction != libc::SIG_DFL && old.sa_sigaction != libc::SIG_IGN;
            let ignored = old.sa_sigaction == libc::SIG_IGN;
            if handled || (ignored && also.contains(&sig)) {
                r.signals[r.len] = sig;
                r.len += 1;
            }
        }
        r
    }

    /// Resets the signals found and unblocks all signals.
    ///
    /// # Safety
    /// Only in a child between fork (or clone) and exec.
    pub(super) unsafe fn apply(&self) {
        let mut default: libc::sigaction = std::mem::zeroed();
        default.sa_sigaction = libc::SIG_DFL;
        for &sig in &self.signals[..self.len] {
            libc::sigaction(sig, &default, ptr::null_mut());
        }
        let mut none: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut none);
        libc::pthread_sigmask(libc::SIG_SETMASK, &none, ptr::null_mut());
    }
}

/// As `execvp`: `execve` each candidate in turn (NULL-terminated arrays);
/// returns the error number when none could be run, a permission problem
/// first.
///
/// # Safety
/// Only in a child between fork (or clone) and exec, with valid arrays.
pub(super) unsafe fn exec_candidates(
    candidates: *const *const libc::c_char,
    argv: *const *const libc::c_char,
    envp: *const *const libc::c_char,
) -> libc::c_int {
    let (mut error, mut denied) = (libc::ENOENT, false);
    let mut next = candidates;
    while !(*next).is_null() {
        libc::execve(*next, argv, envp);
        error = errno();
        match error {
            libc::EACCES => denied = true,
            libc::ENOENT | libc::ENOTDIR | libc::ESTALE | libc::ENODEV | libc::ETIMEDOUT => {}
            _ => return error,
        }
        next = next.add(1);
    }
    if denied {
        libc::EACCES
    } else {
        error
    }
}
