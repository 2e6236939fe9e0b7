//! A plain folder of solver outputs, one file per pair:
//! `<root>/<solver>/<benchmark id>.out` (the benchmark id may contain
//! folders). There are no times in such a folder: every run counts as
//! complete with c = w = 0. Files that do not end in `.out` are reported.

use super::{BenchmarkLookup, Import, Issue, RawRun};
use crate::campaign::verdict::pair::RunStatus;
use anyhow::{Context, Result};
use std::path::{Path, PathBuf};

/// How to read the folder.
pub struct FolderOptions<'a> {
    /// Benchmark id → division and assertion count.
    pub lookup: BenchmarkLookup<'a>,
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("cannot read {}", dir.display()))?
        .map(|e| e.map(|e| e.path()))
        .collect::<std::io::Result<_>>()
        .with_context(|| format!("cannot read {}", dir.display()))?;
    entries.sort();
    for p in entries {
        if p.file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with('.'))
        {
            continue;
        }
        if p.is_dir() {
            walk(&p, out)?;
        } else {
            out.push(p);
        }
    }
    Ok(())
}

/// Import every `<solver>/<benchmark id>.out` below `root`.
pub fn import_dir(root: &Path, opts: &FolderOptions<'_>) -> Result<Import> {
    let mut files = Vec::new();
    walk(root, &mut files)?;
    let mut out = Import::default();
    for file in files {
        let rel = file.strip_prefix(root).unwrap_or(&file);
        let mut comps = rel.iter().filter_map(|c| c.to_str());
        let solver = comps.next().unwrap_or("").to_string();
        let rest: Vec<&str> = comps.collect();
        let issue = |message: String| Issue {
            file: file.clone(),
            line: None,
            message,
        };
        let joined = rest.join("/");
        let Some(benchmark) = joined.strip_suffix(".out").filter(|b| !b.is_empty()) else {
            out.issues
                .push(issue("not <solver>/<benchmark id>.out; skipped".into()));
            continue;
        };
        let Some(info) = (opts.lookup)(benchmark) else {
            out.issues.push(issue(format!(
                "benchmark `{benchmark}` is not known (no division or assertion count)"
            )));
            continue;
        };
        let bytes = match crate::store::regular::read(&file) {
            Ok(b) => b,
            Err(e) => {
                out.issues.push(issue(format!("unreadable: {e}")));
                continue;
            }
        };
        let run = RawRun {
            solver: &solver,
            benchmark,
            output: crate::answer::parse_output(&bytes),
            status: RunStatus::Complete,
            cpu: 0.0,
            wall: 0.0,
            memory: 0,
            origin: file.display().to_string(),
        };
        out.pairs.push(run.into_record(info));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::campaign::verdict::pair::Verdict;
    use crate::import::BenchmarkInfo;

    #[test]
    fn one_file_per_pair() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("yices/QF_UF/fam")).unwrap();
        std::fs::create_dir_all(root.join("cvc5/QF_UF/fam")).unwrap();
        std::fs::write(root.join("yices/QF_UF/fam/a.smt2.out"), "unsat\n(x y)\n").unwrap();
        std::fs::write(root.join("cvc5/QF_UF/fam/a.smt2.out"), "sat\n").unwrap();
        std::fs::write(root.join("cvc5/notes.txt"), "hello").unwrap();
        std::fs::write(root.join("cvc5/QF_UF/fam/other.smt2.out"), "unsat\n").unwrap();
        let lookup = |b: &str| {
            (b == "QF_UF/fam/a.smt2").then(|| BenchmarkInfo {
                division: "QF_UF".into(),
                assertions: 3,
            })
        };
        let imp = import_dir(root, &FolderOptions { lookup: &lookup }).unwrap();
        let got: Vec<(&str, Verdict)> = imp
            .pairs
            .iter()
            .map(|p| (p.solver.as_ref(), p.verdict.clone()))
            .collect();
        assert_eq!(
            got,
            vec![("cvc5", Verdict::SatAnswer), ("yices", Verdict::Unchecked)]
        );
        assert_eq!(imp.pairs[1].core_size, Some(2));
        assert_eq!(imp.issues.len(), 2);
        assert!(imp
            .issues
            .iter()
            .any(|i| i.message.contains("not <solver>/<benchmark id>.out")));
        assert!(imp
            .issues
            .iter()
            .any(|i| i.message.contains("`QF_UF/fam/other.smt2` is not known")));
    }
}
