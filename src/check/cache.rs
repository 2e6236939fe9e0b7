//! The cross-campaign cache of checker answers: `<cache>/checks.jsonl`.
//!
//! A checker's answer on a core-only benchmark depends on the file's bytes
//! (the core hash names them), on the checker and its version, and on the
//! time limit; those four make the key. An answer is only worth caching
//! when the key identifies it:
//!
//! - a checker whose version probe failed has no version, and "version
//!   unknown" matches any build (an upgrade, a broken install): its answers
//!   are neither read from nor written to the cache;
//! - a run that failed to start says nothing about the core (the stage does
//!   not journal it at all).
//!
//! A `sat` carries the certification of its model (see
//! [`crate::campaign::certification`]); a cached `sat` without one (written
//! by an earlier version) is not used, so a cached `sat` is certified or
//! not exactly as a fresh one.
//!
//! The cache is append-only like every journal; the last record for a key
//! wins. An unreadable cache is a warning and an empty cache, never a
//! failed stage: it only saves work.

use crate::campaign::policy::CheckAnswer;
use crate::campaign::records::CheckRecord;
use crate::journal::{self, Journal};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// (core hash, checker, checker version, time limit bits).
type Key = (String, String, String, u64);

/// The cache, loaded once per check pass.
pub struct Cache {
    path: PathBuf,
    map: HashMap<Key, CheckRecord>,
    journal: Option<Journal>,
}

impl Cache {
    /// Load `dir/checks.jsonl` and open it for appending; problems are
    /// returned as warnings.
    pub fn open(dir: &Path) -> (Cache, Vec<String>) {
        let path = dir.join("checks.jsonl");
        let mut warnings = Vec::new();
        let records: Vec<CheckRecord> = match journal::read_all(&path) {
            Ok((r, rep)) => {
                warnings.extend(rep.warnings(&path));
                r
            }
            Err(e) => {
                warnings.push(format!("{e:#}; the check cache is not used"));
                Vec::new()
            }
        };
        let journal = match Journal::open(&path) {
            Ok(j) => Some(j),
            Err(e) => {
                warnings.push(format!("{e:#}; new answers are not cached"));
                None
            }
        };
        let map = records
            .into_iter()
            .filter_map(|r| Some((key(&r)?, r)))
            .collect();
        (Cache { path, map, journal }, warnings)
    }

    /// The cached answer of `checker` (at `version`) on `hash`.
    pub fn get(
        &self,
        hash: &str,
        checker: &str,
        version: Option<&str>,
        time_limit: f64,
    ) -> Option<&CheckRecord> {
        let k = (
            hash.to_string(),
            checker.to_string(),
            version?.to_string(),
            time_limit.to_bits(),
        );
        self.map.get(&k)
    }

    /// The cached answer as a validation vote: like [`Cache::get`], but a
    /// `sat` cached without its model's certification (by an earlier
    /// version, or by the minimality pass, which asks for none) is a miss,
    /// so that it is asked again and certified or not.
    pub fn get_vote(
        &self,
        hash: &str,
        checker: &str,
        version: Option<&str>,
        time_limit: f64,
    ) -> Option<&CheckRecord> {
        self.get(hash, checker, version, time_limit)
            .filter(|r| r.answer != CheckAnswer::Sat || r.certification.is_some())
    }

    /// Add a fresh answer (ignored when it cannot be keyed). A failed write
    /// is returned as a warning: the answer is safe in the campaign journal.
    pub fn put(&self, rec: &CheckRecord) -> Option<String> {
        key(rec)?;
        let j = self.journal.as_ref()?;
        j.append(rec).err().map(|e| format!("{e:#}"))
    }

    /// Add fresh answers with one write (those that cannot be keyed are left
    /// out); a failed write is returned as a warning.
    pub fn put_all(&self, recs: &[CheckRecord]) -> Option<String> {
        let keyed: Vec<&CheckRecord> = recs.iter().filter(|r| key(r).is_some()).collect();
        let j = self.journal.as_ref()?;
        j.append_all(&keyed).err().map(|e| format!("{e:#}"))
    }

    /// All cached records (for cost estimates).
    pub fn records(&self) -> impl Iterator<Item = &CheckRecord> {
        self.map.values()
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

fn key(r: &CheckRecord) -> Option<Key> {
    Some((
        r.hash.clone(),
        r.checker.clone(),
        r.version.clone()?,
        r.time_limit.to_bits(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::answer::Answer;

    fn rec(version: Option<&str>) -> CheckRecord {
        CheckRecord {
            hash: "h".into(),
            checker: "z3".into(),
            version: version.map(str::to_string),
            time_limit: 20.0,
            answer: CheckAnswer::Unsat,
            raw: Answer::Unsat,
            exit: crate::runner::Exit::Exited(0),
            wall: 0.1,
            cpu: 0.1,
            cached: false,
            note: None,
            flags: Vec::new(),
            output: None,
            timing: None,
            certification: None,
        }
    }

    #[test]
    fn keyed_by_version_and_limit_and_never_without_a_version() {
        let dir = tempfile::tempdir().unwrap();
        let (c, w) = Cache::open(dir.path());
        assert!(w.is_empty(), "{w:?}");
        assert!(c.put(&rec(Some("5.4.0"))).is_none());
        assert!(c.put(&rec(None)).is_none());
        let mut other = rec(Some("5.4.0"));
        other.hash = "h2".into();
        assert!(c.put_all(&[rec(None), other]).is_none());
        let (c, _) = Cache::open(dir.path());
        assert!(c.get("h", "z3", Some("5.4.0"), 20.0).is_some());
        assert!(
            c.get("h", "z3", Some("4.8.0"), 20.0).is_none(),
            "another version"
        );
        assert!(
            c.get("h", "z3", Some("5.4.0"), 60.0).is_none(),
            "another time limit"
        );
        assert!(
            c.get("h", "z3", None, 20.0).is_none(),
            "no version, no cache"
        );
        assert!(c.get("h2", "z3", Some("5.4.0"), 20.0).is_some());
        assert_eq!(
            c.records().count(),
            2,
            "records without a version are not stored"
        );
    }

    #[test]
    fn a_sat_without_its_certification_is_no_vote() {
        let dir = tempfile::tempdir().unwrap();
        let (c, _) = Cache::open(dir.path());
        let mut sat = rec(Some("1"));
        sat.answer = CheckAnswer::Sat;
        assert!(c.put(&sat).is_none());
        let (c, _) = Cache::open(dir.path());
        assert!(c.get("h", "z3", Some("1"), 20.0).is_some(), "minimality may use it");
        assert!(c.get_vote("h", "z3", Some("1"), 20.0).is_none(), "validation asks again");
        sat.certification = Some(crate::campaign::certification::Certification::Certified { by: "coreval".into() });
        assert!(c.put(&sat).is_none());
        let (c, _) = Cache::open(dir.path());
        assert!(c.get_vote("h", "z3", Some("1"), 20.0).is_some());
    }

    #[test]
    fn an_unusable_cache_is_a_warning() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("not-a-dir");
        std::fs::write(&file, "x").unwrap();
        let (c, w) = Cache::open(&file);
        assert!(!w.is_empty());
        assert!(c.get("h", "z3", Some("1"), 1.0).is_none());
        assert!(c.put(&rec(Some("1"))).is_none());
    }
}
