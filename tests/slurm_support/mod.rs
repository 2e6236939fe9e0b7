//! Shared by the Slurm test binaries: the local cluster (found, or started
//! as root with `scripts/slurm-up.sh` and stopped at exit), `coreval`
//! commands pointed at it, copies of the example campaign, and waiting for
//! a campaign's jobs through `coreval slurm status --json`.
#![allow(dead_code)]

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

pub fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

pub fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_coreval"))
}

/// The cluster the tests use.
pub struct Cluster {
    pub conf: PathBuf,
}

extern "C" fn stop_started_cluster() {
    if let Some(state) = STARTED.get() {
        let _ = Command::new("bash")
            .arg(root().join("scripts/slurm-down.sh"))
            .arg(state)
            .status();
    }
}

/// The state folder of a cluster these tests started (stopped at exit).
static STARTED: OnceLock<PathBuf> = OnceLock::new();

fn pinged(conf: &Path) -> bool {
    Command::new("scontrol")
        .arg("ping")
        .env("SLURM_CONF", conf)
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).contains("is UP"))
        .unwrap_or(false)
}

fn find_cluster() -> Result<Cluster, String> {
    match Command::new("sbatch").arg("--version").output() {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err("`sbatch` not found: install Slurm (bash checkers/install.sh --dev)".into())
        }
        Err(e) => return Err(format!("cannot run sbatch: {e}")),
        Ok(_) => {}
    }
    if let Some(conf) = std::env::var_os("SLURM_CONF").map(PathBuf::from) {
        if pinged(&conf) {
            return Ok(Cluster { conf });
        }
    }
    let state = std::env::var_os("COREVAL_SLURM_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/tmp/coreval-slurm"));
    let conf = state.join("slurm.conf");
    if conf.is_file() && pinged(&conf) {
        return Ok(Cluster { conf });
    }
    // SAFETY: geteuid cannot fail and touches no memory.
    if unsafe { libc::geteuid() } != 0 {
        return Err(format!(
            "no Slurm cluster answers and only root can start one: run `sudo bash scripts/slurm-up.sh {}` \
             and export the SLURM_CONF it prints",
            state.display()
        ));
    }
    let out = Command::new("bash")
        .arg(root().join("scripts/slurm-up.sh"))
        .arg(&state)
        .output()
        .map_err(|e| format!("cannot run scripts/slurm-up.sh: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "scripts/slurm-up.sh failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    if STARTED.set(state).is_ok() {
        // SAFETY: registers a plain extern "C" function with no arguments.
        unsafe { libc::atexit(stop_started_cluster) };
    }
    Ok(Cluster { conf })
}

/// The cluster, or None after printing why the test is skipped.
pub fn cluster() -> Option<&'static Cluster> {
    static CLUSTER: OnceLock<Result<Cluster, String>> = OnceLock::new();
    match CLUSTER.get_or_init(find_cluster) {
        Ok(c) => Some(c),
        Err(why) => {
            crate::common::missing::skip(&format!("no Slurm cluster: {why}"));
            None
        }
    }
}

pub fn coreval(cl: &Cluster) -> Command {
    let mut c = super::common::command();
    c.env("SLURM_CONF", &cl.conf);
    c
}

pub fn run_ok(cmd: &mut Command) -> Output {
    let out = cmd.output().expect("cannot run coreval");
    assert!(
        out.status.success(),
        "{cmd:?} failed ({}):\n{}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Folders removed when the test binary exits.
static LEFTOVERS: std::sync::Mutex<Vec<PathBuf>> = std::sync::Mutex::new(Vec::new());

extern "C" fn remove_leftovers() {
    if let Ok(dirs) = LEFTOVERS.lock() {
        for d in dirs.iter() {
            let _ = std::fs::remove_dir_all(d);
        }
    }
}

/// The example campaign, copied, with early stop off: then every selected
/// checker answers on every core and the evidence in the reports (which
/// checkers answered), not only the verdicts, is the same in every run.
pub fn example_copy() -> PathBuf {
    let dir = tempfile::tempdir().unwrap().keep();
    {
        let mut l = LEFTOVERS.lock().unwrap();
        if l.is_empty() {
            // SAFETY: registers a plain extern "C" function with no arguments.
            unsafe { libc::atexit(remove_leftovers) };
        }
        l.push(dir.clone());
    }
    let campaign = dir.join("campaign");
    crate::common::copy_example_campaign(&campaign);
    let toml = campaign.join("campaign.toml");
    let text = std::fs::read_to_string(&toml).unwrap();
    assert!(
        text.contains("early_stop = true"),
        "the example config changed"
    );
    std::fs::write(
        &toml,
        text.replace("early_stop = true", "early_stop = false"),
    )
    .unwrap();
    campaign
}

pub fn status(cl: &Cluster, campaign: &Path) -> Value {
    let out = run_ok(
        coreval(cl)
            .args(["slurm", "status", "--json"])
            .arg(campaign),
    );
    serde_json::from_slice(&out.stdout).expect("status --json is JSON")
}

/// Wait until none of the campaign's jobs is queued or running.
pub fn wait_idle(cl: &Cluster, campaign: &Path, limit: Duration) -> Value {
    let t0 = Instant::now();
    loop {
        let st = status(cl, campaign);
        if st["active"].as_array().is_some_and(|a| a.is_empty()) {
            return st;
        }
        assert!(
            t0.elapsed() < limit,
            "jobs still queued after {limit:?}: {}",
            st["active"]
        );
        std::thread::sleep(Duration::from_millis(500));
    }
}

/// [`example_copy`], named (`coreval run --stage name`), as before a
/// submission.
pub fn named_example(cl: &Cluster) -> PathBuf {
    let c = example_copy();
    run_ok(coreval(cl).arg("run").arg(&c).args(["--stage", "name"]));
    c
}
