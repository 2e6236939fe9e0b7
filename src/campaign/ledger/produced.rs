//! The types of a record's provenance (what produced it: command, limits,
//! program identity, benchmark hash), apart from how the configuration's
//! own is computed and compared ([`super::provenance`]), so that the
//! journal records can hold them; and how a file is identified (its
//! BLAKE3 hash), a BenchExec result file and its logs included.

use crate::store::compact::{Cold, Unset};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// A file: its resolved path and the BLAKE3 hash of its bytes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileId {
    pub path: String,
    pub blake3: String,
}

/// What a program is.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Program {
    /// The executable: the command's program resolved (through `PATH` and
    /// links), or for a `#!` script its interpreter; absent when not found.
    pub executable: Option<FileId>,
    /// The script: a `#!` program itself, or a script file an interpreter
    /// is given (`python wrapper.py`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub script: Option<FileId>,
    /// The version it reports (its definition's version command).
    pub version: Option<String>,
}

/// The limits a run had.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Limits {
    /// Seconds: the solver time limit (solver runs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time: Option<f64>,
    /// Seconds: the checker time limit (checker runs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checker_time: Option<f64>,
    /// Memory limit in MiB (none: unlimited).
    pub memory_mb: Option<u64>,
    /// Seconds between SIGTERM and SIGKILL at the limit.
    pub grace: f64,
    /// Bytes of output kept.
    pub output_cap: u64,
}

/// What produced one record, in one of two forms. *Inline* (journals of
/// earlier versions, the cross-campaign caches): the command as run, the
/// limits and the program. *Compact* (what the stages journal now): `of`,
/// the id of the configuration in the campaign's provenance table
/// ([`super::configs`], written once before the first record that refers
/// to it), the input `file`, and for a solver run the first 16 hex digits
/// of the benchmark's hash; `command`, `limits` and `program` are then
/// empty here and come from the table.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Provenance {
    /// Compact form: the configuration's id in the provenance table.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub of: Option<String>,
    /// Program and arguments as run, the input file relative to the campaign.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub command: Vec<String>,
    /// The input file as given, relative to the campaign (`named/…`,
    /// `cores/…`); empty in a compact solver run record: `named/` and the
    /// record's benchmark.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub file: String,
    /// Empty in the compact form ([`Cold`]: a null pointer, not the
    /// limits' 64 bytes, on each of a million run records).
    #[serde(default, skip_serializing_if = "Cold::is_unset")]
    pub limits: Cold<Limits>,
    #[serde(default, skip_serializing_if = "Cold::is_unset")]
    pub program: Cold<Program>,
    /// BLAKE3 of the named benchmark (solver runs; its first 16 hex digits
    /// in the compact form).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub benchmark: Option<String>,
}

static UNSET_LIMITS: Limits = Limits {
    time: None,
    checker_time: None,
    memory_mb: None,
    grace: 0.0,
    output_cap: 0,
};

static UNSET_PROGRAM: Program = Program {
    executable: None,
    script: None,
    version: None,
};

impl Unset for Limits {
    fn unset() -> &'static Self {
        &UNSET_LIMITS
    }
}

impl Unset for Program {
    fn unset() -> &'static Self {
        &UNSET_PROGRAM
    }
}

impl Provenance {
    /// The command with the input file as `{file}`: what a configuration
    /// decides (of the inline form).
    pub(super) fn template(&self) -> Vec<String> {
        if self.file.is_empty() {
            return self.command.clone();
        }
        self.command
            .iter()
            .map(|a| a.replace(&self.file, "{file}"))
            .collect()
    }
}

/// BLAKE3 of a file's bytes, in hex.
pub fn hash_file(path: &Path) -> Option<String> {
    let mut h = blake3::Hasher::new();
    h.update_reader(std::fs::File::open(path).ok()?).ok()?;
    Some(h.finalize().to_hex().to_string())
}

pub(super) fn file_id(path: &Path) -> Option<FileId> {
    let canon = path.canonicalize().ok()?;
    Some(FileId {
        blake3: hash_file(&canon)?,
        path: canon.to_string_lossy().into_owned(),
    })
}

/// What made a BenchExec solver's runs: the result file and its logs by
/// content (a folder of logs by the names and hashes of its files), the
/// tool and version BenchExec recorded. A changed file or log makes its
/// records stale, so they are imported again.
pub(super) fn benchexec_program(b: &crate::campaign::setup::benchexec::BenchExecRuns) -> Program {
    let logs = if b.logs.is_dir() {
        fn below(dir: &Path, out: &mut Vec<PathBuf>) {
            for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
                match e.file_type() {
                    Ok(t) if t.is_dir() => below(&e.path(), out),
                    Ok(t) if t.is_file() => out.push(e.path()),
                    _ => {}
                }
            }
        }
        let mut files = Vec::new();
        below(&b.logs, &mut files);
        files.sort();
        let mut h = blake3::Hasher::new();
        for f in &files {
            h.update(
                f.strip_prefix(&b.logs)
                    .unwrap_or(f)
                    .as_os_str()
                    .as_encoded_bytes(),
            );
            h.update(hash_file(f).unwrap_or_default().as_bytes());
        }
        Some(FileId {
            blake3: h.finalize().to_hex().to_string(),
            path: b.logs.to_string_lossy().into_owned(),
        })
    } else {
        file_id(&b.logs)
    };
    Program {
        executable: file_id(&b.xml),
        script: logs,
        version: Some(b.tool()),
    }
}
