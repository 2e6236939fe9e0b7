//! Provenance: what produced a journal record. Every solver run
//! (`runs.jsonl`) and checker run (`checks.jsonl`) carries a
//! [`Provenance`]: the command as run (the benchmark or core file relative
//! to the campaign), the limits, the program's identity (resolved
//! executable and its BLAKE3 hash; for a `#!` script or an interpreter
//! given a script file, the script's hash too; the version it reports) and,
//! for a solver run, the hash of the named benchmark.
//!
//! [`Current`] is what the configuration would run now, computed once per
//! campaign load (programs hashed and probed in parallel, each distinct
//! program once). A record counts only when its provenance matches
//! ([`Current::run_stale`], [`Current::check_stale`]); the reason of a
//! mismatch is what the stages print ("command changed"). The stages
//! journal the compact form (the configuration's id in the provenance
//! table, [`super::configs`]); a record whose id is the configuration's
//! own matches without comparing anything else. Paths of programs (and of
//! a script an interpreter is given) are recorded but not compared
//! ([`compared`]): the same bytes elsewhere are the same program. The
//! cross-campaign cache is keyed by [`key_of`], so a new build
//! of a checker never reuses an old build's answers.

use super::configs::{Config, Table};
use super::index::Bench;
use super::produced::{benchexec_program, file_id};
pub use super::produced::{hash_file, FileId, Limits, Program, Provenance};
use super::records::{CheckRecord, RunRecord};
use crate::campaign::setup::solvers::SolverUnderTest;
use crate::campaign::setup::Campaign;
use crate::checkers::{Invocation, Probe, SolverDef};
use crate::message::Say;
use rayon::prelude::*;
use rustc_hash::FxHashMap as HashMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// What the configuration runs for one solver or checker.
#[derive(Clone, Debug)]
pub struct Expected {
    /// Program and arguments with `{file}` for the input.
    pub template: Vec<String>,
    pub limits: Limits,
    pub program: Program,
    /// The program is not installed here (scoring elsewhere): records are
    /// compared on their command and limits only.
    pub unverified: bool,
    /// Its id in the provenance table ([`super::configs::id_of`]).
    pub id: String,
}

/// The interpreter of a `#!` script (`#!/usr/bin/env python3` → python3 in `PATH`).
fn interpreter(script: &Path) -> Option<Option<PathBuf>> {
    use std::io::Read;
    let mut head = [0u8; 256];
    let n = std::fs::File::open(script).ok()?.read(&mut head).ok()?;
    let head = &head[..n];
    if !head.starts_with(b"#!") {
        return None;
    }
    let line = String::from_utf8_lossy(&head[2..]);
    let line = line.lines().next().unwrap_or("");
    let mut words = line.split_whitespace();
    let first = words.next().unwrap_or("");
    let program = if Path::new(first).file_name().is_some_and(|n| n == "env") {
        words.find(|w| !w.starts_with('-')).unwrap_or(first)
    } else {
        first
    };
    Some(crate::checkers::resolve_program(program))
}

/// The identity of a definition's program (`base`: where relative script
/// arguments are found, the campaign folder). The version is probed when
/// `probe` is given; a failed probe is a warning said to it.
pub fn identify(def: &SolverDef, base: &Path, probe: Option<Say>) -> Program {
    let Some(program) = def.program() else {
        return Program::default();
    };
    let (executable, script) = match interpreter(&program) {
        Some(interp) => (interp.and_then(|i| file_id(&i)), file_id(&program)),
        None => {
            let (_, args) = template_of(def, &limits_placeholder(), true);
            let script = args
                .iter()
                .filter(|a| !a.contains("{file}") && !a.starts_with('-'))
                .map(|a| {
                    let p = Path::new(a);
                    if p.is_absolute() {
                        p.to_path_buf()
                    } else {
                        base.join(p)
                    }
                })
                .find(|p| p.is_file())
                .and_then(|p| file_id(&p));
            (file_id(&program), script)
        }
    };
    let version = match probe.filter(|_| !def.version_command.is_empty()) {
        Some(say) => match def.probe() {
            Probe::Ok { version } => Some(version),
            Probe::Missing { detail } | Probe::Broken { detail } => {
                say.warning_once(format!(
                    "{}: version unknown ({detail}); its checker answers are not cached",
                    def.name
                ));
                None
            }
        },
        None => None,
    };
    Program {
        executable,
        script,
        version,
    }
}

fn limits_placeholder() -> Limits {
    Limits {
        time: Some(1.0),
        checker_time: None,
        memory_mb: None,
        grace: 0.0,
        output_cap: 0,
    }
}

/// Program and arguments of `def` under `limits`, with `{file}` for the input.
fn template_of(def: &SolverDef, limits: &Limits, want_cores: bool) -> (PathBuf, Vec<String>) {
    let secs = limits.time.or(limits.checker_time).unwrap_or(1.0);
    def.command(&Invocation {
        file: Path::new("{file}"),
        timeout: Duration::from_secs_f64(secs),
        seed: 0,
        memory_mb: limits.memory_mb,
        want_cores,
    })
}

impl Expected {
    fn new(def: &SolverDef, limits: Limits, program: Program, want_cores: bool) -> Expected {
        let (p, args) = template_of(def, &limits, want_cores);
        let mut template = vec![p.to_string_lossy().into_owned()];
        template.extend(args);
        Expected {
            id: super::configs::id_of(&template, &limits, &program),
            template,
            limits,
            unverified: program.executable.is_none(),
            program,
        }
    }

    /// Its line of the provenance table.
    fn config(&self) -> Config {
        Config::new(&self.template, &self.limits, &self.program)
    }

    /// The provenance of a run of this program on `file` (relative to the
    /// campaign): compact when its configuration is in `table` (written
    /// there now if needed), else inline. `file` is left out of a compact
    /// solver run's record when it is `named/` and the benchmark id
    /// (`default_file`).
    fn provenance(
        &self,
        table: &Table,
        file: &str,
        default_file: bool,
        benchmark: Option<&str>,
    ) -> Provenance {
        if table.has(&self.id) || table.ensure(&self.config()) {
            return Provenance {
                of: Some(self.id.clone()),
                command: Vec::new(),
                file: if default_file {
                    String::new()
                } else {
                    file.to_string()
                },
                limits: Default::default(),
                program: Default::default(),
                benchmark: benchmark.map(|b| b[..b.len().min(16)].to_string()),
            };
        }
        self.config().inline(file, benchmark.map(str::to_string))
    }

    /// Why a record of provenance `p` is not what this would run; `None`
    /// when it is. A compact record's configuration comes from `table`.
    fn differs(
        &self,
        p: Option<&Provenance>,
        benchmark: Option<&str>,
        table: &Table,
    ) -> Option<&'static str> {
        let Some(p) = p else {
            return Some("recorded without provenance (an earlier coreval)");
        };
        let bench_differs = || {
            benchmark.is_some_and(|now| {
                !p.benchmark
                    .as_deref()
                    .is_some_and(|b| b == now || (b.len() == 16 && now.starts_with(b)))
            })
        };
        let found;
        let (limits, template, program) = match &p.of {
            // Its own configuration: nothing else to compare.
            Some(id) if *id == self.id => {
                return bench_differs().then_some("benchmark changed");
            }
            Some(id) => {
                let Some(k) = table.get(id) else {
                    return Some("provenance not in provenance.jsonl");
                };
                found = k;
                (&found.limits, found.command.clone(), &found.program)
            }
            None => (&*p.limits, p.template(), &*p.program),
        };
        let hash = |f: &Option<FileId>| f.as_ref().map(|f| f.blake3.clone());
        if *limits != self.limits {
            Some("limits changed")
        } else if compared(&template, program) != compared(&self.template, &self.program) {
            Some("command changed")
        } else if !self.unverified
            && (hash(&program.executable) != hash(&self.program.executable)
                || hash(&program.script) != hash(&self.program.script))
        {
            Some("program changed")
        } else if !self.unverified && program.version != self.program.version {
            Some("version changed")
        } else if bench_differs() {
            Some("benchmark changed")
        } else {
            None
        }
    }

    /// The cache key of this program's answers; none without a version.
    pub fn key(&self) -> Option<String> {
        key_parts(&self.template, &self.limits, &self.program)
    }
}

/// A command as compared ([`Expected::differs`], the cache key): the
/// program, and a script file it is given, by file name only, since their
/// identity is compared by hash (where they lie is not: a folder of links
/// to the same programs is the same configuration); the other arguments
/// as they are.
fn compared(template: &[String], program: &Program) -> Vec<String> {
    let name = |a: &str| {
        Path::new(a)
            .file_name()
            .map_or_else(|| a.to_string(), |n| n.to_string_lossy().into_owned())
    };
    let script = program.script.as_ref().map(|f| name(&f.path));
    template
        .iter()
        .enumerate()
        .map(|(i, a)| {
            let is_script = a.contains('/')
                && !a.contains("{file}")
                && script.as_deref() == Some(name(a).as_str());
            if i == 0 || is_script {
                name(a)
            } else {
                a.clone()
            }
        })
        .collect()
}

fn key_parts(template: &[String], limits: &Limits, program: &Program) -> Option<String> {
    program.version.as_ref()?;
    program.executable.as_ref()?;
    let template = compared(template, program);
    let text = serde_json::to_string(&(template, limits, program_hashes(program))).ok()?;
    Some(blake3::hash(text.as_bytes()).to_hex().to_string())
}

fn program_hashes(p: &Program) -> (Option<&str>, Option<&str>, Option<&str>) {
    (
        p.executable.as_ref().map(|f| f.blake3.as_str()),
        p.script.as_ref().map(|f| f.blake3.as_str()),
        p.version.as_deref(),
    )
}

/// The cache key of a check record: its command, limits and program;
/// none without inline provenance or version (such answers are not
/// cached; the cache's records are inline, [`Current::inline_check`]).
pub fn key_of(r: &CheckRecord) -> Option<String> {
    let p = r.provenance.as_ref().filter(|p| p.of.is_none())?;
    key_parts(&p.template(), &p.limits, &p.program)
}

/// What the configuration would run now: per solver under test, per
/// checker, and the hash of every named benchmark.
#[derive(Clone, Debug, Default)]
pub struct Current {
    pub solvers: HashMap<String, Expected>,
    pub checkers: HashMap<String, Expected>,
    benches: HashMap<String, String>,
    /// The provenance table the compact records refer to.
    table: Table,
}

impl Current {
    /// Identify the solvers under test and the checkers (`checkers`: the
    /// configured ones, probed; `others`: definitions whose records may be
    /// read but that are not run here) and hash the named benchmarks.
    pub fn build(
        c: &Campaign,
        solvers: &[SolverUnderTest],
        checkers: &[SolverDef],
        others: &[SolverDef],
        index: &[Bench],
        say: Say,
    ) -> Current {
        let memory_mb = c.memory.map(|m| m / (1024 * 1024));
        let limits = |time: Option<f64>, checker_time: Option<f64>| Limits {
            time,
            checker_time,
            memory_mb,
            grace: c.grace.as_secs_f64(),
            output_cap: c.output_cap as u64,
        };
        // Each distinct definition once (a solver under test is often a checker too).
        let mut defs: Vec<&SolverDef> = (solvers.iter())
            .filter(|s| s.benchexec.is_none())
            .map(|s| &s.def)
            .collect();
        defs.extend(checkers);
        let mut distinct: Vec<&SolverDef> = Vec::new();
        for d in defs {
            if !distinct.iter().any(|x| {
                x.command == d.command && x.version_command == d.version_command && x.dir == d.dir
            }) {
                distinct.push(d);
            }
        }
        let programs: Vec<Program> = std::thread::scope(|s| {
            let handles: Vec<_> = distinct
                .iter()
                .map(|d| s.spawn(|| identify(d, &c.dir, Some(say))))
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or_default())
                .collect()
        });
        let program_of = |d: &SolverDef| {
            distinct
                .iter()
                .position(|x| {
                    x.command == d.command
                        && x.version_command == d.version_command
                        && x.dir == d.dir
                })
                .map(|i| programs[i].clone())
                .unwrap_or_default()
        };
        let solver_limits = limits(Some(c.time.as_secs_f64()), None);
        let checker_limits = limits(None, Some(c.checker_time.as_secs_f64()));
        let solvers = solvers
            .iter()
            .map(|s| {
                let x = match &s.benchexec {
                    Some(b) => {
                        let (time, memory_mb) = b.limits();
                        let limits = Limits {
                            time,
                            checker_time: None,
                            memory_mb,
                            grace: 0.0,
                            output_cap: 0,
                        };
                        Expected::new(&s.def, limits, benchexec_program(b), true)
                    }
                    None => Expected::new(&s.def, solver_limits.clone(), program_of(&s.def), true),
                };
                (s.name.clone(), x)
            })
            .collect();
        let mut by_checker: HashMap<String, Expected> = others
            .iter()
            .map(|k| {
                let x = Expected::new(k, checker_limits.clone(), Program::default(), false);
                (k.name.clone(), x)
            })
            .collect();
        for k in checkers {
            let x = Expected::new(k, checker_limits.clone(), program_of(k), false);
            by_checker.insert(k.name.clone(), x);
        }
        let named = c.named_dir();
        let benches = index
            .par_iter()
            .filter_map(|e| {
                let h = e
                    .hash
                    .clone()
                    .or_else(|| hash_file(&named.join(&e.output)))?;
                Some((e.id.to_string(), h))
            })
            .collect();
        Current {
            solvers,
            checkers: by_checker,
            benches,
            table: Table::load(c, say),
        }
    }

    /// The hash of a named benchmark.
    pub fn bench_hash(&self, id: &str) -> Option<&str> {
        self.benches.get(id).map(String::as_str)
    }

    /// The provenance of a run of `solver` on `e`.
    pub fn run_provenance(&self, solver: &str, e: &Bench) -> Option<Provenance> {
        let file = format!("named/{}", e.output);
        let x = self.solvers.get(solver)?;
        let default_file = *e.output == *e.id;
        Some(x.provenance(&self.table, &file, default_file, self.bench_hash(&e.id)))
    }

    /// The provenance of a run of `checker` on `file` (inside the campaign `c`).
    pub fn check_provenance(&self, c: &Campaign, checker: &str, file: &Path) -> Option<Provenance> {
        let rel = file.strip_prefix(&c.dir).unwrap_or(file);
        let x = self.checkers.get(checker)?;
        Some(x.provenance(&self.table, &rel.to_string_lossy(), false, None))
    }

    /// `p` in the inline form (the command as run, limits, program): a
    /// compact provenance resolved through the table (`benchmark`: the
    /// record's benchmark id, the input of a compact solver run without
    /// `file`); `None` when its configuration is not in the table.
    pub fn inline(&self, p: &Provenance, benchmark: Option<&str>) -> Option<Provenance> {
        let Some(id) = &p.of else {
            return Some(p.clone());
        };
        let k = self.table.get(id)?;
        let file = match (p.file.is_empty(), benchmark) {
            (true, Some(b)) => format!("named/{b}"),
            _ => p.file.clone(),
        };
        // The whole hash when the prefix is the current benchmark's.
        let hash = match (benchmark.and_then(|b| self.bench_hash(b)), &p.benchmark) {
            (Some(now), Some(b)) if now.starts_with(b.as_str()) => Some(now.to_string()),
            (_, b) => b.clone(),
        };
        Some(k.inline(&file, hash))
    }

    /// A run record with its provenance inline (for the run cache, the
    /// reports).
    pub fn inline_run(&self, r: &RunRecord) -> RunRecord {
        let mut r = r.clone();
        r.provenance = r
            .provenance
            .as_deref()
            .and_then(|p| self.inline(p, Some(&r.benchmark)))
            .map(Box::new);
        r
    }

    /// A check record with its provenance inline (for the check cache).
    pub fn inline_check(&self, r: &CheckRecord) -> CheckRecord {
        let mut r = r.clone();
        r.provenance = r.provenance.as_ref().and_then(|p| self.inline(p, None));
        r
    }

    /// Why a run record is not what the configuration runs now (`None`:
    /// it counts). A solver no longer configured is "not configured".
    pub fn run_stale(&self, r: &RunRecord) -> Option<&'static str> {
        let Some(x) = self.solvers.get(&r.solver) else {
            return Some("solver not configured");
        };
        let Some(bench) = self.bench_hash(&r.benchmark) else {
            return Some("benchmark not named");
        };
        x.differs(r.provenance.as_deref(), Some(bench), &self.table)
    }

    /// Why a check record does not count now (`None`: it does).
    pub fn check_stale(&self, r: &CheckRecord) -> Option<&'static str> {
        let Some(x) = self.checkers.get(&r.checker) else {
            return Some("checker not configured");
        };
        x.differs(r.provenance.as_ref(), None, &self.table)
    }

    /// The cache key of a checker's answers now.
    pub fn checker_key(&self, checker: &str) -> Option<String> {
        self.checkers.get(checker)?.key()
    }

    /// The version a solver or checker reports now.
    pub fn version(&self, name: &str, checker: bool) -> Option<String> {
        let map = if checker {
            &self.checkers
        } else {
            &self.solvers
        };
        map.get(name)?.program.version.clone()
    }
}

/// The source of a core-only benchmark: the benchmark's hash and the core's
/// names, so that a core record is used only for the run it was built from.
pub fn core_source(bench_hash: Option<&str>, core: &[String]) -> String {
    core_source_hash(bench_hash, core).to_hex().to_string()
}

/// Whether `source` (hex) is [`core_source`] of the benchmark's hash and
/// the core, without making the text of either (a million pairs are
/// compared when a stage reads `cores.jsonl`).
pub fn is_core_source(source: &str, bench_hash: Option<&str>, core: &[String]) -> bool {
    blake3::Hash::from_hex(source).is_ok_and(|h| h == core_source_hash(bench_hash, core))
}

/// The hash of the benchmark's hash and the sorted distinct names, one a
/// line.
fn core_source_hash(bench_hash: Option<&str>, core: &[String]) -> blake3::Hash {
    let mut names: Vec<&str> = core.iter().map(String::as_str).collect();
    names.sort_unstable();
    names.dedup();
    let mut h = blake3::Hasher::new();
    h.update(bench_hash.unwrap_or("").as_bytes());
    h.update(b"\n");
    for (i, n) in names.iter().enumerate() {
        if i > 0 {
            h.update(b"\n");
        }
        h.update(n.as_bytes());
    }
    h.finalize()
}

#[cfg(test)]
#[path = "provenance_tests.rs"]
mod tests;
