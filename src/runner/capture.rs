//! Capped capture of one output pipe (stdout or stderr) of a run.
//!
//! A solver may print gigabytes or never close its pipe, so a stream keeps
//! only its first `cap` bytes and merely counts the rest while still
//! draining the pipe at full speed (large non-blocking reads). Draining
//! matters: a writer blocked on a full pipe would otherwise look like a
//! timeout. The supervision loop in `mod.rs` polls the descriptors and calls
//! [`Capture::read_available`] when one is readable.

use std::io;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};

/// Reads per call before returning to the poll loop, so that a writer that
/// never pauses cannot starve the deadline and exit checks (64 × 64 KiB).
const READS_PER_CALL: usize = 64;

/// Pipe capacity asked for once a stream turns out to flood: fewer, larger
/// reads. The default (64 KiB) is kept for ordinary runs because large pipe
/// buffers count against the per-user pipe quota.
const FLOOD_PIPE_SIZE: libc::c_int = 1 << 20;

/// Bytes read from a stream after which it counts as a flood.
const FLOOD_THRESHOLD: u64 = 4 << 20;

/// One captured stream.
pub(super) struct Capture {
    fd: Option<OwnedFd>,
    cap: usize,
    kept: Vec<u8>,
    dropped: u64,
    grown: bool,
}

impl Capture {
    /// Takes the read end of a pipe and makes it non-blocking.
    pub(super) fn new(fd: OwnedFd, cap: usize) -> Capture {
        let raw = fd.as_raw_fd();
        // SAFETY: fcntl on a descriptor we own. A fresh pipe has no other
        // status flags to keep. Failure leaves it blocking, which only
        // matters if poll reports readiness spuriously.
        unsafe { libc::fcntl(raw, libc::F_SETFL, libc::O_NONBLOCK) };
        Capture {
            fd: Some(fd),
            cap,
            kept: Vec::new(),
            dropped: 0,
            grown: false,
        }
    }

    /// The descriptor to poll, while the stream is open.
    pub(super) fn raw_fd(&self) -> Option<RawFd> {
        self.fd.as_ref().map(|fd| fd.as_raw_fd())
    }

    /// Reads what the pipe holds now (bounded by [`READS_PER_CALL`]); closes
    /// the stream at end of file or on a read error.
    pub(super) fn read_available(&mut self, buf: &mut [u8]) {
        let Some(raw) = self.raw_fd() else { return };
        for _ in 0..READS_PER_CALL {
            // SAFETY: `buf` is a valid writable slice of `buf.len()` bytes.
            let n = unsafe { libc::read(raw, buf.as_mut_ptr().cast(), buf.len()) };
            if n > 0 {
                self.keep(&buf[..n as usize]);
                continue;
            }
            if n == 0 {
                self.close();
                return;
            }
            match io::Error::last_os_error().raw_os_error() {
                Some(libc::EINTR) => continue,
                Some(libc::EAGAIN) => return,
                _ => {
                    self.close();
                    return;
                }
            }
        }
    }

    fn keep(&mut self, data: &[u8]) {
        let room = self.cap.saturating_sub(self.kept.len());
        let take = room.min(data.len());
        self.kept.extend_from_slice(&data[..take]);
        self.dropped += (data.len() - take) as u64;
        if !self.grown && self.dropped + self.kept.len() as u64 > FLOOD_THRESHOLD {
            self.grown = true;
            if let Some(raw) = self.raw_fd() {
                // SAFETY: fcntl on a descriptor we own; failure (quota,
                // pipe-max-size) just keeps the default capacity.
                unsafe { libc::fcntl(raw, libc::F_SETPIPE_SZ, FLOOD_PIPE_SIZE) };
            }
        }
    }

    /// Whether the stream has grown into a flood (the caller then uses a
    /// larger read buffer).
    pub(super) fn is_flooding(&self) -> bool {
        self.grown
    }

    /// Stops reading; the write end then gets EPIPE/SIGPIPE.
    pub(super) fn close(&mut self) {
        self.fd = None;
    }

    /// The kept bytes and the count of dropped ones.
    pub(super) fn finish(self) -> (Vec<u8>, u64) {
        (self.kept, self.dropped)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::os::fd::FromRawFd;

    fn pipe() -> (OwnedFd, std::fs::File) {
        let mut fds = [0; 2];
        // SAFETY: pipe2 fills two fresh descriptors that we then own.
        let r = unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) };
        assert_eq!(r, 0);
        // SAFETY: both descriptors are fresh and owned by nobody else.
        unsafe {
            (
                OwnedFd::from_raw_fd(fds[0]),
                std::fs::File::from_raw_fd(fds[1]),
            )
        }
    }

    #[test]
    fn keeps_cap_and_counts_rest() {
        let (r, mut w) = pipe();
        let mut c = Capture::new(r, 10);
        w.write_all(b"0123456789abcdef").unwrap();
        let mut buf = [0u8; 4];
        c.read_available(&mut buf);
        assert!(c.raw_fd().is_some(), "still open, pipe merely empty");
        drop(w);
        c.read_available(&mut buf);
        assert!(c.raw_fd().is_none(), "closed at end of file");
        let (kept, dropped) = c.finish();
        assert_eq!(kept, b"0123456789");
        assert_eq!(dropped, 6);
    }

    #[test]
    fn zero_cap_keeps_nothing() {
        let (r, mut w) = pipe();
        let mut c = Capture::new(r, 0);
        w.write_all(&[0xff; 100]).unwrap();
        drop(w);
        c.read_available(&mut [0u8; 64]);
        let (kept, dropped) = c.finish();
        assert!(kept.is_empty());
        assert_eq!(dropped, 100);
    }
}
