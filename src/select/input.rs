//! What `coreval select` reads: the benchmarks, from the `smtcomp` tool's
//! list (`benchmarks-YYYY.json[.gz]`) or from a folder of `.smt2` files,
//! and the single-query answers (`results-sq-YYYY.json[.gz]`).
//!
//! From a folder, each file is read with the benchmark analyzer
//! ([`crate::benchmark::analyze`]): its `set-logic`, its `:status` and its
//! assertions; its id is its path below the folder, its family the first
//! folder below the logic folder ([`crate::benchmark::Families`], the
//! family of the 2024 on editions, `first-folder`). A file that is not
//! SMT-LIB, has no `set-logic` or is an incremental script is counted as
//! unusable, not selected.

use super::{Answers, Candidate};
use crate::store::smtcomp_json;
use anyhow::{Context, Result};
use rayon::prelude::*;
use std::collections::HashMap;
use std::path::Path;

/// The benchmarks read, and how many files were no candidates.
#[derive(Clone, Debug, Default)]
pub struct Read {
    pub candidates: Vec<Candidate>,
    pub unusable: usize,
}

/// The benchmarks of `path`: a folder of `.smt2` files, else the tool's
/// benchmark list (plain or gzipped JSON).
pub fn benchmarks(path: &Path) -> Result<Read> {
    if path.is_dir() {
        folder(path)
    } else {
        list(path)
    }
}

/// The non-incremental benchmarks of the tool's list.
pub fn list(path: &Path) -> Result<Read> {
    let list = smtcomp_json::read_benchmarks(path)?;
    let candidates = (list.non_incremental.into_iter())
        .map(|b| Candidate {
            id: b.file.id(),
            family: b.file.family.first().cloned().unwrap_or_else(|| ".".into()),
            logic: b.file.logic,
            status: b.status,
            asserts: b.asserts,
        })
        .collect();
    Ok(Read {
        candidates,
        unusable: 0,
    })
}

/// The `.smt2` files below `dir`, each analyzed.
pub fn folder(dir: &Path) -> Result<Read> {
    let found = crate::benchmark::discover(dir)?;
    if found.files.is_empty() {
        anyhow::bail!("no benchmark (.smt2 file) under {}", dir.display());
    }
    let analyzed: Vec<Result<Option<Candidate>>> = (found.files.par_iter())
        .map(|f| {
            let info = crate::benchmark::analyze(&f.path)
                .with_context(|| format!("cannot read benchmark {}", f.path.display()))?;
            let Some(logic) = info.logic.clone() else {
                return Ok(None);
            };
            if info.is_malformed() || info.incremental {
                return Ok(None);
            }
            let family = crate::benchmark::Families::of(&f.id, Some(&logic)).first_folder;
            Ok(Some(Candidate {
                id: f.id.clone(),
                logic,
                family,
                status: info.status,
                asserts: info.assertions as u64,
            }))
        })
        .collect();
    let mut out = Read::default();
    for a in analyzed {
        match a? {
            Some(c) => out.candidates.push(c),
            None => out.unusable += 1,
        }
    }
    Ok(out)
}

/// The `sat` and `unsat` answers per benchmark id of single-query results
/// files (rows of another track left out).
pub fn answers(files: &[impl AsRef<Path>]) -> Result<HashMap<String, Answers>> {
    let mut out: HashMap<String, Answers> = HashMap::new();
    for f in files {
        let results = smtcomp_json::read_results(f.as_ref())?;
        for r in results.results {
            if r.track.as_deref().is_some_and(|t| t != "SingleQuery") {
                continue;
            }
            let a = out.entry(r.file.id()).or_default();
            match r.result.as_str() {
                "sat" => a.sat += 1,
                "unsat" => a.unsat += 1,
                _ => {}
            }
        }
    }
    Ok(out)
}
