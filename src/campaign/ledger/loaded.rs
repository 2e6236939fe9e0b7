//! The loaded campaign as the stages after naming see it ([`Loaded`]): the
//! context built by [`crate::campaign::setup::context::Context::load`], the
//! named index read once and the provenance the configuration produces now.
//! [`open`] is what every writing entry point does first: a hint when
//! nothing is named yet, the context, then the campaign lock.

use super::index::{Bench, INDEX_FILE};
use super::provenance;
use crate::campaign::setup::context::{Context, Stages};
use crate::campaign::setup::solvers::SolverUnderTest;
use crate::campaign::setup::{selection, Campaign};
use crate::checkers::SolverDef;
use crate::message::Say;
use crate::store::compact::Name;
use crate::store::lock::CampaignLock;
use anyhow::Result;
use rustc_hash::FxHashMap as HashMap;
use std::path::Path;
use std::sync::atomic::AtomicBool;

/// A pair of the loaded campaign: the solver's place in the
/// configuration, the benchmark's in the index ([`Loaded::pair_id`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PairId(u32, u32);

impl PairId {
    /// The solver's place in the configuration's solvers under test.
    pub fn solver(self) -> usize {
        self.0 as usize
    }

    /// The benchmark's place in the named index.
    pub fn bench(self) -> usize {
        self.1 as usize
    }
}

/// What `runs.jsonl` holds that is not scored, as
/// [`super::current::read_runs`] found it.
#[derive(Clone, Debug, Default)]
pub struct UnscoredRuns {
    /// Runs of solvers the configuration no longer has, per solver.
    pub(super) gone: std::collections::BTreeMap<String, usize>,
    /// Pairs whose runs are all of another configuration, by solver and
    /// reason ([`super::current::stale_pairs`]).
    pub(super) stale: std::collections::BTreeMap<(String, String), usize>,
}

/// What the stages after naming read: the loaded campaign
/// ([`Context`]) and the named index, read once.
pub struct Loaded<'a> {
    pub ctx: &'a Context,
    pub campaign: &'a Campaign,
    /// Every definition of the campaign's definitions folder.
    pub defs: &'a [SolverDef],
    pub solvers: &'a [SolverUnderTest],
    /// The named, eligible benchmarks, in index order.
    pub index: Vec<Bench>,
    /// What the configuration runs now: the provenance every record is
    /// compared with ([`provenance`], [`current`]).
    pub current: provenance::Current,
    /// Where the stages' messages go (the pipeline's observer).
    pub say: Say<'a>,
    by_id: HashMap<Name, usize>,
    /// A configured solver's place in `solvers`, by name.
    solver_at: HashMap<Name, usize>,
}

impl<'a> Loaded<'a> {
    /// [`Loaded::telling`] with the messages printed on stderr.
    pub fn new(ctx: &'a Context) -> Result<Loaded<'a>> {
        Loaded::telling(ctx, Say::stderr())
    }

    /// Read the named index of a loaded campaign (warnings about it are
    /// said once, here) and what its configuration runs now; the stages
    /// say their messages to `say`.
    pub fn telling(ctx: &'a Context, say: Say<'a>) -> Result<Loaded<'a>> {
        Loaded::from_named(ctx, say, None)
    }

    /// [`Loaded::telling`] with the named index's entries as the naming
    /// stage of this process left them in the index (`named`, every entry
    /// in index order), when it did: the index is then not read again.
    pub fn from_named(
        ctx: &'a Context,
        say: Say<'a>,
        named: Option<Vec<super::index::IndexEntry>>,
    ) -> Result<Loaded<'a>> {
        let campaign = &ctx.campaign;
        let index = match named {
            Some(entries) => super::index::benches_of(campaign, entries, say),
            None => super::index::read_index_telling(campaign, say)?,
        };
        // The checkers run here are identified (hashed, probed); the other
        // definitions only name answers that may be in the journals. Only
        // checking and scoring (which leaves out what another version of a
        // checker answered) need them: naming and solving start no checker
        // (each probe is a process, a Python one for the PyPI wrappers).
        let run = match ctx.stages.check || ctx.stages.score {
            true => selection::configured_checkers(campaign, &ctx.defs).unwrap_or_default(),
            false => Vec::new(),
        };
        let others: Vec<SolverDef> = ctx
            .defs
            .iter()
            .filter(|d| !run.iter().any(|k| k.name == d.name))
            .cloned()
            .collect();
        let current =
            provenance::Current::build(campaign, &ctx.solvers, &run, &others, &index, say);
        let by_id = index
            .iter()
            .enumerate()
            .map(|(i, b)| (b.id.clone(), i))
            .collect();
        let solver_at = ctx
            .solvers
            .iter()
            .enumerate()
            .map(|(i, s)| (Name::from(s.name.as_str()), i))
            .collect();
        Ok(Loaded {
            ctx,
            campaign: &ctx.campaign,
            defs: &ctx.defs,
            solvers: &ctx.solvers,
            index,
            current,
            say,
            by_id,
            solver_at,
        })
    }

    /// The solver under test of a name.
    pub fn solver(&self, name: &str) -> Option<&'a SolverUnderTest> {
        self.ctx.solver(name)
    }

    /// The place in the index of the benchmark of an id.
    pub fn bench_place(&self, id: &str) -> Option<usize> {
        self.by_id.get(id).copied()
    }

    /// The benchmark of an id.
    pub fn bench(&self, id: &str) -> Option<&Bench> {
        self.by_id.get(id).map(|&i| &self.index[i])
    }

    /// The compact key of a configured solver's pair with a named
    /// benchmark (8 bytes where the names are tens: a campaign keys a
    /// million pairs at once).
    /// A configured solver's name, one copy shared by its verdicts.
    pub fn solver_name(&self, solver: &str) -> Option<&Name> {
        self.solver_at.get_key_value(solver).map(|(n, _)| n)
    }

    pub fn pair_id(&self, solver: &str, bench: &str) -> Option<PairId> {
        let s = *self.solver_at.get(solver)?;
        let b = *self.by_id.get(bench)?;
        Some(PairId(s as u32, b as u32))
    }
}

/// What `run`, `solve`, `check`, `score CAMPAIGN` and `selfcheck` do
/// before their stages: a hint and `None` (the command ends with exit 0)
/// when a stage that needs named benchmarks comes before naming; otherwise
/// the loaded campaign ([`Context::load`]), then the campaign lock of the
/// journals it writes (waiting for it with `wait`, until `cancel`).
pub fn open(
    campaign: Campaign,
    stages: Stages,
    campaign_arg: &Path,
    wait: bool,
    cancel: &AtomicBool,
) -> Result<Option<(Context, CampaignLock)>> {
    // A config that cannot work is said first, by the preflight.
    if !stages.name && (stages.solve || stages.check) && campaign.refused.is_empty() {
        if let Some(hint) = nothing_named(&campaign, campaign_arg) {
            eprintln!("{hint}");
            return Ok(None);
        }
    }
    let ctx = Context::load(campaign, stages)?;
    for n in &ctx.notes {
        eprintln!("{n}");
    }
    let c = &ctx.campaign;
    let journals = c.shard_dir.as_deref().unwrap_or(&c.dir);
    let lock = crate::store::lock::acquire_in(journals, wait, cancel)?;
    Ok(Some((ctx, lock)))
}

/// A hint when a stage that reads the named benchmarks comes before any
/// naming: `None` when something was named.
pub fn nothing_named(c: &Campaign, campaign_arg: &Path) -> Option<String> {
    let index = c.named_dir().join(INDEX_FILE);
    if index.exists() {
        return None;
    }
    Some(format!(
        "nothing is named yet in {}: run `coreval run {}` (or `--stage name` first); \
         no pair to run now",
        c.shown_dir.display(),
        campaign_arg.display()
    ))
}
