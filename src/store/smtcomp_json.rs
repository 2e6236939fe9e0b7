//! The files of the `smtcomp` tool that runs SMT-COMP since 2024, as
//! coreval reads them: a results file (`results-uc-YYYY.json.gz`,
//! `results-sq-YYYY.json.gz`: `{"results": [row…]}`) and the benchmark
//! list (`benchmarks-YYYY.json.gz`: `{"non_incremental": [{"file": …,
//! "status": …, "asserts": A}…], …}`), plain or gzip-compressed. The
//! importer ([`crate::import`]) and the validators by soundness
//! ([`crate::campaign::setup::validators`]) share these, and the export
//! ([`crate::export::smtcomp_json`]) writes them: the fields in the order
//! the tool writes them (pydantic's `defs.Results` and `defs.Benchmarks`).

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use std::io::Read;
use std::path::Path;

/// A benchmark as the tool names it: `LOGIC/FAMILY…/NAME`.
#[derive(Deserialize, Serialize)]
pub struct File {
    /// Always `false` in the non-incremental tracks.
    #[serde(default)]
    pub incremental: bool,
    pub logic: String,
    #[serde(default)]
    pub family: Vec<String>,
    pub name: String,
}

impl File {
    /// `LOGIC/FAMILY…/NAME`, the benchmark's path in the library.
    pub fn id(&self) -> String {
        let mut parts = vec![self.logic.as_str()];
        parts.extend(self.family.iter().map(String::as_str));
        parts.push(&self.name);
        parts.join("/")
    }
}

/// One (solver, benchmark) row of a results file.
#[derive(Deserialize, Serialize)]
pub struct Row {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub track: Option<String>,
    pub solver: String,
    pub file: File,
    pub result: String,
    pub cpu_time: f64,
    pub wallclock_time: f64,
    /// Peak memory in bytes (a float in the tool's files: `134045696.0`).
    #[serde(default)]
    pub memory_usage: f64,
    /// The core's size for `unsat`, 0 on rows without a core.
    #[serde(default)]
    pub nb_answers: i64,
}

/// `results-TRACK-YYYY.json.gz`.
#[derive(Deserialize, Serialize)]
pub struct Results {
    pub results: Vec<Row>,
}

/// One non-incremental benchmark of the list.
#[derive(Deserialize, Serialize)]
pub struct Bench {
    pub file: File,
    /// Its status: `unsat`, `sat` or `unknown`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    pub asserts: u64,
}

/// One incremental benchmark of the list.
#[derive(Deserialize, Serialize)]
pub struct IncrementalBench {
    pub file: File,
    #[serde(default)]
    pub check_sats: u64,
}

/// `benchmarks-YYYY.json.gz`.
#[derive(Deserialize, Serialize)]
pub struct Benchmarks {
    #[serde(default)]
    pub incremental: Vec<IncrementalBench>,
    #[serde(default)]
    pub non_incremental: Vec<Bench>,
}

/// Read a file, gunzipping it when it starts with the gzip magic bytes.
pub fn read_maybe_gz(path: &Path) -> Result<Vec<u8>> {
    let raw = crate::store::regular::read(path)
        .with_context(|| format!("cannot read {}", path.display()))?;
    if raw.starts_with(&[0x1f, 0x8b]) {
        let mut out = Vec::new();
        flate2::read::MultiGzDecoder::new(&raw[..])
            .read_to_end(&mut out)
            .with_context(|| format!("{}: bad gzip data", path.display()))?;
        Ok(out)
    } else {
        Ok(raw)
    }
}

/// A results file.
pub fn read_results(path: &Path) -> Result<Results> {
    serde_json::from_slice(&read_maybe_gz(path)?)
        .with_context(|| format!("{}: not a results file of the smtcomp tool", path.display()))
}

/// A benchmark list.
pub fn read_benchmarks(path: &Path) -> Result<Benchmarks> {
    serde_json::from_slice(&read_maybe_gz(path)?).with_context(|| {
        format!(
            "{}: not a benchmark list of the smtcomp tool",
            path.display()
        )
    })
}
