//! One writer per campaign: an advisory lock (`flock`) on `.lock` in the
//! campaign folder, or in the shard's folder (`shards/I-of-N/.lock`) for one
//! shard of a cluster job, so that two `coreval run` (or `solve`, `check`,
//! `merge`) on the same journals cannot interleave their records.
//!
//! The holder writes its pid, host and start time into the file; a second
//! process either stops with an error that names them or, with `--wait`,
//! waits until the lock is free (Ctrl-C still stops it). The kernel drops
//! the lock when its holder exits in any way, kill -9 included, so a lock
//! file left behind never blocks anything; it is never removed (removing a
//! locked file would let a third process lock a new one beside it).

use anyhow::{bail, Context, Result};
use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// File name of the lock inside a campaign (or shard) folder.
pub const LOCK_FILE: &str = ".lock";

/// A held lock; released when dropped (or when the process ends).
#[derive(Debug)]
pub struct CampaignLock {
    _file: Option<File>,
    path: PathBuf,
}

impl CampaignLock {
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// Lock the journals in `dir` (a campaign's folder, or a shard's). When
/// another process holds them: an error naming it, or with `wait`, wait for
/// it (a note on stderr says for whom) until it ends or `cancel` is set
/// (Ctrl-C).
pub fn acquire_in(dir: &Path, wait: bool, cancel: &AtomicBool) -> Result<CampaignLock> {
    std::fs::create_dir_all(dir).map_err(|e| {
        let why = crate::store::journal::io_cause(&e);
        anyhow::Error::new(e).context(format!("cannot create {}{why}", dir.display()))
    })?;
    let path = dir.join(LOCK_FILE);
    let opened = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path);
    let mut file = match opened {
        Ok(f) => f,
        // A read-only campaign (a read-only file system, or a folder the
        // user may not write): nobody can write its journals, and the stage
        // that tries says which file and why. An existing lock is still
        // honoured (flock works on a read-only descriptor).
        Err(e)
            if matches!(
                e.kind(),
                std::io::ErrorKind::ReadOnlyFilesystem | std::io::ErrorKind::PermissionDenied
            ) =>
        {
            match File::open(&path) {
                Ok(f) => f,
                Err(_) => {
                    return Ok(CampaignLock { _file: None, path });
                }
            }
        }
        Err(e) => {
            let why = crate::store::journal::io_cause(&e);
            return Err(anyhow::Error::new(e)
                .context(format!("cannot open the lock {}{why}", path.display())));
        }
    };
    let mut said = false;
    loop {
        if try_lock(&file).with_context(|| format!("cannot lock {}", path.display()))? {
            break;
        }
        let holder = holder(&mut file);
        if !wait {
            bail!(
                "{} is in use by another coreval ({holder}; lock file {}): \
                 wait for it to end, or pass --wait",
                dir.display(),
                path.display()
            );
        }
        if !said {
            eprintln!(
                "waiting for the other coreval on {} ({holder})…",
                dir.display()
            );
            said = true;
        }
        if cancel.load(Ordering::SeqCst) {
            bail!("interrupted while waiting for {}", path.display());
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    let me = format!(
        "pid {}, host {}, started {}\n",
        std::process::id(),
        hostname(),
        now_utc()
    );
    // The holder's name is for messages only: the lock is held whether or
    // not it can be written (a read-only descriptor, a full disk).
    let _ = file
        .set_len(0)
        .and_then(|_| file.seek(SeekFrom::Start(0)))
        .and_then(|_| file.write_all(me.as_bytes()));
    Ok(CampaignLock {
        _file: Some(file),
        path,
    })
}

/// `flock(LOCK_EX | LOCK_NB)`: `Ok(false)` when another process holds it.
fn try_lock(file: &File) -> std::io::Result<bool> {
    loop {
        // SAFETY: flock(2) on a descriptor we own.
        if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } == 0 {
            return Ok(true);
        }
        let e = std::io::Error::last_os_error();
        match e.raw_os_error() {
            Some(libc::EWOULDBLOCK) => return Ok(false),
            Some(libc::EINTR) => continue,
            _ => return Err(e),
        }
    }
}

/// What the holder wrote into the lock file.
fn holder(file: &mut File) -> String {
    let mut text = String::new();
    let _ = file
        .seek(SeekFrom::Start(0))
        .and_then(|_| file.take(512).read_to_string(&mut text));
    let text = text.trim();
    if text.is_empty() {
        "holder unknown: it has not written its pid yet".into()
    } else {
        text.replace('\n', " ")
    }
}

/// This machine's host name.
pub fn hostname() -> String {
    let mut buf = [0u8; 256];
    // SAFETY: gethostname writes at most buf.len() bytes into buf.
    let r = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) };
    if r != 0 {
        return "unknown-host".into();
    }
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    String::from_utf8_lossy(&buf[..end]).into_owned()
}

/// The current time as `YYYY-MM-DD HH:MM:SS UTC`.
pub(crate) fn now_utc() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64);
    let (days, rest) = (secs.div_euclid(86400), secs.rem_euclid(86400));
    // Civil date from days since 1970-01-01 (H. Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02}:{:02} UTC",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_lock_names_the_first_holder() {
        let dir = tempfile::tempdir().unwrap();
        let first = acquire_in(dir.path(), false, &AtomicBool::new(false)).unwrap();
        let text = std::fs::read_to_string(first.path()).unwrap();
        assert!(
            text.contains(&format!("pid {}", std::process::id())),
            "{text}"
        );
        assert!(text.contains("UTC"), "{text}");
        // flock locks belong to the open file: a second open in this
        // process conflicts like another process would.
        let e = acquire_in(dir.path(), false, &AtomicBool::new(false))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("in use by another coreval") && e.contains("pid "),
            "{e}"
        );
        drop(first);
        acquire_in(dir.path(), false, &AtomicBool::new(false)).unwrap();
    }

    #[test]
    fn dates_are_civil() {
        let s = now_utc();
        assert_eq!(s.len(), "2026-01-01 00:00:00 UTC".len(), "{s}");
        assert!(s.starts_with("20"), "{s}");
    }
}
