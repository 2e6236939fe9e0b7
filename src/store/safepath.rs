//! Paths built from data stay inside their folder.
//!
//! coreval names files after data it does not control: benchmark ids (file
//! names found under the benchmark root, any bytes but `/` and NUL), the
//! `output` field of `named/index.jsonl`, names in imported archives (a
//! BenchExec run set, a StarExec benchmark path). Every such path goes
//! through [`safe_join`], which accepts only a relative path of plain
//! components, so that an id like `../../etc/x.smt2`, `/tmp/x` or `a/./b`
//! can never make coreval read or write outside the campaign (or archive)
//! folder. Odd bytes (newlines, `$(…)`, `;`, non-UTF-8 decoded to U+FFFD)
//! are just bytes of a file name: coreval never hands a path or a name to a
//! shell. Core-only benchmarks are named by the hash of their content, never
//! by a name a solver printed.

use std::fmt;
use std::path::{Component, Path, PathBuf};

/// A relative path that would leave its base folder, or name no file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnsafePath {
    /// The offending path, as given.
    pub path: String,
    /// Why it is refused.
    pub why: &'static str,
}

impl fmt::Display for UnsafePath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unsafe path {:?}: {}", self.path, self.why)
    }
}

impl std::error::Error for UnsafePath {}

/// `base/rel`, provided `rel` is a non-empty relative path of plain
/// components: no `..`, no `.`, no root, no empty component (`a//b`), no
/// NUL byte. The check is lexical; the folders below `base` are coreval's
/// own (it creates them), so no link inside can lead elsewhere.
pub fn safe_join(base: &Path, rel: &str) -> Result<PathBuf, UnsafePath> {
    check(rel)?;
    Ok(base.join(rel))
}

/// Whether `rel` is acceptable to [`safe_join`].
pub fn check(rel: &str) -> Result<(), UnsafePath> {
    let refuse = |why| {
        Err(UnsafePath {
            path: rel.to_string(),
            why,
        })
    };
    if rel.is_empty() {
        return refuse("empty");
    }
    if rel.contains('\0') {
        return refuse("contains a NUL byte");
    }
    if rel.starts_with('/') {
        return refuse("absolute");
    }
    if rel.ends_with('/') || rel.split('/').any(str::is_empty) {
        return refuse("has an empty component");
    }
    for c in Path::new(rel).components() {
        match c {
            Component::Normal(_) => {}
            Component::ParentDir => return refuse("goes up with `..`"),
            Component::CurDir => return refuse("has a `.` component"),
            Component::RootDir | Component::Prefix(_) => return refuse("absolute"),
        }
    }
    // `Path::components` drops inner `.` components silently.
    if rel.split('/').any(|p| p == ".") {
        return refuse("has a `.` component");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_relative_paths_pass() {
        let base = Path::new("/c/named");
        for ok in [
            "QF_UF/a.smt2",
            "x.smt2",
            "..a/b..c/...smt2",
            "odd $(touch x); rm -rf ~ |a b|\n\u{fffd}.smt2",
            "QF_UF/.hidden.smt2",
        ] {
            assert_eq!(safe_join(base, ok).unwrap(), base.join(ok), "{ok:?}");
        }
    }

    #[test]
    fn escapes_are_refused() {
        for (bad, why) in [
            ("", "empty"),
            ("../x.smt2", "goes up"),
            ("QF_UF/../../x.smt2", "goes up"),
            ("a/..", "goes up"),
            ("..", "goes up"),
            ("/etc/passwd", "absolute"),
            ("//x", "absolute"),
            ("a//b", "empty component"),
            ("a/", "empty component"),
            ("./a", "`.`"),
            ("a/./b", "`.`"),
            ("a\0b", "NUL"),
        ] {
            let e = safe_join(Path::new("/c"), bad).unwrap_err();
            assert!(e.to_string().contains(why), "{bad:?}: {e}");
        }
    }
}
