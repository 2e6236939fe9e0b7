//! Incremental scripts in the check stage (`[naming] incremental`): each
//! run's output is matched to its named script
//! ([`crate::incremental::record::build`]), the match is journaled whole
//! in `incremental.jsonl` and every `unsat` answer's check script is
//! stored content-addressed as `cores/<hash>.smt2`, where the checkers
//! answer it like any core-only benchmark (selection, independence,
//! policy, early stop, cache, certified refutations: the same [`Plan`]).
//! A record counts only for the run it was built from, so a re-run of an
//! unchanged campaign matches nothing again.
//!
//! [`Plan`]: super::plan::Plan

use super::plan::Pair;
use crate::campaign::ledger::records::RunRecord;
use crate::campaign::ledger::Loaded;
use crate::incremental::record::{self, QueryCheck, QueryRecord, INCREMENTAL};
use crate::store::journal::Journal;
use anyhow::Result;
use std::collections::HashMap;

/// The (solver, script, check-script hash) pairs to check, matching the
/// runs not matched yet (and storing their check scripts).
pub fn pairs<'a>(
    l: &'a Loaded,
    runs: &'a [RunRecord],
    filter: &dyn Fn(&str) -> bool,
) -> Result<Vec<Pair<'a>>> {
    let c = l.campaign;
    if !l.index.iter().any(|e| e.incremental) {
        return Ok(Vec::new());
    }
    let known: Vec<QueryRecord> = c.read_journal(INCREMENTAL)?;
    let mut by_source: HashMap<(String, String, String), QueryRecord> = known
        .into_iter()
        .map(|r| ((r.solver.clone(), r.benchmark.clone(), r.source.clone()), r))
        .collect();
    let stored = |h: &str| c.cores_dir().join(format!("{h}.smt2")).is_file();
    let mut built = Vec::new();
    let mut out = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for r in runs {
        let (Some(s), Some(e)) = (l.solver(&r.solver), l.bench(&r.benchmark)) else {
            continue;
        };
        if !e.incremental
            || !filter(&r.benchmark)
            || !seen.insert((r.solver.as_str(), r.benchmark.as_str()))
        {
            continue;
        }
        let transcript = r.transcript.as_deref().unwrap_or("");
        let source = record::source(l.current.bench_hash(&e.id), transcript);
        let key = (r.solver.clone(), r.benchmark.clone(), source.clone());
        let complete = by_source.get(&key).is_some_and(|q| {
            q.queries.iter().all(|x| match &x.check {
                QueryCheck::Script { hash } => stored(hash),
                _ => true,
            })
        });
        if !complete {
            let path = c.named_dir().join(&e.output);
            let Some(cmds) = crate::incremental::read_commands(&path) else {
                crate::store::journal::warn_once(format!(
                    "{}: cannot be read as SMT-LIB any more: its incremental run is not checked",
                    path.display()
                ));
                continue;
            };
            let (mut q, scripts) = record::build(&cmds, transcript);
            std::fs::create_dir_all(c.cores_dir())?;
            for (hash, text) in scripts {
                let file = c.cores_dir().join(format!("{hash}.smt2"));
                if !file.is_file() {
                    crate::store::journal::write_atomic(&file, text.as_bytes())?;
                }
            }
            (q.solver, q.benchmark, q.source) = key.clone();
            built.push(q.clone());
            by_source.insert(key.clone(), q);
        }
        for x in &by_source[&key].queries {
            if let QueryCheck::Script { hash } = &x.check {
                out.push((s, e, hash.as_str().into()));
            }
        }
    }
    if !built.is_empty() {
        Journal::open(&c.journal_path(INCREMENTAL))?.append_all(&built)?;
    }
    Ok(out)
}
