//! `coreval selfcheck --scrambles K`: the competition rehearsal. Each
//! benchmark runs as K scrambled variants, one selfcheck campaign per seed
//! (`[naming] scramble_seed`: shuffled and renamed by [`crate::scramble`],
//! then named, so the solver sees what the competition would show it).
//! Every core is validated on its variant and mapped back to the original
//! assertions through the descrambling map; the results of one benchmark
//! over all seeds fold into one [`BenchResult`]:
//!
//! - any seed failed → FAIL; each failing seed is named with its verdict,
//!   its core in original positions and the scrambled file, which is kept
//!   (the run's folder survives) so the failure can be repeated;
//!   `order-dependent` when the core was validated on another seed;
//! - every seed passed → PASS;
//! - otherwise → SKIP, with the seeds that skipped.
//!
//! Seeds: the K values the chosen edition's seed formula
//! ([`SeedFormula`]) gives with the entrant numbers {`base`} and the NYSE
//! opening values 1, 2, …, K — (base + k) mod 2³⁰ for 2016–2023,
//! (base mod 2³⁰) + 100·k for 2024 on — or the seeds given.

use super::outcome::{BenchResult, Outcome};
use super::{Options, Report, Setup};
use crate::score::rules::{Edition, SeedFormula};
use crate::scramble::random::{competition_seed, tool_seed};
use anyhow::{bail, Context, Result};
use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

/// What one seed's run adds to a benchmark's result.
#[derive(Clone, Debug, Default)]
pub struct Scrambled {
    /// The author's core as 1-based positions in the original benchmark.
    pub original_core: Option<Vec<usize>>,
    /// The scrambled, named benchmark the solver ran on.
    pub named_file: Option<PathBuf>,
}

/// Which seeds to run.
#[derive(Clone, Debug)]
pub enum Seeds {
    /// K seeds from the edition's formula with entrant numbers {base}.
    Formula {
        count: u32,
        edition: Edition,
        base: u32,
    },
    /// These seeds (to repeat a failure).
    Given(Vec<u32>),
}

impl Seeds {
    /// The seeds, in order, and how they were obtained (for the header).
    pub fn resolve(&self) -> Result<(Vec<u32>, String)> {
        match self {
            Seeds::Given(s) if s.is_empty() => bail!("--scramble-seeds is empty"),
            Seeds::Given(s) => Ok((s.clone(), "as given".into())),
            Seeds::Formula { count, .. } if !(1..=1000).contains(count) => {
                bail!("--scrambles must be between 1 and 1000, not {count}")
            }
            Seeds::Formula {
                count,
                edition,
                base,
            } => {
                let formula = edition.rules().seed;
                let seeds = (1..=*count as u64)
                    .map(|k| match formula {
                        SeedFormula::SumModulo => Some(competition_seed(&[*base], k)),
                        SeedFormula::ModuloThenNyse => tool_seed(&[*base], 100 * k),
                    })
                    .collect::<Option<Vec<u32>>>()
                    .context("a seed does not fit 32 bits: use a smaller --scramble-base")?;
                let how = match formula {
                    SeedFormula::SumModulo => format!("({base} + NYSE k) mod 2^30"),
                    SeedFormula::ModuloThenNyse => format!("({base} mod 2^30) + 100 × NYSE k"),
                };
                Ok((
                    seeds,
                    format!("{} formula {how}, k = 1…{count}", edition.name()),
                ))
            }
        }
    }
}

/// The rehearsal's report: the folded results, and the seeds.
pub struct Rehearsal {
    pub report: Report,
    pub seeds: Vec<u32>,
    /// How the seeds were obtained.
    pub how: String,
    /// The folder holding every seed's campaign, when it is kept (a
    /// failure, or `--workdir`).
    pub kept: Option<PathBuf>,
}

/// Run selfcheck once per seed (in `DIR/seed-S/`) and fold the results.
/// A benchmark's folded verdict is final once its last seed's is: it goes
/// to `decided` then, during the last seed's run ([`super::run`]'s
/// `decided`), folded with the earlier seeds' results (its details are
/// the report's).
pub fn run(
    opts: &Options,
    seeds: &Seeds,
    cancel: &AtomicBool,
    started: &mut dyn FnMut(&Setup, &[u32], &str),
    warn: &mut dyn FnMut(String),
    decided: &mut dyn FnMut(&BenchResult),
) -> Result<Rehearsal> {
    let start = Instant::now();
    let (seeds, how) = seeds.resolve()?;
    let (temp, dir) = super::inputs::work_folder(opts.workdir.as_deref(), "coreval-rehearsal-")?;
    let mut seen = HashSet::new();
    let mut runs: Vec<(u32, Report)> = Vec::new();
    for &seed in &seeds {
        let first = runs.is_empty();
        let last = runs.len() + 1 == seeds.len();
        // Each seed keeps its files in a folder of its own: no seed's
        // kept file is another's. Only the last seed's verdicts are told.
        let one = Options {
            workdir: Some(dir.join(format!("seed-{seed}"))),
            scramble_seed: Some(seed),
            keep: Some(super::repro::keep_dir(opts.keep.as_deref()).join(format!("seed-{seed}"))),
            tell: opts.tell && last,
            ..opts.clone()
        };
        let setup = std::cell::OnceCell::new();
        if let Some((_, r)) = runs.first() {
            setup.set(r.setup.clone()).ok();
        }
        let report = super::run(
            &one,
            cancel,
            &mut |s| {
                if first {
                    started(s, &seeds, &how);
                    setup.set(s.clone()).ok();
                }
            },
            &mut |w| {
                if seen.insert(w.clone()) {
                    warn(w)
                }
            },
            // A seed's results are folded with the other seeds' first.
            &mut |r| {
                if let (true, Some(setup)) = (last, setup.get()) {
                    decided(&fold_last(&runs, seed, r, setup));
                }
            },
        )?;
        let interrupted = report.interrupted;
        runs.push((seed, report));
        if interrupted {
            break;
        }
    }
    let interrupted = runs.iter().any(|(_, r)| r.interrupted);
    let Some((_, first)) = runs.first() else {
        bail!("no seed to run")
    };
    let mut report = Report {
        setup: first.setup.clone(),
        results: Vec::new(),
        elapsed: 0.0,
        interrupted,
        workdir: opts.workdir.clone(),
        scrambled: Default::default(),
        // Each seed's files are in `KEEP/seed-S/`.
        kept: runs
            .iter()
            .any(|(_, r)| r.kept.is_some())
            .then(|| super::repro::keep_dir(opts.keep.as_deref())),
    };
    if !interrupted {
        for i in 0..first.results.len() {
            let per_seed: Vec<(u32, &BenchResult, Scrambled)> = runs
                .iter()
                .map(|(s, r)| {
                    (
                        *s,
                        &r.results[i],
                        r.scrambled
                            .get(&r.results[i].path)
                            .cloned()
                            .unwrap_or_default(),
                    )
                })
                .collect();
            report.results.push(fold(&per_seed, &report.setup));
        }
    }
    report.elapsed = start.elapsed().as_secs_f64();
    let failed = report.count(Outcome::Failed) > 0;
    let kept = match temp {
        Some(t) if failed => Some(t.keep()),
        Some(_) => None,
        None => Some(dir),
    };
    Ok(Rehearsal {
        report,
        seeds,
        how,
        kept,
    })
}

/// `2, 5, 7` (1-based original positions), or the names as printed.
fn core_text(s: &Scrambled) -> String {
    match &s.original_core {
        Some(c) => {
            let mut c = c.clone();
            c.sort_unstable();
            let c: Vec<String> = c.iter().map(|n| n.to_string()).collect();
            format!("original assertions {{{}}}", c.join(", "))
        }
        None => "no core in original positions".into(),
    }
}

/// The command that runs `path` again with `seed` alone and every option
/// that decides its verdict ([`super::verdict_options`]), this program
/// named by a path that works from the current folder.
pub fn repeat(setup: &Setup, seed: u32, path: &str) -> String {
    let mut words = vec![
        super::words::this_program(),
        "selfcheck".into(),
        "--solver".into(),
        setup.solver.clone(),
        "--checkers".into(),
        setup.checkers.join(","),
        "--policy".into(),
        setup.policy.to_string(),
    ];
    words.extend(setup.options.iter().cloned());
    words.extend([
        "--scramble-seeds".into(),
        seed.to_string(),
        "--".into(),
        path.to_string(),
    ]);
    super::repro::shell_words(&words)
}

/// The last seed's result `r` folded with the earlier seeds' results of
/// its benchmark.
fn fold_last(runs: &[(u32, Report)], seed: u32, r: &BenchResult, setup: &Setup) -> BenchResult {
    let mut per_seed: Vec<(u32, &BenchResult, Scrambled)> = runs
        .iter()
        .filter_map(|(s, report)| {
            let earlier = report.results.iter().find(|x| x.path == r.path)?;
            let scrambled = report.scrambled.get(&r.path).cloned().unwrap_or_default();
            Some((*s, earlier, scrambled))
        })
        .collect();
    per_seed.push((seed, r, Scrambled::default()));
    fold(&per_seed, setup)
}

/// One benchmark's results over every seed, as one result.
pub fn fold(per_seed: &[(u32, &BenchResult, Scrambled)], setup: &Setup) -> BenchResult {
    let (_, head, _) = &per_seed[0];
    let with = |o: Outcome| -> Vec<&(u32, &BenchResult, Scrambled)> {
        per_seed.iter().filter(|(_, r, _)| r.outcome == o).collect()
    };
    let (failed, passed, skipped) = (
        with(Outcome::Failed),
        with(Outcome::Passed),
        with(Outcome::Skipped),
    );
    let seeds_of = |rs: &[&(u32, &BenchResult, Scrambled)]| -> String {
        rs.iter()
            .map(|(s, _, _)| s.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut out = match failed.first() {
        Some((_, r, _)) => (*r).clone(),
        None => match passed.first() {
            Some((_, r, _)) if skipped.is_empty() => (*r).clone(),
            _ => (*skipped.first().map(|(_, r, _)| r).unwrap_or(head)).clone(),
        },
    };
    out.details.clear();
    let validated: Vec<&&(u32, &BenchResult, Scrambled)> = passed
        .iter()
        .filter(|(_, r, _)| r.verdict == "validated")
        .collect();
    if !failed.is_empty() {
        out.outcome = Outcome::Failed;
        if !validated.is_empty() {
            out.verdict = "order-dependent".into();
            out.details.push(format!(
                "order-dependent core: validated on seed(s) {}, failed on seed(s) {}",
                seeds_of(&passed),
                seeds_of(&failed)
            ));
        }
        for (seed, r, s) in &failed {
            out.details.push(format!(
                "seed {seed}: FAIL {}: {} ({})",
                r.verdict,
                r.details.first().map(String::as_str).unwrap_or(""),
                core_text(s)
            ));
            out.details
                .extend(r.details.iter().skip(1).map(|d| format!("  {d}")));
            if let Some(f) = &s.named_file {
                out.details
                    .push(format!("  scrambled file kept: {}", f.display()));
            }
            out.details
                .push(format!("  repeat: {}", repeat(setup, *seed, &r.path)));
        }
    } else if !skipped.is_empty() {
        out.outcome = Outcome::Skipped;
        for (seed, r, _) in &skipped {
            out.details.push(format!(
                "seed {seed}: SKIP {}: {}",
                r.verdict,
                r.details.first().map(String::as_str).unwrap_or("")
            ));
        }
    }
    for (seed, r, s) in &passed {
        if out.outcome != Outcome::Passed {
            out.details.push(format!(
                "seed {seed}: PASS {} ({})",
                r.verdict,
                core_text(s)
            ));
        }
    }
    out.details.push(format!(
        "seeds: {} passed, {} failed, {} skipped",
        passed.len(),
        failed.len(),
        skipped.len()
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeds_follow_the_edition_formula() {
        let f = |edition, base| {
            Seeds::Formula {
                count: 3,
                edition,
                base,
            }
            .resolve()
            .unwrap()
            .0
        };
        assert_eq!(f(Edition::Smtcomp2019, 0), [1, 2, 3]);
        assert_eq!(
            f(Edition::Smtcomp2019, (1 << 30) - 2),
            [(1 << 30) - 1, 0, 1]
        );
        assert_eq!(f(Edition::Smtcomp2025, 7), [107, 207, 307]);
        assert!(Seeds::Formula {
            count: 0,
            edition: Edition::Smtcomp2025,
            base: 0
        }
        .resolve()
        .is_err());
        assert_eq!(Seeds::Given(vec![9, 4]).resolve().unwrap().0, [9, 4]);
    }

    fn result(outcome: Outcome, verdict: &str) -> BenchResult {
        BenchResult {
            path: "b.smt2".into(),
            logic: None,
            declared: None,
            assertions: 3,
            outcome,
            verdict: verdict.into(),
            details: vec![format!("{verdict} because")],
            core_size: Some(2),
            core: None,
            reduction: None,
            best: None,
            time: Some(0.1),
            checkers: Default::default(),
            minimality: None,
            best_known: None,
        }
    }

    fn setup() -> Setup {
        Setup {
            solver: "s {file}".into(),
            team: "t".into(),
            team_how: None,
            runs: Vec::new(),
            excluded: Vec::new(),
            checkers: vec!["yices".into(), "cvc5".into()],
            references: Vec::new(),
            policy: crate::campaign::verdict::policy::Policy::Smtcomp2025,
            benchmarks: 1,
            minimality_budget: None,
            checkers_dir: "checkers".into(),
            options: ["--timeout", "5", "--no-references"]
                .map(String::from)
                .to_vec(),
        }
    }

    #[test]
    fn seeds_fold_into_one_verdict() {
        let (ok, bad, skip) = (
            result(Outcome::Passed, "validated"),
            result(Outcome::Failed, "refuted"),
            result(Outcome::Skipped, "timeout"),
        );
        let kept = Scrambled {
            original_core: Some(vec![3, 1]),
            named_file: Some("w/seed-2/named/b.smt2".into()),
        };
        let mixed = fold(&[(1, &ok, Scrambled::default()), (2, &bad, kept)], &setup());
        assert_eq!(
            (mixed.outcome, mixed.verdict.as_str()),
            (Outcome::Failed, "order-dependent")
        );
        let d = mixed.details.join("\n");
        assert!(
            d.contains("validated on seed(s) 1, failed on seed(s) 2"),
            "{d}"
        );
        assert!(
            d.contains("seed 2: FAIL refuted: refuted because (original assertions {1, 3})"),
            "{d}"
        );
        assert!(
            d.contains("scrambled file kept: w/seed-2/named/b.smt2"),
            "{d}"
        );
        assert!(
            d.contains(
                "--checkers yices,cvc5 --policy smtcomp-2025 --timeout 5 --no-references \
                 --scramble-seeds 2 -- b.smt2"
            ),
            "{d}"
        );
        let all_bad = fold(&[(1, &bad, Scrambled::default())], &setup());
        assert_eq!(all_bad.verdict, "refuted");
        let some_skipped = fold(
            &[
                (1, &ok, Scrambled::default()),
                (2, &skip, Scrambled::default()),
            ],
            &setup(),
        );
        assert_eq!(
            (some_skipped.outcome, some_skipped.verdict.as_str()),
            (Outcome::Skipped, "timeout")
        );
        let all_ok = fold(&[(1, &ok, Scrambled::default())], &setup());
        assert_eq!(all_ok.outcome, Outcome::Passed);
        assert_eq!(all_ok.details, ["seeds: 1 passed, 0 failed, 0 skipped"]);
    }
}
