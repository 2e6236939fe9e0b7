//! Kill anywhere, lose nothing: `coreval run` on a campaign of real
//! benchmarks with z3, yices and cvc5 (as solvers under test and as
//! checkers), killed with SIGKILL at seeded random moments in every stage
//! (naming, solving, checking, scoring), re-run until it finishes, must end
//! with the reports of an uninterrupted run of the same campaign: the same
//! verdicts, cores and scores, no pair missing or twice, no journal record
//! twice. Torn last lines (what a killed writer leaves) are injected into
//! the journals between kills; the next run must say so and go on. No
//! solver process of a killed run may outlive the next run.
//! (`tests/orphans.rs` kills coreval while solvers are sure to be running.)
//!
//! The seed is `COREVAL_KILL_SEED` (default fixed); it is printed.

mod common;

use common::procs::{alive, solver_processes, Proc, Running};
use common::{copy_examples, repo};
use coreval::campaign::setup::ConfigFile;
use std::collections::{BTreeMap, HashSet};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

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
    let mut config = ConfigFile::new(bench);
    config.checkers_dir = Some(repo().join("checkers"));
    config.jobs = 2;
    config.cache = Some("cache".into());
    config.naming.allow_no_status = true;
    (config.limits.time, config.limits.checker_time) = (Some(20.0), 20.0);
    config.check.checkers = vec!["z3".into(), "yices".into(), "cvc5".into()];
    for s in ["z3", "yices", "cvc5"] {
        config.solver_definition(s, s);
    }
    config.write_to(dir).unwrap();
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

#[test]
fn killed_anywhere_resumes_to_the_same_reports() {
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
            if target == Stage::Score {
                // Reports already current are not written again (a run that
                // finished before the signal): forget their stamp so that
                // this run scores, and the kill has a score to land in.
                let _ = std::fs::remove_file(dir.join("reports/.inputs.json"));
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
