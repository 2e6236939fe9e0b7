//! The named index as the later stages see it: the eligible benchmarks of
//! `named/index.jsonl`, each with its division, names and status.

use crate::benchmark::{Families, Ineligibility, Settings};
use crate::campaign::setup::solvers::SolverUnderTest;
use crate::campaign::setup::Campaign;
use crate::message::Say;
use crate::store::compact::{shared, Name};
use crate::store::journal;
use anyhow::Result;
use rustc_hash::FxHashSet;
use serde::{Deserialize, Serialize};
use std::collections::HashSet;
use std::path::Path;
use std::sync::Arc;

/// The index file inside the output directory.
pub const INDEX_FILE: &str = "index.jsonl";

/// The names of `assertions` top-level assertions: `prefix` and the number,
/// except those in `kept`.
pub fn top_level_names(prefix: &str, assertions: usize, kept: &[(usize, String)]) -> Vec<String> {
    let mut names: Vec<String> = (1..=assertions).map(|n| format!("{prefix}{n}")).collect();
    for (n, name) in kept {
        if let Some(slot) = names.get_mut(n.wrapping_sub(1)) {
            *slot = name.clone();
        }
    }
    names
}

/// What became of one benchmark.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Outcome {
    /// Eligible; the named version was written.
    Named,
    /// Valid but outside the track under the settings (not a failure).
    Ineligible,
    /// Not valid SMT-LIB (scanner, or strict parser): a failure.
    Malformed,
    /// Could not be named: unreadable, or a fixed prefix clashes.
    Failed,
}

/// One line of `index.jsonl`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct IndexEntry {
    /// Path of the source below the root, `/`-separated.
    pub id: String,
    pub outcome: Outcome,
    /// The `set-logic` symbol: the division.
    pub logic: Option<String>,
    /// Both family definitions.
    pub family: Families,
    /// `(set-info :status …)`, `null` when absent.
    pub status: Option<String>,
    /// Number of named top-level assertions (A).
    pub assertions: usize,
    /// Prefix of the generated names `P1 … PA`.
    pub prefix: Option<String>,
    /// The named benchmark, relative to the output directory (`null` unless
    /// named).
    pub output: Option<String>,
    /// Assertions that kept their own name (policy `keep`): number, name.
    pub kept_names: Vec<(usize, String)>,
    /// `:named` names nested inside terms of the output.
    pub nested_names: Vec<String>,
    /// Why the benchmark is not named (empty when named).
    pub reasons: Vec<Ineligibility>,
    /// For `failed`: what went wrong.
    pub error: Option<String>,
    /// The descrambling map of a scrambled benchmark, relative to the
    /// output directory, beside `output` (`x.smt2` → `x.descramble.json`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub descramble: Option<String>,
    /// Source size in bytes, for resuming.
    pub source_size: u64,
    /// Source modification time (ns since the epoch), for resuming.
    pub source_mtime_ns: u64,
    /// Source status-change time (ns since the epoch), device and inode:
    /// with size and mtime what tells an edit, as git's index does (an
    /// edit that keeps size and mtime, `touch -r`, still changes the
    /// ctime); the device and inode also tell one file under several names.
    /// 0 in indexes of earlier versions (then named again once).
    #[serde(default)]
    pub source_ctime_ns: u64,
    #[serde(default)]
    pub source_dev: u64,
    #[serde(default)]
    pub source_inode: u64,
    /// The settings the entry was made with, for resuming.
    pub settings: String,
    /// BLAKE3 of the named benchmark (absent in indexes of earlier
    /// versions: then hashed when a campaign is loaded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub named_hash: Option<String>,
    /// An incremental or assumption script (named with `[naming]
    /// incremental`): judged query by query, outside the track's scores.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub incremental: bool,
}

impl IndexEntry {
    /// The top-level names of the named benchmark, in assertion order.
    pub fn top_level_names(&self) -> Vec<String> {
        match &self.prefix {
            Some(p) => top_level_names(p, self.assertions, &self.kept_names),
            None => Vec::new(),
        }
    }

    /// One line per problem, `path:line:col: message`, for the user; `root`
    /// is the benchmark root (a folder, or the one benchmark file named),
    /// its hints naming `settings` (`coreval name`'s options, or a
    /// campaign's keys).
    pub fn messages(&self, root: &Path, settings: Settings) -> Vec<String> {
        // Most entries have none: no path is made (nor the root looked at).
        if self.reasons.is_empty() && self.error.is_none() {
            return Vec::new();
        }
        let path = if root.is_file() {
            root.to_path_buf()
        } else {
            root.join(&self.id)
        };
        let mut out: Vec<String> = (self.reasons.iter())
            .map(|r| r.in_file_for(&path, settings))
            .collect();
        if let Some(e) = &self.error {
            out.push(format!("{}: {e}", path.display()));
        }
        out
    }
}

/// Files that naming skipped (`OUT/skipped.json`): FIFOs, broken links,
/// link loops, directory links not followed, names that are not UTF-8.
pub const SKIPPED_FILE: &str = "skipped.json";

/// One skipped path and why, as [`SKIPPED_FILE`] lists it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Skipped {
    pub path: String,
    pub why: String,
}

/// The skipped paths recorded in a named folder (none when unreadable).
pub fn read_skipped(named_dir: &Path) -> Vec<Skipped> {
    std::fs::read(named_dir.join(SKIPPED_FILE))
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default()
}

/// Counts of FILES by outcome: one file listed under several ids (through
/// links) counts once, under the outcome of its first id, and a file
/// counts once whatever number of reasons it has.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileCounts {
    /// Index entries (benchmark ids).
    pub names: usize,
    /// Distinct files among them.
    pub files: usize,
    pub named: usize,
    pub ineligible: usize,
    pub malformed: usize,
    /// Outcome `failed`: could not be named (unreadable, a name clash).
    pub failed: usize,
}

/// [`FileCounts`] of entries seen one at a time (an index streamed).
#[derive(Default)]
pub struct FileCounter {
    /// The files seen: (device, inode, "") or, without an inode, (0, 0, id).
    seen: HashSet<(u64, u64, String)>,
    pub counts: FileCounts,
}

impl FileCounter {
    pub fn add(&mut self, e: &IndexEntry) {
        let c = &mut self.counts;
        c.names += 1;
        let key = if e.source_inode != 0 {
            (e.source_dev, e.source_inode, String::new())
        } else {
            (0, 0, e.id.clone())
        };
        if !self.seen.insert(key) {
            return;
        }
        c.files += 1;
        *match e.outcome {
            Outcome::Named => &mut c.named,
            Outcome::Ineligible => &mut c.ineligible,
            Outcome::Malformed => &mut c.malformed,
            Outcome::Failed => &mut c.failed,
        } += 1;
    }
}

impl FileCounts {
    /// The counts of `entries`. Files are told apart by device and inode
    /// (entries of indexes of earlier versions, without them, by id).
    pub fn of<'a>(entries: impl IntoIterator<Item = &'a IndexEntry>) -> FileCounts {
        let mut c = FileCounter::default();
        for e in entries {
            c.add(e);
        }
        c.counts
    }

    /// `N files: a named, b ineligible, c malformed, d failed, e skipped`,
    /// with the number of names when some file has several.
    pub fn line(&self, skipped: usize) -> String {
        let names = if self.names != self.files {
            format!(" ({} names)", self.names)
        } else {
            String::new()
        };
        format!(
            "{} files{names}: {} named, {} ineligible, {} malformed, {} failed, {skipped} skipped",
            self.files, self.named, self.ineligible, self.malformed, self.failed
        )
    }
}

/// A named benchmark, as the later stages need it.
#[derive(Clone, Debug)]
pub struct Bench {
    /// Benchmark id (path below the benchmark root), shared by the
    /// benchmark's verdicts.
    pub id: Name,
    /// Its logic: the division (one copy shared by the logic's benchmarks).
    pub logic: Name,
    /// The named file, relative to the campaign's `named/` folder.
    pub output: String,
    /// Prefix of the names coreval gave.
    pub prefix: String,
    /// A: number of named top-level assertions.
    pub assertions: u64,
    /// Declared `:status`, if any.
    pub status: Option<String>,
    /// Names of the top-level assertions (normal form).
    pub top_level: FxHashSet<String>,
    /// Names of nested `:named` terms.
    pub nested: FxHashSet<String>,
    /// The descrambling map of a scrambled benchmark, relative to `named/`.
    pub descramble: Option<String>,
    /// BLAKE3 of the named file, when the index has it.
    pub hash: Option<String>,
    /// An incremental or assumption script (docs/authors.md, "Incremental
    /// and assumption cores").
    pub incremental: bool,
}

impl Bench {
    fn from_entry(e: IndexEntry, logics: &mut FxHashSet<Arc<str>>) -> Option<Bench> {
        if e.outcome != Outcome::Named {
            return None;
        }
        let top_level = e.top_level_names().into_iter().collect();
        Some(Bench {
            logic: shared(logics, e.logic.as_deref().unwrap_or_default()).into(),
            output: e.output.clone()?,
            prefix: e.prefix.clone().unwrap_or_default(),
            assertions: e.assertions as u64,
            status: e.status.clone(),
            nested: e.nested_names.iter().cloned().collect(),
            descramble: e.descramble.clone(),
            hash: e.named_hash.clone(),
            incremental: e.incremental,
            top_level,
            id: e.id.into(),
        })
    }
}

/// The named benchmarks of a campaign (eligible entries of the index whose
/// output is a safe path below `named/`, see [`crate::store::safepath`]).
pub fn read_index(c: &Campaign) -> Result<Vec<Bench>> {
    read_index_telling(c, Say::stderr())
}

/// [`read_index`], its warnings said to `say` (once per process).
pub fn read_index_telling(c: &Campaign, say: Say) -> Result<Vec<Bench>> {
    let path = c.named_dir().join(INDEX_FILE);
    let (entries, report): (Vec<IndexEntry>, _) = journal::read_all(&path)?;
    for w in report.warnings(&path) {
        say.warning_once(w);
    }
    Ok(benches_of(c, entries, say))
}

/// The benchmarks of the index entries of campaign `c` (as read from its
/// index, or as the naming stage just wrote or found them there).
pub fn benches_of(c: &Campaign, entries: Vec<IndexEntry>, say: Say) -> Vec<Bench> {
    let path = c.named_dir().join(INDEX_FILE);
    let mut benches = Vec::new();
    let mut logics = FxHashSet::default();
    for e in entries {
        // The index is data on disk: its paths must stay inside `named/`.
        if let Some(Err(err)) = e.output.as_deref().map(crate::store::safepath::check) {
            say.warning_once(format!(
                "{}: benchmark {:?} skipped: {err}",
                path.display(),
                e.id
            ));
            continue;
        }
        benches.extend(Bench::from_entry(e, &mut logics));
    }
    benches
}

/// What tells that a source changed, as git's index does: size,
/// modification and status-change times (ns), device and inode; zeros when
/// unreadable. A content edit that keeps size and mtime (`touch -r`)
/// changes the ctime, which no user call can set back. The naming stage
/// names a benchmark again when its source's stamp is not its entry's;
/// [`changed_sources`] tells the same without naming.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
pub struct SourceStamp {
    #[serde(rename = "source_size")]
    size: u64,
    #[serde(rename = "source_mtime_ns")]
    mtime_ns: u64,
    #[serde(rename = "source_ctime_ns", default)]
    ctime_ns: u64,
    #[serde(rename = "source_dev", default)]
    dev: u64,
    #[serde(rename = "source_inode", default)]
    inode: u64,
}

impl SourceStamp {
    /// The stamp of the file at `path` now.
    pub fn of(path: &Path) -> SourceStamp {
        use std::os::unix::fs::MetadataExt;
        let ns = |s: i64, n: i64| (s.max(0) as u64).saturating_mul(1_000_000_000) + n.max(0) as u64;
        match std::fs::metadata(path) {
            Ok(m) => SourceStamp {
                size: m.len(),
                mtime_ns: ns(m.mtime(), m.mtime_nsec()),
                ctime_ns: ns(m.ctime(), m.ctime_nsec()),
                dev: m.dev(),
                inode: m.ino(),
            },
            Err(_) => SourceStamp::default(),
        }
    }

    /// The stamp an entry was named with.
    pub fn of_entry(e: &IndexEntry) -> SourceStamp {
        SourceStamp {
            size: e.source_size,
            mtime_ns: e.source_mtime_ns,
            ctime_ns: e.source_ctime_ns,
            dev: e.source_dev,
            inode: e.source_inode,
        }
    }

    /// Keep the stamp in the entry named from the source.
    pub fn set(self, e: &mut IndexEntry) {
        e.source_size = self.size;
        e.source_mtime_ns = self.mtime_ns;
        e.source_ctime_ns = self.ctime_ns;
        e.source_dev = self.dev;
        e.source_inode = self.inode;
    }
}

/// An index line read for its source stamp alone.
#[derive(Deserialize)]
struct StampLine {
    id: String,
    outcome: Outcome,
    #[serde(flatten)]
    stamp: SourceStamp,
}

/// The ids of the named benchmarks whose source under the benchmark root
/// is not what was named (edited, replaced or removed since): those the
/// naming stage of `coreval run` names again, and whose pairs it redoes
/// ("benchmark changed"). Each source is looked at (its metadata), in
/// parallel; the index is read for the stamps alone.
pub fn changed_sources(c: &Campaign) -> Result<Vec<String>> {
    use rayon::prelude::*;
    let path = c.named_dir().join(INDEX_FILE);
    if !path.exists() {
        return Ok(Vec::new());
    }
    let (lines, _): (Vec<StampLine>, _) = journal::read_all(&path)?;
    let single = c.benchmarks.is_file();
    // A resumed naming appends: the last line of an id is its entry.
    let mut seen = HashSet::new();
    let latest: Vec<StampLine> = (lines.into_iter().rev())
        .filter(|l| seen.insert(l.id.clone()))
        .collect();
    let mut changed: Vec<String> = latest
        .into_par_iter()
        .filter(|l| l.outcome == Outcome::Named)
        .filter(|l| {
            let source = match single {
                true => c.benchmarks.clone(),
                false => c.benchmarks.join(&l.id),
            };
            SourceStamp::of(&source) != l.stamp
        })
        .map(|l| l.id)
        .collect();
    changed.sort();
    Ok(changed)
}

/// Whether a solver is entered in a benchmark's division: its definition
/// supports the logic with cores (an inline command: every division); a
/// solver whose runs BenchExec made, on the benchmarks it has a run of.
pub fn entered(s: &SolverUnderTest, e: &Bench) -> bool {
    match &s.benchexec {
        Some(b) => b.run_on(&e.id, &e.output).is_some(),
        None => s.def.supports(&e.logic) && s.def.supports_cores(&e.logic),
    }
}
