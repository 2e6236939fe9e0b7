//! The benchmarks `coreval selfcheck` is given, as solver authors write
//! them: which files they are, the name each keeps in the output, the safe
//! path it gets inside the temporary campaign, and the warnings its form
//! deserves (no `:status`, a `sat` status, a single assertion, its own
//! `:named` terms, `set-option`s). Warnings never exclude a benchmark.
//!
//! Every benchmark is shown as given: a file argument as typed, a file found
//! in a folder argument as the folder as typed joined with its path below
//! it. Inside the campaign its id is that path made relative and lexically
//! normalised (`/abs/x.smt2` → `abs/x.smt2`, `../x.smt2` → `_up/x.smt2`),
//! so no copy can land outside the campaign's benchmark folder.

use crate::benchmark::{Analyzer, Class};
use crate::campaign::ledger::index::IndexEntry;
use crate::smtlib::lexer::{Lexer, TokenKind};
use crate::smtlib::scanner::Scanner;
use anyhow::{bail, Context, Result};
use std::collections::{HashMap, HashSet};
use std::path::{Component, Path, PathBuf};

/// One benchmark to check.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Input {
    /// How the user named it: the name in the output and the JUnit testcase.
    pub shown: String,
    /// Its id inside the temporary campaign (relative, ends in `.smt2`).
    pub id: String,
    /// The file to copy.
    pub source: PathBuf,
}

/// The benchmarks named by `args` (files, or folders searched recursively
/// for `.smt2` files), in argument order, each file once. A path that does
/// not exist, or a folder without benchmarks, is a usage error.
pub fn collect(args: &[PathBuf], warn: &mut dyn FnMut(String)) -> Result<Vec<Input>> {
    let mut out: Vec<Input> = Vec::new();
    let mut seen: HashMap<PathBuf, String> = HashMap::new();
    let mut ids: HashSet<String> = HashSet::new();
    for arg in args {
        let meta = std::fs::metadata(arg)
            .with_context(|| format!("cannot read benchmark {}", arg.display()))?;
        let files: Vec<(String, PathBuf)> = if meta.is_dir() {
            let found = crate::benchmark::discover(arg)?;
            for (path, why) in &found.skipped {
                warn(format!("{}: not followed: {why}", path.display()));
            }
            if found.files.is_empty() {
                bail!("no .smt2 file under {}", arg.display());
            }
            found
                .files
                .into_iter()
                .map(|f| (shown_in(arg, &f.id), f.path))
                .collect()
        } else if !meta.is_file() {
            // A FIFO would block the open(), a device read forever.
            let kind = crate::store::regular::kind(&meta);
            warn(format!(
                "{}: {kind}, not a regular file: skipped",
                arg.display()
            ));
            continue;
        } else {
            vec![(arg.to_string_lossy().into_owned(), arg.clone())]
        };
        for (shown, source) in files {
            let canon = source.canonicalize().unwrap_or_else(|_| source.clone());
            if let Some(first) = seen.get(&canon) {
                warn(format!("{shown}: the same file as {first}: checked once"));
                continue;
            }
            seen.insert(canon, shown.clone());
            let base = safe_id(Path::new(&shown));
            let mut id = base.clone();
            let mut n = 1;
            while !ids.insert(id.clone()) {
                n += 1;
                id = format!("_{n}/{base}");
            }
            out.push(Input { shown, id, source });
        }
    }
    if out.is_empty() {
        bail!("no benchmark given");
    }
    Ok(out)
}

/// `dir` as given joined with `id` (a `/`-separated path below it).
fn shown_in(dir: &Path, id: &str) -> String {
    let d = dir.to_string_lossy();
    if d.is_empty() || d == "." {
        id.to_string()
    } else if d.ends_with('/') {
        format!("{d}{id}")
    } else {
        format!("{d}/{id}")
    }
}

/// A relative, normalised path for `p` that stays below any folder it is
/// joined to, ending in `.smt2` (discovery only finds those).
pub fn safe_id(p: &Path) -> String {
    let mut parts: Vec<String> = Vec::new();
    for c in p.components() {
        match c {
            Component::Prefix(_) | Component::RootDir | Component::CurDir => {}
            Component::ParentDir => {
                if parts.last().is_some_and(|l| l != "_up") {
                    parts.pop();
                } else {
                    parts.push("_up".into());
                }
            }
            Component::Normal(s) => parts.push(s.to_string_lossy().into_owned()),
        }
    }
    let mut id = if parts.is_empty() {
        "benchmark".to_string()
    } else {
        parts.join("/")
    };
    if !id.ends_with(".smt2") {
        id.push_str(".smt2");
    }
    id
}

/// Copy every input to `root/<id>`.
pub fn place(inputs: &[Input], root: &Path) -> Result<()> {
    for i in inputs {
        let target = root.join(&i.id);
        if let Some(dir) = target.parent() {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("cannot create {}", dir.display()))?;
        }
        std::fs::copy(&i.source, &target).with_context(|| {
            format!("cannot copy {} to {}", i.source.display(), target.display())
        })?;
    }
    Ok(())
}

/// What a benchmark's form deserves to be told, as `shown[:line:col]: …`
/// lines. `entry` is its naming index entry (a named benchmark).
pub fn warnings(input: &Input, entry: &IndexEntry) -> Vec<String> {
    let shown = &input.shown;
    let mut out = Vec::new();
    let scan = scan(&input.source);
    let at = |pos: Option<(u64, u64)>| match pos {
        Some((l, c)) => format!("{shown}:{l}:{c}"),
        None => shown.to_string(),
    };
    match entry.status.as_deref() {
        None => out.push(format!(
            "{shown}: no (set-info :status …): the verdict rests on the checkers alone"
        )),
        Some("unsat") => {}
        Some("sat") => out.push(format!(
            "{}: declared :status sat: an unsat answer will be a failure, a sat answer passes",
            at(scan.status_at)
        )),
        Some(s) => out.push(format!(
            "{}: declared :status {s}: the verdict rests on the checkers alone",
            at(scan.status_at)
        )),
    }
    if entry.assertions == 1 {
        out.push(format!(
            "{shown}: a single assertion: its only core is the whole benchmark (reduction 0)"
        ));
    }
    if !entry.kept_names.is_empty() {
        out.push(format!(
            "{shown}: {} assertion(s) keep their own :named name; the others are named {}N",
            entry.kept_names.len(),
            entry.prefix.as_deref().unwrap_or("")
        ));
    }
    if !entry.nested_names.is_empty() {
        out.push(format!(
            "{shown}: names nested terms ({}): a core listing them is ill-formed",
            entry.nested_names.join(", ")
        ));
    }
    for o in &scan.options {
        let what = if o.key == ":produce-unsat-cores" {
            "not copied: coreval writes (set-option :produce-unsat-cores true) itself, before set-logic"
        } else if o.removed {
            "removed: it would disturb the core run"
        } else {
            "kept: the solver and every checker see it"
        };
        out.push(format!(
            "{}: (set-option {} …) {what}",
            at(Some(o.at)),
            o.key
        ));
    }
    out
}

/// A `set-option` of a benchmark.
struct SetOption {
    key: String,
    at: (u64, u64),
    removed: bool,
}

#[derive(Default)]
struct Scan {
    options: Vec<SetOption>,
    status_at: Option<(u64, u64)>,
    /// The line of each top-level `assert`, in order.
    asserts: Vec<u64>,
}

/// The line of each top-level assertion of a file, in order: assertion
/// `N` (named `cvN`, or by its own name) is at `lines[N - 1]`.
pub fn assertion_lines(path: &Path) -> Vec<u64> {
    scan(path).asserts
}

/// The `set-option`s and the `:status` position of a file (a named file
/// is valid, so a scan error just ends the scan).
fn scan(path: &Path) -> Scan {
    let mut out = Scan::default();
    let Ok(file) = crate::store::regular::open(path) else {
        return out;
    };
    let mut scanner = Scanner::new(file);
    let mut analyzer = Analyzer::new();
    while let Ok(Some(cmd)) = scanner.next_command() {
        let class = analyzer.observe(&cmd).class;
        let head = cmd.head();
        if head == "assert" {
            out.asserts.push(cmd.line);
        }
        if head != "set-option" && head != "set-info" {
            continue;
        }
        let key = Lexer::new(&cmd.text)
            .nth(2)
            .and_then(|t| t.ok())
            .filter(|t| t.kind == TokenKind::Keyword)
            .map(|t| String::from_utf8_lossy(t.bytes(&cmd.text)).into_owned())
            .unwrap_or_default();
        if head == "set-info" {
            if key == ":status" {
                out.status_at = Some((cmd.line, cmd.column));
            }
        } else {
            out.options.push(SetOption {
                key,
                at: (cmd.line, cmd.column),
                removed: class == Class::Remove,
            });
        }
    }
    out
}

/// The folder a selfcheck works in: `workdir` (which must be new or empty;
/// it is kept), else a new temporary folder named `prefix…` (removed when
/// the returned guard drops).
pub fn work_folder(
    workdir: Option<&Path>,
    prefix: &str,
) -> Result<(Option<tempfile::TempDir>, PathBuf)> {
    if let Some(d) = workdir {
        if d.exists()
            && std::fs::read_dir(d)
                .map(|mut r| r.next().is_some())
                .unwrap_or(true)
        {
            bail!("--workdir {} must be a new or empty folder", d.display());
        }
        std::fs::create_dir_all(d).with_context(|| format!("cannot create {}", d.display()))?;
        // Absolute: solvers and checkers run in folders of their own, and a
        // relative path would name a file there.
        return Ok((None, std::path::absolute(d)?));
    }
    let t = tempfile::Builder::new()
        .prefix(prefix)
        .tempdir()
        .context("cannot create a temporary folder")?;
    let p = t.path().to_path_buf();
    Ok((Some(t), p))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_stay_below_the_root() {
        assert_eq!(safe_id(Path::new("a/b.smt2")), "a/b.smt2");
        assert_eq!(safe_id(Path::new("./a/./b.smt2")), "a/b.smt2");
        assert_eq!(safe_id(Path::new("/tmp/x/b.smt2")), "tmp/x/b.smt2");
        assert_eq!(safe_id(Path::new("../../b.smt2")), "_up/_up/b.smt2");
        assert_eq!(safe_id(Path::new("a/../../b.smt2")), "_up/b.smt2");
        assert_eq!(safe_id(Path::new("bench.txt")), "bench.txt.smt2");
    }

    #[test]
    fn folders_expand_and_files_dedupe() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::create_dir_all(d.join("f/sub")).unwrap();
        for p in ["f/a.smt2", "f/sub/b.smt2", "f/notes.txt"] {
            std::fs::write(d.join(p), "(check-sat)\n").unwrap();
        }
        let mut warned = Vec::new();
        let args = [d.join("f"), d.join("f/a.smt2")];
        let got = collect(&args, &mut |w| warned.push(w)).unwrap();
        let shown: Vec<&str> = got.iter().map(|i| i.shown.as_str()).collect();
        let f = d.join("f").to_string_lossy().into_owned();
        assert_eq!(shown, [format!("{f}/a.smt2"), format!("{f}/sub/b.smt2")]);
        assert!(got[0].id.ends_with("/f/a.smt2") && !got[0].id.starts_with('/'));
        assert_eq!(warned.len(), 1, "{warned:?}");
        assert!(warned[0].contains("the same file"));
        let e = collect(&[d.join("missing.smt2")], &mut |_| {}).unwrap_err();
        assert!(format!("{e:#}").contains("missing.smt2"));
        std::fs::create_dir(d.join("empty")).unwrap();
        let e = collect(&[d.join("empty")], &mut |_| {}).unwrap_err();
        assert!(e.to_string().contains("no .smt2 file"));
    }

    #[test]
    fn colliding_ids_are_kept_apart() {
        // `l/../b.smt2` with `l` a link to `x/y` is `x/b.smt2`, but its id
        // is normalised like the different file `b.smt2`.
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::create_dir_all(d.join("x/y")).unwrap();
        std::os::unix::fs::symlink(d.join("x/y"), d.join("l")).unwrap();
        std::fs::write(d.join("x/b.smt2"), "(check-sat)\n").unwrap();
        std::fs::write(d.join("b.smt2"), "(check-sat)\n").unwrap();
        let args = [d.join("l/../b.smt2"), d.join("b.smt2")];
        let got = collect(&args, &mut |_| {}).unwrap();
        assert_eq!(got.len(), 2);
        assert_eq!(got[0].id, safe_id(&d.join("b.smt2")));
        assert_eq!(got[1].id, format!("_2/{}", got[0].id));
    }
}
