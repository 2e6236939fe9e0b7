//! The solvers under test of a campaign, resolved against the definitions
//! folder, and how one of them (or a checker) is run on one file.

use super::config::Campaign;
use crate::checkers::{self, SolverDef};
use crate::runner::{self, RunSpec};
use anyhow::{bail, Result};
use std::path::{Path, PathBuf};

/// A solver under test, resolved from the config.
#[derive(Clone, Debug)]
pub struct SolverUnderTest {
    pub name: String,
    /// The team declared (or the definition's, or the program's name).
    pub team: String,
    /// Its declared teams: `team`, the config's `teams` and the teams of
    /// the checker definitions its command runs ([`SolverUnderTest::runs`]).
    /// With [`SolverUnderTest::same_program`] and
    /// [`SolverUnderTest::executed`], its team identity
    /// ([`super::team`], [`SolverUnderTest::own_team`]).
    pub teams: Vec<String>,
    /// The checker definitions the solver's command runs, each with why
    /// ([`crate::checkers::identity`]).
    pub runs: Vec<(String, String)>,
    /// Definition name when the solver is one of the checkers' definitions.
    pub definition: Option<String>,
    pub def: SolverDef,
    /// The folder it runs in (`None`: an empty folder of its own per run).
    pub workdir: Option<PathBuf>,
    /// Its runs go through the run cache ([`crate::solve::cache`]).
    pub cached: bool,
    /// Its runs record the programs seen in its process tree: always for
    /// a solver under test (the `observe` key is kept for old configs).
    pub observe: bool,
    /// A reference solver: its cores are checked only where they could
    /// matter (`[[solver]] reference`, see [`crate::check`]).
    pub reference: bool,
    /// The checkers whose program has the content of its own.
    pub same_program: Vec<super::team::Member>,
    /// The checkers whose program its runs were seen executing, as the
    /// runs are read.
    pub executed: super::team::Executed,
    /// Its runs come from a BenchExec result file, not from a command.
    pub benchexec: Option<std::sync::Arc<super::benchexec::BenchExecRuns>>,
}

/// Resolve the config's solvers against the definitions folder.
pub fn solvers_under_test(c: &Campaign, defs: &[SolverDef]) -> Result<Vec<SolverUnderTest>> {
    let mut out = Vec::new();
    for s in &c.config.solvers {
        if let Some(xml) = &s.benchexec {
            out.push(from_benchexec(c, s, xml, defs)?);
            continue;
        }
        let mut def = match (&s.definition, &s.command) {
            (Some(d), _) => {
                let Some(found) = defs.iter().find(|x| &x.name == d) else {
                    bail!(
                        "solver '{}': no definition '{d}' in the checkers folder (known: {})",
                        s.name,
                        defs.iter()
                            .map(|x| x.name.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    );
                };
                found.clone()
            }
            (None, Some(cmd)) => inline_def(c, &s.name, s.team.as_deref().unwrap_or(&s.name), cmd)?,
            (None, None) => bail!("solver '{}' has neither definition nor command", s.name),
        };
        def.command.extend(s.args.iter().cloned());
        if let Some(stream) = s.answer_stream {
            def.answer_stream = stream;
        }
        let runs = checkers::identity::runs(&def, defs);
        let team = match (&s.team, &s.definition, runs.first()) {
            (Some(t), _, _) => t.clone(),
            (None, None, Some((k, _))) => defs
                .iter()
                .find(|d| &d.name == k)
                .map_or_else(|| def.team.clone(), |d| d.team.clone()),
            _ => def.team.clone(),
        };
        let mut teams = vec![team.clone()];
        for t in &s.teams {
            if !teams.contains(t) {
                teams.push(t.clone());
            }
        }
        for (k, _) in &runs {
            if let Some(d) = defs.iter().find(|d| &d.name == k) {
                if !teams.contains(&d.team) {
                    teams.push(d.team.clone());
                }
            }
        }
        let same_program = super::team::members(checkers::identity::same_content(&def, defs), defs);
        out.push(SolverUnderTest {
            name: s.name.clone(),
            team,
            teams,
            runs,
            definition: s.definition.clone(),
            def,
            workdir: s.workdir.clone(),
            cached: s.cached,
            observe: true,
            reference: s.reference,
            same_program,
            executed: Default::default(),
            benchexec: None,
        });
    }
    Ok(out)
}

/// A solver whose runs come from a BenchExec result file. Its team is the
/// one declared, else that of the definition of the tool BenchExec ran
/// (the tool-info module's name, `benchexec.tools.z3` → `z3`), else the
/// tool's name: a z3 run under BenchExec is never judged by z3.
fn from_benchexec(
    c: &Campaign,
    s: &super::config::SolverEntry,
    xml: &Path,
    defs: &[SolverDef],
) -> Result<SolverUnderTest> {
    let runs = super::benchexec::load_for(c, &s.name, xml, s.benchexec_logs.as_deref())?;
    let key = runs.tool_key();
    let same = defs.iter().find(|d| d.name.to_ascii_lowercase() == key);
    let team = s
        .team
        .clone()
        .or_else(|| same.map(|d| d.team.clone()))
        .unwrap_or_else(|| key.clone());
    let mut teams = vec![team.clone()];
    for t in s.teams.iter().chain(same.map(|d| &d.team)) {
        if !teams.contains(t) {
            teams.push(t.clone());
        }
    }
    let why = format!("is the tool BenchExec ran ({})", runs.tool());
    let def = inline_def(c, &s.name, &team, &runs.command())?;
    Ok(SolverUnderTest {
        name: s.name.clone(),
        team,
        teams,
        runs: same.map(|d| (d.name.clone(), why)).into_iter().collect(),
        definition: None,
        def,
        workdir: None,
        cached: false,
        observe: false,
        reference: s.reference,
        same_program: Vec::new(),
        executed: Default::default(),
        benchexec: Some(std::sync::Arc::new(runs)),
    })
}

/// A definition for an inline `command`: every logic, cores expected, a
/// relative program path taken from the campaign folder. No shell is
/// involved: the words are the program and its arguments. A config may ask
/// for a shell (`["sh", "-c", SCRIPT, "sh", "{file}"]`), but `{file}` inside
/// the script is refused: file names would be read as shell code.
pub fn inline_def(c: &Campaign, name: &str, team: &str, command: &[String]) -> Result<SolverDef> {
    inline_def_in(&c.dir, checkers_dir(c), name, team, command)
}

/// [`inline_def`] with a relative program taken from `dir`, the
/// definitions folder `checkers`.
pub fn inline_def_in(
    dir: &Path,
    checkers: PathBuf,
    name: &str,
    team: &str,
    command: &[String],
) -> Result<SolverDef> {
    let mut command = command.to_vec();
    if !command.iter().any(|a| a.contains("{file}")) {
        bail!("solver '{name}': the command needs a {{file}} argument");
    }
    if let Some(script) = shell_script(&command).filter(|s| s.contains("{file}")) {
        bail!(
            "solver '{name}': {{file}} inside the shell script {script:?} would run benchmark file names \
             as shell code; pass it as an argument: [\"sh\", \"-c\", \"mysolver \\\"$1\\\"\", \"sh\", \"{{file}}\"]"
        );
    }
    if command[0].contains('/') && !Path::new(&command[0]).is_absolute() {
        command[0] = dir.join(&command[0]).to_string_lossy().into_owned();
    }
    Ok(SolverDef {
        name: name.to_string(),
        team: team.to_string(),
        command,
        logics: vec!["*".into()],
        exclude_logics: Vec::new(),
        produces_cores: true,
        no_core_logics: Vec::new(),
        core_options: Vec::new(),
        model_options: Vec::new(),
        version_command: Vec::new(),
        version_regex: None,
        install_hint: String::new(),
        accepts_named: true,
        unsupported_commands: Vec::new(),
        answer_stream: Default::default(),
        same_solver_as: None,
        dir: checkers,
        source: PathBuf::new(),
    })
}

/// The script of a command that runs a shell with `-c` (`sh -c SCRIPT …`).
fn shell_script(command: &[String]) -> Option<&str> {
    let program = Path::new(command.first()?).file_name()?.to_str()?;
    if !matches!(
        program,
        "sh" | "bash" | "dash" | "zsh" | "ksh" | "mksh" | "ash" | "busybox"
    ) {
        return None;
    }
    let i = command
        .iter()
        .position(|a| a.starts_with('-') && !a.starts_with("--") && a.contains('c'))?;
    command.get(i + 1).map(String::as_str)
}

/// The runner spec of one job: `want_cores` adds the definition's core
/// options (solvers under test), checkers run without them.
pub fn spec_for(
    def: &SolverDef,
    file: &Path,
    c: &Campaign,
    time: std::time::Duration,
    want_cores: bool,
) -> RunSpec {
    let (program, args) = def.command(&checkers::Invocation {
        file,
        timeout: time,
        seed: 0,
        memory_mb: c.memory.map(|m| m / (1024 * 1024)),
        want_cores,
    });
    RunSpec {
        program,
        args,
        env: Vec::new(),
        workdir: None,
        wall_limit: time,
        grace: c.grace,
        memory_limit: c.memory,
        output_cap: c.output_cap,
        pid_dir: Some(c.pid_dir()),
        observe: false,
    }
}

impl SolverUnderTest {
    /// Whether `checker` is of one of the solver's teams (so not independent).
    pub fn same_team(&self, checker: &SolverDef) -> bool {
        self.own_team(checker).is_some()
    }

    /// Why `checker` is of the solver's own team, if it is: its team
    /// identity ([`super::team`]), the one test of `run` and `selfcheck`.
    pub fn own_team(&self, checker: &SolverDef) -> Option<super::team::Why> {
        super::team::why(
            &checker.team,
            &self.teams,
            &self.same_program,
            &self.executed,
        )
    }

    /// Every team of the solver: declared, by program content, executed.
    pub fn all_teams(&self) -> Vec<String> {
        let mut all = self.teams.clone();
        let more = self
            .same_program
            .iter()
            .chain(&self.executed.all())
            .map(|m| m.team.clone())
            .collect::<Vec<_>>();
        for t in more {
            if !all.contains(&t) {
                all.push(t);
            }
        }
        all
    }
}

/// Kill the solver and checker process groups that a killed coreval left
/// running in this campaign (see [`runner::reap_orphans`]); every stage that
/// starts processes calls it first.
pub fn reap_orphans(c: &Campaign, say: crate::message::Say) {
    let killed = runner::reap_orphans(&c.pid_dir());
    if killed > 0 {
        say.note(format!(
            "killed {killed} solver process group(s) left over by an interrupted run"
        ));
    }
}

/// The definitions folder of a campaign.
pub fn checkers_dir(c: &Campaign) -> PathBuf {
    match &c.config.checkers_dir {
        Some(d) if d.is_absolute() => d.clone(),
        Some(d) => c.dir.join(d),
        None => checkers::default_dir(),
    }
}
