//! `coreval checkers`: list every solver definition of a checkers directory
//! with its team, whether it is installed, the version it reports, whether
//! it produces cores and which logics it takes, and say how to install the
//! missing ones. A table by default, JSON with `--json`.
//!
//! Exit code 0 when every definition runs, 1 ([`crate::cmd::exit::FAILURES`])
//! when one is missing or broken, 2 for an unreadable directory or a broken
//! definition file.

use crate::checkers::{default_dir, load_dir, Probe, SolverDef};
use crate::cmd::exit;
use clap::Args;
use rayon::prelude::*;
use serde::Serialize;
use std::io::Write;
use std::path::{Path, PathBuf};

#[derive(Args, Debug)]
pub struct CheckersArgs {
    /// Directory of solver definitions (`*.toml`) [default: $COREVAL_CHECKERS,
    /// else ./checkers, else the checkers/ folder of the coreval sources]
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// Print JSON instead of a table
    #[arg(long)]
    pub json: bool,
}

/// One line of the listing (also the JSON schema).
#[derive(Serialize)]
struct Entry<'a> {
    /// Definition name.
    name: &'a str,
    /// Team; checkers of the solver's team are not independent.
    team: &'a str,
    /// `ok`, `missing` or `broken`, with `version` or `detail`.
    #[serde(flatten)]
    probe: Probe,
    /// Whether the solver prints unsat cores.
    produces_cores: bool,
    /// Supported logic patterns.
    logics: &'a [String],
    /// Patterns excluded from `logics`.
    exclude_logics: &'a [String],
    /// Supported logics without cores.
    no_core_logics: &'a [String],
    /// The command template.
    command: &'a [String],
    /// The definition file.
    file: &'a Path,
    /// How to install it.
    install_hint: &'a str,
}

#[derive(Serialize)]
struct Listing<'a> {
    /// The checkers directory that was read.
    dir: &'a Path,
    checkers: Vec<Entry<'a>>,
}

fn entry(def: &SolverDef, probe: Probe) -> Entry<'_> {
    Entry {
        name: &def.name,
        team: &def.team,
        probe,
        produces_cores: def.produces_cores,
        logics: &def.logics,
        exclude_logics: &def.exclude_logics,
        no_core_logics: &def.no_core_logics,
        command: &def.command,
        file: &def.source,
        install_hint: &def.install_hint,
    }
}

fn logics_text(e: &Entry) -> String {
    let mut s = e.logics.join(", ");
    if !e.exclude_logics.is_empty() {
        s = format!("{s} except {}", e.exclude_logics.join(", "));
    }
    s
}

fn cores_text(e: &Entry) -> String {
    match (e.produces_cores, e.no_core_logics.is_empty()) {
        (false, _) => "no".into(),
        (true, true) => "yes".into(),
        (true, false) => format!("yes, not {}", e.no_core_logics.join(" ")),
    }
}

fn table(out: &mut impl Write, listing: &Listing) -> std::io::Result<()> {
    writeln!(out, "checkers in {}\n", listing.dir.display())?;
    let rows: Vec<[String; 6]> = listing
        .checkers
        .iter()
        .map(|e| {
            let (status, version) = match &e.probe {
                Probe::Ok { version } => ("ok", version.clone()),
                Probe::Missing { .. } => ("missing", "-".into()),
                Probe::Broken { .. } => ("broken", "-".into()),
            };
            [
                e.name.into(),
                e.team.into(),
                status.into(),
                version,
                cores_text(e),
                logics_text(e),
            ]
        })
        .collect();
    let header = ["NAME", "TEAM", "STATUS", "VERSION", "CORES", "LOGICS"].map(String::from);
    let mut width = header.clone().map(|h| h.len());
    for row in &rows {
        for (w, cell) in width.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    for row in std::iter::once(&header).chain(&rows) {
        let mut line = String::new();
        for (i, cell) in row.iter().enumerate() {
            if i + 1 == row.len() {
                line.push_str(cell);
            } else {
                line.push_str(&format!("{cell:<w$}  ", w = width[i]));
            }
        }
        writeln!(out, "{}", line.trim_end())?;
    }
    let install_sh = listing.dir.join("install.sh");
    let mut any = false;
    for e in &listing.checkers {
        let (what, detail) = match &e.probe {
            Probe::Ok { .. } => continue,
            Probe::Missing { detail } => ("missing", detail),
            Probe::Broken { detail } => ("broken", detail),
        };
        any = true;
        writeln!(out, "\n{} is {what}: {detail}", e.name)?;
        writeln!(out, "  install: {}", e.install_hint)?;
    }
    if any && install_sh.exists() {
        writeln!(
            out,
            "\nTo install every checker: bash {}",
            install_sh.display()
        )?;
    }
    Ok(())
}

pub fn run(args: CheckersArgs) -> anyhow::Result<u8> {
    let dir = args.dir.unwrap_or_else(default_dir);
    let defs = load_dir(&dir)?;
    let abs = dir.canonicalize().unwrap_or(dir);
    let probes: Vec<Probe> = defs.par_iter().map(SolverDef::probe).collect();
    let listing = Listing {
        dir: &abs,
        checkers: defs.iter().zip(probes).map(|(d, p)| entry(d, p)).collect(),
    };
    let mut out = crate::cmd::out::stdout();
    if args.json {
        serde_json::to_writer_pretty(&mut out, &listing)?;
        writeln!(out)?;
    } else if listing.checkers.is_empty() {
        writeln!(out, "no solver definitions (*.toml) in {}", abs.display())?;
    } else {
        table(&mut out, &listing)?;
    }
    out.flush()?;
    let all_ok = listing
        .checkers
        .iter()
        .all(|e| matches!(e.probe, Probe::Ok { .. }));
    Ok(if all_ok { exit::OK } else { exit::FAILURES })
}
