//! Version probe: run a definition's `version_command` once and read the
//! version from its output. The command goes through the runner like every
//! other process (own group, capped output, group kill), with a fixed
//! wall-clock guard of [`PROBE_TIMEOUT`].

use crate::runner::{self, Exit};
use std::path::Path;
use std::time::Duration;

/// How long a version command may run.
pub const PROBE_TIMEOUT: Duration = Duration::from_secs(10);

/// What a version command printed, or why it produced nothing usable.
pub(crate) struct ProbeOutput {
    pub stdout: String,
    pub stderr: String,
    pub success: bool,
}

/// Run `program args…` with stdin from /dev/null; `Err` says why it could
/// not start or did not finish in time.
pub(crate) fn run(program: &Path, args: &[String]) -> Result<ProbeOutput, String> {
    let out = runner::run_short(program, args.to_vec(), PROBE_TIMEOUT);
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    match &out.exit {
        Exit::FailedToStart(why) => Err(format!("cannot start {}: {why}", program.display())),
        _ if out.timed_out => Err(format!(
            "{} --version did not finish in {PROBE_TIMEOUT:?}",
            program.display()
        )),
        exit => Ok(ProbeOutput {
            stdout: text(&out.stdout),
            stderr: text(&out.stderr),
            success: *exit == Exit::Exited(0),
        }),
    }
}

/// The version in `out`: the first capture group (or the whole match) of
/// `regex` searched in stdout then stderr, or else the first non-empty
/// line of stdout.
pub(crate) fn extract(out: &ProbeOutput, regex: Option<&regex::Regex>) -> Option<String> {
    match regex {
        Some(re) => [&out.stdout, &out.stderr].into_iter().find_map(|text| {
            let caps = re.captures(text)?;
            let m = caps.get(1).or_else(|| caps.get(0))?;
            Some(m.as_str().trim().to_owned())
        }),
        None => out
            .stdout
            .lines()
            .map(str::trim)
            .find(|l| !l.is_empty())
            .map(str::to_owned),
    }
    .filter(|v| !v.is_empty())
}

/// What a version probe found, kept for the process: keyed by the version
/// command and the files of both commands as they are now (path, size,
/// modification time, inode), so a replaced program is probed again.
pub(super) fn memo(
    argv: &[String],
    command: &[String],
    probe: impl FnOnce() -> super::Probe,
) -> super::Probe {
    use std::collections::HashMap;
    use std::os::unix::fs::MetadataExt;
    use std::sync::{Mutex, OnceLock};
    static SEEN: OnceLock<Mutex<HashMap<String, super::Probe>>> = OnceLock::new();
    let mut key = format!("{argv:?}");
    for word in argv.iter().chain(command) {
        if let Some(m) = super::resolve_program(word)
            .or_else(|| Some(std::path::PathBuf::from(word)))
            .and_then(|p| std::fs::metadata(p).ok())
            .filter(|m| m.is_file())
        {
            key.push_str(&format!(
                "|{word}:{}:{}:{}",
                m.len(),
                m.mtime_nsec() + m.mtime() * 1_000_000_000,
                m.ino()
            ));
        }
    }
    let seen = SEEN.get_or_init(Default::default);
    if let Some(p) = seen.lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
        return p.clone();
    }
    let p = probe();
    seen.lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(key, p.clone());
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extracts_with_and_without_regex() {
        let out = ProbeOutput {
            stdout: "\nThis is cvc5 version 1.0.3\ncompiled with GCC\n".into(),
            stderr: String::new(),
            success: true,
        };
        let re = regex::Regex::new(r"cvc5 version (\S+)").unwrap();
        assert_eq!(extract(&out, Some(&re)).as_deref(), Some("1.0.3"));
        assert_eq!(
            extract(&out, None).as_deref(),
            Some("This is cvc5 version 1.0.3")
        );
        let re = regex::Regex::new(r"Z3 version \S+").unwrap();
        assert_eq!(extract(&out, Some(&re)), None);
    }

    #[test]
    fn probe_reports_output_and_start_failures() {
        let out = run(
            Path::new("/bin/sh"),
            &["-c".into(), "echo 1.2; echo e >&2; exit 3".into()],
        )
        .unwrap();
        assert_eq!(
            (out.stdout.as_str(), out.stderr.as_str(), out.success),
            ("1.2\n", "e\n", false)
        );
        let err = run(Path::new("/nonexistent/solver"), &[]).err().unwrap();
        assert!(err.contains("cannot start /nonexistent/solver"), "{err}");
    }
}
