//! Which programs a run's process tree executes, seen from `/proc`: the
//! basis of a solver's team by observation (a wrapper script that runs a
//! Python script that runs z3 is team z3 even when no argument names z3).
//!
//! The tree is walked from the run's leader through
//! `/proc/PID/task/TID/children`, and each member's `/proc/PID/exe` (the
//! program after `execve`, links resolved by the kernel) is recorded. The
//! walk happens right after the spawn, then at most every [`SAMPLE`] while
//! the run goes on (the supervision loop wakes at least that often), and
//! once more when the leader has exited (its zombie is still the parent of
//! a live child then). A child that starts and ends between two looks is
//! missed: observation proves that a program ran, never that one did not.
//! Processes of another user (setuid) cannot be read and are skipped.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// Time between two looks at the tree.
pub const SAMPLE: Duration = Duration::from_millis(10);
/// Processes looked at per walk, at most (a fork bomb is not followed).
const MAX_PROCS: usize = 4096;

/// The programs seen so far in one run's tree.
pub(super) struct Observer {
    seen: BTreeSet<PathBuf>,
    last: Option<Instant>,
    /// The zygote that started the run (`zygote.rs`): orphans of the run
    /// are its children.
    zygote: Option<libc::pid_t>,
}

impl Observer {
    pub(super) fn new(zygote: Option<libc::pid_t>) -> Observer {
        Observer {
            seen: BTreeSet::new(),
            last: None,
            zygote,
        }
    }

    /// Look at the tree of `leader` unless the last look was under
    /// [`SAMPLE`] ago (`force`: look anyway).
    pub(super) fn sample(&mut self, leader: libc::pid_t, force: bool) {
        let now = Instant::now();
        if !force && self.last.is_some_and(|t| now.duration_since(t) < SAMPLE) {
            return;
        }
        self.last = Some(now);
        let mut pids = tree(leader);
        for orphan in self.zygote.map_or(Vec::new(), |z| children(&z.to_string())) {
            if !pids.contains(&orphan) {
                pids.extend(tree(orphan));
            }
        }
        for pid in pids {
            if let Ok(exe) = std::fs::read_link(format!("/proc/{pid}/exe")) {
                self.seen.insert(exe);
            }
        }
    }

    /// Every program seen, sorted.
    pub(super) fn finish(self) -> Vec<PathBuf> {
        self.seen.into_iter().collect()
    }
}

/// `leader` and its descendants alive now, with the members of its group
/// that their parents' exit made children of ours (the runner is a
/// subreaper) and theirs.
fn tree(leader: libc::pid_t) -> Vec<libc::pid_t> {
    let mut out = vec![leader];
    // SAFETY: getpgid only reads another process's group id.
    let in_group = |c: libc::pid_t| c != leader && unsafe { libc::getpgid(c) } == leader;
    out.extend(children("self").into_iter().filter(|&c| in_group(c)));
    let mut i = 0;
    while i < out.len() && out.len() < MAX_PROCS {
        let pid = out[i];
        i += 1;
        for c in children(&pid.to_string()) {
            if !out.contains(&c) {
                out.push(c);
            }
        }
    }
    out
}

/// The children of this process when it has one thread (the trampoline,
/// the zygote): one file read, no listing of its threads (twice a run).
pub(super) fn own_children() -> Vec<libc::pid_t> {
    // SAFETY: getpid cannot fail.
    let me = unsafe { libc::getpid() };
    let Ok(mut f) = std::fs::File::open(format!("/proc/{me}/task/{me}/children")) else {
        return children("self");
    };
    String::from_utf8_lossy(&read_all(&mut f))
        .split_whitespace()
        .filter_map(|w| w.parse::<libc::pid_t>().ok())
        .collect()
}

/// The bytes `f` gives until its end, an error or no more for now (a
/// non-blocking pipe): reads into a stack buffer, without the size and
/// position queries of a `File`'s `read_to_end` (a pipe or a `/proc` file
/// has neither).
pub(super) fn read_all(f: &mut impl std::io::Read) -> Vec<u8> {
    read_until(f, None)
}

/// [`read_all`], stopping as well once what was read ends with `last`.
pub(super) fn read_until(f: &mut impl std::io::Read, last: Option<u8>) -> Vec<u8> {
    let (mut buf, mut bytes) = ([0u8; 512], Vec::new());
    loop {
        match f.read(&mut buf) {
            Ok(0) => return bytes,
            Ok(n) => {
                bytes.extend_from_slice(&buf[..n]);
                if last.is_some() && bytes.last() == last.as_ref() {
                    return bytes;
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return bytes,
        }
    }
}

/// The children of `/proc/<pid>` (of each of its threads).
pub(super) fn children(pid: &str) -> Vec<libc::pid_t> {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for t in tasks.flatten() {
        if let Ok(text) = std::fs::read_to_string(t.path().join("children")) {
            out.extend(
                text.split_whitespace()
                    .filter_map(|w| w.parse::<libc::pid_t>().ok()),
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn programs_of_a_tree_are_seen() {
        // sh runs sleep as a child (not exec'd: a second command follows).
        let mut child = std::process::Command::new("/bin/sh")
            .args(["-c", "sleep 1; true"])
            .spawn()
            .unwrap();
        let mut o = Observer::new(None);
        let until = Instant::now() + Duration::from_millis(800);
        while Instant::now() < until {
            o.sample(child.id() as libc::pid_t, false);
            std::thread::sleep(Duration::from_millis(5));
        }
        child.wait().unwrap();
        let seen = o.finish();
        let sleep = std::fs::canonicalize(
            std::env::split_paths(&std::env::var_os("PATH").unwrap())
                .map(|d| d.join("sleep"))
                .find(|p| p.exists())
                .unwrap(),
        )
        .unwrap();
        assert!(seen.contains(&sleep), "{seen:?}");
        assert!(seen.len() >= 2, "{seen:?}");
    }
}
