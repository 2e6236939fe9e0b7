//! The campaign owns the vocabulary every stage shares: the validated config
//! and folder layout ([`config`]), the rules editions ([`editions`],
//! [`rules`]) parsed there once, the journal records and their file names
//! ([`records`]), the named index ([`index`]), the solvers under test
//! ([`solvers`]), the decision policies ([`policy`]) and the pair record the
//! scorer consumes ([`pair`]). Stages (name, solve, check, judge, score,
//! report) depend on this module and on the leaf modules (scanner, runner,
//! answer, rebuild), never on each other; the loaded campaign
//! ([`context::Context`], checked by [`preflight`]) is built once, before
//! any stage, and passed down to them as [`Loaded`].

pub mod certification;
mod config;
pub mod config_lines;
pub mod configs;
pub mod context;
pub mod current;
pub mod division_map;
pub mod editions;
pub mod facts;
pub mod index;
pub mod minimality;
pub mod pair;
pub mod participants;
pub mod policy;
pub mod preflight;
pub mod produced;
pub mod provenance;
pub mod records;
pub mod rules;
pub mod selection;
pub mod solvers;
pub mod validators;

pub use config::*;

use crate::checkers::SolverDef;
use crate::message::Say;
use anyhow::Result;
use index::Bench;
use solvers::SolverUnderTest;
use std::collections::HashMap;

/// What the stages after naming read: the loaded campaign
/// ([`context::Context`]) and the named index, read once.
pub struct Loaded<'a> {
    pub ctx: &'a context::Context,
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
    by_id: HashMap<String, usize>,
}

impl<'a> Loaded<'a> {
    /// [`Loaded::telling`] with the messages printed on stderr.
    pub fn new(ctx: &'a context::Context) -> Result<Loaded<'a>> {
        Loaded::telling(ctx, Say::stderr())
    }

    /// Read the named index of a loaded campaign (warnings about it are
    /// said once, here) and what its configuration runs now; the stages
    /// say their messages to `say`.
    pub fn telling(ctx: &'a context::Context, say: Say<'a>) -> Result<Loaded<'a>> {
        let campaign = &ctx.campaign;
        let index = index::read_index_telling(campaign, say)?;
        // The checkers run here are identified (hashed, probed); the other
        // definitions only name answers that may be in the journals.
        let run = selection::configured_checkers(campaign, &ctx.defs).unwrap_or_default();
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
        Ok(Loaded {
            ctx,
            campaign: &ctx.campaign,
            defs: &ctx.defs,
            solvers: &ctx.solvers,
            index,
            current,
            say,
            by_id,
        })
    }

    /// The solver under test of a name.
    pub fn solver(&self, name: &str) -> Option<&'a SolverUnderTest> {
        self.ctx.solver(name)
    }

    /// The benchmark of an id.
    pub fn bench(&self, id: &str) -> Option<&Bench> {
        self.by_id.get(id).map(|&i| &self.index[i])
    }
}
