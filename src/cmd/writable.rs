//! Output paths checked before any work starts: a command that runs every
//! solver and checker and only then finds it cannot write its `--junit`,
//! `--json` or `--keep` path (or read its `--baseline`) has lost the run.
//! Each check is what the later write needs, without writing the output
//! itself: a file's folder exists and takes a new file, a folder exists or
//! can be made below one that does, and is no file.

use anyhow::{bail, Result};
use std::path::Path;

/// Whether `path` can be written as a file later (atomically, beside it).
pub fn file(path: &Path) -> Result<()> {
    if path.is_dir() {
        bail!("is a folder, not a file");
    }
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    if !dir.is_dir() {
        bail!("its folder {} does not exist", dir.display());
    }
    takes_files(dir)
}

/// Whether `dir` is a folder, or can be made as one, that takes files.
pub fn folder(dir: &Path) -> Result<()> {
    let mut at = dir;
    loop {
        if at.is_dir() {
            return takes_files(at);
        }
        if at.exists() {
            bail!("{} is a file, not a folder", at.display());
        }
        match at.parent() {
            Some(p) if !p.as_os_str().is_empty() => at = p,
            _ => return takes_files(Path::new(".")),
        }
    }
}

/// A new file can be made in `dir` (made and removed at once).
fn takes_files(dir: &Path) -> Result<()> {
    match tempfile::Builder::new()
        .prefix(".coreval-probe-")
        .tempfile_in(dir)
    {
        Ok(_) => Ok(()),
        Err(e) => bail!("cannot write in {}: {e}", dir.display()),
    }
}

/// Every problem of `checks` (option, path, its check), one line each,
/// as one error; nothing when all pass.
pub fn all(checks: &[(&str, &Path, Result<()>)]) -> Result<()> {
    let problems: Vec<String> = checks
        .iter()
        .filter_map(|(opt, path, r)| {
            r.as_ref()
                .err()
                .map(|e| format!("{opt} {}: {e:#}", path.display()))
        })
        .collect();
    if problems.is_empty() {
        return Ok(());
    }
    bail!(
        "{} output problem(s), found before anything ran:\n{}",
        problems.len(),
        problems.join("\n")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_and_folders_are_checked_without_writing_them() {
        let d = tempfile::tempdir().unwrap();
        let a_file = d.path().join("f");
        std::fs::write(&a_file, "x").unwrap();
        assert!(file(&d.path().join("new.xml")).is_ok());
        assert!(file(d.path()).is_err(), "a folder");
        assert!(file(&d.path().join("missing/new.xml")).is_err());
        assert!(folder(&d.path().join("a/b/c")).is_ok());
        assert!(!d.path().join("a").exists(), "nothing made");
        assert!(folder(&a_file.join("kept")).is_err(), "below a file");
        assert!(folder(&a_file).is_err());
        let e = all(&[
            ("--junit", d.path(), file(d.path())),
            ("--keep", &a_file, folder(&a_file)),
        ])
        .unwrap_err();
        assert!(e.to_string().starts_with("2 output problem(s)"), "{e}");
    }
}
