//! Solver and checker definitions as data: one `checkers/<name>.toml` per
//! solver, read into a [`SolverDef`]. A new solver is a new file, no code.
//!
//! A definition says how to run the solver on one file (a command template
//! with `{file}`, `{timeout}`, `{timeout_ms}`, `{seed}`, `{memory_mb}`,
//! `{checkers}` placeholders), which logics it supports (patterns with `*`,
//! minus `exclude_logics`), whether and where it produces unsat cores, which
//! team wrote it (checkers of the same team as the solver under test are
//! not independent: cvc4 and cvc5 share team `cvc`, boolector and bitwuzla
//! share team `bitwuzla`), how to read its version and how to install it.
//! `checkers/example.toml` documents every key; `load_dir` skips it.
//!
//! **Input restrictions** (decided here, applied by the check stage):
//! `accepts_named = false` means the checker must get a copy of the script
//! without `:named` annotations; `unsupported_commands` lists commands it
//! rejects (boolector 1.5 rejects `set-option`, `declare-const`,
//! `define-fun`, …). Commands that only set options or request output can
//! be dropped, `declare-const` can be rewritten as a nullary `declare-fun`;
//! a script that needs any other listed command is not given to that
//! checker ([`SolverDef::rejects`]).

pub mod identity;
mod probe;
pub mod template;

pub use probe::PROBE_TIMEOUT;

use anyhow::{bail, Context};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::time::Duration;
use template::{expand, glob_match, uses, validate, PLACEHOLDERS};

/// One solver or checker, as read from `checkers/<name>.toml`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SolverDef {
    /// Unique name, used in configs, reports and file names.
    pub name: String,
    /// Who wrote it; a checker is independent of a solver only when the
    /// teams differ.
    pub team: String,
    /// Program and arguments, with placeholders (see [`template::PLACEHOLDERS`]).
    pub command: Vec<String>,
    /// Logics it supports: patterns where `*` matches any run of characters.
    pub logics: Vec<String>,
    /// Logics it does not support although a `logics` pattern matches.
    #[serde(default)]
    pub exclude_logics: Vec<String>,
    /// Whether it prints unsat cores at all.
    pub produces_cores: bool,
    /// Supported logics in which it prints no core (yices: nonlinear).
    #[serde(default)]
    pub no_core_logics: Vec<String>,
    /// Extra arguments when run as a solver under test to get cores
    /// (minimisation flags); placed before the `{file}` argument.
    #[serde(default)]
    pub core_options: Vec<String>,
    /// Extra arguments for the run that asks a checker for its model after
    /// a `sat` (yices: `--smt2-model-format`; boolector: `-m`), placed
    /// before the `{file}` argument (docs/organizers.md, "Certified refutations").
    #[serde(default)]
    pub model_options: Vec<String>,
    /// Command that prints the version (placeholder `{checkers}` only).
    pub version_command: Vec<String>,
    /// Regex for the version in that output (first group, else the whole
    /// match); without it, the first non-empty line of stdout.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version_regex: Option<String>,
    /// How to install it when it is missing.
    pub install_hint: String,
    /// Whether it accepts `(! … :named …)` annotations.
    #[serde(default = "default_true")]
    pub accepts_named: bool,
    /// SMT-LIB commands it rejects (see the module doc).
    #[serde(default)]
    pub unsupported_commands: Vec<String>,
    /// Where it prints its answers: `stdout` (default), `stderr` or `both`.
    #[serde(default)]
    pub answer_stream: crate::answer::AnswerStream,
    /// The definition this one packages the same solver as (`cvc5-py`:
    /// cvc5 through its Python API). Where both are installed, selfcheck's
    /// default checkers take the other one only: one solver, one vote.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub same_solver_as: Option<String>,
    /// The checkers directory (absolute), the value of `{checkers}`.
    #[serde(skip)]
    pub dir: PathBuf,
    /// The file the definition was read from.
    #[serde(skip)]
    pub source: PathBuf,
}

fn default_true() -> bool {
    true
}

/// Every key of a definition file (for docs and the example's test).
pub const KEYS: &[&str] = &[
    "name",
    "team",
    "command",
    "logics",
    "exclude_logics",
    "produces_cores",
    "no_core_logics",
    "core_options",
    "model_options",
    "version_command",
    "version_regex",
    "install_hint",
    "accepts_named",
    "unsupported_commands",
    "answer_stream",
    "same_solver_as",
];

/// Everything a command line can depend on.
#[derive(Clone, Debug)]
pub struct Invocation<'a> {
    pub file: &'a Path,
    /// The solver's own time limit: `{timeout}` is whole seconds rounded
    /// up, `{timeout_ms}` milliseconds rounded up, both at least 1.
    pub timeout: Duration,
    pub seed: u64,
    /// `{memory_mb}`; when `None`, every argument using it is dropped.
    pub memory_mb: Option<u64>,
    /// Add `core_options` (running as a solver under test).
    pub want_cores: bool,
}

/// The result of [`SolverDef::probe`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "status")]
pub enum Probe {
    /// Installed; the version it reports.
    Ok { version: String },
    /// The program (or a `{checkers}` file it needs) does not exist.
    Missing { detail: String },
    /// Present, but the version command failed or printed no version.
    Broken { detail: String },
}

impl SolverDef {
    /// The wrapper scripts an interpreter runs (`{checkers}/wrappers/cvc5py.py`
    /// after `python`): the files of `{checkers}` among the command's
    /// arguments. Empty for a native program.
    pub fn wrapper_scripts(&self) -> Vec<PathBuf> {
        self.command[1..]
            .iter()
            .filter(|a| template::uses(a, "checkers") && !template::uses(a, "file"))
            .filter_map(|a| self.expand_fixed(a))
            .map(PathBuf::from)
            .filter(|p| p.is_file())
            .collect()
    }

    /// The CPU seconds a run is taken to cost before any run was measured:
    /// a native binary's start (10 ms) or, through an interpreter
    /// ([`SolverDef::wrapper_scripts`]), the interpreter's start and the
    /// module's import (100 ms), so that a native checker is asked before a
    /// wrapped one when nothing is known. It looks at files: work it out
    /// once per checker.
    pub fn prior_cost(&self) -> f64 {
        if self.wrapper_scripts().is_empty() {
            0.01
        } else {
            0.1
        }
    }

    /// Whether the solver handles `logic`.
    pub fn supports(&self, logic: &str) -> bool {
        self.logics.iter().any(|p| glob_match(p, logic))
            && !self.exclude_logics.iter().any(|p| glob_match(p, logic))
    }

    /// Whether the solver prints unsat cores in `logic`.
    pub fn supports_cores(&self, logic: &str) -> bool {
        self.produces_cores
            && self.supports(logic)
            && !self.no_core_logics.iter().any(|p| glob_match(p, logic))
    }

    /// Whether the checker's team differs from `other`'s.
    pub fn independent_of(&self, other: &SolverDef) -> bool {
        self.team != other.team
    }

    /// Whether the solver rejects the SMT-LIB command `command` (e.g. `"set-option"`).
    pub fn rejects(&self, command: &str) -> bool {
        self.unsupported_commands.iter().any(|c| c == command)
    }

    fn checkers_dir(&self) -> String {
        self.dir.to_string_lossy().into_owned()
    }

    /// Program and arguments to check `file` (no core options, no memory limit).
    pub fn command_for(&self, file: &Path, timeout: Duration, seed: u64) -> (PathBuf, Vec<String>) {
        self.command(&Invocation {
            file,
            timeout,
            seed,
            memory_mb: None,
            want_cores: false,
        })
    }

    /// Program and arguments for `inv`. Arguments whose placeholder has no
    /// value are dropped; `core_options` go before the `{file}` argument.
    pub fn command(&self, inv: &Invocation) -> (PathBuf, Vec<String>) {
        let secs = inv.timeout.as_secs() + u64::from(inv.timeout.subsec_nanos() > 0);
        let millis = inv.timeout.as_nanos().div_ceil(1_000_000);
        let value = |name: &str| -> Option<String> {
            match name {
                "file" => Some(inv.file.to_string_lossy().into_owned()),
                "timeout" => Some(secs.max(1).to_string()),
                "timeout_ms" => Some(millis.max(1).to_string()),
                "seed" => Some(inv.seed.to_string()),
                "memory_mb" => inv.memory_mb.map(|m| m.to_string()),
                "checkers" => Some(self.checkers_dir()),
                _ => None,
            }
        };
        let mut argv: Vec<String> =
            Vec::with_capacity(self.command.len() + self.core_options.len());
        for arg in &self.command {
            if inv.want_cores && uses(arg, "file") {
                argv.extend(self.core_options.iter().filter_map(|o| expand(o, &value)));
            }
            argv.extend(expand(arg, &value));
        }
        let program = PathBuf::from(argv.remove(0));
        (program, argv)
    }

    fn expand_fixed(&self, arg: &str) -> Option<String> {
        let dir = self.checkers_dir();
        expand(arg, &|name| (name == "checkers").then(|| dir.clone()))
    }

    /// The program of `command`, resolved against `PATH` when it has no `/`.
    pub fn program(&self) -> Option<PathBuf> {
        let program = self.expand_fixed(&self.command[0])?;
        resolve_program(&program)
    }

    /// Why the solver cannot run, if it cannot: the program is not an
    /// executable file, or a file under `{checkers}` named in the command
    /// (a wrapper script) is missing.
    pub fn missing(&self) -> Option<String> {
        if self.program().is_none() {
            let shown = self.expand_fixed(&self.command[0]).unwrap_or_default();
            return Some(format!("program {shown} not found or not executable"));
        }
        for arg in &self.command[1..] {
            if uses(arg, "checkers") && !uses(arg, "file") {
                let path = self.expand_fixed(arg).unwrap_or_default();
                if !Path::new(&path).exists() {
                    return Some(format!("{path} not found"));
                }
            }
        }
        None
    }

    /// Whether the program (and any wrapper script under `{checkers}`) exists.
    pub fn is_installed(&self) -> bool {
        self.missing().is_none()
    }

    /// Run `version_command` (at most [`PROBE_TIMEOUT`]) and say what it
    /// found. One process asks once per program file as it is (a file
    /// replaced since is asked again): preflight and provenance both ask.
    pub fn probe(&self) -> Probe {
        if let Some(detail) = self.missing() {
            return Probe::Missing { detail };
        }
        let argv: Vec<String> = self
            .version_command
            .iter()
            .filter_map(|a| self.expand_fixed(a))
            .collect();
        let Some(program) = argv.first().and_then(|p| resolve_program(p)) else {
            return Probe::Missing {
                detail: format!("version command {:?} not found", argv.first()),
            };
        };
        probe::memo(&argv, &self.command, || self.probe_now(&program, &argv))
    }

    fn probe_now(&self, program: &Path, argv: &[String]) -> Probe {
        let out = match probe::run(program, &argv[1..]) {
            Ok(out) => out,
            Err(detail) => return Probe::Broken { detail },
        };
        let regex = self
            .version_regex
            .as_deref()
            .and_then(|r| regex::Regex::new(r).ok());
        match probe::extract(&out, regex.as_ref()) {
            Some(version) if out.success => Probe::Ok { version },
            _ => {
                let text = if out.stderr.trim().is_empty() {
                    &out.stdout
                } else {
                    &out.stderr
                };
                let last = text
                    .lines()
                    .rev()
                    .find(|l| !l.trim().is_empty())
                    .unwrap_or("no output");
                let status = if out.success {
                    "no version in output"
                } else {
                    "failed"
                };
                Probe::Broken {
                    detail: format!("{} {status}: {}", argv.join(" "), last.trim()),
                }
            }
        }
    }

    /// The version the solver reports, if it runs.
    pub fn probe_version(&self) -> Option<String> {
        match self.probe() {
            Probe::Ok { version } => Some(version),
            _ => None,
        }
    }
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    path.metadata()
        .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// A program word as run: a path with `/` as it is, else looked up in `PATH`;
/// `None` unless it is an executable file.
pub fn resolve_program(program: &str) -> Option<PathBuf> {
    if program.contains('/') {
        let p = PathBuf::from(program);
        return is_executable(&p).then_some(p);
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(program))
        .find(|p| is_executable(p))
}

/// The 1-based line of `key = …` in `src`, for messages.
fn line_of(src: &str, key: &str) -> usize {
    src.lines()
        .position(|l| {
            let l = l.trim_start();
            l.strip_prefix(key)
                .is_some_and(|rest| rest.trim_start().starts_with('='))
        })
        .map_or(1, |i| i + 1)
}

/// Read and check one definition file; `dir` is the value of `{checkers}`.
pub fn load_file(path: &Path, dir: &Path) -> anyhow::Result<SolverDef> {
    let src = crate::store::regular::read_to_string(path)
        .with_context(|| format!("cannot read {}", path.display()))?;
    let mut def: SolverDef =
        toml::from_str(&src).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    def.dir = dir.to_path_buf();
    def.source = path.to_path_buf();
    let at = |key: &str| format!("{}:{}", path.display(), line_of(&src, key));
    let simple = |s: &str| {
        !s.is_empty()
            && s.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b))
    };
    if !simple(&def.name) {
        bail!(
            "{}: `name` must be non-empty letters, digits, `.`, `_`, `-`; got {:?}",
            at("name"),
            def.name
        );
    }
    if def.team.trim().is_empty() {
        bail!("{}: `team` must not be empty", at("team"));
    }
    for (key, list, allowed) in [
        ("command", &def.command, PLACEHOLDERS),
        ("core_options", &def.core_options, PLACEHOLDERS),
        ("model_options", &def.model_options, PLACEHOLDERS),
        ("version_command", &def.version_command, &["checkers"][..]),
    ] {
        for arg in list {
            validate(arg, allowed).map_err(|e| anyhow::anyhow!("{}: `{key}`: {e}", at(key)))?;
        }
    }
    if def.command.is_empty() || uses(&def.command[0], "file") {
        bail!("{}: `command` must start with the program", at("command"));
    }
    if !def.command.iter().any(|a| uses(a, "file")) {
        bail!(
            "{}: `command` must pass the benchmark with a {{file}} argument",
            at("command")
        );
    }
    if def.version_command.is_empty() {
        bail!(
            "{}: `version_command` must not be empty",
            at("version_command")
        );
    }
    if def.logics.is_empty() {
        bail!(
            "{}: `logics` must list at least one pattern (\"*\" for all)",
            at("logics")
        );
    }
    for (key, list) in [
        ("logics", &def.logics),
        ("exclude_logics", &def.exclude_logics),
        ("no_core_logics", &def.no_core_logics),
    ] {
        if let Some(bad) = list.iter().find(|p| {
            p.is_empty()
                || !p
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"_*".contains(&b))
        }) {
            bail!(
                "{}: `{key}`: {bad:?} is not a logic pattern (letters, digits, `_`, `*`)",
                at(key)
            );
        }
    }
    let core_keys = !def.core_options.is_empty() || !def.no_core_logics.is_empty();
    if !def.produces_cores && core_keys {
        bail!(
            "{}: `core_options` / `no_core_logics` given but `produces_cores = false`",
            at("produces_cores")
        );
    }
    if let Some(re) = &def.version_regex {
        regex::Regex::new(re)
            .map_err(|e| anyhow::anyhow!("{}: `version_regex`: {e}", at("version_regex")))?;
    }
    Ok(def)
}

/// The documented example in a checkers directory; [`load_dir`] skips it.
pub const EXAMPLE_FILE: &str = "example.toml";

/// Every definition in `dir` (`*.toml` except [`EXAMPLE_FILE`]), sorted by
/// file name. Any broken file is an error naming file and line; two files
/// with the same `name` are an error.
pub fn load_dir(dir: &Path) -> anyhow::Result<Vec<SolverDef>> {
    let entries = std::fs::read_dir(dir).with_context(|| {
        format!(
            "cannot read checkers directory {} (set COREVAL_CHECKERS or pass --dir)",
            dir.display()
        )
    })?;
    let abs = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    let mut files = Vec::new();
    for entry in entries {
        let path = entry
            .with_context(|| format!("cannot list {}", dir.display()))?
            .path();
        let is_toml = path.extension().is_some_and(|e| e == "toml");
        if is_toml && path.file_name().is_some_and(|n| n != EXAMPLE_FILE) {
            files.push(path);
        }
    }
    files.sort();
    let mut defs: Vec<SolverDef> = Vec::with_capacity(files.len());
    for path in files {
        let def = load_file(&path, &abs)?;
        if let Some(other) = defs.iter().find(|d| d.name == def.name) {
            bail!(
                "{}: name {:?} is already defined in {}",
                path.display(),
                def.name,
                other.source.display()
            );
        }
        defs.push(def);
    }
    Ok(defs)
}

/// Where definitions live: `$COREVAL_CHECKERS`, else `./checkers` when it
/// holds definitions (a `*.toml` file: an unrelated `checkers/` folder of
/// the current directory does not hide the installed ones), else the
/// `checkers/` folder of the source tree.
pub fn default_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("COREVAL_CHECKERS").filter(|d| !d.is_empty()) {
        return PathBuf::from(dir);
    }
    let local = PathBuf::from("checkers");
    if holds_definitions(&local) {
        return local;
    }
    Path::new(env!("CARGO_MANIFEST_DIR")).join("checkers")
}

/// Whether `dir` holds at least one `*.toml` file.
fn holds_definitions(dir: &Path) -> bool {
    std::fs::read_dir(dir).is_ok_and(|entries| {
        entries.flatten().any(|e| {
            e.path().extension().is_some_and(|x| x == "toml")
                && e.file_type().is_ok_and(|t| !t.is_dir())
        })
    })
}

#[cfg(test)]
mod tests;
