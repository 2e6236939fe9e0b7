//! The stages of one selfcheck, in the order [`super::run`] calls them:
//! the solver's command, team and checkers ([`Base`]), the inputs split
//! into single-query benchmarks and incremental scripts ([`Parts`]), the
//! temporary campaign ([`Work::create`]), the author's solve stage with
//! each verdict that needs no checker told as its run ends
//! ([`Work::solve_author`]), the team observed in the solver's process tree
//! and the references it leaves ([`Work::observe_team`]), then the
//! references' solve stage ([`Work::solve_references`]). What is judged
//! after the author's runs is in [`super::gather`].

use super::early::{self, Early};
use super::inputs::{self, Input};
use super::outcome::{self, BenchResult, Pair, REFERENCE_PREFIX};
use super::setup::select_checkers;
use super::{team, Options, SOLVER_NAME};
use crate::campaign::ledger::index::{Bench, IndexEntry, Outcome as NameOutcome};
use crate::campaign::ledger::records::RunRecord;
use crate::campaign::setup::context::{Context, Definitions};
use crate::campaign::setup::team::Executed;
use crate::campaign::setup::{Campaign, Check, ConfigFile, Limits, Naming, Score, SolverEntry};
use crate::checkers::SolverDef;
use crate::incremental::script::Cmd;
use crate::pipeline::{Observer, Stages, Summary};
use anyhow::{anyhow, bail, Context as _, Result};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::mpsc;

/// The solver's command, its team as declared or named by the command,
/// and the checkers, from the definitions folder in use.
pub(super) struct Base {
    pub command: Vec<String>,
    /// The definitions folder (absolute).
    pub dir_defs: PathBuf,
    /// Loaded once: the team and the checkers are chosen from them, and
    /// every load of the campaign takes them as they are.
    pub definitions: Definitions,
    pub team: String,
    pub checkers: Vec<SolverDef>,
}

impl Base {
    pub fn load(opts: &Options) -> Result<Base> {
        let command = super::solver_command(&opts.solver)?;
        let dir_defs = opts
            .checkers_dir
            .clone()
            .unwrap_or_else(crate::checkers::default_dir);
        let dir_defs = std::path::absolute(&dir_defs)?;
        let definitions = Definitions::load(&dir_defs)
            .with_context(|| format!("checker definitions in {}", dir_defs.display()))?;
        let team = team_of(opts, &command, definitions.all())?;
        let checkers = select_checkers(definitions.all(), &opts.checkers, &dir_defs)?;
        Ok(Base {
            command,
            dir_defs,
            definitions,
            team,
            checkers,
        })
    }
}

/// `--team`, else the team of the first checker the command runs, else
/// the program's file name.
fn team_of(opts: &Options, command: &[String], defs: &[SolverDef]) -> Result<String> {
    let runs = crate::checkers::identity::runs_words(command, defs);
    Ok(match &opts.team {
        Some(t) if t.trim().is_empty() || t.chars().any(char::is_control) => {
            bail!("--team must be a non-empty name without control characters")
        }
        Some(t) => t.clone(),
        None => match runs
            .first()
            .and_then(|(k, _)| defs.iter().find(|d| &d.name == k))
        {
            Some(d) => d.team.clone(),
            None => Path::new(&command[0])
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
        },
    })
}

/// The benchmarks given, split by kind, and their order as given.
pub(super) struct Parts {
    pub single: Vec<Input>,
    pub incremental: Vec<(Input, Vec<Cmd>)>,
    pub order: Vec<String>,
}

impl Parts {
    pub fn collect(opts: &Options, warn: &mut dyn FnMut(String)) -> Result<Parts> {
        let mut p = Parts {
            single: Vec::new(),
            incremental: Vec::new(),
            order: Vec::new(),
        };
        for i in inputs::collect(&opts.benchmarks, warn)? {
            p.order.push(i.shown.clone());
            match crate::incremental::commands(&i.source) {
                Some(cmds) => p.incremental.push((i, cmds)),
                None => p.single.push(i),
            }
        }
        Ok(p)
    }
}

/// The stages a load of the temporary campaign runs: naming with solving,
/// or checking alone.
pub(super) fn stages(name: bool, check: bool) -> Stages {
    Stages {
        name,
        solve: !check,
        check,
        score: false,
    }
}

/// The temporary campaign and what every stage of it shares.
pub(super) struct Work<'a> {
    pub opts: &'a Options,
    pub base: &'a Base,
    pub dir: PathBuf,
    /// The author's solver first; the references join once the team is
    /// known ([`Work::observe_team`]).
    pub config: ConfigFile,
    pub cancel: &'a AtomicBool,
}

/// The author's solve stage: its summary (`None` without single-query
/// benchmarks), its runs, and what the command alone says of its team.
pub(super) struct Solved {
    pub summary: Option<Summary>,
    pub runs: Vec<RunRecord>,
    /// The checkers the command runs (named by it), each with why.
    pub declared: Vec<(String, String)>,
    /// The teams declared or named by the command, and those of a
    /// checker with its program's content.
    pub teams: Vec<String>,
}

/// The team once every run of the author's is over.
pub(super) struct Team {
    /// The checkers seen running in its process tree, each with why.
    pub seen: Vec<(String, String)>,
    /// The same, as the author's solver entry learns them (its team
    /// identity, [`crate::campaign::setup::team`]).
    pub executed: Executed,
    pub references: Vec<SolverDef>,
}

impl<'a> Work<'a> {
    /// Copy the single-query benchmarks into a new campaign in `dir` whose
    /// one solver is the author's (its command checked).
    pub fn create(
        opts: &'a Options,
        base: &'a Base,
        single: &[Input],
        dir: PathBuf,
        cancel: &'a AtomicBool,
    ) -> Result<Work<'a>> {
        std::fs::create_dir_all(dir.join("benchmarks"))?;
        inputs::place(single, &dir.join("benchmarks"))?;
        let config = config(opts, base)?;
        let c = Campaign::from_config(&dir, config.clone())?;
        let inline = crate::campaign::setup::solvers::inline_def(
            &c,
            SOLVER_NAME,
            &base.team,
            &base.command,
        )?;
        if let Some(why) = inline.missing() {
            bail!("--solver: {why}");
        }
        Ok(Work {
            opts,
            base,
            dir,
            config,
            cancel,
        })
    }

    /// The campaign as configured now, loaded for `stages`.
    pub fn load(&self, config: ConfigFile, stages: Stages) -> Result<Context> {
        Context::load_with(
            Campaign::from_config(&self.dir, config)?,
            stages,
            self.base.definitions.clone(),
        )
    }

    /// Name and solve: the checkers' programs seen running in the solver's
    /// process tree join its team before any core is checked. A verdict
    /// that rests on the run and its benchmark alone is told through
    /// `decided` as the run ends ([`early`]); so is a benchmark that
    /// cannot be named, once naming is over.
    pub fn solve_author(
        &self,
        single: &[Input],
        early: &mut Early,
        decided: &mut dyn FnMut(&BenchResult),
    ) -> Result<Solved> {
        let ctx = self.load(self.config.clone(), stages(!single.is_empty(), false))?;
        let sut = ctx.solver(SOLVER_NAME).context("no solver under test")?;
        let (declared, teams) = (sut.runs.clone(), sut.all_teams());
        if single.is_empty() {
            return Ok(Solved {
                summary: None,
                runs: Vec::new(),
                declared,
                teams,
            });
        }
        let summary = self.streamed(&ctx, single, early, decided)?;
        Ok(Solved {
            summary: Some(summary),
            runs: ctx
                .campaign
                .read_journal(crate::campaign::ledger::records::RUNS)?,
            declared,
            teams,
        })
    }

    /// The pipeline on a thread of its own, what it hears coming back here
    /// (where `decided` lives) as it happens.
    fn streamed(
        &self,
        ctx: &Context,
        single: &[Input],
        early: &mut Early,
        decided: &mut dyn FnMut(&BenchResult),
    ) -> Result<Summary> {
        let sut = ctx.solver(SOLVER_NAME).context("no solver under test")?;
        let by_id: HashMap<&str, &Input> = single.iter().map(|i| (i.id.as_str(), i)).collect();
        let (policy, strict) = (self.opts.policy.to_string(), self.opts.strict);
        let mut shared = crate::judge::Shared::new(ctx.campaign.config.check.policy);
        let sut_name = crate::store::compact::Name::from(sut.name.as_str());
        let (tx, rx) = mpsc::channel::<Heard>();
        std::thread::scope(|scope| {
            let cancel = self.cancel;
            let stage = scope
                .spawn(move || crate::pipeline::run(ctx, &Default::default(), cancel, &Relay(tx)));
            let mut entries: HashMap<String, IndexEntry> = HashMap::new();
            for heard in rx {
                match heard {
                    Heard::Named(all) => {
                        for e in all {
                            if let (Some(i), false) =
                                (by_id.get(e.id.as_str()), e.outcome == NameOutcome::Named)
                            {
                                let r = outcome::classify(i, &e, None, &[], &policy, strict);
                                early.tell(&r, decided);
                            }
                            entries.insert(e.id.clone(), e);
                        }
                    }
                    Heard::Ran(ran) => {
                        let (run, bench) = *ran;
                        let (Some(e), Some(i)) =
                            (entries.get(bench.id.as_str()), by_id.get(bench.id.as_str()))
                        else {
                            continue;
                        };
                        let v = crate::judge::pair_verdict(
                            &ctx.campaign,
                            run.clone(),
                            &bench,
                            (sut, &sut_name),
                            (&[], None),
                            (None, None),
                            &mut shared,
                        );
                        let pair = Pair {
                            verdict: &v,
                            run: &run,
                            no_checker: false,
                        };
                        let r = outcome::classify(i, e, Some(pair), &[], &policy, strict);
                        early.tell(&r, decided);
                    }
                }
            }
            stage
                .join()
                .unwrap_or_else(|_| Err(anyhow!("the solve stage panicked")))
        })
    }

    /// The teams seen running in the author's process tree (which the
    /// later stages learn again from its runs, as every campaign's do);
    /// the references are chosen from the teams left: none declared,
    /// named by the command, of its program's content or seen.
    pub fn observe_team(&mut self, solved: &Solved) -> Team {
        let defs = self.base.definitions.all();
        let executed = Executed::default();
        let (seen, seen_teams) =
            team::seen(&solved.runs, SOLVER_NAME, defs, &solved.declared, &executed);
        let mut teams = solved.teams.clone();
        for t in &seen_teams {
            if !teams.contains(t) {
                teams.push(t.clone());
            }
        }
        let references = match self.opts.references {
            true => team::references(&self.base.checkers, &teams)
                .into_iter()
                .cloned()
                .collect(),
            false => Vec::new(),
        };
        Team {
            seen,
            executed,
            references,
        }
    }

    /// The references join the campaign (after the author's solver).
    pub fn add_references(&mut self, team: &Team) {
        self.config
            .solvers
            .extend(team.references.iter().map(|k| SolverEntry {
                name: format!("{REFERENCE_PREFIX}{}", k.name),
                definition: Some(k.name.clone()),
                command: None,
                benchexec: None,
                benchexec_logs: None,
                team: None,
                args: Vec::new(),
                answer_stream: None,
                workdir: None,
                teams: Vec::new(),
                // A reference's run is the same from one selfcheck to the next.
                cached: true,
                observe: false,
                // Its core is checked only where it could beat the author's.
                reference: true,
            }));
    }

    /// The author's solver alone, its cores validated and nothing more
    /// (no minimality, no best-known core): what is checked before the
    /// references run.
    pub fn author_only(&self) -> ConfigFile {
        let mut c = self.config.clone();
        c.solvers.truncate(1);
        (c.check.minimality, c.check.best_known) = (false, false);
        c
    }

    /// The references solve (the author's runs are done); whether that
    /// was interrupted.
    pub fn solve_references(&self, solved: &Solved, team: &Team) -> Result<bool> {
        match (&solved.summary, team.references.is_empty()) {
            (Some(s), false) if !s.interrupted => {
                let refs = self.load(self.config.clone(), stages(false, false))?;
                let quiet = &crate::pipeline::Quiet;
                Ok(
                    crate::pipeline::run(&refs, &Default::default(), self.cancel, quiet)?
                        .interrupted,
                )
            }
            _ => Ok(false),
        }
    }
}

/// What the solve stage's thread tells [`Work::streamed`].
enum Heard {
    /// Every benchmark's naming entry, once naming is over.
    Named(Vec<IndexEntry>),
    /// A run of the author's whose verdict needs no checker.
    Ran(Box<(RunRecord, Bench)>),
}

/// The observer of the author's solve stage: sends what it hears.
struct Relay(mpsc::Sender<Heard>);

impl Observer for Relay {
    fn named(&self, n: &crate::name::NameSummary) {
        self.0.send(Heard::Named(n.entries.clone())).ok();
    }

    fn ran(&self, run: &RunRecord, bench: &Bench) {
        if run.solver == SOLVER_NAME && early::without_votes(run, bench) {
            let ran = Box::new((run.clone(), bench.clone()));
            self.0.send(Heard::Ran(ran)).ok();
        }
    }
}

/// The temporary campaign's configuration, the author's solver alone.
fn config(opts: &Options, base: &Base) -> Result<ConfigFile> {
    // The author's solver runs where selfcheck was started: relative paths
    // in its command work as they do in the author's shell.
    let here = std::env::current_dir().context("cannot read the current folder")?;
    let solvers = vec![SolverEntry {
        name: SOLVER_NAME.into(),
        definition: None,
        command: Some(base.command.clone()),
        benchexec: None,
        benchexec_logs: None,
        team: Some(base.team.clone()),
        args: Vec::new(),
        answer_stream: opts.answer_stream,
        workdir: Some(here),
        teams: Vec::new(),
        cached: false,
        observe: true,
        reference: false,
    }];
    Ok(ConfigFile {
        benchmarks: "benchmarks".into(),
        benchmark_list: None,
        checkers_dir: Some(base.dir_defs.clone()),
        jobs: opts.jobs,
        cache: None,
        naming: Naming {
            prefix: String::new(),
            named_policy: crate::benchmark::NamedPolicy::Keep,
            min_assertions: 1,
            allow_no_status: true,
            accept_any_status: true,
            scramble_seed: opts.scramble_seed,
            ..Naming::default()
        },
        limits: Limits {
            time: Some(opts.timeout),
            checker_time: opts.checker_timeout,
            output_cap_mb: opts
                .output_cap_mb
                .unwrap_or(Limits::default().output_cap_mb),
            ..Limits::default()
        },
        check: Check {
            checkers: base.checkers.iter().map(|k| k.name.clone()).collect(),
            policy: opts.policy,
            independent: true,
            early_stop: true,
            minimality: opts.minimality,
            minimality_budget: opts.minimality_budget,
            best_known: true,
            shrink_budget: 0.0,
            ..Check::default()
        },
        score: Score::default(),
        solvers,
    })
}
