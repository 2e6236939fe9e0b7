//! What a FAIL (or a SKIP with a run behind it) needs to be repeated by copy
//! and paste, with nothing pointing into the temporary campaign: the named
//! benchmark the solver ran on and the core-only benchmark the checkers
//! decided on are copied into the keep folder (`--keep DIR`, default
//! [`DEFAULT_KEEP`] under the current folder), and the detail lines give
//!
//! - `solver: $ CMD`: the solver command as run, on the kept named file;
//! - `names printed (K): cv2 (file:5), cv3 (file:6) ×2, bogus (not an
//!   assertion name)`: each distinct name once, with its count and the line
//!   of its assertion in the author's file;
//! - `core-only benchmark: FILE`;
//! - `checker NAME answered WORD: $ CMD`: each checker's command on the
//!   kept core-only file (its dialect variant where it needs one);
//! - `model of NAME (FILE): x = 0, …` and `model asked of NAME: $ CMD`:
//!   the refuting model (in the author's symbols, [`crate::explain::Terms`]) and
//!   the run that asks for it again;
//! - `solver stderr, last lines:` and those lines, each after `| `.
//!
//! Commands are quoted like a POSIX shell reads them ([`shell_words`]) and
//! run from the folder selfcheck was started in (where the solver ran).

use super::inputs::Input;
use crate::answer::Answer;
use crate::campaign::ledger::index::IndexEntry;
use crate::campaign::ledger::records::RunRecord;
use crate::campaign::setup::solvers::SolverUnderTest;
use crate::campaign::setup::Campaign;
use crate::campaign::verdict::pair::PairVerdict;
use crate::campaign::verdict::policy::CheckAnswer;
use crate::checkers::{Invocation, SolverDef};
use crate::explain::{Author, Terms};
use crate::rebuild::Dialect;
use crate::scramble::map::DescrambleMap;
use anyhow::{Context, Result};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The keep folder when `--keep` is not given, below the current folder.
pub const DEFAULT_KEEP: &str = "coreval-selfcheck-kept";
/// Distinct names listed before `… N more`.
const NAMES_SHOWN: usize = 40;

/// What the reproduction of every benchmark shares.
pub struct Repro<'a> {
    /// The keep folder, as it is shown (relative to the current folder,
    /// or as given).
    pub keep: &'a Path,
    pub campaign: &'a Campaign,
    /// The `--solver` words as typed.
    pub solver_words: &'a [String],
    pub author: &'a SolverUnderTest,
    pub checkers: &'a [SolverDef],
}

impl Repro<'_> {
    /// Keep the files of one benchmark and return its detail lines.
    pub fn details(
        &self,
        input: &Input,
        entry: &IndexEntry,
        run: &RunRecord,
        verdict: Option<&PairVerdict>,
    ) -> Result<Vec<String>> {
        let mut out = Vec::new();
        let named = self.keep_named(input, entry)?;
        let (_, args) = self.author.def.command(&self.invocation(&named, true));
        let mut words = vec![self.solver_words[0].clone()];
        words.extend(args);
        out.push(format!("solver: $ {}", shell_words(&words)));
        if let Some(core) = &run.core {
            out.push(self.names(core, input, entry, &named));
        }
        if let Some(v) = verdict {
            out.extend(self.core_lines(input, entry, v, "")?);
        }
        out.extend(stderr_lines(run));
        Ok(out)
    }

    /// The lines of another solver's run that decided the author's verdict
    /// (a reference's validated core behind a `sat` FAIL): its command on
    /// the kept benchmark, its core's names, its core-only benchmark and
    /// each checker's command and answer.
    pub fn other_run(
        &self,
        input: &Input,
        entry: &IndexEntry,
        who: &SolverUnderTest,
        run: &RunRecord,
        verdict: &PairVerdict,
    ) -> Result<Vec<String>> {
        let named = self.keep_named(input, entry)?;
        let (program, args) = who.def.command(&self.invocation(&named, true));
        let mut words = vec![program.to_string_lossy().into_owned()];
        words.extend(args);
        let mut out = vec![format!(
            "{}'s run, which decides it: $ {}",
            who.name,
            shell_words(&words)
        )];
        if let Some(core) = &run.core {
            out.push(format!("  {}", self.names(core, input, entry, &named)));
        }
        let tag = format!(".{}", who.name);
        out.extend(
            self.core_lines(input, entry, verdict, &tag)?
                .into_iter()
                .map(|l| format!("  {l}")),
        );
        Ok(out)
    }

    /// The named benchmark the solvers ran on, kept as `KEEP/<id>`.
    fn keep_named(&self, input: &Input, entry: &IndexEntry) -> Result<PathBuf> {
        let c = self.campaign;
        let named_src = c
            .named_dir()
            .join(entry.output.as_deref().unwrap_or(input.id.as_str()));
        let named = self.keep.join(&input.id);
        copy(&named_src, &named)?;
        Ok(named)
    }

    fn invocation<'f>(&self, file: &'f Path, want_cores: bool) -> Invocation<'f> {
        let c = self.campaign;
        Invocation {
            file,
            timeout: if want_cores { c.time } else { c.checker_time },
            seed: 0,
            memory_mb: c.memory.map(|m| m / (1024 * 1024)),
            want_cores,
        }
    }

    /// `names printed …`, with the lines in the author's file (mapped back
    /// through the descrambling map of a scrambled benchmark).
    fn names(&self, core: &[String], input: &Input, entry: &IndexEntry, named: &Path) -> String {
        let map = self.descramble(entry);
        names_text(core, entry, input, map.as_ref().map(|m| (m, named)))
    }

    /// The descrambling map of a scrambled benchmark (`None` for one the
    /// solver read as written).
    pub fn descramble(&self, entry: &IndexEntry) -> Option<DescrambleMap> {
        entry.descramble.as_deref().and_then(|rel| {
            let path = crate::store::safepath::safe_join(&self.campaign.named_dir(), rel).ok()?;
            DescrambleMap::load(&path).ok()
        })
    }

    /// The author's terms for the file the solver read: places, names and
    /// symbols mapped back through the descrambling map of a scrambled one.
    pub fn terms(&self, entry: &IndexEntry, input: &Input) -> Terms {
        Terms::new(&input.shown, &input.source, self.descramble(entry))
    }

    /// The core-only benchmark (kept as `<stem><tag>.core.smt2`), each
    /// checker's command and answer on it, and the model behind a `sat`.
    fn core_lines(
        &self,
        input: &Input,
        entry: &IndexEntry,
        verdict: &PairVerdict,
        tag: &str,
    ) -> Result<Vec<String>> {
        let c = self.campaign;
        let mut out = Vec::new();
        let Some(hash) = verdict.core_hash.as_deref() else {
            return Ok(out);
        };
        let core_src = c.cores_dir().join(format!("{hash}.smt2"));
        let stem = input.id.strip_suffix(".smt2").unwrap_or(&input.id);
        let stem = format!("{stem}{tag}");
        let core = self.keep.join(format!("{stem}.core.smt2"));
        copy(&core_src, &core)?;
        out.push(format!("core-only benchmark: {}", core.display()));
        for (name, answer) in verdict.checkers.iter() {
            let Some(k) = self.checkers.iter().find(|k| &k.name == name) else {
                continue;
            };
            let file = match Dialect::new(k.accepts_named, &k.unsupported_commands) {
                None => core.clone(),
                Some(d) => match crate::rebuild::store_variant(&core_src, &d)? {
                    Ok(v) if v != core_src => {
                        let kept = self.keep.join(format!("{stem}.core.{}.smt2", d.id()));
                        copy(&v, &kept)?;
                        kept
                    }
                    _ => core.clone(),
                },
            };
            let (program, args) = k.command(&self.invocation(&file, false));
            let mut words = vec![program.to_string_lossy().into_owned()];
            words.extend(args);
            let word = answer_word(*answer, verdict.details.raw_answers.get(name).copied());
            out.push(format!(
                "checker {name} answered {word}: $ {}",
                shell_words(&words)
            ));
        }
        let terms = self.terms(entry, input);
        out.extend(self.model_lines(verdict, &core_src, &stem, &terms)?);
        Ok(out)
    }

    /// The model of the first checker whose `sat` was certified (else the
    /// first `sat`): the values of the core's symbols (in the author's
    /// symbols, `terms`), and the model kept as `<stem>.model-<checker>.smt2`
    /// (in the symbols the checker read).
    fn model_lines(
        &self,
        verdict: &PairVerdict,
        core_src: &Path,
        stem: &str,
        terms: &Terms,
    ) -> Result<Vec<String>> {
        use crate::campaign::verdict::certification::Certification;
        let sats: Vec<&String> = verdict
            .checkers
            .iter()
            .filter(|(_, a)| **a == CheckAnswer::Sat)
            .map(|(n, _)| n)
            .collect();
        let certified = |n: &&&String| {
            matches!(
                verdict.details.certifications.get(n.as_str()),
                Some(Certification::Certified { .. })
            )
        };
        let Some(name) = sats.iter().find(certified).or(sats.first()) else {
            return Ok(Vec::new());
        };
        let Some(k) = self.checkers.iter().find(|k| &k.name == *name) else {
            return Ok(Vec::new());
        };
        let c = self.campaign;
        let stored = crate::check::certify::kept_model(c, core_src, &k.name);
        // The file the checker reads: its dialect's variant where it needs one.
        let file = match Dialect::new(k.accepts_named, &k.unsupported_commands) {
            None => core_src.to_path_buf(),
            Some(d) => match crate::rebuild::store_variant(core_src, &d)? {
                Ok(v) => v,
                Err(_) => core_src.to_path_buf(),
            },
        };
        let (text, how) = match std::fs::read_to_string(&stored) {
            Ok(t) => (t, String::new()),
            Err(_) => {
                // The certification came from the cache: the model is asked again.
                let cancel = std::sync::atomic::AtomicBool::new(false);
                match crate::check::certify::model_run(c, k, &file, &cancel).0 {
                    Ok(t) => (t, ", asked again: its sat came from the cache".to_string()),
                    Err(why) => return Ok(vec![format!("model of {}: none ({why})", k.name)]),
                }
            }
        };
        let kept = self.keep.join(format!("{stem}.model-{}.smt2", k.name));
        if let Some(dir) = kept.parent() {
            std::fs::create_dir_all(dir)?;
        }
        std::fs::write(&kept, &text)
            .with_context(|| format!("cannot keep the model as {}", kept.display()))?;
        let script = std::fs::read(core_src).unwrap_or_default();
        let values: Vec<String> = crate::model::values(&text, &script)
            .iter()
            .map(|v| terms.symbols_in(v))
            .collect();
        let shown = match values.len() {
            0 => "no value of the core's symbols".to_string(),
            n if n > NAMES_SHOWN => format!(
                "{}, … {} more",
                values[..NAMES_SHOWN].join(", "),
                n - NAMES_SHOWN
            ),
            _ => values.join(", "),
        };
        let whose = match terms.scrambled() {
            true => ", in your symbols",
            false => "",
        };
        let mut out = vec![format!(
            "model of {} ({}{how}){whose}: {shown}",
            k.name,
            kept.display()
        )];
        // The run that asks for it again, on a kept copy of its script.
        let script = crate::check::certify::model_script(c, k, &file)?;
        let asking = self.keep.join(format!("{stem}.model-{}.ask.smt2", k.name));
        copy(&script, &asking)?;
        let invocation = Invocation {
            timeout: c.checker_time,
            ..self.invocation(&asking, true)
        };
        let (program, args) = crate::check::certify::model_def(k).command(&invocation);
        let mut words = vec![program.to_string_lossy().into_owned()];
        words.extend(args);
        out.push(format!(
            "model asked of {}: $ {}",
            k.name,
            shell_words(&words)
        ));
        Ok(out)
    }
}

/// `sat`, `unsat`, or what a checker that cast no vote printed.
fn answer_word(a: CheckAnswer, raw: Option<Answer>) -> String {
    match (a, raw) {
        (CheckAnswer::Sat, _) => "sat".into(),
        (CheckAnswer::Unsat, _) => "unsat".into(),
        (CheckAnswer::NotApplicable, _) => "not-applicable".into(),
        (CheckAnswer::Other, Some(r)) => super::outcome::answer_word(r).replace(' ', "-"),
        (CheckAnswer::Other, None) => "no-answer".into(),
    }
}

/// `solver stderr, last lines:` and each line after `| `.
fn stderr_lines(run: &RunRecord) -> Vec<String> {
    match &run.stderr_tail {
        Some(tail) => stderr_tail(tail),
        None => Vec::new(),
    }
}

/// `solver stderr, last lines:` and each of the last 10 lines of `stderr`
/// after `| ` (nothing when it is empty).
pub fn stderr_tail(stderr: &str) -> Vec<String> {
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    if lines.is_empty() {
        return Vec::new();
    }
    let mut out = vec!["solver stderr, last lines:".to_string()];
    out.extend(
        lines[lines.len().saturating_sub(10)..]
            .iter()
            .map(|l| format!("| {l}")),
    );
    out
}

/// The names of a core, each distinct one once, in the order first printed,
/// with its count when repeated and where its assertion is in the author's
/// file. With `scrambled` (the descrambling map and the scrambled file the
/// solver read), a name's position is mapped back to its original
/// assertion's line, and its line in the scrambled file follows.
pub fn names_text(
    core: &[String],
    entry: &IndexEntry,
    input: &Input,
    scrambled: Option<(&DescrambleMap, &Path)>,
) -> String {
    let names = entry.top_level_names();
    // The author's file is scanned once, by `terms`.
    let terms = Terms::new(
        &input.shown,
        &input.source,
        scrambled.map(|(m, _)| m.clone()),
    );
    let scrambled_lines = scrambled.map(|(_, f)| super::inputs::assertion_lines(f));
    let at = |i: usize| -> String {
        let Some((_, file)) = scrambled else {
            return terms.place(i);
        };
        let original = match (terms.original(i), terms.own_name(i)) {
            (Some(_), Some(own)) => format!("{}, your {own}", terms.place(i)),
            (Some(_), None) => terms.place(i),
            (None, _) => format!("scrambled assertion {} unmapped", i + 1),
        };
        match scrambled_lines.as_ref().and_then(|s| s.get(i)) {
            Some(l) => format!("{original}; scrambled {}:{l}", file.display()),
            None => original,
        }
    };
    let position: HashMap<&str, usize> = names
        .iter()
        .enumerate()
        .map(|(i, n)| (n.as_str(), i))
        .collect();
    let nested: Vec<&str> = entry.nested_names.iter().map(String::as_str).collect();
    let mut order: Vec<&str> = Vec::new();
    let mut count: HashMap<&str, usize> = HashMap::new();
    for n in core {
        let c = count.entry(n.as_str()).or_insert(0);
        if *c == 0 {
            order.push(n);
        }
        *c += 1;
    }
    let parts: Vec<String> = order
        .iter()
        .take(NAMES_SHOWN)
        .map(|n| {
            let shown = crate::smtlib::symbol::quote(n);
            let at = match position.get(n) {
                Some(&i) => at(i),
                None if nested.contains(n) => "names a nested term".into(),
                None => "not an assertion name".into(),
            };
            match count[n] {
                1 => format!("{shown} ({at})"),
                k => format!("{shown} ({at}) ×{k}"),
            }
        })
        .collect();
    let more = order.len().saturating_sub(NAMES_SHOWN);
    let tail = if more > 0 {
        format!(", … {more} more")
    } else {
        String::new()
    };
    if parts.is_empty() {
        return "names printed (0): none".into();
    }
    format!("names printed ({}): {}{tail}", core.len(), parts.join(", "))
}

/// Copy `from` to `to`, creating its folder.
pub fn copy(from: &Path, to: &Path) -> Result<()> {
    if let Some(dir) = to.parent() {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    std::fs::copy(from, to)
        .with_context(|| format!("cannot keep {} as {}", from.display(), to.display()))?;
    Ok(())
}

/// Words joined by spaces, each quoted only when a POSIX shell would read
/// it otherwise.
pub fn shell_words(words: &[String]) -> String {
    let shown: Vec<String> = words
        .iter()
        .map(|w| {
            let plain = !w.is_empty()
                && w.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%{}^".contains(c));
            if plain {
                w.clone()
            } else {
                shlex::try_quote(w)
                    .map(|q| q.into_owned())
                    .unwrap_or_else(|_| w.clone())
            }
        })
        .collect();
    shown.join(" ")
}

/// The keep folder: `--keep`, else [`DEFAULT_KEEP`].
pub fn keep_dir(given: Option<&Path>) -> PathBuf {
    given.map_or_else(|| PathBuf::from(DEFAULT_KEEP), Path::to_path_buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_quoted_only_when_needed() {
        let w: Vec<String> = ["z3", "-T:5", "a b.smt2", "it's", ""]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let s = shell_words(&w);
        assert_eq!(shlex::split(&s).unwrap(), w);
        assert!(s.starts_with("z3 -T:5 "), "{s}");
    }
}
