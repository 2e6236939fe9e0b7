//! Per-job overhead of `coreval::runner::run` against `xargs -P`: the same
//! no-op command run COUNT times with JOBS in parallel, first by xargs, then
//! through the runner on a rayon pool (fresh temporary working directory per
//! run), then again with pid records (`pid_dir`). Each round prints the wall
//! times, the runner/xargs ratios (target ≤ 1.2) and the CPU time per job
//! (this process plus its children, so the figure for xargs includes xargs
//! itself); the median ratio closes. Rounds interleave the contenders so
//! that load from other processes hits them alike.
//!
//! `cargo bench --bench runner -- [--jobs N] [--count N] [--rounds N]
//! [--program PATH]` (defaults: the number of cores, 5000, 3, /bin/true).

use coreval::runner::{run, Exit, RunSpec};
use rayon::prelude::*;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

struct Args {
    jobs: usize,
    count: usize,
    rounds: usize,
    program: String,
}

fn parse_args() -> Args {
    let mut args = Args {
        jobs: std::thread::available_parallelism().map_or(1, |n| n.get()),
        count: 5000,
        rounds: 3,
        program: "/bin/true".into(),
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let mut value = || it.next().unwrap_or_else(|| panic!("{arg} needs a value"));
        match arg.as_str() {
            "--jobs" => args.jobs = value().parse().expect("--jobs N"),
            "--count" => args.count = value().parse().expect("--count N"),
            "--rounds" => args.rounds = value().parse().expect("--rounds N"),
            "--program" => args.program = value(),
            _ => {} // `cargo bench` passes `--bench`
        }
    }
    args
}

/// Wall seconds and CPU seconds (this process plus reaped children) that
/// `f` took.
fn measure(f: impl FnOnce()) -> (f64, f64) {
    let cpu = || {
        let mut total = 0.0;
        for who in [libc::RUSAGE_SELF, libc::RUSAGE_CHILDREN] {
            // SAFETY: zeroed rusage is a valid out-parameter.
            let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
            // SAFETY: getrusage writes into a valid struct.
            unsafe { libc::getrusage(who, &mut ru) };
            for tv in [ru.ru_utime, ru.ru_stime] {
                total += tv.tv_sec as f64 + tv.tv_usec as f64 / 1e6;
            }
        }
        total
    };
    let (cpu0, start) = (cpu(), Instant::now());
    f();
    (start.elapsed().as_secs_f64(), cpu() - cpu0)
}

/// `xargs -P jobs -n 1 program` fed with the numbers 0..count.
fn xargs(a: &Args) {
    let input: String = (0..a.count).map(|i| format!("{i}\n")).collect();
    let mut child = Command::new("xargs")
        .args(["-P", &a.jobs.to_string(), "-n", "1", &a.program])
        .stdin(Stdio::piped())
        .spawn()
        .expect("xargs");
    let mut stdin = child.stdin.take().expect("piped stdin");
    stdin.write_all(input.as_bytes()).expect("feed xargs");
    drop(stdin);
    let status = child.wait().expect("wait for xargs");
    assert!(status.success(), "xargs: {status}");
}

/// The same jobs through the runner on a rayon pool of `jobs` threads.
fn runner(a: &Args, pool: &rayon::ThreadPool, pid_dir: Option<&Path>) {
    let cancel = AtomicBool::new(false);
    let failures = pool.install(|| {
        (0..a.count)
            .into_par_iter()
            .filter(|i| {
                let limit = Duration::from_secs(60);
                let mut spec = RunSpec::new(&a.program, vec![i.to_string()], limit);
                spec.pid_dir = pid_dir.map(Path::to_path_buf);
                run(&spec, &cancel).exit != Exit::Exited(0)
            })
            .count()
    });
    assert_eq!(failures, 0, "runs that did not exit 0");
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let a = parse_args();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(a.jobs)
        .build()
        .expect("thread pool");
    let pid_dir = tempfile::tempdir().expect("temporary directory");
    println!(
        "{} × {} with {} jobs, {} rounds (xargs, runner, runner + pid records)",
        a.count, a.program, a.jobs, a.rounds
    );
    // Warm up the page cache and the pool.
    runner(
        &Args {
            count: 50,
            ..parse_args()
        },
        &pool,
        None,
    );

    let mut ratios = [Vec::new(), Vec::new()];
    let per_job = |secs: f64| secs / a.count as f64 * 1e6;
    for round in 1..=a.rounds {
        let (xw, xc) = measure(|| xargs(&a));
        let (rw, rc) = measure(|| runner(&a, &pool, None));
        let (pw, pc) = measure(|| runner(&a, &pool, Some(pid_dir.path())));
        println!(
            "round {round}: wall xargs {xw:6.3} s, runner {rw:6.3} s ({:.3}×), \
             + pid records {pw:6.3} s ({:.3}×)",
            rw / xw,
            pw / xw
        );
        println!(
            "         CPU per job xargs {:5.0} µs, runner {:5.0} µs, + pid records {:5.0} µs",
            per_job(xc),
            per_job(rc),
            per_job(pc)
        );
        ratios[0].push(rw / xw);
        ratios[1].push(pw / xw);
    }
    let [plain, records] = ratios;
    println!(
        "median wall ratio runner/xargs {:.3}, with pid records {:.3} (target ≤ 1.2)",
        median(plain),
        median(records)
    );
}
