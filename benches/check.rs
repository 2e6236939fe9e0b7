//! The check stage on a real campaign: a varied subset of
//! `tests/data/benchmarks` (quick unsat benchmarks per MANIFEST.tsv, round
//! robin over logics; no `large/`, `sat/`, `edge/`), three solvers under
//! test (the z3, yices and cvc5 definitions) and every installed checker
//! (z3, yices, cvc5, cvc4, cvc5-py, bitwuzla, boolector). Figures:
//!
//! - **dedupe**: pairs with a well-formed core / distinct core-only files;
//! - **cache**: a second campaign folder with the same cores and the same
//!   cache dir (target: 0 checker runs);
//! - **early stop**: total checker CPU with `early_stop = true` against
//!   `false` (`coreval check --all-checkers`), each on a fresh cache
//!   (target: ≥ 30 % saved);
//! - **utilisation**: sum of checker wall times / (jobs × wall time of the
//!   checker runs), and busy CPU share from `/proc/stat` over the same span
//!   (the whole machine: other load counts too) (target ≥ 95 %).
//!
//! `cargo bench --bench check -- [--count N] [--jobs N] [--rounds N] [--dir D]`
//! (defaults 80, the number of cores, 2, a temp dir). The solve stage runs
//! once (in `D/base`, resumed when `D` is kept); every round re-runs the
//! checks in new campaign folders sharing its results.

use coreval::campaign::setup::Campaign;
use coreval::check::CheckSummary;
use coreval::pipeline::{self, Stages};
use std::collections::BTreeMap;
use std::path::Path;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

struct Args {
    count: usize,
    jobs: usize,
    rounds: usize,
    /// Work folder kept between invocations (the solve stage resumes).
    dir: Option<std::path::PathBuf>,
}

fn parse_args() -> Args {
    let mut args = Args {
        count: 80,
        jobs: 0,
        rounds: 2,
        dir: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let mut text = || it.next().unwrap_or_else(|| panic!("{arg} needs a value"));
        match arg.as_str() {
            "--count" => args.count = text().parse().expect("--count N"),
            "--jobs" => args.jobs = text().parse().expect("--jobs N"),
            "--rounds" => args.rounds = text().parse().expect("--rounds N"),
            "--dir" => args.dir = Some(text().into()),
            _ => {} // `cargo bench` passes `--bench`
        }
    }
    args
}

/// Quick unsat benchmarks (every solver in `confirmed_by` answered unsat in
/// under a second), `count` of them taken round robin over the logics.
fn pick(count: usize) -> Vec<String> {
    let manifest = Path::new(ROOT).join("tests/data/benchmarks/MANIFEST.tsv");
    let text = std::fs::read_to_string(&manifest).expect("tests/data/benchmarks/MANIFEST.tsv");
    let mut by_logic: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for line in text.lines().skip(1) {
        let f: Vec<&str> = line.split('\t').collect();
        let (path, logic, status, confirmed) = (f[0], f[5], f[8], f[9]);
        if ["large/", "sat/", "edge/"]
            .iter()
            .any(|p| path.starts_with(p))
            || status != "unsat"
        {
            continue;
        }
        let quick = confirmed.split(';').filter(|e| !e.is_empty()).all(|e| {
            let p: Vec<&str> = e.split(':').collect();
            p.len() == 3
                && p[1] == "unsat"
                && p[2]
                    .trim_end_matches('s')
                    .parse::<f64>()
                    .is_ok_and(|t| t < 1.0)
        });
        if quick {
            by_logic
                .entry(logic.to_string())
                .or_default()
                .push(path.to_string());
        }
    }
    let mut out = Vec::new();
    for round in 0.. {
        let before = out.len();
        for files in by_logic.values() {
            if let Some(f) = files.get(round) {
                if out.len() < count {
                    out.push(f.clone());
                }
            }
        }
        if out.len() == before || out.len() >= count {
            break;
        }
    }
    out
}

fn config(jobs: usize, cache: &Path, early_stop: bool) -> String {
    format!(
        "benchmarks = \"benchmarks\"\njobs = {jobs}\ncache = \"{}\"\n\
         [naming]\nallow_no_status = true\n\
         [limits]\ntime = 10.0\nchecker_time = 10.0\n\
         [check]\ncheckers = [\"z3\", \"yices\", \"cvc5\", \"cvc4\", \"cvc5-py\", \"bitwuzla\", \"boolector\"]\n\
         early_stop = {early_stop}\n\
         [[solver]]\nname = \"z3\"\ndefinition = \"z3\"\n[[solver]]\nname = \"yices\"\ndefinition = \"yices\"\n\
         [[solver]]\nname = \"cvc5\"\ndefinition = \"cvc5\"\n",
        cache.display()
    )
}

/// A campaign folder sharing `base`'s benchmarks, names and solver runs.
fn sibling(base: &Path, dir: &Path, jobs: usize, cache: &Path, early_stop: bool) -> Campaign {
    std::fs::create_dir_all(dir).unwrap();
    std::os::unix::fs::symlink(base.join("benchmarks"), dir.join("benchmarks")).unwrap();
    copy_tree(&base.join("named"), &dir.join("named"));
    std::fs::copy(base.join("runs.jsonl"), dir.join("runs.jsonl")).unwrap();
    std::fs::write(dir.join("campaign.toml"), config(jobs, cache, early_stop)).unwrap();
    Campaign::load(dir).unwrap()
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_dir() {
            copy_tree(&e.path(), &to.join(e.file_name()));
        } else {
            std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
    }
}

/// (busy, total) jiffies of all CPUs from /proc/stat.
fn cpu_jiffies() -> (u64, u64) {
    let text = std::fs::read_to_string("/proc/stat").unwrap_or_default();
    let v: Vec<u64> = text
        .lines()
        .next()
        .unwrap_or("")
        .split_whitespace()
        .skip(1)
        .filter_map(|x| x.parse().ok())
        .collect();
    if v.len() < 5 {
        return (0, 0);
    }
    let idle = v[3] + v[4];
    let total: u64 = v.iter().take(8).sum();
    (total - idle, total)
}

/// What one check pass measured.
struct Pass {
    s: CheckSummary,
    /// Wall seconds of the whole stage (rebuilds, version probes, planning, runs).
    stage_wall: f64,
    /// Busy share of all CPUs (/proc/stat) while it ran, other load included.
    machine_busy: f64,
}

impl Pass {
    /// Checker wall time over jobs × the whole stage's wall time.
    fn stage_utilisation(&self) -> f64 {
        self.s.checker_wall / (self.s.jobs as f64 * self.stage_wall).max(1e-9)
    }

    fn line(&self, what: &str) -> String {
        format!(
            "{what}: {:4} runs, {:6.2} s checker CPU, {:5.2} s stage wall ({:5.2} s running checkers), \
             skipped {} killed {}; utilisation {:.1} % of the runs phase, {:.1} % of the stage (machine busy {:.1} %)",
            self.s.ran,
            self.s.cpu,
            self.stage_wall,
            self.s.wall,
            self.s.skipped,
            self.s.killed,
            100.0 * self.s.utilisation(),
            100.0 * self.stage_utilisation(),
            100.0 * self.machine_busy
        )
    }
}

fn run_check(c: &Campaign) -> Pass {
    let (b0, t0) = cpu_jiffies();
    let t = std::time::Instant::now();
    let stages = Stages {
        check: true,
        ..Stages::default()
    };
    let s = pipeline::run_to_end(c, stages).unwrap().check.unwrap();
    let stage_wall = t.elapsed().as_secs_f64();
    let (b1, t1) = cpu_jiffies();
    let machine_busy = if t1 > t0 {
        (b1 - b0) as f64 / (t1 - t0) as f64
    } else {
        0.0
    };
    Pass {
        s,
        stage_wall,
        machine_busy,
    }
}

fn mark(ok: bool) -> &'static str {
    if ok {
        "ok"
    } else {
        "MISSED"
    }
}

fn main() {
    let args = parse_args();
    let jobs = if args.jobs == 0 {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    } else {
        args.jobs
    };
    let tmp_dir = tempfile::tempdir().unwrap();
    let tmp = match &args.dir {
        Some(d) => d.as_path(),
        None => tmp_dir.path(),
    };
    let base = tmp.join("base");
    let files = pick(args.count);
    for f in &files {
        let to = base.join("benchmarks").join(f);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        if !to.exists() {
            std::fs::copy(Path::new(ROOT).join("tests/data/benchmarks").join(f), to).unwrap();
        }
    }
    let logics: std::collections::BTreeSet<&str> =
        files.iter().map(|f| f.split('/').next().unwrap()).collect();
    println!(
        "check bench: {} benchmarks in {} logics, {jobs} jobs, {} rounds",
        files.len(),
        logics.len(),
        args.rounds
    );
    std::fs::write(
        base.join("campaign.toml"),
        config(jobs, &tmp.join("cache-base"), true),
    )
    .unwrap();
    let c = Campaign::load(&base).unwrap();
    let t = std::time::Instant::now();
    let stages = Stages {
        name: true,
        solve: true,
        ..Stages::default()
    };
    let s = pipeline::run_to_end(&c, stages).unwrap().solve.unwrap();
    println!(
        "solve: {} pairs in {:.1} s (not measured below)",
        s.total_pairs,
        t.elapsed().as_secs_f64()
    );

    let mut saved = Vec::new();
    let mut utilisation = Vec::new();
    let mut stage_utilisation = Vec::new();
    for round in 0..args.rounds {
        let dir = |name: &str| tmp.join(format!("r{round}-{name}"));
        let cache = |name: &str| tmp.join(format!("cache-r{round}-{name}"));
        for name in ["early", "again", "all"] {
            std::fs::remove_dir_all(dir(name)).ok();
            std::fs::remove_dir_all(cache(name)).ok();
        }
        // Early stop on, fresh cache.
        let a = sibling(&base, &dir("early"), jobs, &cache("early"), true);
        let early = run_check(&a);
        // The same cores in a new folder, same cache: nothing to run.
        let b = sibling(&base, &dir("again"), jobs, &cache("early"), true);
        let again = run_check(&b);
        // Every checker on every core, fresh cache.
        let all = sibling(&base, &dir("all"), jobs, &cache("all"), false);
        let every = run_check(&all);
        let (se, sa, sl) = (&early.s, &again.s, &every.s);
        let dedupe = se.cores as f64 / se.distinct.max(1) as f64;
        let save = 1.0 - se.cpu / sl.cpu.max(1e-9);
        println!("round {round}:");
        println!(
            "  {} pairs with a well-formed core, {} distinct core-only files: dedupe {dedupe:.2}x",
            se.cores, se.distinct
        );
        println!("  {}", early.line("early stop  "));
        println!("  {}", every.line("all checkers"));
        println!(
            "  CPU saved by early stop: {:.1} % [{}]",
            100.0 * save,
            mark(save >= 0.30)
        );
        println!(
            "  second campaign, same cache: {} checker runs, {} cache hits, {:.2} s [{}]",
            sa.ran,
            sa.cache_hits,
            again.stage_wall,
            mark(sa.ran == 0)
        );
        saved.push(save);
        utilisation.push(se.utilisation().min(sl.utilisation()));
        stage_utilisation.push(early.stage_utilisation().min(every.stage_utilisation()));
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let (ms, mu, mst) = (
        median(&mut saved),
        median(&mut utilisation),
        median(&mut stage_utilisation),
    );
    println!(
        "median CPU saved by early stop {:.1} % [{}]",
        100.0 * ms,
        mark(ms >= 0.30)
    );
    println!(
        "median utilisation while running checkers (lower of the two passes) {:.1} % [{}]",
        100.0 * mu,
        mark(mu >= 0.95)
    );
    println!(
        "median utilisation over the whole stage (lower of the two passes) {:.1} %",
        100.0 * mst
    );
}
