//! The settings of one selfcheck as the report shows them ([`Setup`]),
//! and the choices behind them: the checkers selected from the definitions
//! folder in use, the options that decide a verdict (carried by every
//! `repeat:` command), whether a logic has an independent checker, and
//! whether a best-known core comes from the solver's own team.

use super::outcome::REFERENCE_PREFIX;
use super::Options;
use crate::campaign::setup::solvers::SolverUnderTest;
use crate::campaign::verdict::policy::Policy;
use crate::checkers::SolverDef;
use anyhow::{bail, Result};
use std::path::{Path, PathBuf};

/// The run settings, for the report header and the JUnit properties.
#[derive(Clone, Debug)]
pub struct Setup {
    pub solver: String,
    /// The solver's teams (the first is the declared or default one).
    pub team: String,
    /// How the team was decided when no checker's program decided it
    /// (declared with `--team`, or the default with a hint).
    pub team_how: Option<String>,
    /// The checker definitions the command runs, each with why.
    pub runs: Vec<(String, String)>,
    /// Selected checkers left out as the solver's own team.
    pub excluded: Vec<String>,
    pub checkers: Vec<String>,
    pub references: Vec<String>,
    pub policy: Policy,
    pub benchmarks: usize,
    /// The minimality check's budget per core, when it is on.
    pub minimality_budget: Option<f64>,
    /// The checker definitions folder in use (absolute).
    pub checkers_dir: PathBuf,
    /// The options, as words, that a command repeating one benchmark needs
    /// to reach the same verdict ([`verdict_options`]).
    pub options: Vec<String>,
}

impl Setup {
    /// The setup once the team is known (`author`'s teams and runs, the
    /// observed ones included); a warning when every checker is of it.
    pub(super) fn of(
        opts: &Options,
        (checkers, dir_defs): (&[SolverDef], &Path),
        author: &SolverUnderTest,
        references: &[SolverDef],
        benchmarks: usize,
        warn: &mut dyn FnMut(String),
    ) -> Setup {
        let excluded: Vec<String> = checkers
            .iter()
            .filter(|k| author.same_team(k))
            .map(|k| k.name.clone())
            .collect();
        if excluded.len() == checkers.len() {
            warn(format!(
                "every selected checker ({}) is of the solver's team {}: no core can be validated; \
                 install or select an independent checker (--checkers)",
                excluded.join(", "),
                author.all_teams().join(", ")
            ));
        }
        Setup {
            solver: super::words::shown_command(&opts.solver),
            team: author.all_teams().join(", "),
            team_how: super::team::how(opts.team.is_some(), &author.runs),
            runs: author.runs.clone(),
            excluded,
            checkers: checkers.iter().map(|k| k.name.clone()).collect(),
            references: references.iter().map(|k| k.name.clone()).collect(),
            policy: opts.policy,
            benchmarks,
            minimality_budget: opts.minimality.then_some(opts.minimality_budget),
            checkers_dir: dir_defs.to_path_buf(),
            options: verdict_options(opts, dir_defs),
        }
    }

    /// (name, value) pairs for JUnit `<properties>`.
    pub fn properties(&self) -> Vec<(String, String)> {
        vec![
            ("solver".into(), self.solver.clone()),
            ("team".into(), self.team.clone()),
            ("excluded-checkers".into(), self.excluded.join(",")),
            ("checkers".into(), self.checkers.join(",")),
            (
                "checkers-dir".into(),
                self.checkers_dir.display().to_string(),
            ),
            ("references".into(), self.references.join(",")),
            ("policy".into(), self.policy.to_string()),
            (
                "minimality".into(),
                match self.minimality_budget {
                    Some(b) => format!("on (budget {b} s per core)"),
                    None => "off".into(),
                },
            ),
        ]
    }
}

/// The numbers of `opts` checked before anything runs.
pub fn check_numbers(opts: &Options) -> Result<()> {
    for (what, v) in [
        ("--timeout", opts.timeout),
        ("--checker-timeout", opts.checker_timeout),
    ] {
        if !(v.is_finite() && v > 0.0 && v < 1e7) {
            bail!("{what} must be a positive number of seconds, not {v}");
        }
    }
    if !(opts.minimality_budget.is_finite() && (0.0..1e9).contains(&opts.minimality_budget)) {
        bail!(
            "--minimality-budget must be a non-negative number of seconds, not {}",
            opts.minimality_budget
        );
    }
    Ok(())
}

/// The options of `opts` that change a verdict, as command-line words (the
/// solver, the benchmarks, the seeds and the checkers' names excepted):
/// what a command repeating one benchmark must carry.
pub fn verdict_options(opts: &Options, checkers_dir: &Path) -> Vec<String> {
    let mut w: Vec<String> = Vec::new();
    let mut pair = |k: &str, v: String| {
        w.push(k.into());
        w.push(v);
    };
    pair("--timeout", opts.timeout.to_string());
    pair("--checker-timeout", opts.checker_timeout.to_string());
    pair("--checkers-dir", checkers_dir.display().to_string());
    if let Some(t) = &opts.team {
        pair("--team", t.clone());
    }
    if let Some(a) = opts.answer_stream {
        let word = serde_json::to_value(a).ok();
        pair(
            "--answer-stream",
            word.as_ref()
                .and_then(|v| v.as_str())
                .unwrap_or("stdout")
                .into(),
        );
    }
    if let Some(mb) = opts.output_cap_mb {
        pair("--output-cap", mb.to_string());
    }
    if opts.minimality {
        pair("--minimality-budget", opts.minimality_budget.to_string());
        w.push("--minimality".into());
    }
    if !opts.references {
        w.push("--no-references".into());
    }
    if opts.strict {
        w.push("--strict".into());
    }
    w
}

/// Whether a best-known core's `origin` (`solver (campaign…)`) is a run of
/// a reference of the author's team (`ref-z3` for a wrapper seen running z3).
pub fn own_team_origin(origin: &str, checkers: &[SolverDef], author: &SolverUnderTest) -> bool {
    let solver = origin.split(" (").next().unwrap_or(origin);
    let name = solver.strip_prefix(REFERENCE_PREFIX).unwrap_or(solver);
    checkers
        .iter()
        .any(|k| k.name == name && author.same_team(k))
}

/// The named checkers (each must exist and be installed), or every
/// installed one of the definitions in `dir` but another packaging of an
/// installed one (`same_solver_as`: one solver, one vote).
pub fn select_checkers(defs: &[SolverDef], names: &[String], dir: &Path) -> Result<Vec<SolverDef>> {
    let picked: Vec<SolverDef> = if names.is_empty() {
        let installed: Vec<&SolverDef> = defs.iter().filter(|d| d.is_installed()).collect();
        installed
            .iter()
            .filter(|d| {
                d.same_solver_as
                    .as_ref()
                    .is_none_or(|other| !installed.iter().any(|i| &i.name == other))
            })
            .map(|d| (*d).clone())
            .collect()
    } else {
        let mut out = Vec::new();
        for n in names {
            let Some(d) = defs.iter().find(|d| &d.name == n) else {
                let known: Vec<&str> = defs.iter().map(|d| d.name.as_str()).collect();
                bail!(
                    "--checkers: no definition '{n}' in {} (known: {})",
                    dir.display(),
                    known.join(", ")
                );
            };
            if let Some(why) = d.missing() {
                bail!(
                    "--checkers: '{n}' is not installed ({why}); {}",
                    d.install_hint
                );
            }
            if !out.iter().any(|x: &SolverDef| x.name == d.name) {
                out.push(d.clone());
            }
        }
        out
    };
    if picked.is_empty() {
        bail!(
            "no checker of {} is installed: run `bash {}` (see `coreval checkers --dir {}`)",
            dir.display(),
            dir.join("install.sh").display(),
            dir.display()
        );
    }
    Ok(picked)
}

/// Whether no checker independent of the author's team handles `logic`.
pub fn no_checker(checkers: &[SolverDef], author: &SolverUnderTest, logic: &str) -> bool {
    crate::campaign::setup::selection::select(checkers, logic, author, true, None).is_empty()
}
