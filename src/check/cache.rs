//! The cross-campaign cache of checker answers: `<cache>/checks.jsonl`.
//!
//! A checker's answer on a core-only benchmark depends on the file's bytes
//! (the core hash names them) and on what ran: the checker's command,
//! limits, program (the hashes of its executable and script) and version,
//! digested into one identity ([`crate::campaign::ledger::provenance::key_of`]); a
//! new build of a checker never reuses an old build's answers, and records
//! without provenance (earlier versions) are never used. An answer is only
//! worth caching when the key identifies it:
//!
//! - a checker whose version probe failed has no version, and "version
//!   unknown" matches any build (an upgrade, a broken install): its answers
//!   are neither read from nor written to the cache;
//! - a run that failed to start says nothing about the core (the stage does
//!   not journal it at all).
//!
//! A `sat` carries the certification of its model (see
//! [`crate::campaign::verdict::certification`]); a cached `sat` without one (written
//! by an earlier version) is not used, so a cached `sat` is certified or
//! not exactly as a fresh one.
//!
//! The cache is append-only like every journal; the last record for a key
//! wins. An unreadable cache is a warning and an empty cache, never a
//! failed stage: it only saves work.

use crate::campaign::ledger::records::CheckRecord;
use crate::campaign::verdict::policy::CheckAnswer;
use crate::store::journal::{self, Journal};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// (core hash, checker, checker identity).
type Key = (String, String, String);

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

    /// The cached answer of `checker` (of identity `key`, see
    /// [`crate::campaign::ledger::provenance::Current::checker_key`]) on `hash`.
    pub fn get(&self, hash: &str, checker: &str, key: Option<&str>) -> Option<&CheckRecord> {
        let k = (hash.to_string(), checker.to_string(), key?.to_string());
        self.map.get(&k)
    }

    /// The cached answer as a validation vote in the campaign `dir`: like
    /// [`Cache::get`], but a `sat` cached without its evidence is a miss, so
    /// that it is asked again, certified or not, and its model kept here:
    /// without its model's certification (by an earlier version, or by the
    /// minimality pass, which asks for none), or with a model that is no
    /// file of this campaign, unless the checker's own model run left it
    /// without one ([`crate::campaign::verdict::certification::Unproven::settled_by_checker`]).
    pub fn get_vote(
        &self,
        hash: &str,
        checker: &str,
        key: Option<&str>,
        dir: &std::path::Path,
    ) -> Option<&CheckRecord> {
        self.get(hash, checker, key).filter(|r| {
            let model_here = r.model.as_ref().is_some_and(|m| dir.join(m).is_file());
            let no_model = r
                .certification
                .as_ref()
                .and_then(|c| c.unproven())
                .is_some_and(|why| why.settled_by_checker());
            r.answer != CheckAnswer::Sat || (r.certification.is_some() && (model_here || no_model))
        })
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
        crate::campaign::ledger::provenance::key_of(r)?,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::answer::Answer;
    use crate::campaign::ledger::provenance::{FileId, Limits, Program, Provenance};
    use crate::campaign::verdict::policy::CheckAnswer;

    fn prov(version: Option<&str>, exe: &str, time: f64) -> Provenance {
        Provenance {
            of: None,
            command: vec!["/bin/z3".into(), "cores/h.smt2".into()],
            file: "cores/h.smt2".into(),
            limits: Limits {
                time: None,
                checker_time: Some(time),
                memory_mb: None,
                grace: 2.0,
                output_cap: 16,
            }
            .into(),
            program: Program {
                executable: Some(FileId {
                    path: "/bin/z3".into(),
                    blake3: exe.into(),
                }),
                script: None,
                version: version.map(str::to_string),
            }
            .into(),
            benchmark: None,
        }
    }

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
            stdout_dropped: 0,
            stderr_dropped: 0,
            output: None,
            timing: None,
            provenance: Some(prov(version, "aa", 20.0)),
            certification: None,
            model: None,
        }
    }

    fn key_for(version: Option<&str>, exe: &str, time: f64) -> Option<String> {
        let mut r = rec(version);
        r.provenance = Some(prov(version, exe, time));
        crate::campaign::ledger::provenance::key_of(&r)
    }

    #[test]
    fn keyed_by_identity_and_never_without_a_version() {
        let dir = tempfile::tempdir().unwrap();
        let (c, w) = Cache::open(dir.path());
        assert!(w.is_empty(), "{w:?}");
        assert!(c.put(&rec(Some("5.4.0"))).is_none());
        assert!(c.put(&rec(None)).is_none());
        let mut other = rec(Some("5.4.0"));
        other.hash = "h2".into();
        let mut old = rec(Some("5.4.0"));
        old.hash = "h3".into();
        old.provenance = None;
        assert!(c.put_all(&[rec(None), other, old]).is_none());
        let (c, _) = Cache::open(dir.path());
        let k = key_for(Some("5.4.0"), "aa", 20.0);
        assert!(c.get("h", "z3", k.as_deref()).is_some());
        let other_version = key_for(Some("4.8.0"), "aa", 20.0);
        assert!(c.get("h", "z3", other_version.as_deref()).is_none());
        let other_limit = key_for(Some("5.4.0"), "aa", 60.0);
        assert!(c.get("h", "z3", other_limit.as_deref()).is_none());
        let other_build = key_for(Some("5.4.0"), "bb", 20.0);
        assert!(
            c.get("h", "z3", other_build.as_deref()).is_none(),
            "another build of the same version"
        );
        assert_eq!(key_for(None, "aa", 20.0), None, "no version, no key");
        assert!(c.get("h", "z3", None).is_none());
        assert!(c.get("h2", "z3", k.as_deref()).is_some());
        assert!(c.get("h3", "z3", k.as_deref()).is_none(), "no provenance");
        assert_eq!(
            c.records().count(),
            2,
            "records without a version or provenance are not stored"
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
        let k = key_for(Some("1"), "aa", 20.0);
        assert!(
            c.get("h", "z3", k.as_deref()).is_some(),
            "minimality may use it"
        );
        assert!(
            c.get_vote("h", "z3", k.as_deref(), Path::new("."))
                .is_none(),
            "validation asks again"
        );
        sat.certification = Some(
            crate::campaign::verdict::certification::Certification::Certified {
                by: "coreval".into(),
            },
        );
        assert!(c.put(&sat).is_none());
        let (c, _) = Cache::open(dir.path());
        assert!(
            c.get_vote("h", "z3", k.as_deref(), dir.path()).is_none(),
            "certified, but its model is no file of this campaign: asked again"
        );
        std::fs::write(dir.path().join("m.model"), "((define-fun p () Bool true))").unwrap();
        sat.model = Some("m.model".into());
        assert!(c.put(&sat).is_none());
        let (c, _) = Cache::open(dir.path());
        assert!(c.get_vote("h", "z3", k.as_deref(), dir.path()).is_some());
    }

    #[test]
    fn an_unusable_cache_is_a_warning() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("not-a-dir");
        std::fs::write(&file, "x").unwrap();
        let (c, w) = Cache::open(&file);
        assert!(!w.is_empty());
        assert!(c.get("h", "z3", Some("1")).is_none());
        assert!(c.put(&rec(Some("1"))).is_none());
    }
}
