//! `coreval slurm submit|status|cancel <CAMPAIGN>`: run a campaign's solve
//! and check stages as Slurm job arrays, one task per shard, and follow
//! them (see [`crate::slurm`]).

use crate::campaign::setup::context;
use crate::campaign::setup::Campaign;
use crate::cmd::{exit, interrupt};
use crate::slurm::status::{self, ShardStatus, Work};
use crate::slurm::{self, SlurmState, SubmitOptions};
use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand, ValueEnum};
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

#[derive(Args, Debug)]
pub struct SlurmArgs {
    #[command(subcommand)]
    pub command: SlurmCommand,
}

#[derive(Subcommand, Debug)]
pub enum SlurmCommand {
    /// Write the sbatch scripts and submit: solve array → merge → check array → merge + score.
    ///
    /// Reads CAMPAIGN/campaign.toml and named/. Writes CAMPAIGN/slurm/{solve,merge,check}.sbatch
    /// and CAMPAIGN/slurm.json (the job ids), and submits the jobs with sbatch.
    Submit(SubmitArgs),
    /// Show per-shard progress from the journals, task exit codes and queue states.
    ///
    /// Reads CAMPAIGN/slurm.json, the shard journals and tasks.jsonl, and asks squeue. Prints a
    /// table (or JSON with --json) on stdout; writes no file.
    Status(StatusArgs),
    /// Cancel the campaign's queued and running jobs (scancel).
    ///
    /// Reads CAMPAIGN/slurm.json. Runs scancel on its jobs; writes no file.
    Cancel(CampaignArg),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Stages {
    /// Solve, then check (two dependent arrays with a merge between).
    All,
    /// Only the solve array (and a merge).
    Solve,
    /// Only the check array (and a merge and score).
    Check,
}

#[derive(Args, Debug)]
pub struct SubmitArgs {
    /// The campaign folder (holding campaign.toml), already named.
    pub campaign: PathBuf,
    /// Number of shards N = array tasks per stage [default: the last submission's]
    #[arg(long, short = 'n')]
    pub shards: Option<u32>,
    /// At most K tasks of an array at once (`--array=…%K`)
    #[arg(long, short = 'k', value_name = "K")]
    pub throttle: Option<u32>,
    /// CPUs per task; each task runs that many solver jobs in parallel
    #[arg(long, short = 'c', default_value_t = 1)]
    pub cpus_per_task: u32,
    /// Which stages to submit
    #[arg(long, value_enum, default_value_t = Stages::All)]
    pub stage: Stages,
    /// Only these shards (comma-separated indices, 0-based)
    #[arg(long, value_delimiter = ',', conflicts_with = "missing")]
    pub only: Vec<u32>,
    /// Only what is missing: shards whose solve journal is incomplete (then
    /// checks on every shard), else shards whose check task did not finish
    #[arg(long)]
    pub missing: bool,
    /// Do not run the score stage (`coreval run --stage score`) after the final merge
    #[arg(long)]
    pub no_score: bool,
    /// The coreval binary the tasks run [default: this one]
    #[arg(long, value_name = "PATH")]
    pub coreval: Option<PathBuf>,
    /// Print the scripts, submit nothing (assumes MaxArraySize = 1001)
    #[arg(long)]
    pub dry_run: bool,
    /// Options passed to every sbatch call, after `--` (e.g. -- --partition=long --account=smt)
    #[arg(last = true, value_name = "SBATCH_OPTIONS")]
    pub sbatch: Vec<String>,
}

#[derive(Args, Debug)]
pub struct StatusArgs {
    /// The campaign folder.
    pub campaign: PathBuf,
    /// Print JSON instead of a table
    #[arg(long)]
    pub json: bool,
}

#[derive(Args, Debug)]
pub struct CampaignArg {
    /// The campaign folder.
    pub campaign: PathBuf,
}

pub fn run(args: SlurmArgs) -> Result<u8> {
    match args.command {
        SlurmCommand::Submit(a) => submit(a),
        SlurmCommand::Status(a) => status_cmd(a),
        SlurmCommand::Cancel(a) => {
            slurm::require("scancel")?;
            let ids = slurm::cancel(&absolute(&a.campaign)?)?;
            eprintln!(
                "cancelled: {}",
                if ids.is_empty() {
                    "nothing queued".into()
                } else {
                    ids.join(" ")
                }
            );
            Ok(exit::OK)
        }
    }
}

fn absolute(dir: &Path) -> Result<PathBuf> {
    let abs = std::fs::canonicalize(dir)
        .with_context(|| format!("cannot find the campaign folder {}", dir.display()))?;
    if !abs.join(crate::campaign::setup::CONFIG_FILE).is_file() {
        bail!(
            "{} is not a campaign folder (no {})",
            dir.display(),
            crate::campaign::setup::CONFIG_FILE
        );
    }
    Ok(abs)
}

/// The campaign at `dir` loaded for `stages` ([`context::Context::load`]: refused,
/// with the config file and line, when it cannot work), with its notes
/// printed; `probe`: start the programs to see that they can.
fn load(dir: &Path, stages: context::Stages, probe: bool) -> Result<context::Context> {
    let c = Campaign::load_for_preflight(dir)?;
    let ctx = if probe {
        context::Context::load(c, stages)?
    } else {
        context::Context::load_unprobed(c, stages)?
    };
    for n in &ctx.notes {
        eprintln!("{n}");
    }
    Ok(ctx)
}

/// The stages the submitted tasks run.
fn submitted_stages(a: &SubmitArgs) -> context::Stages {
    context::Stages {
        name: false,
        solve: a.stage != Stages::Check,
        check: a.stage != Stages::Solve,
        score: a.stage != Stages::Solve && !a.no_score,
    }
}

/// The work, refusing a campaign that has not been named yet.
fn named_work(ctx: &context::Context) -> Result<Work> {
    let campaign = &ctx.campaign.dir;
    let work = Work::of(ctx)?;
    if work.benchmarks == 0 {
        bail!(
            "{} has no named benchmarks yet: name them once before submitting \
             (`coreval run {} --stage name`), so that every task shares the same named files and shard sizes are known",
            campaign.display(),
            campaign.display()
        );
    }
    if work.solvers == 0 {
        bail!("{} lists no [[solver]]: nothing to run", campaign.display());
    }
    Ok(work)
}

fn submit(a: SubmitArgs) -> Result<u8> {
    let campaign = absolute(&a.campaign)?;
    // What the tasks would refuse is refused here, before anything is submitted.
    let ctx = load(&campaign, submitted_stages(&a), true)?;
    let work = named_work(&ctx)?;
    // The journals are read (`--missing`) and slurm.json written under the
    // campaign lock; a dry run writes nothing.
    let _lock = if a.dry_run {
        None
    } else {
        Some(crate::store::lock::acquire_in(
            &campaign,
            false,
            interrupt::flag(),
        )?)
    };
    let previous = SlurmState::load(&campaign)?;
    let shards = match (a.shards, &previous) {
        (Some(n), _) => n,
        (None, Some(p)) if p.shards > 0 => p.shards,
        _ => bail!("give the number of shards: --shards N"),
    };
    if shards == 0 {
        bail!("--shards must be at least 1");
    }
    if a.cpus_per_task == 0 || a.throttle == Some(0) {
        bail!("--cpus-per-task and --throttle must be at least 1");
    }
    if let Some(bad) = a.only.iter().find(|&&s| s >= shards) {
        bail!("--only {bad}: shards are numbered 0 to {}", shards - 1);
    }
    let all: Vec<u32> = (0..shards).collect();
    let (mut solve, mut check) = if a.missing {
        let st = status::shard_status(&ctx.campaign, &work, shards, &BTreeMap::new())?;
        let s = status::missing_solve(&st);
        let c = if s.is_empty() {
            status::missing_check(&st)
        } else {
            all.clone()
        };
        (s, c)
    } else if !a.only.is_empty() {
        (a.only.clone(), a.only.clone())
    } else {
        (all.clone(), all)
    };
    match a.stage {
        Stages::All => {}
        Stages::Solve => check.clear(),
        Stages::Check => solve.clear(),
    }
    if solve.is_empty() && check.is_empty() {
        eprintln!(
            "submit: nothing missing; run `coreval merge` and `coreval run CAMPAIGN --stage score` if not done yet"
        );
        return Ok(exit::OK);
    }
    let coreval = match a.coreval {
        Some(p) => {
            std::fs::canonicalize(&p).with_context(|| format!("cannot find {}", p.display()))?
        }
        None => std::env::current_exe()
            .context("cannot locate the coreval binary; give --coreval PATH")?,
    };
    if !a.dry_run {
        slurm::require("sbatch")?;
        if let Some(p) = &previous {
            let queued = slurm::active_jobs(p)?;
            if !queued.is_empty() {
                let ids: Vec<&str> = queued.iter().map(|q| q.id.as_str()).collect();
                bail!(
                    "jobs of this campaign are still queued or running ({}): wait for them \
                     (`coreval slurm status`), or stop them with `coreval slurm cancel`, then submit again",
                    ids.join(" ")
                );
            }
        }
    }
    // A dry run does not ask the cluster (scontrol waits a minute for an
    // unreachable controller): it assumes Slurm's default MaxArraySize.
    let max_array = if a.dry_run {
        slurm::DEFAULT_MAX_ARRAY_SIZE
    } else {
        slurm::max_array_size()?
    };
    let opts = SubmitOptions {
        shards,
        solve,
        check,
        throttle: a.throttle,
        cpus_per_task: a.cpus_per_task,
        coreval,
        score: !a.no_score,
        sbatch_args: a.sbatch,
    };
    let sizing = slurm::sizing(&ctx, &work, shards, max_array);
    let jobs = slurm::plan(&campaign, &opts, &sizing);
    if a.dry_run {
        for j in &jobs {
            crate::outln!(
                "# {} (after jobs {:?} of this plan), offset {}",
                j.spec.stage.name(),
                j.after,
                j.offset
            )?;
            crate::outln!("{}", crate::slurm::script::script(&j.spec))?;
        }
        return Ok(exit::OK);
    }
    let subs = slurm::submit(&campaign, &opts, &jobs)?;
    for s in &subs {
        let what = match &s.array {
            Some(arr) => format!(
                "{} array {arr}{}",
                s.stage.name(),
                if s.offset > 0 {
                    format!(" (+{})", s.offset)
                } else {
                    String::new()
                }
            ),
            None => s.stage.name().to_string(),
        };
        let after = if s.after.is_empty() {
            String::new()
        } else {
            format!(" after {}", s.after.join(","))
        };
        eprintln!("submitted job {}: {what}{after}", s.job);
    }
    eprintln!(
        "{} pairs in {shards} shards; follow with `coreval slurm status {}`",
        work.pairs.len(),
        campaign.display()
    );
    Ok(exit::OK)
}

#[derive(Serialize)]
struct StatusJson<'a> {
    campaign: &'a Path,
    shards: u32,
    /// Recorded jobs' tasks still queued or running.
    active: Vec<slurm::QueuedTask>,
    submissions: &'a [slurm::Submission],
    missing_solve: Vec<u32>,
    missing_check: Vec<u32>,
    per_shard: &'a [ShardStatus],
}

fn status_cmd(a: StatusArgs) -> Result<u8> {
    let campaign = absolute(&a.campaign)?;
    let Some(state) = SlurmState::load(&campaign)? else {
        bail!(
            "{} has no Slurm submissions ({} missing); submit with `coreval slurm submit`",
            campaign.display(),
            slurm::STATE_FILE
        );
    };
    // Only the solvers under test are needed: nothing is started.
    let solve = context::Stages {
        solve: true,
        ..Default::default()
    };
    let ctx = load(&campaign, solve, false)?;
    let work = Work::of(&ctx)?;
    let active = slurm::active_jobs(&state).unwrap_or_else(|e| {
        eprintln!("warning: cannot read the queue ({e:#}); showing the journals only");
        Vec::new()
    });
    let queue = slurm::queue_states(&state);
    let st = status::shard_status(&ctx.campaign, &work, state.shards, &queue)?;
    if a.json {
        let j = StatusJson {
            campaign: &campaign,
            shards: state.shards,
            active,
            submissions: &state.submissions,
            missing_solve: status::missing_solve(&st),
            missing_check: status::missing_check(&st),
            per_shard: &st,
        };
        crate::outln!("{}", serde_json::to_string_pretty(&j)?)?;
        return Ok(exit::OK);
    }
    let jobs: Vec<String> = state
        .submissions
        .iter()
        .map(|s| format!("{} {}", s.stage.name(), s.job))
        .collect();
    crate::outln!(
        "{} — {} shards; jobs: {}",
        campaign.display(),
        state.shards,
        jobs.join(", ")
    )?;
    crate::out!("{}", status::table(&st))?;
    let merges: Vec<&slurm::QueuedTask> = active
        .iter()
        .filter(|q| {
            state
                .submissions
                .iter()
                .any(|s| s.job == q.job && s.array.is_none())
        })
        .collect();
    for m in merges {
        crate::outln!("merge job {}: {}", m.id, m.state)?;
    }
    if active.is_empty() {
        let ms = status::missing_solve(&st);
        if ms.is_empty() {
            crate::outln!("no job queued; solving complete")?;
        } else {
            crate::outln!(
                "no job queued; shards {ms:?} are incomplete (*): `coreval slurm submit {} --missing`",
                campaign.display()
            )?;
        }
    }
    Ok(exit::OK)
}
