//! Certifying a checker's `sat` on a core-only benchmark: the checker is
//! run once more, asked for its model (`(set-option :produce-models
//! true)` before the script, `(get-model)` after its `check-sat`, or the
//! definition's `model_options` for a checker that rejects those
//! commands), and the model is checked against the core-only benchmark:
//! by [`crate::model`]'s evaluation, or, where that cannot decide, by
//! checkers of other teams given the core's assertions with the model's
//! values as definitions ([`with_model`]). The second run happens only
//! after a `sat`, so valid cores (all `unsat`) cost nothing more; asking
//! every run for a model instead would turn each `unsat` into an error
//! line after the answer (z3: `model is not available`, exit code 1),
//! which the check stage does not count. The model of a run is kept as
//! `cores/models/<core>.model-<checker>.smt2` ([`kept_model`]), for the
//! reports that show it; [`model_run`] asks for one again where a cached
//! certification left none.

use crate::answer::{self, Answer};
use crate::campaign::setup::Campaign;
use crate::campaign::verdict::certification::{Certification, Unproven, BY_COREVAL};
use crate::checkers::SolverDef;
use crate::model::{self, sexp::Sexp, ModelCheck};
use crate::runner::{self, RunOutcome};
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

/// The certification of `k`'s `sat` on the core-only benchmark `core`
/// (`file` is what `k` read: the core or its dialect variant), and the
/// CPU seconds its runs took. `others` are checkers of other teams that
/// may settle a model the evaluator cannot, in order of preference.
/// The model the checker printed is kept as
/// `cores/models/<file stem>.<checker>.model`, its path (relative to the
/// campaign folder) put in `kept` (left `None` when it printed none or it
/// could not be written).
pub fn certify(
    c: &Campaign,
    k: &SolverDef,
    core: &Path,
    file: &Path,
    others: &[&SolverDef],
    cancel: &AtomicBool,
    kept: &mut Option<String>,
) -> (Certification, f64) {
    let uncertified = Certification::uncertified;
    let script = match std::fs::read(core) {
        Ok(s) => s,
        Err(e) => {
            let why = format!("cannot read {}: {e}", core.display());
            return (uncertified(Unproven::OwnFault, why), 0.0);
        }
    };
    let (text, mut cpu) = match asked(c, k, file, cancel) {
        (Ok(t), cpu) => (t, cpu),
        (Err((reason, why)), cpu) => return (uncertified(reason, why), cpu),
    };
    // The evidence: what the checker printed as its model, kept beside the
    // core for the report of a refutation ([`kept_model`]).
    *kept = write_beside(c, core, &model_tag(&k.name), "smt2", text.as_bytes())
        .ok()
        .map(|p| crate::campaign::ledger::records::relative_to(&p.display().to_string(), &c.dir));
    let env = match model::read_model(&text) {
        Ok(env) => env,
        Err(why) => {
            let why = format!("no model: {why}");
            return (uncertified(Unproven::UnreadableModel, why), cpu);
        }
    };
    let (reason, why) = match model::check(&script, env) {
        ModelCheck::Satisfies => {
            return (
                Certification::Certified {
                    by: BY_COREVAL.into(),
                },
                cpu,
            )
        }
        ModelCheck::Violates { assertion, text } => {
            let why = format!("assertion {assertion} is false under the model: {text}");
            return (
                Certification::ModelRejected {
                    by: BY_COREVAL.into(),
                    why,
                },
                cpu,
            );
        }
        ModelCheck::Incomplete { missing } => (
            Unproven::IncompleteModel,
            format!(
                "the model leaves out {} and the defaults do not fit",
                missing.join(", ")
            ),
        ),
        ModelCheck::Unsupported(what) => (Unproven::Undecided, format!("not evaluated ({what})")),
        ModelCheck::Unreadable(e) => {
            let why = format!("not evaluated: {e}");
            return (uncertified(Unproven::UnreadableModel, why), cpu);
        }
    };
    let Ok(entries) = model::entries(&text) else {
        return (uncertified(reason, why), cpu);
    };
    let mut tried = Vec::new();
    for j in others.iter().take(2) {
        let (verdict, used) = by_checker(c, j, core, &script, &entries, cancel);
        cpu += used;
        match verdict {
            Ok(cert) => return (cert, cpu),
            Err(answered) => tried.push(format!("{} answered {answered}", j.name)),
        }
    }
    let why = if tried.is_empty() {
        format!("{why}; no checker of another team to settle it")
    } else {
        format!("{why}; with the model as definitions {}", tried.join(", "))
    };
    (uncertified(reason, why), cpu)
}

/// `k`'s model of `file` (the core or its dialect variant): the text after
/// its `sat` line, or why there is none; and the CPU seconds of the run.
pub fn model_run(
    c: &Campaign,
    k: &SolverDef,
    file: &Path,
    cancel: &AtomicBool,
) -> (Result<String, String>, f64) {
    let (text, cpu) = asked(c, k, file, cancel);
    (text.map_err(|(_, why)| why), cpu)
}

/// `k` as run for a model: its model options take the place of its core
/// options (a run that wants cores adds them).
pub fn model_def(k: &SolverDef) -> SolverDef {
    let mut def = k.clone();
    def.core_options = k.model_options.clone();
    def
}

/// [`model_run`], with the kind of reason when there is no model.
fn asked(
    c: &Campaign,
    k: &SolverDef,
    file: &Path,
    cancel: &AtomicBool,
) -> (Result<String, (Unproven, String)>, f64) {
    let asking = match model_script(c, k, file) {
        Ok(p) => p,
        Err(e) => {
            let why = format!("cannot write the model script: {e:#}");
            return (Err((Unproven::OwnFault, why)), 0.0);
        }
    };
    let def = model_def(k);
    let spec = crate::campaign::setup::solvers::spec_for(&def, &asking, c, c.checker_time, true);
    let out = runner::run(&spec, cancel);
    (model_text(&out, k), out.cpu)
}

/// The model text after the `sat` line of the model run, or why there is none.
fn model_text(out: &RunOutcome, k: &SolverDef) -> Result<String, (Unproven, String)> {
    if out.cancelled {
        return Err((Unproven::OwnFault, "the model run was stopped".into()));
    }
    if let Some(why) = out.start_failure() {
        let why = format!("the model run could not be started: {why}");
        return Err((Unproven::OwnFault, why));
    }
    if out.timed_out {
        return Err((Unproven::ModelTimedOut, "the model run timed out".into()));
    }
    let parsed = answer::parse_streams(&out.stdout, &out.stderr, k.answer_stream);
    if parsed.answer != Answer::Sat {
        let why = format!(
            "the model run answered {} (the first run said sat)",
            answer_name(parsed.answer)
        );
        return Err((Unproven::AnsweredOtherwise, why));
    }
    let stdout = String::from_utf8_lossy(&out.stdout);
    let rest: String = stdout
        .lines()
        .skip_while(|l| l.trim() != "sat")
        .skip(1)
        .collect::<Vec<_>>()
        .join("\n");
    if rest.trim().is_empty() {
        return Err((Unproven::NoModel, "the checker printed no model".into()));
    }
    Ok(rest)
}

/// An answer's journal name (`sat`, `unknown`, `timeout`…).
fn answer_name(a: Answer) -> String {
    serde_json::to_value(a)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

/// `file` with the model asked for, as `cores/models/<file stem>.<checker>.smt2`.
/// The script that asks `k` for its model of `file` (the core-only
/// benchmark or its dialect variant): `file` with `(get-model)` after its
/// `check-sat`, written beside the core (`cores/models/`).
pub fn model_script(c: &Campaign, k: &SolverDef, file: &Path) -> anyhow::Result<PathBuf> {
    let src = std::fs::read(file)?;
    let rejects = |cmd: &str| k.unsupported_commands.iter().any(|x| x == cmd);
    let mut out = Vec::with_capacity(src.len() + 64);
    if !rejects("set-option") {
        out.extend_from_slice(b"(set-option :produce-models true)\n");
    }
    for cmd in crate::smtlib::scanner::commands(&src).map_err(|e| anyhow::anyhow!("{e}"))? {
        out.extend_from_slice(&cmd.text);
        out.push(b'\n');
        let head = crate::smtlib::lexer::command_head(&cmd.text);
        if head == Some(b"check-sat") && !rejects("get-model") {
            out.extend_from_slice(b"(get-model)\n");
        }
    }
    write_beside(c, file, &k.name, "smt2", &out)
}

/// Where certification keeps the model checker `checker` printed for the
/// core-only benchmark `core` (`cores/models/<hash>.model-<checker>.smt2`)
/// when its `sat` was certified in this campaign.
pub fn kept_model(c: &Campaign, core: &Path, checker: &str) -> PathBuf {
    beside(c, core, &model_tag(checker), "smt2")
}

fn model_tag(checker: &str) -> String {
    format!("model-{checker}")
}

/// Write `bytes` as `cores/models/<file stem>.<tag>.<ext>` (atomically:
/// two checkers may write the same file).
fn write_beside(
    c: &Campaign,
    file: &Path,
    tag: &str,
    ext: &str,
    bytes: &[u8],
) -> anyhow::Result<PathBuf> {
    std::fs::create_dir_all(c.cores_dir().join("models"))?;
    let path = beside(c, file, tag, ext);
    crate::store::journal::write_atomic(&path, bytes)?;
    Ok(path)
}

/// `cores/models/<file stem>.<tag>.<ext>`, the tag made a safe file name.
fn beside(c: &Campaign, file: &Path, tag: &str, ext: &str) -> PathBuf {
    let dir = c.cores_dir().join("models");
    let stem = file.file_stem().and_then(|s| s.to_str()).unwrap_or("core");
    let tag: String = tag
        .chars()
        .map(|ch| {
            if ch.is_ascii_alphanumeric() || ch == '-' {
                ch
            } else {
                '_'
            }
        })
        .collect();
    dir.join(format!("{stem}.{tag}.{ext}"))
}

/// Ask checker `j` whether the core's assertions hold with the model's
/// values as definitions: `Ok` with its certification when it answered
/// `sat` or `unsat`, else `Err` with what it answered.
fn by_checker(
    c: &Campaign,
    j: &SolverDef,
    core: &Path,
    script: &[u8],
    entries: &[Sexp],
    cancel: &AtomicBool,
) -> (Result<Certification, String>, f64) {
    let Some(text) = with_model(script, entries) else {
        return (Err("nothing (the script cannot be read)".into()), 0.0);
    };
    let path = match write_beside(
        c,
        core,
        &format!("defs-{}", j.name),
        "smt2",
        text.as_bytes(),
    ) {
        Ok(p) => p,
        Err(e) => {
            return (
                Err(format!("nothing (cannot write the script: {e:#})")),
                0.0,
            )
        }
    };
    let spec = crate::campaign::setup::solvers::spec_for(j, &path, c, c.checker_time, false);
    let out = runner::run(&spec, cancel);
    let p = answer::parse_streams(&out.stdout, &out.stderr, j.answer_stream);
    let (a, note) = super::classify_output(&p);
    let shown = crate::campaign::ledger::records::relative_to(&path.display().to_string(), &c.dir);
    let r = match (a, out.timed_out) {
        (crate::campaign::verdict::policy::CheckAnswer::Sat, false) => {
            Ok(Certification::Certified { by: j.name.clone() })
        }
        (crate::campaign::verdict::policy::CheckAnswer::Unsat, false) => {
            Ok(Certification::ModelRejected {
                by: j.name.clone(),
                why: format!(
                "the core's assertions with the model's values as definitions are unsat ({shown})"
            ),
            })
        }
        _ if out.timed_out => Err("nothing in time".into()),
        _ => Err(note.unwrap_or_else(|| answer_name(p.answer))),
    };
    (r, out.cpu)
}

/// The core-only script with each declared symbol the model defines
/// replaced by the model's definition; the model's other entries (its
/// auxiliary functions and sort elements) go before the first of them.
/// `None` when the script cannot be read.
pub fn with_model(script: &[u8], entries: &[Sexp]) -> Option<String> {
    let cmds = model::sexp::parse_all(script).ok()?;
    let name = |d: &Sexp| {
        d.list()
            .and_then(|v| v.get(1))
            .and_then(Sexp::sym)
            .map(str::to_string)
    };
    let mut known: HashSet<String> = HashSet::new();
    for c in &cmds {
        if let Some(n) = name(c) {
            known.insert(n);
        }
        collect_names(c, &mut known);
    }
    let defined: std::collections::HashMap<String, &Sexp> =
        entries.iter().filter_map(|e| Some((name(e)?, e))).collect();
    let mut aux: Vec<&Sexp> = entries
        .iter()
        .filter(|e| name(e).is_some_and(|n| !known.contains(&n)))
        .collect();
    let mut out = String::new();
    for c in &cmds {
        let decl = matches!(c.head(), Some("declare-fun" | "declare-const"));
        match name(c).filter(|_| decl).and_then(|n| defined.get(&n)) {
            Some(def) => {
                for a in aux.drain(..) {
                    out.push_str(&format!("{a}\n"));
                }
                out.push_str(&format!("{def}\n"));
            }
            None => out.push_str(&format!("{c}\n")),
        }
    }
    Some(out)
}

/// The `:named` names of a command.
fn collect_names(t: &Sexp, into: &mut HashSet<String>) {
    let Some(v) = t.list() else { return };
    for w in v.windows(2) {
        if let (Sexp::Atom(crate::smtlib::lexer::TokenKind::Keyword, k), Some(n)) =
            (&w[0], w[1].sym())
        {
            if k == ":named" {
                into.insert(n.to_string());
            }
        }
    }
    for x in v {
        crate::process::deep::deep(|| collect_names(x, into));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_core_nested_a_hundred_thousand_deep_takes_the_model_without_overflow() {
        use crate::process::deep::{nested_not, on_small_stack};
        let n = 100_000;
        let script = format!(
            "(declare-fun p () Bool)(assert (! {} :named a1))(check-sat)",
            nested_not(n)
        );
        let s = on_small_stack(move || {
            let e = model::entries("((define-fun p () Bool true))").unwrap();
            with_model(script.as_bytes(), &e).unwrap()
        });
        assert!(
            s.starts_with("(define-fun p () Bool true)\n(assert (! (not (not"),
            "{}",
            &s[..80]
        );
    }

    #[test]
    fn model_values_replace_declarations_and_auxiliaries_come_first() {
        let script =
            b"(set-logic QF_UF)(declare-sort U 0)(declare-fun u () U)(declare-fun p () Bool)\
            (assert (! (= u u) :named a1))(check-sat)";
        let model =
            "((declare-fun U!val!0 () U)(define-fun a1 () Bool true)(define-fun u () U U!val!0))";
        let e = model::entries(model).unwrap();
        let s = with_model(script, &e).unwrap();
        assert_eq!(
            s,
            "(set-logic QF_UF)\n(declare-sort U 0)\n(declare-fun U!val!0 () U)\n(define-fun u () U U!val!0)\n\
             (declare-fun p () Bool)\n(assert (! (= u u) :named a1))\n(check-sat)\n"
        );
    }
}
