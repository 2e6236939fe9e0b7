//! Incremental and assumption cores in `coreval selfcheck`: a script with
//! `push`/`pop`, several `check-sat`s or `check-sat-assuming` runs as the
//! author wrote it (no naming, no added commands), its output is matched to
//! its commands in order ([`script::judge`]), and every core or unsat
//! assumption set after an `unsat` is checked by the independent checkers
//! (the solver's team left out, the `--policy` deciding, and never
//! validated without an independent `unsat`, as for single-query cores).
//!
//! A benchmark passes when every such answer is validated; it fails on an
//! ill-formed or refuted answer, `unsat` without a core, or output that
//! contradicts the script; it is skipped when nothing could be decided
//! (no `unsat` query, a timeout before one, checkers undecided).
//!
//! The script model and the matching are shared with campaigns
//! ([`crate::incremental`]).

use super::inputs::Input;
use super::outcome::{BenchResult, Outcome};
use crate::campaign::setup::solvers::SolverUnderTest;
use crate::campaign::verdict::policy::{CheckAnswer, Decision, Policy, Tally};
use crate::checkers::SolverDef;
use crate::incremental::script::{self, Check, Cmd};
use crate::incremental::sexp;
use crate::runner::{self, RunSpec};
use anyhow::{Context, Result};
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

/// What the check needs besides the script.
pub struct Setting<'a> {
    pub author: &'a SolverUnderTest,
    pub checkers: &'a [SolverDef],
    pub policy: Policy,
    pub timeout: f64,
    pub checker_timeout: f64,
    /// Where the check scripts are written (kept with `--workdir`).
    pub dir: &'a Path,
    /// Where the script and the check scripts of a FAIL or SKIP are kept
    /// ([`super::repro::keep_dir`]).
    pub keep: &'a Path,
    /// The `--solver` words as typed.
    pub solver_words: &'a [String],
}

/// One check script given to the checkers: its file, and each checker's
/// program, arguments and answer word.
struct Asked {
    file: std::path::PathBuf,
    votes: Vec<Vote>,
}

/// One checker's run on a check script.
struct Vote {
    name: String,
    words: Vec<String>,
    /// `sat`, `unsat`, `timeout`, or `no vote (why)`.
    word: String,
}

/// [`check`] on every incremental input, in order (none once cancelled).
pub fn check_all(
    inputs: &[(Input, Vec<Cmd>)],
    s: &Setting,
    cancel: &AtomicBool,
    decided: &mut dyn FnMut(&BenchResult),
) -> Result<Vec<BenchResult>> {
    if !inputs.is_empty() {
        std::fs::create_dir_all(s.dir)
            .with_context(|| format!("cannot create {}", s.dir.display()))?;
    }
    let mut out = Vec::new();
    for (i, cmds) in inputs {
        if cancel.load(std::sync::atomic::Ordering::Relaxed) {
            break;
        }
        let r = check(i, cmds, s, cancel)?;
        decided(&r);
        out.push(r);
    }
    Ok(out)
}

/// Run the author's solver on `input` and judge every answer.
pub fn check(input: &Input, cmds: &[Cmd], s: &Setting, cancel: &AtomicBool) -> Result<BenchResult> {
    let mut r = blank(input, cmds);
    if let Some(c) = script::unsupported(cmds) {
        r.outcome = Outcome::Failed;
        r.verdict = "not-usable".into();
        r.details.push(format!(
            "{}:{}: ({} …) in an incremental script: its output cannot be matched",
            input.shown, c.line, "echo"
        ));
        return Ok(r);
    }
    let source = std::path::absolute(&input.source)?;
    let (program, args) = s
        .author
        .def
        .command_for(&source, Duration::from_secs_f64(s.timeout), 0);
    let run = runner::run(
        &RunSpec::new(program, args, Duration::from_secs_f64(s.timeout)),
        cancel,
    );
    r.time = Some(run.wall);
    let stdout = String::from_utf8_lossy(&run.stdout);
    let output = match sexp::parse_all(&stdout) {
        Ok(o) => o,
        Err(why) => {
            r.outcome = Outcome::Failed;
            r.verdict = "ill-formed-output".into();
            r.details
                .push(format!("the output is not S-expressions: {why}"));
            r.details.extend(keep(input, &source, &[], &run.stderr, s)?);
            return Ok(r);
        }
    };
    let m = script::judge(cmds, &output);
    let mut j = Judged::default();
    mismatches(&m, &mut r, &mut j);
    let logic = r.logic.clone().unwrap_or_default();
    let selected =
        crate::campaign::setup::selection::select(s.checkers, &logic, s.author, true, None);
    for (n, q) in m.queries.iter().enumerate() {
        let at = (input, n + 1);
        query(at, q, &selected, s, cancel, &mut r, &mut j)?;
    }
    if let Some(line) = m.cut_at {
        cut(line, &run, &mut r, &mut j);
    }
    conclude(&mut r, &j, m.queries.len(), m.cut_at.is_none());
    if r.outcome != Outcome::Passed {
        r.details
            .extend(keep(input, &source, &j.asked, &run.stderr, s)?);
    }
    Ok(r)
}

/// A script's result before its run: its logic (`ALL` without
/// `set-logic`) and its number of assertions.
fn blank(input: &Input, cmds: &[Cmd]) -> BenchResult {
    let logic = cmds
        .iter()
        .find_map(|c| {
            let l = c.sexp.list()?;
            (l.first()?.atom()? == "set-logic").then(|| l.get(1)?.atom().map(String::from))?
        })
        .unwrap_or_else(|| "ALL".into());
    let assertions = cmds
        .iter()
        .filter(|c| {
            c.sexp
                .list()
                .and_then(|l| l.first()?.atom())
                .is_some_and(|h| h == "assert")
        })
        .count();
    BenchResult::blank(&input.shown, Some(logic), assertions as u64)
}

/// What the answers of one script came to so far.
#[derive(Default)]
struct Judged {
    /// Why it failed (first), or why nothing passed.
    fails: Vec<String>,
    labels: Vec<String>,
    validated: usize,
    /// The check scripts given to the checkers, by query number.
    asked: Vec<(usize, Asked)>,
}

/// The replies flagged, the output that does not match the script, the
/// answers against a declared status.
fn mismatches(m: &script::Matched, r: &mut BenchResult, j: &mut Judged) {
    for reply in &m.replies {
        r.details
            .push(format!("flagged: {reply} (that command's reply)"));
    }
    for f in &m.faults {
        j.fails.push("contradictory-output".into());
        r.details
            .push(format!("output does not match the script: {f}"));
    }
    for a in &m.answers {
        if let Some(why) = script::against_status(a.line, &a.answer, a.status.as_deref()) {
            j.fails.push("contradictory-output".into());
            r.details.push(why);
        }
    }
}

/// One `unsat` query (number `at.1` of script `at.0`): its core or
/// assumptions ill-formed, missing, or checked by the `selected` checkers.
fn query(
    at: (&Input, usize),
    q: &script::Query,
    selected: &[&SolverDef],
    s: &Setting,
    cancel: &AtomicBool,
    r: &mut BenchResult,
    j: &mut Judged,
) -> Result<()> {
    let what = format!("line {}: unsat, {} {}", q.line, q.asked, q.answer);
    match &q.check {
        Check::IllFormed(label, why) => {
            j.fails.push(format!("ill-formed:{label}"));
            r.details.push(format!("{what}: ill-formed ({why})"));
        }
        Check::Missing(why) => {
            j.fails.push("no-core".into());
            r.details.push(format!("{what}: {why}"));
        }
        Check::Script(text) => {
            let file = s.dir.join(format!("{}-q{}.smt2", sanitize(&at.0.id), at.1));
            std::fs::write(&file, text)
                .with_context(|| format!("cannot write {}", file.display()))?;
            let (tally, votes) = ask(selected, &file, s.checker_timeout, cancel);
            let decision = s.policy.decide(&tally);
            let shown = votes
                .iter()
                .map(|v| format!("{} {}", v.name, v.word))
                .collect::<Vec<_>>()
                .join(", ");
            j.asked.push((at.1, Asked { file, votes }));
            // The reading of a core that leaves out assumptions.
            let reading = if q
                .notes
                .iter()
                .any(|n| n.starts_with(script::ASSUMPTIONS_KEPT))
            {
                format!("; {}", script::ASSUMPTIONS_KEPT)
            } else {
                String::new()
            };
            if tally.unsat > 0 && decision == Decision::Validated {
                j.validated += 1;
                r.details
                    .push(format!("{what}: validated ({shown}{reading})"));
            } else if decision == Decision::Refuted {
                j.fails.push("refuted".into());
                r.details
                    .push(format!("{what}: refuted ({shown}{reading})"));
            } else {
                j.labels.push("undecided".into());
                r.details.push(format!(
                    "{what}: undecided ({})",
                    if shown.is_empty() {
                        "no independent checker".into()
                    } else {
                        shown
                    }
                ));
            }
        }
    }
    for note in &q.notes {
        r.details.push(format!("  {note}"));
    }
    Ok(())
}

/// The output ended before the answer of line `line`.
fn cut(line: u64, run: &runner::RunOutcome, r: &mut BenchResult, j: &mut Judged) {
    let why = if run.timed_out {
        "timeout".to_string()
    } else {
        run.exit.to_string()
    };
    r.details
        .push(format!("the output ended before line {line} ({why})"));
    if j.labels.is_empty() {
        j.labels.push(if run.timed_out {
            "timeout".into()
        } else {
            "no-answer".into()
        });
    }
}

/// The outcome and label from what the queries came to: passed when every
/// one of `queries` is validated and the output is `whole`.
fn conclude(r: &mut BenchResult, j: &Judged, queries: usize, whole: bool) {
    let validated = j.validated;
    r.outcome = if !j.fails.is_empty() {
        Outcome::Failed
    } else if validated > 0 && validated == queries && whole {
        Outcome::Passed
    } else {
        Outcome::Skipped
    };
    r.verdict = match r.outcome {
        Outcome::Passed => "validated".into(),
        _ => j
            .fails
            .first()
            .or(j.labels.first())
            .cloned()
            .unwrap_or_else(|| "no-unsat-query".into()),
    };
    r.details.insert(
        0,
        format!("incremental: {queries} unsat answer(s) with a core or assumptions, {validated} validated"),
    );
}

/// Keep the script and its check scripts below `s.keep`, and say how to
/// repeat each run: the solver's command, each check script with every
/// checker's command and answer, the solver's last stderr lines.
fn keep(
    input: &Input,
    source: &Path,
    asked: &[(usize, Asked)],
    stderr: &[u8],
    s: &Setting,
) -> Result<Vec<String>> {
    let mut out = Vec::new();
    let script = s.keep.join(&input.id);
    super::repro::copy(source, &script)?;
    let (_, args) = s
        .author
        .def
        .command_for(&script, Duration::from_secs_f64(s.timeout), 0);
    let mut words = vec![s.solver_words[0].clone()];
    words.extend(args);
    out.push(format!("solver: $ {}", super::repro::shell_words(&words)));
    let stem = input.id.strip_suffix(".smt2").unwrap_or(&input.id);
    for (n, a) in asked {
        let kept = s.keep.join(format!("{stem}.q{n}.smt2"));
        super::repro::copy(&a.file, &kept)?;
        out.push(format!("check script of answer {n}: {}", kept.display()));
        let here = a.file.to_string_lossy().into_owned();
        for v in &a.votes {
            let words: Vec<String> = v
                .words
                .iter()
                .map(|w| w.replace(&here, &kept.to_string_lossy()))
                .collect();
            out.push(format!(
                "  checker {} answered {}: $ {}",
                v.name,
                v.word,
                super::repro::shell_words(&words)
            ));
        }
    }
    out.extend(super::repro::stderr_tail(&String::from_utf8_lossy(stderr)));
    Ok(out)
}

/// Each selected checker's answer on `file`, tallied, and its vote.
fn ask(
    selected: &[&SolverDef],
    file: &Path,
    timeout: f64,
    cancel: &AtomicBool,
) -> (Tally, Vec<Vote>) {
    let mut t = Tally::default();
    let mut votes = Vec::new();
    for k in selected {
        let limit = Duration::from_secs_f64(timeout);
        let (program, args) = k.command_for(file, limit, 0);
        let mut words = vec![program.to_string_lossy().into_owned()];
        words.extend(args.iter().cloned());
        let out = runner::run(&RunSpec::new(program, args, limit), cancel);
        let answer = if out.timed_out {
            CheckAnswer::Other
        } else {
            crate::check::classify_output(&crate::answer::parse_output(&out.stdout)).0
        };
        t.add(answer, false);
        let word = match answer {
            CheckAnswer::Sat => "sat".into(),
            CheckAnswer::Unsat => "unsat".into(),
            CheckAnswer::Other if out.timed_out => "timeout".into(),
            _ => format!("no vote ({})", no_vote_why(&out)),
        };
        votes.push(Vote {
            name: k.name.clone(),
            words,
            word,
        });
    }
    (t, votes)
}

/// Why a checker's run cast no vote: its first `(error …)` or stderr line,
/// else how it ended.
fn no_vote_why(out: &runner::RunOutcome) -> String {
    let text = format!(
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let line = text
        .lines()
        .map(str::trim)
        .find(|l| l.starts_with("(error") || l.contains("rror"))
        .or_else(|| text.lines().map(str::trim).find(|l| !l.is_empty()));
    match line {
        Some(l) => {
            let l: String = l.chars().take(160).collect();
            format!("printed {l}")
        }
        None => format!("nothing printed, {}", out.exit),
    }
}

fn sanitize(id: &str) -> String {
    id.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}
