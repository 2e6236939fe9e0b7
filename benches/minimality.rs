//! The cost of the subset-minimality check on the bundled example
//! (`examples/campaign`: 32 benchmarks, the z3, yices and cvc5 definitions
//! as solvers under test, every installed checker). The solve stage runs
//! once; then the check stage runs in two copies of that campaign, each with
//! a fresh cache: without the minimality check and with it
//! (`minimality = true`, the default budget of 60 s per core). Printed per
//! variant: checker runs, checker CPU seconds, wall seconds of the stage,
//! and for the minimality pass its own runs and CPU, cache hits, and how
//! the validated cores came out.
//!
//! `cargo bench --bench minimality -- [--jobs N] [--budget S] [--dir D]`
//! (defaults: the number of cores, 60, a temp dir; with `--dir` the solve
//! stage resumes from an earlier invocation).

use coreval::campaign::setup::Campaign;
use coreval::pipeline::{self, Stages};
use std::path::{Path, PathBuf};
use std::time::Instant;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// What the solve stage leaves that a check needs; the rest is not copied.
const KEEP: &[&str] = &["campaign.toml", "benchmarks", "named", "runs.jsonl"];

fn copy(from: &Path, to: &Path, top: bool) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let name = e.file_name().to_string_lossy().into_owned();
        if top && !KEEP.contains(&name.as_str()) {
            continue;
        }
        let target = to.join(&name);
        if e.file_type().unwrap().is_dir() {
            copy(&e.path(), &target, false);
        } else {
            std::fs::copy(e.path(), &target).unwrap();
        }
    }
}

fn run(c: &Campaign, stages: Stages) -> pipeline::Summary {
    pipeline::run_to_end(c, stages).unwrap()
}

fn main() {
    let (mut jobs, mut budget, mut dir): (usize, f64, Option<PathBuf>) = (0, 60.0, None);
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let mut text = || it.next().unwrap_or_else(|| panic!("{arg} needs a value"));
        match arg.as_str() {
            "--jobs" => jobs = text().parse().expect("--jobs N"),
            "--budget" => budget = text().parse().expect("--budget S"),
            "--dir" => dir = Some(text().into()),
            _ => {} // `cargo bench` passes `--bench`
        }
    }
    let temp = tempfile::tempdir().unwrap();
    let work = dir.unwrap_or_else(|| temp.path().to_path_buf());
    let base = work.join("base");
    if !base.join("runs.jsonl").exists() {
        copy(&Path::new(ROOT).join("examples/campaign"), &base, true);
    }
    let load = |d: &Path, extra: &str| {
        let text = std::fs::read_to_string(base.join("campaign.toml")).unwrap();
        let text = text
            .replace("cache = \".cache\"", "cache = \"fresh-cache\"")
            .replace("jobs = 0 ", &format!("jobs = {jobs} "))
            .replace("[check]\n", &format!("[check]\n{extra}"));
        std::fs::write(d.join("campaign.toml"), text).unwrap();
        Campaign::load(d).unwrap()
    };
    let c = load(&base, "");
    let t = Instant::now();
    let solve = Stages {
        name: true,
        solve: true,
        ..Stages::default()
    };
    run(&c, solve);
    println!(
        "solve stage: {:.1} s ({} jobs)",
        t.elapsed().as_secs_f64(),
        c.jobs
    );
    let check = Stages {
        check: true,
        ..Stages::default()
    };
    println!(
        "| variant | checker runs | checker CPU (s) | check stage wall (s) | minimality runs | minimality CPU (s) | cache hits | minimal / redundant / unknown |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---|");
    for (name, extra) in [
        ("validation only", String::new()),
        (
            "validation + minimality",
            format!("minimality = true\nminimality_budget = {budget:?}\n"),
        ),
    ] {
        let d = work.join(name.replace(' ', "-").replace('+', "and"));
        let _ = std::fs::remove_dir_all(&d);
        copy(&base, &d, true);
        let c = load(&d, &extra);
        let t = Instant::now();
        let s = run(&c, check).check.unwrap();
        let wall = t.elapsed().as_secs_f64();
        let (mr, mc, hits, outcome) = match &s.minimality {
            Some(m) => (
                m.asked.ran,
                m.asked.cpu,
                m.asked.cache_hits,
                format!("{} / {} / {}", m.minimal, m.redundant, m.unknown),
            ),
            None => (0, 0.0, 0, "-".into()),
        };
        println!(
            "| {name} | {} | {:.1} | {wall:.1} | {mr} | {mc:.1} | {hits} | {outcome} |",
            s.ran + mr,
            s.cpu + mc,
        );
    }
}
