//! One trampoline server per job slot, so that a run costs a `fork` of a
//! small process instead of the `execve` of the trampoline executable.
//!
//! The first run of a thread starts the trampoline executable once as a
//! *zygote* (`--zygote`, connected by a Unix socket): a small,
//! single-threaded process in a process group of its own, killed when the
//! thread ends (`PR_SET_PDEATHSIG`), that ignores the stop signals. For each
//! later run of that thread the runner sends it the prepared solver command
//! (`PATH` candidates, arguments, environment, working directory, memory
//! limit) with the run's descriptors 0–3 (`SCM_RIGHTS`); the zygote forks,
//! and the copy becomes the run's trampoline exactly as the exec'd one does
//! (`trampoline.rs`: its own process group, the subreaper of the run, the
//! solver forked from its small memory, the report on descriptor 3) — only
//! the execution of the trampoline's executable is saved. The zygote
//! answers the trampoline's pid; the runner supervises it through a pidfd
//! (it is not the runner's child) and, once done with its group, asks the
//! zygote to reap it ([`reap`]), so that the trampoline's pid, and with it
//! the group id, stays reserved while the runner signals the group.
//!
//! Without a pidfd (Linux < 5.3), or when the zygote cannot be started or
//! has died, runs start the trampoline executable as before.
//!
//! Messages: a request is one kind byte (`S` spawn, `R` reap) and a
//! little-endian `u32` length, then that many bytes of NUL-terminated
//! strings (spawn: limit or `-`, working directory, the number of
//! candidates and the candidates, the number of arguments and the
//! arguments, then the environment; reap: the pid). The answer is one line:
//! `P PID`, `W STATUS USER_US SYS_US MAXRSS_KIB`, or `E ERRNO`.

use super::reap::{self, Status, Usage};
use super::spawn::{errno, reset_signals, Prepared};
use super::trampoline::{self, list, run_solver};
use super::RunSpec;
use std::cell::RefCell;
use std::ffi::CString;
use std::io::{self, Read, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::net::UnixStream;
use std::ptr;
use std::time::Duration;

/// The argument that makes the trampoline executable a zygote.
pub(super) const ARG: &str = "--zygote";

/// Descriptors passed with a spawn request.
const FDS: usize = 4;

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
        // SAFETY: SIGKILL to our own child, in case it is stuck.
        unsafe { libc::kill(self.pid, libc::SIGKILL) };
        let _ = reap::reap(self.pid);
    }
}

thread_local! {
    static SLOT: RefCell<Slot> = const { RefCell::new(Slot::Unstarted) };
}

/// Whether `pidfd_open` works here (needed to watch a trampoline that is
/// not our child).
fn have_pidfd() -> bool {
    static HAVE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *HAVE.get_or_init(|| {
        // SAFETY: pidfd_open of our own pid; the descriptor is closed.
        let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, libc::getpid(), 0) };
        if fd >= 0 {
            // SAFETY: a descriptor we just opened.
            unsafe { libc::close(fd as libc::c_int) };
        }
        fd >= 0
    })
}

/// Starts the zygote: the trampoline executable `exe` with [`ARG`], its
/// descriptor 0 the socket.
fn start(exe: &std::path::Path) -> io::Result<Zygote> {
    let (ours, theirs) = UnixStream::pair()?;
    let mut spec = RunSpec::new(exe, vec![ARG.to_string()], Duration::ZERO);
    let (var, off) = trampoline::NO_THP;
    spec.env.push((var.into(), off.into()));
    let mut prepared = Prepared::new(exe, &spec, std::path::Path::new("/"))?;
    prepared.set_argv0(trampoline::ARGV0)?;
    let pid = prepared.start([theirs.as_raw_fd(), -1, -1, -1], None)?;
    Ok(Zygote { sock: ours, pid })
}

/// Starts a run's trampoline through this thread's zygote: `prepared` is
/// the solver's command, `fds` its descriptors 0–3. `None`: no zygote here
/// (start the trampoline executable instead).
pub(super) fn spawn(
    exe: &std::path::Path,
    prepared: &Prepared,
    fds: [RawFd; FDS],
    limit: Option<libc::rlimit>,
) -> Option<io::Result<libc::pid_t>> {
    if !have_pidfd() {
        return None;
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
            Ok(Answer::Pid(pid)) => Some(Ok(pid)),
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

/// Reaps the trampoline `pid` that this thread's zygote started.
pub(super) fn reap(pid: libc::pid_t) -> io::Result<(Status, Usage)> {
    SLOT.with(|slot| {
        let mut slot = slot.borrow_mut();
        let Slot::Running(z) = &mut *slot else {
            return Err(io::Error::from_raw_os_error(libc::ECHILD));
        };
        match ask(z, b'R', format!("{pid}\0").as_bytes(), &[]) {
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
    send_with_fds(z.sock.as_raw_fd(), &head, fds)?;
    z.sock.write_all(payload)?;
    let mut line = Vec::with_capacity(64);
    let mut byte = [0u8; 1];
    while byte[0] != b'\n' {
        if z.sock.read(&mut byte)? == 0 {
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
        line.push(byte[0]);
    }
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

/// `sendmsg` of `bytes` with `fds` as `SCM_RIGHTS` (all bytes or an error).
fn send_with_fds(sock: RawFd, bytes: &[u8], fds: &[RawFd]) -> io::Result<()> {
    let mut control = [0u8; 64];
    let mut iov = libc::iovec {
        iov_base: bytes.as_ptr() as *mut libc::c_void,
        iov_len: bytes.len(),
    };
    // SAFETY: msghdr is plain data; the pointers set below outlive the call.
    let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
    msg.msg_iov = &mut iov;
    msg.msg_iovlen = 1;
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
    loop {
        // SAFETY: a valid msghdr on our socket.
        let n = unsafe { libc::sendmsg(sock, &msg, libc::MSG_NOSIGNAL) };
        if n == bytes.len() as isize {
            return Ok(());
        }
        if n < 0 && errno() == libc::EINTR {
            continue;
        }
        return Err(if n < 0 {
            io::Error::last_os_error()
        } else {
            io::ErrorKind::WriteZero.into()
        });
    }
}

/// The zygote's loop on the socket `sock`: serves requests until end of
/// file; returns its exit code.
///
/// # Safety
/// Only in a single-threaded process (it forks and the copy runs on).
pub(super) unsafe fn serve(sock: RawFd) -> i32 {
    for sig in [libc::SIGTERM, libc::SIGINT, libc::SIGHUP, libc::SIGPIPE] {
        libc::signal(sig, libc::SIG_IGN);
    }
    libc::fcntl(sock, libc::F_SETFD, libc::FD_CLOEXEC);
    // SAFETY: descriptor 0, handed to us by the runner, is ours.
    let mut stream = UnixStream::from_raw_fd(sock);
    loop {
        let Some((kind, fds, payload)) = receive(&mut stream) else {
            return 0;
        };
        let answer = match kind {
            b'S' if fds.len() == FDS => spawn_trampoline(sock, &fds, &payload),
            b'R' => waited(&payload),
            _ => format!("E {}\n", libc::EINVAL),
        };
        drop(fds);
        if stream.write_all(answer.as_bytes()).is_err() {
            return 0;
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

/// `W …` for the trampoline named by `payload`, reaped, or `E ERRNO`.
fn waited(payload: &[u8]) -> String {
    let pid = std::str::from_utf8(payload)
        .ok()
        .and_then(|s| s.trim_end_matches('\0').parse::<libc::pid_t>().ok())
        .filter(|&p| p > 0);
    let Some(pid) = pid else {
        return format!("E {}\n", libc::EINVAL);
    };
    let mut status = 0;
    // SAFETY: zeroed rusage is a valid out-parameter.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    let r = loop {
        // SAFETY: wait4 on one child of ours with valid pointers.
        let r = unsafe { libc::wait4(pid, &mut status, libc::__WALL, &mut ru) };
        if r >= 0 || errno() != libc::EINTR {
            break r;
        }
    };
    if r < 0 {
        return format!("E {}\n", errno());
    }
    let us = |t: libc::timeval| t.tv_sec as i64 * 1_000_000 + t.tv_usec as i64;
    format!(
        "W {status} {} {} {}\n",
        us(ru.ru_utime),
        us(ru.ru_stime),
        ru.ru_maxrss
    )
}

/// Forks a run's trampoline from the spawn request; `P PID` or `E ERRNO`.
///
/// # Safety
/// Only in the single-threaded zygote.
unsafe fn spawn_trampoline(sock: RawFd, fds: &[OwnedFd], payload: &[u8]) -> String {
    // Every string ends with a NUL: without the last one, the splits are
    // the strings.
    let mut words = payload
        .strip_suffix(&[0])
        .unwrap_or(payload)
        .split(|&b| b == 0)
        .map(|w| CString::new(w).expect("split at NUL"));
    let Some((limit, workdir, cands, argv, envp)) = parse_spawn(&mut words) else {
        return format!("E {}\n", libc::EINVAL);
    };
    let (cands, argv, envp) = (list(&cands), list(&argv), list(&envp));
    let raw: Vec<RawFd> = fds.iter().map(AsRawFd::as_raw_fd).collect();
    let me = libc::getpid();
    let pid = libc::fork();
    if pid == 0 {
        libc::close(sock);
        let code = become_trampoline(me, &raw, &workdir);
        let code = match code {
            0 => run_solver(limit, &cands, &argv, envp.as_ptr()),
            e => {
                trampoline::report(&format!("exec-error {e}\n"));
                127
            }
        };
        libc::_exit(code);
    }
    if pid < 0 {
        return format!("E {}\n", errno());
    }
    // Also here, so that the group exists before the runner signals it.
    libc::setpgid(pid, pid);
    format!("P {pid}\n")
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

/// In the forked copy: what `spawn.rs` does before `execve` for a
/// trampoline (signals as a program starts with them, a process group of
/// its own, killed with the zygote, descriptors 0–3, the working
/// directory); 0 or the error number.
///
/// # Safety
/// Only in the child of the zygote's fork.
unsafe fn become_trampoline(zygote: libc::pid_t, fds: &[RawFd], workdir: &CString) -> i32 {
    if fds.len() != FDS {
        return libc::EINVAL;
    }
    reset_signals(&[libc::SIGPIPE, libc::SIGTERM, libc::SIGINT, libc::SIGHUP]);
    if libc::setpgid(0, 0) != 0 || libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0) != 0
    {
        return errno();
    }
    if libc::getppid() != zygote {
        return libc::ESRCH;
    }
    // Copies above the targets first, so that no source is a target
    // already written (the copies are closed when the solver starts).
    let mut high = [0; FDS];
    for (copy, &fd) in high.iter_mut().zip(fds) {
        *copy = libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, 10);
        if *copy < 0 {
            return errno();
        }
    }
    for (target, &fd) in high.iter().enumerate() {
        if libc::dup2(fd, target as libc::c_int) < 0 {
            return errno();
        }
    }
    if libc::chdir(workdir.as_ptr()) != 0 {
        return errno();
    }
    0
}
