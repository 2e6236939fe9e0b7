//! The campaign owns the vocabulary every stage shares: the validated config
//! and folder layout ([`config`]) with each edition's default limits
//! ([`edition_limits`]), the journal records and their file names
//! ([`records`]), the named index ([`index`]), the solvers under test
//! ([`solvers`]), the decision policies ([`policy`]) and the pair record the
//! scorer consumes ([`pair`]). Stages (name, solve, check, judge, score,
//! report) depend on this module and on the leaf modules (scanner, runner,
//! answer, rebuild), never on each other; [`Loaded`] is built once and
//! passed down to them.

mod config;
pub mod certification;
pub mod config_lines;
pub mod edition_limits;
pub mod index;
pub mod minimality;
pub mod pair;
pub mod policy;
pub mod records;
pub mod selection;
pub mod solvers;

pub use config::*;

use crate::checkers::{self, SolverDef};
use anyhow::Result;
use index::Bench;
use solvers::SolverUnderTest;
use std::collections::HashMap;

/// A campaign with its definitions, solvers under test and named index,
/// read once for the stages after naming.
pub struct Loaded<'a> {
    pub campaign: &'a Campaign,
    /// Every definition of the campaign's definitions folder.
    pub defs: Vec<SolverDef>,
    pub solvers: Vec<SolverUnderTest>,
    /// The named, eligible benchmarks, in index order.
    pub index: Vec<Bench>,
    by_id: HashMap<String, usize>,
}

impl<'a> Loaded<'a> {
    /// Read the definitions, resolve the solvers under test and read the
    /// named index (warnings about it are printed once, here).
    pub fn load(campaign: &'a Campaign) -> Result<Loaded<'a>> {
        let defs = checkers::load_dir(&solvers::checkers_dir(campaign))?;
        let solvers = solvers::solvers_under_test(campaign, &defs)?;
        let index = index::read_index(campaign)?;
        let by_id = index
            .iter()
            .enumerate()
            .map(|(i, b)| (b.id.clone(), i))
            .collect();
        Ok(Loaded {
            campaign,
            defs,
            solvers,
            index,
            by_id,
        })
    }

    /// The solver under test of a name.
    pub fn solver(&self, name: &str) -> Option<&SolverUnderTest> {
        self.solvers.iter().find(|s| s.name == name)
    }

    /// The benchmark of an id.
    pub fn bench(&self, id: &str) -> Option<&Bench> {
        self.by_id.get(id).map(|&i| &self.index[i])
    }
}
