//! The control files of one cgroup, per version: the memory limit, the
//! peak and its reset, the OOM-kill count, CPU time, the member list, and
//! joining. Files stay open for the group's life and are read with
//! `pread`, so a run's bookkeeping is a few system calls.
//!
//! | what | cgroup v1 (`memory/`, `cpuacct/`) | cgroup v2 |
//! |---|---|---|
//! | limit | `memory.limit_in_bytes` (+ `memory.memsw.limit_in_bytes`: no swap beyond it) | `memory.max` (+ `memory.swap.max` = 0) |
//! | peak | `memory.max_usage_in_bytes`, reset by writing 0 | `memory.peak`, reset by a write (Linux ≥ 6.12) |
//! | out of memory | `oom_kill` of `memory.oom_control` | `oom_kill` of `memory.events` |
//! | CPU | `cpuacct.usage_user`, `cpuacct.usage_sys` (ns) | `user_usec`, `system_usec` of `cpu.stat` |
//! | members | `cgroup.procs` of the memory group | `cgroup.procs` |

use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

/// The cgroup version of a group.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Version {
    V1,
    V2,
}

/// What the group's counters say at one moment.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(super) struct Counters {
    /// CPU seconds, user and system.
    pub user: f64,
    pub sys: f64,
    /// Processes killed by the OOM killer in the group so far.
    pub oom_kills: u64,
}

/// One group's open control files.
pub(super) struct Files {
    pub version: Version,
    /// The group's folders: v1 memory then cpuacct; v2 one.
    pub dirs: Vec<PathBuf>,
    limit: File,
    /// v1 `memory.memsw.limit_in_bytes` (swap accounting on); v2
    /// `memory.swap.max`.
    swap: Option<File>,
    peak: File,
    /// `memory.peak` could not be reset (v2 before Linux 6.12): the group
    /// serves one run.
    pub peak_fixed: bool,
    usage: File,
    oom: File,
    cpu: Vec<File>,
    procs: File,
    /// Written "0" by a child to join the group, one per folder.
    pub join: Vec<File>,
    /// The limit now set, bytes (`None`: none), once one was set.
    limit_now: Option<Option<u64>>,
}

fn open(dir: &Path, name: &str, write: bool) -> io::Result<File> {
    OpenOptions::new()
        .read(!write || name != "cgroup.procs")
        .write(write)
        .open(dir.join(name))
        .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", dir.join(name).display())))
}

impl Files {
    /// Opens the control files of the group made of `dirs` (v1: memory,
    /// cpuacct; v2: one).
    pub(super) fn open(version: Version, dirs: Vec<PathBuf>) -> io::Result<Files> {
        let (mem, cpu_dir) = (&dirs[0], dirs.last().unwrap_or(&dirs[0]));
        let files = match version {
            Version::V1 => Files {
                version,
                limit: open(mem, "memory.limit_in_bytes", true)?,
                swap: open(mem, "memory.memsw.limit_in_bytes", true).ok(),
                peak: open(mem, "memory.max_usage_in_bytes", true)?,
                peak_fixed: false,
                usage: open(mem, "memory.usage_in_bytes", false)?,
                oom: open(mem, "memory.oom_control", false)?,
                cpu: vec![
                    open(cpu_dir, "cpuacct.usage_user", false)?,
                    open(cpu_dir, "cpuacct.usage_sys", false)?,
                ],
                procs: open(mem, "cgroup.procs", false)?,
                join: dirs
                    .iter()
                    .map(|d| open(d, "cgroup.procs", true))
                    .collect::<io::Result<_>>()?,
                dirs,
                limit_now: None,
            },
            Version::V2 => Files {
                version,
                limit: open(mem, "memory.max", true)?,
                swap: open(mem, "memory.swap.max", true).ok(),
                peak: open(mem, "memory.peak", true)?,
                peak_fixed: false,
                usage: open(mem, "memory.current", false)?,
                oom: open(mem, "memory.events", false)?,
                cpu: vec![open(mem, "cpu.stat", false)?],
                procs: open(mem, "cgroup.procs", false)?,
                join: vec![open(mem, "cgroup.procs", true)?],
                dirs,
                limit_now: None,
            },
        };
        if let Some(swap) = files.swap.as_ref().filter(|_| version == Version::V2) {
            let _ = swap.write_at(b"0", 0);
        }
        Ok(files)
    }

    /// Sets the memory limit (bytes, `None`: none) unless it is set already.
    pub(super) fn set_limit(&mut self, limit: Option<u64>) -> io::Result<()> {
        if self.limit_now == Some(limit) {
            return Ok(());
        }
        let before = self.limit_now.flatten();
        let text = match (self.version, limit) {
            (_, Some(bytes)) => bytes.to_string(),
            (Version::V1, None) => "-1".to_string(),
            (Version::V2, None) => "max".to_string(),
        };
        match (self.version, &self.swap) {
            // memsw ≥ limit at every step: raise memsw first, lower it last.
            (Version::V1, Some(swap)) => {
                let raising = match (before, limit) {
                    (Some(now), Some(new)) => new > now,
                    (_, None) => true,
                    (None, Some(_)) => false,
                };
                if raising {
                    swap.write_at(text.as_bytes(), 0)?;
                    self.limit.write_at(text.as_bytes(), 0)?;
                } else {
                    self.limit.write_at(text.as_bytes(), 0)?;
                    swap.write_at(text.as_bytes(), 0)?;
                }
            }
            _ => {
                self.limit.write_at(text.as_bytes(), 0)?;
            }
        }
        self.limit_now = Some(limit);
        Ok(())
    }

    /// Makes the peak start again from the usage now.
    pub(super) fn reset_peak(&mut self) {
        let reset: &[u8] = match self.version {
            Version::V1 => b"0",
            Version::V2 => b"reset",
        };
        if self.peak.write_at(reset, 0).is_err() {
            self.peak_fixed = true;
        }
    }

    /// The peak since the last reset, bytes.
    pub(super) fn peak(&self) -> u64 {
        number(&read(&self.peak)).unwrap_or(0)
    }

    /// The memory charged to the group now, bytes.
    pub(super) fn usage(&self) -> u64 {
        number(&read(&self.usage)).unwrap_or(0)
    }

    /// CPU time and OOM kills so far.
    pub(super) fn counters(&self) -> Counters {
        let oom_kills = keyed(&read(&self.oom), "oom_kill").unwrap_or(0);
        let (user, sys) = match self.version {
            Version::V1 => {
                let ns = |f: &File| number(&read(f)).unwrap_or(0) as f64 / 1e9;
                (ns(&self.cpu[0]), ns(&self.cpu[1]))
            }
            Version::V2 => {
                let stat = read(&self.cpu[0]);
                let us = |key| keyed(&stat, key).unwrap_or(0) as f64 / 1e6;
                (us("user_usec"), us("system_usec"))
            }
        };
        Counters {
            user,
            sys,
            oom_kills,
        }
    }

    /// The processes in the group now.
    pub(super) fn members(&self) -> Vec<libc::pid_t> {
        read(&self.procs)
            .split_ascii_whitespace()
            .filter_map(|p| p.parse().ok())
            .collect()
    }
}

/// The whole text of a control file (they are small).
pub(super) fn read(f: &File) -> String {
    let mut buf = vec![0u8; 4096];
    let mut len = 0;
    loop {
        match f.read_at(&mut buf[len..], len as u64) {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                len += n;
                if len == buf.len() {
                    buf.resize(buf.len() * 2, 0);
                }
            }
        }
    }
    buf.truncate(len);
    String::from_utf8_lossy(&buf).into_owned()
}

fn number(text: &str) -> Option<u64> {
    text.trim().parse().ok()
}

/// The value of `key` in a `key value` per line file.
fn keyed(text: &str, key: &str) -> Option<u64> {
    text.lines().find_map(|l| {
        let (k, v) = l.split_once(' ')?;
        (k == key).then(|| number(v)).flatten()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keyed_files_are_read_by_key() {
        let oom = "oom_kill_disable 0\nunder_oom 0\noom_kill 3\n";
        assert_eq!(keyed(oom, "oom_kill"), Some(3));
        let stat = "usage_usec 1500000\nuser_usec 1000000\nsystem_usec 500000\n";
        assert_eq!(keyed(stat, "system_usec"), Some(500_000));
        assert_eq!(keyed(stat, "nr_periods"), None);
    }
}
