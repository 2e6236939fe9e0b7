//! Runs limited and measured through cgroups, as BenchExec does: the
//! memory limit on the memory charged to the whole process tree (resident
//! memory and page cache, not address space: a JVM or Go runtime that
//! reserves 64 GB and touches 50 MB runs under a 1 GB limit), out of memory
//! read from the group's OOM kills, peak memory and CPU time from the
//! group's counters, and every process left in the group killed at the
//! end of the run, daemons included.
//!
//! Where one can be made — cgroup v2 with the memory controller (coreval's
//! own group delegated, moving coreval into a leaf of it when the group
//! holds processes), or cgroup v1 `memory` and `cpuacct` hierarchies that
//! coreval may write (root) — each job slot (thread) has a group of its
//! own, `coreval.<pid>.<start>/slot-<n>` below coreval's own group in each
//! hierarchy. The slot's zygote (`zygote.rs`) lives in it, so the solvers
//! it starts are born in the group (no move per run: a move or a `mkdir`
//! costs 20–40 µs each, more than the rest of an instant run's
//! bookkeeping); runs started otherwise join it in the child before
//! `execve`. Between runs the peak is reset and the CPU and OOM counters
//! are read before and after; a run that leaves more than [`ROTATE`]
//! bytes charged (page cache of files it read) gets the slot a fresh group
//! for the next, so that no run's peak includes an earlier one's. The
//! zygote's own CPU while it waits on a run (microseconds) is counted in
//! the run's; its memory was charged before it joined.
//!
//! Where none can be made (no controllers, not permitted, or
//! `COREVAL_CGROUP=off`), runs are limited by RLIMIT_AS and measured by
//! `wait4`'s rusage, as before. [`method`] says which, for the run
//! records, the notes and the reports' facts: one process never mixes the
//! two.
//!
//! A coreval killed by SIGKILL leaves its groups behind: the next coreval
//! that sets up its own kills what is left in groups whose owner (pid and
//! start time, as `pidfile.rs`) is gone and removes them.

mod files;
mod mounts;

use files::{Counters, Files, Version};
use serde::{Deserialize, Serialize};
use std::cell::RefCell;
use std::fs;
use std::io::{self, Write};
use std::os::fd::{AsRawFd, RawFd};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// A run that leaves more than this charged to its group (bytes) gets the
/// slot a fresh group.
pub const ROTATE: u64 = 2 << 20;
/// The environment variable that turns cgroups off (`off`).
pub const SWITCH: &str = "COREVAL_CGROUP";
/// Group folder names: `coreval.<pid>.<start time>`.
const PREFIX: &str = "coreval.";

/// How runs are limited and measured.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
pub enum Measure {
    /// cgroup v1 `memory` and `cpuacct` (in run records `"cgroup":"v1"`).
    #[serde(rename = "v1")]
    CgroupV1,
    /// cgroup v2 (`"cgroup":"v2"`).
    #[serde(rename = "v2")]
    CgroupV2,
    /// RLIMIT_AS and `wait4`'s rusage (`"cgroup":"none"`).
    #[serde(rename = "none")]
    #[default]
    Rusage,
}

impl Measure {
    /// As the reports write it: `cgroup v1`, `cgroup v2`, `rusage`.
    pub fn words(self) -> &'static str {
        match self {
            Measure::CgroupV1 => "cgroup v1",
            Measure::CgroupV2 => "cgroup v2",
            Measure::Rusage => "rusage",
        }
    }

    /// How a memory limit is enforced by it (provenance's `memory_limit_by`).
    pub fn limit_by(self) -> &'static str {
        match self {
            Measure::CgroupV1 => "cgroup-v1",
            Measure::CgroupV2 => "cgroup-v2",
            Measure::Rusage => "rlimit-as",
        }
    }
}

/// Where this process makes its groups.
struct Backend {
    version: Version,
    /// `coreval.<pid>.<start>` in each hierarchy (v1: memory, cpuacct).
    bases: Vec<PathBuf>,
}

/// The backend, or why there is none.
fn backend() -> &'static Result<Backend, String> {
    static BACKEND: OnceLock<Result<Backend, String>> = OnceLock::new();
    BACKEND.get_or_init(set_up)
}

/// How this process's runs are limited and measured.
pub fn method() -> Measure {
    match backend() {
        Ok(b) if b.version == Version::V1 => Measure::CgroupV1,
        Ok(_) => Measure::CgroupV2,
        Err(_) => Measure::Rusage,
    }
}

/// Why runs are measured by rusage (`None`: they are not).
pub fn why_rusage() -> Option<&'static str> {
    backend().as_ref().err().map(String::as_str)
}

fn set_up() -> Result<Backend, String> {
    match std::env::var(SWITCH).as_deref() {
        Ok("off") => return Err(format!("{SWITCH}=off")),
        Ok("" | "auto") | Err(_) => {}
        Ok(other) => return Err(format!("{SWITCH}={other:?} is neither `off` nor `auto`")),
    }
    let text = |p| fs::read_to_string(p).unwrap_or_default();
    let own = mounts::own(&text("/proc/self/mountinfo"), &text("/proc/self/cgroup"));
    let id = owner_id().ok_or("this process's start time is unreadable")?;
    let v2 = own.v2.as_deref().map(|dir| set_up_v2(dir, &id));
    if let Some(Ok(b)) = v2 {
        return Ok(b);
    }
    let v1 = match (&own.memory, &own.cpuacct) {
        (Some(m), Some(c)) => set_up_v1(m, c, &id),
        _ => Err("no cgroup v1 memory and cpuacct hierarchies".to_string()),
    };
    v1.map_err(|e1| match v2 {
        Some(Err(e2)) => format!("no cgroup can be made: {e2}; {e1}"),
        _ => format!("no cgroup can be made: no cgroup v2 mount; {e1}"),
    })
}

fn set_up_v1(memory: &Path, cpuacct: &Path, id: &str) -> Result<Backend, String> {
    let mut bases = Vec::new();
    for own in [memory, cpuacct] {
        remove_stale(own);
        let base = own.join(id);
        if let Err(e) = fs::create_dir(&base).or_else(exists) {
            bases.iter().for_each(|b| drop(fs::remove_dir(b)));
            return Err(format!("cgroup v1: cannot make {}: {e}", base.display()));
        }
        bases.push(base);
    }
    let backend = Backend {
        version: Version::V1,
        bases,
    };
    // A first group tried at once: a folder that is made but cannot be
    // used (no controller files, no permission to move) is no backend.
    check(&backend)
}

fn set_up_v2(own: &Path, id: &str) -> Result<Backend, String> {
    let words = |f: &str| fs::read_to_string(own.join(f)).unwrap_or_default();
    if !words("cgroup.controllers")
        .split_whitespace()
        .any(|c| c == "memory")
    {
        return Err(format!(
            "cgroup v2: no memory controller in {}",
            own.display()
        ));
    }
    remove_stale(own);
    let enable = |dir: &Path| {
        fs::OpenOptions::new()
            .write(true)
            .open(dir.join("cgroup.subtree_control"))
            .and_then(|mut f| f.write_all(b"+memory +cpu"))
    };
    let has = |dir: &Path| {
        fs::read_to_string(dir.join("cgroup.subtree_control"))
            .unwrap_or_default()
            .split_whitespace()
            .any(|c| c == "memory")
    };
    if !has(own) && enable(own).is_err() {
        // A group with processes cannot pass controllers on: coreval moves
        // into a leaf of its own first (the others stay where they are).
        let leaf = own.join(format!("{id}.self"));
        fs::create_dir(&leaf)
            .or_else(exists)
            .and_then(|()| fs::write(leaf.join("cgroup.procs"), std::process::id().to_string()))
            .and_then(|()| enable(own))
            .map_err(|e| format!("cgroup v2: cannot delegate {}: {e}", own.display()))?;
    }
    let base = own.join(id);
    fs::create_dir(&base)
        .or_else(exists)
        .and_then(|()| enable(&base))
        .map_err(|e| format!("cgroup v2: cannot make {}: {e}", base.display()))?;
    check(&Backend {
        version: Version::V2,
        bases: vec![base],
    })
}

fn exists(e: io::Error) -> io::Result<()> {
    if e.kind() == io::ErrorKind::AlreadyExists {
        Ok(())
    } else {
        Err(e)
    }
}

/// `backend` when a group can be made and opened in it.
fn check(backend: &Backend) -> Result<Backend, String> {
    let group = Group::make(backend).map_err(|e| format!("cannot use a cgroup: {e}"));
    match group {
        Ok(g) => {
            drop(g);
            Ok(Backend {
                version: backend.version,
                bases: backend.bases.clone(),
            })
        }
        Err(e) => {
            backend.bases.iter().for_each(|b| drop(fs::remove_dir(b)));
            Err(e)
        }
    }
}

/// This process's group folder name: `coreval.<pid>.<start time>`.
fn owner_id() -> Option<String> {
    let pid = std::process::id() as libc::pid_t;
    super::pidfile::start_time(pid).map(|start| format!("{PREFIX}{pid}.{start}"))
}

/// Whether the coreval of a folder name is still running.
fn owner_alive(name: &str) -> bool {
    let rest = name.strip_prefix(PREFIX).unwrap_or("");
    let mut parts = rest.split('.');
    let (Some(pid), Some(start)) = (parts.next(), parts.next()) else {
        return true; // not ours to judge
    };
    match (pid.parse(), start.parse::<u64>()) {
        (Ok(pid), Ok(start)) => super::pidfile::start_time(pid) == Some(start),
        _ => true,
    }
}

/// Kills what is left in the groups below `own` of corevals no longer
/// running and removes them (their `.self` leaves too, once empty).
fn remove_stale(own: &Path) {
    let Ok(entries) = fs::read_dir(own) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if !name.starts_with(PREFIX) || owner_alive(&name) {
            continue;
        }
        let dir = entry.path();
        if let Ok(slots) = fs::read_dir(&dir) {
            for slot in slots.flatten().filter(|s| s.path().is_dir()) {
                empty(&slot.path(), None);
                let _ = fs::remove_dir(slot.path());
            }
        }
        empty(&dir, None);
        let _ = fs::remove_dir(&dir);
    }
}

/// Kills every process in the group folder `dir` but `keep`, until none
/// is left (bounded: a process stuck in the kernel stays).
fn empty(dir: &Path, keep: Option<libc::pid_t>) {
    let Ok(procs) = fs::File::open(dir.join("cgroup.procs")) else {
        return;
    };
    kill_members(|| members_of(&procs), keep);
}

fn members_of(procs: &fs::File) -> Vec<libc::pid_t> {
    files::read(procs)
        .split_ascii_whitespace()
        .filter_map(|p| p.parse().ok())
        .collect()
}

/// Whether `pid` still runs: a zombie (dead, not yet reaped by its
/// parent) or a pid gone meanwhile does not, though a group may still
/// list it for a moment.
fn runs(pid: libc::pid_t) -> bool {
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let state = stat
        .rsplit_once(") ")
        .and_then(|(_, rest)| rest.chars().next());
    !matches!(state, None | Some('Z' | 'X'))
}

/// SIGKILL to every member but `keep`, again until none is left running
/// or 2 s have passed.
fn kill_members(members: impl Fn() -> Vec<libc::pid_t>, keep: Option<libc::pid_t>) {
    let until = Instant::now() + Duration::from_secs(2);
    loop {
        let left: Vec<_> = members()
            .into_iter()
            .filter(|&p| Some(p) != keep && runs(p))
            .collect();
        if left.is_empty() || Instant::now() >= until {
            return;
        }
        for pid in left {
            // SAFETY: a signal to a member of a group of ours.
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
        std::thread::sleep(Duration::from_micros(200));
    }
}

/// One job slot's group.
struct Group {
    files: Files,
    /// The slot's zygote, living in the group.
    resident: Option<libc::pid_t>,
    /// Its next run needs a fresh group ([`ROTATE`]).
    stale: bool,
    /// The counters at the end of its last run: the next one's start
    /// (nothing runs in the group in between but the idle zygote).
    last: Option<Counters>,
}

static SERIAL: AtomicUsize = AtomicUsize::new(0);

impl Group {
    fn make(backend: &Backend) -> io::Result<Group> {
        let name = format!("slot-{}", SERIAL.fetch_add(1, Ordering::Relaxed));
        let mut dirs = Vec::new();
        for base in &backend.bases {
            let dir = base.join(&name);
            // (The last slot's end removes the process's folder.)
            if let Err(e) = fs::create_dir(base)
                .or_else(exists)
                .and_then(|()| fs::create_dir(&dir))
            {
                dirs.iter().for_each(|d| drop(fs::remove_dir(d)));
                return Err(io::Error::new(e.kind(), format!("{}: {e}", dir.display())));
            }
            dirs.push(dir);
        }
        Files::open(backend.version, dirs.clone())
            .map(|files| Group {
                files,
                resident: None,
                stale: false,
                last: None,
            })
            .inspect_err(|_| dirs.iter().for_each(|d| drop(fs::remove_dir(d))))
    }

    /// Moves `pid` (the zygote) into the group.
    fn adopt(&mut self, pid: libc::pid_t) -> io::Result<()> {
        for f in &self.files.join {
            (&*f).write_all(pid.to_string().as_bytes())?;
        }
        self.resident = Some(pid);
        Ok(())
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        kill_members(|| self.files.members(), None);
        for dir in &self.files.dirs {
            if fs::remove_dir(dir).is_err() {
                // Members still listed a moment after their end.
                std::thread::sleep(Duration::from_millis(5));
                let _ = fs::remove_dir(dir);
            }
            // The process's own folder too, once its last slot is gone.
            if let Some(base) = dir.parent() {
                let _ = fs::remove_dir(base);
            }
        }
    }
}

thread_local! {
    static SLOT: RefCell<Option<Group>> = const { RefCell::new(None) };
}

/// What a run's measure starts from.
#[derive(Clone, Copy, Debug)]
pub(super) struct Start {
    counters: Counters,
}

/// What a run's group measured.
#[derive(Clone, Copy, Debug)]
pub(super) struct Measured {
    pub user: f64,
    pub sys: f64,
    /// Peak memory charged to the group, bytes.
    pub peak: u64,
    /// The OOM killer killed a process of the run.
    pub oom_killed: bool,
}

/// Readies this thread's group for a run under `limit` (bytes): a fresh
/// group when the last one is stale (the zygote moved into it), the
/// limit set, the peak reset. `None` without a backend or when the group
/// cannot be set up (the run is then limited and measured by rusage, and
/// the caller says so: [`Measure::Rusage`] for that run).
pub(super) fn begin(limit: Option<u64>) -> Option<Start> {
    let Ok(backend) = backend() else {
        return None;
    };
    SLOT.with(|slot| {
        let mut slot = slot.borrow_mut();
        if slot.as_ref().is_some_and(|g| g.stale || g.files.peak_fixed) {
            let resident = slot.take().and_then(|mut g| g.resident.take());
            let mut fresh = Group::make(backend).ok()?;
            if let Some(pid) = resident {
                fresh.adopt(pid).ok()?;
            }
            *slot = Some(fresh);
        }
        if slot.is_none() {
            *slot = Some(Group::make(backend).ok()?);
        }
        let g = slot.as_mut()?;
        g.files.set_limit(limit).ok()?;
        g.files.reset_peak();
        let counters = g.last.take().unwrap_or_else(|| g.files.counters());
        Some(Start { counters })
    })
}

/// Descriptors of this thread's group's `cgroup.procs`, for a child to
/// join before `execve` (one per hierarchy).
pub(super) fn join_fds() -> Vec<RawFd> {
    SLOT.with(|slot| {
        slot.borrow().as_ref().map_or(Vec::new(), |g| {
            g.files.join.iter().map(|f| f.as_raw_fd()).collect()
        })
    })
}

/// Moves the thread's new zygote `pid` into its group; false when it
/// could not (the zygote is then not used: its runs would be outside).
pub(super) fn adopt(pid: libc::pid_t) -> bool {
    SLOT.with(|slot| match slot.borrow_mut().as_mut() {
        Some(g) => g.adopt(pid).is_ok(),
        None => true,
    })
}

/// The zygote `pid` has ended: it is no member to spare any more.
pub(super) fn forget(pid: libc::pid_t) {
    let _ = SLOT.try_with(|slot| {
        if let Ok(mut slot) = slot.try_borrow_mut() {
            if let Some(g) = slot.as_mut().filter(|g| g.resident == Some(pid)) {
                g.resident = None;
            }
        }
    });
}

/// Ends a run begun at `start`: every process left in the group but the
/// zygote killed, then what the group counted.
pub(super) fn end(start: Start) -> Option<Measured> {
    SLOT.with(|slot| {
        let mut slot = slot.borrow_mut();
        let g = slot.as_mut()?;
        kill_members(|| g.files.members(), g.resident);
        let now = g.files.counters();
        let peak = g.files.peak();
        g.stale = g.files.usage() > ROTATE;
        g.last = Some(now);
        Some(Measured {
            user: (now.user - start.counters.user).max(0.0),
            sys: (now.sys - start.counters.sys).max(0.0),
            peak,
            oom_killed: now.oom_kills > start.counters.oom_kills,
        })
    })
}

/// Removes this thread's group (its zygote killed with it), for the end
/// of coreval's command; the groups of ended threads went with them. Then
/// the process's own folders, when no group is left in them.
pub fn release() {
    let _ = SLOT.try_with(|slot| slot.borrow_mut().take());
    if let Ok(b) = backend() {
        for base in &b.bases {
            let _ = fs::remove_dir(base);
        }
    }
}
