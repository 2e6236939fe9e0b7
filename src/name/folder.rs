//! Naming a whole benchmark tree: every eligible benchmark under a root is
//! written, named, to the same relative path under an output directory,
//! with an index `OUT/index.jsonl` (one JSON object per benchmark, eligible
//! or not).
//!
//! - Files are named in parallel (rayon); each job returns its index entry.
//! - Outputs are written to a temporary file in the target directory and
//!   renamed into place only when the benchmark is eligible, so a killed run
//!   leaves no half-written benchmark.
//! - The index is a journal: each entry is appended (and flushed) as soon as
//!   its file is done; at the end it is rewritten, sorted by id, one entry
//!   per benchmark. A torn last line is ignored when reading.
//! - Resuming: a benchmark is skipped when the index has an entry for its id
//!   with the same source size, modification and status-change times, device
//!   and inode (as git's index) and settings, and (for a named one) its
//!   output exists.

use super::{name_file, NameError, NameOptions};
use crate::benchmark::{discover, BenchmarkFile, Families, NamedPolicy};
use crate::campaign::ledger::index::{
    FileCounts, IndexEntry, Outcome, Skipped, SourceStamp, INDEX_FILE, SKIPPED_FILE,
};
use crate::message::Say;
use crate::store::journal::Journal;
use anyhow::{bail, Result};
use rayon::prelude::*;
use std::collections::HashMap;
use std::fs::{self, File};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

/// Options of [`name_tree`].
#[derive(Clone, Debug, Default)]
pub struct TreeOptions<'a> {
    pub name: NameOptions,
    /// Scramble each benchmark with these options before naming it
    /// (`coreval name --scramble SEED`; see `name::scrambled`).
    pub scramble: Option<crate::scramble::ScrambleOptions>,
    /// Worker threads (`None`: one per core).
    pub jobs: Option<usize>,
    /// Show a progress bar (the caller decides: only on a terminal).
    pub progress: bool,
    /// Where the warnings go (the pipeline's observer; stderr by default).
    pub say: Say<'a>,
    /// Once true, no further benchmark is started and the summary says
    /// `interrupted` (the index journal keeps what was named).
    pub cancel: Option<&'a std::sync::atomic::AtomicBool>,
    /// Only the benchmarks with these ids (a campaign's `benchmark_list`);
    /// `None`: every benchmark under the root. The index then holds only
    /// them.
    pub only: Option<&'a std::collections::HashSet<String>>,
}

/// The result of [`name_tree`].
#[derive(Clone, Debug, Default)]
pub struct NameSummary {
    /// One entry per benchmark found, sorted by id.
    pub entries: Vec<IndexEntry>,
    /// Entries taken from an earlier run.
    pub resumed: usize,
    /// Paths not named, with why: directory links not followed, broken
    /// links, link loops, FIFOs (also in `OUT/skipped.json`).
    pub skipped_links: Vec<(PathBuf, String)>,
    /// The cancel flag stopped naming before every benchmark was done
    /// (`entries` then holds only those done).
    pub interrupted: bool,
    /// What [`NameSummary::forget_named`] let go of.
    pub forgotten: Forgotten,
}

/// The counts of the entries a [`NameSummary`] let go of.
#[derive(Clone, Copy, Debug, Default)]
pub struct Forgotten {
    /// The file counts of every entry, taken before.
    pub files: Option<FileCounts>,
    /// Entries named.
    pub named: usize,
}

impl Forgotten {
    fn count(&self, outcome: Outcome) -> usize {
        if outcome == Outcome::Named {
            self.named
        } else {
            0
        }
    }
}

impl NameSummary {
    pub fn count(&self, outcome: Outcome) -> usize {
        self.entries.iter().filter(|e| e.outcome == outcome).count() + self.forgotten.count(outcome)
    }

    /// True when some benchmark was malformed or failed.
    pub fn has_failures(&self) -> bool {
        self.count(Outcome::Malformed) + self.count(Outcome::Failed) > 0
    }

    /// Let go of the named benchmarks' entries once they were told (the
    /// index on disk has them; at 200 000 benchmarks they are hundreds of
    /// megabytes a `run` would hold to its end). The others stay, with
    /// their messages; [`NameSummary::line`] and the counts stay the same.
    pub fn forget_named(&mut self) {
        self.hand_over();
    }

    /// [`NameSummary::forget_named`], every entry handed over instead (in
    /// index order: what the index now holds), so that the next stage
    /// need not read the index again.
    pub fn hand_over(&mut self) -> Vec<IndexEntry> {
        let counts = FileCounts::of(&self.entries);
        let named = self.count(Outcome::Named);
        let others = self.entries.iter().filter(|e| e.outcome != Outcome::Named);
        let others = others.cloned().collect();
        self.forgotten = Forgotten {
            files: Some(counts),
            named,
        };
        std::mem::replace(&mut self.entries, others)
    }

    /// `N files: a named, b ineligible, c malformed, d failed, e skipped
    /// (r from an earlier run)`: files, each counted once
    /// ([`FileCounts`]).
    pub fn line(&self) -> String {
        format!(
            "{} ({} from an earlier run)",
            self.forgotten
                .files
                .unwrap_or_else(|| FileCounts::of(&self.entries))
                .line(self.skipped_links.len()),
            self.resumed
        )
    }
}

/// The settings string stored in every entry.
fn settings(t: &TreeOptions<'_>) -> String {
    let o = &t.name;
    let named = match o.policy.named {
        NamedPolicy::Skip => "skip",
        NamedPolicy::Strip => "strip",
        NamedPolicy::Keep => "keep",
    };
    let any_status = if o.policy.accept_any_status {
        ";accept-any-status=true"
    } else {
        ""
    };
    let incremental = if o.policy.incremental {
        ";incremental=true"
    } else {
        ""
    };
    format!(
        "prefix={};named={named};min-assertions={};allow-no-status={};strict={}{any_status}{incremental}",
        o.prefix.as_deref().unwrap_or("auto"),
        o.policy.min_assertions,
        o.policy.allow_no_status,
        o.strict
    ) + &t
        .scramble
        .as_ref()
        .map(super::scrambled::settings)
        .unwrap_or_default()
}

/// Name every benchmark under `root` into `out`; see the module
/// documentation. `Err` only for the tool's own failures (unreadable root,
/// unwritable output directory); a bad benchmark is an entry.
pub fn name_tree(root: &Path, out: &Path, opts: &TreeOptions) -> Result<NameSummary> {
    if let Some(p) = &opts.name.prefix {
        if let Err(why) = super::prefix::validate(p) {
            bail!("prefix '{p}' cannot be used: {why}");
        }
    }
    let index_path = out.join(INDEX_FILE);
    // The earlier index is read while the tree is walked: at 200 000
    // benchmarks each takes most of a second, and neither needs the other.
    let (found, earlier) = std::thread::scope(|s| {
        let earlier = s.spawn(|| read_index(&index_path, opts.say));
        let found = discover(root);
        let earlier = earlier
            .join()
            .unwrap_or_else(|p| std::panic::resume_unwind(p));
        (found, earlier)
    });
    let mut found = found?;
    if let Some(only) = opts.only {
        found.files.retain(|f| only.contains(&f.id));
    }
    fs::create_dir_all(out).map_err(|e| {
        let why = crate::store::journal::io_cause(&e);
        anyhow::Error::new(e).context(format!("cannot create {}{why}", out.display()))
    })?;
    let (root_c, out_c) = (root.canonicalize()?, out.canonicalize()?);
    if root_c.is_dir() && out_c.starts_with(&root_c) {
        bail!(
            "the output directory {} is inside the benchmark root {}: choose one outside",
            out.display(),
            root.display()
        );
    }
    write_skipped(out, &found.skipped)?;
    let (previous, previous_lines) = earlier?;
    let settings = settings(opts);
    // Opened when the first benchmark is named (a resumed run on a full or
    // read-only disk writes nothing). Not fsynced per entry: the index is
    // rewritten at the end, and a killed run loses nothing the kernel has.
    let journal: OnceLock<Journal> = OnceLock::new();
    let opening = Mutex::new(());
    let journal = || -> Result<&Journal> {
        let _one_at_a_time = opening.lock().unwrap_or_else(|p| p.into_inner());
        if journal.get().is_none() {
            let _ = journal.set(Journal::open_with(&index_path, false)?);
        }
        Ok(journal.get().expect("just set"))
    };
    let bar = if opts.progress {
        opts.say.bar("name", found.files.len() as u64)
    } else {
        indicatif::ProgressBar::hidden()
    };
    let cancelled = || {
        opts.cancel
            .is_some_and(|c| c.load(std::sync::atomic::Ordering::SeqCst))
    };
    let name_or_resume = |file: &BenchmarkFile| -> Result<(IndexEntry, bool)> {
        let stamp = SourceStamp::of(&file.path);
        // Taken, not copied: each id is named once.
        let taken = previous.get(&file.id).and_then(|o| lock(o).take());
        if let Some(old) = taken.as_ref() {
            let exists =
                |o: &String| crate::store::safepath::safe_join(out, o).is_ok_and(|p| p.is_file());
            let output_ok = old.output.as_ref().is_none_or(exists)
                && old.descramble.as_ref().is_none_or(exists);
            // A failure may have been passing (an unreadable file): retried.
            if old.outcome != Outcome::Failed
                && SourceStamp::of_entry(old) == stamp
                && old.settings == settings
                && output_ok
            {
                bar.inc(1);
                // An index of an earlier version gets the hash of its output
                // (the index is then rewritten).
                let hashed = old.named_hash.is_some() || old.output.is_none();
                let mut entry = taken.expect("matched above");
                if !hashed {
                    entry.named_hash = named_hash(out, &entry);
                }
                return Ok((entry, hashed));
            }
        }
        let mut entry = name_one(file, out, opts)?;
        stamp.set(&mut entry);
        entry.settings = settings.clone();
        if entry.named_hash.is_none() {
            entry.named_hash = named_hash(out, &entry);
        }
        journal()?.append(&entry)?;
        bar.inc(1);
        Ok((entry, false))
    };
    let work = |file: &BenchmarkFile| -> Result<Option<(IndexEntry, bool)>> {
        if cancelled() {
            return Ok(None);
        }
        Ok(Some(name_or_resume(file)?))
    };
    let results: Vec<Result<Option<(IndexEntry, bool)>>> = match opts.jobs {
        Some(n) => rayon::ThreadPoolBuilder::new()
            .num_threads(crate::process::jobs::resolve(n).0)
            .build()?
            .install(|| found.files.par_iter().map(work).collect()),
        None => found.files.par_iter().map(work).collect(),
    };
    bar.finish_and_clear();
    let mut summary = NameSummary {
        skipped_links: found.skipped,
        ..NameSummary::default()
    };
    for r in results {
        let Some((entry, resumed)) = r? else {
            summary.interrupted = true;
            continue;
        };
        summary.resumed += resumed as usize;
        summary.entries.push(entry);
    }
    if summary.interrupted {
        // The index stays the journal; the next run rewrites it.
        return Ok(summary);
    }
    // Nothing new and nothing stale: the index is already what it should
    // be (and a full or read-only disk does not stop a resumed run here).
    if summary.resumed < summary.entries.len() || previous_lines != Some(summary.entries.len()) {
        write_index(&index_path, &summary.entries)?;
    }
    Ok(summary)
}

/// BLAKE3 of the named output of an entry (what provenance ties runs to).
fn named_hash(out: &Path, entry: &IndexEntry) -> Option<String> {
    let path = crate::store::safepath::safe_join(out, entry.output.as_deref()?).ok()?;
    crate::campaign::ledger::provenance::hash_file(&path)
}

/// Records the skipped paths in `OUT/skipped.json` for the reports (left
/// alone when it already says the same: a resumed run writes nothing).
fn write_skipped(out: &Path, skipped: &[(PathBuf, String)]) -> Result<()> {
    let list: Vec<Skipped> = skipped
        .iter()
        .map(|(p, why)| Skipped {
            path: p.display().to_string(),
            why: why.clone(),
        })
        .collect();
    let path = out.join(SKIPPED_FILE);
    let bytes = serde_json::to_vec_pretty(&list)?;
    if fs::read(&path).ok().as_deref() == Some(&bytes[..]) || (list.is_empty() && !path.exists()) {
        return Ok(());
    }
    crate::store::journal::write_atomic(&path, &bytes)
}

/// Name one benchmark into `out`. A problem of the benchmark (unreadable,
/// a prefix clash, an id that is no safe relative path) gives an entry with
/// outcome `failed`; a failure to write the output (disk full, read-only)
/// is an `Err` naming the file: nothing is wrong with the benchmark, and it
/// must be named again once the output can be written.
fn name_one(file: &BenchmarkFile, out: &Path, tree: &TreeOptions) -> Result<IndexEntry> {
    let mut opts = tree.name.clone();
    let mut entry = failed_entry(file);
    let target = match crate::store::safepath::safe_join(out, &file.id) {
        Ok(t) => t,
        Err(e) => {
            entry.error = Some(e.to_string());
            return Ok(entry);
        }
    };
    let cannot_write = |e: std::io::Error, path: &Path| {
        let why = crate::store::journal::io_cause(&e);
        anyhow::Error::new(e).context(format!("cannot write {}{why}", path.display()))
    };
    let dir = target.parent().unwrap_or(out);
    fs::create_dir_all(dir).map_err(|e| cannot_write(e, dir))?;
    // Fixed temporary names per benchmark: one left by a killed run is
    // overwritten when the benchmark is named again.
    let name = target.file_name().unwrap_or_default().to_string_lossy();
    let tmp = dir.join(format!(".{name}.coreval-tmp"));
    let map_file = crate::scramble::map_path(&target);
    // A stale output from an earlier run would look named.
    let remove_stale = || -> Result<()> {
        for stale in [&target, &map_file] {
            if stale.is_file() {
                fs::remove_file(stale).map_err(|e| cannot_write(e, stale))?;
            }
        }
        Ok(())
    };
    let mut source = file.path.clone();
    let mut map = None;
    if let Some(s) = &tree.scramble {
        let scrambled = dir.join(format!(".{name}.coreval-scrambled"));
        match super::scrambled::scramble(&file.path, &scrambled, s)
            .map_err(|e| cannot_write(e, &scrambled))?
        {
            Ok(m) => {
                opts.known_status = m.status.clone();
                source = scrambled;
                map = Some(m);
            }
            Err(why) => {
                // Naming the original says where a malformed file is wrong.
                let r = crate::store::regular::open(&file.path)
                    .map_err(NameError::from)
                    .and_then(|mut i| {
                        let mut sink = File::create(&tmp)?;
                        name_file(&mut i, &mut sink, &opts)
                    });
                let _ = fs::remove_file(&tmp);
                match r {
                    Ok(r) if r.info.is_malformed() => {
                        entry.outcome = Outcome::Malformed;
                        entry.reasons = r.reasons;
                    }
                    _ => entry.error = Some(why),
                }
                remove_stale()?;
                return Ok(entry);
            }
        }
    }
    let mut input = match crate::store::regular::open(&source) {
        Ok(f) => f,
        Err(e) => {
            entry.error = Some(NameError::from(e).to_string());
            return Ok(entry);
        }
    };
    let mut output = File::create(&tmp).map_err(|e| cannot_write(e, &tmp))?;
    let result = name_file(&mut input, &mut output, &opts);
    if map.is_some() {
        drop(input);
        let _ = fs::remove_file(&source);
    }
    // A full disk or read-only output is the tool's failure, not the
    // benchmark's: the run stops, and the benchmark is named again later.
    if let Err(NameError::Io(e)) = &result {
        if crate::store::journal::is_write_failure(e) {
            let _ = fs::remove_file(&tmp);
            let e = std::io::Error::new(e.kind(), e.to_string());
            return Err(cannot_write(e, &target));
        }
    }
    let eligible = result.as_ref().is_ok_and(|r| r.eligible());
    if eligible {
        if let Some(m) = &map {
            crate::store::journal::write_atomic(&map_file, m.to_json().as_bytes())?;
            entry.descramble = Some(
                crate::scramble::map_path(Path::new(&file.id))
                    .to_string_lossy()
                    .into_owned(),
            );
        }
        fs::rename(&tmp, &target).map_err(|e| cannot_write(e, &target))?;
    } else {
        let _ = fs::remove_file(&tmp);
        remove_stale()?;
    }
    // A read error mid-file reaches the scanner as a syntax error: a file
    // that cannot be read is no malformed benchmark (outcome `failed`).
    let unreadable = match &result {
        Ok(r) if r.info.is_malformed() => read_error(&source),
        _ => None,
    };
    match result {
        Err(e) => entry.error = Some(e.to_string()),
        Ok(_) if unreadable.is_some() => entry.error = unreadable,
        Ok(r) => record(&mut entry, r, opts.policy.incremental),
    }
    Ok(entry)
}

/// The entry of a benchmark before it is named: outcome `failed`, nothing
/// known yet.
fn failed_entry(file: &BenchmarkFile) -> IndexEntry {
    IndexEntry {
        id: file.id.clone(),
        outcome: Outcome::Failed,
        logic: None,
        family: Families::of(&file.id, None),
        status: None,
        assertions: 0,
        prefix: None,
        output: None,
        kept_names: Vec::new(),
        nested_names: Vec::new(),
        reasons: Vec::new(),
        error: None,
        descramble: None,
        source_size: 0,
        source_mtime_ns: 0,
        source_ctime_ns: 0,
        source_dev: 0,
        source_inode: 0,
        settings: String::new(),
        named_hash: None,
        incremental: false,
    }
}

/// What naming reported, into the benchmark's entry (`incremental`: the
/// policy accepts incremental scripts).
fn record(entry: &mut IndexEntry, r: super::NameReport, incremental: bool) {
    entry.family = Families::of(&entry.id, r.info.logic.as_deref());
    entry.logic = r.info.logic.clone();
    entry.status = r.info.status.clone();
    entry.assertions = r.assertions;
    entry.prefix = Some(r.prefix.clone());
    entry.kept_names = r.kept.clone();
    entry.nested_names = r.nested_names.clone();
    entry.incremental = r.info.incremental && incremental;
    entry.outcome = if r.info.is_malformed() {
        Outcome::Malformed
    } else if r.eligible() {
        entry.output = Some(entry.id.clone());
        Outcome::Named
    } else {
        Outcome::Ineligible
    };
    entry.reasons = r.reasons;
    // Hashed as it was written: the named file is not read again.
    if entry.output.is_some() {
        entry.named_hash = r.output_hash;
    }
}

/// Why `path` cannot be read to its end, if it cannot.
fn read_error(path: &Path) -> Option<String> {
    let read = crate::store::regular::open(path)
        .and_then(|mut f| std::io::copy(&mut f, &mut std::io::sink()));
    read.err().map(|e| format!("cannot read: {e}"))
}

/// The entries of an index (last one per id wins), and the number of lines
/// when the file is as [`write_index`] leaves it: well-formed entries sorted
/// by id, one per benchmark (`None` otherwise). A
/// torn last line (a killed run) or a damaged line is skipped with a warning
/// (to `say`), and its benchmark is named again.
/// An entry of the previous index, until a worker takes it.
type Previous = HashMap<String, Mutex<Option<IndexEntry>>>;

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

fn read_index(path: &Path, say: Say) -> Result<(Previous, Option<usize>)> {
    let (entries, report): (Vec<IndexEntry>, _) = crate::store::journal::read_all(path)?;
    for w in report.warnings(path) {
        say.warning(w);
    }
    let n = entries.len();
    let sorted = entries.windows(2).all(|w| w[0].id < w[1].id);
    let map: Previous = entries
        .into_iter()
        .map(|e| (e.id.clone(), Mutex::new(Some(e))))
        .collect();
    let clean = sorted && !report.torn_tail && report.bad_lines.is_empty();
    Ok((map, clean.then_some(n)))
}

/// Rewrite the index atomically with `entries`, one line each.
fn write_index(path: &Path, entries: &[IndexEntry]) -> Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let write = || -> std::io::Result<()> {
        let mut tmp = tempfile::Builder::new()
            .prefix(".coreval-index-")
            .tempfile_in(dir)?;
        {
            let mut w = std::io::BufWriter::new(tmp.as_file_mut());
            for e in entries {
                serde_json::to_writer(&mut w, e)?;
                w.write_all(b"\n")?;
            }
            w.flush()?;
        }
        tmp.persist(path).map_err(|e| e.error)?;
        Ok(())
    };
    write().map_err(|e| {
        let why = crate::store::journal::io_cause(&e);
        anyhow::Error::new(e).context(format!("cannot write {}{why}", path.display()))
    })
}
