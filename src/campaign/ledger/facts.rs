//! The facts a campaign's scores rest on, as every report opens with them:
//! coreval's version, the rules edition and decision policy, the limits,
//! each solver's command, identity and version, each checker's identity and
//! version, per solver the checkers that judge it and those of its team
//! left out, the benchmark files found, named, ineligible (by reason),
//! malformed (with `file:line`), failed (unreadable) and skipped (FIFOs, broken
//! links, link loops), each file counted once, and the hashes of the configuration and of
//! the named index, so a published result can be tied to its inputs.
//! Built once from the loaded campaign ([`Facts::of`]); the reports only
//! render it.

use super::index::{read_skipped, FileCounter, IndexEntry, Outcome, INDEX_FILE};
use super::provenance::{hash_file, Limits, Program};
use crate::campaign::{ledger::loaded::Loaded, setup::CONFIG_FILE};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The facts block of a campaign's reports.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Facts {
    /// `coreval x.y.z`.
    pub coreval: String,
    /// The rules edition scored by.
    pub rules: String,
    /// The decision policy of the checkers' answers.
    pub policy: String,
    /// Whether checkers of a solver's own team are left out.
    pub independent: bool,
    /// Solver runs: `time`; checker runs: `checker_time`; both: the rest.
    pub limits: Limits,
    /// How the scored runs were limited and measured (`cgroup v1`,
    /// `cgroup v2`, `rusage`, `not recorded` for imported runs and those
    /// of earlier versions) → how many: more than one key is a mix
    /// ([`crate::runner::cgroup`]). Filled by the judging of the runs.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub measured: BTreeMap<String, usize>,
    pub solvers: Vec<SolverFacts>,
    pub checkers: Vec<CheckerFacts>,
    pub benchmarks: BenchmarkFacts,
}

/// One solver under test.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SolverFacts {
    pub name: String,
    /// Program and arguments, `{file}` for the benchmark.
    pub command: Vec<String>,
    pub program: Program,
    /// Its teams: declared, of a checker with its program's content, of a
    /// checker its runs were seen executing.
    pub teams: Vec<String>,
    /// The checkers that judge its cores (where they support the logic).
    pub judged_by: Vec<String>,
    /// Checkers of its team, left out, each with why (`cvc5 (executed by
    /// the solver)`, [`crate::campaign::setup::team::Why::words`]).
    pub left_out: Vec<String>,
}

/// One checker.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CheckerFacts {
    pub name: String,
    pub team: String,
    pub command: Vec<String>,
    pub program: Program,
}

/// What became of the benchmarks. Counts are of FILES: a file listed under
/// several ids (through links) counts once, and a file with several
/// reasons once ([`FileCounts`]).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct BenchmarkFacts {
    /// Files found below the benchmark root.
    pub found: usize,
    /// Their ids (names), more than `found` when a file has several.
    #[serde(default)]
    pub names: usize,
    /// Files named.
    pub named: usize,
    /// Files ineligible (each once, whatever its reasons).
    #[serde(default)]
    pub ineligible_files: usize,
    /// Ineligible benchmarks by reason: reason → ids (a file with several
    /// reasons is under each).
    pub ineligible: BTreeMap<String, Vec<String>>,
    /// Files malformed.
    #[serde(default)]
    pub malformed_files: usize,
    /// Malformed benchmarks: `file:line:col: message`.
    pub malformed: Vec<String>,
    /// Files that could not be named, `file: why` (unreadable — never
    /// called malformed —, or a name clash).
    #[serde(default)]
    pub failed: Vec<String>,
    #[serde(default)]
    pub failed_files: usize,
    /// Paths not taken as benchmarks, as what they are: `path: why` (a
    /// FIFO, a broken link, a link loop, a directory link not followed).
    #[serde(default)]
    pub skipped: Vec<String>,
}

/// What ties a report to its inputs.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct InputHashes {
    /// BLAKE3 of `campaign.toml`.
    pub config: Option<String>,
    /// BLAKE3 of `named/index.jsonl`.
    pub named_index: Option<String>,
}

impl Facts {
    /// The facts of a loaded campaign.
    pub fn of(l: &Loaded) -> Facts {
        let c = l.campaign;
        let checkers =
            crate::campaign::setup::selection::configured_checkers(c, l.defs).unwrap_or_default();
        let solvers = l
            .solvers
            .iter()
            .map(|s| {
                let x = l.current.solvers.get(&s.name);
                let (mut judged_by, mut left_out) = (Vec::new(), Vec::new());
                for k in &checkers {
                    match s.own_team(k).filter(|_| c.config.check.independent) {
                        Some(why) => left_out.push(format!("{} ({})", k.name, why.words())),
                        None => judged_by.push(k.name.clone()),
                    }
                }
                // Runs imported from BenchExec: where they were read.
                let command = match &s.benchexec {
                    Some(b) => vec![b.describe()],
                    None => x.map(|x| x.template.clone()).unwrap_or_default(),
                };
                SolverFacts {
                    name: s.name.clone(),
                    command,
                    program: x.map(|x| x.program.clone()).unwrap_or_default(),
                    teams: s.all_teams(),
                    judged_by,
                    left_out,
                }
            })
            .collect();
        let checkers = checkers
            .iter()
            .map(|k| {
                let x = l.current.checkers.get(&k.name);
                CheckerFacts {
                    name: k.name.clone(),
                    team: k.team.clone(),
                    command: x.map(|x| x.template.clone()).unwrap_or_default(),
                    program: x.map(|x| x.program.clone()).unwrap_or_default(),
                }
            })
            .collect();
        let limits = Limits {
            time: Some(c.time.as_secs_f64()),
            checker_time: Some(c.checker_time.as_secs_f64()),
            memory_mb: c.memory.map(|m| m / (1024 * 1024)),
            grace: c.grace.as_secs_f64(),
            output_cap: c.output_cap as u64,
        };
        Facts {
            coreval: format!("coreval {}", env!("CARGO_PKG_VERSION")),
            rules: c.edition.name().to_string(),
            policy: c.config.check.policy.to_string(),
            independent: c.config.check.independent,
            limits,
            measured: BTreeMap::new(),
            solvers,
            checkers,
            benchmarks: benchmarks(l),
        }
    }
}

/// The benchmarks of the named index, by outcome.
fn benchmarks(l: &Loaded) -> BenchmarkFacts {
    let c = l.campaign;
    let path = c.named_dir().join(INDEX_FILE);
    // Streamed (the index has an entry per benchmark): the entries not
    // named alone are kept, to be listed.
    let mut counter = FileCounter::default();
    let mut entries: Vec<IndexEntry> = Vec::new();
    let read = crate::store::journal::for_each(&path, |e: IndexEntry| {
        counter.add(&e);
        if e.outcome != Outcome::Named {
            entries.push(e);
        }
    });
    if read.is_err() {
        // As an index that cannot be read: nothing is counted.
        (counter, entries) = Default::default();
    }
    let counts = counter.counts;
    let mut out = BenchmarkFacts {
        found: counts.files,
        names: counts.names,
        named: counts.named,
        ineligible_files: counts.ineligible,
        malformed_files: counts.malformed,
        failed_files: counts.failed,
        skipped: read_skipped(&c.named_dir())
            .into_iter()
            .map(|s| format!("{}: {}", s.path, s.why))
            .collect(),
        ..Default::default()
    };
    for e in &entries {
        let shown = |e: &IndexEntry| {
            let id = std::path::Path::new(&e.id);
            e.messages(
                std::path::Path::new(""),
                crate::benchmark::Settings::Campaign,
            )
            .into_iter()
            .map(|m| {
                if m.is_empty() {
                    id.display().to_string()
                } else {
                    m
                }
            })
            .collect::<Vec<_>>()
        };
        match e.outcome {
            Outcome::Named => {}
            Outcome::Ineligible => {
                for r in &e.reasons {
                    let reason = serde_json::to_value(&r.reason)
                        .ok()
                        .and_then(|v| v["reason"].as_str().map(str::to_string))
                        .unwrap_or_else(|| "other".into());
                    out.ineligible.entry(reason).or_default().push(e.id.clone());
                }
            }
            Outcome::Malformed => out.malformed.extend(shown(e)),
            Outcome::Failed => out.failed.extend(shown(e)),
        }
    }
    out
}

impl InputHashes {
    /// The hashes of a campaign's configuration and named index.
    pub fn of(l: &Loaded) -> InputHashes {
        let c = l.campaign;
        InputHashes {
            config: hash_file(&c.dir.join(CONFIG_FILE)),
            named_index: hash_file(&c.named_dir().join(INDEX_FILE)),
        }
    }
}
