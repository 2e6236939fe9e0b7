//! One `[[solver]]` entry of `campaign.toml` as written, and what can be
//! wrong with it before anything runs (its name, team and how it is run).

use crate::campaign::setup::config_lines::{bad_value, BadValue, Key};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// One solver under test: a definition from `checkers/` or an inline command.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SolverEntry {
    /// Name used in journals and reports.
    pub name: String,
    /// A definition in the checkers folder (its core options are added).
    pub definition: Option<String>,
    /// Or an inline command template (`{file}`, `{timeout}`, `{seed}`…).
    pub command: Option<Vec<String>>,
    /// Or a BenchExec result file (`….results.RUNDEF.TASKS.xml[.bz2]`)
    /// whose runs are imported instead of run
    /// ([`crate::campaign::setup::benchexec`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub benchexec: Option<PathBuf>,
    /// The logs of `benchexec` (a folder or a `.zip` of it); default:
    /// BenchExec's `.logfiles/` or `.logfiles.zip` beside the result file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub benchexec_logs: Option<PathBuf>,
    /// Team, for checker independence; default: the definition's team or the name.
    pub team: Option<String>,
    /// Extra arguments appended to the command.
    #[serde(default)]
    pub args: Vec<String>,
    /// Where the solver prints its answers (`stdout`, `stderr`, `both`);
    /// default: the definition's, `stdout` for a command.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer_stream: Option<crate::answer::AnswerStream>,
    /// Its working folder (selfcheck: where it started); default: an empty one per run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workdir: Option<PathBuf>,
    /// More teams it belongs to (selfcheck: those of the programs seen running).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub teams: Vec<String>,
    /// Runs come from the cross-campaign [`crate::solve::cache`] (selfcheck's references).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub cached: bool,
    /// Run records list the programs seen in its process tree (selfcheck's solver).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub observe: bool,
    /// A reference solver (selfcheck's): its core on a benchmark is checked
    /// only where it could be smaller than every validated core of the
    /// other solvers there (none validated, or all larger); elsewhere it
    /// stays unchecked, as it could change neither a verdict nor the
    /// benchmark's best-known core.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub reference: bool,
}

/// What is wrong with the `i`-th `[[solver]]` entry `s` (`seen`: the names
/// of the entries before it).
pub(super) fn solver_problems<'a>(
    i: usize,
    s: &'a SolverEntry,
    seen: &mut std::collections::HashSet<&'a str>,
) -> Vec<BadValue> {
    let mut problems = Vec::new();
    let mut bad = |key, text: String| problems.push(bad_value(Key::Solver(i, key), text));
    let name = &s.name;
    if name.is_empty() || name.contains('/') || name.starts_with('.') {
        bad(
            "name",
            format!("solver name '{name}' must be non-empty, without '/' and not start with '.'"),
        );
    }
    if name.chars().any(char::is_control) {
        bad("name", format!("solver name {name:?} holds a control character (a newline, NUL…): names appear in journals and reports"));
    }
    if let Some(t) = (s.team.as_deref()).filter(|t| t.chars().any(char::is_control)) {
        bad(
            "team",
            format!("solver '{name}': team {t:?} holds a control character"),
        );
    }
    if !seen.insert(name) {
        bad("name", format!("solver '{name}' is listed twice"));
    }
    let ways = [
        s.definition.is_some(),
        s.command.is_some(),
        s.benchexec.is_some(),
    ];
    let problem = match (&s.definition, &s.command, &s.benchexec) {
        _ if ways.iter().filter(|w| **w).count() > 1 => Some((
            if s.benchexec.is_some() { "benchexec" } else { "command" },
            "give one of `definition`, `command` or `benchexec`, not several",
        )),
        (None, None, None) => Some((
            "",
            "needs a `definition` (a checkers/*.toml name), a `command`, or a `benchexec` result file",
        )),
        (None, Some(c), _) if c.is_empty() => Some(("command", "`command` is empty")),
        (_, _, None) if s.benchexec_logs.is_some() => Some((
            "benchexec_logs",
            "`benchexec_logs` goes with a `benchexec` result file",
        )),
        (_, _, Some(_)) if !s.args.is_empty() || s.answer_stream.is_some() => Some((
            "benchexec",
            "`args` and `answer_stream` do not apply to runs imported from BenchExec (the log holds what the tool printed)",
        )),
        _ => None,
    };
    if let Some((key, why)) = problem {
        bad(key, format!("solver '{name}': {why}"));
    }
    problems
}
