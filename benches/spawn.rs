//! Spawn cost and slot occupancy of the solve stage, against `xargs -P N`.
//!
//! - **instant jobs**: every named benchmark of `tests/data/benchmarks`
//!   (`--count` of them) × `--solvers` inline solvers `sh -c 'echo unsat;
//!   echo "(cv1 cv2)"' {file}`, solve stage only, `jobs = N`, against
//!   `xargs -P N` running the same commands (output read through a pipe).
//!   Wall, user and system CPU (this process and its children: coreval's
//!   threads included, xargs itself included), system time per job, and
//!   the ratios coreval/xargs. Rounds interleave the two, so that load from
//!   other processes hits them alike.
//! - **occupancy**: a real-solver campaign (z3, yices, cvc5 on the quick
//!   unsat benchmarks, 2 s limit, `jobs = N`): the share of the N slots
//!   busy with runs, from the `timing` of every record in `runs.jsonl`
//!   (Σ run time / (N × first start to last end)), and over the whole
//!   stage's wall time (setup and version probes included).
//!
//! `cargo bench --bench spawn -- [N…] [--count B] [--solvers K] [--rounds R]
//! [--real B] [--through small|self|none]`: one section per N (default: 2,
//! and 16 too on a machine with at least 16 cores); medians of R rounds
//! (default 3) close each section. Runs go through the trampoline as the
//! `coreval` binary starts them: `small` (default) the `coreval-trampoline`
//! executable, `self` coreval's own executable (the fallback without it),
//! `none` started directly (`max_rss` then includes coreval's own peak).

use coreval::campaign::ledger::records::RunRecord;
use coreval::campaign::setup::Campaign;
use coreval::pipeline::{self, Stages};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

/// The `coreval` binary's allocator (`src/main.rs`), so that the solve
/// stage measured here allocates as it does there.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");
const SCRIPT: &str = "echo unsat; echo \"(cv1 cv2)\"";

struct Args {
    jobs: Vec<usize>,
    count: usize,
    solvers: usize,
    rounds: usize,
    real: usize,
    through: String,
}

fn parse_args() -> Args {
    let mut args = Args {
        jobs: Vec::new(),
        count: usize::MAX,
        solvers: 8,
        rounds: 3,
        real: 120,
        through: "small".into(),
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let mut value = || {
            it.next()
                .and_then(|v| v.parse().ok())
                .unwrap_or_else(|| panic!("{arg} needs a number"))
        };
        match arg.as_str() {
            "--count" => args.count = value(),
            "--solvers" => args.solvers = value(),
            "--rounds" => args.rounds = value(),
            "--real" => args.real = value(),
            "--through" => args.through = it.next().expect("--through small|self|none"),
            n => {
                if let Ok(n) = n.parse() {
                    args.jobs.push(n);
                } // else `--bench`, passed by `cargo bench`
            }
        }
    }
    if args.jobs.is_empty() {
        args.jobs.push(2);
        if std::thread::available_parallelism().map_or(1, |n| n.get()) >= 16 {
            args.jobs.push(16);
        }
    }
    args
}

/// (user, system) CPU seconds of this process plus its reaped children.
fn cpu() -> (f64, f64) {
    let (mut user, mut sys) = (0.0, 0.0);
    for who in [libc::RUSAGE_SELF, libc::RUSAGE_CHILDREN] {
        // SAFETY: zeroed rusage is a valid out-parameter.
        let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: getrusage writes into a valid struct.
        unsafe { libc::getrusage(who, &mut ru) };
        let secs = |tv: libc::timeval| tv.tv_sec as f64 + tv.tv_usec as f64 / 1e6;
        user += secs(ru.ru_utime);
        sys += secs(ru.ru_stime);
    }
    (user, sys)
}

/// Wall, user and system seconds that `f` took.
#[derive(Clone, Copy)]
struct Cost {
    wall: f64,
    user: f64,
    sys: f64,
}

fn measure(f: impl FnOnce()) -> Cost {
    let ((u0, s0), t) = (cpu(), Instant::now());
    f();
    let (u1, s1) = cpu();
    Cost {
        wall: t.elapsed().as_secs_f64(),
        user: u1 - u0,
        sys: s1 - s0,
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Benchmarks of `tests/data/benchmarks` (at most `count`, sorted), quick
/// unsat ones only when `quick` (every confirming solver under a second).
fn pick(count: usize, quick: bool) -> Vec<String> {
    let manifest = Path::new(ROOT).join("tests/data/benchmarks/MANIFEST.tsv");
    let text = std::fs::read_to_string(manifest).expect("tests/data/benchmarks/MANIFEST.tsv");
    let mut out: Vec<String> = text
        .lines()
        .skip(1)
        .filter_map(|line| {
            let f: Vec<&str> = line.split('\t').collect();
            let fast = f[9].split(';').filter(|e| !e.is_empty()).all(|e| {
                let p: Vec<&str> = e.split(':').collect();
                p.len() == 3
                    && p[1] == "unsat"
                    && p[2]
                        .trim_end_matches('s')
                        .parse::<f64>()
                        .is_ok_and(|t| t < 1.0)
            });
            let usable = !f[0].starts_with("edge/") && !f[0].starts_with("large/");
            (usable && (!quick || (f[8] == "unsat" && fast))).then(|| f[0].to_string())
        })
        .collect();
    out.sort();
    out.truncate(count);
    out
}

/// A named campaign in `dir` with `files`, and the paths of its named
/// benchmarks.
fn named_campaign(dir: &Path, files: &[String]) -> Vec<PathBuf> {
    for f in files {
        let to = dir.join("benchmarks").join(f);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(Path::new(ROOT).join("tests/data/benchmarks").join(f), to).unwrap();
    }
    write_config(dir, 1, &solvers_inline(1), 2.0);
    let c = Campaign::load(dir).unwrap();
    let stages = Stages {
        name: true,
        ..Stages::default()
    };
    pipeline::run_to_end(&c, stages).unwrap();
    coreval::campaign::ledger::index::read_index(&c)
        .unwrap()
        .into_iter()
        .map(|e| c.named_dir().join(e.output))
        .collect()
}

fn solvers_inline(k: usize) -> String {
    (0..k)
        .map(|i| {
            format!(
                "[[solver]]\nname = \"instant{i}\"\ncommand = [\"/bin/sh\", \"-c\", {:?}, \"{{file}}\"]\n",
                SCRIPT
            )
        })
        .collect()
}

fn write_config(dir: &Path, jobs: usize, solvers: &str, time: f64) {
    let text = format!(
        "benchmarks = \"benchmarks\"\njobs = {jobs}\n[naming]\nallow_no_status = true\n\
         [limits]\ntime = {time}\nchecker_time = {time}\n{solvers}"
    );
    std::fs::write(dir.join("campaign.toml"), text).unwrap();
}

/// A fresh campaign folder sharing `base`'s benchmarks and names.
fn sibling(base: &Path, dir: &Path, jobs: usize, solvers: &str, time: f64) -> Campaign {
    std::fs::remove_dir_all(dir).ok();
    std::fs::create_dir_all(dir).unwrap();
    for sub in ["benchmarks", "named"] {
        std::os::unix::fs::symlink(base.join(sub), dir.join(sub)).unwrap();
    }
    write_config(dir, jobs, solvers, time);
    Campaign::load(dir).unwrap()
}

fn solve(c: &Campaign) -> usize {
    let stages = Stages {
        solve: true,
        ..Stages::default()
    };
    let s = pipeline::run_to_end(c, stages).unwrap().solve.unwrap();
    s.ran
}

/// `xargs -P jobs` running `sh -c SCRIPT FILE` for every file, `k` times
/// over, its output read (and dropped) through a pipe.
fn xargs(files: &[PathBuf], k: usize, jobs: usize) {
    let mut input = String::new();
    for _ in 0..k {
        for f in files {
            input.push_str(f.to_str().unwrap());
            input.push('\n');
        }
    }
    let mut child = Command::new("xargs")
        .args([
            "-P",
            &jobs.to_string(),
            "-n",
            "1",
            "-d",
            "\n",
            "/bin/sh",
            "-c",
            SCRIPT,
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("xargs");
    let mut stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut sink = Vec::new();
        stdout.read_to_end(&mut sink).map(|_| sink.len())
    });
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(input.as_bytes()).unwrap();
    drop(stdin);
    assert!(child.wait().unwrap().success(), "xargs failed");
    reader.join().unwrap().unwrap();
}

/// Busy share of `jobs` slots over the runs' own timeline, and Σ run time.
fn occupancy(c: &Campaign, jobs: usize) -> (f64, f64, usize) {
    let runs: Vec<RunRecord> = c
        .read_journal(coreval::campaign::ledger::records::RUNS)
        .unwrap();
    let t: Vec<_> = runs.iter().filter_map(|r| r.timing).collect();
    let first = t.iter().map(|t| t.start).fold(f64::INFINITY, f64::min);
    let last = t.iter().map(|t| t.end).fold(f64::NEG_INFINITY, f64::max);
    let busy: f64 = t.iter().map(|t| t.end - t.start).sum();
    (busy / (jobs as f64 * (last - first)), busy, t.len())
}

fn section(a: &Args, jobs: usize, tmp: &Path, files: &[PathBuf], real: &Path) {
    let k = a.solvers;
    let n = files.len() * k;
    println!(
        "== N = {jobs}: {} named benchmarks × {k} instant solvers = {n} jobs",
        files.len()
    );
    let (mut wall, mut cpu, mut sys_per) = (Vec::new(), Vec::new(), [Vec::new(), Vec::new()]);
    for round in 1..=a.rounds {
        let dir = tmp.join(format!("instant-{jobs}-{round}"));
        let c = sibling(&tmp.join("base"), &dir, jobs, &solvers_inline(k), 10.0);
        let mut ran = 0;
        // Alternate which goes first, so that neither always meets a cold
        // cache or the other's leftovers.
        let (x, r) = if round % 2 == 1 {
            let x = measure(|| xargs(files, k, jobs));
            (x, measure(|| ran = solve(&c)))
        } else {
            let r = measure(|| ran = solve(&c));
            (measure(|| xargs(files, k, jobs)), r)
        };
        assert_eq!(ran, n, "every instant job ran");
        std::fs::remove_dir_all(&dir).ok();
        let per = |s: f64| s / n as f64 * 1e6;
        println!(
            "round {round}: xargs {:.2} s wall, {:.2} user + {:.2} sys; coreval {:.2} s wall, \
             {:.2} user + {:.2} sys; sys per job {:.0} µs vs {:.0} µs; ratio wall {:.2}, CPU {:.2}",
            x.wall,
            x.user,
            x.sys,
            r.wall,
            r.user,
            r.sys,
            per(r.sys),
            per(x.sys),
            r.wall / x.wall,
            (r.user + r.sys) / (x.user + x.sys)
        );
        wall.push(r.wall / x.wall);
        cpu.push((r.user + r.sys) / (x.user + x.sys));
        sys_per[0].push(per(r.sys));
        sys_per[1].push(per(x.sys));
    }
    let [ours, theirs] = sys_per;
    println!(
        "median N = {jobs}: coreval/xargs wall {:.2} (target ≤ 1.0), CPU {:.2} (target ≤ 1.5); \
         sys per job {:.0} µs (xargs {:.0} µs)",
        median(wall),
        median(cpu),
        median(ours),
        median(theirs)
    );
    let real_solvers = "[[solver]]\nname = \"z3\"\ndefinition = \"z3\"\n\
        [[solver]]\nname = \"yices\"\ndefinition = \"yices\"\n\
        [[solver]]\nname = \"cvc5\"\ndefinition = \"cvc5\"\n";
    let (mut timeline, mut stage) = (Vec::new(), Vec::new());
    for round in 1..=a.rounds {
        let dir = tmp.join(format!("real-{jobs}-{round}"));
        let c = sibling(real, &dir, jobs, real_solvers, 2.0);
        let r = measure(|| {
            solve(&c);
        });
        let (share, busy, runs) = occupancy(&c, jobs);
        let whole = busy / (jobs as f64 * r.wall);
        println!(
            "round {round}: real solvers, {runs} runs in {:.2} s: slots busy {:.1} % of the runs' \
             timeline, {:.1} % of the stage's wall time",
            r.wall,
            100.0 * share,
            100.0 * whole
        );
        timeline.push(share);
        stage.push(whole);
        std::fs::remove_dir_all(&dir).ok();
    }
    println!(
        "median N = {jobs}: slots busy {:.1} % of the timeline (target ≥ 95 %), {:.1} % of the stage",
        100.0 * median(timeline),
        100.0 * median(stage)
    );
}

fn main() {
    coreval::process::allocator::configure();
    let a = parse_args();
    match a.through.as_str() {
        "small" => coreval::runner::use_trampoline(env!("CARGO_BIN_EXE_coreval-trampoline")),
        "self" => coreval::runner::use_trampoline(env!("CARGO_BIN_EXE_coreval")),
        "none" => {}
        other => panic!("--through {other}: small, self or none"),
    }
    println!("runs through: {}", a.through);
    let tmp = tempfile::tempdir().unwrap();
    let files = named_campaign(&tmp.path().join("base"), &pick(a.count, false));
    let real = tmp.path().join("real");
    named_campaign(&real, &pick(a.real, true));
    for &jobs in &a.jobs {
        section(&a, jobs, tmp.path(), &files, &real);
    }
}
