//! Naming throughput and memory (`cargo bench --bench naming`).
//!
//! Generates benchmarks of ~100 MB in a temporary directory (size in MB from
//! `COREVAL_BENCH_MB`): `many` small assertions (~80 bytes, 1.3 M of them),
//! `wide` assertions (~800 bytes) and a single `giant` assertion (with a
//! comment on every line). For each it measures:
//!
//! - copying the file in a child process: with `cp` (which may copy inside
//!   the kernel) and with a plain read + write loop of 1 MB blocks (this
//!   binary, `--copy`), the baseline of the ratio;
//! - `coreval name FILE -o DIR` in a child process;
//!
//! the three in turn, for 5 rounds (`COREVAL_BENCH_ROUNDS`), so that a
//! neighbour's load falls on all three alike; each is shown by its best
//! round.
//!
//! `naming --inputs DIR` only writes the three inputs into `DIR` (to time
//! or profile `coreval name` on them by hand).
//!
//! The ratios are naming's speed over the read + write copy's and over
//! `cp`'s (the yardstick of issue 31: ≥ 0.5× `cp`), wall and CPU, and for
//! `cp` also the median over the rounds of the ratio within a round. A
//! line per input closes the run: that median against the target, beside
//! the best wall ratio of the read + write copy itself to `cp`.
//!
//! Each is shown as wall-clock MB/s and as CPU MB/s (size / (user + sys) of
//! the child, from `wait4`: on a shared machine the wall clock measures the
//! neighbours too), with the ratio of naming to the read + write copy and
//! the child's peak RSS against the largest single command (the scanner
//! holds one command in memory). A run on a tiny file gives the process's
//! baseline RSS.
//!
//! Targets: ≥ 300 MB/s, ≥ 0.3× the read + write copy, peak RSS − baseline
//! ≤ 2× the largest command.

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

const BIN: &str = env!("CARGO_BIN_EXE_coreval");

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("--copy") {
        copy_read_write(Path::new(&args[2]), Path::new(&args[3]));
        return;
    }
    if args.get(1).map(String::as_str) == Some("--inputs") {
        // Only write the three inputs into the given folder, for profiling.
        let dir = Path::new(&args[2]);
        for (label, shape) in [
            ("many", Shape::Many),
            ("wide", Shape::Wide),
            ("giant", Shape::Giant),
        ] {
            generate(&dir.join(format!("{label}.smt2")), bench_mb() << 20, shape);
        }
        return;
    }
    let mb = bench_mb();
    let dir = tempfile::tempdir().expect("temp dir");
    let tiny = dir.path().join("tiny.smt2");
    std::fs::write(
        &tiny,
        "(set-logic QF_UF)(declare-fun p () Bool)(assert p)(assert (not p))(check-sat)\n",
    )
    .unwrap();
    let baseline = name_in_child(&tiny, &dir.path().join("out-tiny")).rss;
    println!(
        "coreval {BIN}\nbaseline peak RSS (tiny file): {:.1} MB\n\
         MB/s as wall / CPU (user + sys of the child), best of {} rounds; \
         ratio = name / read+write copy; vs cp = name / cp (best wall, best CPU, \
         median of the rounds' wall ratios)\n",
        baseline as f64 / 1e6,
        bench_rounds()
    );
    println!(
        "{:<6} {:>6} {:>9} | {:>13} | {:>13} | {:>13} | {:>11} | {:>17} | {:>8} {:>8} {:>8}",
        "input",
        "MB",
        "largest",
        "cp",
        "read+write",
        "name",
        "ratio",
        "vs cp",
        "peak RSS",
        "RSS-base",
        "/largest"
    );
    let me = std::env::current_exe().expect("bench binary");
    // Per input: naming's median wall ratio to `cp`, and the read + write
    // copy's best wall over `cp`'s (what a program that reads and writes
    // every byte once, and does nothing else, reaches on this machine).
    let mut verdicts = Vec::new();
    for (label, shape) in [
        ("many", Shape::Many),
        ("wide", Shape::Wide),
        ("giant", Shape::Giant),
    ] {
        let input = dir.path().join(format!("{label}.smt2"));
        let largest = generate(&input, mb << 20, shape);
        let size = std::fs::metadata(&input).unwrap().len();
        let copy = dir.path().join("copy.smt2");
        let out = dir.path().join(format!("out-{label}"));
        // `cp`, the read + write copy and naming in turn, round after
        // round: a neighbour's load falls on all three alike.
        let rounds: Vec<[Usage; 3]> = (0..bench_rounds())
            .map(|_| {
                let _ = std::fs::remove_file(&copy);
                let cp = run_child(Command::new("cp").arg(&input).arg(&copy));
                let _ = std::fs::remove_file(&copy);
                let rw = run_child(Command::new(&me).arg("--copy").arg(&input).arg(&copy));
                let _ = std::fs::remove_dir_all(&out);
                [cp, rw, name_in_child(&input, &out)]
            })
            .collect();
        std::fs::remove_file(&copy).unwrap();
        let best = |k: usize| best_of(rounds.iter().map(|r| r[k]));
        let (cp, rw, name) = (best(0), best(1), best(2));
        // The median over the rounds of `cp`'s wall time over naming's.
        let mut ratios: Vec<f64> = rounds.iter().map(|r| r[0].wall / r[2].wall).collect();
        ratios.sort_by(f64::total_cmp);
        let median = ratios[ratios.len() / 2];
        let mbs = |secs: f64| size as f64 / 1e6 / secs;
        let over = name.rss.saturating_sub(baseline);
        println!(
            "{:<6} {:>6.1} {:>9} | {:>6.0} {:>6.0} | {:>6.0} {:>6.0} | {:>6.0} {:>6.0} | {:>5.2} {:>5.2} | {:>5.2} {:>5.2} {:>5.2} | {:>7.1}M {:>7.1}M {:>8.2}",
            label,
            size as f64 / 1e6,
            human(largest),
            mbs(cp.wall),
            mbs(cp.cpu),
            mbs(rw.wall),
            mbs(rw.cpu),
            mbs(name.wall),
            mbs(name.cpu),
            rw.wall / name.wall,
            rw.cpu / name.cpu,
            cp.wall / name.wall,
            cp.cpu / name.cpu,
            median,
            name.rss as f64 / 1e6,
            over as f64 / 1e6,
            over as f64 / largest as f64
        );
        verdicts.push((label, median, cp.wall / rw.wall));
        std::fs::remove_file(&input).unwrap();
    }
    println!();
    for (label, median, copy) in verdicts {
        println!(
            "{label}: name/cp wall {median:.3}, median of the rounds (target ≥ 0.5: {}); \
             the read + write copy alone reaches {copy:.2}× cp",
            if median >= 0.5 { "met" } else { "not met" }
        );
    }
}

/// The inputs' size in MB (`COREVAL_BENCH_MB`, 100 by default).
fn bench_mb() -> u64 {
    env_number("COREVAL_BENCH_MB", 100) as u64
}

/// A positive number from the environment variable `name`, else `default`.
fn env_number(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|s| s.parse().ok())
        .filter(|&n| n > 0)
        .unwrap_or(default)
}

/// The baseline copy: read 1 MB blocks and write them (no
/// `copy_file_range`, which `cp` and `std::fs::copy` may use to copy inside
/// the kernel).
fn copy_read_write(from: &Path, to: &Path) {
    use std::io::Read;
    let mut input = std::fs::File::open(from).expect("open source");
    let mut output = std::fs::File::create(to).expect("create copy");
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = input.read(&mut buf).expect("read");
        if n == 0 {
            break;
        }
        output.write_all(&buf[..n]).expect("write");
    }
}

fn human(bytes: u64) -> String {
    if bytes >= 1 << 20 {
        format!("{:.1} MB", bytes as f64 / 1e6)
    } else {
        format!("{bytes} B")
    }
}

/// One child process: wall seconds, CPU seconds (user + sys), peak RSS.
#[derive(Clone, Copy)]
struct Usage {
    wall: f64,
    cpu: f64,
    rss: u64,
}

/// Rounds of `cp`, copy and naming (`COREVAL_BENCH_ROUNDS`, 5 by
/// default).
fn bench_rounds() -> usize {
    env_number("COREVAL_BENCH_ROUNDS", 5)
}

/// The run with the least CPU time, with the least wall time of all runs
/// and the largest peak RSS.
fn best_of(runs: impl Iterator<Item = Usage>) -> Usage {
    let runs: Vec<Usage> = runs.collect();
    let rss = runs.iter().map(|u| u.rss).max().unwrap_or(0);
    let best = runs
        .iter()
        .copied()
        .min_by(|a, b| a.cpu.total_cmp(&b.cpu))
        .expect("runs");
    let wall = runs.iter().map(|u| u.wall).fold(f64::INFINITY, f64::min);
    Usage { wall, rss, ..best }
}

/// Run a child to its end; its usage from `wait4`, for exactly this child.
fn run_child(cmd: &mut Command) -> Usage {
    let t = Instant::now();
    // Reaped below with wait4, which also gives its resource usage.
    #[allow(clippy::zombie_processes)]
    let child = cmd
        .stdout(std::process::Stdio::null())
        .spawn()
        .expect("start child");
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: plain syscall on our own child; rusage is written by the kernel.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    let wall = t.elapsed().as_secs_f64();
    assert_eq!(r, pid, "wait4");
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "{cmd:?} failed"
    );
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    Usage {
        wall,
        cpu: secs(usage.ru_utime) + secs(usage.ru_stime),
        rss: usage.ru_maxrss as u64 * 1024,
    }
}

/// `coreval name input -o out`.
fn name_in_child(input: &Path, out: &Path) -> Usage {
    let usage = run_child(
        Command::new(BIN)
            .arg("name")
            .arg(input)
            .arg("-o")
            .arg(out)
            .arg("--allow-no-status"),
    );
    let named = out.join(input.file_name().unwrap());
    assert!(named.is_file(), "no output for {}", input.display());
    usage
}

/// The shape of a generated benchmark.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// One assertion per clause (~80 bytes).
    Many,
    /// Ten clauses per assertion (~800 bytes).
    Wide,
    /// One assertion holding every clause, one per line with a comment.
    Giant,
}

/// Write a benchmark of about `target` bytes of clauses. Returns the size
/// of its largest command.
fn generate(path: &PathBuf, target: u64, shape: Shape) -> u64 {
    let mut w = BufWriter::with_capacity(1 << 20, std::fs::File::create(path).unwrap());
    let vars = 1000;
    writeln!(w, "; generated by benches/naming.rs\n(set-logic QF_LIA)").unwrap();
    writeln!(w, "(set-info :status unsat)").unwrap();
    for i in 0..vars {
        writeln!(w, "(declare-fun x{i} () Int)").unwrap();
    }
    let (mut written, mut largest, mut i) = (0u64, 0u64, 0u64);
    let clause = |i: u64| {
        let (a, b, c) = (i % vars, (i * 7 + 3) % vars, (i * 13 + 5) % vars);
        format!(
            "(or (> x{a} (+ x{b} {})) (= x{c} (* 3 x{a})) (not (<= x{b} |x{c}|)))",
            i % 1000
        )
    };
    if shape == Shape::Giant {
        w.write_all(b"(assert (and\n").unwrap();
        written += 13;
    }
    while written < target {
        let line = match shape {
            Shape::Many => format!("(assert {})\n", clause(i)),
            Shape::Wide => {
                let parts: Vec<String> = (0..10).map(|k| clause(i + k)).collect();
                format!("(assert (and {}))\n", parts.join(" "))
            }
            Shape::Giant => format!("  {} ; c{i}\n", clause(i)),
        };
        i += if shape == Shape::Wide { 10 } else { 1 };
        w.write_all(line.as_bytes()).unwrap();
        written += line.len() as u64;
        largest = largest.max(line.len() as u64);
    }
    if shape == Shape::Giant {
        w.write_all(b"))\n").unwrap();
        largest = written + 2;
    }
    w.write_all(b"(assert false)\n(check-sat)\n(exit)\n")
        .unwrap();
    w.flush().unwrap();
    largest
}
