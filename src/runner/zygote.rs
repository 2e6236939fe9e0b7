//! One trampoline per job slot, kept from run to run, so that a run costs
//! one `clone` of a small process sharing its memory (less than the `fork`
//! of `xargs`), instead of the `execve` of the trampoline executable and a
//! second fork.
//!
//! The first run of a thread starts the trampoline executable once as a
//! *zygote* (`--zygote`, connected by a Unix socket): a small,
//! single-threaded process in a process group of its own, killed when the
//! thread ends (`PR_SET_PDEATHSIG`), that ignores the stop signals and is
//! the child subreaper of the runs it starts. For each run the runner sends
//! it the prepared solver command (`PATH` candidates, arguments,
//! environment, working directory, memory limit) with the run's
//! descriptors 0–3 (`SCM_RIGHTS`). The zygote starts the solver with
//! `clone(CLONE_VM | CLONE_VFORK)` (`spawn::vfork_exec`) — its memory
//! before `execve` is the zygote's few hundred KB, so its `ru_maxrss` is
//! its own — in a process group of its own, answers its pid
//! once it has called `execve` (or the error number), and then does for it
//! what the exec'd trampoline does (`trampoline.rs`): reaps the orphans
//! that end while it runs, and when it has ended kills what is left of its
//! group (the unreaped solver still holds the group id) and every other
//! child left (daemons that left the group), reaps them all, writes the
//! trampoline's report on the run's descriptor 3 and sends the solver's
//! own status unasked. The runner signals the solver's group as it would
//! the trampoline's (a time-out, a cancel) until that answer arrives on
//! the socket, which is the run's end ([`finished`]): one message each way
//! per run, and no pidfd. The group id is free again only once the zygote
//! has killed the group and reaped the solver; a signal the runner sends
//! in the microseconds between that reap and its reading of the answer
//! finds no such group (another group could take the id only after the
//! pids wrapped around in between).
//!
//! When the zygote cannot be started or has died, runs start the
//! trampoline executable as before.
//!
//! Messages: a request is one kind byte (`S`, spawn) and a little-endian
//! `u32` length, then that many bytes of NUL-terminated strings (limit or
//! `-`, working directory, the number of candidates and the candidates,
//! the number of arguments and the arguments, then the environment). The
//! zygote answers with one line, `P PID` or `E ERRNO`, and after a `P`
//! with a second once the run has ended: `W STATUS USER_US SYS_US
//! MAXRSS_KIB` or `E ERRNO`; each padded with spaces to [`ANSWER`] bytes.

use super::reap::{self, Status, Usage};
use super::spawn::{bind_to_parent, errno, exec_candidates, vfork_exec, Prepared, SignalReset};
use super::trampoline::{self, list};
use super::RunSpec;
use std::cell::RefCell;
use std::ffi::CString;
use std::io::{self, Read, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::net::UnixStream;
use std::ptr;
use std::time::{Duration, Instant};

/// The argument that makes the trampoline executable a zygote.
pub(super) const ARG: &str = "--zygote";

/// Descriptors passed with a spawn request.
const FDS: usize = 4;

/// The length of an answer: its text, spaces and a newline (the longest,
/// `W` with four 64-bit numbers, is 82 bytes).
const ANSWER: usize = 96;

/// This thread's zygote.
enum Slot {
    Unstarted,
    Running(Zygote),
    /// It could not be started, or died: runs exec the trampoline.
    Unavailable,
}

/// A started zygote: the socket to it and its pid (our child).
struct Zygote {
    sock: UnixStream,
    pid: libc::pid_t,
}

impl Drop for Zygote {
    fn drop(&mut self) {
        // End of file on its socket ends it; reap it.
        let _ = self.sock.shutdown(std::net::Shutdown::Both);
        super::cgroup::forget(self.pid);
        // SAFETY: SIGKILL to our own child, in case it is stuck.
        unsafe { libc::kill(self.pid, libc::SIGKILL) };
        let _ = reap::reap(self.pid);
    }
}

thread_local! {
    static SLOT: RefCell<Slot> = const { RefCell::new(Slot::Unstarted) };
}

/// Starts the zygote: the trampoline executable `exe` with [`ARG`], its
/// descriptor 0 the socket.
fn start(exe: &std::path::Path) -> io::Result<Zygote> {
    let (ours, theirs) = UnixStream::pair()?;
    let mut spec = RunSpec::new(exe, vec![ARG.to_string()], Duration::ZERO);
    spec.env.extend(trampoline::environment());
    let mut prepared = Prepared::new(exe, &spec, std::path::Path::new("/"))?;
    prepared.set_argv0(trampoline::ARGV0)?;
    let pid = prepared.start([theirs.as_raw_fd(), -1, -1, -1], None)?;
    let zygote = Zygote { sock: ours, pid };
    // It lives in the slot's cgroup, so that the solvers it starts are
    // born there (`cgroup/`); one that cannot join is not used.
    if !super::cgroup::adopt(pid) {
        return Err(io::Error::other("the zygote cannot join the slot's cgroup"));
    }
    Ok(zygote)
}

/// Starts a run's solver through this thread's zygote: `prepared` is its
/// command, `fds` its descriptors 0–2 and the report's. Its pid and the
/// zygote's; `None`: no zygote here (start the trampoline executable
/// instead).
pub(super) fn spawn(
    exe: &std::path::Path,
    prepared: &Prepared,
    fds: [RawFd; FDS],
    limit: Option<libc::rlimit>,
) -> Option<io::Result<(libc::pid_t, libc::pid_t)>> {
    #[cfg(test)]
    if super::tests::NO_PIDFD.with(|no| no.get()) {
        return None; // the exec'd trampoline's fallback is under test
    }
    SLOT.with(|slot| {
        let mut slot = slot.borrow_mut();
        if matches!(*slot, Slot::Unstarted) {
            *slot = start(exe).map_or(Slot::Unavailable, Slot::Running);
        }
        let Slot::Running(z) = &mut *slot else {
            return None;
        };
        let mut payload = Vec::new();
        let mut put = |s: &[u8]| {
            payload.extend_from_slice(s);
            payload.push(0);
        };
        put(limit
            .map_or("-".to_string(), |l| l.rlim_cur.to_string())
            .as_bytes());
        put(prepared.workdir.as_bytes());
        for group in [&prepared.candidates, &prepared.argv] {
            put(group.len().to_string().as_bytes());
            for s in group {
                put(s.as_bytes());
            }
        }
        for s in &prepared.envp {
            put(s.as_bytes());
        }
        match ask(z, b'S', &payload, &fds) {
            Ok(Answer::Pid(pid)) => Some(Ok((pid, z.pid))),
            Ok(Answer::Error(e)) => Some(Err(io::Error::from_raw_os_error(e))),
            Ok(Answer::Waited(..)) | Err(_) => {
                // A zygote that does not answer as it should is dropped
                // (killed and reaped); runs exec the trampoline from now on.
                *slot = Slot::Unavailable;
                None
            }
        }
    })
}

/// This thread's zygote's socket, readable once the run it started has
/// ended (its answer: [`finished`]).
pub(super) fn socket() -> Option<RawFd> {
    SLOT.with(|slot| match &*slot.borrow() {
        Slot::Running(z) => Some(z.sock.as_raw_fd()),
        _ => None,
    })
}

/// The end of the run this thread's zygote started (see the module
/// documentation): the solver's status and own usage, once the zygote has
/// killed and reaped what was left of it.
pub(super) fn finished() -> io::Result<(Status, Usage)> {
    SLOT.with(|slot| {
        let mut slot = slot.borrow_mut();
        let Slot::Running(z) = &mut *slot else {
            return Err(io::Error::from_raw_os_error(libc::ECHILD));
        };
        match answer(z) {
            Ok(Answer::Waited(status, usage)) => Ok((reap::decode(status), usage)),
            Ok(Answer::Error(e)) => Err(io::Error::from_raw_os_error(e)),
            Ok(Answer::Pid(_)) | Err(_) => {
                *slot = Slot::Unavailable;
                Err(io::Error::from_raw_os_error(libc::ECHILD))
            }
        }
    })
}

/// What the zygote answered.
enum Answer {
    Pid(libc::pid_t),
    Waited(libc::c_int, Usage),
    Error(i32),
}

/// Sends one request (with `fds`) and reads the answer line.
fn ask(z: &mut Zygote, kind: u8, payload: &[u8], fds: &[RawFd]) -> io::Result<Answer> {
    let mut head = [kind, 0, 0, 0, 0];
    head[1..].copy_from_slice(&(payload.len() as u32).to_le_bytes());
    send_with_fds(&mut z.sock, &[&head, payload], fds)?;
    answer(z)
}

/// Reads one answer: exactly [`ANSWER`] bytes, so that the second answer
/// of a run that ended at once stays on the socket, whose readability is
/// the run's end.
fn answer(z: &mut Zygote) -> io::Result<Answer> {
    let mut line = [0u8; ANSWER];
    z.sock.read_exact(&mut line)?;
    let text = String::from_utf8_lossy(&line);
    let words: Vec<&str> = text.split_whitespace().collect();
    let bad = || io::Error::from(io::ErrorKind::InvalidData);
    let num = |w: &str| w.parse::<i64>().map_err(|_| bad());
    match words.as_slice() {
        ["P", pid] => Ok(Answer::Pid(num(pid)? as libc::pid_t)),
        ["E", e] => Ok(Answer::Error(num(e)? as i32)),
        ["W", status, user, sys, rss] => Ok(Answer::Waited(
            num(status)? as libc::c_int,
            Usage {
                user: num(user)? as f64 / 1e6,
                sys: num(sys)? as f64 / 1e6,
                max_rss: (num(rss)?.max(0) as u64).saturating_mul(1024),
            },
        )),
        _ => Err(bad()),
    }
}

/// `sendmsg` of `parts` (two: the head and the payload) with `fds` as
/// `SCM_RIGHTS` on the first byte; what a full socket buffer leaves is
/// written after it.
fn send_with_fds(sock: &mut UnixStream, parts: &[&[u8]; 2], fds: &[RawFd]) -> io::Result<()> {
    let mut control = [0u8; 64];
    let mut iov = parts.map(|p| libc::iovec {
        iov_base: p.as_ptr() as *mut libc::c_void,
        iov_len: p.len(),
    });
    // SAFETY: msghdr is plain data; the pointers set below outlive the call.
    let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
    msg.msg_iov = iov.as_mut_ptr();
    msg.msg_iovlen = iov.len();
    if !fds.is_empty() {
        let len = std::mem::size_of_val(fds) as u32;
        // SAFETY: CMSG_SPACE/CMSG_LEN compute sizes; `control` is large
        // enough for 4 descriptors; CMSG_FIRSTHDR points into it.
        unsafe {
            msg.msg_control = control.as_mut_ptr().cast();
            msg.msg_controllen = libc::CMSG_SPACE(len) as usize;
            let c = libc::CMSG_FIRSTHDR(&msg);
            (*c).cmsg_level = libc::SOL_SOCKET;
            (*c).cmsg_type = libc::SCM_RIGHTS;
            (*c).cmsg_len = libc::CMSG_LEN(len) as usize;
            ptr::copy_nonoverlapping(fds.as_ptr(), libc::CMSG_DATA(c).cast(), fds.len());
        }
    }
    let sent = loop {
        // SAFETY: a valid msghdr on our socket.
        let n = unsafe { libc::sendmsg(sock.as_raw_fd(), &msg, libc::MSG_NOSIGNAL) };
        if n > 0 {
            break n as usize;
        }
        if n < 0 && errno() == libc::EINTR {
            continue;
        }
        return Err(if n < 0 {
            io::Error::last_os_error()
        } else {
            io::ErrorKind::WriteZero.into()
        });
    };
    let [head, payload] = *parts;
    if sent < head.len() {
        sock.write_all(&head[sent..])?;
        return sock.write_all(payload);
    }
    sock.write_all(payload.get(sent - head.len()..).unwrap_or_default())
}

/// The zygote's loop on the socket `sock`: serves requests until end of
/// file; returns its exit code.
///
/// # Safety
/// Only in a single-threaded process (it starts children in its memory).
pub(super) unsafe fn serve(sock: RawFd) -> i32 {
    for sig in trampoline::STOP_SIGNALS.into_iter().chain([libc::SIGPIPE]) {
        libc::signal(sig, libc::SIG_IGN);
    }
    libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
    libc::fcntl(sock, libc::F_SETFD, libc::FD_CLOEXEC);
    // The actions are set: what each solver resets is known.
    let reset = SignalReset::new(&[libc::SIGPIPE, libc::SIGTERM, libc::SIGINT, libc::SIGHUP]);
    // SAFETY: descriptor 0, handed to us by the runner, is ours.
    let mut stream = UnixStream::from_raw_fd(sock);
    loop {
        let Some((kind, mut fds, payload)) = receive(&mut stream) else {
            return 0;
        };
        let started = match kind {
            b'S' if fds.len() == FDS => start_solver(&fds, &payload, &reset),
            _ => Err(libc::EINVAL),
        };
        // Only the solver holds its end of the output pipes (their end of
        // file is the end of its output); the report stays with us.
        let report = fds.pop();
        drop(fds);
        let answer = match &started {
            Ok((pid, _)) => format!("P {pid}"),
            Err(e) => format!("E {e}"),
        };
        if !send_answer(&mut stream, &answer) {
            return 0;
        }
        if let (Ok((pid, at)), Some(report)) = (started, report) {
            if !follow(&mut stream, pid, at, report.as_raw_fd()) {
                return 0;
            }
        }
    }
}

/// One request: its kind, descriptors and payload; `None` at end of file
/// or on a malformed request.
fn receive(stream: &mut UnixStream) -> Option<(u8, Vec<OwnedFd>, Vec<u8>)> {
    let mut head = [0u8; 5];
    let mut control = [0u8; 64];
    let mut iov = libc::iovec {
        iov_base: head.as_mut_ptr().cast(),
        iov_len: head.len(),
    };
    // SAFETY: msghdr is plain data; the pointers outlive the call.
    let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
    msg.msg_iov = &mut iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control.as_mut_ptr().cast();
    msg.msg_controllen = control.len();
    let n = loop {
        // SAFETY: recvmsg into our buffers.
        let n = unsafe { libc::recvmsg(stream.as_raw_fd(), &mut msg, libc::MSG_CMSG_CLOEXEC) };
        if n >= 0 || errno() != libc::EINTR {
            break n;
        }
    };
    if n <= 0 {
        return None;
    }
    let mut fds = Vec::new();
    // SAFETY: walks the control messages the kernel wrote into `control`.
    unsafe {
        let mut c = libc::CMSG_FIRSTHDR(&msg);
        while !c.is_null() {
            if (*c).cmsg_level == libc::SOL_SOCKET && (*c).cmsg_type == libc::SCM_RIGHTS {
                let data = libc::CMSG_DATA(c).cast::<RawFd>();
                let count = ((*c).cmsg_len as usize - libc::CMSG_LEN(0) as usize) / 4;
                for k in 0..count {
                    fds.push(OwnedFd::from_raw_fd(ptr::read_unaligned(data.add(k))));
                }
            }
            c = libc::CMSG_NXTHDR(&msg, c);
        }
    }
    stream.read_exact(&mut head[n as usize..]).ok()?;
    let len = u32::from_le_bytes(head[1..].try_into().expect("4 bytes")) as usize;
    let mut payload = vec![0u8; len];
    stream.read_exact(&mut payload).ok()?;
    Some((head[0], fds, payload))
}

/// Starts the solver of a spawn request: its pid and when it was started
/// once it has called `execve`, or the error number (the failed child
/// reaped).
///
/// # Safety
/// Only in the single-threaded zygote.
unsafe fn start_solver(
    fds: &[OwnedFd],
    payload: &[u8],
    reset: &SignalReset,
) -> Result<(libc::pid_t, Instant), i32> {
    // Every string ends with a NUL: without the last one, the splits are
    // the strings.
    let mut words = payload
        .strip_suffix(&[0])
        .unwrap_or(payload)
        .split(|&b| b == 0)
        .map(|w| CString::new(w).expect("split at NUL"));
    let (limit, workdir, cands, argv, envp) = parse_spawn(&mut words).ok_or(libc::EINVAL)?;
    let (cands, argv, envp) = (list(&cands), list(&argv), list(&envp));
    let raw: Vec<RawFd> = fds.iter().map(AsRawFd::as_raw_fd).collect();
    let me = libc::getpid();
    let at = Instant::now();
    // Not `fork`: copying the zygote's page tables, and the child's `execve`
    // dropping the copy, cost more than the rest of a run's start. The
    // child's `ru_maxrss` starts all the same from the zygote's few hundred
    // KB (the kernel keeps the peak of the memory `execve` leaves).
    let mut child = || {
        let error = become_solver(me, &raw, &workdir, limit.as_ref(), reset);
        if error != 0 {
            return error;
        }
        exec_candidates(cands.as_ptr(), argv.as_ptr(), envp.as_ptr())
    };
    match vfork_exec(&mut child) {
        // The child made its process group before `execve`, so it exists
        // before the runner can signal it.
        Ok(pid) => Ok((pid, at)),
        Err(e) => Err(e.raw_os_error().unwrap_or(libc::EIO)),
    }
}

/// The fields of a spawn request: limit, working directory, candidates,
/// arguments, environment.
type Spawn = (
    Option<libc::rlimit>,
    CString,
    Vec<CString>,
    Vec<CString>,
    Vec<CString>,
);

fn parse_spawn(words: &mut impl Iterator<Item = CString>) -> Option<Spawn> {
    let limit = match words.next()?.to_bytes() {
        b"-" => None,
        v => {
            let v: libc::rlim_t = std::str::from_utf8(v).ok()?.parse().ok()?;
            Some(libc::rlimit {
                rlim_cur: v,
                rlim_max: v,
            })
        }
    };
    let workdir = words.next()?;
    let mut group = || -> Option<Vec<CString>> {
        let n: usize = words.next()?.to_str().ok()?.parse().ok()?;
        let v: Vec<CString> = words.by_ref().take(n).collect();
        (v.len() == n).then_some(v)
    };
    let (cands, argv) = (group()?, group()?);
    Some((limit, workdir, cands, argv, words.collect()))
}

/// In the solver's process before `execve`: what `spawn.rs` does for a child
/// (signals as a program starts with them, a process group of its own,
/// killed with its parent, descriptors 0–3, the working directory) and the
/// memory limit; 0 or the error number.
///
/// # Safety
/// Only in the child of [`vfork_exec`]: async-signal-safe calls only.
unsafe fn become_solver(
    zygote: libc::pid_t,
    fds: &[RawFd],
    workdir: &CString,
    limit: Option<&libc::rlimit>,
    reset: &SignalReset,
) -> i32 {
    reset.apply();
    let error = bind_to_parent(zygote, true, limit);
    if error != 0 {
        return error;
    }
    // Copies above the targets first, so that no source is a target
    // already written (the copies are closed by `execve`).
    let mut high = [0; FDS];
    for (copy, &fd) in high.iter_mut().zip(fds) {
        *copy = libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, 10);
        if *copy < 0 {
            return errno();
        }
    }
    // Descriptor 3, the report, is the trampoline's only.
    for (target, &fd) in high.iter().enumerate().take(3) {
        if libc::dup2(fd, target as libc::c_int) < 0 {
            return errno();
        }
    }
    if libc::chdir(workdir.as_ptr()) != 0 {
        return errno();
    }
    0
}

/// The trampoline's work for the started `solver` (started at `at`): waits
/// for it, reaping other children as they end; kills and reaps what is
/// left, writes the report on `report` and sends the solver's status.
/// False when the runner is gone.
///
/// # Safety
/// Only in the single-threaded zygote.
unsafe fn follow(stream: &mut UnixStream, solver: libc::pid_t, at: Instant, report: RawFd) -> bool {
    let mut total = Usage::default();
    trampoline::wait_for(solver, &mut total);
    let wall = at.elapsed().as_secs_f64();
    // The unreaped solver still holds the group id.
    libc::kill(-solver, libc::SIGKILL);
    trampoline::sweep(solver, &mut total);
    let mut status = 0;
    // SAFETY: zeroed rusage is a valid out-parameter.
    let mut ru: libc::rusage = std::mem::zeroed();
    let r = loop {
        let r = libc::wait4(solver, &mut status, libc::__WALL, &mut ru);
        if r >= 0 || errno() != libc::EINTR {
            break r;
        }
    };
    if r < 0 {
        return send_answer(stream, &format!("E {}", errno()));
    }
    let us = |t: libc::timeval| t.tv_sec * 1_000_000 + t.tv_usec;
    let (user, sys, kib) = (us(ru.ru_utime), us(ru.ru_stime), ru.ru_maxrss);
    total.add(Usage {
        user: user as f64 / 1e6,
        sys: sys as f64 / 1e6,
        max_rss: (kib.max(0) as u64).saturating_mul(1024),
    });
    let line = format!(
        "ok {status} {} {} {} {wall}\n",
        total.user, total.sys, total.max_rss
    );
    libc::write(report, line.as_ptr().cast(), line.len());
    send_answer(stream, &format!("W {status} {user} {sys} {kib}"))
}

/// Writes `text` as one answer: padded with spaces to [`ANSWER`] bytes,
/// the last a newline. False when the runner is gone.
fn send_answer(stream: &mut UnixStream, text: &str) -> bool {
    let mut line = [b' '; ANSWER];
    let n = text.len().min(ANSWER - 1);
    line[..n].copy_from_slice(&text.as_bytes()[..n]);
    line[ANSWER - 1] = b'\n';
    stream.write_all(&line).is_ok()
}
