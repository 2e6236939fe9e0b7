//! A solver under test whose runs were made by BenchExec
//! (`[[solver]] benchexec = "….results.RUNDEF.TASKS.xml.bz2"`): the result
//! file read once when the campaign is loaded, its logs found (given by
//! `benchexec_logs`, else BenchExec's `.logfiles/` or `.logfiles.zip`
//! beside it), what ran taken from the result's attributes (tool, version,
//! tool-info module, options, limits), and each run's task resolved to the
//! campaign's benchmark it ran on. Run names are paths relative to the
//! result file's folder (a BenchExec task file `x.yml`, as the competition
//! writes one beside each scrambled `x.smt2`, stands for that file); a run counts for a benchmark when its file is the
//! benchmark (below `benchmarks`, the benchmark id) or its named version
//! (below `named/`). The solve stage imports those runs instead of
//! running a command ([`crate::solve`]); the provenance of its records is
//! the result file's and the logs' content ([`crate::campaign::ledger::provenance`]).

use super::config::Campaign;
use crate::store::benchexec_xml::{self, ResultFile};
use anyhow::{bail, Context, Result};
use rustc_hash::FxHashMap;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

/// A BenchExec result file as a solver under test.
#[derive(Clone, Debug)]
pub struct BenchExecRuns {
    /// The result file (absolute).
    pub xml: PathBuf,
    /// Its logs: a folder, or a `.zip` of one.
    pub logs: PathBuf,
    /// The parsed file.
    pub file: Arc<ResultFile>,
    /// Run definition the logs are named after.
    pub runset: Option<String>,
    /// Each run by the benchmark id its task is (below `benchmarks`).
    by_id: FxHashMap<String, usize>,
    /// Each run by the named file its task is (below `named/`).
    by_named: FxHashMap<String, usize>,
    /// The runs whose task is no file below either folder.
    pub elsewhere: Vec<usize>,
}

impl BenchExecRuns {
    /// Read the result file `xml` (relative paths from the campaign
    /// folder) with its logs (`logs`, else where BenchExec puts them).
    pub fn load(c: &Campaign, xml: &Path, logs: Option<&Path>) -> Result<BenchExecRuns> {
        let xml = absolute(&c.dir.join(xml));
        if !xml.is_file() {
            bail!("the BenchExec result file {} does not exist", xml.display());
        }
        let logs = match logs {
            Some(l) => absolute(&c.dir.join(l)),
            None => benchexec_xml::logs_beside(&xml),
        };
        if !logs.exists() {
            bail!(
                "{}: its output logs are missing: no {} (nor a .zip of it); give them with `benchexec_logs`",
                xml.display(),
                logs.display()
            );
        }
        let file = benchexec_xml::read(&xml)?;
        if file.attr("tool").is_empty() {
            bail!("{}: the <result> element names no `tool`", xml.display());
        }
        let folder = xml.parent().unwrap_or(Path::new("/"));
        let roots = [real(&c.dir.join(&c.benchmarks)), real(&c.named_dir())];
        let mut by_id = FxHashMap::default();
        let mut by_named = FxHashMap::default();
        let mut elsewhere = Vec::new();
        for (i, run) in file.runs.iter().enumerate() {
            let path = real(&folder.join(crate::benchmark::task::input_of(&run.name)));
            let below = |root: &Path| {
                let rel = path.strip_prefix(root).ok()?;
                Some(rel.to_string_lossy().into_owned())
            };
            if let Some(id) = below(&roots[1]) {
                by_named.entry(id).or_insert(i);
            } else if let Some(id) = below(&roots[0]) {
                by_id.entry(id).or_insert(i);
            } else {
                elsewhere.push(i);
            }
        }
        Ok(BenchExecRuns {
            runset: file.run_definition(),
            xml,
            logs,
            file: Arc::new(file),
            by_id,
            by_named,
            elsewhere,
        })
    }

    /// The run on a benchmark (its id, its named file's path below
    /// `named/`), if the file has one.
    pub fn run_on(&self, id: &str, named: &str) -> Option<usize> {
        self.by_named
            .get(named)
            .or_else(|| self.by_id.get(id))
            .copied()
    }

    /// The runs matched to a benchmark path, for those the campaign does
    /// not have.
    pub fn matched(&self) -> impl Iterator<Item = (&str, usize)> {
        self.by_id
            .iter()
            .chain(&self.by_named)
            .map(|(k, v)| (k.as_str(), *v))
    }

    /// The tool as BenchExec named it, with its version: what the reports
    /// say produced the runs.
    pub fn tool(&self) -> String {
        let f = &self.file;
        match f.attr("version") {
            "" => f.attr("tool").to_string(),
            v => format!("{} {v}", f.attr("tool")),
        }
    }

    /// The name a definition of the same solver would have: the tool-info
    /// module's last part (`benchexec.tools.z3` → `z3`), else the tool's
    /// name, in lower case.
    pub fn tool_key(&self) -> String {
        let module = self.file.attr("toolmodule");
        let key = match module.rsplit('.').next() {
            Some(m) if !m.is_empty() && module.starts_with("benchexec.tools.") => m,
            _ => self.file.attr("tool"),
        };
        key.to_ascii_lowercase()
    }

    /// The command words its provenance records: the result file, the
    /// tool, the options, the input.
    pub fn command(&self) -> Vec<String> {
        let f = &self.file;
        let mut words = vec![self.xml.to_string_lossy().into_owned(), self.tool()];
        words.extend(f.attr("options").split_whitespace().map(String::from));
        words.push("{file}".into());
        words
    }

    /// Its limits as BenchExec ran it: time (s) and memory (MiB).
    pub fn limits(&self) -> (Option<f64>, Option<u64>) {
        let f = &self.file;
        let time = benchexec_xml::seconds_of(f.attr("timelimit"))
            .or_else(|| benchexec_xml::seconds_of(f.attr("hardtimelimit")));
        let memory = benchexec_xml::bytes(f.attr("memlimit")).map(|b| b / (1024 * 1024));
        (time, memory)
    }

    /// Where its runs came from, for messages and reports.
    pub fn describe(&self) -> String {
        format!(
            "BenchExec runs of {} from {} (logs {})",
            self.tool(),
            self.xml.display(),
            self.logs.display()
        )
    }

    /// `file:line` of run `i`.
    pub fn origin(&self, i: usize) -> String {
        format!("{}:{}", self.xml.display(), self.file.runs[i].line)
    }
}

/// A path with links resolved where it exists, else made absolute with
/// `.` and `..` taken out.
fn real(p: &Path) -> PathBuf {
    p.canonicalize().unwrap_or_else(|_| absolute(p))
}

fn absolute(p: &Path) -> PathBuf {
    let abs = std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    let mut out = PathBuf::new();
    for c in abs.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            c => out.push(c),
        }
    }
    out
}

/// The result file of a solver entry, with the context of a message.
pub fn load_for(
    c: &Campaign,
    name: &str,
    xml: &Path,
    logs: Option<&Path>,
) -> Result<BenchExecRuns> {
    BenchExecRuns::load(c, xml, logs).with_context(|| format!("solver '{name}'"))
}
