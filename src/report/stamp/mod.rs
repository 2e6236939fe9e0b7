//! Whether a campaign's reports are current, so that a `coreval run` with
//! nothing to do does not score and render them again. Beside the reports,
//! `reports/.inputs.json` keeps a hash of everything they are made from —
//! this coreval (version and executable), the configuration and the files
//! it names, the campaign facts (programs, versions, teams), the named
//! index and every journal (size, modification time and inode: journals
//! only grow, and an edit changes the time), the report files asked for —
//! with the size and time of each report file written, and the warnings
//! scoring said and the verdict counts ([`Tally`]: a run that keeps the
//! reports prints them without judging again). The reports are current when the hash is the same and
//! every report file is as it was left.

use crate::campaign::ledger::Loaded;
pub mod tally;

use crate::report::Outputs;
use anyhow::Result;
use serde::{Deserialize, Serialize};
use std::path::Path;
pub use tally::Tally;

/// File name of the stamp, in the reports folder.
pub const STAMP: &str = ".inputs.json";

#[derive(Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Stamp {
    /// The hash of the inputs ([`inputs`]).
    pub inputs: String,
    /// Every report file: name, bytes, modification time (ns).
    pub files: Vec<(String, u64, u64)>,
    /// What scoring warned about, said again when the reports are kept.
    #[serde(default)]
    pub warnings: Vec<String>,
    /// The verdict counts the reports show, printed again when they are
    /// kept (a stamp without them: the pairs are judged again).
    #[serde(default)]
    pub tally: Option<Tally>,
}

/// Size, modification time (ns) and inode of a file, as text; `missing`
/// when it cannot be read.
fn stat(path: &Path) -> String {
    use std::os::unix::fs::MetadataExt;
    match std::fs::metadata(path) {
        Ok(m) => format!(
            "{} {} {} {} {}",
            path.display(),
            m.len(),
            m.mtime(),
            m.mtime_nsec(),
            m.ino()
        ),
        Err(_) => format!("{} missing", path.display()),
    }
}

/// Regular files of a folder, sorted (none when it cannot be listed).
fn files_of(dir: &Path) -> Vec<std::path::PathBuf> {
    entries(dir, Path::is_file)
}

/// Sub-folders of a folder, sorted.
fn subfolders(dir: &Path) -> Vec<std::path::PathBuf> {
    entries(dir, Path::is_dir)
}

/// The entries of a folder that `keep` says, sorted.
fn entries(dir: &Path, keep: fn(&Path) -> bool) -> Vec<std::path::PathBuf> {
    let mut out: Vec<_> = std::fs::read_dir(dir)
        .map(|rd| rd.flatten().map(|e| e.path()).filter(|p| keep(p)).collect())
        .unwrap_or_default();
    out.sort();
    out
}

/// The hash of what the reports of `l` to `outputs` are made from.
pub fn inputs(l: &Loaded, outputs: &Outputs) -> String {
    let c = l.campaign;
    let mut h = blake3::Hasher::new();
    let mut add = |part: &str| {
        h.update(part.as_bytes());
        h.update(b"\0");
    };
    add(concat!("coreval ", env!("CARGO_PKG_VERSION")));
    if let Ok(exe) = std::env::current_exe() {
        add(&stat(&exe));
    }
    add(&serde_json::to_string(&c.config).unwrap_or_default());
    add(&format!("{} {} {:?}", c.dir.display(), c.jobs, outputs));
    let named = [
        &c.config.check.validators_from,
        &c.config.score.participants,
        &c.config.score.divisions,
    ];
    for f in named.into_iter().flatten() {
        add(&stat(&c.dir.join(f)));
    }
    add(&serde_json::to_string(&crate::campaign::ledger::facts::Facts::of(l)).unwrap_or_default());
    let mut ids: Vec<String> = (l.current.solvers.iter())
        .chain(&l.current.checkers)
        .map(|(name, x)| format!("{name} {}", x.id))
        .collect();
    ids.sort();
    add(&ids.join("\n"));
    add(&stat(
        &c.named_dir()
            .join(crate::campaign::ledger::index::INDEX_FILE),
    ));
    let mut folders = vec![c.dir.clone()];
    // The shard folders, as `Campaign::read_journal` reads them.
    folders.extend(subfolders(&c.dir.join("shards")));
    for dir in folders {
        for f in files_of(&dir) {
            if f.extension().is_some_and(|e| e == "jsonl") {
                add(&stat(&f));
            }
        }
    }
    for f in files_of(&c.cache_dir()) {
        add(&stat(&f));
    }
    h.finalize().to_hex().to_string()
}

fn report_files(reports: &Path) -> Vec<(String, u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    files_of(reports)
        .into_iter()
        .filter(|p| p.file_name().is_some_and(|n| n != STAMP))
        .filter_map(|p| {
            let m = std::fs::metadata(&p).ok()?;
            let name = p.file_name()?.to_string_lossy().into_owned();
            let ns = m.mtime() as u64 * 1_000_000_000 + m.mtime_nsec() as u64;
            Some((name, m.len(), ns))
        })
        .collect()
}

/// The stamp of `reports` when its reports are current for `inputs`.
pub fn current(reports: &Path, inputs: &str) -> Option<Stamp> {
    let text = std::fs::read(reports.join(STAMP)).ok()?;
    let stamp: Stamp = serde_json::from_slice(&text).ok()?;
    (stamp.inputs == inputs && !stamp.files.is_empty() && stamp.files == report_files(reports))
        .then_some(stamp)
}

/// Record, after writing the reports, that they are current for `inputs`
/// (with the warnings scoring said and the verdict counts).
pub fn write(reports: &Path, inputs: &str, warnings: &[String], tally: &Tally) -> Result<()> {
    let stamp = Stamp {
        inputs: inputs.to_string(),
        files: report_files(reports),
        warnings: warnings.to_vec(),
        tally: Some(tally.clone()),
    };
    crate::store::journal::write_atomic(&reports.join(STAMP), &serde_json::to_vec(&stamp)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_are_current_until_one_changes() {
        let dir = tempfile::tempdir().unwrap();
        let r = dir.path();
        assert!(current(r, "h").is_none(), "no stamp");
        std::fs::write(r.join("report.html"), "<html>").unwrap();
        let tally = Tally {
            pairs: 3,
            ..Tally::default()
        };
        write(r, "h", &["w".into()], &tally).unwrap();
        let kept = current(r, "h").unwrap();
        assert_eq!(kept.warnings, vec!["w".to_string()]);
        assert_eq!(kept.tally, Some(tally.clone()));
        assert!(current(r, "g").is_none(), "other inputs");
        std::fs::write(r.join("report.html"), "<html>!").unwrap();
        assert!(current(r, "h").is_none(), "a report edited");
        write(r, "h", &[], &tally).unwrap();
        std::fs::remove_file(r.join("report.html")).unwrap();
        assert!(current(r, "h").is_none(), "a report removed");
    }
}
