//! Version probe: run a definition's `version_command` once and read the
//! version from its output.
//!
//! This is the one place outside `runner.rs` that starts a process. The
//! probe is not a measured job (no limits to enforce, no CPU time to
//! account, output of a few lines), so it uses `std::process::Command`
//! directly with a fixed guard: the command runs in its own process group,
//! its pipes are drained on threads, and the group is killed after
//! [`PROBE_TIMEOUT`].

use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

/// How long a version command may run.
pub const PROBE_TIMEOUT: Duration = Duration::from_secs(10);

/// What a version command printed, or why it produced nothing usable.
pub(crate) struct ProbeOutput {
    pub stdout: String,
    pub stderr: String,
    pub success: bool,
}

fn drain(mut pipe: impl Read + Send + 'static) -> thread::JoinHandle<Vec<u8>> {
    thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = pipe.by_ref().take(1 << 20).read_to_end(&mut buf);
        buf
    })
}

/// Run `program args…` with stdin from /dev/null; `Err` says why it could
/// not start or did not finish in time.
pub(crate) fn run(program: &Path, args: &[String]) -> Result<ProbeOutput, String> {
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", program.display()))?;
    let out = child.stdout.take().map(drain);
    let err = child.stderr.take().map(drain);
    let start = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if start.elapsed() < PROBE_TIMEOUT => thread::sleep(Duration::from_millis(5)),
            _ => {
                // SAFETY: kill(2) on the child's own process group.
                unsafe { libc::kill(-(child.id() as i32), libc::SIGKILL) };
                let _ = child.wait();
                break None;
            }
        }
    };
    let text = |h: Option<thread::JoinHandle<Vec<u8>>>| {
        h.and_then(|h| h.join().ok())
            .map(|b| String::from_utf8_lossy(&b).into_owned())
            .unwrap_or_default()
    };
    let (stdout, stderr) = (text(out), text(err));
    match status {
        None => Err(format!(
            "{} --version did not finish in {PROBE_TIMEOUT:?}",
            program.display()
        )),
        Some(status) => Ok(ProbeOutput {
            stdout,
            stderr,
            success: status.success(),
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
