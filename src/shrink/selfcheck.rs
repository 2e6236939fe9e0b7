//! `coreval selfcheck --shrink`: after the verdicts, each FAIL of a kind
//! that can be shrunk ([`super::oracle::supported`]) is reduced
//! ([`super::shrink`]) within `--shrink-time` seconds, `--jobs` of them side
//! by side (the total time said at the end), and its FAIL block
//! gets `reproducer: PATH (K of N assertions, B of B0 bytes)`, the
//! command that repeats the failure on it, and what happened on the way.
//! The reproducers go to the keep folder (`<benchmark>.repro.smt2`). A
//! shrink that cannot be done (the failure does not repeat, the file
//! cannot be written) says so in one line; the verdict stays as it was.

use super::oracle::Spec;
use super::Settings;
use crate::selfcheck::outcome::Outcome;
use crate::selfcheck::repro::shell_words;
use crate::selfcheck::{Options, Report, SOLVER_NAME};
use anyhow::{Context, Result};
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

/// Shrink every failing benchmark of `report` that can be; `say` tells
/// progress (stderr).
pub fn attach(
    report: &mut Report,
    opts: &Options,
    time: f64,
    cancel: &AtomicBool,
    say: &(dyn Fn(String) + Sync),
) -> Result<()> {
    let here = std::env::current_dir().context("cannot read the current folder")?;
    let checkers_dir = opts
        .checkers_dir
        .clone()
        .unwrap_or_else(crate::checkers::default_dir);
    let command = crate::selfcheck::solver_command(&opts.solver)?;
    let team = report
        .setup
        .team
        .split(", ")
        .next()
        .unwrap_or("")
        .to_string();
    let solver = crate::campaign::setup::solvers::inline_def_in(
        &here,
        std::path::absolute(&checkers_dir)?,
        SOLVER_NAME,
        &team,
        &command,
    )?;
    let independent: Vec<String> = report
        .setup
        .checkers
        .iter()
        .filter(|k| !report.setup.excluded.contains(k))
        .cloned()
        .collect();
    let settings = Settings {
        time,
        coreval: std::env::current_exe().context("cannot find the coreval program")?,
        checkers_dir: std::path::absolute(&checkers_dir)?,
    };
    let keep = crate::selfcheck::repro::keep_dir(opts.keep.as_deref());
    let setup = report.setup.clone();
    // The shrinks to do: (result, its benchmark's bytes, the reproducer's path).
    let mut todo = Vec::new();
    for (i, r) in report.results.iter_mut().enumerate() {
        if r.outcome != Outcome::Failed || r.time.is_none() {
            continue;
        }
        if !super::oracle::supported(&r.verdict) {
            r.details.push(format!(
                "reproducer: none (a failure of kind {} is not shrunk; shrunk: refuted, sat, ill-formed)",
                r.verdict
            ));
            continue;
        }
        match std::fs::read(&r.path) {
            Ok(b) => todo.push((i, b, keep.join(repro_name(&r.path)))),
            Err(e) => r
                .details
                .push(format!("reproducer: none (cannot read {}: {e})", r.path)),
        }
    }
    if todo.is_empty() {
        return Ok(());
    }
    // Side by side, `--jobs` at a time (each within `--shrink-time`).
    let jobs = crate::process::jobs::resolve(opts.jobs)
        .0
        .clamp(1, todo.len());
    let started = std::time::Instant::now();
    say(format!(
        "shrink: {} failure(s), {jobs} at a time, each for at most {time} s…",
        todo.len()
    ));
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results = &report.results;
    let done: std::sync::Mutex<Vec<(usize, Vec<String>)>> = Default::default();
    std::thread::scope(|scope| {
        for _ in 0..jobs {
            scope.spawn(|| loop {
                let Some((i, original, out)) = todo.get(next.fetch_add(1, Ordering::SeqCst)) else {
                    return;
                };
                let r = &results[*i];
                if cancel.load(Ordering::Relaxed) {
                    let why = "reproducer: none (interrupted before its shrink began)".to_string();
                    done.lock().unwrap().push((*i, vec![why]));
                    continue;
                }
                say(format!(
                    "shrink: {} ({}, {} assertions)…",
                    r.path, r.verdict, r.assertions
                ));
                let spec = Spec {
                    solver: solver.clone(),
                    workdir: here.clone(),
                    answer_stream: opts.answer_stream.unwrap_or_default(),
                    checkers_dir: settings.checkers_dir.clone(),
                    checkers: independent.clone(),
                    solver_time: opts.timeout,
                    checker_time: opts.checker_timeout,
                    kind: r.verdict.clone(),
                    logic: None,
                    strict: false,
                };
                let lines = match super::shrink(original, spec, out, &settings, cancel) {
                    Ok(s) => {
                        say(format!("shrink: {} done in {:.1} s", r.path, s.seconds));
                        let mut lines = vec![
                            s.line(),
                            format!(
                                "repeat on it: $ {}",
                                repeat_command(opts, &setup.checkers, out)
                            ),
                        ];
                        lines.extend(s.notes.iter().cloned());
                        lines
                    }
                    Err(why) => vec![format!("reproducer: none ({why})")],
                };
                done.lock().unwrap().push((*i, lines));
            });
        }
    });
    for (i, lines) in done.into_inner().unwrap_or_else(|p| p.into_inner()) {
        report.results[i].details.extend(lines);
    }
    say(format!(
        "shrink: {} failure(s) in {:.1} s",
        todo.len(),
        started.elapsed().as_secs_f64()
    ));
    report.kept = Some(keep);
    Ok(())
}

/// `<benchmark path, made relative>.repro.smt2`.
fn repro_name(shown: &str) -> PathBuf {
    let rel: PathBuf = Path::new(shown)
        .components()
        .filter(|c| matches!(c, Component::Normal(_)))
        .collect();
    let s = rel.to_string_lossy();
    PathBuf::from(format!(
        "{}.repro.smt2",
        s.strip_suffix(".smt2").unwrap_or(&s)
    ))
}

/// The selfcheck that repeats the failure on the reproducer, run as
/// printed from the folder selfcheck ran in (this program by its path
/// unless `PATH` finds it as `coreval`).
fn repeat_command(opts: &Options, checkers: &[String], file: &Path) -> String {
    let mut words = vec![
        crate::selfcheck::words::this_program(),
        "selfcheck".into(),
        "--solver".into(),
        shell_words(&opts.solver),
        "--checkers".into(),
        checkers.join(","),
    ];
    if let Some(t) = &opts.team {
        words.extend(["--team".into(), t.clone()]);
    }
    if let Some(s) = opts.answer_stream {
        let s = serde_json::to_value(s)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string));
        words.extend(["--answer-stream".into(), s.unwrap_or_default()]);
    }
    words.push(file.to_string_lossy().into_owned());
    shell_words(&words)
}

#[cfg(test)]
mod tests {
    #[test]
    fn reproducers_stay_inside_the_keep_folder() {
        assert_eq!(
            super::repro_name("../x/b.smt2"),
            std::path::PathBuf::from("x/b.repro.smt2")
        );
        assert_eq!(
            super::repro_name("/abs/c"),
            std::path::PathBuf::from("abs/c.repro.smt2")
        );
    }
}
