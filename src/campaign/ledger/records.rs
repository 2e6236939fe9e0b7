//! The journal records every stage writes and reads, and their file names:
//! `runs.jsonl` (solve), `cores.jsonl` and `checks.jsonl` (check). Each is
//! one JSON object per line, appended as work finishes.

use super::produced::Provenance;
use crate::answer::{self, Answer};
use crate::campaign::verdict::pair::RunStatus;
use crate::campaign::verdict::policy::CheckAnswer;
use crate::runner::Exit;
use serde::{Deserialize, Serialize};

/// File name of the runs journal.
pub const RUNS: &str = "runs.jsonl";

/// One finished (solver, benchmark) run: the journal record of `runs.jsonl`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct RunRecord {
    /// Solver name from the campaign config.
    pub solver: String,
    /// Benchmark id (path below the benchmark root).
    pub benchmark: String,
    /// The answer (`sat`, `unsat`, `unknown`, `timeout`, `error`, `no-answer`).
    pub answer: Answer,
    /// The core's names in normal form, in the order printed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub core: Option<Vec<String>>,
    /// After `unsat`, why the core printed is no list of symbols, and its
    /// line ([`answer::ParsedOutput::core_problem`]; `core` is then absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub core_problem: Option<answer::CoreProblem>,
    /// Output flags (errors before the answer, two answers, garbage…).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub flags: Vec<String>,
    /// `(error "…")` messages the solver printed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<String>,
    /// How the process ended; in the journal `exit N`, `signal N` or
    /// `failed to start: …` (left out for `exit 0`).
    #[serde(
        with = "exit_text",
        default = "exit_zero",
        skip_serializing_if = "is_exit_zero"
    )]
    pub exit: Exit,
    /// Killed at the time limit (any answer it printed is discarded).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub timed_out: bool,
    /// Ran out of the memory limit.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub memout: bool,
    /// The answer printed before the kill, when the run timed out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub late_answer: Option<Answer>,
    /// Wall-clock seconds (to the microsecond, [`micros`]).
    pub wall: f64,
    /// CPU seconds of the whole process tree.
    pub cpu: f64,
    /// Peak resident memory in bytes.
    pub max_rss: u64,
    /// Bytes of stdout beyond the cap (not kept).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub stdout_dropped: u64,
    /// Bytes of stderr beyond the cap (not kept).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub stderr_dropped: u64,
    /// Solver version, from its version probe.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub solver_version: Option<String>,
    /// When and in which slot it ran (absent in journals of earlier versions).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timing: Option<Timing>,
    /// The last lines the solver printed on stderr ([`output_tail`]), so a
    /// failure can be shown with them (selfcheck's printout, the report's
    /// evidence).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stderr_tail: Option<String>,
    /// The programs seen running in the solver's process tree (absolute,
    /// links resolved): a checker's program among them puts the solver in
    /// that checker's team.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub programs: Vec<String>,
    /// Taken from the cross-campaign run cache ([`crate::solve::cache`]), not
    /// run here.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub cached: bool,
    /// How coreval limited and measured it, as `"cgroup"`: `v1`, `v2`, or
    /// `none` for RLIMIT_AS and rusage (`crate::runner::cgroup`); absent
    /// for runs imported from elsewhere and in journals of earlier
    /// versions. (A short key: a campaign holds a million records.)
    #[serde(default, rename = "cgroup", skip_serializing_if = "Option::is_none")]
    pub measured: Option<crate::runner::cgroup::Measure>,
    /// What produced it (absent in journals of earlier versions: such a
    /// record is of an unknown configuration and is redone). Boxed: most
    /// of a record's size in memory when inline, and a campaign holds a
    /// million records.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provenance: Option<Box<Provenance>>,
    /// For an incremental script (`[naming] incremental`): what the solver
    /// printed on stdout, matched to the script's commands by the check
    /// stage (`answer` and `core` are then not used).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transcript: Option<String>,
    /// Where a run imported from elsewhere was read (`RESULT.xml.bz2:LINE`
    /// of a BenchExec result file); absent for a run made here.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub origin: Option<String>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

fn exit_zero() -> Exit {
    Exit::Exited(0)
}

fn is_exit_zero(e: &Exit) -> bool {
    *e == Exit::Exited(0)
}

/// Seconds to the microsecond: how a run record keeps its times (finer
/// digits are noise, and each costs a byte on every line).
pub fn micros(secs: f64) -> f64 {
    (secs * 1e6).round() / 1e6
}

/// When a run went and where: Unix seconds at the start and the end of the
/// runner's work for it (spawn to reaping), and the worker slot that ran
/// it (0 to `jobs - 1`); what the report's occupancy plots are drawn from.
/// Not part of a record's meaning: journals of two runs of one campaign
/// differ here, as in `wall` and `cpu`.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq)]
pub struct Timing {
    pub start: f64,
    pub end: f64,
    pub slot: usize,
}

/// Any journal record read for its [`Timing`] alone (the other fields are
/// skipped, nothing else is kept).
#[derive(Clone, Copy, Debug, Deserialize)]
pub struct Timed {
    #[serde(default)]
    pub timing: Option<Timing>,
}

impl Timing {
    /// The timing of a finished run in `slot`, to the millisecond.
    pub fn of(out: &crate::runner::RunOutcome, slot: usize) -> Timing {
        let ms = |t: f64| (t * 1000.0).round() / 1000.0;
        Timing {
            start: ms(out.start),
            end: ms(out.end),
            slot,
        }
    }
}

/// The kebab-case name of an output flag, as in the journals.
pub fn flag_name(f: &answer::OutputFlag) -> String {
    serde_json::to_value(f)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

/// `cores.jsonl`: which core-only benchmark a pair's core became.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CoreRecord {
    pub solver: String,
    pub benchmark: String,
    /// BLAKE3 hash of the core-only benchmark's bytes (its file name).
    pub hash: String,
    /// Named assertions kept.
    pub kept: u64,
    /// The run it was built from: [`super::provenance::core_source`]
    /// of the benchmark's hash and the core (absent in earlier journals:
    /// the core is rebuilt).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
}

/// `checks.jsonl` and the cache: one checker's answer on one core.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CheckRecord {
    pub hash: String,
    pub checker: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// Time limit in seconds.
    pub time_limit: f64,
    pub answer: CheckAnswer,
    /// The raw answer (`sat`, `unsat`, `unknown`, `timeout`, `error`, `no-answer`).
    pub raw: Answer,
    #[serde(with = "exit_text")]
    pub exit: Exit,
    pub wall: f64,
    pub cpu: f64,
    /// Taken from the cross-campaign cache, not run here.
    #[serde(default)]
    pub cached: bool,
    /// Why the answer is not the raw one (an answer after an error), or why
    /// the checker was not applicable.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// Output flags of the checker run (two answers, error before the answer…).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub flags: Vec<String>,
    /// Bytes of stdout and of stderr beyond the output cap (not kept: a
    /// checker that prints `unsat` and then a gigabyte is judged on what was
    /// kept, and the rest is counted here).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub stdout_dropped: u64,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub stderr_dropped: u64,
    /// The first lines the checker printed (stdout, then stderr), for the
    /// report's evidence of a failed pair.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<String>,
    /// When and in which slot the checker ran; absent for cached and
    /// not-applicable answers and in journals of earlier versions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timing: Option<Timing>,
    /// What produced the answer (absent in journals of earlier versions:
    /// such an answer is of an unknown checker build and is asked again).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provenance: Option<Provenance>,
    /// For a `sat`: whether its model satisfies the core (docs/organizers.md,
    /// "Certified refutations"); absent for other answers and in journals
    /// of earlier versions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub certification: Option<crate::campaign::verdict::certification::Certification>,
    /// For a `sat`: the model the checker printed when asked, kept as a
    /// file (relative to the campaign folder), the evidence behind its
    /// certification; absent when it printed none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
}

impl RunRecord {
    /// How the run ended: over the memory limit, at the time limit (also
    /// z3's own `timeout`), or by itself.
    pub fn status(&self) -> RunStatus {
        if self.memout {
            RunStatus::Memout
        } else if self.timed_out || self.answer == Answer::Timeout {
            RunStatus::Timeout
        } else {
            RunStatus::Complete
        }
    }
}

impl CheckRecord {
    /// The answer `policy` counts for this record: a `sat` whose model was
    /// rejected, or whose checker printed no model when asked, is no `sat`
    /// except under a past edition's preset (docs/organizers.md, "Certified
    /// refutations"; [`crate::campaign::verdict::certification::Certification::voids_sat`]).
    pub fn counted(&self, policy: crate::campaign::verdict::policy::Policy) -> CheckAnswer {
        let void = self
            .certification
            .as_ref()
            .is_some_and(|c| c.voids_sat(policy));
        if self.answer == CheckAnswer::Sat && void {
            CheckAnswer::Other
        } else {
            self.answer
        }
    }
}

/// What the detail views say of bytes dropped beyond the output cap
/// (`None` when nothing was).
pub fn dropped_note(stdout: u64, stderr: u64) -> Option<String> {
    let part = |n: u64, what: &str| (n > 0).then(|| format!("{n} bytes of {what}"));
    let parts: Vec<String> = [part(stdout, "stdout"), part(stderr, "stderr")]
        .into_iter()
        .flatten()
        .collect();
    (!parts.is_empty()).then(|| format!("[{} beyond the output cap dropped]", parts.join(" and ")))
}

/// File names of the check stage's journals.
pub const CORES: &str = "cores.jsonl";
pub const CHECKS: &str = "checks.jsonl";

/// Whether `h` is a BLAKE3 digest in lowercase hex, the only file names of `cores/`.
pub fn is_hash(h: &str) -> bool {
    h.len() == 64
        && h.bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// How the journals write an [`Exit`]: `exit N`, `signal N`, `failed to
/// start: …`. Reading also accepts the `Exited(N)` form that check records
/// of earlier versions (and so older caches) hold.
pub mod exit_text {
    use crate::runner::Exit;
    use serde::{Deserialize, Deserializer, Serializer};

    /// The journal text of an exit.
    pub fn format(e: &Exit) -> String {
        match e {
            Exit::Exited(c) => format!("exit {c}"),
            Exit::Signaled(s) => format!("signal {s}"),
            Exit::FailedToStart(m) => format!("failed to start: {m}"),
        }
    }

    /// An exit from its journal text; text of no known form is kept as a
    /// start failure, so that no record is lost over it.
    pub fn parse(t: &str) -> Exit {
        let num = |s: &str| s.trim().parse::<i32>().ok();
        let inner = |s: &str, head: &str| {
            s.strip_prefix(head)
                .and_then(|r| r.strip_prefix('('))
                .and_then(|r| r.strip_suffix(')'))
                .map(str::to_string)
        };
        if let Some(c) = t.strip_prefix("exit ").and_then(num) {
            Exit::Exited(c)
        } else if let Some(s) = t.strip_prefix("signal ").and_then(num) {
            Exit::Signaled(s)
        } else if let Some(m) = t.strip_prefix("failed to start: ") {
            Exit::FailedToStart(m.to_string())
        } else if let Some(c) = inner(t, "Exited").as_deref().and_then(num) {
            Exit::Exited(c)
        } else if let Some(s) = inner(t, "Signaled").as_deref().and_then(num) {
            Exit::Signaled(s)
        } else if let Some(m) = inner(t, "FailedToStart") {
            Exit::FailedToStart(m.trim_matches('"').to_string())
        } else {
            Exit::FailedToStart(t.to_string())
        }
    }

    pub fn serialize<S: Serializer>(e: &Exit, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&format(e))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Exit, D::Error> {
        Ok(parse(&String::deserialize(d)?))
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn journal_text_round_trips_and_reads_the_old_check_form() {
            for e in [
                Exit::Exited(0),
                Exit::Exited(-3),
                Exit::Signaled(9),
                Exit::FailedToStart("No such file".into()),
            ] {
                assert_eq!(parse(&format(&e)), e);
            }
            assert_eq!(parse("Exited(1)"), Exit::Exited(1));
            assert_eq!(parse("Signaled(11)"), Exit::Signaled(11));
            assert_eq!(
                parse("FailedToStart(\"x\")"),
                Exit::FailedToStart("x".into())
            );
            assert_eq!(parse("odd"), Exit::FailedToStart("odd".into()));
        }
    }
}

/// `text` with every mention of the folder `dir` (absolute, and with links
/// resolved) followed by `/` removed: paths inside it read as relative to it.
pub fn relative_to(text: &str, dir: &std::path::Path) -> String {
    let mut out = text.to_string();
    let mut forms = Vec::new();
    if let Ok(abs) = std::path::absolute(dir) {
        forms.push(abs);
    }
    if let Ok(canon) = dir.canonicalize() {
        forms.push(canon);
    }
    // Longest first, so an absolute form is not left half-replaced.
    forms.sort_by_key(|f| std::cmp::Reverse(f.as_os_str().len()));
    for f in forms {
        let prefix = format!("{}/", f.display());
        if f.is_absolute() && prefix.len() > 1 {
            out = out.replace(&prefix, "");
        }
    }
    out
}

/// The first `lines` lines (at most `bytes` bytes) of a run's stdout and
/// then its stderr, as text: what a report shows of a checker's output.
pub fn output_head(stdout: &[u8], stderr: &[u8], lines: usize, bytes: usize) -> Option<String> {
    let mut text = String::new();
    for stream in [stdout, stderr] {
        for line in String::from_utf8_lossy(stream).lines() {
            if text.lines().count() >= lines || text.len() + line.len() > bytes {
                break;
            }
            text.push_str(line);
            text.push('\n');
        }
    }
    (!text.is_empty()).then_some(text)
}

/// The last `lines` lines (at most `bytes` bytes, whole lines) of a
/// stream, as text; `None` when it printed nothing but blanks.
pub fn output_tail(stream: &[u8], lines: usize, bytes: usize) -> Option<String> {
    let text = String::from_utf8_lossy(stream);
    let mut kept: Vec<&str> = Vec::new();
    let mut size = 0;
    for line in text.lines().rev().filter(|l| !l.trim().is_empty()) {
        if kept.len() >= lines || size + line.len() > bytes {
            break;
        }
        size += line.len() + 1;
        kept.push(line);
    }
    kept.reverse();
    (!kept.is_empty()).then(|| kept.join("\n"))
}

#[cfg(test)]
mod output_tests {
    use super::*;

    #[test]
    fn campaign_paths_in_output_read_relative_and_head_is_bounded() {
        let dir = std::path::Path::new("/tmp/x/campaign");
        let text = "[btor] WARNING in '/tmp/x/campaign/cores/ab.smt2'\n/tmp/x/campaignother/y\n";
        assert_eq!(
            relative_to(text, dir),
            "[btor] WARNING in 'cores/ab.smt2'\n/tmp/x/campaignother/y\n"
        );
        let head = output_head(b"a\nb\nc\n", b"err\n", 3, 100).unwrap();
        assert_eq!(head, "a\nb\nc\n");
        assert_eq!(output_head(b"", b"", 3, 100), None);
        assert_eq!(output_tail(b"a\nb\n\nc\n", 2, 100).unwrap(), "b\nc");
        assert_eq!(output_tail(b"a\nbbbb\n", 5, 3), None);
        assert_eq!(output_tail(b"\n \n", 5, 100), None);
    }
}
