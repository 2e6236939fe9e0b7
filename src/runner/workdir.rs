//! Working directories for runs that are not given one: every run starts in
//! an empty directory of its own, which is removed (or emptied) afterwards.
//!
//! Directories are leased from a pool under one per-process root
//! (`$TMPDIR/coreval-work-XXXXXX/<n>`) instead of being created and removed
//! per run: on a disk-backed /tmp a `mkdir` + `rmdir` pair cost about 3 ms of
//! wall time and 140 µs of CPU on the development machine (ext4 with
//! `discard`), more than a trivial solver run itself. A directory goes back
//! to the pool only if it is found empty after the run; one the solver left
//! files in is removed and replaced by a new one. The root is removed when
//! the process exits normally (an `atexit` handler).
//!
//! A killed process leaves its root behind. The root holds an owner file
//! (`.owner`: pid and host), and the first lease of a process removes the
//! roots of this user whose owner, on this host, is no longer alive; a
//! root without an owner file, or of another host (a shared `$TMPDIR`), is
//! left alone.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

struct Pool {
    root: PathBuf,
    idle: Vec<PathBuf>,
    next: u64,
}

static POOL: Mutex<Option<Pool>> = Mutex::new(None);

/// An empty directory leased for one run; give it back with
/// [`WorkDir::release`].
pub(super) struct WorkDir {
    path: PathBuf,
}

impl WorkDir {
    /// An empty directory: an idle one from the pool or a new one.
    pub(super) fn lease() -> io::Result<WorkDir> {
        let mut guard = POOL.lock().unwrap_or_else(|e| e.into_inner());
        if guard.is_none() {
            reap_stale(&std::env::temp_dir());
            let root = tempfile::Builder::new().prefix(PREFIX).tempdir()?.keep();
            fs::write(root.join(OWNER), owner_line(std::process::id()))?;
            *guard = Some(Pool {
                root,
                idle: Vec::new(),
                next: 0,
            });
            // SAFETY: registers a plain extern "C" function.
            unsafe { libc::atexit(remove_root) };
        }
        let pool = guard.as_mut().ok_or_else(|| io::Error::other("no pool"))?;
        if let Some(path) = pool.idle.pop() {
            return Ok(WorkDir { path });
        }
        pool.next += 1;
        let path = pool.root.join(pool.next.to_string());
        drop(guard);
        // `_all`: the root may have been removed by a /tmp cleaner.
        fs::create_dir_all(&path)?;
        Ok(WorkDir { path })
    }

    pub(super) fn path(&self) -> &Path {
        &self.path
    }

    /// Returns the directory to the pool if the run left it empty (and it
    /// is still a plain directory); otherwise removes it.
    pub(super) fn release(self) {
        let reusable = fs::symlink_metadata(&self.path).is_ok_and(|m| m.is_dir())
            && fs::read_dir(&self.path).is_ok_and(|mut entries| entries.next().is_none());
        if !reusable {
            let _ = fs::remove_dir_all(&self.path);
            let _ = fs::remove_file(&self.path);
            return;
        }
        let mut guard = POOL.lock().unwrap_or_else(|e| e.into_inner());
        match guard.as_mut() {
            Some(pool) => pool.idle.push(self.path),
            None => {
                let _ = fs::remove_dir(&self.path);
            }
        }
    }
}

/// Name prefix of a pool's root in `$TMPDIR`.
const PREFIX: &str = "coreval-work-";
/// The owner file inside a root.
const OWNER: &str = ".owner";

/// `PID HOST`, the content of an owner file.
fn owner_line(pid: u32) -> String {
    format!("{pid} {}\n", crate::store::lock::hostname())
}

/// Remove the roots under `tmp` left by dead processes of this user on
/// this host (see the module doc); returns how many.
pub(crate) fn reap_stale(tmp: &Path) -> usize {
    use std::os::unix::fs::MetadataExt;
    let Ok(entries) = fs::read_dir(tmp) else {
        return 0;
    };
    // SAFETY: geteuid(2) cannot fail.
    let me = unsafe { libc::geteuid() };
    let host = crate::store::lock::hostname();
    let mut reaped = 0;
    for entry in entries.flatten() {
        if !entry.file_name().to_string_lossy().starts_with(PREFIX) {
            continue;
        }
        let root = entry.path();
        let mine = fs::symlink_metadata(&root).is_ok_and(|m| m.is_dir() && m.uid() == me);
        if !mine {
            continue;
        }
        let Ok(owner) = crate::store::regular::read_to_string(&root.join(OWNER)) else {
            continue;
        };
        let mut words = owner.split_whitespace();
        let (Some(Ok(pid)), Some(h)) = (words.next().map(str::parse::<i32>), words.next()) else {
            continue;
        };
        // SAFETY: kill(2) with signal 0 only checks that the process exists.
        let dead = pid > 0
            && unsafe { libc::kill(pid, 0) } != 0
            && io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH);
        if h == host && dead && fs::remove_dir_all(&root).is_ok() {
            reaped += 1;
        }
    }
    reaped
}

/// Removes the pool's root at process exit. Directories still leased by
/// running threads go with it; their runs are ending with the process.
extern "C" fn remove_root() {
    let Ok(mut guard) = POOL.try_lock() else {
        return;
    };
    if let Some(pool) = guard.take() {
        let _ = fs::remove_dir_all(&pool.root);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roots_of_dead_processes_are_reaped() {
        let tmp = tempfile::tempdir().unwrap();
        let root = |name: &str, owner: Option<String>| {
            let p = tmp.path().join(format!("{PREFIX}{name}"));
            fs::create_dir_all(p.join("1")).unwrap();
            if let Some(o) = owner {
                fs::write(p.join(OWNER), o).unwrap();
            }
            p
        };
        // A pid that is certainly dead: a child that has been waited for.
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let dead = child.id();
        child.wait().unwrap();
        let stale = root("dead", Some(owner_line(dead)));
        let alive = root("alive", Some(owner_line(std::process::id())));
        let elsewhere = root("elsewhere", Some(format!("{dead} another-host\n")));
        let unknown = root("old", None);
        assert_eq!(reap_stale(tmp.path()), 1);
        assert!(!stale.exists());
        assert!(alive.exists() && elsewhere.exists() && unknown.exists());
    }

    #[test]
    fn dirty_directories_are_not_reused() {
        let a = WorkDir::lease().unwrap();
        let a_path = a.path().to_path_buf();
        assert!(fs::read_dir(&a_path).unwrap().next().is_none());
        fs::create_dir(a_path.join("sub")).unwrap();
        fs::write(a_path.join("sub/file"), b"x").unwrap();
        a.release();
        assert!(!a_path.exists(), "a dirty directory is removed");

        let b = WorkDir::lease().unwrap();
        assert!(fs::read_dir(b.path()).unwrap().next().is_none());
        let b_path = b.path().to_path_buf();
        b.release();
        assert!(b_path.is_dir(), "a clean directory stays for reuse");
    }
}
