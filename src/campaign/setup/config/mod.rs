//! The campaign folder: its config file and where every stage keeps its
//! data.
//!
//! ```text
//! CAMPAIGN/
//!   campaign.toml      the config (see `coreval init` for a commented one)
//!   named/             named benchmarks, mirroring the benchmark tree, + index.jsonl
//!   runs.jsonl         one record per finished (solver, benchmark) run
//!   cores/<hash>.smt2  content-addressed core-only benchmarks
//!   checks.jsonl       one record per finished (core, checker) job
//!   minimality*.jsonl  `[check] minimality`: outcomes, answers on cores minus one
//!   best-known*.jsonl  `[check] best_known`: references, their answers
//!   reports/           pairs.jsonl, scores.json, pairs.csv, report.md, report.html
//!   .pids/             live solver process groups (for orphan clean-up)
//! ```
//!
//! The config is parsed strictly (unknown keys and wrong types are errors
//! that name the file, line and column) and then validated once here, so
//! that the stages get durations, paths and numbers they can trust.

use crate::campaign::setup::config_lines::{bad_value, BadValue, BadValues, Key};
pub mod benchmark_list;
mod solver_entry;
use crate::campaign::verdict::policy::Policy;
use crate::campaign::verdict::rules::{Edition, FamilyDef};
use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use solver_entry::solver_problems;
pub use solver_entry::SolverEntry;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// File name of the config inside a campaign folder.
pub const CONFIG_FILE: &str = "campaign.toml";

/// The config file as written.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ConfigFile {
    /// Root of the benchmarks, relative to the campaign folder.
    pub benchmarks: PathBuf,
    /// A file (relative to the campaign folder) of benchmark ids relative
    /// to `benchmarks`, one a line: only those are named and run
    /// ([`benchmark_list`]).
    pub benchmark_list: Option<PathBuf>,
    /// Folder of solver/checker definitions; default: the installed `checkers/`.
    pub checkers_dir: Option<PathBuf>,
    /// Parallel jobs; 0 = number of cores.
    #[serde(default)]
    pub jobs: usize,
    /// Cross-campaign cache of checker answers; default `$XDG_CACHE_HOME/coreval`.
    pub cache: Option<PathBuf>,
    #[serde(default)]
    pub naming: Naming,
    #[serde(default)]
    pub limits: Limits,
    #[serde(default)]
    pub check: Check,
    #[serde(default)]
    pub score: Score,
    /// The solvers under test.
    #[serde(default, rename = "solver")]
    pub solvers: Vec<SolverEntry>,
}

impl ConfigFile {
    /// A config over `benchmarks` with every default and no solver: the
    /// start of a campaign built in code (tests, `selfcheck`), completed by
    /// setting fields and written with [`ConfigFile::write_to`].
    pub fn new(benchmarks: impl Into<PathBuf>) -> ConfigFile {
        ConfigFile {
            benchmarks: benchmarks.into(),
            benchmark_list: None,
            checkers_dir: None,
            jobs: 0,
            cache: None,
            naming: Naming::default(),
            limits: Limits::default(),
            check: Check::default(),
            score: Score::default(),
            solvers: Vec::new(),
        }
    }

    /// Add a solver under test that is one of the definitions.
    pub fn solver_definition(&mut self, name: &str, definition: &str) -> &mut Self {
        self.solvers.push(SolverEntry {
            name: name.into(),
            definition: Some(definition.into()),
            command: None,
            team: None,
            ..SolverEntry::default()
        });
        self
    }

    /// Add a solver under test run by an inline command (`{file}` in it).
    pub fn solver_command(&mut self, name: &str, command: &[&str]) -> &mut Self {
        self.solvers.push(SolverEntry {
            name: name.into(),
            definition: None,
            command: Some(command.iter().map(|s| s.to_string()).collect()),
            team: None,
            ..SolverEntry::default()
        });
        self
    }

    /// Write it as `DIR/campaign.toml` (creating `DIR`).
    pub fn write_to(&self, dir: &Path) -> Result<()> {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        let text = toml::to_string(self).context("cannot write the config as TOML")?;
        let path = dir.join(CONFIG_FILE);
        std::fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))
    }
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct Naming {
    /// Name prefix; empty = pick one that clashes with nothing.
    pub prefix: String,
    /// Benchmarks that already name terms: `skip`, `strip` or `keep`.
    pub named_policy: crate::benchmark::NamedPolicy,
    /// Benchmarks with fewer assertions are not eligible.
    pub min_assertions: u64,
    /// Accept benchmarks without `(set-info :status unsat)`.
    pub allow_no_status: bool,
    /// Accept any declared status, not only `unsat` (`coreval selfcheck`).
    pub accept_any_status: bool,
    /// Scramble every benchmark with this seed before naming it (solvers
    /// see only scrambled files; maps beside them in `named/`).
    pub scramble_seed: Option<u32>,
    /// With `scramble_seed`: also permute commutative arguments.
    pub scramble_commute: bool,
    /// Name incremental and assumption scripts too (docs/organizers.md,
    /// "Incremental and assumption cores in campaigns"); off, they are ineligible.
    pub incremental: bool,
}

impl Default for Naming {
    fn default() -> Self {
        Naming {
            prefix: String::new(),
            named_policy: crate::benchmark::NamedPolicy::Skip,
            min_assertions: 2,
            allow_no_status: false,
            accept_any_status: false,
            scramble_seed: None,
            scramble_commute: false,
            incremental: false,
        }
    }
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct Limits {
    /// Wall-clock seconds per solver run; default: the `[score] rules`
    /// edition's limit ([`Edition::time_limit`]).
    pub time: Option<f64>,
    /// Memory limit per run in MB; 0 = none.
    pub memory_mb: u64,
    /// Seconds between SIGTERM and SIGKILL.
    pub grace: f64,
    /// Wall-clock seconds per checker run.
    pub checker_time: f64,
    /// Bytes of each output stream kept per run, in MB.
    pub output_cap_mb: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            time: None,
            memory_mb: 0,
            grace: 2.0,
            checker_time: 60.0,
            output_cap_mb: 16,
        }
    }
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct Check {
    /// Checker definitions to use; empty = every installed one.
    pub checkers: Vec<String>,
    /// Decision policy preset.
    pub policy: Policy,
    /// Exclude checkers of the solver's own team.
    pub independent: bool,
    /// Skip or stop checker jobs once a core's verdict cannot change.
    pub early_stop: bool,
    /// Test every validated core for subset-minimality (each member's removal).
    pub minimality: bool,
    /// Seconds of checker time per distinct core for the minimality check.
    pub minimality_budget: f64,
    /// Keep best-known cores per benchmark in the cache and compare to them.
    pub best_known: bool,
    /// Seconds per benchmark to shrink a best-known core by deletion; 0 = no shrinking.
    pub shrink_budget: f64,
    /// Single-query results whose sound participants validate, per
    /// division: a StarExec job CSV, or the smtcomp tool's
    /// `results-sq-YYYY.json.gz` (with `validators_benchmarks`).
    pub validators_from: Option<PathBuf>,
    /// The smtcomp tool's benchmark list (`benchmarks-YYYY.json.gz`) that
    /// gives the statuses for a `results-sq` `validators_from`.
    pub validators_benchmarks: Option<PathBuf>,
    /// Checker definition → its solver name in `validators_from` (default: its own name).
    pub validator_names: std::collections::BTreeMap<String, String>,
}

impl Default for Check {
    fn default() -> Self {
        Check {
            checkers: Vec::new(),
            policy: Policy::Smtcomp2025,
            independent: true,
            early_stop: true,
            minimality: false,
            minimality_budget: 60.0,
            best_known: false,
            shrink_budget: 0.0,
            validators_from: None,
            validators_benchmarks: None,
            validator_names: Default::default(),
        }
    }
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct Score {
    /// Rules edition for scores, as written ([`Campaign::edition`] parsed).
    pub rules: String,
    /// Family definition: `first-folder` or `directory`; default per
    /// edition. As written ([`Campaign::family`] parsed).
    pub family: Option<String>,
    /// Participants table (CSV: solver, team, competing, display name).
    pub participants: Option<PathBuf>,
    /// Logic → division map (TOML); default: the edition's own (2021 on).
    pub divisions: Option<PathBuf>,
}

impl Default for Score {
    fn default() -> Self {
        Score {
            rules: "smtcomp-2025".into(),
            family: None,
            participants: None,
            divisions: None,
        }
    }
}

/// A validated campaign.
#[derive(Debug, Clone)]
pub struct Campaign {
    /// The campaign folder, absolute.
    pub dir: PathBuf,
    /// The campaign folder as the user gave it, for messages
    /// ([`Campaign::config_file`], [`Campaign::shown`]).
    pub shown_dir: PathBuf,
    pub config: ConfigFile,
    /// The rules edition (`[score] rules`).
    pub edition: Edition,
    /// The family definition (`[score] family`; `None`: the edition's).
    pub family: Option<FamilyDef>,
    pub benchmarks: PathBuf,
    /// `benchmark_list`, absolute: the ids below `benchmarks` to name and
    /// run, `None` for every benchmark there.
    pub benchmark_list: Option<PathBuf>,
    pub jobs: usize,
    pub time: Duration,
    pub checker_time: Duration,
    pub grace: Duration,
    pub memory: Option<u64>,
    pub output_cap: usize,
    /// The folder of this process's shard journals (`shards/I-of-N`), if any.
    pub shard_dir: Option<PathBuf>,
    /// The values of the config that cannot work, each a line
    /// `campaign.toml:LINE: …`; empty unless read by
    /// [`Campaign::load_for_preflight`], whose campaign has stand-ins in
    /// their places and is refused by the preflight with them
    /// ([`super::context::Context::load`]).
    pub refused: Vec<String>,
}

impl Campaign {
    /// Read and validate `DIR/campaign.toml`: every value that cannot work
    /// is reported, all at once, each with its line.
    pub fn load(dir: &Path) -> Result<Campaign> {
        let c = Campaign::load_for_preflight(dir)?;
        if c.refused.is_empty() {
            return Ok(c);
        }
        Err(crate::campaign::setup::config_lines::all_at_once(
            &c.config_file(),
            c.refused,
        ))
    }

    /// Read `DIR/campaign.toml` for an entry point that goes on to the
    /// preflight ([`super::context::Context::load`]): a value that cannot
    /// work is not refused here but kept, located, in
    /// [`Campaign::refused`] (a stand-in, the default, in its place), so
    /// that the preflight reports it beside every problem it finds itself,
    /// in one run. What cannot be parsed at all (a wrong type, an unknown
    /// key) is still an error here.
    pub fn load_for_preflight(dir: &Path) -> Result<Campaign> {
        let path = dir.join(CONFIG_FILE);
        let bytes = crate::store::regular::read(&path)
            .with_context(|| format!("cannot read the campaign config {}", path.display()))?;
        let text = std::str::from_utf8(&bytes).map_err(|e| {
            let (line, column) =
                crate::campaign::setup::config_lines::line_column(&bytes, e.valid_up_to());
            anyhow::anyhow!(
                "{}: line {line}, column {column}: byte {:#04x} is not UTF-8 text",
                path.display(),
                bytes[e.valid_up_to()]
            )
        })?;
        let config: ConfigFile = toml::from_str(text)
            .map_err(|e| anyhow::anyhow!("{}: {}", path.display(), e.to_string().trim_end()))?;
        let (mut c, bad) = Campaign::validate(dir, config)?;
        c.refused = crate::campaign::setup::config_lines::located(&bad, &path, text);
        Ok(c)
    }

    /// Validate a parsed config for the campaign folder `dir`: every value
    /// that cannot work is reported, all at once ([`BadValues`]).
    pub fn from_config(dir: &Path, config: ConfigFile) -> Result<Campaign> {
        let (c, bad) = Campaign::validate(dir, config)?;
        if !bad.is_empty() {
            return Err(BadValues(bad).into());
        }
        Ok(c)
    }

    /// The campaign of `config` for the folder `dir`, and every value of
    /// it that cannot work: each has a stand-in in the campaign (its
    /// default), so that what does not depend on it can still be checked.
    fn validate(dir: &Path, config: ConfigFile) -> Result<(Campaign, Vec<BadValue>)> {
        let shown_dir = dir.to_path_buf();
        // Solvers run in their own working folders: every path must be absolute.
        let dir = &std::path::absolute(dir)
            .with_context(|| format!("bad campaign folder {}", dir.display()))?;
        let mut problems = Vec::new();
        let l = &config.limits;
        let edition: Edition = config.score.rules.parse().unwrap_or_else(|e| {
            problems.push(bad_value(
                Key::Table("score", "rules"),
                format!("score.rules: {e}"),
            ));
            Edition::Smtcomp2025
        });
        let family: Option<FamilyDef> = (config.score.family.as_deref().map(str::parse))
            .transpose()
            .unwrap_or_else(|e| {
                problems.push(bad_value(
                    Key::Table("score", "family"),
                    format!("score.family: {e}"),
                ));
                None
            });
        // Unset, the solver time limit is the edition's.
        let time = l.time.unwrap_or_else(|| edition.time_limit());
        // A number of seconds as a duration, `None` when it cannot be one
        // (`positive`: zero cannot either).
        let seconds = |v: f64, positive: bool| {
            let d = Duration::try_from_secs_f64(v).ok()?;
            (v.is_finite() && !(positive && d.is_zero())).then_some(d)
        };
        for (key, v) in [("time", time), ("checker_time", l.checker_time)] {
            if seconds(v, true).is_none() {
                problems.push(bad_value(
                    Key::Table("limits", key),
                    format!("limits.{key} must be a positive number of seconds, not {v:?}"),
                ));
            }
        }
        if seconds(l.grace, false).is_none() {
            problems.push(bad_value(
                Key::Table("limits", "grace"),
                format!(
                    "limits.grace must be a non-negative number of seconds, not {:?}",
                    l.grace
                ),
            ));
        }
        for (key, v) in [
            ("minimality_budget", config.check.minimality_budget),
            ("shrink_budget", config.check.shrink_budget),
        ] {
            if !(v.is_finite() && (0.0..1e9).contains(&v)) {
                problems.push(bad_value(
                    Key::Table("check", key),
                    format!("check.{key} must be a non-negative number of seconds, not {v:?}"),
                ));
            }
        }
        if config.naming.scramble_commute && config.naming.scramble_seed.is_none() {
            problems.push(bad_value(
                Key::Table("naming", "scramble_commute"),
                "naming.scramble_commute needs naming.scramble_seed (the seed to scramble with)",
            ));
        }
        if config.naming.incremental && config.naming.scramble_seed.is_some() {
            problems.push(bad_value(
                Key::Table("naming", "incremental"),
                "naming.incremental cannot be combined with naming.scramble_seed \
                 (incremental scripts are not scrambled)",
            ));
        }
        let mut seen = std::collections::HashSet::new();
        for (i, s) in config.solvers.iter().enumerate() {
            problems.extend(solver_problems(i, s, &mut seen));
        }
        let memory = l.memory_mb.checked_mul(1 << 20).unwrap_or_else(|| {
            problems.push(bad_value(
                Key::Table("limits", "memory_mb"),
                format!("limits.memory_mb is too large: {}", l.memory_mb),
            ));
            0
        });
        let output_cap = usize::try_from(l.output_cap_mb)
            .ok()
            .and_then(|mb| mb.checked_mul(1 << 20));
        if l.output_cap_mb == 0 {
            problems.push(bad_value(
                Key::Table("limits", "output_cap_mb"),
                "limits.output_cap_mb must be at least 1 (MB of each output stream kept per run)",
            ));
        } else if output_cap.is_none() {
            problems.push(bad_value(
                Key::Table("limits", "output_cap_mb"),
                format!("limits.output_cap_mb is too large: {}", l.output_cap_mb),
            ));
        }
        let stand_in = Limits::default();
        let output_cap = output_cap
            .filter(|&c| c > 0)
            .unwrap_or(stand_in.output_cap_mb as usize * (1 << 20));
        // A refused number of seconds has the default in its place.
        let secs = |v: f64, default: f64, positive: bool| {
            seconds(v, positive).unwrap_or(Duration::from_secs_f64(default))
        };
        // `dir` joined with an absolute path is that path.
        let benchmarks = dir.join(&config.benchmarks);
        let benchmark_list = config.benchmark_list.as_ref().map(|l| dir.join(l));
        // Capped silently here; `pipeline::load` says so.
        let (jobs, _) = crate::process::jobs::resolve(config.jobs);
        let campaign = Campaign {
            dir: dir.to_path_buf(),
            shown_dir,
            edition,
            family,
            benchmarks,
            benchmark_list,
            jobs,
            time: secs(time, edition.time_limit(), true),
            checker_time: secs(l.checker_time, stand_in.checker_time, true),
            grace: secs(l.grace, stand_in.grace, false),
            memory: (memory > 0).then_some(memory),
            output_cap,
            shard_dir: None,
            refused: Vec::new(),
            config,
        };
        Ok((campaign, problems))
    }

    /// `campaign.toml` as the user reaches it (the folder as given), for
    /// messages: `my-campaign/campaign.toml:7: …`.
    pub fn config_file(&self) -> PathBuf {
        self.shown_dir.join(CONFIG_FILE)
    }

    /// `path` as the user would write it: below the campaign folder, the
    /// folder as given (`my-campaign/benchmarks`, not its absolute path).
    pub fn shown(&self, path: &Path) -> PathBuf {
        match path.strip_prefix(&self.dir) {
            Ok(rest) => self.shown_dir.join(rest).components().collect(),
            Err(_) => path.to_path_buf(),
        }
    }

    /// A message with every path below the campaign folder written as
    /// [`Campaign::shown`] writes it (for messages made where only the
    /// absolute path is known, such as a definition's missing program).
    pub fn shown_text(&self, text: &str) -> String {
        let abs = self.dir.display().to_string();
        let shown = self.shown_dir.display().to_string();
        text.replace(&format!("{abs}/./"), &format!("{shown}/"))
            .replace(&format!("{abs}/"), &format!("{shown}/"))
    }

    pub fn named_dir(&self) -> PathBuf {
        self.dir.join("named")
    }
    /// Where this process appends journal `name` (`runs.jsonl`,
    /// `cores.jsonl`, `checks.jsonl`): the campaign folder, or its shard's
    /// folder when it runs one shard of a cluster job.
    pub fn journal_path(&self, name: &str) -> PathBuf {
        self.shard_dir.as_deref().unwrap_or(&self.dir).join(name)
    }

    pub fn cores_dir(&self) -> PathBuf {
        self.dir.join("cores")
    }
    pub fn reports_dir(&self) -> PathBuf {
        self.dir.join("reports")
    }
    /// Records of live solver process groups: per shard, since the tasks of
    /// a cluster job may run on several hosts.
    pub fn pid_dir(&self) -> PathBuf {
        self.shard_dir.as_deref().unwrap_or(&self.dir).join(".pids")
    }
    /// The cross-campaign check cache folder.
    pub fn cache_dir(&self) -> PathBuf {
        if let Some(c) = &self.config.cache {
            return if c.is_absolute() {
                c.clone()
            } else {
                self.dir.join(c)
            };
        }
        default_cache_dir()
    }
}

/// `$COREVAL_CACHE`, else `$XDG_CACHE_HOME/coreval`, else `~/.cache/coreval`.
pub fn default_cache_dir() -> PathBuf {
    if let Some(p) = std::env::var_os("COREVAL_CACHE") {
        return PathBuf::from(p);
    }
    if let Some(p) = std::env::var_os("XDG_CACHE_HOME") {
        return PathBuf::from(p).join("coreval");
    }
    let home = std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_else(std::env::temp_dir);
    home.join(".cache").join("coreval")
}

#[cfg(test)]
mod tests;
