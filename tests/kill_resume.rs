//! Kill anywhere, lose nothing: `coreval run` on a campaign of real
//! benchmarks with z3, yices and cvc5 (as solvers under test and as
//! checkers), killed with SIGKILL at seeded random moments in every stage
//! (naming, solving, checking, scoring), re-run until it finishes, must end
//! with the reports of an uninterrupted run of the same campaign: the same
//! verdicts, cores and scores, no pair missing or twice, no journal record
//! twice. Torn last lines (what a killed writer leaves) are injected into
//! the journals between kills; the next run must say so and go on. No
//! solver process of a killed run may outlive the next run.
//!
//! A second test kills coreval while real solvers and checkers are running
//! (z3 on a pigeonhole instance it cannot finish, and a fixture whose
//! grandchild outlives it) and checks that the solvers die with coreval and
//! that the next `coreval run` / `coreval check` kills the grandchildren
//! left in their process groups.
//!
//! The seed is `COREVAL_KILL_SEED` (default fixed); it is printed.

mod common;

use common::{copy_examples, q, repo};
use std::collections::{BTreeMap, HashSet};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Small deterministic generator (xorshift64*), so a failing seed replays.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed.max(1))
    }
    fn unit(&mut self) -> f64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as f64 / (1u64 << 53) as f64
    }
    fn between(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }
}

const BENCHMARKS: &[&str] = &[
    "QF_UF/cvc5-test_regress_cli_regress0/bt-test-01.smt2",
    "QF_UF/cvc5-test_regress_cli_regress0_uf/cnf_abc.smt2",
    "QF_UF/opensmt-test_regression_base_QF_UF/issue226b.smt2",
    "QF_LIA/opensmt-test_regression_base_QF_LIA/distinct_unsat.smt2",
    "QF_LIA/doc-arithmetic_artifact_z_QF_LIA_prime-cone/prime_cone_unsat_5.smt2",
    "QF_LIA/cvc5-test_regress_cli_regress0_proofs/RF-11-aci-norm-ndet.smt2",
    "QF_AX/opensmt-test_regression_base_QF_AX/nested_arrays.smt2",
    "QF_ALIA/opensmt-test_regression_base_QF_ALIA/basic_unsat.smt2",
    "QF_BV/cvc5-test_regress_cli_regress1_bv/bug787.smt2",
    "QF_UFBV/cvc5-test_regress_cli_regress0_bv/ackermann6.smt2",
    "QF_UFLIA/cvc5-test_regress_cli_regress0/bug303.smt2",
    "UFLIA/cvc5-test_regress_cli_regress0_quantifiers/qcf-rel-dom-opt.smt2",
    "QF_FP/z3test-regressions_smt2/fp-mul-3.smt2",
];

/// A campaign folder of the 13 benchmarks, z3/yices/cvc5 under test and as checkers.
fn campaign(dir: &Path, bench: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    let config = format!(
        "benchmarks = {}\ncheckers_dir = {}\njobs = 2\ncache = \"cache\"\n\
         [naming]\nallow_no_status = true\n[limits]\ntime = 20.0\nchecker_time = 20.0\n\
         [check]\ncheckers = [\"z3\", \"yices\", \"cvc5\"]\n\
         [[solver]]\nname = \"z3\"\ndefinition = \"z3\"\n\
         [[solver]]\nname = \"yices\"\ndefinition = \"yices\"\n\
         [[solver]]\nname = \"cvc5\"\ndefinition = \"cvc5\"\n",
        q(bench),
        q(&repo().join("checkers"))
    );
    std::fs::write(dir.join("campaign.toml"), config).unwrap();
}

/// A running `coreval` with its stderr collected line by line.
struct Running {
    child: Child,
    lines: Arc<Mutex<Vec<(Instant, String)>>>,
    reader: Option<std::thread::JoinHandle<()>>,
    started: Instant,
}

impl Running {
    fn start(args: &[&str], dir: &Path) -> Running {
        let mut child = Command::new(env!("CARGO_BIN_EXE_coreval"))
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
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
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
    fn saw(&self, prefix: &str) -> Option<Instant> {
        self.lines
            .lock()
            .unwrap()
            .iter()
            .find(|(_, l)| l.starts_with(prefix))
            .map(|(t, _)| *t)
    }

    fn exited(&mut self) -> bool {
        self.child.try_wait().unwrap().is_some()
    }

    fn kill(&mut self) {
        // SAFETY: SIGKILL to our own child.
        unsafe { libc::kill(self.child.id() as i32, libc::SIGKILL) };
    }

    /// Wait for the end; the exit code (None: killed) and all stderr.
    fn wait(mut self) -> (Option<i32>, String) {
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

/// The stage a `coreval run` is in, from the stage lines it printed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Stage {
    Name,
    Solve,
    Check,
    Score,
    Done,
}

fn stage(r: &Running) -> Stage {
    if r.saw("reports:").is_some() {
        Stage::Done
    } else if r.saw("check:").is_some() {
        Stage::Score
    } else if r.saw("solve:").is_some() {
        Stage::Check
    } else if r.saw("name:").is_some() {
        Stage::Solve
    } else {
        Stage::Name
    }
}

/// A live process: pid, start time (clock ticks since boot), process group, command line.
#[derive(Clone, Debug)]
struct Proc {
    pid: i32,
    start: u64,
    pgrp: i32,
    cmdline: String,
}

fn processes() -> Vec<Proc> {
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
fn solver_processes(dir: &Path) -> Vec<Proc> {
    let all = processes();
    let key = dir.to_str().unwrap();
    let me = std::process::id() as i32;
    let groups: HashSet<i32> = all
        .iter()
        .filter(|p| p.cmdline.contains(key) && !p.cmdline.contains("coreval") && p.pid != me)
        .map(|p| p.pgrp)
        .collect();
    all.into_iter()
        .filter(|p| groups.contains(&p.pgrp) && !p.cmdline.contains("coreval"))
        .collect()
}

fn alive(p: &Proc) -> bool {
    processes()
        .iter()
        .any(|x| x.pid == p.pid && x.start == p.start)
}

fn lines(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect()
}

/// Journal keys must be unique.
fn assert_no_duplicates(path: &Path, key: &dyn Fn(&serde_json::Value) -> String) -> usize {
    let records = common::jsonl(path);
    let mut seen = HashSet::new();
    for r in &records {
        assert!(
            seen.insert(key(r)),
            "{}: record twice: {}",
            path.display(),
            key(r)
        );
    }
    records.len()
}

/// What must not differ between a killed-and-resumed campaign and an uninterrupted one.
fn outcome(dir: &Path) -> (BTreeMap<String, String>, Vec<String>) {
    let mut pairs = BTreeMap::new();
    for p in common::jsonl(&dir.join("reports/pairs.jsonl")) {
        let key = format!("{} {}", p["solver"], p["benchmark"]);
        let value = format!(
            "verdict={} status={} division={} assertions={} core_size={} core={} core_hash={} disputed={} pending={} flags={}",
            p["verdict"], p["status"], p["division"], p["assertions"], p["core_size"], p["core"], p["core_hash"], p["disputed"],
            p["pending"], p["flags"]
        );
        assert!(
            pairs.insert(key.clone(), value).is_none(),
            "{}: pair twice: {key}",
            dir.display()
        );
    }
    let scores: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("reports/scores.json")).unwrap()).unwrap();
    let mut rows = vec![format!(
        "pairs={} excluded={}",
        scores["pairs"], scores["excluded_pairs"]
    )];
    for d in scores["divisions"].as_array().unwrap() {
        rows.push(format!(
            "{} benchmarks={} families={} assertions={}",
            d["name"], d["benchmarks"], d["families"], d["assertions"]
        ));
        for mode in ["sequential", "parallel"] {
            let mut solvers: Vec<String> = d[mode]["solvers"]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| {
                    format!(
                        "{} {mode} {}: e={} n={} timeouts={} memouts={} pairs={} error_pairs={}",
                        d["name"],
                        s["solver"],
                        s["errors"],
                        s["correct"],
                        s["timeouts"],
                        s["memouts"],
                        s["pairs"],
                        s["error_pairs"]
                    )
                })
                .collect();
            solvers.sort();
            rows.extend(solvers);
        }
    }
    (pairs, rows)
}

/// Appends half a record without its newline: what a writer killed in the
/// middle of a line leaves.
fn tear(path: &Path) {
    let mut f = std::fs::OpenOptions::new().append(true).open(path).unwrap();
    f.write_all(b"{\"solver\":\"z3\",\"benchmark\":\"QF_UF/cut-off-her")
        .unwrap();
}

/// The run after a journal was torn must say so, naming the file.
fn check_torn_reported(torn: &mut Option<PathBuf>, log: &str) {
    if let Some(path) = torn.take() {
        let name = path.file_name().unwrap().to_str().unwrap();
        assert!(
            log.lines()
                .any(|l| l.contains(name) && l.contains("cut off")),
            "the run after a torn {name} says nothing about it:\n{log}"
        );
    }
}

fn seed() -> u64 {
    std::env::var("COREVAL_KILL_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(20250611)
}

/// The two tests take turns: the kill moments are fractions of stage
/// lengths measured on a machine that must stay as busy as it was.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

#[test]
fn killed_anywhere_resumes_to_the_same_reports() {
    let _turn = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let seed = seed();
    println!("COREVAL_KILL_SEED={seed}");
    let mut rng = Rng::new(seed);
    let tmp = tempfile::tempdir().unwrap();
    let bench = tmp.path().join("bench");
    copy_examples(&bench, BENCHMARKS);

    // The uninterrupted run, with the time each stage ended.
    let reference = tmp.path().join("reference");
    campaign(&reference, &bench);
    let r = Running::start(&["run"], &reference);
    let (t0, times) = (r.started, r.lines.clone());
    let (code, log) = r.wait();
    assert!(matches!(code, Some(0 | 1)), "reference run: {log}");
    let times = times.lock().unwrap().clone();
    let at = |p: &str| {
        let t = times
            .iter()
            .find(|(_, l)| l.starts_with(p))
            .map(|(t, _)| t.duration_since(t0).as_secs_f64());
        t.unwrap_or_else(|| panic!("no {p} line: {log}"))
    };
    let (t_name, t_solve, t_check) = (at("name:"), at("solve:"), at("check:"));
    println!("reference: naming ends at {t_name:.3} s, solving at {t_solve:.3} s, checking at {t_check:.3} s");
    let (solve_len, check_len) = (t_solve - t_name, t_check - t_solve);
    let expected = outcome(&reference);

    // The run that is killed again and again.
    let dir = tmp.path().join("killed");
    let mut landed: BTreeMap<Stage, usize> = BTreeMap::new();
    let mut orphan_candidates: Vec<Proc> = Vec::new();
    let mut torn: Option<PathBuf> = None;
    let mut kills = 0;
    let plan = [
        Stage::Name,
        Stage::Solve,
        Stage::Solve,
        Stage::Check,
        Stage::Check,
        Stage::Check,
        Stage::Score,
    ];
    for target in plan {
        for attempt in 0..40 {
            if target == Stage::Name && attempt > 0 {
                // Naming is over in a few milliseconds: start afresh.
                let _ = std::fs::remove_dir_all(&dir);
            }
            if !dir.join("campaign.toml").exists() {
                campaign(&dir, &bench);
            }
            let mut r = Running::start(&["run"], &dir);
            // Wait for the target stage, then a random moment in it.
            let index = dir.join("named/index.jsonl");
            loop {
                let now = stage(&r);
                let naming_begun = std::fs::metadata(&index)
                    .map(|m| m.len() > 0)
                    .unwrap_or(false);
                if now > target
                    || r.exited()
                    || (target == Stage::Name && naming_begun)
                    || (target != Stage::Name && now == target)
                {
                    break;
                }
                std::thread::sleep(Duration::from_micros(200));
            }
            let delay = match target {
                Stage::Name => 0.0,
                Stage::Solve => rng.between(0.1, 0.3) * solve_len,
                Stage::Check => rng.between(0.05, 0.25) * check_len,
                _ => rng.between(0.0, 0.02),
            };
            std::thread::sleep(Duration::from_secs_f64(delay));
            let at = stage(&r);
            if !r.exited() {
                orphan_candidates.extend(solver_processes(&dir));
                r.kill();
            }
            let (code, log) = r.wait();
            check_torn_reported(&mut torn, &log);
            // Finished before the signal: aim again (naming and scoring), or
            // the stage is over.
            if code.is_some() {
                assert!(matches!(code, Some(0 | 1)), "{log}");
                if target == Stage::Name || target == Stage::Score {
                    continue;
                }
                break;
            }
            kills += 1;
            println!("kill {kills}: aimed at {target:?}, landed in {at:?} after {delay:.3} s (attempt {})", attempt + 1);
            *landed.entry(at).or_default() += 1;
            // Between kills, tear a journal the way a killed writer would.
            let journal = match at {
                Stage::Name => Some(index.clone()),
                Stage::Solve => Some(dir.join("runs.jsonl")),
                Stage::Check if dir.join("checks.jsonl").exists() => Some(dir.join("checks.jsonl")),
                Stage::Check => Some(dir.join("cores.jsonl")),
                _ => None,
            };
            if let Some(j) = journal.filter(|j| j.exists()) {
                tear(&j);
                torn = Some(j);
            }
            if at == target {
                break;
            }
        }
    }
    for s in [Stage::Name, Stage::Solve, Stage::Check, Stage::Score] {
        assert!(
            landed.get(&s).copied().unwrap_or(0) > 0,
            "no kill landed in {s:?}: {landed:?}"
        );
    }

    // Re-run until done.
    let mut reruns = 0;
    let log = loop {
        reruns += 1;
        assert!(reruns <= 3, "the campaign does not finish after a kill");
        let (code, log) = Running::start(&["run"], &dir).wait();
        check_torn_reported(&mut torn, &log);
        if matches!(code, Some(0 | 1)) {
            break log;
        }
        println!("re-run {reruns} ended with {code:?}:\n{log}");
    };
    println!("{kills} kills, landed {landed:?}, {reruns} re-run(s); last run:\n{log}");

    // No solver of a killed run outlives the next run.
    for p in &orphan_candidates {
        assert!(!alive(p), "orphan of a killed run still running: {p:?}");
    }
    // Every journal: whole lines only, no key twice.
    let str_of = |v: &serde_json::Value, k: &str| v[k].as_str().unwrap_or_default().to_string();
    let runs = assert_no_duplicates(&dir.join("runs.jsonl"), &|r| {
        format!("{} {}", str_of(r, "solver"), str_of(r, "benchmark"))
    });
    assert_no_duplicates(&dir.join("cores.jsonl"), &|r| {
        format!("{} {}", str_of(r, "solver"), str_of(r, "benchmark"))
    });
    assert_no_duplicates(&dir.join("checks.jsonl"), &|r| {
        format!("{} {}", str_of(r, "hash"), str_of(r, "checker"))
    });
    assert_no_duplicates(&dir.join("named/index.jsonl"), &|r| str_of(r, "id"));
    assert_eq!(
        runs,
        lines(&reference.join("runs.jsonl")).len(),
        "one run record per pair"
    );
    let got = outcome(&dir);
    for (k, v) in &expected.0 {
        assert_eq!(got.0.get(k), Some(v), "pair {k}");
    }
    assert_eq!(
        got.0.len(),
        expected.0.len(),
        "no pair missing, no pair extra"
    );
    assert_eq!(got.1, expected.1, "scores");
}

/// Ends a test's leftovers: the running coreval, then the groups it left.
struct Reaper(Vec<PathBuf>);

impl Drop for Reaper {
    fn drop(&mut self) {
        for d in &self.0 {
            coreval::runner::reap_orphans(&d.join(".pids"));
        }
    }
}

/// Waits up to `secs` for `cond`.
fn eventually(secs: f64, mut cond: impl FnMut() -> bool) -> bool {
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

/// A campaign on the pigeonhole instance (z3 cannot finish it), with
/// `solvers` and `checkers`, long limits.
fn slow_campaign(dir: &Path, solvers: &str, checkers: &str, checkers_dir: &Path) {
    let bench = dir.join("bench/QF_UF/php");
    std::fs::create_dir_all(&bench).unwrap();
    std::fs::copy(
        repo().join("tests/fixtures/solver-output/inputs/php11.smt2"),
        bench.join("php11.smt2"),
    )
    .unwrap();
    let config = format!(
        "benchmarks = \"bench\"\ncheckers_dir = {}\njobs = 3\ncache = \"cache\"\n\
         [naming]\nallow_no_status = true\nnamed_policy = \"strip\"\n\
         [limits]\ntime = 60.0\nchecker_time = 60.0\ngrace = 0.2\n[check]\ncheckers = [{checkers}]\n{solvers}",
        q(checkers_dir)
    );
    std::fs::write(dir.join("campaign.toml"), config).unwrap();
}

/// Kill `r` once the processes `want` names (command-line words) all run
/// on the campaign's files; returns them with their group members.
fn kill_when_running(r: &mut Running, dir: &Path, want: &[&str]) -> Vec<Proc> {
    let mut seen = Vec::new();
    let found = eventually(30.0, || {
        seen = solver_processes(dir);
        want.iter()
            .all(|w| seen.iter().any(|p| p.cmdline.contains(w)))
            && seen.iter().any(|p| p.cmdline.starts_with("sleep"))
    });
    assert!(found, "the solvers never started: {seen:?}");
    r.kill();
    seen
}

#[test]
fn solvers_of_a_killed_run_do_not_survive_the_next() {
    let _turn = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let tmp = tempfile::tempdir().unwrap();
    let fixtures = repo().join("tests/fixtures/fake-solvers");
    // A checkers folder with the real z3 and a checker whose grandchild
    // (`sleep 1000`) stays behind in its group.
    let kdir = common::real_checkers(&tmp.path().join("checkers"));
    let hang = fixtures.join("hang.sh");
    std::fs::write(
        kdir.join("hang.toml"),
        format!(
            "name = \"hang\"\nteam = \"hang\"\ncommand = [{}, \"{{file}}\"]\nlogics = [\"*\"]\nproduces_cores = false\n\
             version_command = [\"/bin/echo\", \"1\"]\ninstall_hint = \"tests/fixtures\"\n",
            q(&hang)
        ),
    )
    .unwrap();

    // Solve stage: z3 (real, cannot finish) and hang.sh under test.
    let solving = tmp.path().join("solving");
    std::fs::create_dir_all(&solving).unwrap();
    let solvers = format!(
        "[[solver]]\nname = \"z3\"\ndefinition = \"z3\"\n[[solver]]\nname = \"hang\"\ncommand = [{}, \"{{file}}\"]\n",
        q(&hang)
    );
    slow_campaign(&solving, &solvers, "\"z3\"", &kdir);
    // Check stage: a solver that prints the full core at once; z3 and hang.sh check it.
    let checking = tmp.path().join("checking");
    std::fs::create_dir_all(&checking).unwrap();
    let fast = format!(
        "[[solver]]\nname = \"fast\"\ncommand = [{}, \"{{file}}\"]\n",
        q(&fixtures.join("unsat-core.sh"))
    );
    slow_campaign(&checking, &fast, "\"z3\", \"hang\"", &kdir);
    let _reaper = Reaper(vec![solving.clone(), checking.clone()]);

    for (dir, rerun, files) in [(&solving, "run", "named/"), (&checking, "check", "cores/")] {
        let mut r = Running::start(&["run"], dir);
        let procs = kill_when_running(&mut r, dir, &["venv/bin/z3", "hang.sh"]);
        let _ = r.wait();
        assert!(procs.iter().any(|p| p.cmdline.contains(files)), "{procs:?}");
        // The solvers themselves die with coreval (PR_SET_PDEATHSIG)…
        let direct: Vec<&Proc> = procs
            .iter()
            .filter(|p| !p.cmdline.starts_with("sleep"))
            .collect();
        assert!(
            eventually(2.0, || direct.iter().all(|p| !alive(p))),
            "solvers outlived the killed coreval: {direct:?}"
        );
        // …their grandchildren stay in the groups until the next coreval.
        let grandchildren: Vec<&Proc> = procs
            .iter()
            .filter(|p| p.cmdline.starts_with("sleep"))
            .collect();
        assert!(grandchildren.iter().all(|p| alive(p)), "{grandchildren:?}");
        let started = Instant::now();
        let mut next = Running::start(&[rerun], dir);
        assert!(
            eventually(10.0, || grandchildren.iter().all(|p| !alive(p))),
            "`coreval {rerun}` left the killed run's processes running: {grandchildren:?}"
        );
        println!(
            "`coreval {rerun}` cleaned up {} process(es) in {:.2} s",
            grandchildren.len(),
            started.elapsed().as_secs_f64()
        );
        assert!(
            eventually(10.0, || next.saw("note: killed").is_some()),
            "no word of the clean-up"
        );
        next.kill();
        let _ = next.wait();
    }
}
