//! Records of live process groups, so that a coreval that was itself killed
//! (SIGKILL, power cut of the terminal, OOM killer) leaves no solver running
//! unnoticed: the next coreval calls [`reap_orphans`] on the same directory.
//!
//! One small file per running group, `run-<pgid>.pid`, holding four numbers:
//! the group id, the start time of its leader (field 22 of
//! `/proc/<pid>/stat`, clock ticks since boot), and the pid and start time of
//! the coreval process that owns it. Start times make pid reuse harmless: a
//! recorded group is killed only while a process with that pid *and* that
//! start time (or a later-started member of the group) exists, and never
//! while its owner is still alive.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

const PREFIX: &str = "run-";
const SUFFIX: &str = ".pid";

/// The record of one running group; [`PidFile::remove`] it when the group is
/// gone.
pub(super) struct PidFile {
    path: PathBuf,
}

impl PidFile {
    /// Writes the record of group `pgid`. `None` when it could not be
    /// written (the run goes on; only the crash cleanup is lost).
    pub(super) fn create(dir: &Path, pgid: libc::pid_t) -> Option<PidFile> {
        let start = start_time(pgid)?;
        let (owner, owner_start) = owner()?;
        let path = dir.join(format!("{PREFIX}{pgid}{SUFFIX}"));
        let text = format!("{pgid} {start} {owner} {owner_start}\n");
        let written = match fs::write(&path, &text) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                fs::create_dir_all(dir).and_then(|()| fs::write(&path, &text))
            }
            other => other,
        };
        written.ok().map(|()| PidFile { path })
    }

    pub(super) fn remove(self) {
        let _ = fs::remove_file(&self.path);
    }
}

/// This process's pid and start time, computed once.
fn owner() -> Option<(libc::pid_t, u64)> {
    static OWNER: OnceLock<Option<(libc::pid_t, u64)>> = OnceLock::new();
    *OWNER.get_or_init(|| {
        let pid = std::process::id() as libc::pid_t;
        start_time(pid).map(|s| (pid, s))
    })
}

/// Kills the process groups recorded in `pid_dir` by a coreval that is no
/// longer running, removes their records, and returns how many groups were
/// killed. Records of a live coreval (including this one) are left alone;
/// records whose group is already gone are removed. A missing directory
/// means nothing to do.
pub fn reap_orphans(pid_dir: &Path) -> usize {
    let Ok(entries) = fs::read_dir(pid_dir) else {
        return 0;
    };
    let mut killed = 0;
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        if !(name.starts_with(PREFIX) && name.ends_with(SUFFIX)) {
            continue;
        }
        let path = entry.path();
        let record = fs::read_to_string(&path).ok().and_then(|t| parse(&t));
        if let Some(r) = record {
            if start_time(r.owner) == Some(r.owner_start) {
                continue; // its coreval is alive and will clean up itself
            }
            if group_is_recorded_one(r.pgid, r.start) && kill_group(r.pgid) {
                killed += 1;
            }
        }
        // Handled, stale, or unreadable (torn write of a killed coreval).
        let _ = fs::remove_file(&path);
    }
    killed
}

struct Record {
    pgid: libc::pid_t,
    start: u64,
    owner: libc::pid_t,
    owner_start: u64,
}

fn parse(text: &str) -> Option<Record> {
    let mut it = text.split_ascii_whitespace();
    let r = Record {
        pgid: it.next()?.parse().ok()?,
        start: it.next()?.parse().ok()?,
        owner: it.next()?.parse().ok()?,
        owner_start: it.next()?.parse().ok()?,
    };
    (r.pgid > 1 && it.next().is_none()).then_some(r)
}

/// Whether process group `pgid` is still the one recorded with leader start
/// time `start`. If the leader is alive, its start time decides. If it has
/// died, the group lives on while members exist; they started no earlier
/// than the leader, and the kernel does not hand out the pid of a group id
/// still in use, so a member with a start time ≥ `start` identifies it.
fn group_is_recorded_one(pgid: libc::pid_t, start: u64) -> bool {
    if let Some(leader) = stat(pgid) {
        return leader.start == start;
    }
    let Ok(procs) = fs::read_dir("/proc") else {
        return false;
    };
    procs
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<libc::pid_t>().ok())
        .filter_map(stat)
        .any(|s| s.pgrp == pgid && s.start >= start)
}

fn kill_group(pgid: libc::pid_t) -> bool {
    // SAFETY: kill with a negative pid signals one process group.
    unsafe { libc::kill(-pgid, libc::SIGKILL) == 0 }
}

struct Stat {
    pgrp: libc::pid_t,
    start: u64,
}

/// Start time of process `pid` (field 22 of `/proc/<pid>/stat`).
pub(super) fn start_time(pid: libc::pid_t) -> Option<u64> {
    stat(pid).map(|s| s.start)
}

/// Fields 5 (pgrp) and 22 (starttime) of `/proc/<pid>/stat`. The command
/// name (field 2) is in parentheses and may itself contain spaces and
/// parentheses, so fields are counted after the last `)`.
fn stat(pid: libc::pid_t) -> Option<Stat> {
    let text = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    parse_stat(&text)
}

fn parse_stat(text: &str) -> Option<Stat> {
    let rest = &text[text.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_ascii_whitespace().collect();
    // `fields[0]` is field 3 (state).
    Some(Stat {
        pgrp: fields.get(5 - 3)?.parse().ok()?,
        start: fields.get(22 - 3)?.parse().ok()?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_fields_after_odd_command_names() {
        let line =
            "4242 (a) b (c)) S 1 4240 4240 0 -1 4194560 1 0 0 0 3 4 0 0 20 0 1 0 987654 1 2 3\n";
        let s = parse_stat(line).unwrap();
        assert_eq!(s.pgrp, 4240);
        assert_eq!(s.start, 987654);
    }

    #[test]
    fn own_start_time_is_readable() {
        let me = std::process::id() as libc::pid_t;
        assert!(start_time(me).unwrap() > 0);
    }

    #[test]
    fn records_parse_strictly() {
        assert!(parse("10 20 30 40\n").is_some());
        assert!(parse("10 20 30\n").is_none());
        assert!(parse("1 20 30 40\n").is_none(), "pgid 1 is never ours");
        assert!(parse("10 20 30 40 50\n").is_none());
    }
}
