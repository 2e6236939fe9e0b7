//! The cross-campaign cache of solver runs: `<cache>/runs.jsonl`, beside
//! the checker answers of `check/cache.rs`. Only solvers that ask for it
//! use it (`coreval selfcheck`'s reference solvers: a reference's answer
//! and core on a benchmark are the same from one selfcheck to the next; a
//! campaign measures its solvers' runs and never reuses them).
//!
//! The key is what the run depends on: the named benchmark's bytes (BLAKE3),
//! the definition's name and version, its command line as run (template and
//! core options), the time and memory limits. As for checkers, a solver
//! without a version is never cached, nor is a run that failed to start.
//! Append-only; the last record for a key wins; an unreadable cache is a
//! warning and an empty cache.

use crate::campaign::records::RunRecord;
use crate::checkers::SolverDef;
use crate::journal::{self, Journal};
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

/// The key of a run of `def` (at `version`) on the named file `file`
/// under the limits; `None` without a version or when the file cannot be
/// read.
pub fn key(
    file: &Path,
    def: &SolverDef,
    version: Option<&str>,
    time: std::time::Duration,
    memory: Option<u64>,
) -> Option<String> {
    let version = version?;
    let bytes = std::fs::read(file).ok()?;
    let what = serde_json::json!({
        "file": blake3::hash(&bytes).to_hex().to_string(),
        "solver": def.name,
        "version": version,
        "command": def.command,
        "core_options": def.core_options,
        "time": time.as_secs_f64(),
        "memory": memory,
    });
    Some(blake3::hash(what.to_string().as_bytes()).to_hex().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_are_found_again_by_their_key_only() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("b.smt2");
        std::fs::write(&file, "(check-sat)\n").unwrap();
        let defs = crate::checkers::load_dir(
            &Path::new(env!("CARGO_MANIFEST_DIR")).join("checkers"),
        )
        .unwrap();
        let z3 = defs.iter().find(|d| d.name == "z3").unwrap();
        let t = std::time::Duration::from_secs(5);
        assert!(key(&file, z3, None, t, None).is_none(), "no version, no key");
        let k = key(&file, z3, Some("4"), t, None).unwrap();
        assert_ne!(Some(&k), key(&file, z3, Some("5"), t, None).as_ref());
        assert_ne!(Some(&k), key(&file, z3, Some("4"), t * 2, None).as_ref());
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
        assert_eq!((got.solver.as_str(), got.benchmark.as_str()), ("ref-z3", "b.smt2"));
        assert_eq!(got.core, run.core);
        std::fs::write(&file, "(check-sat)\n(exit)\n").unwrap();
        assert_ne!(Some(k), key(&file, z3, Some("4"), t, None));
    }
}
