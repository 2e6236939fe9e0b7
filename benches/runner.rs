//! Per-job overhead of `coreval::runner::run` against `xargs -P`: the same
//! no-op command run COUNT times with JOBS in parallel, first by xargs, then
//! through the runner on a rayon pool (fresh temporary working directory per
//! run), then again with pid records (`pid_dir`). Prints the wall times and
//! the runner/xargs ratios; the target is at most 1.2.
//!
//! `cargo bench --bench runner -- [--jobs N] [--count N] [--program PATH]`
//! (defaults: the number of cores, 5000, /bin/true).

use coreval::runner::{run, Exit, RunSpec};
use rayon::prelude::*;
use std::io::Write;
use std::process::{Command, Stdio};
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

struct Args {
    jobs: usize,
    count: usize,
    program: String,
}

fn parse_args() -> Args {
    let mut args = Args {
        jobs: std::thread::available_parallelism().map_or(1, |n| n.get()),
        count: 5000,
        program: "/bin/true".into(),
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let mut value = || it.next().unwrap_or_else(|| panic!("{arg} needs a value"));
        match arg.as_str() {
            "--jobs" => args.jobs = value().parse().expect("--jobs N"),
            "--count" => args.count = value().parse().expect("--count N"),
            "--program" => args.program = value(),
            _ => {} // `cargo bench` passes `--bench`
        }
    }
    args
}

/// `xargs -P jobs -n 1 program` fed with the numbers 0..count.
fn xargs(a: &Args) -> f64 {
    let input: String = (0..a.count).map(|i| format!("{i}\n")).collect();
    let start = Instant::now();
    let mut child = Command::new("xargs")
        .args(["-P", &a.jobs.to_string(), "-n", "1", &a.program])
        .stdin(Stdio::piped())
        .spawn()
        .expect("xargs");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let status = child.wait().unwrap();
    assert!(status.success(), "xargs: {status}");
    start.elapsed().as_secs_f64()
}

/// The same jobs through the runner on a rayon pool of `jobs` threads.
fn runner(a: &Args, pool: &rayon::ThreadPool, pid_dir: Option<&std::path::Path>) -> f64 {
    let cancel = AtomicBool::new(false);
    let start = Instant::now();
    let failures = pool.install(|| {
        (0..a.count)
            .into_par_iter()
            .filter(|i| {
                let mut spec =
                    RunSpec::new(&a.program, vec![i.to_string()], Duration::from_secs(60));
                spec.pid_dir = pid_dir.map(|p| p.to_path_buf());
                run(&spec, &cancel).exit != Exit::Exited(0)
            })
            .count()
    });
    assert_eq!(failures, 0, "runs that did not exit 0");
    start.elapsed().as_secs_f64()
}

fn main() {
    let a = parse_args();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(a.jobs)
        .build()
        .expect("thread pool");
    let pid_dir = tempfile::tempdir().expect("temporary directory");
    println!("{} × {} with {} jobs", a.count, a.program, a.jobs);
    // Warm up page cache and the pool.
    runner(
        &Args {
            count: 50,
            ..parse_args()
        },
        &pool,
        None,
    );

    let x = xargs(&a);
    println!(
        "xargs -P {:<3}          {x:7.3} s  {:6.1} jobs/s",
        a.jobs,
        a.count as f64 / x
    );
    let r = runner(&a, &pool, None);
    println!(
        "runner                {r:7.3} s  {:6.1} jobs/s  ratio {:.3}",
        a.count as f64 / r,
        r / x
    );
    let p = runner(&a, &pool, Some(pid_dir.path()));
    println!(
        "runner + pid records  {p:7.3} s  {:6.1} jobs/s  ratio {:.3}",
        a.count as f64 / p,
        p / x
    );
}
