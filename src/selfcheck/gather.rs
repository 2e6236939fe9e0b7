//! The single-query benchmarks' results once the solver's team is known:
//! the author's cores checked first, each verdict that later answers and
//! the references cannot change told at once ([`check_author`],
//! [`super::early::settled`]); then, after the references' runs and the
//! whole check stage, every benchmark's result with its details
//! ([`Gather::result`]): the checkers' answers, the best reference, the
//! best-known core (none of the solver's own team), the explanation of a
//! refutation, and the kept files of a FAIL or SKIP ([`super::repro`]).

use super::early::{self, Early};
use super::flow::Work;
use super::inputs::Input;
use super::outcome::{self, BenchResult, Outcome, Pair, REFERENCE_PREFIX};
use super::repro::Repro;
use super::setup::{no_checker, own_team_origin};
use super::words::origin_for_people;
use super::{Options, Report, SOLVER_NAME};
use crate::campaign::ledger::index::{IndexEntry, Outcome as NameOutcome};
use crate::campaign::ledger::records::RunRecord;
use crate::campaign::setup::context::Context;
use crate::campaign::setup::solvers::SolverUnderTest;
use crate::campaign::verdict::pair::{PairVerdict, Verdict};
use crate::checkers::SolverDef;
use crate::pipeline::Summary;
use anyhow::{bail, Context as _, Result};
use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::AtomicBool;

/// What the author's part of a selfcheck shares once its team is known.
pub(super) struct Author<'a> {
    pub work: &'a Work<'a>,
    /// The single-query benchmarks.
    pub inputs: &'a [Input],
    /// The runs journaled by the author's solve stage.
    pub runs: &'a [RunRecord],
    /// The author's solver, its observed teams and runs included.
    pub sut: &'a SolverUnderTest,
}

/// Check the author's cores alone (no minimality, no best-known core: the
/// last check stage does those) on `ctx`, a load without the references,
/// and tell each verdict that is settled.
pub(super) fn check_author(
    ctx: &Context,
    a: &Author,
    entries: &[IndexEntry],
    early: &mut Early,
    decided: &mut dyn FnMut(&BenchResult),
) -> Result<()> {
    let (opts, checkers) = (a.work.opts, &a.work.base.checkers);
    let done = crate::pipeline::run(
        ctx,
        &Default::default(),
        a.work.cancel,
        &crate::pipeline::Quiet,
    )?;
    if done.interrupted {
        return Ok(());
    }
    let policy = opts.policy.to_string();
    for v in done.pairs.iter().flatten() {
        if &*v.pair.solver != SOLVER_NAME {
            continue;
        }
        let id = v.pair.benchmark.as_ref();
        let (Some(i), Some(e), Some(run)) = (
            a.inputs.iter().find(|i| i.id == id),
            entries.iter().find(|e| e.id == id),
            a.runs
                .iter()
                .find(|r| r.solver == SOLVER_NAME && r.benchmark == id),
        ) else {
            continue;
        };
        let none = no_checker(checkers, a.sut, e.logic.as_deref().unwrap_or(""));
        if !early::settled(v, none) {
            continue;
        }
        let pair = Pair {
            verdict: v,
            run,
            no_checker: none,
        };
        let r = outcome::classify(i, e, Some(pair), &[], &policy, opts.strict);
        early.tell(&r, decided);
    }
    Ok(())
}

/// The last check stage on `last` (the references included) unless a
/// solve stage was interrupted, then every single-query result into
/// `report` in the inputs' order, each told unless it was already.
#[allow(clippy::too_many_arguments)]
pub(super) fn single(
    last: &Context,
    a: &Author,
    solved: Summary,
    refs_interrupted: bool,
    early: &mut Early,
    report: &mut Report,
    warn: &mut dyn FnMut(String),
    decided: &mut dyn FnMut(&BenchResult),
) -> Result<()> {
    let named = solved.name.context("the name stage did not run")?;
    let done = match solved.interrupted || refs_interrupted {
        true => Summary {
            interrupted: true,
            ..Default::default()
        },
        false => crate::pipeline::run(
            last,
            &Default::default(),
            a.work.cancel,
            &crate::pipeline::Quiet,
        )?,
    };
    let pairs = done.pairs.unwrap_or_default();
    let c = &last.campaign;
    let all_runs: Vec<RunRecord> = c.read_journal(crate::campaign::ledger::records::RUNS)?;
    let keep = super::repro::keep_dir(a.work.opts.keep.as_deref());
    let g = Gather {
        opts: a.work.opts,
        ctx: last,
        dir: &a.work.dir,
        checkers: &a.work.base.checkers,
        author: a.sut,
        entries: named.entries.iter().map(|e| (e.id.as_str(), e)).collect(),
        pairs: &pairs,
        run_of: a
            .runs
            .iter()
            .map(|r| ((r.solver.as_str(), r.benchmark.as_str()), r))
            .collect(),
        all_runs: &all_runs,
        repro: Repro {
            keep: &keep,
            campaign: c,
            solver_words: &a.work.opts.solver,
            author: a.sut,
            checkers: &a.work.base.checkers,
        },
        cancel: a.work.cancel,
    };
    g.warnings(a.inputs, warn);
    report.interrupted = solved.interrupted || refs_interrupted || done.interrupted;
    if report.interrupted {
        return Ok(());
    }
    for i in a.inputs {
        let r = g.result(i, report)?;
        early.last(&r, decided, warn);
        report.results.push(r);
    }
    Ok(())
}

/// What every benchmark's final result is made from.
pub(super) struct Gather<'a> {
    pub opts: &'a Options,
    /// The last load of the campaign (the references included).
    pub ctx: &'a Context,
    /// The campaign folder.
    pub dir: &'a Path,
    pub checkers: &'a [SolverDef],
    pub author: &'a SolverUnderTest,
    pub entries: HashMap<&'a str, &'a IndexEntry>,
    pub pairs: &'a [PairVerdict],
    /// The author's runs, by (solver, benchmark).
    pub run_of: HashMap<(&'a str, &'a str), &'a RunRecord>,
    /// Every run, the references' included.
    pub all_runs: &'a [RunRecord],
    pub repro: Repro<'a>,
    pub cancel: &'a AtomicBool,
}

impl Gather<'_> {
    /// A reference of a team seen running in the solver's process tree
    /// (known only after solving) confirms nothing of the solver's.
    fn independent_reference(&self, solver: &str) -> bool {
        let name = solver.strip_prefix(REFERENCE_PREFIX);
        self.checkers
            .iter()
            .any(|k| name == Some(k.name.as_str()) && !self.author.same_team(k))
    }

    /// The warnings of the author's named inputs (what naming changed).
    pub fn warnings(&self, single: &[Input], warn: &mut dyn FnMut(String)) {
        for i in single {
            if let Some(e) = self
                .entries
                .get(i.id.as_str())
                .filter(|e| e.outcome == NameOutcome::Named)
            {
                for w in super::inputs::warnings(i, e) {
                    warn(w);
                }
            }
        }
    }

    /// One benchmark's final result; its rehearsal facts and kept folder
    /// go into `report`.
    pub fn result(&self, i: &Input, report: &mut Report) -> Result<BenchResult> {
        let Some(entry) = self.entries.get(i.id.as_str()).copied() else {
            bail!("{}: missing from the naming index", i.shown)
        };
        let mine = self
            .pairs
            .iter()
            .find(|p| &*p.pair.solver == SOLVER_NAME && *p.pair.benchmark == *i.id);
        let refs: Vec<&PairVerdict> = self
            .pairs
            .iter()
            .filter(|p| *p.pair.benchmark == *i.id && self.independent_reference(&p.pair.solver))
            .collect();
        let run = self.run_of.get(&(SOLVER_NAME, i.id.as_str())).copied();
        let author_pair = match (mine, run) {
            (Some(p), Some(run)) => Some(Pair {
                verdict: p,
                run,
                no_checker: no_checker(
                    self.checkers,
                    self.author,
                    entry.logic.as_deref().unwrap_or(""),
                ),
            }),
            _ => None,
        };
        if self.opts.scramble_seed.is_some() {
            let c = &self.ctx.campaign;
            let s = super::rehearsal::Scrambled {
                original_core: mine.and_then(|p| p.details.original_core.clone()),
                named_file: entry.output.as_ref().map(|o| c.named_dir().join(o)),
            };
            report.scrambled.insert(i.shown.clone(), s);
        }
        let policy = self.opts.policy.to_string();
        let mut r = outcome::classify(i, entry, author_pair, &refs, &policy, self.opts.strict);
        self.for_people(&mut r);
        if let (Some(v), Some(core), Some(out)) =
            (mine, run.and_then(|r| r.core.as_ref()), &entry.output)
        {
            let c = &self.ctx.campaign;
            let at = self.repro.terms(entry, i);
            let named = c.named_dir().join(out);
            let why = crate::explain::for_pair(c, v, core, &named, self.checkers, &at, self.cancel);
            r.details.extend(why);
        }
        if let (Some(run), true) = (run, r.outcome != Outcome::Passed) {
            self.kept(i, entry, run, mine, &refs, &mut r)?;
            report.kept = Some(self.repro.keep.to_path_buf());
        }
        Ok(r)
    }

    /// Paths into the campaign made readable. The best-known core is
    /// shown whoever found it, with where it comes from: this run or an
    /// earlier one through the shared cache, and `your team` when a
    /// checker of the solver's own team found it (the column then means
    /// the same whatever an earlier run left in the cache).
    fn for_people(&self, r: &mut BenchResult) {
        for d in r.details.iter_mut() {
            if !d.starts_with(outcome::BEST_KNOWN_LINE) {
                *d = origin_for_people(d, self.dir);
            }
        }
        let Some(b) = r.best_known.as_mut() else {
            return;
        };
        let own = own_team_origin(&b.origin, self.checkers, self.author);
        b.origin = origin_for_people(&b.origin, self.dir);
        if own {
            b.origin.push_str(", your team");
        }
        let line = outcome::best_known_line(b, r.assertions);
        for d in r.details.iter_mut() {
            if d.starts_with(outcome::BEST_KNOWN_LINE) {
                d.clone_from(&line);
            }
        }
    }

    /// The files of a FAIL or SKIP kept, their commands in the details; a
    /// `sat` FAIL rests on a reference's validated core: its run too.
    fn kept(
        &self,
        i: &Input,
        entry: &IndexEntry,
        run: &RunRecord,
        mine: Option<&PairVerdict>,
        refs: &[&PairVerdict],
        r: &mut BenchResult,
    ) -> Result<()> {
        r.details.extend(self.repro.details(i, entry, run, mine)?);
        let sat = mine.is_some_and(|p| {
            matches!(p.pair.verdict, Verdict::SatAnswer | Verdict::SatUnconfirmed)
        });
        if let (true, Outcome::Failed, Some(b)) = (sat, r.outcome, &r.best) {
            let name = format!("{REFERENCE_PREFIX}{}", b.solver);
            let found = (
                self.ctx.solver(&name),
                self.all_runs
                    .iter()
                    .find(|x| x.solver == name && x.benchmark == i.id),
                refs.iter().find(|p| *p.pair.solver == *name),
            );
            if let (Some(who), Some(its_run), Some(its_verdict)) = found {
                let more = self.repro.other_run(i, entry, who, its_run, its_verdict)?;
                r.details.extend(more);
            }
        }
        Ok(())
    }
}
