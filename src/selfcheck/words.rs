//! The words of `--solver`: split the shell way without a shell, checked
//! for `{file}`, and shown back to people; and the names of the temporary
//! campaign rewritten as the reader can find them.

use super::repro;
use anyhow::{bail, Result};
use std::path::Path;

/// The solver command's words: `{file}` required, a relative program path
/// made absolute (solvers run in their own working folders).
pub fn solver_command(words: &[String]) -> Result<Vec<String>> {
    let Some(program) = words.first() else {
        bail!("--solver is empty")
    };
    if !words.iter().any(|w| w.contains("{file}")) {
        bail!("--solver needs a {{file}} argument where the benchmark goes, e.g. --solver 'mysolver --cores {{file}}'");
    }
    let mut out = words.to_vec();
    if program.contains('/') && !Path::new(program).is_absolute() {
        out[0] = std::path::absolute(program)?.to_string_lossy().into_owned();
    }
    Ok(out)
}

/// The command for people: words joined by spaces, quoted only when needed.
pub(super) fn shown_command(words: &[String]) -> String {
    repro::shell_words(words)
}

/// A best-known core's origin as the reader can find it: this run's
/// temporary campaign is `this selfcheck`, an earlier one (deleted since)
/// `an earlier selfcheck`.
pub(super) fn origin_for_people(text: &str, dir: &Path) -> String {
    let mut out = text.replace("(this campaign", "(this selfcheck");
    if let Some(name) = dir.file_name().map(|n| n.to_string_lossy().into_owned()) {
        out = out.replace(&format!("({name}"), "(this selfcheck");
    }
    while let Some(at) = out.find("(coreval-selfcheck-") {
        let rest = &out[at + 1..];
        let end = rest.find([',', ')']).unwrap_or(rest.len());
        out = format!("{}(an earlier selfcheck{}", &out[..at], &rest[end..]);
    }
    out
}

/// Split a `--solver` string into words the POSIX shell way, without a shell.
pub fn split_command(s: &str) -> Result<Vec<String>> {
    match shlex::split(s) {
        Some(w) if !w.is_empty() => Ok(w),
        Some(_) => bail!("--solver is empty"),
        None => bail!("--solver: unbalanced quotes or a trailing backslash in {s:?}"),
    }
}
