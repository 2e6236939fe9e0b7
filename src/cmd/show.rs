//! `coreval show CAMPAIGN SOLVER BENCHMARK`: one pair's evidence in a
//! terminal, the same as the HTML report's detail view
//! ([`crate::evidence::Evidence::of`]): the verdict, every checker's vote
//! with its certification (or why it did not count, or that it was left
//! out), the core with the line of each assertion in the named benchmark,
//! and the commands that repeat the solver's run and each checker's, to
//! paste in a shell from the campaign folder. The text is a list of
//! sections ([`render`]), so that one more (an explanation of a refuted
//! core, say) is one more call. Reads the journals only: no lock, nothing
//! written.

use crate::campaign::ledger::Loaded;
use crate::campaign::setup::context::{Context, Stages};
use crate::campaign::verdict::pair::PairEvidence;
use crate::cmd::exit;
use crate::message::{Message, Say};
use anyhow::{bail, Context as _, Result};
use clap::Args;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

#[derive(Args, Debug)]
pub struct ShowArgs {
    /// The campaign folder.
    #[arg(value_name = "CAMPAIGN")]
    pub campaign: PathBuf,
    /// The solver's name, as in campaign.toml.
    #[arg(value_name = "SOLVER")]
    pub solver: String,
    /// The benchmark's id: its path below the benchmark root.
    #[arg(value_name = "BENCHMARK")]
    pub benchmark: String,
}

/// A campaign loaded to read its verdicts (the score stage's context).
fn load(campaign: &Path) -> Result<Context> {
    let c = crate::campaign::setup::Campaign::load_for_preflight(campaign)?;
    let stages = Stages {
        name: false,
        solve: false,
        check: false,
        score: true,
    };
    Context::load(c, stages)
}

/// For `coreval diff` of campaign folders: Err when `coreval run` would
/// redo some of what the campaign's verdicts rest on
/// ([`crate::campaign::ledger::current::refuse_stale`], as `show` and
/// `score` refuse).
pub fn refuse_stale(campaign: &Path) -> Result<()> {
    let ctx = load(campaign)?;
    let hear = |m: &Message| m.print();
    let l = Loaded::telling(&ctx, Say::to(&hear))?;
    let pairs = crate::judge::collect(&l)?;
    crate::campaign::ledger::current::refuse_stale(&l, &pairs)
}

/// Run `coreval show`.
pub fn run(args: ShowArgs) -> Result<u8> {
    let ctx = load(&args.campaign)?;
    let hear = |m: &Message| m.print();
    let l = Loaded::telling(&ctx, Say::to(&hear))?;
    if l.solver(&args.solver).is_none() {
        let names: Vec<&str> = l.solvers.iter().map(|s| s.name.as_str()).collect();
        bail!(
            "{}: no solver '{}' (solvers: {})",
            args.campaign.display(),
            args.solver,
            names.join(", ")
        );
    }
    match l.bench(&args.benchmark) {
        None => bail!(
            "{}: no named benchmark '{}' (ids are paths below the benchmark root, as in reports/pairs.csv)",
            args.campaign.display(),
            args.benchmark
        ),
        Some(e) if e.incremental => bail!(
            "{}: '{}' is an incremental script, judged query by query: its verdicts are in \
             reports/pairs.jsonl (\"incremental\": true)",
            args.campaign.display(),
            args.benchmark
        ),
        Some(_) => {}
    }
    let pairs = crate::judge::collect(&l)?;
    crate::campaign::ledger::current::refuse_stale(&l, &pairs)?;
    let Some(p) = pairs
        .iter()
        .find(|p| *p.pair.solver == *args.solver && *p.pair.benchmark == *args.benchmark)
    else {
        bail!(
            "{}: {} has not run on {} yet (`coreval run {0}`)",
            args.campaign.display(),
            args.solver,
            args.benchmark
        );
    };
    let e = crate::evidence::Evidence::load(&l, &[p])?.of(p);
    crate::out!("{}", render(&l.campaign.dir, &e))?;
    Ok(exit::OK)
}

/// The text of one pair's evidence: its sections in order.
pub fn render(campaign: &Path, e: &PairEvidence) -> String {
    let mut out = String::new();
    verdict(&mut out, e);
    votes(&mut out, e);
    core(&mut out, campaign, e);
    explanation(&mut out, e);
    commands(&mut out, e);
    out
}

/// What the model of a certified refutation falsifies outside the core
/// ([`crate::explain`]); nothing for other pairs.
fn explanation(out: &mut String, e: &PairEvidence) {
    for line in &e.explanation {
        let _ = writeln!(out, "{line}");
    }
}

/// The pair, its verdict and the solver's answer.
fn verdict(out: &mut String, e: &PairEvidence) {
    let mut v = e.verdict.label();
    if let Some(r) = e.refutation {
        let _ = write!(v, " ({})", r.label());
    }
    if e.disputed {
        v.push_str(", disputed");
    }
    if e.pending {
        v.push_str(", pending (checks missing)");
    }
    let _ = writeln!(out, "{} on {}: {v}", e.solver, e.benchmark);
    let _ = writeln!(out, "  answer: {} ({})", e.answer, e.exit);
    if !e.flags.is_empty() {
        let _ = writeln!(out, "  flags: {}", e.flags.join(", "));
    }
    for err in &e.errors {
        let _ = writeln!(out, "  error: {err}");
    }
    if let Some(tail) = &e.stderr {
        let _ = writeln!(out, "  stderr (last lines):");
        indent(out, tail, "    ");
    }
}

/// Each checker's vote: what it printed, how it counted, its certification
/// and the model behind a `sat`.
fn votes(out: &mut String, e: &PairEvidence) {
    if e.checkers.is_empty() {
        let _ = writeln!(out, "votes: no checker ran on this core");
        return;
    }
    let _ = writeln!(out, "votes:");
    for k in &e.checkers {
        let counted =
            if k.counted == crate::campaign::verdict::pair::LEFT_OUT || k.counted == k.answer {
                k.counted.clone()
            } else {
                format!("counted as {}", k.counted)
            };
        let _ = writeln!(
            out,
            "  {} {}: {} → {counted}{} ({}, {:.2} s)",
            k.checker,
            k.version.as_deref().unwrap_or("?"),
            k.answer,
            if k.cached { ", cached" } else { "" },
            k.exit,
            k.wall
        );
        if let Some(n) = &k.note {
            let _ = writeln!(out, "    {n}");
        }
        if let Some(c) = &k.certification {
            let _ = writeln!(out, "    {c}");
        }
        if let Some(f) = &k.model_file {
            let _ = writeln!(out, "    model ({f}):");
            indent(out, k.model.as_deref().unwrap_or(""), "      ");
        }
    }
}

/// The core, each name with the line of its assertion in the named
/// benchmark.
fn core(out: &mut String, campaign: &Path, e: &PairEvidence) {
    let Some(core) = &e.core else {
        let _ = writeln!(out, "core: none printed");
        return;
    };
    let _ = writeln!(out, "core: {} of {} assertions", core.len(), e.assertions);
    let lines = e
        .named_file
        .as_ref()
        .map(|f| assertion_lines(&campaign.join(f)))
        .unwrap_or_default();
    let file = e.named_file.as_deref().unwrap_or("?");
    for name in core {
        match lines.get(name.as_str()) {
            Some(line) => {
                let _ = writeln!(out, "  {name}  {file}:{line}");
            }
            None => {
                let _ = writeln!(out, "  {name}  (no assertion of that name)");
            }
        }
    }
    if let Some(f) = &e.core_file {
        let _ = writeln!(out, "core-only benchmark: {f}");
    }
}

/// The commands that repeat the solver's run and each checker's.
fn commands(out: &mut String, e: &PairEvidence) {
    let _ = writeln!(out, "to repeat (from the campaign folder):");
    if let Some(cmd) = &e.command {
        let _ = writeln!(out, "  # {}\n  {cmd}", e.solver);
    }
    for k in &e.checkers {
        let _ = writeln!(out, "  # checker {}\n  {}", k.checker, k.command);
    }
}

fn indent(out: &mut String, text: &str, by: &str) {
    for line in text.lines() {
        let _ = writeln!(out, "{by}{line}");
    }
}

/// The 1-based line of each named top-level assertion of a benchmark, by
/// its name's normal form (empty when the file cannot be read).
pub fn assertion_lines(path: &Path) -> std::collections::HashMap<String, u64> {
    let read = crate::store::regular::read(path).with_context(|| format!("{}", path.display()));
    let Ok(bytes) = read else {
        return Default::default();
    };
    let Ok(cmds) = crate::smtlib::scanner::commands(&bytes) else {
        return Default::default();
    };
    cmds.iter()
        .filter(|c| crate::smtlib::lexer::command_head(&c.text) == Some(b"assert"))
        .filter_map(|c| {
            let n = crate::rebuild::assert_name(&c.text)?;
            Some((
                crate::smtlib::symbol::normalize(&n.name).to_string(),
                c.line,
            ))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn assertions_are_found_by_their_line() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("b.smt2");
        std::fs::write(
            &f,
            "(set-logic QF_UF)\n(declare-const p Bool)\n(assert (! p :named a1))\n\n(assert\n  (! (not p) :named |a 2|))\n(check-sat)\n",
        )
        .unwrap();
        let lines = assertion_lines(&f);
        assert_eq!(lines.get("a1"), Some(&3));
        assert_eq!(lines.get("a 2"), Some(&5));
        assert!(assertion_lines(&dir.path().join("none")).is_empty());
    }
}
