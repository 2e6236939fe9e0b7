//! Running `coreval` in the background and watching processes through
//! `/proc`, for the tests that kill coreval.

use std::collections::HashSet;
use std::io::BufRead;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A running `coreval` with its stderr collected line by line.
pub struct Running {
    pub child: Child,
    pub lines: Arc<Mutex<Vec<(Instant, String)>>>,
    reader: Option<std::thread::JoinHandle<()>>,
    pub started: Instant,
}

impl Running {
    pub fn start(args: &[&str], dir: &Path) -> Running {
        Running::start_with(args, dir, &[])
    }

    /// [`Running::start`] with variables `env` added to its environment.
    pub fn start_with(args: &[&str], dir: &Path, env: &[(&str, &str)]) -> Running {
        let mut child = Command::new(env!("CARGO_BIN_EXE_coreval"))
            .envs(env.iter().copied())
            .args(args)
            .arg(dir)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let started = Instant::now();
        let lines = Arc::new(Mutex::new(Vec::new()));
        let sink = lines.clone();
        let stderr = child.stderr.take().unwrap();
        let reader = std::thread::spawn(move || {
            for line in std::io::BufReader::new(stderr)
                .lines()
                .map_while(Result::ok)
            {
                sink.lock().unwrap().push((Instant::now(), line));
            }
        });
        Running {
            child,
            lines,
            reader: Some(reader),
            started,
        }
    }

    /// Whether a stderr line starts with `prefix` yet.
    pub fn saw(&self, prefix: &str) -> Option<Instant> {
        self.lines
            .lock()
            .unwrap()
            .iter()
            .find(|(_, l)| l.starts_with(prefix))
            .map(|(t, _)| *t)
    }

    pub fn exited(&mut self) -> bool {
        self.child.try_wait().unwrap().is_some()
    }

    pub fn kill(&mut self) {
        // SAFETY: SIGKILL to our own child.
        unsafe { libc::kill(self.child.id() as i32, libc::SIGKILL) };
    }

    /// Wait for the end; the exit code (None: killed) and all stderr.
    pub fn wait(mut self) -> (Option<i32>, String) {
        let status = self.child.wait().unwrap();
        self.reader.take().unwrap().join().unwrap();
        let text: Vec<String> = self
            .lines
            .lock()
            .unwrap()
            .iter()
            .map(|(_, l)| l.clone())
            .collect();
        (status.code(), text.join("\n"))
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if self.child.try_wait().ok().flatten().is_none() {
            self.kill();
            let _ = self.child.wait();
        }
    }
}

/// A live process: pid, start time (clock ticks since boot), process group, command line.
#[derive(Clone, Debug)]
pub struct Proc {
    pub pid: i32,
    pub start: u64,
    pub pgrp: i32,
    pub cmdline: String,
}

pub fn processes() -> Vec<Proc> {
    let mut out = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<i32>().ok()) else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        let Some(close) = stat.rfind(')') else {
            continue;
        };
        let f: Vec<&str> = stat[close + 1..].split_whitespace().collect();
        if f.len() < 20 || f[0] == "Z" || f[0] == "X" {
            continue;
        }
        let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
        out.push(Proc {
            pid,
            start: f[19].parse().unwrap(),
            pgrp: f[2].parse().unwrap(),
            cmdline: String::from_utf8_lossy(&cmdline).replace('\0', " "),
        });
    }
    out
}

/// Live processes whose command line mentions `dir` (solvers and checkers
/// get the campaign's named or core files as arguments), and the other
/// members of their process groups.
pub fn solver_processes(dir: &Path) -> Vec<Proc> {
    let all = processes();
    let key = dir.to_str().unwrap();
    let me = std::process::id() as i32;
    // The coreval binary itself, by its program word: a checkout may well
    // live in a folder named `coreval`, so the paths of solvers contain it.
    let is_coreval = |p: &Proc| {
        p.cmdline
            .split(' ')
            .next()
            .is_some_and(|w| w == "coreval" || w.ends_with("/coreval"))
    };
    let groups: HashSet<i32> = all
        .iter()
        .filter(|p| p.cmdline.contains(key) && !is_coreval(p) && p.pid != me)
        .map(|p| p.pgrp)
        .collect();
    all.into_iter()
        .filter(|p| groups.contains(&p.pgrp) && !is_coreval(p))
        .collect()
}

pub fn alive(p: &Proc) -> bool {
    processes()
        .iter()
        .any(|x| x.pid == p.pid && x.start == p.start)
}

/// Whether process `pid` is alive (not a zombie).
pub fn pid_alive(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|t| {
        let state = t[t.rfind(')').unwrap() + 1..].trim_start().chars().next();
        !matches!(state, Some('Z' | 'X'))
    })
}

/// The pids `tests/fixtures/fake-solvers/setsid-daemon.sh DIR` wrote.
pub fn daemon_pids(dir: &Path) -> Vec<i32> {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().ends_with(".pid"))
        .map(|e| {
            std::fs::read_to_string(e.path())
                .unwrap()
                .trim()
                .parse()
                .unwrap()
        })
        .collect()
}

/// Waits up to `secs` for `cond`.
pub fn eventually(secs: f64, mut cond: impl FnMut() -> bool) -> bool {
    let end = Instant::now() + Duration::from_secs_f64(secs);
    loop {
        if cond() {
            return true;
        }
        if Instant::now() > end {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// This process's `THP_enabled:` line, `None` on a kernel without it.
fn thp_line() -> Option<String> {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status.lines().find(|l| l.starts_with("THP_enabled:"))?;
    Some(line.to_string())
}

/// After `coreval::process::allocator::configure` (which turns transparent huge
/// pages off for this process), a shell script run by `run` (through a
/// trampoline, twice: the slot's zygote starts the second) sees them as
/// this process started with them, and not the trampoline's variable.
pub fn assert_solvers_keep_thp(run: impl Fn(&str) -> coreval::runner::RunOutcome) {
    let Some(before) = thp_line() else {
        return;
    };
    coreval::process::allocator::configure();
    if std::env::var_os("MIMALLOC_ALLOW_THP").is_none() {
        assert_eq!(
            thp_line().unwrap(),
            "THP_enabled:\t0",
            "coreval's own THP is off"
        );
    }
    let script = "grep THP_enabled /proc/self/status; env | grep -c COREVAL_CHILDREN_THP";
    for _ in 0..2 {
        let o = run(script);
        assert_eq!(String::from_utf8_lossy(&o.stdout), format!("{before}\n0\n"));
    }
    // The children changed the memory they shared with this process for
    // the programs they executed, and this process took its own back.
    if std::env::var_os("MIMALLOC_ALLOW_THP").is_none() {
        assert_eq!(
            thp_line().unwrap(),
            "THP_enabled:\t0",
            "coreval's own THP is off"
        );
    }
}
