//! BenchExec result XML (`<result tool=… name=…><run name=TASK><column
//! title=status|cputime|walltime|terminationreason value=…/>…</run>`) with its
//! output logs (`<date>.logfiles/<run set>.<task basename>.log`, the tool's
//! output after BenchExec's header of the command line and a line of 80
//! dashes). Each run becomes an unchecked [`PairRecord`] through
//! [`RawRun::into_record`]; the answer comes from [`crate::answer::parse_output`], the
//! division and assertion count from the caller's benchmark lookup.
//! BenchExec's compressed layout is read as is: the XML as `.xml.bz2`, the
//! log folder as `<…>.logfiles.zip` ([`logs`]).

pub mod logs;

use super::{BenchmarkLookup, Import, Issue, RawRun};
use crate::campaign::verdict::pair::{PairRecord, RunStatus};
use crate::store::benchexec_xml::{self, seconds, Run};
use anyhow::Result;
use logs::Logs;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// How to read a result file.
pub struct BenchExecOptions<'a> {
    /// Solver name for every run; default: the `tool` attribute, with the
    /// run set's name appended (`tool.runset`) when there is one.
    pub solver: Option<String>,
    /// Folder (or `.zip` of it) of the output logs; default: BenchExec's
    /// `<…>.logfiles` beside the XML, or `<…>.logfiles.zip` when only that
    /// exists.
    pub logs: Option<PathBuf>,
    /// Benchmark id (the run's `name`) → division and assertion count.
    pub lookup: BenchmarkLookup<'a>,
}

/// Import a result XML file (plain or `.xml.bz2`) and its logs.
pub fn import_file(xml: &Path, opts: &BenchExecOptions<'_>) -> Result<Import> {
    import_str(&benchexec_xml::read_text(xml)?, xml, opts)
}

pub use crate::store::benchexec_xml::{default_log_dir, strip_log_header};

/// Import result XML text; `xml` names it and locates the logs.
pub fn import_str(text: &str, xml: &Path, opts: &BenchExecOptions<'_>) -> Result<Import> {
    let file = benchexec_xml::parse(text, xml)?;
    let logs = match &opts.logs {
        Some(path) => Logs::open(path)?,
        None => Logs::beside(xml)?,
    };
    let runset = file.run_definition();
    let solver = opts.solver.clone().unwrap_or_else(|| {
        let tool = match file.attr("tool") {
            "" => "unknown-tool",
            t => t,
        };
        match &runset {
            Some(r) => format!("{tool}.{r}"),
            None => tool.to_string(),
        }
    });
    let mut out = Import::default();
    for run in &file.runs {
        let origin = format!("{}:{}", xml.display(), run.line);
        match one_run(run, &solver, runset.as_deref(), &logs, opts, origin) {
            Ok(rec) => out.pairs.push(rec),
            Err(message) => out.issues.push(Issue {
                file: xml.to_path_buf(),
                line: Some(run.line),
                message,
            }),
        }
    }
    Ok(out)
}

/// What BenchExec measured of one run.
#[derive(Clone, Debug, PartialEq)]
pub struct Measures {
    pub status: RunStatus,
    pub cpu: f64,
    pub wall: f64,
    /// Peak memory in bytes, when measured.
    pub memory: Option<u64>,
    /// The exit code (`returnvalue`), when the run exited.
    pub exit_code: Option<i32>,
    /// The signal that ended it (`exitsignal`), when one did.
    pub signal: Option<i32>,
}

/// A run's measures from its columns.
pub fn measures(cols: &HashMap<String, String>) -> Result<Measures, String> {
    let cpu = seconds(cols, "cputime")?;
    let wall = seconds(cols, "walltime")?;
    let status_text = cols.get("status").map(String::as_str).unwrap_or("");
    let reason = cols
        .get("terminationreason")
        .map(String::as_str)
        .unwrap_or("");
    let status = if reason == "memory" || status_text.starts_with("OUT OF") {
        RunStatus::Memout
    } else if reason.starts_with("cputime")
        || reason.starts_with("walltime")
        || status_text.starts_with("TIMEOUT")
    {
        RunStatus::Timeout
    } else {
        RunStatus::Complete
    };
    let int = |k: &str| cols.get(k).and_then(|v| v.trim().parse::<i32>().ok());
    Ok(Measures {
        status,
        cpu,
        wall,
        memory: cols.get("memory").and_then(|v| benchexec_xml::bytes(v)),
        exit_code: int("returnvalue"),
        signal: int("exitsignal"),
    })
}

/// The output log of the run of task `name` (`runset`: the result's run
/// definition), the tool's output after BenchExec's header.
pub fn log_of(name: &str, runset: Option<&str>, logs: &Logs) -> Result<Vec<u8>, String> {
    let base = Path::new(name)
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or(name);
    let log = runset
        .map(|r| format!("{r}.{base}.log"))
        .into_iter()
        .chain([format!("{base}.log")])
        .find_map(|file| logs.read(&file))
        .ok_or_else(|| format!("no output log for `{name}` in {}", logs.path().display()))?;
    Ok(strip_log_header(&log).to_vec())
}

fn one_run(
    run: &Run,
    solver: &str,
    runset: Option<&str>,
    logs: &Logs,
    opts: &BenchExecOptions<'_>,
    origin: String,
) -> Result<PairRecord, String> {
    let name = run.name.as_str();
    if name.is_empty() {
        return Err("run without a `name` (task file)".into());
    }
    let info = (opts.lookup)(name).ok_or_else(|| {
        format!("benchmark `{name}` is not known (no division or assertion count)")
    })?;
    let m = measures(&run.cols)?;
    let log = log_of(name, runset, logs)?;
    let output = crate::answer::parse_output(&log);
    Ok(RawRun {
        solver,
        benchmark: name,
        output,
        status: m.status,
        cpu: m.cpu,
        wall: m.wall,
        memory: m.memory.unwrap_or(0),
        origin,
    }
    .into_record(info))
}

#[cfg(test)]
mod tests;
