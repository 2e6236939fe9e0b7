//! The cross-campaign cache of solver runs: `<cache>/runs.jsonl`, beside
//! the checker answers of `check/cache.rs`. Only solvers that ask for it
//! use it (`coreval selfcheck`'s reference solvers: a reference's answer
//! and core on a benchmark are the same from one selfcheck to the next; a
//! campaign measures its solvers' runs and never reuses them).
//!
//! The key is what the run depends on, as its provenance says: the named
//! benchmark's hash, the solver's command line as run, its limits, the
//! hashes of its program (and script) and the version it reports. As for
//! checkers, a solver without a version is never cached, nor is a run that
//! failed to start.
//! Append-only; the last record for a key wins; an unreadable cache is a
//! warning and an empty cache.

use crate::campaign::ledger::provenance::Expected;
use crate::campaign::ledger::records::RunRecord;
use crate::store::journal::{self, Journal};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::path::Path;

/// The file name inside the cache folder.
pub const FILE: &str = "runs.jsonl";

/// One cached run.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CachedRun {
    pub key: String,
    pub run: RunRecord,
}

/// The cache, loaded once per solve pass.
pub struct RunCache {
    map: HashMap<String, RunRecord>,
    journal: Option<Journal>,
}

impl RunCache {
    /// Load `dir/runs.jsonl` and open it for appending; problems are
    /// returned as warnings.
    pub fn open(dir: &Path) -> (RunCache, Vec<String>) {
        let path = dir.join(FILE);
        let mut warnings = Vec::new();
        let records: Vec<CachedRun> = match journal::read_all(&path) {
            Ok((r, rep)) => {
                warnings.extend(rep.warnings(&path));
                r
            }
            Err(e) => {
                warnings.push(format!("{e:#}; the run cache is not used"));
                Vec::new()
            }
        };
        let journal = match Journal::open(&path) {
            Ok(j) => Some(j),
            Err(e) => {
                warnings.push(format!("{e:#}; new runs are not cached"));
                None
            }
        };
        let map = records.into_iter().map(|c| (c.key, c.run)).collect();
        (RunCache { map, journal }, warnings)
    }

    /// The cached run under `key`, named as `solver` on `benchmark`.
    pub fn get(&self, key: &str, solver: &str, benchmark: &str) -> Option<RunRecord> {
        let mut r = self.map.get(key)?.clone();
        r.solver = solver.to_string();
        r.benchmark = benchmark.to_string();
        r.timing = None;
        r.cached = true;
        Some(r)
    }

    /// Add a fresh run (not one that failed to start); a failed write is
    /// returned as a warning.
    pub fn put(&self, key: &str, run: &RunRecord) -> Option<String> {
        if matches!(run.exit, crate::runner::Exit::FailedToStart(_)) {
            return None;
        }
        let rec = CachedRun {
            key: key.to_string(),
            run: run.clone(),
        };
        let j = self.journal.as_ref()?;
        j.append(&rec).err().map(|e| format!("{e:#}"))
    }
}

/// The key of a run of solver `name` on a named benchmark: the identity
/// the configuration runs it with ([`Expected::key`]: command, limits,
/// program and script hashes, version) and the benchmark's hash; `None`
/// without that identity (no version: never cached).
pub fn key(name: &str, expected: &Expected, bench_hash: &str) -> Option<String> {
    let identity = expected.key()?;
    let text = serde_json::to_string(&(name, identity, bench_hash)).ok()?;
    Some(blake3::hash(text.as_bytes()).to_hex().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_are_found_again_by_their_key_only() {
        let dir = tempfile::tempdir().unwrap();
        let defs =
            crate::checkers::load_dir(&Path::new(env!("CARGO_MANIFEST_DIR")).join("checkers"))
                .unwrap();
        let z3 = defs.iter().find(|d| d.name == "z3").unwrap();
        let expected = |version: Option<&str>, time: f64| {
            let mut program = crate::campaign::ledger::provenance::identify(z3, dir.path(), None);
            program
                .executable
                .get_or_insert(crate::campaign::ledger::provenance::FileId {
                    path: "/bin/z3".into(),
                    blake3: "00".into(),
                });
            program.version = version.map(str::to_string);
            Expected {
                template: vec!["z3".into(), "{file}".into()],
                limits: crate::campaign::ledger::provenance::Limits {
                    time: Some(time),
                    ..Default::default()
                },
                id: String::new(),
                program,
                unverified: false,
            }
        };
        assert!(
            key("z3", &expected(None, 5.0), "b").is_none(),
            "no version, no key"
        );
        let k = key("z3", &expected(Some("4"), 5.0), "b").unwrap();
        assert_ne!(Some(&k), key("z3", &expected(Some("5"), 5.0), "b").as_ref());
        assert_ne!(
            Some(&k),
            key("z3", &expected(Some("4"), 10.0), "b").as_ref()
        );
        let run: RunRecord = serde_json::from_str(
            r#"{"solver":"a","benchmark":"x","answer":"unsat","core":["a1"],"flags":[],"exit":"exit 0",
                "timed_out":false,"memout":false,"late_answer":null,"wall":0.5,"cpu":0.5,"max_rss":0,
                "stdout_dropped":0,"solver_version":"4"}"#,
        )
        .unwrap();
        let (c, w) = RunCache::open(dir.path());
        assert!(w.is_empty(), "{w:?}");
        assert!(c.put(&k, &run).is_none());
        let (c, _) = RunCache::open(dir.path());
        let got = c.get(&k, "ref-z3", "b.smt2").unwrap();
        assert_eq!(
            (got.solver.as_str(), got.benchmark.as_str()),
            ("ref-z3", "b.smt2")
        );
        assert_eq!(got.core, run.core);
        assert_ne!(
            Some(k),
            key("z3", &expected(Some("4"), 5.0), "c"),
            "another benchmark"
        );
    }
}
