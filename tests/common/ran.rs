//! One finished `coreval` command as the selfcheck-level tests read it:
//! exit code, stdout and stderr, the detail lines under a result line, and
//! a dump for assertion messages.

use std::path::Path;

/// A finished command.
pub struct Ran {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Ran {
    /// The command's output; a panic of coreval fails the test here.
    pub fn of(out: std::process::Output) -> Ran {
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(!stderr.contains("panicked"), "{stderr}");
        Ran {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr,
        }
    }

    /// Everything, for an assertion's message.
    pub fn show(&self) -> String {
        format!(
            "exit {}\n--- stdout\n{}--- stderr\n{}",
            self.code, self.stdout, self.stderr
        )
    }

    /// The detail lines (trimmed) under the result line of `path`.
    pub fn block(&self, path: &str) -> Vec<&str> {
        let mut lines = self.stdout.lines().skip_while(|l| !l.ends_with(path));
        lines.next();
        lines
            .take_while(|l| l.starts_with("     "))
            .map(str::trim)
            .collect()
    }

    /// The first detail line of `path` that starts with `start`.
    pub fn detail(&self, path: &str, start: &str) -> Option<&str> {
        self.block(path).into_iter().find(|l| l.starts_with(start))
    }
}

/// `coreval ARGS` run from the repository root with its own answer cache
/// and the installed checkers, `env` set, within `timeout`.
pub fn coreval(args: &[&str], env: &[(&str, &str)], cache: &Path, timeout_s: u64) -> Ran {
    let mut cmd = assert_cmd::Command::cargo_bin("coreval").unwrap();
    cmd.current_dir(super::repo())
        .env("COREVAL_CACHE", cache)
        .env_remove("COREVAL_CHECKERS")
        .env_remove("COREVAL_DDSMT")
        .args(args)
        .timeout(std::time::Duration::from_secs(timeout_s));
    for (k, v) in env {
        cmd.env(k, v);
    }
    Ran::of(cmd.output().unwrap())
}
