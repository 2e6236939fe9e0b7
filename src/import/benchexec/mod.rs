//! BenchExec result XML (`<result tool=… name=…><run name=TASK><column
//! title=status|cputime|walltime|terminationreason value=…/>…</run>`) with its
//! output logs (`<date>.logfiles/<run set>.<task basename>.log`, the tool's
//! output after BenchExec's header of the command line and a line of 80
//! dashes). Each run becomes an unchecked [`PairRecord`] through
//! [`RawRun::into_record`]; the answer comes from [`crate::answer::parse_output`], the
//! division and assertion count from the caller's benchmark lookup.
//! BenchExec's compressed layout is read as is: the XML as `.xml.bz2`, the
//! log folder as `<…>.logfiles.zip` ([`logs`]).

mod logs;

use super::{BenchmarkLookup, Import, Issue, RawRun};
use crate::campaign::verdict::pair::{PairRecord, RunStatus};
use anyhow::{bail, Context, Result};
use logs::Logs;
use quick_xml::events::{BytesStart, Event};
use quick_xml::Reader;
use std::collections::HashMap;
use std::io::Read;
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
    let name = xml.file_name().and_then(|n| n.to_str()).unwrap_or("");
    if name.ends_with(".gz") || name.ends_with(".zip") {
        bail!(
            "{}: only BenchExec's own compression (`.xml.bz2`) is read; decompress it first",
            xml.display()
        );
    }
    let text = if name.ends_with(".bz2") {
        let file = crate::store::regular::open(xml)
            .with_context(|| format!("cannot read {}", xml.display()))?;
        let mut text = String::new();
        bzip2::read::BzDecoder::new(file)
            .read_to_string(&mut text)
            .with_context(|| format!("{}: not bzip2-compressed UTF-8 text", xml.display()))?;
        text
    } else {
        crate::store::regular::read_to_string(xml)
            .with_context(|| format!("cannot read {}", xml.display()))?
    };
    import_str(&text, xml, opts)
}

/// BenchExec's log folder for a result file `<stem>.results.<…>.xml`.
pub fn default_log_dir(xml: &Path) -> PathBuf {
    let name = xml.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let stem = match name.find(".results.") {
        Some(i) => &name[..i],
        None => name.trim_end_matches(".bz2").trim_end_matches(".xml"),
    };
    xml.with_file_name(format!("{stem}.logfiles"))
}

/// Import result XML text; `xml` names it and locates the logs.
pub fn import_str(text: &str, xml: &Path, opts: &BenchExecOptions<'_>) -> Result<Import> {
    let logs = match &opts.logs {
        Some(path) => Logs::open(path)?,
        None => Logs::beside(xml)?,
    };
    let mut reader = Reader::from_str(text);
    let line_of = |pos: u64| {
        1 + text.as_bytes()[..(pos as usize).min(text.len())]
            .iter()
            .filter(|b| **b == b'\n')
            .count() as u64
    };
    let mut out = Import::default();
    let mut solver = opts.solver.clone();
    let mut runset: Option<String> = None;
    let mut run: Option<(String, u64, HashMap<String, String>)> = None;
    let mut seen_root = false;
    loop {
        let pos = reader.buffer_position();
        let event = match reader.read_event() {
            Ok(e) => e,
            Err(e) => bail!(
                "{}:{}: not well-formed XML: {e}",
                xml.display(),
                line_of(reader.error_position())
            ),
        };
        match event {
            Event::Start(e) | Event::Empty(e) if !seen_root => {
                if e.name().0 != "result" {
                    bail!(
                        "{}:{}: not a BenchExec result file (root element `{}`)",
                        xml.display(),
                        line_of(pos),
                        e.name().0
                    );
                }
                seen_root = true;
                let a = attrs(&e);
                runset = run_definition(&a);
                if solver.is_none() {
                    let tool = a
                        .get("tool")
                        .cloned()
                        .unwrap_or_else(|| "unknown-tool".into());
                    solver = Some(match &runset {
                        Some(r) => format!("{tool}.{r}"),
                        None => tool,
                    });
                }
            }
            Event::Start(e) if e.name().0 == "run" => {
                let name = attrs(&e).get("name").cloned().unwrap_or_default();
                run = Some((name, line_of(pos), HashMap::new()));
            }
            Event::Empty(e) if e.name().0 == "column" => {
                if let Some((_, _, cols)) = run.as_mut() {
                    let a = attrs(&e);
                    if let (Some(t), Some(v)) = (a.get("title"), a.get("value")) {
                        cols.insert(t.clone(), v.clone());
                    }
                }
            }
            Event::End(e) if e.name().0 == "run" => {
                if let Some((name, line, cols)) = run.take() {
                    let solver = solver.as_deref().unwrap_or("unknown-tool");
                    let origin = format!("{}:{}", xml.display(), line);
                    match one_run(&name, &cols, solver, runset.as_deref(), &logs, opts, origin) {
                        Ok(rec) => out.pairs.push(rec),
                        Err(message) => out.issues.push(Issue {
                            file: xml.to_path_buf(),
                            line: Some(line),
                            message,
                        }),
                    }
                }
            }
            Event::Eof => break,
            _ => {}
        }
    }
    if !seen_root {
        bail!("{}: empty file, no <result> element", xml.display());
    }
    Ok(out)
}

/// The run definition of a `<result>` (what its logs are named after,
/// `<run definition>.<task basename>.log`): its `name` less the
/// benchmark's name before it (`uc.z3`, BenchExec before 3.x) and the tasks
/// block after it (`z3.t` with `block="t"`, BenchExec 3.35); `None` when
/// nothing is left.
fn run_definition(a: &HashMap<String, String>) -> Option<String> {
    let name = a.get("name")?;
    let bench = a.get("benchmarkname").map_or("", String::as_str);
    if name == bench {
        return None;
    }
    let mut rundef = name.strip_prefix(&format!("{bench}.")).unwrap_or(name);
    if let Some(block) = a.get("block") {
        rundef = rundef.strip_suffix(&format!(".{block}")).unwrap_or(rundef);
    }
    (!rundef.is_empty()).then(|| rundef.to_string())
}

fn attrs(e: &BytesStart<'_>) -> HashMap<String, String> {
    e.attributes()
        .flatten()
        .map(|a| {
            let v = a
                .normalized_value(quick_xml::XmlVersion::Implicit1_0)
                .map(|v| v.into_owned())
                .unwrap_or_else(|_| a.value.to_string());
            (a.key.0.to_string(), v)
        })
        .collect()
}

/// `12.5s` → 12.5.
fn seconds(cols: &HashMap<String, String>, title: &str) -> Result<f64, String> {
    let v = cols
        .get(title)
        .ok_or_else(|| format!("run has no `{title}` column"))?;
    v.trim_end_matches('s')
        .parse::<f64>()
        .ok()
        .filter(|x| x.is_finite() && *x >= 0.0)
        .ok_or_else(|| format!("column `{title}`: `{v}` is not a time in seconds"))
}

/// The tool output in a BenchExec log: everything after the header line of
/// dashes (the whole file when there is none).
pub fn strip_log_header(log: &[u8]) -> &[u8] {
    let dashes = [b'-'; 80];
    let mut start = 0;
    for line in log.split(|b| *b == b'\n') {
        let end = start + line.len() + 1;
        if line.trim_ascii_end() == dashes {
            let rest = &log[end.min(log.len())..];
            let skip = rest
                .iter()
                .take_while(|b| **b == b'\n' || **b == b'\r')
                .count();
            return &rest[skip..];
        }
        start = end;
    }
    log
}

fn one_run(
    name: &str,
    cols: &HashMap<String, String>,
    solver: &str,
    runset: Option<&str>,
    logs: &Logs,
    opts: &BenchExecOptions<'_>,
    origin: String,
) -> Result<PairRecord, String> {
    if name.is_empty() {
        return Err("run without a `name` (task file)".into());
    }
    let info = (opts.lookup)(name).ok_or_else(|| {
        format!("benchmark `{name}` is not known (no division or assertion count)")
    })?;
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
    let output = crate::answer::parse_output(strip_log_header(&log));
    Ok(RawRun {
        solver,
        benchmark: name,
        output,
        status,
        cpu,
        wall,
        origin,
    }
    .into_record(info))
}

#[cfg(test)]
mod tests;
