//! The term-level pass: ddSMT (PyPI `ddsmt` 2.0.6) run on the
//! assertion-level reproducer with `coreval shrink-judge SPEC` as its test
//! command (exit code only: `--ignore-output`). ddSMT writes every smaller
//! failing file it finds to its output file; whatever it left there when it
//! ended (done, out of budget, failed) is judged once more here and kept
//! only when it still fails and is smaller.
//!
//! ddSMT is `$COREVAL_DDSMT`, else `venv/bin/ddsmt` beside the definitions
//! folder, else `ddsmt` in `PATH`.

use super::oracle::Judge;
use super::Settings;
use crate::runner::{self, RunSpec};
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

/// Where ddSMT is, or why it is not there.
pub fn locate(settings: &Settings) -> Result<PathBuf, String> {
    if let Some(p) = std::env::var_os("COREVAL_DDSMT") {
        let p = PathBuf::from(p);
        return crate::checkers::resolve_program(&p.to_string_lossy()).ok_or_else(|| {
            format!(
                "ddSMT not found: $COREVAL_DDSMT is {}, not a program",
                p.display()
            )
        });
    }
    let venv = settings.checkers_dir.join("venv/bin/ddsmt");
    crate::checkers::resolve_program(&venv.to_string_lossy())
        .or_else(|| crate::checkers::resolve_program("ddsmt"))
        .ok_or_else(|| {
            format!(
                "ddSMT not found ({} nor in PATH): install it with `bash checkers/install.sh`",
                venv.display()
            )
        })
}

/// Run ddSMT on `input` for at most `seconds`; the smaller failing file it
/// reached, or `None` (with a note saying why, where it is not plain).
pub fn run(
    input: &[u8],
    judge: &Judge,
    settings: &Settings,
    seconds: f64,
    cancel: &AtomicBool,
    notes: &mut Vec<String>,
) -> Option<Vec<u8>> {
    let mut note = |s: String| {
        notes.push(format!(
            "term-level pass not done: {s}; the assertion-level reproducer is kept"
        ))
    };
    let program = match locate(settings) {
        Ok(p) => p,
        Err(why) => {
            note(why);
            return None;
        }
    };
    let dir = match tempfile::tempdir() {
        Ok(d) => d,
        Err(e) => {
            note(format!("cannot create a scratch folder: {e}"));
            return None;
        }
    };
    let (spec, infile, outfile) = (
        dir.path().join("spec.json"),
        dir.path().join("in.smt2"),
        dir.path().join("out.smt2"),
    );
    if let Err(e) = judge
        .write_spec(&spec)
        .and_then(|_| Ok(std::fs::write(&infile, input)?))
    {
        note(format!("cannot write its files: {e:#}"));
        return None;
    }
    let per_test = judge.spec.solver_time + judge.spec.checker_time * 2.0 + 5.0;
    let args = vec![
        "--jobs".to_string(),
        "1".into(),
        "--ignore-output".into(),
        "--timeout".into(),
        format!("{per_test:.1}"),
        infile.to_string_lossy().into_owned(),
        outfile.to_string_lossy().into_owned(),
        settings.coreval.to_string_lossy().into_owned(),
        "shrink-judge".into(),
        spec.to_string_lossy().into_owned(),
    ];
    let mut run = RunSpec::new(program, args, Duration::from_secs_f64(seconds.max(1.0)));
    run.workdir = Some(dir.path().to_path_buf());
    let out = runner::run(&run, cancel);
    let failed = !out.timed_out && !out.cancelled && out.exit.code() != Some(0);
    if failed {
        let tail = String::from_utf8_lossy(&out.stderr);
        let last: Vec<&str> = tail.lines().rev().take(3).collect();
        let last: Vec<&str> = last.into_iter().rev().collect();
        note(format!(
            "ddSMT failed ({}): {}",
            crate::campaign::ledger::records::exit_text::format(&out.exit),
            last.join(" | ")
        ));
        return None;
    }
    let reached = std::fs::read(&outfile).ok()?;
    if reached.len() >= input.len() {
        return None;
    }
    match judge.judge(&reached, cancel) {
        Ok(j) if j.fails => Some(reached),
        _ => None,
    }
}
