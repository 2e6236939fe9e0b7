//! The one pipeline: the stages of a campaign in order — name → solve →
//! check → judge → score → reports — with a cancel flag, returning what
//! each stage did. `coreval run`, `solve`, `check`, `selfcheck` and the
//! Slurm tasks (which run `solve`/`check --shard`) all go through [`run`];
//! each stage resumes from the journals, so a re-run after a kill redoes
//! nothing that finished. The campaign is loaded and checked once before
//! ([`Context::load`]); its named index is read once, after naming, and
//! both are passed down as [`Loaded`].

use crate::campaign::ledger::loaded::UnscoredRuns;
use crate::campaign::ledger::records::{RunRecord, Timed, Timing, CHECKS, RUNS};
use crate::campaign::setup::context::Context;
pub use crate::campaign::setup::context::Stages;
use crate::campaign::verdict::pair::PairVerdict;
use crate::campaign::{ledger::Loaded, setup::Campaign};
use crate::check::CheckSummary;
use crate::message::{Message, Say};
use crate::name::{name_tree, NameOptions, NameSummary, TreeOptions};
use crate::report::stamp::Tally;
use crate::report::{self, Outputs};
use crate::score::result::{Occupancy, ScoreReport};
use crate::score::rules::Rules;
use crate::score::{score_refs, ScoreOptions};
use crate::slurm::shard::{pair_key, Shard};
use crate::solve::SolveSummary;
use anyhow::{Context as _, Result};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

/// What the stages did. A stage that did not run is `None`.
#[derive(Default)]
pub struct Summary {
    pub name: Option<NameSummary>,
    pub solve: Option<SolveSummary>,
    pub check: Option<CheckSummary>,
    /// Every pair with its verdict (judged after check, or for scoring).
    pub pairs: Option<Vec<PairVerdict>>,
    /// How the judged runs were measured → how many (the facts').
    pub measured: std::collections::BTreeMap<String, usize>,
    /// The incremental pairs (`[naming] incremental`), judged query by
    /// query, outside the scores.
    pub incremental: Option<Vec<crate::incremental::verdict::IncrementalPair>>,
    /// The verdict counts of the judged pairs: counted from `pairs`, or,
    /// when the reports are current and the observer does not need the
    /// pairs ([`Options::keep_pairs`]), the counts the reports were
    /// made with (`pairs` is then `None`: nothing was judged again).
    pub tally: Option<Tally>,
    pub report: Option<ScoreReport>,
    /// The reports were current ([`report::stamp`]): not scored nor
    /// written again (`report` is then `None`).
    pub reports_current: bool,
    /// The cancel flag was raised: later stages did not run.
    pub interrupted: bool,
}

impl Summary {
    /// Solver runs and checker answers left undone for a fault on
    /// coreval's side (said as errors by their stages): the next run does
    /// them, and the command exits with the tool's error code.
    pub fn undone(&self) -> usize {
        self.solve.as_ref().map_or(0, |s| s.undone) + self.check.as_ref().map_or(0, |c| c.undone)
    }
}

/// What a caller hears from the stages: a call as each stage finishes (the
/// CLI prints a line per stage as it ends, not all at the end) and every
/// [`Message`] a stage says while it works. A stage says its messages from
/// its worker threads as they happen, hence `Sync` and `&self` (an
/// observer that records keeps a `Mutex`).
///
/// [`Observer::message`] prints on stderr by default (`warning: TEXT`, the
/// progress bar suspended), exactly as the CLI shows it: an observer drops
/// a warning or an error only by saying so.
pub trait Observer: Sync {
    fn named(&self, _: &NameSummary) {}
    fn solved(&self, _: &SolveSummary) {}
    /// As each run of the solve stage ends (from a worker thread), with
    /// its benchmark: what `selfcheck` judges before the stage ends.
    fn ran(&self, _: &RunRecord, _: &crate::campaign::ledger::index::Bench) {}
    /// After check, with the verdict counts of every pair judged.
    fn checked(&self, _: &CheckSummary, _: &Tally) {}

    /// The progress bar a stage draws its `total` jobs on (`stage`: name,
    /// solve, check, minimality): by default the terminal's, hidden off a
    /// terminal ([`crate::progress::bar`]); a listener may count instead
    /// (a bar with a hidden draw target keeps its position).
    fn progress(&self, stage: &str, total: u64) -> indicatif::ProgressBar {
        crate::progress::bar(stage, total)
    }
    /// A note, warning or error of a stage, from any thread.
    fn message(&self, m: &Message) {
        m.print()
    }
}

/// What a caller asks of [`run`] besides the stages: which shard, which
/// report files, and what it keeps. Options, not the observer, decide what
/// the pipeline keeps: the observer only listens.
pub struct Options<'a> {
    /// Only this shard's pairs (solve) and benchmarks (check).
    pub shard: Option<Shard>,
    /// The report files (the campaign's defaults when `None`).
    pub outputs: Option<&'a Outputs>,
    /// Every judged pair in [`Summary::pairs`], even when the reports are
    /// current (the CLI's `run` prints counts only: it says no, and a run
    /// with nothing to do judges nothing).
    pub keep_pairs: bool,
    /// The entries of the named benchmarks in [`Summary::name`] (the
    /// CLI's `run` says no: they are let go of after
    /// [`Observer::named`], [`NameSummary::forget_named`]).
    pub keep_named: bool,
}

impl Default for Options<'_> {
    /// No shard, the campaign's reports, everything kept.
    fn default() -> Self {
        Options {
            shard: None,
            outputs: None,
            keep_pairs: true,
            keep_named: true,
        }
    }
}

/// An observer that hears no stage end; the stages' messages are printed
/// on stderr (the default of [`Observer::message`]).
pub struct Quiet;

impl Observer for Quiet {}

/// Load a campaign and apply the `--jobs` and `--shard` overrides; its
/// values that cannot work are refused by the preflight that follows
/// (`campaign::ledger::loaded::open`), with every other problem ([`Campaign::load_for_preflight`]).
pub fn load(dir: &std::path::Path, jobs: Option<usize>, shard: Option<Shard>) -> Result<Campaign> {
    let mut c = Campaign::load_for_preflight(dir)?;
    c.jobs = crate::process::jobs::noted(jobs.filter(|j| *j > 0).unwrap_or(c.config.jobs));
    c.shard_dir = shard.map(|s| s.dir(&c.dir));
    Ok(c)
}

/// [`run`] to the end: no shard, no report outputs, no cancel flag, no
/// stage summaries printed, the stages' messages on stderr ([`Quiet`])
/// (benches and library callers).
pub fn run_to_end(c: &Campaign, stages: Stages) -> Result<Summary> {
    let ctx = Context::load(c.clone(), stages)?;
    run(&ctx, &Options::default(), &AtomicBool::new(false), &Quiet)
}

/// Run the stages a campaign was loaded for ([`Context::load`]), in order,
/// as `options` say ([`Options`]). Each stage returns what the next needs
/// and it is passed on here. Stops between stages once `cancel` is raised;
/// the journals are consistent at any point.
pub fn run(
    ctx: &Context,
    options: &Options,
    cancel: &AtomicBool,
    observer: &dyn Observer,
) -> Result<Summary> {
    let (shard, outputs) = (options.shard, options.outputs);
    let stopped = || cancel.load(Ordering::SeqCst);
    let (c, stages) = (&ctx.campaign, ctx.stages);
    let hear = |m: &Message| observer.message(m);
    let bar = |stage: &str, total: u64| observer.progress(stage, total);
    let say = Say::with_progress(&hear, &bar);
    let mut out = Summary::default();
    crate::process::trace::phase("start");
    // The index as naming left it, handed to the next stages rather than
    // read again when the observer lets the entries go.
    let mut named = None;
    if stages.name {
        let mut n = name(c, say, cancel)?;
        observer.named(&n);
        if !options.keep_named {
            named = Some(n.hand_over());
        }
        out.name = Some(n);
    }
    if !(stages.solve || stages.check || stages.score) || stopped() {
        out.interrupted = stopped();
        return Ok(out);
    }
    crate::process::trace::phase("named");
    let l = Loaded::from_named(ctx, say, named)?;
    crate::process::trace::phase("loaded");
    // `runs.jsonl` as the solve stage read it when it appended nothing:
    // the next stage that reads the runs takes it.
    let mut runs = None;
    if stages.solve && !stopped() {
        let owns =
            |solver: &str, bench: &str| shard.is_none_or(|s| s.owns(&pair_key(solver, bench)));
        let s = crate::solve::solve(&l, &owns, cancel, &|r, b| observer.ran(r, b))?;
        observer.solved(&s.summary);
        crate::process::trace::phase("solved");
        out.solve = Some(s.summary);
        runs = s.runs;
    }
    if stages.check && !stopped() {
        let owns = |bench: &str| shard.is_none_or(|s| s.owns(bench));
        out.check = Some(crate::check::check(&l, &owns, cancel, runs.take())?);
        crate::process::trace::phase("checked");
    }
    // Stopped: the check stage's pairs are still judged and told.
    let (interrupted, defaults) = (stopped(), default_outputs(c));
    let scoring = stages.score && !interrupted;
    // The campaign's own reports are stamped with what they are made
    // from; a run (`score` always writes) keeps them when that did not
    // change, and then prints the verdict counts they were made with
    // unless its observer wants every pair.
    let stamp = (scoring && outputs.is_none()).then(|| report::stamp::inputs(&l, &defaults));
    let kept = stamp
        .as_deref()
        .filter(|_| stages.solve || stages.check)
        .and_then(|s| report::stamp::current(&c.reports_dir(), s));
    crate::process::trace::phase("stamp");
    out.tally = kept
        .as_ref()
        .and_then(|k| k.tally.clone())
        .filter(|_| !options.keep_pairs);
    // What reading the runs found beside the runs that count, for the
    // scores' warnings and timeline.
    let mut beside = None;
    if out.tally.is_none() && (out.check.is_some() || scoring) {
        let read = crate::campaign::ledger::current::read_runs(&l, runs.take())?;
        beside = Some((read.unscored, read.timings));
        let (pairs, measured) = crate::judge::collect_measured(&l, read.current)?;
        out.measured = measured;
        crate::process::trace::phase("judged");
        let incremental = crate::incremental::verdict::collect(&l)?;
        out.tally = Some(Tally::of(&pairs, &incremental));
        out.pairs = Some(pairs);
        out.incremental = Some(incremental);
    }
    if let (Some(k), Some(t)) = (&out.check, &out.tally) {
        observer.checked(k, t);
    }
    if interrupted {
        out.interrupted = true;
        return Ok(out);
    }
    if let Some(kept) = kept {
        for w in &kept.warnings {
            l.say.warning(w.as_str());
        }
        out.reports_current = true;
        return Ok(out);
    }
    if let (true, Some(pairs), Some(tally), Some(beside)) =
        (stages.score, &out.pairs, &out.tally, beside)
    {
        let incremental = out.incremental.as_deref().unwrap_or_default();
        let outputs = outputs.unwrap_or(&defaults);
        let (report, warnings) = score(&l, (pairs, &out.measured), incremental, outputs, beside)?;
        if let Some(s) = stamp {
            report::stamp::write(&c.reports_dir(), &s, &warnings, tally)?;
        }
        out.report = Some(report);
    }
    Ok(out)
}

/// Name the campaign's benchmarks into `named/` (resumable).
fn name(c: &Campaign, say: Say, cancel: &AtomicBool) -> Result<NameSummary> {
    let n = &c.config.naming;
    // `benchmark_list`: checked by the preflight, read again here.
    let only = match &c.benchmark_list {
        Some(list) => Some(crate::campaign::setup::config::benchmark_list::ids(list)?),
        None => None,
    };
    let opts = TreeOptions {
        name: NameOptions {
            prefix: (!n.prefix.is_empty()).then(|| n.prefix.clone()),
            policy: crate::benchmark::Policy {
                min_assertions: n.min_assertions as usize,
                allow_no_status: n.allow_no_status,
                named: n.named_policy,
                accept_any_status: n.accept_any_status,
                incremental: n.incremental,
            },
            strict: false,
            known_status: None,
        },
        scramble: n
            .scramble_seed
            .map(|seed| crate::scramble::ScrambleOptions {
                seed,
                commute: n.scramble_commute,
                ..Default::default()
            }),
        jobs: Some(c.jobs),
        progress: std::io::IsTerminal::is_terminal(&std::io::stderr()),
        say,
        cancel: Some(cancel),
        only: only.as_ref(),
    };
    name_tree(&c.benchmarks, &c.named_dir(), &opts)
        .with_context(|| format!("naming the benchmarks of {}", c.benchmarks.display()))
}

/// A warning when the limit scored by differs from the edition's own.
pub fn limit_warning(rules: &Rules) -> Option<String> {
    let own = rules.edition.rules().time_limit;
    (rules.time_limit != own).then(|| {
        format!(
            "time limit {} s differs from {}'s {} s: scores are not comparable with that edition's",
            rules.time_limit,
            rules.edition.name(),
            own
        )
    })
}

/// The default report files of a campaign, under `reports/`.
pub fn default_outputs(c: &Campaign) -> Outputs {
    let dir = c.reports_dir();
    Outputs {
        json: Some(dir.join("scores.json")),
        csv: Some(dir.join("pairs.csv")),
        markdown: Some(dir.join("report.md")),
        html: Some(dir.join("report.html")),
    }
}

/// Scores and reports from the judged pairs (plus `reports/pairs.jsonl`,
/// every pair with the evidence behind its verdict, and the incremental
/// pairs with `"incremental": true`), and the warnings said.
fn score(
    l: &Loaded,
    (pairs, measured): (&[PairVerdict], &std::collections::BTreeMap<String, usize>),
    incremental: &[crate::incremental::verdict::IncrementalPair],
    outputs: &Outputs,
    (unscored, timings): (UnscoredRuns, Option<Vec<Timing>>),
) -> Result<(ScoreReport, Vec<String>)> {
    let (c, rules) = (l.campaign, &l.ctx.rules);
    // What the journals hold that is not scored (removed solvers, records
    // of another configuration) is said first, once each.
    let unscored = crate::campaign::ledger::current::warnings(l, pairs, unscored)?;
    crate::process::trace::phase("warnings");
    let mut warnings = unscored.warnings.clone();
    warnings.extend(limit_warning(rules));
    for w in &warnings {
        l.say.warning(w.as_str());
    }
    let said = warnings.clone();
    // Scoring alone never publishes less than the reports had: with
    // records a run would redo, it refuses and writes nothing.
    let alone = !(l.ctx.stages.solve || l.ctx.stages.check);
    if alone {
        unscored.refuse(&c.dir, l.ctx.score_partial)?;
    }
    // Under the campaign lock: temporary files a killed writer left.
    crate::store::journal::remove_stale_temps(&c.reports_dir());
    for p in outputs.paths() {
        crate::store::journal::remove_stale_temps_of(p);
    }
    let options = ScoreOptions {
        participants: l.ctx.participants.clone(),
        rejudge: false,
        warnings,
        divisions: l.ctx.divisions.clone(),
    };
    // Beside the scores, on a second thread: `pairs.jsonl` (which goes
    // with the campaign's own reports; outputs named on the command line
    // are the only files written otherwise) and the evidence the HTML
    // report opens with. The other formats need only the scores.
    let originals = originals(&c.benchmarks, pairs);
    let own = *outputs == default_outputs(c);
    let (html, others) = outputs.split_html();
    let report = std::thread::scope(|s| -> Result<ScoreReport> {
        let side = s.spawn(|| -> Result<Vec<_>> {
            if own {
                let path = c.reports_dir().join("pairs.jsonl");
                report::pairs_jsonl::write(&path, pairs, incremental, l.ctx.divisions.as_ref())?;
            }
            crate::process::trace::phase("pairs.jsonl");
            if html.is_empty() {
                return Ok(Vec::new());
            }
            let mut evidence = crate::evidence::collect(l, pairs, report::MAX_PASSING_DETAILS)?;
            for e in &mut evidence {
                if let Some(o) = originals.get(e.benchmark.as_str()) {
                    e.benchmark = o.to_string();
                }
            }
            crate::process::trace::phase("evidence");
            Ok(evidence)
        });
        let report =
            score_with_facts(l, pairs, &originals, incremental, options, timings).map(|mut r| {
                if let Some(f) = r.facts.as_mut() {
                    f.measured = measured.clone();
                }
                r
            });
        let written = report.and_then(|r| report::write_all(&r, &others).map(|()| r));
        crate::process::trace::phase("reports but HTML");
        let evidence = side.join().unwrap_or_else(|p| std::panic::resume_unwind(p));
        let (report, evidence) = (written?, evidence?);
        report::write_all_with_evidence(&report, &evidence, &html)?;
        Ok(report)
    })?;
    crate::process::trace::phase("reports");
    Ok((report, said))
}

/// The original benchmark of each scrambled one the competition's task
/// file names ([`crate::benchmark::task`]): the scores, families and
/// reports go by it (the journals and `pairs.jsonl` keep the files the
/// solvers saw).
pub type Originals = rustc_hash::FxHashMap<Box<str>, crate::store::compact::Name>;

/// The originals of the judged pairs' benchmarks below `root`.
pub fn originals(root: &Path, pairs: &[PairVerdict]) -> Originals {
    let mut seen = rustc_hash::FxHashSet::default();
    let mut out = Originals::default();
    for p in pairs {
        let id = p.pair.benchmark.as_ref();
        if seen.insert(id) {
            let file = root.join(id);
            if let Some(o) = crate::benchmark::task::original_of(&file) {
                out.insert(id.into(), o.into());
            }
        }
    }
    out
}

/// The records with each scrambled benchmark's id replaced by its original.
pub fn by_originals<'a>(
    records: impl Iterator<Item = &'a crate::campaign::verdict::pair::PairRecord>,
    originals: &Originals,
) -> Vec<crate::campaign::verdict::pair::PairRecord> {
    records
        .map(|r| {
            let mut r = r.clone();
            if let Some(o) = originals.get(r.benchmark.as_ref()) {
                r.benchmark = o.clone();
            }
            r
        })
        .collect()
}

/// The scores of the judged pairs with the campaign's facts, what lies
/// beyond the scores, and the stages' occupancy.
fn score_with_facts(
    l: &Loaded,
    pairs: &[PairVerdict],
    originals: &Originals,
    incremental: &[crate::incremental::verdict::IncrementalPair],
    options: ScoreOptions,
    timings: Option<Vec<Timing>>,
) -> Result<ScoreReport> {
    let renamed;
    let records: Vec<_> = if originals.is_empty() {
        pairs.iter().map(|p| &p.pair).collect()
    } else {
        renamed = by_originals(pairs.iter().map(|p| &p.pair), originals);
        renamed.iter().collect()
    };
    let mut report = score_refs(&records, &l.ctx.rules, &options);
    crate::process::trace::phase("scored");
    report.facts = Some(crate::campaign::ledger::facts::Facts::of(l));
    report.provenance = Some(crate::campaign::ledger::facts::InputHashes::of(l));
    report.beyond = crate::score::beyond::per_solver(pairs);
    report.refutations = crate::score::beyond::refutations(pairs);
    let status = |id: &str| l.bench(id).and_then(|b| b.status.clone());
    report.unconfirmed_sats = crate::score::beyond::unconfirmed_sats(pairs, &status);
    report.incremental = crate::score::incremental::per_solver(incremental);
    if let Some(v) = &l.ctx.validators {
        report.validators_from = Some(v.source.clone());
        report.validators = report
            .divisions
            .iter()
            .map(|d| v.of_division(&d.name))
            .collect();
    }
    report.occupancy = occupancy(l, timings)?;
    crate::process::trace::phase("occupancy");
    Ok(report)
}

/// The timelines of the solve and check stages, from the journals' timings
/// (runs journaled by earlier versions have none and are left out). The
/// solve stage's comes from judging's reading of `runs.jsonl` when it kept
/// them (`solve`, [`crate::campaign::ledger::current::Runs::timings`]).
fn occupancy(l: &Loaded, solve: Option<Vec<Timing>>) -> Result<Vec<Occupancy>> {
    let c = l.campaign;
    let timeline = |name: &str, timings: Vec<Timing>| {
        let (mut runs, mut slots) = (Vec::new(), c.jobs);
        for t in timings {
            slots = slots.max(t.slot + 1);
            runs.push((t.start, t.end));
        }
        (!runs.is_empty()).then(|| Occupancy {
            stage: name.to_string(),
            slots,
            runs,
        })
    };
    // Streamed: each run's start and end alone are kept (at a million runs
    // the records would be hundreds of megabytes).
    let read = |journal: &str| -> Result<Vec<Timing>> {
        let mut all = Vec::new();
        c.for_each_record(journal, |r: Timed| all.extend(r.timing))?;
        Ok(all)
    };
    let solve = match solve {
        Some(kept) => kept,
        None => read(RUNS)?,
    };
    Ok([timeline("solve", solve), timeline("check", read(CHECKS)?)]
        .into_iter()
        .flatten()
        .collect())
}

/// Where the HTML report of a campaign is.
pub fn html_report(c: &Campaign) -> PathBuf {
    c.reports_dir().join("report.html")
}
