//! BenchExec's result files as coreval reads them: a `<result>` element
//! whose attributes say what ran (`tool`, `version`, `toolmodule`,
//! `options`, `timelimit`, `memlimit`, `cpuCores`, the benchmark and run
//! definition names) and one `<run name=TASK>` per task with its
//! `<column title=… value=…>` measures (`status`, `cputime`, `walltime`,
//! `memory`, `returnvalue`, `terminationreason`). Plain `.xml` or
//! BenchExec's own `.xml.bz2`; a file that is not well-formed to its end
//! (a truncated archive, a run never closed) is an error naming the file
//! and line, never a partial read. The importer ([`crate::import::benchexec`])
//! and a campaign's BenchExec solvers ([`crate::campaign::setup`]) share it.

use anyhow::{bail, Context, Result};
use quick_xml::events::{BytesStart, Event};
use quick_xml::Reader;
use std::collections::HashMap;
use std::io::Read;
use std::path::{Path, PathBuf};

/// One `<run>`: its task name, the line it starts on, its columns.
#[derive(Clone, Debug, Default)]
pub struct Run {
    pub name: String,
    pub line: u64,
    pub cols: HashMap<String, String>,
}

/// A whole result file.
#[derive(Clone, Debug, Default)]
pub struct ResultFile {
    /// The `<result>` element's attributes.
    pub attrs: HashMap<String, String>,
    /// Its runs, in file order.
    pub runs: Vec<Run>,
}

impl ResultFile {
    /// The run definition (what the logs are named after,
    /// `<run definition>.<task basename>.log`): the `name` attribute less
    /// the benchmark's name before it (`uc.z3`, BenchExec before 3.x) and
    /// the tasks block after it (`z3.t` with `block="t"`, BenchExec 3.35);
    /// `None` when nothing is left.
    pub fn run_definition(&self) -> Option<String> {
        let a = &self.attrs;
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

    /// An attribute, empty when absent.
    pub fn attr(&self, key: &str) -> &str {
        self.attrs.get(key).map_or("", String::as_str)
    }
}

/// The text of a result file, decompressed when it is `.xml.bz2`.
pub fn read_text(xml: &Path) -> Result<String> {
    let name = xml.file_name().and_then(|n| n.to_str()).unwrap_or("");
    if name.ends_with(".gz") || name.ends_with(".zip") {
        bail!(
            "{}: only BenchExec's own compression (`.xml.bz2`) is read; decompress it first",
            xml.display()
        );
    }
    if !name.ends_with(".bz2") {
        return crate::store::regular::read_to_string(xml)
            .with_context(|| format!("cannot read {}", xml.display()));
    }
    let file = crate::store::regular::open(xml)
        .with_context(|| format!("cannot read {}", xml.display()))?;
    let mut text = String::new();
    bzip2::read::MultiBzDecoder::new(file)
        .read_to_string(&mut text)
        .with_context(|| {
            format!(
                "{}: not a whole bzip2 archive of UTF-8 text (truncated or damaged)",
                xml.display()
            )
        })?;
    Ok(text)
}

/// Read and parse a result file.
pub fn read(xml: &Path) -> Result<ResultFile> {
    parse(&read_text(xml)?, xml)
}

/// Parse result XML text; `xml` names it in errors.
pub fn parse(text: &str, xml: &Path) -> Result<ResultFile> {
    let mut reader = Reader::from_str(text);
    // Lines counted forward from the last position asked (positions only
    // grow while reading): a file of N runs is scanned once, not N times.
    let counted = std::cell::Cell::new((0usize, 1u64));
    let line_of = |pos: u64| {
        let pos = (pos as usize).min(text.len());
        let (from, mut line) = counted.get();
        if pos < from {
            return 1 + text.as_bytes()[..pos]
                .iter()
                .filter(|b| **b == b'\n')
                .count() as u64;
        }
        line += text.as_bytes()[from..pos]
            .iter()
            .filter(|b| **b == b'\n')
            .count() as u64;
        counted.set((pos, line));
        line
    };
    let mut out = ResultFile::default();
    let mut run: Option<Run> = None;
    let mut seen_root = false;
    let mut depth = 0usize;
    loop {
        let pos = reader.buffer_position();
        let event = match reader.read_event() {
            Ok(e) => e,
            Err(e) => {
                let at = reader.error_position();
                // An error at the very end: the file stops mid-element.
                let end = if text[(at as usize).min(text.len())..].trim().is_empty()
                    || reader.buffer_position() as usize >= text.len()
                {
                    " (the file ends there: truncated?)"
                } else {
                    ""
                };
                bail!(
                    "{}:{}: not well-formed XML: {e}{end}",
                    xml.display(),
                    line_of(at)
                )
            }
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
                out.attrs = attrs(&e);
                // `<result …/>` has no end tag to wait for.
                depth = usize::from(
                    !text[pos as usize..reader.buffer_position() as usize]
                        .trim_end()
                        .ends_with("/>"),
                );
            }
            Event::Start(e) => {
                depth += 1;
                if e.name().0 == "run" {
                    let name = attrs(&e).get("name").cloned().unwrap_or_default();
                    run = Some(Run {
                        name,
                        line: line_of(pos),
                        cols: HashMap::new(),
                    });
                }
            }
            Event::Empty(e) if e.name().0 == "column" => {
                if let Some(r) = run.as_mut() {
                    let a = attrs(&e);
                    if let (Some(t), Some(v)) = (a.get("title"), a.get("value")) {
                        r.cols.insert(t.clone(), v.clone());
                    }
                }
            }
            Event::End(e) => {
                depth = depth.saturating_sub(1);
                if e.name().0 == "run" {
                    out.runs.extend(run.take());
                }
            }
            Event::Eof => break,
            _ => {}
        }
    }
    if !seen_root {
        bail!("{}: empty file, no <result> element", xml.display());
    }
    if depth > 0 || run.is_some() {
        bail!(
            "{}:{}: the file ends inside an element (truncated?); nothing of it was read",
            xml.display(),
            line_of(text.len() as u64)
        );
    }
    Ok(out)
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

/// A column in seconds: `12.5s` → 12.5.
pub fn seconds(cols: &HashMap<String, String>, title: &str) -> Result<f64, String> {
    let v = cols
        .get(title)
        .ok_or_else(|| format!("run has no `{title}` column"))?;
    seconds_of(v).ok_or_else(|| format!("column `{title}`: `{v}` is not a time in seconds"))
}

/// A time as BenchExec writes it (`12.5s`, `20 s`, `12.5`) in seconds.
pub fn seconds_of(v: &str) -> Option<f64> {
    (v.trim().trim_end_matches('s').trim().parse::<f64>().ok())
        .filter(|x| x.is_finite() && *x >= 0.0)
}

/// A size as BenchExec writes it: `123456B`, `2000 MB`, `1 GB`… in bytes.
pub fn bytes(v: &str) -> Option<u64> {
    let v = v.trim();
    let split = v
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(v.len());
    let (num, unit) = v.split_at(split);
    let num: f64 = num.parse().ok()?;
    let scale = match unit.trim() {
        "" | "B" => 1.0,
        "kB" | "KB" => 1e3,
        "MB" => 1e6,
        "GB" => 1e9,
        "KiB" => 1024.0,
        "MiB" => 1024.0 * 1024.0,
        "GiB" => 1024.0 * 1024.0 * 1024.0,
        _ => return None,
    };
    Some((num * scale).round() as u64)
}

/// BenchExec's log folder of a result file `<stem>.results.<…>.xml`.
pub fn default_log_dir(xml: &Path) -> PathBuf {
    let name = xml.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let stem = match name.find(".results.") {
        Some(i) => &name[..i],
        None => name.trim_end_matches(".bz2").trim_end_matches(".xml"),
    };
    xml.with_file_name(format!("{stem}.logfiles"))
}

/// Where BenchExec left the logs of result file `xml`: its `<…>.logfiles`
/// folder, or `<…>.logfiles.zip` when only that exists.
pub fn logs_beside(xml: &Path) -> PathBuf {
    let dir = default_log_dir(xml);
    let mut zip = dir.clone().into_os_string();
    zip.push(".zip");
    let zip = PathBuf::from(zip);
    if !dir.exists() && zip.exists() {
        zip
    } else {
        dir
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_truncation() {
        assert_eq!(bytes("123B"), Some(123));
        assert_eq!(bytes("2000 MB"), Some(2_000_000_000));
        assert_eq!(bytes("x"), None);
        let whole = "<result tool=\"z3\"><run name=\"a\"><column title=\"status\" value=\"unsat\"/></run></result>";
        let f = parse(whole, Path::new("r.xml")).unwrap();
        assert_eq!(f.runs.len(), 1);
        assert_eq!(f.runs[0].cols["status"], "unsat");
        for cut in [whole.len() - 3, whole.len() - 12, whole.len() - 9] {
            let e = parse(&whole[..cut], Path::new("r.xml"))
                .unwrap_err()
                .to_string();
            assert!(e.contains("r.xml") && e.contains("truncated"), "{e}");
        }
    }
}
