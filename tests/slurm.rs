//! `coreval slurm` and `coreval merge` on a real (local, single-node) Slurm
//! cluster.
//!
//! The cluster: the one named by `$SLURM_CONF` when it answers, else the
//! private one of `scripts/slurm-up.sh` (state in `$COREVAL_SLURM_DIR`, default
//! /tmp/coreval-slurm) when it runs, else — as root — these tests start it
//! with that script and stop it with `scripts/slurm-down.sh` when the test
//! binary exits. Every test skips with a message saying why when `sbatch`
//! is absent, or when the cluster is down and cannot be started (not root).
//!
//! - Plumbing (a stand-in `coreval` from `tests/fixtures/slurm/`, so that
//!   only the Slurm side is under test): the job chain solve → merge →
//!   check → merge + score runs in that order, the `%K` throttle holds, each
//!   task records its exit code, `status` reads the journals, `cancel`.
//! - The real pipeline: the example campaign as a 4-shard array, merged and
//!   scored, gives the same report as a single-machine run; and again when
//!   one task is cancelled mid-way and only its shard is resubmitted.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_coreval"))
}

/// The cluster the tests use.
struct Cluster {
    conf: PathBuf,
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
        unsafe { libc::atexit(stop_started_cluster) };
    }
    Ok(Cluster { conf })
}

/// The cluster, or None after printing why the test is skipped.
fn cluster() -> Option<&'static Cluster> {
    static CLUSTER: OnceLock<Result<Cluster, String>> = OnceLock::new();
    match CLUSTER.get_or_init(find_cluster) {
        Ok(c) => Some(c),
        Err(why) => {
            eprintln!("SKIPPED (no Slurm cluster): {why}");
            None
        }
    }
}

fn coreval(cl: &Cluster) -> Command {
    let mut c = Command::new(bin());
    c.env("SLURM_CONF", &cl.conf)
        .env("COREVAL_NO_PROGRESS", "1");
    c
}

fn run_ok(cmd: &mut Command) -> Output {
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

/// A copy of the example campaign, named, in a fresh temp folder.
fn example_campaign(cl: &Cluster) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("campaign");
    let st = Command::new("cp")
        .arg("-r")
        .arg(root().join("examples/campaign"))
        .arg(&dir)
        .status()
        .unwrap();
    assert!(st.success());
    let _ = std::fs::remove_dir_all(dir.join(".cache"));
    let mut name = coreval(cl);
    name.arg("name")
        .arg(dir.join("benchmarks"))
        .arg("-o")
        .arg(dir.join("named"))
        .args(["--allow-no-status", "--min-assertions", "2"]);
    run_ok(&mut name);
    (tmp, dir)
}

fn status(cl: &Cluster, campaign: &Path) -> Value {
    let out = run_ok(
        coreval(cl)
            .args(["slurm", "status", "--json"])
            .arg(campaign),
    );
    serde_json::from_slice(&out.stdout).expect("status --json is JSON")
}

/// Wait until none of the campaign's jobs is queued or running.
fn wait_idle(cl: &Cluster, campaign: &Path, limit: Duration) -> Value {
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

/// One line of the stand-in's call log.
#[derive(Debug)]
struct Call {
    start: bool,
    time: f64,
    args: String,
}

fn calls(log: &Path) -> Vec<Call> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .map(|l| {
            let mut f = l.splitn(3, ' ');
            Call {
                start: f.next() == Some("START"),
                time: f.next().unwrap().parse().unwrap(),
                args: f.next().unwrap_or("").to_string(),
            }
        })
        .collect()
}

/// Most calls of `verb` running at once.
fn max_concurrent(calls: &[Call], verb: &str) -> usize {
    let mut ev: Vec<(f64, i32)> = calls
        .iter()
        .filter(|c| c.args.starts_with(verb))
        .map(|c| (c.time, if c.start { 1 } else { -1 }))
        .collect();
    ev.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let (mut now, mut max) = (0i32, 0i32);
    for (_, d) in ev {
        now += d;
        max = max.max(now);
    }
    max as usize
}

fn span(calls: &[Call], verb: &str) -> (f64, f64) {
    let times: Vec<f64> = calls
        .iter()
        .filter(|c| c.args.starts_with(verb))
        .map(|c| c.time)
        .collect();
    assert!(!times.is_empty(), "no `{verb}` call in {calls:?}");
    (
        times.iter().cloned().fold(f64::MAX, f64::min),
        times.iter().cloned().fold(f64::MIN, f64::max),
    )
}

#[test]
fn job_chain_runs_in_order_within_the_throttle() {
    let Some(cl) = cluster() else { return };
    let (tmp, campaign) = example_campaign(cl);
    let log = tmp.path().join("calls.log");
    let fake = root().join("tests/fixtures/slurm/fake-coreval.sh");
    run_ok(
        coreval(cl)
            .args(["slurm", "submit"])
            .arg(&campaign)
            .args(["--shards", "4", "--throttle", "2", "--coreval"])
            .arg(&fake)
            .env("FAKE_COREVAL_LOG", &log)
            .env("FAKE_COREVAL_SLEEP", "1"),
    );
    let st = wait_idle(cl, &campaign, Duration::from_secs(180));
    let c = calls(&log);
    // One solve and one check task per shard, with the shard as I/N.
    for verb in ["solve", "check"] {
        for i in 0..4 {
            let want = format!("{verb} {} --shard {i}/4 --jobs 1", campaign.display());
            assert_eq!(
                c.iter().filter(|x| x.start && x.args == want).count(),
                1,
                "{want} in {c:?}"
            );
        }
        assert!(
            max_concurrent(&c, verb) <= 2,
            "throttle %2 broken for {verb}: {c:?}"
        );
    }
    // solve → merge → check → merge → score stage.
    let merges: Vec<f64> = c
        .iter()
        .filter(|x| x.start && x.args.starts_with("merge"))
        .map(|x| x.time)
        .collect();
    assert_eq!(merges.len(), 2, "{c:?}");
    assert!(span(&c, "solve").1 <= merges[0], "{c:?}");
    assert!(merges[0] <= span(&c, "check").0, "{c:?}");
    assert!(span(&c, "check").1 <= merges[1], "{c:?}");
    assert!(merges[1] <= span(&c, "run").0, "{c:?}");
    // Every task recorded its exit code; the journals (empty: the stand-in
    // solves nothing) still say that solving is missing everywhere.
    for s in st["per_shard"].as_array().unwrap() {
        assert_eq!(s["solve_task"]["exit"], 0, "{s}");
        assert_eq!(s["check_task"]["exit"], 0, "{s}");
    }
    assert_eq!(st["missing_solve"], serde_json::json!([0, 1, 2, 3]));
    let subs = st["submissions"].as_array().unwrap();
    let stages: Vec<&str> = subs.iter().map(|s| s["stage"].as_str().unwrap()).collect();
    assert_eq!(stages, ["solve", "merge", "check", "merge"]);
    assert_eq!(subs[2]["after"][0], subs[1]["job"]);
    for f in ["solve.sbatch", "check.sbatch", "merge.sbatch"] {
        assert!(campaign.join("slurm").join(f).is_file(), "{f}");
    }
}

#[test]
fn cancel_stops_running_and_pending_tasks() {
    let Some(cl) = cluster() else { return };
    let (tmp, campaign) = example_campaign(cl);
    let log = tmp.path().join("calls.log");
    run_ok(
        coreval(cl)
            .args(["slurm", "submit"])
            .arg(&campaign)
            .args([
                "--shards",
                "3",
                "--throttle",
                "1",
                "--stage",
                "solve",
                "--coreval",
            ])
            .arg(root().join("tests/fixtures/slurm/fake-coreval.sh"))
            .env("FAKE_COREVAL_LOG", &log)
            .env("FAKE_COREVAL_SLEEP", "120"),
    );
    let t0 = Instant::now();
    while !calls(&log).iter().any(|c| c.start) {
        assert!(t0.elapsed() < Duration::from_secs(60), "no task started");
        std::thread::sleep(Duration::from_millis(200));
    }
    // No second submission over running jobs of the same campaign.
    let again = coreval(cl)
        .args(["slurm", "submit"])
        .arg(&campaign)
        .arg("--missing")
        .output()
        .unwrap();
    assert_eq!(again.status.code(), Some(2));
    let err = String::from_utf8_lossy(&again.stderr);
    assert!(err.contains("still queued or running"), "{err}");
    let out = run_ok(coreval(cl).args(["slurm", "cancel"]).arg(&campaign));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cancelled: "));
    let st = wait_idle(cl, &campaign, Duration::from_secs(60));
    // A cancelled task writes no exit record; nothing ran to its end.
    for s in st["per_shard"].as_array().unwrap() {
        assert!(s["solve_task"].is_null(), "{s}");
    }
    assert!(!calls(&log).iter().any(|c| !c.start));
    let text = run_ok(coreval(cl).args(["slurm", "status"]).arg(&campaign));
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.contains("no job queued; shards [0, 1, 2] are incomplete"),
        "{text}"
    );
}

// ---------------------------------------------------------------------------
// The real pipeline on the example campaign.

/// Heavy tests (whole campaigns) run one at a time: the machine is small
/// and solver timings must not suffer from our own load.
static HEAVY: std::sync::Mutex<()> = std::sync::Mutex::new(());

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
fn example_copy() -> PathBuf {
    let dir = tempfile::tempdir().unwrap().keep();
    {
        let mut l = LEFTOVERS.lock().unwrap();
        if l.is_empty() {
            unsafe { libc::atexit(remove_leftovers) };
        }
        l.push(dir.clone());
    }
    let campaign = dir.join("campaign");
    let st = Command::new("cp")
        .arg("-r")
        .arg(root().join("examples/campaign"))
        .arg(&campaign)
        .status()
        .unwrap();
    assert!(st.success());
    let _ = std::fs::remove_dir_all(campaign.join(".cache"));
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

/// The single-machine run of the example campaign (`coreval run`), once.
fn reference(cl: &Cluster) -> &'static Path {
    static REF: OnceLock<PathBuf> = OnceLock::new();
    REF.get_or_init(|| {
        let c = example_copy();
        let t0 = Instant::now();
        let out = coreval(cl).arg("run").arg(&c).output().unwrap();
        assert!(
            out.status.code().is_some_and(|x| x <= 1),
            "coreval run failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        eprintln!(
            "single-machine run of the example campaign: {:.1} s",
            t0.elapsed().as_secs_f64()
        );
        c
    })
}

fn read_lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn key(v: &Value, a: &str, b: &str) -> (String, String) {
    (
        v[a].as_str().unwrap().to_string(),
        v[b].as_str().unwrap().to_string(),
    )
}

/// Give the sharded run's records the measured times (and memory) of the
/// reference run, then assert that the journals hold the same records:
/// everything that was decided, not measured, must be equal.
fn same_records_with_reference_times(reference: &Path, sharded: &Path) {
    for (file, a, b, measured) in [
        (
            "runs.jsonl",
            "solver",
            "benchmark",
            &["wall", "cpu", "max_rss"][..],
        ),
        ("checks.jsonl", "hash", "checker", &["wall", "cpu"][..]),
        ("cores.jsonl", "solver", "benchmark", &[][..]),
    ] {
        let want = read_lines(&reference.join(file));
        let by_key: std::collections::HashMap<_, &Value> =
            want.iter().map(|r| (key(r, a, b), r)).collect();
        let mut got = read_lines(&sharded.join(file));
        assert_eq!(got.len(), want.len(), "{file}: record count");
        let mut text = String::new();
        for r in &mut got {
            let k = key(r, a, b);
            let w = by_key
                .get(&k)
                .unwrap_or_else(|| panic!("{file}: {k:?} not in the reference"));
            for m in measured {
                r[*m] = w[*m].clone();
            }
            assert_eq!(&r, w, "{file}: {k:?} differs");
            text.push_str(&format!("{r}\n"));
        }
        std::fs::write(sharded.join(file), text).unwrap();
    }
}

/// Re-score the sharded campaign and compare every report file with the
/// reference's, byte for byte.
fn same_reports(cl: &Cluster, reference: &Path, sharded: &Path) {
    let out = coreval(cl)
        .arg("run")
        .arg(sharded)
        .args(["--stage", "score"])
        .output()
        .unwrap();
    assert!(
        out.status.code().is_some_and(|x| x <= 1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for f in [
        "scores.json",
        "pairs.jsonl",
        "pairs.csv",
        "report.md",
        "report.html",
    ] {
        let want = std::fs::read(reference.join("reports").join(f)).unwrap();
        let got = std::fs::read(sharded.join("reports").join(f)).unwrap();
        assert!(
            want == got,
            "reports/{f} differs from the single-machine run's"
        );
    }
}

fn submit(cl: &Cluster, campaign: &Path, extra: &[&str]) {
    run_ok(
        coreval(cl)
            .args(["slurm", "submit"])
            .arg(campaign)
            .args(extra),
    );
}

#[test]
fn four_shard_array_equals_single_machine_run() {
    let Some(cl) = cluster() else { return };
    let _heavy = HEAVY.lock().unwrap_or_else(|p| p.into_inner());
    let reference = reference(cl);
    let c = example_copy();
    run_ok(coreval(cl).arg("run").arg(&c).args(["--stage", "name"]));
    let t0 = Instant::now();
    submit(cl, &c, &["--shards", "4", "--throttle", "2"]);
    let st = wait_idle(cl, &c, Duration::from_secs(900));
    eprintln!(
        "4-shard array run of the example campaign: {:.1} s",
        t0.elapsed().as_secs_f64()
    );
    for s in st["per_shard"].as_array().unwrap() {
        assert_eq!(s["solve_task"]["exit"], 0, "{s}");
        assert!(
            s["check_task"]["exit"].as_i64().is_some_and(|x| x <= 1),
            "{s}"
        );
    }
    assert_eq!(st["missing_solve"], serde_json::json!([]));
    // The final job merged and scored; merging again adds nothing.
    assert!(c.join("reports/scores.json").is_file());
    let again = run_ok(coreval(cl).arg("merge").arg(&c));
    let again = String::from_utf8_lossy(&again.stderr);
    assert!(
        again.contains("runs.jsonl +0") && again.contains("checks.jsonl +0"),
        "{again}"
    );
    same_records_with_reference_times(reference, &c);
    same_reports(cl, reference, &c);
}

#[test]
fn cancelled_task_is_resubmitted_alone_and_result_is_identical() {
    let Some(cl) = cluster() else { return };
    let _heavy = HEAVY.lock().unwrap_or_else(|p| p.into_inner());
    let reference = reference(cl);
    let c = example_copy();
    run_ok(coreval(cl).arg("run").arg(&c).args(["--stage", "name"]));
    submit(cl, &c, &["--shards", "4", "--throttle", "2"]);
    // Cancel the first solve task caught mid-way: running, with some but
    // not all of its pairs journaled.
    let t0 = Instant::now();
    let (victim, task) = loop {
        let st = status(cl, &c);
        let hit = st["per_shard"].as_array().unwrap().iter().find(|s| {
            let done = s["solve_done"].as_u64().unwrap();
            s["queue"]
                .as_array()
                .unwrap()
                .iter()
                .any(|q| q == "solve RUNNING")
                && done > 0
                && done < s["solve_expected"].as_u64().unwrap()
        });
        if let Some(s) = hit {
            let shard = s["shard"].as_u64().unwrap();
            let job = st["submissions"][0]["job"].as_str().unwrap().to_string();
            break (shard, format!("{job}_{shard}"));
        }
        assert!(
            t0.elapsed() < Duration::from_secs(300),
            "no solve task caught mid-way: {st}"
        );
        std::thread::sleep(Duration::from_millis(100));
    };
    let st = Command::new("scancel")
        .arg(&task)
        .env("SLURM_CONF", &cl.conf)
        .status()
        .unwrap();
    assert!(st.success(), "scancel {task}");
    let st = wait_idle(cl, &c, Duration::from_secs(900));
    assert_eq!(st["missing_solve"], serde_json::json!([victim]), "{st}");
    let s = &st["per_shard"][victim as usize];
    assert!(
        s["solve_task"].is_null(),
        "a cancelled task records no exit: {s}"
    );
    // Only the missing shard's solve task is resubmitted (then checks).
    submit(cl, &c, &["--missing"]);
    let st = wait_idle(cl, &c, Duration::from_secs(900));
    let subs = st["submissions"].as_array().unwrap();
    let resolve = &subs[4];
    assert_eq!(resolve["stage"], "solve");
    assert_eq!(resolve["array"], format!("{victim}"));
    assert_eq!(st["missing_solve"], serde_json::json!([]));
    run_ok(coreval(cl).arg("merge").arg(&c));
    same_records_with_reference_times(reference, &c);
    same_reports(cl, reference, &c);
}
