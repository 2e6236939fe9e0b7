//! The loaded campaign: one constructor, [`Context::load`], turns a
//! validated config into everything the stages read — the definitions, the
//! solvers under test (program, team, version probe), the checkers
//! selected, the rules edition, family definition and policy as typed
//! values, the participants and the division map — and refuses what cannot
//! work with the file and line ([`super::preflight`]). [`open`] adds the
//! campaign lock for the entry points that write. Nothing loads a
//! definition again after it; the stages get a [`crate::campaign::ledger::Loaded`] view of it.
//!
//! The definitions are its first step, [`Definitions::load`]: a caller
//! that must read them before it can write the campaign (`selfcheck`
//! picks the solver's team and the checkers from them) loads them there
//! and hands them to [`Context::load_with`], which uses them as they are
//! (once they are the campaign's folder's); a caller that needs only the
//! definitions of a campaign (Slurm sizing) takes [`Definitions::of`].

use super::config::Campaign;
use super::config_lines::{where_is, Key};
use super::participants::Participants;
use super::preflight::Problems;
use super::solvers::SolverUnderTest;
use super::validators::Validators;
use crate::campaign::verdict::division_map::DivisionMap;
use crate::campaign::verdict::policy::Policy;
use crate::campaign::verdict::rules::Rules;
use crate::checkers::SolverDef;
use anyhow::{anyhow, bail, Result};
use std::path::{Path, PathBuf};

pub use super::preflight::Stages;

/// The solver and checker definitions of one folder, loaded and checked
/// once ([`crate::checkers::load_dir`]: a broken file is an error naming
/// file and line, two files of one name are an error).
#[derive(Clone, Debug)]
pub struct Definitions {
    dir: PathBuf,
    defs: Vec<SolverDef>,
}

impl Definitions {
    /// Every definition of `dir`.
    pub fn load(dir: &Path) -> Result<Definitions> {
        Ok(Definitions {
            dir: dir.to_path_buf(),
            defs: crate::checkers::load_dir(dir)?,
        })
    }

    /// The definitions of a campaign's folder (`checkers_dir`).
    pub fn of(campaign: &Campaign) -> Result<Definitions> {
        Definitions::load(&super::solvers::checkers_dir(campaign))
    }

    /// Every definition, sorted by file name.
    pub fn all(&self) -> &[SolverDef] {
        &self.defs
    }

    /// Whether these are the definitions `campaign` reads.
    fn are_of(&self, campaign: &Campaign) -> bool {
        let real = |p: &Path| p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
        real(&self.dir) == real(&super::solvers::checkers_dir(campaign))
    }
}

/// A campaign with everything its stages read, loaded and checked once.
pub struct Context {
    pub campaign: Campaign,
    /// The stages it was loaded (and checked) for.
    pub stages: Stages,
    /// Every definition of the campaign's definitions folder.
    pub defs: Vec<SolverDef>,
    /// The solvers under test (empty when only naming).
    pub solvers: Vec<SolverUnderTest>,
    /// The checkers configured and installed (empty unless checking).
    pub checkers: Vec<SolverDef>,
    /// The rules edition with the campaign's time limit and family definition.
    pub rules: Rules,
    pub policy: Policy,
    pub participants: Participants,
    /// The logic → division map (loaded when scoring; `None`: a division
    /// is a logic).
    pub divisions: Option<DivisionMap>,
    /// The validators of each division, from `[check] validators_from`
    /// (loaded when checking or scoring; `None`: every selected checker).
    pub validators: Option<Validators>,
    /// What the user should hear before the stages run (printed by [`open`]).
    pub notes: Vec<String>,
    /// Score alone even though records of another configuration are left
    /// out (`coreval score --partial`); otherwise scoring alone refuses
    /// and leaves the reports as they were.
    pub score_partial: bool,
}

impl Context {
    /// Load and check `campaign` for `stages`: refuse, naming the config
    /// file and line, anything that cannot work (see [`super::preflight`]).
    pub fn load(campaign: Campaign, stages: Stages) -> Result<Context> {
        Context::build(campaign, stages, None, true)
    }

    /// [`Context::load`] with the campaign's definitions loaded already
    /// (they must be those of its definitions folder).
    pub fn load_with(campaign: Campaign, stages: Stages, defs: Definitions) -> Result<Context> {
        if !defs.are_of(&campaign) {
            bail!(
                "the definitions of {} are not those of {}, which reads {}",
                defs.dir.display(),
                campaign.dir.display(),
                super::solvers::checkers_dir(&campaign).display()
            );
        }
        Context::build(campaign, stages, Some(defs), true)
    }

    /// [`Context::load`] without starting the programs to see that they
    /// can (`slurm status`, which runs none; tests of how the stages record
    /// a program that cannot start).
    pub fn load_unprobed(campaign: Campaign, stages: Stages) -> Result<Context> {
        Context::build(campaign, stages, None, false)
    }

    fn build(
        campaign: Campaign,
        stages: Stages,
        defs: Option<Definitions>,
        probe: bool,
    ) -> Result<Context> {
        let config = campaign.config_file();
        let at = |key| where_is(&config, key);
        let mut problems = Problems::new(&campaign);
        super::preflight::refuse_unrunnable(&campaign, stages, &config, &mut problems);
        let s = &campaign.config.score;
        let mut rules = campaign.edition.rules();
        rules.time_limit = campaign.time.as_secs_f64();
        if let Some(f) = campaign.family {
            rules.family = f;
        }
        let participants = match &s.participants {
            Some(p) => problems
                .check(
                    Participants::load(&campaign.dir.join(p))
                        .map_err(|e| anyhow!("{}: {e:#}", at(Key::Table("score", "participants")))),
                )
                .unwrap_or_else(Participants::none),
            None => Participants::none(),
        };
        let mut notes = Vec::new();
        let resolve = stages.solve || stages.check || stages.score;
        let (defs, solvers, checkers) = if resolve {
            let defs = match defs {
                Some(d) => Some(d.defs),
                None => problems.check(Definitions::of(&campaign)).map(|d| d.defs),
            };
            match defs {
                Some(defs) => {
                    let (solvers, checkers) = super::preflight::resolve(
                        &campaign,
                        &defs,
                        stages,
                        &config,
                        probe,
                        &mut notes,
                        &mut problems,
                    );
                    (defs, solvers, checkers)
                }
                None => Default::default(),
            }
        } else {
            Default::default()
        };
        let by_soundness = campaign.config.check.validators_from.is_some();
        let judging = stages.check || stages.score;
        let divisions = if stages.score || (judging && by_soundness) {
            let file = s.divisions.as_ref().map(|p| campaign.dir.join(p));
            let map = DivisionMap::for_rules(&rules, file.as_deref()).map_err(|e| match file {
                Some(_) => anyhow!("{}: {e:#}", at(Key::Table("score", "divisions"))),
                None => e,
            });
            problems.check(map).flatten()
        } else {
            None
        };
        let validators = if judging {
            problems
                .check(Validators::load(&campaign, &defs, divisions.clone()))
                .flatten()
        } else {
            None
        };
        problems.finish()?;
        if let Some(v) = &validators {
            let idle = v.idle();
            if !idle.is_empty() {
                notes.push(format!(
                    "note: checkers {} validate in no division of {} (no result there, or a wrong \
                     answer); name their single-query solvers in check.validator_names",
                    idle.join(", "),
                    v.source
                ));
            }
        }
        Ok(Context {
            policy: campaign.config.check.policy,
            campaign,
            stages,
            defs,
            solvers,
            checkers,
            rules,
            participants,
            divisions,
            validators,
            notes,
            score_partial: false,
        })
    }

    /// The solver under test of a name.
    pub fn solver(&self, name: &str) -> Option<&SolverUnderTest> {
        self.solvers.iter().find(|s| s.name == name)
    }
}
