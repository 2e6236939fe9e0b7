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

/// This program as a command word that runs it from the current folder:
/// `coreval` when that is what `PATH` finds, else the path it was started
/// from.
pub fn this_program() -> String {
    let Some(exe) = std::env::current_exe()
        .ok()
        .and_then(|e| e.canonicalize().ok())
    else {
        return "coreval".into();
    };
    let found = std::env::var_os("PATH").and_then(|p| {
        std::env::split_paths(&p)
            .map(|d| d.join("coreval"))
            .find(|c| c.is_file())
    });
    match found.and_then(|c| c.canonicalize().ok()) {
        Some(c) if c == exe => "coreval".into(),
        _ => exe.to_string_lossy().into_owned(),
    }
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
    // The solver under test has the same name in every selfcheck: this
    // run's is the author's, an earlier run's may be anybody's.
    let sut = format!("{} (", super::SOLVER_NAME);
    if let Some(rest) = out.strip_prefix(&sut) {
        out = match rest.starts_with("this selfcheck") {
            true => format!("your solver ({rest}"),
            false => format!("the solver of {}", rest.trim_end_matches(')')),
        };
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

/// `text` as it may reach a terminal: every control character but tab
/// escaped (`\e`, `\a`, `\0`, `\r`, else `\xNN` / `\u{NNNN}`), so that
/// bytes a solver printed (ESC sequences, BEL, NUL) are shown, not obeyed.
pub fn printable(text: &str) -> String {
    if !text.chars().any(|c| c.is_control() && c != '\t') {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\t' => out.push(c),
            '\u{1b}' => out.push_str("\\e"),
            '\u{7}' => out.push_str("\\a"),
            '\0' => out.push_str("\\0"),
            '\r' => out.push_str("\\r"),
            '\n' => out.push_str("\\n"),
            c if c.is_control() && (c as u32) < 0x100 => {
                out.push_str(&format!("\\x{:02x}", c as u32))
            }
            c if c.is_control() => out.push_str(&format!("\\u{{{:04x}}}", c as u32)),
            c => out.push(c),
        }
    }
    out
}
