//! Every shell example of README.md and docs/ runs here, with the real
//! solvers, and its shown output is compared where it is shown, so that
//! the documentation says what coreval does.
//!
//! In a Markdown file, a fenced block tagged `sh` (or `bash`) is a script:
//! it runs with `set -e` and must succeed. A block tagged `text` (or
//! `console`) whose first line starts with `$ ` is a session: each `$ `
//! line (with its `\` continuation lines) is a command, and the lines up to
//! the next `$ ` are its output (stdout and stderr together), compared line
//! by line; `…` stands for any text within a line, and a line holding only
//! `…` for any number of lines. Times (`0.187 s`) and the folder the
//! examples run in are normalised on both sides. A block that cannot run
//! on a plain clone says why in its tag: ```` ```sh no-run: needs a Slurm
//! cluster ````. The set-up block that installs the solvers (README's first,
//! what CI runs) is not run here.
//!
//! The blocks run in order — README.md first, then the docs — in one
//! folder holding a fresh copy of the bundled example (`examples/`), links
//! to `tests/`, `checkers/` and `divisions/`, a cache of its own and the
//! `coreval` of this build first on `PATH`. `COREVAL_DOC_EXAMPLES=FILE,…`
//! runs only the blocks of those files (while editing them).

mod common;

use std::path::PathBuf;
use std::process::Command;

/// The documents, in the order their examples run.
const DOCS: &[&str] = &[
    "README.md",
    "docs/organizers.md",
    "docs/authors.md",
    "docs/reference.md",
    "docs/reliability.md",
    "docs/performance.md",
    "docs/architecture.md",
];

/// A fenced block of shell text.
#[derive(Debug)]
struct Block {
    /// `FILE:LINE` of its opening fence.
    at: String,
    kind: Kind,
    text: String,
}

#[derive(Debug, PartialEq)]
enum Kind {
    Script,
    Session,
    /// Not run, for the reason given.
    NoRun(String),
}

/// The shell blocks of a Markdown text (other blocks — JSON, TOML, Rust,
/// output excerpts — are not examples to run).
fn blocks(file: &str, text: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let mut lines = text.lines().enumerate();
    while let Some((n, line)) = lines.next() {
        let Some(info) = line.strip_prefix("```") else {
            continue;
        };
        let mut body = Vec::new();
        for (_, l) in lines.by_ref() {
            if l.starts_with("```") {
                break;
            }
            body.push(l);
        }
        let text = body.join("\n") + "\n";
        let (tag, rest) = info.split_once(' ').unwrap_or((info, ""));
        let shell = matches!(tag, "sh" | "bash");
        let session = matches!(tag, "text" | "console") && text.starts_with("$ ");
        if !(shell || session || rest.starts_with("no-run")) {
            continue;
        }
        let kind = match rest.trim().strip_prefix("no-run") {
            Some(reason) => {
                let reason = reason.trim_start_matches(':').trim();
                assert!(
                    !reason.is_empty(),
                    "{file}:{}: a no-run block must say why",
                    n + 1
                );
                Kind::NoRun(reason.to_string())
            }
            None if shell => Kind::Script,
            None => Kind::Session,
        };
        out.push(Block {
            at: format!("{file}:{}", n + 1),
            kind,
            text,
        });
    }
    out
}

/// A session's commands (continuation lines joined) and their shown output.
fn steps(text: &str) -> Vec<(String, Vec<String>)> {
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        if let Some(cmd) = line.strip_prefix("$ ") {
            let mut cmd = cmd.to_string();
            while cmd.ends_with('\\') {
                cmd.pop();
                match lines.next() {
                    Some(next) => cmd.push_str(next),
                    None => break,
                }
            }
            out.push((cmd, Vec::new()));
        } else if let Some((_, shown)) = out.last_mut() {
            shown.push(line.to_string());
        }
    }
    out
}

/// The folder the examples run in.
struct Workspace {
    _tmp: tempfile::TempDir,
    dir: PathBuf,
}

impl Workspace {
    fn new() -> Workspace {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().canonicalize().unwrap();
        let repo = common::repo();
        for link in ["tests", "checkers", "divisions"] {
            std::os::unix::fs::symlink(repo.join(link), dir.join(link)).unwrap();
        }
        common::copy_example_campaign(&dir.join("examples/campaign"));
        Workspace { _tmp: tmp, dir }
    }

    /// Run `script` with bash in the workspace: its exit code and output.
    fn bash(&self, script: &str) -> (Option<i32>, String) {
        let bin = PathBuf::from(env!("CARGO_BIN_EXE_coreval"));
        let path = format!(
            "{}:{}",
            bin.parent().unwrap().display(),
            std::env::var("PATH").unwrap_or_default()
        );
        let out = Command::new("bash")
            .arg("-c")
            .arg(script)
            .current_dir(&self.dir)
            .env("PATH", path)
            .env("COREVAL_CACHE", self.dir.join(".cache-coreval"))
            .env("COREVAL_NO_PROGRESS", "1")
            .env_remove("COREVAL_CHECKERS")
            .output()
            .unwrap();
        let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
        text.push_str(&String::from_utf8_lossy(&out.stderr));
        (out.status.code(), text)
    }

    /// `text` with the workspace's path left out and times normalised.
    fn normalise(&self, text: &str) -> String {
        let ws = format!("{}/", self.dir.display());
        normalise_times(&text.replace(&ws, ""))
    }
}

/// `0.187 s`, `(1.8 s)`, `12 s` → `N s`.
fn normalise_times(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let starts = chars[i].is_ascii_digit() && (i == 0 || !chars[i - 1].is_alphanumeric());
        if starts {
            let mut j = i;
            while j < chars.len() && (chars[j].is_ascii_digit() || chars[j] == '.') {
                j += 1;
            }
            let unit = chars.get(j) == Some(&' ')
                && chars.get(j + 1) == Some(&'s')
                && chars.get(j + 2).is_none_or(|c| !c.is_alphanumeric());
            if unit {
                out.push_str("N s");
                i = j + 2;
                continue;
            }
            out.extend(&chars[i..j]);
            i = j;
            continue;
        }
        out.push(chars[i]);
        i += 1;
    }
    out
}

/// Whether `line` matches the shown `pattern`, where `…` stands for any text.
fn line_matches(pattern: &str, line: &str) -> bool {
    let (pattern, line) = (pattern.trim_end(), line.trim_end());
    let parts: Vec<&str> = pattern.split('…').collect();
    if parts.len() == 1 {
        return pattern == line;
    }
    let Some(mut rest) = line.strip_prefix(parts[0]) else {
        return false;
    };
    let last = parts.len() - 1;
    for (k, part) in parts.iter().enumerate().skip(1) {
        if k == last {
            return rest.len() >= part.len() && rest.ends_with(part);
        }
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    true
}

/// Whether the output `lines` match the `shown` lines (a line of `…` alone
/// stands for any number of lines).
fn lines_match(shown: &[String], lines: &[&str]) -> bool {
    match shown.split_first() {
        None => lines.iter().all(|l| l.trim().is_empty()),
        Some((first, rest)) if first.trim() == "…" => {
            (0..=lines.len()).any(|k| lines_match(rest, &lines[k..]))
        }
        Some((first, rest)) => {
            !lines.is_empty() && line_matches(first, lines[0]) && lines_match(rest, &lines[1..])
        }
    }
}

/// Run a session: every command in order in one shell, each one's output
/// compared with what the block shows.
fn session(ws: &Workspace, block: &Block) -> Result<(), String> {
    const MARK: &str = "@@coreval-doc-step@@";
    let steps = steps(&block.text);
    let mut script = String::new();
    for (cmd, _) in &steps {
        script.push_str(&format!(
            "{{ {cmd}\n}} 2>&1; __rc=$?; printf '\\n{MARK}\\n'; (exit $__rc)\n"
        ));
    }
    let (_, output) = ws.bash(&script);
    let output = ws.normalise(&output);
    let outputs: Vec<&str> = output.split(&format!("\n{MARK}\n")).collect();
    for (k, (cmd, shown)) in steps.iter().enumerate() {
        let got = outputs.get(k).copied().unwrap_or("");
        let lines: Vec<&str> = got.lines().collect();
        let shown: Vec<String> = shown.iter().map(|l| normalise_times(l)).collect();
        if !lines_match(&shown, &lines) {
            return Err(format!(
                "{}: `$ {cmd}` printed:\n{got}\n--- but the block shows:\n{}",
                block.at,
                shown.join("\n")
            ));
        }
    }
    Ok(())
}

#[test]
fn every_shell_example_runs_and_prints_what_it_shows() {
    let repo = common::repo();
    let ws = Workspace::new();
    let mut failures = Vec::new();
    let (mut ran, mut skipped) = (0, Vec::new());
    let only = std::env::var("COREVAL_DOC_EXAMPLES").ok();
    let only: Option<Vec<&str>> = only.as_deref().map(|o| o.split(',').collect());
    for doc in DOCS {
        if only.as_ref().is_some_and(|o| !o.contains(doc)) {
            continue;
        }
        let text = std::fs::read_to_string(repo.join(doc)).unwrap();
        for block in blocks(doc, &text) {
            match &block.kind {
                Kind::NoRun(reason) => {
                    skipped.push(format!("{}: {reason}", block.at));
                    continue;
                }
                // The set-up commands install software and run the whole
                // suite: CI runs them (.ci/run); tests/example.rs runs the
                // example they run.
                Kind::Script if block.text.contains("checkers/install.sh") => continue,
                Kind::Script => {
                    let (code, output) = ws.bash(&format!("set -e\n{}", block.text));
                    if code != Some(0) {
                        failures.push(format!(
                            "{}: exit code {code:?}:\n{}\n{}",
                            block.at,
                            block.text,
                            ws.normalise(&output)
                        ));
                    }
                }
                Kind::Session => {
                    if let Err(e) = session(&ws, &block) {
                        failures.push(e);
                    }
                }
            }
            ran += 1;
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    // The few that cannot run say why; they stay few.
    assert!(
        skipped.len() <= 5,
        "too many blocks not run:\n{}",
        skipped.join("\n")
    );
    assert!(only.is_some() || ran >= 10, "only {ran} examples ran");
}

#[test]
fn shown_output_is_matched_line_by_line() {
    let shown = |s: &[&str]| s.iter().map(|l| l.to_string()).collect::<Vec<_>>();
    assert!(lines_match(
        &shown(&["a …", "…", "z"]),
        &["a b", "x", "y", "z"]
    ));
    assert!(!lines_match(&shown(&["a …", "z"]), &["a b", "x", "z"]));
    assert!(!lines_match(&shown(&["a"]), &["a", "b"]));
    assert!(line_matches("FAIL … x.smt2", "FAIL refuted 0.1 s x.smt2"));
    assert!(!line_matches("FAIL … x.smt2", "PASS refuted x.smt2"));
    assert_eq!(
        normalise_times("0.187 s, (1.8 s) 12 s cv12 sat"),
        "N s, (N s) N s cv12 sat"
    );
    let b = blocks(
        "x.md",
        "```sh no-run: needs a cluster\nsbatch\n```\n```text\n$ a \\\n  b\nout\n```\n",
    );
    assert_eq!(b[0].kind, Kind::NoRun("needs a cluster".into()));
    assert_eq!(
        steps(&b[1].text),
        vec![("a   b".to_string(), vec!["out".to_string()])]
    );
}

/// GitHub's anchor of a heading: lower case, punctuation dropped, spaces
/// as `-`.
fn anchor(heading: &str) -> String {
    (heading.trim().to_lowercase().chars())
        .filter(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | ' '))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The anchors of a Markdown text's headings (outside code blocks).
fn anchors(text: &str) -> Vec<String> {
    let mut fenced = false;
    let mut out = Vec::new();
    for line in text.lines() {
        if line.starts_with("```") {
            fenced = !fenced;
        } else if !fenced && line.starts_with('#') {
            out.push(anchor(line.trim_start_matches('#')));
        }
    }
    out
}

#[test]
fn every_link_between_the_docs_resolves() {
    let repo = common::repo();
    let mut broken = Vec::new();
    for doc in DOCS {
        let text = std::fs::read_to_string(repo.join(doc)).unwrap();
        let here = repo.join(doc);
        for (i, _) in text.match_indices("](") {
            let rest = &text[i + 2..];
            let Some(end) = rest.find(')') else { continue };
            let link = &rest[..end];
            if link.contains("://") || link.contains(' ') {
                continue;
            }
            let (path, fragment) = link.split_once('#').unwrap_or((link, ""));
            let target = if path.is_empty() {
                here.clone()
            } else {
                here.parent().unwrap().join(path)
            };
            if !target.exists() {
                broken.push(format!("{doc}: {link}: no such file"));
                continue;
            }
            let markdown = target.extension().is_some_and(|e| e == "md");
            if !fragment.is_empty() && markdown {
                let text = std::fs::read_to_string(&target).unwrap();
                if !anchors(&text).iter().any(|a| a == fragment) {
                    broken.push(format!("{doc}: {link}: no such heading"));
                }
            }
        }
    }
    assert!(broken.is_empty(), "{}", broken.join("\n"));
}
