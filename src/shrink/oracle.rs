//! Whether a candidate benchmark still makes the solver fail the same way,
//! decided fast: the candidate is named in memory, written once to a
//! scratch folder, the solver runs on it, the core is rebuilt there and the
//! checkers of other teams are asked directly (no campaign, no journal, no
//! cache, no certification run). The same judgement serves coreval's own
//! assertion-level pass ([`super::ddmin`]) in process and ddSMT through
//! the hidden `coreval shrink-judge SPEC FILE` (exit 0: still failing).
//!
//! | kind | still failing when |
//! |---|---|
//! | `refuted` | the solver answers `unsat` with a well-formed core, and the first checker that decides says `sat` on the core-only benchmark |
//! | `sat` | the solver answers `sat`, and the first checker that decides says `unsat` on the candidate |
//! | `ill-formed:R` | the solver answers `unsat` with a core that is ill-formed for reason R |
//!
//! A candidate that fails the strict check while the original passes it
//! ([`Spec::strict`]) is no failure, whatever the solver makes of it.

use crate::answer::{self, Answer, AnswerStream};
use crate::campaign::verdict::pair::IllFormed;
use crate::campaign::verdict::policy::CheckAnswer;
use crate::checkers::{Invocation, SolverDef};
use crate::name::{name_script, NameOptions};
use crate::runner::{self, RunSpec};
use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::Duration;

/// Everything a judgement needs, written as JSON for `shrink-judge`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Spec {
    /// The solver's definition (an inline command's, or a campaign's).
    pub solver: SolverDef,
    /// Where the solver runs (relative paths in its command).
    pub workdir: PathBuf,
    #[serde(default)]
    pub answer_stream: AnswerStream,
    /// The definitions folder of the checkers.
    pub checkers_dir: PathBuf,
    /// Checkers of other teams than the solver's, in the order asked.
    pub checkers: Vec<String>,
    /// Seconds per solver run and per checker run.
    pub solver_time: f64,
    pub checker_time: f64,
    /// The verdict label to keep (`refuted`, `sat`, `ill-formed:…`).
    pub kind: String,
    /// The logic a candidate must keep (ddSMT would mutate `QF_LIA` into
    /// `QF_`, which no checker takes): the original's, once judged.
    #[serde(default)]
    pub logic: Option<String>,
    /// Candidates must pass the strict check ([`crate::scope::strict_script`]:
    /// SMT-LIB 2.6 syntax, every symbol and sort in scope), as the original
    /// does, once judged: ddSMT deleting a `define-fun` that an assertion
    /// uses makes z3 skip that assertion with an error, which can keep the
    /// failure and would leave an invalid reproducer.
    #[serde(default)]
    pub strict: bool,
}

/// What kinds of failure can be shrunk.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Kind {
    Refuted,
    Sat,
    IllFormed(IllFormed),
}

fn kind_of(label: &str) -> Option<Kind> {
    match crate::campaign::verdict::pair::Verdict::from_label(label)? {
        crate::campaign::verdict::pair::Verdict::Refuted => Some(Kind::Refuted),
        crate::campaign::verdict::pair::Verdict::SatAnswer => Some(Kind::Sat),
        crate::campaign::verdict::pair::Verdict::IllFormed { reason }
            if reason != IllFormed::Unparsable =>
        {
            Some(Kind::IllFormed(reason))
        }
        _ => None,
    }
}

/// Whether failures of verdict `label` can be shrunk.
pub fn supported(label: &str) -> bool {
    kind_of(label).is_some()
}

/// A loaded [`Spec`]: the solver's and the checkers' definitions.
pub struct Judge {
    pub spec: Spec,
    kind: Kind,
    checkers: Vec<SolverDef>,
}

/// One judgement, and the seconds its solver and checker runs took.
#[derive(Clone, Debug, Default)]
pub struct Judgement {
    pub fails: bool,
    /// The candidate's `set-logic`.
    pub logic: Option<String>,
    pub solver_wall: f64,
    pub checker_wall: f64,
}

impl Judge {
    pub fn new(mut spec: Spec) -> Result<Judge> {
        // `{checkers}` in the solver's command (not serialised).
        if spec.solver.dir.as_os_str().is_empty() {
            spec.solver.dir = spec.checkers_dir.clone();
        }
        let Some(kind) = kind_of(&spec.kind) else {
            bail!("a failure of kind {} cannot be shrunk", spec.kind)
        };
        let defs = crate::checkers::load_dir(&spec.checkers_dir)?;
        let mut checkers = Vec::new();
        for n in &spec.checkers {
            match defs.iter().find(|d| &d.name == n) {
                Some(d) => checkers.push(d.clone()),
                None => bail!(
                    "no checker definition {n} in {}",
                    spec.checkers_dir.display()
                ),
            }
        }
        Ok(Judge {
            spec,
            kind,
            checkers,
        })
    }

    /// Read a spec written by [`Judge::write_spec`].
    pub fn load(path: &Path) -> Result<Judge> {
        let text =
            std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
        let spec: Spec = serde_json::from_slice(&text)
            .with_context(|| format!("{}: not a shrink spec", path.display()))?;
        Judge::new(spec)
    }

    pub fn write_spec(&self, path: &Path) -> Result<()> {
        crate::store::journal::write_atomic(path, &serde_json::to_vec_pretty(&self.spec)?)
    }

    /// Whether `candidate` still makes the solver fail the same way. `Err`
    /// only when the scratch folder cannot be used.
    pub fn judge(&self, candidate: &[u8], cancel: &AtomicBool) -> Result<Judgement> {
        let mut j = Judgement::default();
        if self.spec.strict && !crate::scope::strict_script(candidate, 1).is_empty() {
            return Ok(j);
        }
        let mut named = Vec::new();
        let opts = NameOptions {
            prefix: None,
            policy: crate::benchmark::Policy {
                min_assertions: 1,
                allow_no_status: true,
                named: crate::benchmark::NamedPolicy::Keep,
                accept_any_status: true,
                incremental: false,
            },
            strict: false,
            known_status: None,
        };
        let report = match name_script(std::io::Cursor::new(candidate), &mut named, &opts) {
            Ok(r) if r.eligible() => r,
            _ => return Ok(j),
        };
        j.logic = report.info.logic.clone();
        if self.spec.logic.is_some() && j.logic != self.spec.logic {
            return Ok(j);
        }
        let dir = tempfile::tempdir().context("cannot create a scratch folder")?;
        let file = dir.path().join("candidate.smt2");
        std::fs::write(&file, &named).context("cannot write a candidate")?;
        let (program, args) = self.spec.solver.command(&Invocation {
            file: &file,
            timeout: secs(self.spec.solver_time),
            seed: 0,
            memory_mb: None,
            want_cores: true,
        });
        let mut run = RunSpec::new(program, args, secs(self.spec.solver_time));
        run.workdir = Some(self.spec.workdir.clone());
        let out = runner::run(&run, cancel);
        j.solver_wall = out.wall;
        if out.timed_out || out.cancelled {
            return Ok(j);
        }
        let p = answer::parse_streams(&out.stdout, &out.stderr, self.spec.answer_stream);
        let top: HashSet<String> = report.names().into_iter().collect();
        let nested: HashSet<String> = report.nested_names.iter().cloned().collect();
        let core_only = |core: &HashSet<String>| -> Result<PathBuf> {
            let path = dir.path().join("core.smt2");
            let mut bytes = Vec::new();
            crate::rebuild::rebuild(
                named.as_slice(),
                &mut bytes,
                core,
                &crate::rebuild::numbered_with(&report.prefix),
            )?;
            std::fs::write(&path, bytes).context("cannot write a core-only candidate")?;
            Ok(path)
        };
        let (file, want) = match (&self.kind, p.answer, &p.core) {
            (Kind::Sat, Answer::Sat, _) => (core_only(&top)?, CheckAnswer::Unsat),
            (Kind::IllFormed(reason), Answer::Unsat, Some(core)) => {
                j.fails = match reason {
                    IllFormed::Empty => core.is_empty(),
                    r => answer::core_issues(core, &top, &nested).first() == Some(r),
                };
                return Ok(j);
            }
            (Kind::IllFormed(reason), Answer::Unsat, None) => {
                j.fails = p.core_problem.is_some_and(|c| c.reason == *reason);
                return Ok(j);
            }
            (Kind::Refuted, Answer::Unsat, Some(core))
                if !core.is_empty() && answer::core_issues(core, &top, &nested).is_empty() =>
            {
                (
                    core_only(&core.iter().cloned().collect())?,
                    CheckAnswer::Sat,
                )
            }
            _ => return Ok(j),
        };
        for k in &self.checkers {
            let (answer, wall) = self.ask(k, &file, cancel);
            j.checker_wall += wall;
            if matches!(answer, CheckAnswer::Sat | CheckAnswer::Unsat) {
                j.fails = answer == want;
                break;
            }
        }
        Ok(j)
    }

    /// Checker `k`'s answer on `file` (its dialect's variant where it
    /// needs one) and the seconds it took.
    fn ask(&self, k: &SolverDef, file: &Path, cancel: &AtomicBool) -> (CheckAnswer, f64) {
        let file = match crate::rebuild::Dialect::new(k.accepts_named, &k.unsupported_commands) {
            None => file.to_path_buf(),
            Some(d) => match crate::rebuild::store_variant(file, &d) {
                Ok(Ok(v)) => v,
                _ => return (CheckAnswer::NotApplicable, 0.0),
            },
        };
        let (program, args) = k.command(&Invocation {
            file: &file,
            timeout: secs(self.spec.checker_time),
            seed: 0,
            memory_mb: None,
            want_cores: false,
        });
        let out = runner::run(
            &RunSpec::new(program, args, secs(self.spec.checker_time)),
            cancel,
        );
        if out.timed_out || out.cancelled {
            return (CheckAnswer::Other, out.wall);
        }
        let p = answer::parse_streams(&out.stdout, &out.stderr, k.answer_stream);
        (crate::check::classify_output(&p).0, out.wall)
    }
}

fn secs(s: f64) -> Duration {
    Duration::from_secs_f64(s.clamp(0.1, 1e7))
}
