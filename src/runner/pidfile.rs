//! Records of live process groups, so that a coreval that was itself killed
//! (SIGKILL, power cut of the terminal, OOM killer) leaves no solver running
//! unnoticed: the next coreval calls [`reap_orphans`] on the same directory.
//!
//! A record holds four numbers: the group id, the start time of its leader
//! (field 22 of `/proc/<pid>/stat`, clock ticks since boot), and the pid and
//! start time of the coreval process that owns it. Start times make pid
//! reuse harmless: a recorded group is killed only while a process with
//! that pid *and* that start time (or a later-started member of the group)
//! exists, and never while its owner is still alive.
//!
//! Each job slot (thread) has one record file per directory,
//! `slot-<owner>-<owner start>-<n>.pid`, created at its first run and
//! rewritten in place: the record while a group runs, blanks between runs,
//! always [`LINE`] bytes; it is removed when the thread ends, and what is
//! left when coreval's command ends by [`remove_slot_files`]. (A file
//! created and removed per run cost more than the rest of the run's
//! bookkeeping: on ext4 without a journal, each creation scans past every
//! inode deleted in the last minutes.) Files `run-<pgid>.pid`, one per
//! group, are what earlier versions wrote; they are still read.

use std::cell::RefCell;
use std::fs::{self, File};
use std::io;
use std::os::unix::fs::{FileExt, MetadataExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};

/// One record per group (earlier versions).
const PREFIX: &str = "run-";
/// One record file per job slot.
const SLOT_PREFIX: &str = "slot-";
const SUFFIX: &str = ".pid";

/// Bytes of a record file: a record padded with spaces, or only spaces.
const LINE: usize = 64;

/// A job slot's record file in one directory.
struct SlotFile {
    dir: PathBuf,
    path: PathBuf,
    file: File,
}

/// The slot files of this process, for [`remove_slot_files`].
static OPEN: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

fn open_files() -> std::sync::MutexGuard<'static, Vec<PathBuf>> {
    OPEN.lock().unwrap_or_else(|p| p.into_inner())
}

/// Removes this process's slot files, for its end: a thread's files go
/// when it ends, but a scoped thread may still be ending when its scope
/// returns, and the threads of a process that exits never end. Only when
/// no run is going on (their records would go with them).
pub fn remove_slot_files() {
    for path in open_files().drain(..) {
        let _ = fs::remove_file(path);
    }
}

impl SlotFile {
    fn open(dir: &Path) -> Option<SlotFile> {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let (owner, owner_start) = owner()?;
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let path = dir.join(format!("{SLOT_PREFIX}{owner}-{owner_start}-{n}{SUFFIX}"));
        let file = match File::create(&path) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                fs::create_dir_all(dir).and_then(|()| File::create(&path))
            }
            other => other,
        }
        .ok()?;
        open_files().push(path.clone());
        Some(SlotFile {
            dir: dir.to_path_buf(),
            path,
            file,
        })
    }

    /// Whether the file is still in its directory (not removed by hand).
    fn linked(&self) -> bool {
        self.file.metadata().is_ok_and(|m| m.nlink() > 0)
    }

    fn put(&self, line: &[u8; LINE]) -> bool {
        self.file.write_all_at(line, 0).is_ok()
    }
}

impl Drop for SlotFile {
    fn drop(&mut self) {
        open_files().retain(|p| p != &self.path);
        let _ = fs::remove_file(&self.path);
    }
}

thread_local! {
    static SLOTS: RefCell<Vec<SlotFile>> = const { RefCell::new(Vec::new()) };
}

/// `text` padded with spaces to a record file's line.
fn line(text: &str) -> [u8; LINE] {
    let mut l = [b' '; LINE];
    l[..text.len()].copy_from_slice(text.as_bytes());
    l[LINE - 1] = b'\n';
    l
}

/// The record of one running group, in this thread's record file of its
/// directory (its place in [`SLOTS`]); [`PidFile::remove`] it when the
/// group is gone.
pub(super) struct PidFile {
    slot: usize,
}

impl PidFile {
    /// Writes the record of group `pgid`. `None` when it could not be
    /// written (the run goes on; only the crash cleanup is lost).
    pub(super) fn create(dir: &Path, pgid: libc::pid_t) -> Option<PidFile> {
        let start = start_time(pgid)?;
        let (owner, owner_start) = owner()?;
        // Two pids (10 digits at most), two start times (20 at most) and
        // three spaces: 63 bytes at most, the line's newline after them.
        let record = line(&format!("{pgid} {start} {owner} {owner_start}"));
        SLOTS.with(|slots| {
            let mut slots = slots.borrow_mut();
            let k = slots.iter().position(|f| f.dir == dir);
            let k = match k {
                Some(k) if slots[k].linked() => k,
                Some(k) => {
                    slots[k] = SlotFile::open(dir)?;
                    k
                }
                None => {
                    slots.push(SlotFile::open(dir)?);
                    slots.len() - 1
                }
            };
            slots[k].put(&record).then_some(PidFile { slot: k })
        })
    }

    /// Blanks the record (the file stays for the slot's next run).
    pub(super) fn remove(self) {
        SLOTS.with(|slots| {
            if let Some(f) = slots.borrow().get(self.slot) {
                f.put(&line(""));
            }
        });
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
        let slot = slot_owner(name);
        if !(slot.is_some() || name.starts_with(PREFIX) && name.ends_with(SUFFIX)) {
            continue;
        }
        let path = entry.path();
        let record = fs::read_to_string(&path).ok().and_then(|t| parse(&t));
        let owner = slot.or(record.as_ref().map(|r| (r.owner, r.owner_start)));
        if owner.is_some_and(|(pid, start)| start_time(pid) == Some(start)) {
            continue; // its coreval is alive and will clean up itself
        }
        if let Some(r) = record {
            if group_is_recorded_one(r.pgid, r.start) && kill_group(r.pgid) {
                killed += 1;
            }
        }
        // Handled, blank, stale, or unreadable (torn write of a killed
        // coreval).
        let _ = fs::remove_file(&path);
    }
    killed
}

/// The owner's pid and start time in the name of a slot's record file.
fn slot_owner(name: &str) -> Option<(libc::pid_t, u64)> {
    let rest = name.strip_prefix(SLOT_PREFIX)?.strip_suffix(SUFFIX)?;
    let mut it = rest.split('-');
    let owner = it.next()?.parse().ok()?;
    let start = it.next()?.parse().ok()?;
    Some((owner, start))
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
    // Read without `read_to_string`'s small probing reads (once a run).
    let mut f = File::open(format!("/proc/{pid}/stat")).ok()?;
    parse_stat(std::str::from_utf8(&super::observe::read_all(&mut f)).ok()?)
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
    fn slot_names_give_their_owner() {
        assert_eq!(slot_owner("slot-123-456-7.pid"), Some((123, 456)));
        assert_eq!(slot_owner("run-123.pid"), None);
        assert_eq!(slot_owner("slot-x-456-7.pid"), None);
    }

    #[test]
    fn a_slot_file_holds_the_record_while_running_and_goes_with_its_thread() {
        let dir = tempfile::tempdir().unwrap();
        let me = std::process::id() as libc::pid_t;
        let files = || -> Vec<String> {
            fs::read_dir(dir.path())
                .unwrap()
                .flatten()
                .map(|e| fs::read_to_string(e.path()).unwrap())
                .collect()
        };
        std::thread::scope(|s| {
            let t = s.spawn(|| {
                // Our own pid stands for a group: it has a start time.
                let record = PidFile::create(dir.path(), me).unwrap();
                let [text] = files().try_into().unwrap();
                assert_eq!(text.len(), LINE);
                assert_eq!(parse(&text).unwrap().pgid, me);
                record.remove();
                let [text] = files().try_into().unwrap();
                assert!(text.trim().is_empty() && parse(&text).is_none());
                // The same file again for the slot's next run.
                PidFile::create(dir.path(), me).unwrap().remove();
                assert_eq!(files().len(), 1);
            });
            // A join waits for the thread's end, its thread-locals dropped.
            t.join().unwrap();
            assert!(files().is_empty(), "removed when its thread ended");
        });
        std::thread::scope(|s| {
            s.spawn(|| PidFile::create(dir.path(), me).unwrap().remove());
        });
        remove_slot_files();
        assert!(files().is_empty(), "removed at the end of the command");
    }

    #[test]
    fn blank_slot_files_stay_while_their_owner_lives() {
        let dir = tempfile::tempdir().unwrap();
        let (owner, start) = owner().unwrap();
        let ours = dir.path().join(format!("slot-{owner}-{start}-0.pid"));
        let dead = dir.path().join(format!("slot-{owner}-{}-0.pid", start + 1));
        for f in [&ours, &dead] {
            fs::write(f, line("")).unwrap();
        }
        assert_eq!(reap_orphans(dir.path()), 0);
        assert!(ours.exists(), "a live owner's slot is left alone");
        assert!(!dead.exists(), "a dead owner's blank slot is removed");
    }

    #[test]
    fn records_parse_strictly() {
        assert!(parse("10 20 30 40\n").is_some());
        assert!(parse("10 20 30\n").is_none());
        assert!(parse("1 20 30 40\n").is_none(), "pgid 1 is never ours");
        assert!(parse("10 20 30 40 50\n").is_none());
    }
}
