//! Finding benchmarks under a root, their stable ids and their families.
//!
//! The id of a benchmark is its path relative to the root, with `/` as the
//! separator; every output file and record is named after it. Discovery is
//! sorted by id so that every run sees the same order. Symbolic links to
//! files are followed; a symbolic link to a directory is followed only when
//! it resolves inside the root and not to a directory already being walked
//! (no escape, no cycle); others are reported in [`Discovery::skipped`], as
//! are files and folders whose names are not UTF-8. Other odd bytes
//! (newlines, `$`, `;`, spaces) are kept: an id is only ever data, joined to
//! a folder through [`crate::store::safepath::safe_join`].

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// One benchmark file found under the root.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BenchmarkFile {
    /// Path relative to the root, `/`-separated.
    pub id: String,
    /// Path to open.
    pub path: PathBuf,
}

/// The result of [`discover`].
#[derive(Clone, Debug, Default)]
pub struct Discovery {
    /// The benchmarks, sorted by id.
    pub files: Vec<BenchmarkFile>,
    /// Directory links not followed, broken links, link loops, unreadable
    /// entries, and `.smt2` names that are not regular files (a FIFO would
    /// block), with the reason.
    pub skipped: Vec<(PathBuf, String)>,
    /// Regular files that look like benchmarks under another extension
    /// (`.SMT2`, `.smt`): not benchmarks, but worth a hint when nothing
    /// else is found.
    pub near_misses: Vec<PathBuf>,
}

/// Why a file or folder whose name is not UTF-8 is skipped.
pub const NOT_UTF8: &str = "its name is not valid UTF-8 (benchmark ids are text)";

/// All `.smt2` files under `root` (or `root` itself when it is a file, with
/// its file name as id).
pub fn discover(root: &Path) -> Result<Discovery> {
    let meta =
        std::fs::metadata(root).with_context(|| format!("cannot read {}", root.display()))?;
    let mut out = Discovery::default();
    if !meta.is_file() && !meta.is_dir() {
        anyhow::bail!(
            "{} is not a benchmark file or folder: {}",
            root.display(),
            crate::store::regular::kind(&meta)
        );
    }
    if meta.is_file() {
        let id = root
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        out.files.push(BenchmarkFile {
            id,
            path: root.to_path_buf(),
        });
        return Ok(out);
    }
    let canon_root = root
        .canonicalize()
        .with_context(|| format!("cannot resolve {}", root.display()))?;
    let mut walking = vec![canon_root.clone()];
    walk(root, "", &canon_root, &mut walking, &mut out)?;
    out.files.sort_by(|a, b| a.id.cmp(&b.id));
    Ok(out)
}

fn walk(
    dir: &Path,
    prefix: &str,
    root: &Path,
    walking: &mut Vec<PathBuf>,
    out: &mut Discovery,
) -> Result<()> {
    let entries =
        std::fs::read_dir(dir).with_context(|| format!("cannot list {}", dir.display()))?;
    for entry in entries {
        let entry = entry.with_context(|| format!("cannot list {}", dir.display()))?;
        let path = entry.path();
        let utf8 = entry.file_name().to_str().is_some();
        let name = entry.file_name().to_string_lossy().into_owned();
        let id = if prefix.is_empty() {
            name.clone()
        } else {
            format!("{prefix}/{name}")
        };
        let ftype = entry
            .file_type()
            .with_context(|| format!("cannot stat {}", path.display()))?;
        let is_link = ftype.is_symlink();
        // The entry's own type (from the folder listing, no `stat`) is
        // enough for a plain file or folder: a walk of 200 000 benchmarks
        // saves as many `stat` calls. A link is followed with `stat`; a
        // link that leads nowhere is neither a file nor a directory: skip
        // it, saying why.
        let (is_file, is_dir) = if ftype.is_file() || ftype.is_dir() {
            (ftype.is_file(), ftype.is_dir())
        } else {
            let meta = match std::fs::metadata(&path) {
                Ok(meta) => meta,
                Err(e) => {
                    out.skipped.push((path, unresolved(is_link, &e)));
                    continue;
                }
            };
            if name.ends_with(".smt2") && !meta.is_file() && !meta.is_dir() {
                // A FIFO would block the open(), a device read forever.
                let why = format!("{}, not a regular file", crate::store::regular::kind(&meta));
                out.skipped.push((path, why));
                continue;
            }
            (meta.is_file(), meta.is_dir())
        };
        let lower = name.to_ascii_lowercase();
        if is_file
            && !name.ends_with(".smt2")
            && (lower.ends_with(".smt2") || lower.ends_with(".smt"))
        {
            out.near_misses.push(path.clone());
        }
        let wanted = is_dir || (is_file && name.ends_with(".smt2"));
        if wanted && !utf8 {
            // Decoded lossily, two such names could share an id.
            out.skipped.push((path, NOT_UTF8.into()));
            continue;
        }
        if is_dir {
            let canon = path
                .canonicalize()
                .with_context(|| format!("cannot resolve {}", path.display()))?;
            if is_link && !canon.starts_with(root) {
                out.skipped.push((
                    path,
                    format!("links outside the root, to {}", canon.display()),
                ));
                continue;
            }
            if walking.contains(&canon) {
                out.skipped
                    .push((path, format!("links back to {}", canon.display())));
                continue;
            }
            walking.push(canon);
            // As deep as the tree is (up to PATH_MAX, ~2 000 levels of
            // 700 B), on a worker thread in `selfcheck`: see `crate::process::deep`.
            crate::process::deep::deep(|| walk(&path, &id, root, walking, out))?;
            walking.pop();
        } else if is_file && name.ends_with(".smt2") {
            out.files.push(BenchmarkFile { id, path });
        }
    }
    Ok(())
}

/// Why an entry whose `stat` failed is skipped: a broken link, a link loop,
/// or an unreadable entry.
fn unresolved(is_link: bool, e: &std::io::Error) -> String {
    match e.raw_os_error() {
        Some(libc::ELOOP) => "symbolic link loop (too many levels of links)".into(),
        Some(libc::ENOENT) if is_link => "broken link (its target does not exist)".into(),
        _ => format!("unreadable: {e}"),
    }
}

/// Which grouping of benchmarks counts as a family.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Family {
    /// The first folder below the logic folder (rules text, 000 §6):
    /// `QF_LIA/fam/sub/x.smt2` → `fam`.
    #[default]
    FirstFolder,
    /// The benchmark's whole directory below the root, what the 2016
    /// scoring used: `QF_LIA/fam/sub/x.smt2` → `QF_LIA/fam/sub`.
    Directory,
}

/// Both family definitions of one benchmark.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Families {
    /// [`Family::FirstFolder`].
    pub first_folder: String,
    /// [`Family::Directory`].
    pub directory: String,
}

impl Families {
    /// The families of benchmark `id` found under `root`, whose logic is
    /// `logic`.
    ///
    /// The logic folder is the first folder of the id named like the logic
    /// (`large/QF_LIA/pb2010/x.smt2` → `pb2010`). When there is none, the
    /// root itself is taken as the logic folder (a root named `QF_LIA`, or a
    /// collection without logic folders): the family is then the id's first
    /// folder. A file directly in its logic folder has the family `.`, and
    /// so has, for [`Family::Directory`], a file directly in the root.
    pub fn of(id: &str, logic: Option<&str>) -> Families {
        let parts: Vec<&str> = id.split('/').collect();
        let dirs = &parts[..parts.len().saturating_sub(1)];
        let below = match logic.and_then(|l| dirs.iter().position(|d| *d == l)) {
            Some(i) => &dirs[i + 1..],
            None => dirs,
        };
        let first_folder = below.first().copied().unwrap_or(".").to_string();
        let directory = if dirs.is_empty() {
            ".".to_string()
        } else {
            dirs.join("/")
        };
        Families {
            first_folder,
            directory,
        }
    }

    /// The family under definition `which`.
    pub fn get(&self, which: Family) -> &str {
        match which {
            Family::FirstFolder => &self.first_folder,
            Family::Directory => &self.directory,
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_tree_as_deep_as_paths_allow_is_walked_on_a_small_stack() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_path_buf();
        // 400 levels of a ~700-byte frame need more than the 256 KiB
        // stack (PATH_MAX allows ~2 000; resolving each level's path then
        // takes minutes).
        let depth = 400;
        let mut deepest = root.clone();
        for _ in 0..depth {
            deepest.push("d");
        }
        std::fs::create_dir_all(&deepest).unwrap();
        std::fs::write(deepest.join("x.smt2"), "(check-sat)\n").unwrap();
        let found = crate::process::deep::on_small_stack(move || {
            super::discover(&root).unwrap().files.len()
        });
        assert_eq!(found, 1, "a tree {depth} folders deep");
    }
}
