//! Append-only JSON Lines journals: the campaign's memory.
//!
//! Every finished job appends one line and the file is flushed and fsynced
//! before the job counts as done, so a kill at any moment loses at most the
//! line being written. Reading tolerates exactly that: a last line without
//! its newline (a *torn* line written by a killed process) is reported and
//! ignored, and reopening for append cuts it off so that the next record
//! starts on a clean line. A damaged line elsewhere is reported with its
//! line number and skipped; the other records are kept.

use anyhow::{Context, Result};
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Seek, SeekFrom, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// What reading a journal found besides its records.
#[derive(Debug, Default, Clone)]
pub struct ReadReport {
    /// A torn last line was found (and ignored).
    pub torn_tail: bool,
    /// Lines that did not parse: (1-based line number, error).
    pub bad_lines: Vec<(usize, String)>,
}

impl ReadReport {
    /// Human-readable warnings naming the file, one per problem.
    pub fn warnings(&self, path: &Path) -> Vec<String> {
        let mut w = Vec::new();
        if self.torn_tail {
            w.push(format!(
                "{}: the last line was cut off (an interrupted write); it is ignored and its job will run again",
                path.display()
            ));
        }
        for (line, err) in &self.bad_lines {
            w.push(format!(
                "{}:{line}: unreadable record skipped: {err}",
                path.display()
            ));
        }
        w
    }
}

/// Print `warning: TEXT` on stderr unless this process already said the
/// same warning ([`crate::message::Say::warning_once`]); stages say it to
/// their observer instead.
pub fn warn_once(text: String) {
    crate::message::Say::stderr().warning_once(text)
}

/// Read every record of a journal; a missing file is an empty journal.
pub fn read_all<T: DeserializeOwned + Send>(path: &Path) -> Result<(Vec<T>, ReadReport)> {
    let records = std::cell::RefCell::new(Vec::new());
    let report = for_each_mapped(
        path,
        |n| records.borrow_mut().reserve(n),
        &|r| r,
        |r| records.borrow_mut().push(r),
    )?;
    Ok((records.into_inner(), report))
}

/// Bytes of whole lines parsed together by [`for_each`].
const BLOCK: usize = 4 << 20;

/// The shortest time between two fsyncs of [`Journal::write_behind`]: a
/// fsync costs this machine's disk a device flush (about a millisecond on
/// a virtual disk, most of it system time), and instant runs finish
/// hundreds a second. Records are written at once all the same; only their
/// durability against a power cut waits, for at most this long.
pub const SYNC_EVERY: Duration = Duration::from_millis(10);

/// Give every record of a journal to `f`, one at a time, in file order
/// (a journal of a million records is never held whole); a missing file is
/// an empty journal. Unreadable lines and a torn tail are in the report.
/// Lines are read in blocks of about [`BLOCK`] bytes whose lines are
/// parsed on every core (reading JSON is most of what a stage with
/// nothing to do does), then given to `f` in order.
pub fn for_each<T: DeserializeOwned + Send>(path: &Path, f: impl FnMut(T)) -> Result<ReadReport> {
    for_each_mapped(path, |_| {}, &|r| r, f)
}

/// [`for_each`], each record first turned by `map` on the threads that
/// parse it (work per record that needs no order: lookups, hashes), then
/// given to `f` in file order; and `hint` told first, once the first block
/// is parsed, about how many records the whole journal holds (its size
/// over the first block's bytes per line, and 1/16 more): a caller that
/// keeps them all sizes its vector once, rather than doubling it (a copy
/// of everything so far, into fresh pages the kernel must clear, at each
/// step).
pub fn for_each_mapped<T: DeserializeOwned + Send, U: Send>(
    path: &Path,
    hint: impl FnOnce(usize),
    map: &(dyn Fn(T) -> U + Sync),
    f: impl FnMut(U),
) -> Result<ReadReport> {
    for_each_parsed(
        path,
        hint,
        &|text| serde_json::from_slice::<T>(text).map(map),
        f,
    )
}

/// [`for_each_mapped`] with the parse given: `parse` turns a line's bytes
/// into what `f` gets (its error makes a bad line). A caller that needs a
/// few fields of a million records reads them borrowed from the line,
/// without an allocation for each text.
pub fn for_each_parsed<U: Send>(
    path: &Path,
    hint: impl FnOnce(usize),
    parse: &(dyn Fn(&[u8]) -> serde_json::Result<U> + Sync),
    mut f: impl FnMut(U),
) -> Result<ReadReport> {
    use rayon::prelude::*;
    let mut hint = Some(hint);
    let mut report = ReadReport::default();
    // Not `File::open`: a FIFO in a journal's place would block it.
    let file = match crate::store::regular::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(report),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
    };
    regular(&file, path)?;
    let size = file.metadata().map_or(0, |m| m.len());
    let mut reader = BufReader::with_capacity(1 << 20, file);
    let mut block = Vec::with_capacity(BLOCK + (64 << 10));
    let mut lines_before = 0;
    loop {
        block.clear();
        while block.len() < BLOCK {
            let n = reader
                .read_until(b'\n', &mut block)
                .with_context(|| format!("cannot read {}", path.display()))?;
            if n == 0 {
                break;
            }
        }
        if block.is_empty() {
            break;
        }
        // Only the file's last line can lack its newline: a torn line.
        let whole = match block.iter().rposition(|b| *b == b'\n') {
            Some(i) => i + 1,
            None => 0,
        };
        let lines: Vec<&[u8]> = block[..whole]
            .split_inclusive(|b| *b == b'\n')
            .map(|l| &l[..l.len() - 1])
            .collect();
        let parsed: Vec<Option<Result<U, String>>> = lines
            .par_iter()
            .map(|text| {
                (!text.iter().all(|b| b.is_ascii_whitespace()))
                    .then(|| parse(text).map_err(|e| e.to_string()))
            })
            .collect();
        if let (Some(tell), false) = (hint.take(), lines.is_empty()) {
            let per_line = (whole as u64).div_ceil(lines.len() as u64).max(1);
            let n = size / per_line;
            tell((n + n / 16).min(usize::MAX as u64) as usize);
        }
        for (i, r) in parsed.into_iter().enumerate() {
            match r {
                Some(Ok(r)) => f(r),
                Some(Err(e)) => report.bad_lines.push((lines_before + i + 1, e)),
                None => {}
            }
        }
        lines_before += lines.len();
        if whole < block.len() {
            report.torn_tail = true;
            break;
        }
    }
    Ok(report)
}

/// An open journal, shared by worker threads.
pub struct Journal {
    path: PathBuf,
    file: Mutex<File>,
    sync: bool,
}

impl Journal {
    /// Open (creating it and its folder if needed) for appending. A torn
    /// last line is cut off first.
    pub fn open(path: &Path) -> Result<Journal> {
        Journal::open_with(path, true)
    }

    /// [`open`](Self::open), choosing whether each append is fsynced. An
    /// unsynced journal still survives a killed process (the kernel has the
    /// bytes), not a power cut; for journals that are rebuilt anyway.
    pub fn open_with(path: &Path, sync: bool) -> Result<Journal> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("cannot create {}", dir.display()))?;
        }
        // O_NONBLOCK: opening a FIFO for writing would block until a
        // reader comes (`regular` refuses it below); no effect on a file.
        let mut file = OpenOptions::new()
            .read(true)
            .append(true)
            .create(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(path)
            .map_err(|e| {
                let why = io_cause(&e);
                anyhow::Error::new(e)
                    .context(format!("cannot open {} for appending{why}", path.display()))
            })?;
        regular(&file, path)?;
        cut_torn_tail(&mut file).with_context(|| format!("cannot repair {}", path.display()))?;
        Ok(Journal {
            path: path.to_path_buf(),
            file: Mutex::new(file),
            sync,
        })
    }

    /// Append one record as one line, then flush and fsync. When the write
    /// fails (disk full, read-only, I/O error), the part of the line that
    /// was written is cut off again, so the journal never holds half a
    /// record before later ones; the error names the file and the cause.
    pub fn append<T: Serialize>(&self, record: &T) -> Result<()> {
        let mut line = serde_json::to_vec(record).context("cannot encode a journal record")?;
        line.push(b'\n');
        let mut file = self.file.lock().unwrap_or_else(|p| p.into_inner());
        append_line(&mut file, &line)
            .and_then(|_| if self.sync { file.sync_data() } else { Ok(()) })
            .map_err(|e| self.cannot_append(e))
    }

    /// Append several records with one write and one fsync (group commit);
    /// like [`append`](Self::append), all of them or none: what was written
    /// of a group that did not fit is cut off again.
    pub fn append_all<T: Serialize>(&self, records: &[T]) -> Result<()> {
        self.write_group(records, self.sync)
    }

    /// [`append_all`](Self::append_all), fsynced only when `sync`.
    fn write_group<T: Serialize>(&self, records: &[T], sync: bool) -> Result<()> {
        if records.is_empty() {
            return Ok(());
        }
        let mut lines = Vec::new();
        for r in records {
            serde_json::to_writer(&mut lines, r).context("cannot encode a journal record")?;
            lines.push(b'\n');
        }
        let mut file = self.file.lock().unwrap_or_else(|p| p.into_inner());
        append_line(&mut file, &lines)
            .and_then(|_| if sync { file.sync_data() } else { Ok(()) })
            .map_err(|e| self.cannot_append(e))
    }

    fn cannot_append(&self, e: std::io::Error) -> anyhow::Error {
        let why = io_cause(&e);
        anyhow::Error::new(e).context(format!("cannot append to {}{why}", self.path.display()))
    }

    /// Appends what arrives on `records` until every sender is gone. Each
    /// record is written as it arrives (with whatever arrived with it), so
    /// that a killed process loses none; the fsync comes at most every
    /// [`SYNC_EVERY`] (group commit): records that finish faster share
    /// one. Run it in a thread of its own, so that the workers sending
    /// records never wait for the disk, and the disk does not serialise
    /// them. `written` sees the records of each fsync once they are
    /// durable. Stops at the first failed append and returns its error
    /// (the receiver is dropped, so later sends fail).
    pub fn write_behind<T: Serialize>(
        &self,
        records: std::sync::mpsc::Receiver<T>,
        mut written: impl FnMut(&[T]),
    ) -> Result<()> {
        use std::sync::mpsc::RecvTimeoutError;
        let mut synced = Instant::now()
            .checked_sub(SYNC_EVERY)
            .unwrap_or_else(Instant::now);
        while let Ok(first) = records.recv() {
            let mut group = vec![first];
            loop {
                let start = group.len() - 1;
                group.extend(records.try_iter());
                self.write_group(&group[start..], false)?;
                let due = synced + SYNC_EVERY;
                let now = Instant::now();
                if !self.sync || now >= due {
                    break;
                }
                match records.recv_timeout(due - now) {
                    Ok(more) => group.push(more),
                    Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => break,
                }
            }
            if self.sync {
                let file = self.file.lock().unwrap_or_else(|p| p.into_inner());
                file.sync_data().map_err(|e| self.cannot_append(e))?;
                synced = Instant::now();
            }
            written(&group);
        }
        Ok(())
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// A journal must be a regular file: a device or a pipe (`/dev/zero`, a
/// FIFO) would be read forever or block.
fn regular(file: &File, path: &Path) -> Result<()> {
    let meta = file
        .metadata()
        .with_context(|| format!("cannot read {}", path.display()))?;
    if !meta.is_file() {
        anyhow::bail!("{} is not a regular file", path.display());
    }
    Ok(())
}

/// Write `line` (one or more whole lines) at the end of `file` (opened for
/// appending); on an error, truncate what was written of it, as long as no other writer appended
/// meanwhile.
fn append_line(file: &mut File, line: &[u8]) -> std::io::Result<()> {
    let start = file.metadata()?.len();
    let mut done = 0;
    while done < line.len() {
        let err = match file.write(&line[done..]) {
            Ok(0) => std::io::Error::from(std::io::ErrorKind::WriteZero),
            Ok(n) => {
                done += n;
                continue;
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => e,
        };
        if done > 0
            && file
                .metadata()
                .is_ok_and(|m| m.len() == start + done as u64)
        {
            let _ = file.set_len(start);
        }
        return Err(err);
    }
    Ok(())
}

/// A plain-words cause for the I/O errors a user can fix, to go after a
/// path: ` (disk full)`, ` (read-only file system)`…; empty otherwise (the
/// system's message follows in any case).
pub fn io_cause(e: &std::io::Error) -> &'static str {
    use std::io::ErrorKind::*;
    match e.kind() {
        StorageFull => " (disk full)",
        QuotaExceeded => " (disk quota exceeded)",
        ReadOnlyFilesystem => " (read-only file system)",
        PermissionDenied => " (permission denied)",
        FileTooLarge => " (file too large)",
        _ => "",
    }
}

/// Truncate a file that does not end with a newline back to its last one.
fn cut_torn_tail(file: &mut File) -> std::io::Result<()> {
    let len = file.metadata()?.len();
    if len == 0 {
        return Ok(());
    }
    // Look back in growing windows for the last newline.
    let mut window = 4096u64;
    loop {
        let start = len.saturating_sub(window);
        file.seek(SeekFrom::Start(start))?;
        let mut tail = Vec::with_capacity((len - start) as usize);
        std::io::Read::read_to_end(&mut *file, &mut tail)?;
        if tail.last() == Some(&b'\n') {
            return Ok(());
        }
        if let Some(k) = memchr::memrchr(b'\n', &tail) {
            return file.set_len(start + k as u64 + 1);
        }
        if start == 0 {
            return file.set_len(0);
        }
        window *= 4;
    }
}

/// The end of the name of [`write_atomic`]'s temporary files.
pub const TEMP_SUFFIX: &str = ".coreval-tmp";

/// Write a whole file atomically: a temp file in the same folder
/// (`.NAME.XXXXXX.coreval-tmp`), fsynced, then renamed over the target.
/// Readers never see half a file. A kill between the two leaves the temp
/// file: [`remove_stale_temps`] removes such leftovers (the score stage
/// does, under the campaign lock, before it writes).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    write_atomic_with(path, |w| w.write_all(bytes))
}

/// [`write_atomic`] of what `fill` writes (buffered), so that a large
/// file is never whole in memory.
pub fn write_atomic_with(
    path: &Path,
    fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<()> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let fail = |e: std::io::Error, what: &Path| {
        let why = io_cause(&e);
        anyhow::Error::new(e).context(format!("cannot write {}{why}", what.display()))
    };
    std::fs::create_dir_all(dir).map_err(|e| fail(e, dir))?;
    let name = path
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let mut tmp = tempfile::Builder::new()
        .prefix(&format!(".{name}."))
        .suffix(TEMP_SUFFIX)
        .tempfile_in(dir)
        .map_err(|e| fail(e, dir))?;
    // Like any other output file (tempfile creates 0600).
    tmp.as_file()
        .set_permissions(
            <std::fs::Permissions as std::os::unix::fs::PermissionsExt>::from_mode(0o644),
        )
        .and_then(|_| {
            let mut w = std::io::BufWriter::with_capacity(1 << 20, tmp.as_file_mut());
            fill(&mut w)?;
            w.flush()
        })
        .and_then(|_| tmp.as_file().sync_data())
        .map_err(|e| fail(e, path))?;
    tmp.persist(path).map_err(|e| fail(e.error, path))?;
    Ok(())
}

/// Remove the temporary files [`write_atomic`] left in `dir` (a writer
/// killed before its rename). Only safe where no other writer is at work
/// (under the campaign lock); a file that cannot be removed stays.
pub fn remove_stale_temps(dir: &Path) {
    remove_temps_where(dir, |n| n.starts_with('.'));
}

/// Remove the temporary files [`write_atomic`] left beside `path`.
pub fn remove_stale_temps_of(path: &Path) {
    let (Some(dir), Some(name)) = (path.parent(), path.file_name()) else {
        return;
    };
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    let head = format!(".{}.", name.to_string_lossy());
    remove_temps_where(dir, |n| n.starts_with(&head));
}

fn remove_temps_where(dir: &Path, ours: impl Fn(&str) -> bool) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name();
        let name = name.to_string_lossy();
        let plain = e.file_type().is_ok_and(|t| t.is_file());
        if plain && name.ends_with(TEMP_SUFFIX) && ours(&name) {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

/// Errors that come from writing the output, not from the benchmark.
pub fn is_write_failure(e: &std::io::Error) -> bool {
    use std::io::ErrorKind::*;
    matches!(
        e.kind(),
        StorageFull | ReadOnlyFilesystem | QuotaExceeded | PermissionDenied
    ) || e.raw_os_error() == Some(libc::ENOSPC)
        || e.raw_os_error() == Some(libc::EROFS)
}

#[cfg(test)]
#[path = "journal_tests.rs"]
mod tests;
