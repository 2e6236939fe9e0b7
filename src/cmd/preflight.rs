//! Preflight: before any stage runs, make sure the campaign can work, and
//! refuse it otherwise, naming the config file and line.
//!
//! - at least one `[[solver]]` (for solving and checking);
//! - every solver under test can start: its program exists and is
//!   executable, a script's `#!` interpreter too, and its version command
//!   (if it has one) answers (a solver that cannot start would otherwise be
//!   journaled `failed to start` on every benchmark and rank first with no
//!   errors);
//! - every selected checker is known, installed and answers its version
//!   probe;
//! - (a note, not a refusal) an inline solver command that runs a checker's
//!   program is of that checker's team ([`crate::checkers::identity`]);
//! - the benchmark root holds `.smt2` files (with a hint when it holds
//!   `.SMT2` or `.smt` files instead).
//!
//! Probes run in parallel. A stage asked for before the stage it needs
//! (solving before naming) is not an error but a hint: [`nothing_named`].

use crate::campaign::config_lines::{where_is, Key};
use crate::campaign::{solvers, Campaign, CONFIG_FILE};
use crate::checkers::{self, Probe, SolverDef};
use crate::lock::CampaignLock;
use crate::pipeline::Stages;
use anyhow::{anyhow, bail, Context, Result};
use std::path::Path;

/// What `run`, `solve` and `check` do before their stages: a hint and
/// `None` (the command ends with exit 0) when a stage that needs named
/// benchmarks comes before naming; otherwise the preflight, then the
/// campaign lock (waiting for it with `wait`).
pub fn before_stages(
    c: &Campaign,
    stages: Stages,
    campaign_arg: &Path,
    wait: bool,
) -> Result<Option<CampaignLock>> {
    if !stages.name && (stages.solve || stages.check) {
        if let Some(hint) = nothing_named(c, campaign_arg) {
            eprintln!("{hint}");
            return Ok(None);
        }
    }
    preflight(c, stages)?;
    let journals = c.shard_dir.as_deref().unwrap_or(&c.dir);
    crate::lock::acquire_in(journals, wait, crate::cmd::interrupt::flag()).map(Some)
}

/// One program to probe: what it is (for messages), where it is configured.
struct Subject {
    what: String,
    at: String,
    def: SolverDef,
}

/// Refuse a campaign that cannot work for `stages` (see the module doc).
pub fn preflight(c: &Campaign, stages: Stages) -> Result<()> {
    let config = c.dir.join(CONFIG_FILE);
    if (stages.solve || stages.check) && c.config.solvers.is_empty() {
        bail!(
            "{}: no [[solver]]: there is nothing to run; add one (a `[[solver]]` table with \
             `name` and `definition` or `command`, see `coreval init`)",
            config.display()
        );
    }
    if stages.name {
        benchmark_root(c, &config)?;
    }
    if let Err(e) = c.config.score.rules.parse::<crate::score::rules::Edition>() {
        bail!(
            "{}: score.rules: {e}",
            where_is(&config, Key::Table("score", "rules"))
        );
    }
    if let Some(f) = &c.config.score.family {
        if let Err(e) = f.parse::<crate::score::rules::FamilyDef>() {
            bail!(
                "{}: score.family: {e}",
                where_is(&config, Key::Table("score", "family"))
            );
        }
    }
    if let Some(p) = &c.config.score.participants {
        crate::score::participants::Participants::load(&c.dir.join(p)).map_err(|e| {
            anyhow!(
                "{}: {e:#}",
                where_is(&config, Key::Table("score", "participants"))
            )
        })?;
    }
    if !(stages.solve || stages.check) {
        return Ok(());
    }
    let defs = checkers::load_dir(&solvers::checkers_dir(c))?;
    let mut subjects = Vec::new();
    for (i, s) in c.config.solvers.iter().enumerate() {
        let key = if s.definition.is_some() {
            "definition"
        } else {
            "command"
        };
        let at = where_is(&config, Key::Solver(i, key));
        let mut one = c.clone();
        one.config.solvers = vec![s.clone()];
        let mut resolved =
            solvers::solvers_under_test(&one, &defs).map_err(|e| anyhow!("{at}: {e:#}"))?;
        if let (Some(_), Some((k, why))) = (&s.command, resolved[0].runs.first()) {
            if stages.check {
                eprintln!(
                    "note: {at}: solver '{}' {why} (checker {k}): it is of team {}, whose checkers do not judge its cores",
                    s.name,
                    resolved[0].teams.join(", ")
                );
            }
        }
        if stages.solve {
            subjects.push(Subject {
                what: format!("solver '{}'", s.name),
                at,
                def: resolved.remove(0).def,
            });
        }
    }
    if stages.check {
        let at = if c.config.check.checkers.is_empty() {
            None
        } else {
            Some(where_is(&config, Key::Table("check", "checkers")))
        };
        let checkers =
            crate::campaign::selection::configured_checkers(c, &defs).map_err(|e| match &at {
                Some(at) => anyhow!("{at}: {e:#}"),
                None => e,
            })?;
        for k in checkers {
            subjects.push(Subject {
                what: format!("checker '{}'", k.name),
                at: at.clone().unwrap_or_else(|| {
                    format!(
                        "{} (installed, so selected; name the checkers to use in check.checkers)",
                        k.source.display()
                    )
                }),
                def: k,
            });
        }
    }
    let failures: Vec<String> = std::thread::scope(|scope| {
        let handles: Vec<_> = subjects
            .iter()
            .map(|s| scope.spawn(move || startable(&s.def).err()))
            .collect();
        subjects
            .iter()
            .zip(handles)
            .filter_map(|(s, h)| {
                let why = h
                    .join()
                    .unwrap_or_else(|_| Some("its probe panicked".into()))?;
                Some(format!("{}: {} cannot start: {why}", s.at, s.what))
            })
            .collect()
    });
    if !failures.is_empty() {
        bail!("{}", failures.join("\n"));
    }
    Ok(())
}

/// Why the program of `def` cannot start, if it cannot.
pub fn startable(def: &SolverDef) -> std::result::Result<(), String> {
    if let Some(why) = def.missing() {
        return Err(if def.install_hint.is_empty() {
            why
        } else {
            format!("{why}; to install: {}", def.install_hint)
        });
    }
    if let Some(program) = def.program() {
        program_ok(&program)?;
    }
    if def.version_command.is_empty() {
        return Ok(());
    }
    match def.probe() {
        Probe::Ok { .. } => Ok(()),
        Probe::Missing { detail } => Err(detail),
        Probe::Broken { detail } => Err(format!("its version probe failed: {detail}")),
    }
}

/// The program must be something the kernel runs: an ELF binary, or a
/// script whose `#!` interpreter exists and is executable (the kernel
/// reports a missing interpreter as the script itself missing).
fn program_ok(program: &Path) -> std::result::Result<(), String> {
    // Unreadable (mode --x): nothing to inspect; the run will tell.
    let Ok(file) = crate::regular::open(program) else {
        return Ok(());
    };
    let mut head = Vec::with_capacity(256);
    let _ = std::io::Read::read_to_end(&mut std::io::Read::take(file, 256), &mut head);
    if head.starts_with(b"\x7fELF") {
        return Ok(());
    }
    let Some(line) = head.strip_prefix(b"#!") else {
        return Err(format!(
            "{} is neither a binary nor a script with a #! line",
            program.display()
        ));
    };
    let line = line.split(|&b| b == b'\n').next().unwrap_or_default();
    let text = String::from_utf8_lossy(line);
    let Some(interpreter) = text.split_whitespace().next() else {
        return Err(format!("{}: empty #! line", program.display()));
    };
    use std::os::unix::fs::PermissionsExt;
    let ok = std::fs::metadata(interpreter)
        .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0);
    if ok {
        Ok(())
    } else {
        Err(format!(
            "{}: its interpreter {interpreter} (#! line) does not exist or is not executable",
            program.display()
        ))
    }
}

/// The benchmark root must hold benchmarks.
fn benchmark_root(c: &Campaign, config: &Path) -> Result<()> {
    let at = || where_is(config, Key::Table("", "benchmarks"));
    let found = crate::benchmark::discover(&c.benchmarks).with_context(at)?;
    if !found.files.is_empty() {
        return Ok(());
    }
    let hint = match found.near_misses.first() {
        Some(first) => format!(
            "; {} file(s) have another extension, such as {}: benchmarks must end in `.smt2` \
             (lower case); rename them",
            found.near_misses.len(),
            first.display()
        ),
        None => String::new(),
    };
    bail!(
        "{}: no benchmark (.smt2 file) under {}{hint}",
        at(),
        c.benchmarks.display()
    )
}

/// A hint when a stage that reads the named benchmarks comes before any
/// naming: `None` when something was named.
pub fn nothing_named(c: &Campaign, campaign_arg: &Path) -> Option<String> {
    let index = c.named_dir().join(crate::campaign::index::INDEX_FILE);
    if index.exists() {
        return None;
    }
    Some(format!(
        "nothing is named yet in {}: run `coreval run {}` (or `--stage name` first); \
         no pair to run now",
        c.dir.display(),
        campaign_arg.display()
    ))
}
