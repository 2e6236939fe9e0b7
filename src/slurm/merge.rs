//! Folding the journals of a sharded run into the campaign's own.
//!
//! Every shard folder `CAMPAIGN/shards/{I}-of-{N}/` holds journals with the
//! same names as the campaign's (`runs.jsonl`, `cores.jsonl`,
//! `checks.jsonl`). Merging appends to the campaign journal every shard
//! record whose key it does not hold yet, through [`crate::store::journal`]:
//!
//! - **Deduplicated by key** (runs and cores: solver + benchmark; checks:
//!   core hash + checker). The first record seen wins: the campaign's own
//!   records first, then the shards in (count, index) order, each journal
//!   from its first line. A pair present in two shards (a task that was
//!   re-run, or a campaign re-split into another shard count) counts once.
//! - **Idempotent**: a second merge finds every key present and appends
//!   nothing.
//! - **Crash-safe**: only appends, one fsynced line per record; a merge
//!   killed half-way leaves a valid journal (a torn last line is cut on the
//!   next open) and the next merge appends the rest.
//!
//! Records are handled as JSON values, so merging does not depend on the
//! record types of the stages; only the key fields are read by name.

use crate::slurm::shard::{Shard, SHARDS_DIR};
use crate::store::journal::{self, Journal};
use anyhow::{Context, Result};
use serde_json::Value;
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// A journal that shards write and merge folds: file name and key fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct JournalKind {
    pub file: &'static str,
    pub key_fields: [&'static str; 2],
}

/// The journals a sharded run writes, in merge order, and the provenance
/// table ([`crate::campaign::ledger::configs`], keyed by its id) that their records
/// refer to, so that the campaign's holds every configuration they name.
pub const JOURNALS: [JournalKind; 4] = [
    JournalKind {
        file: "runs.jsonl",
        key_fields: ["solver", "benchmark"],
    },
    JournalKind {
        file: "cores.jsonl",
        key_fields: ["solver", "benchmark"],
    },
    JournalKind {
        file: "checks.jsonl",
        key_fields: ["hash", "checker"],
    },
    JournalKind {
        file: crate::campaign::ledger::configs::TABLE,
        key_fields: ["of", "of"],
    },
];

impl JournalKind {
    /// The record's key, or None when a key field is missing or not a string.
    pub fn key(&self, record: &Value) -> Option<(String, String)> {
        let field = |f: &str| record.get(f)?.as_str().map(str::to_string);
        Some((field(self.key_fields[0])?, field(self.key_fields[1])?))
    }
}

/// What merging one journal did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct JournalMerge {
    pub file: String,
    /// Records in the campaign journal before merging.
    pub before: usize,
    /// Shard records appended now.
    pub added: usize,
    /// Shard records whose key was already present.
    pub duplicates: usize,
    /// Records without the key fields (skipped, with a warning).
    pub keyless: usize,
}

/// What a merge did.
#[derive(Clone, Debug, Default)]
pub struct MergeSummary {
    /// Shard folders found, in merge order.
    pub shards: Vec<Shard>,
    pub journals: Vec<JournalMerge>,
    /// Damaged lines, torn tails, keyless records, unknown folders.
    pub warnings: Vec<String>,
}

impl MergeSummary {
    pub fn added(&self) -> usize {
        self.journals.iter().map(|j| j.added).sum()
    }
}

/// The shard folders of a campaign, sorted by (count, index). Folders that
/// are not named `{I}-of-{N}` are reported in `warnings`.
pub fn shard_dirs(
    campaign_dir: &Path,
    warnings: &mut Vec<String>,
) -> Result<Vec<(Shard, PathBuf)>> {
    let root = campaign_dir.join(SHARDS_DIR);
    let entries = match std::fs::read_dir(&root) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e).with_context(|| format!("cannot list {}", root.display())),
    };
    let mut out = Vec::new();
    for entry in entries {
        let entry = entry.with_context(|| format!("cannot list {}", root.display()))?;
        let name = entry.file_name();
        match name.to_str().and_then(Shard::from_dir_name) {
            Some(s) if entry.path().is_dir() => out.push((s, entry.path())),
            _ => warnings.push(format!(
                "{}: not a shard folder ({{I}}-of-{{N}}); ignored",
                entry.path().display()
            )),
        }
    }
    out.sort_by_key(|(s, _)| (s.count, s.index));
    Ok(out)
}

/// Merge every shard journal of the campaign into the campaign's journals.
pub fn merge(campaign_dir: &Path) -> Result<MergeSummary> {
    let mut summary = MergeSummary::default();
    let shards = shard_dirs(campaign_dir, &mut summary.warnings)?;
    summary.shards = shards.iter().map(|(s, _)| *s).collect();
    for kind in JOURNALS {
        let sources: Vec<PathBuf> = shards.iter().map(|(_, d)| d.join(kind.file)).collect();
        let m = merge_journal(
            &campaign_dir.join(kind.file),
            &sources,
            kind,
            &mut summary.warnings,
        )?;
        summary.journals.push(m);
    }
    Ok(summary)
}

/// Append to `target` the records of `sources` (in order) whose key it
/// lacks. The target journal is only opened when there is something to add.
pub fn merge_journal(
    target: &Path,
    sources: &[PathBuf],
    kind: JournalKind,
    warnings: &mut Vec<String>,
) -> Result<JournalMerge> {
    let mut result = JournalMerge {
        file: kind.file.to_string(),
        ..Default::default()
    };
    let (existing, report): (Vec<Value>, _) = journal::read_all(target)?;
    warnings.extend(report.warnings(target));
    result.before = existing.len();
    let mut seen: HashSet<(String, String)> = existing.iter().filter_map(|r| kind.key(r)).collect();
    let mut out: Option<Journal> = None;
    for source in sources {
        let (records, report): (Vec<Value>, _) = journal::read_all(source)?;
        warnings.extend(report.warnings(source));
        for (i, record) in records.iter().enumerate() {
            let Some(key) = kind.key(record) else {
                result.keyless += 1;
                warnings.push(format!(
                    "{}: record {} has no string fields {} and {}; not merged",
                    source.display(),
                    i + 1,
                    kind.key_fields[0],
                    kind.key_fields[1]
                ));
                continue;
            };
            if !seen.insert(key) {
                result.duplicates += 1;
                continue;
            }
            if out.is_none() {
                out = Some(Journal::open(target)?);
            }
            if let Some(j) = &out {
                j.append(record)?;
            }
            result.added += 1;
        }
    }
    Ok(result)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn write_lines(path: &Path, records: &[Value]) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        let mut text = String::new();
        for r in records {
            text.push_str(&r.to_string());
            text.push('\n');
        }
        std::fs::write(path, text).unwrap();
    }

    fn read(path: &Path) -> Vec<Value> {
        journal::read_all(path).unwrap().0
    }

    fn run(s: &str, b: &str, answer: &str) -> Value {
        json!({"solver": s, "benchmark": b, "answer": answer, "wall": 0.5})
    }

    fn shard(dir: &Path, i: u32, n: u32) -> PathBuf {
        Shard::new(i, n).unwrap().dir(dir)
    }

    #[test]
    fn merges_shards_in_order_and_dedupes() {
        let d = tempfile::tempdir().unwrap();
        let c = d.path();
        write_lines(&c.join("runs.jsonl"), &[run("z3", "a", "unsat")]);
        write_lines(
            &shard(c, 1, 2).join("runs.jsonl"),
            &[run("z3", "c", "unsat"), run("z3", "b", "unknown")],
        );
        // Shard 0 re-ran a pair the campaign already has, and one shard 1 has.
        write_lines(
            &shard(c, 0, 2).join("runs.jsonl"),
            &[
                run("z3", "a", "timeout"),
                run("z3", "b", "unsat"),
                run("yices", "a", "sat"),
            ],
        );
        write_lines(
            &shard(c, 0, 2).join("checks.jsonl"),
            &[json!({"hash": "h1", "checker": "cvc5", "answer": "unsat"})],
        );
        let s = merge(c).unwrap();
        assert_eq!(
            s.shards,
            vec![Shard::new(0, 2).unwrap(), Shard::new(1, 2).unwrap()]
        );
        let runs = read(&c.join("runs.jsonl"));
        let got: Vec<(&str, &str, &str)> = runs
            .iter()
            .map(|r| {
                (
                    r["solver"].as_str().unwrap(),
                    r["benchmark"].as_str().unwrap(),
                    r["answer"].as_str().unwrap(),
                )
            })
            .collect();
        // First seen wins: the campaign's own, then shard 0, then shard 1.
        assert_eq!(
            got,
            vec![
                ("z3", "a", "unsat"),
                ("z3", "b", "unsat"),
                ("yices", "a", "sat"),
                ("z3", "c", "unsat")
            ]
        );
        assert_eq!(runs[1], run("z3", "b", "unsat"), "records are copied whole");
        let r = &s.journals[0];
        assert_eq!((r.before, r.added, r.duplicates), (1, 3, 2));
        assert_eq!(read(&c.join("checks.jsonl")).len(), 1);
        assert!(
            !c.join("cores.jsonl").exists(),
            "nothing to add, nothing created"
        );
        assert!(s.warnings.is_empty(), "{:?}", s.warnings);
    }

    #[test]
    fn second_merge_changes_nothing() {
        let d = tempfile::tempdir().unwrap();
        let c = d.path();
        write_lines(
            &shard(c, 0, 1).join("runs.jsonl"),
            &[run("z3", "a", "unsat"), run("z3", "b", "sat")],
        );
        write_lines(
            &shard(c, 0, 1).join("cores.jsonl"),
            &[json!({"solver": "z3", "benchmark": "a", "hash": "h", "kept": 2})],
        );
        assert_eq!(merge(c).unwrap().added(), 3);
        let before: Vec<Vec<u8>> = JOURNALS
            .iter()
            .map(|k| std::fs::read(c.join(k.file)).unwrap_or_default())
            .collect();
        let again = merge(c).unwrap();
        assert_eq!(again.added(), 0);
        assert_eq!(again.journals[0].duplicates, 2);
        let after: Vec<Vec<u8>> = JOURNALS
            .iter()
            .map(|k| std::fs::read(c.join(k.file)).unwrap_or_default())
            .collect();
        assert_eq!(before, after);
    }

    #[test]
    fn interrupted_merge_is_completed_by_the_next() {
        let d = tempfile::tempdir().unwrap();
        let c = d.path();
        let records: Vec<Value> = (0..5)
            .map(|k| run("z3", &format!("b{k}"), "unsat"))
            .collect();
        write_lines(&shard(c, 0, 1).join("runs.jsonl"), &records);
        // A merge killed while writing its third line: two whole lines and a torn one.
        let mut text = String::new();
        for r in &records[..2] {
            text.push_str(&format!("{r}\n"));
        }
        text.push_str(&records[2].to_string()[..10]);
        std::fs::write(c.join("runs.jsonl"), text).unwrap();
        let s = merge(c).unwrap();
        assert_eq!(s.journals[0].added, 3);
        assert!(
            s.warnings.iter().any(|w| w.contains("cut off")),
            "{:?}",
            s.warnings
        );
        assert_eq!(read(&c.join("runs.jsonl")), records);
    }

    #[test]
    fn keyless_records_and_stray_folders_are_reported() {
        let d = tempfile::tempdir().unwrap();
        let c = d.path();
        write_lines(
            &shard(c, 0, 1).join("checks.jsonl"),
            &[
                json!({"hash": "h"}),
                json!({"hash": "h", "checker": 3}),
                json!({"hash": "h", "checker": "z3"}),
            ],
        );
        std::fs::create_dir_all(c.join("shards/tmp")).unwrap();
        let s = merge(c).unwrap();
        assert_eq!(s.journals[2].keyless, 2);
        assert_eq!(s.journals[2].added, 1);
        assert!(s
            .warnings
            .iter()
            .any(|w| w.contains("record 1 has no string fields hash and checker")));
        assert!(s
            .warnings
            .iter()
            .any(|w| w.contains("shards/tmp") && w.contains("not a shard folder")));
    }

    #[test]
    fn no_shards_is_a_no_op() {
        let d = tempfile::tempdir().unwrap();
        let s = merge(d.path()).unwrap();
        assert!(s.shards.is_empty());
        assert_eq!(s.added(), 0);
    }
}
