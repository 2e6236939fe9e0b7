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
use std::path::{Path, PathBuf};
use std::sync::Mutex;

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

/// Read every record of a journal; a missing file is an empty journal.
pub fn read_all<T: DeserializeOwned>(path: &Path) -> Result<(Vec<T>, ReadReport)> {
    let mut report = ReadReport::default();
    let file = match File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok((Vec::new(), report)),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
    };
    let mut reader = BufReader::new(file);
    let mut records = Vec::new();
    let mut buf = Vec::new();
    let mut line_no = 0;
    loop {
        buf.clear();
        let n = reader
            .read_until(b'\n', &mut buf)
            .with_context(|| format!("cannot read {}", path.display()))?;
        if n == 0 {
            break;
        }
        line_no += 1;
        if buf.last() != Some(&b'\n') {
            report.torn_tail = true;
            break;
        }
        let text = &buf[..buf.len() - 1];
        if text.iter().all(|b| b.is_ascii_whitespace()) {
            continue;
        }
        match serde_json::from_slice::<T>(text) {
            Ok(r) => records.push(r),
            Err(e) => report.bad_lines.push((line_no, e.to_string())),
        }
    }
    Ok((records, report))
}

/// An open journal, shared by worker threads.
pub struct Journal {
    path: PathBuf,
    file: Mutex<File>,
}

impl Journal {
    /// Open (creating it and its folder if needed) for appending. A torn
    /// last line is cut off first.
    pub fn open(path: &Path) -> Result<Journal> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("cannot create {}", dir.display()))?;
        }
        let mut file = OpenOptions::new()
            .read(true)
            .append(true)
            .create(true)
            .open(path)
            .with_context(|| format!("cannot open {} for appending", path.display()))?;
        cut_torn_tail(&mut file).with_context(|| format!("cannot repair {}", path.display()))?;
        Ok(Journal {
            path: path.to_path_buf(),
            file: Mutex::new(file),
        })
    }

    /// Append one record as one line, then flush and fsync.
    pub fn append<T: Serialize>(&self, record: &T) -> Result<()> {
        let mut line = serde_json::to_vec(record).context("cannot encode a journal record")?;
        line.push(b'\n');
        let mut file = self.file.lock().unwrap_or_else(|p| p.into_inner());
        file.write_all(&line)
            .and_then(|_| file.sync_data())
            .with_context(|| {
                format!(
                    "cannot append to {} (disk full or read-only?)",
                    self.path.display()
                )
            })
    }

    /// Append several records with one write and one fsync (group commit).
    pub fn append_all<T: Serialize>(&self, records: &[T]) -> Result<()> {
        if records.is_empty() {
            return Ok(());
        }
        let mut lines = Vec::new();
        for r in records {
            serde_json::to_writer(&mut lines, r).context("cannot encode a journal record")?;
            lines.push(b'\n');
        }
        let mut file = self.file.lock().unwrap_or_else(|p| p.into_inner());
        file.write_all(&lines)
            .and_then(|_| file.sync_data())
            .with_context(|| format!("cannot append to {} (disk full or read-only?)", self.path.display()))
    }

    pub fn path(&self) -> &Path {
        &self.path
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

/// Write a whole file atomically: a temp file in the same folder, fsynced,
/// then renamed over the target. Readers never see half a file.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let mut tmp = tempfile::NamedTempFile::new_in(dir)
        .with_context(|| format!("cannot write in {}", dir.display()))?;
    tmp.write_all(bytes)
        .and_then(|_| tmp.as_file().sync_data())
        .with_context(|| format!("cannot write {}", path.display()))?;
    tmp.persist(path)
        .with_context(|| format!("cannot write {}", path.display()))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct R {
        k: u32,
    }

    #[test]
    fn append_and_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("j.jsonl");
        let j = Journal::open(&p).unwrap();
        j.append(&R { k: 1 }).unwrap();
        j.append(&R { k: 2 }).unwrap();
        let (v, rep) = read_all::<R>(&p).unwrap();
        assert_eq!(v, vec![R { k: 1 }, R { k: 2 }]);
        assert!(!rep.torn_tail && rep.bad_lines.is_empty());
    }

    #[test]
    fn append_all_is_one_group_of_lines() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("j.jsonl");
        let j = Journal::open(&p).unwrap();
        j.append(&R { k: 1 }).unwrap();
        j.append_all::<R>(&[]).unwrap();
        j.append_all(&[R { k: 2 }, R { k: 3 }]).unwrap();
        let (v, _) = read_all::<R>(&p).unwrap();
        assert_eq!(v, vec![R { k: 1 }, R { k: 2 }, R { k: 3 }]);
    }

    #[test]
    fn torn_tail_is_reported_and_cut_on_reopen() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("j.jsonl");
        std::fs::write(&p, "{\"k\":1}\n{\"k\":2}\n{\"k\":").unwrap();
        let (v, rep) = read_all::<R>(&p).unwrap();
        assert_eq!(v.len(), 2);
        assert!(rep.torn_tail);
        assert!(rep.warnings(&p)[0].contains("cut off"));
        let j = Journal::open(&p).unwrap();
        j.append(&R { k: 3 }).unwrap();
        let (v, rep) = read_all::<R>(&p).unwrap();
        assert_eq!(v, vec![R { k: 1 }, R { k: 2 }, R { k: 3 }]);
        assert!(!rep.torn_tail);
    }

    #[test]
    fn torn_single_line_is_cut_to_empty() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("j.jsonl");
        std::fs::write(&p, "{\"k\"").unwrap();
        Journal::open(&p).unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"");
    }

    #[test]
    fn bad_middle_line_is_skipped_with_its_number() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("j.jsonl");
        std::fs::write(&p, "{\"k\":1}\ngarbage\n{\"k\":3}\n").unwrap();
        let (v, rep) = read_all::<R>(&p).unwrap();
        assert_eq!(v.len(), 2);
        assert_eq!(rep.bad_lines[0].0, 2);
    }

    #[test]
    fn atomic_write_replaces() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("sub/out.txt");
        write_atomic(&p, b"one").unwrap();
        write_atomic(&p, b"two").unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"two");
    }
}
