//! Running a campaign on a Slurm cluster as job arrays, without a
//! scheduler of our own.
//!
//! `coreval slurm submit` plans and submits, with `sbatch --parsable`:
//!
//! ```text
//! solve array (one task per shard, %K throttle) ─afterany→ merge job
//!   ─afterany→ check array ─afterany→ merge job (+ score stage)
//! ```
//!
//! Each array task runs `coreval solve|check CAMPAIGN --shard I/N`, writing
//! the journals of `CAMPAIGN/shards/I-of-N/`; the merge jobs fold them into
//! the campaign's ([`crate::slurm::merge`]). `afterany` lets the chain go on when
//! a task fails or is cancelled: its shard is simply incomplete, and
//! `submit --missing` submits again only what is missing (journals make
//! every task restartable). Scripts and task logs live in `CAMPAIGN/slurm/`,
//! the submitted job ids in `CAMPAIGN/slurm.json`; `coreval slurm status`
//! reads progress from the journals ([`status`]), not from `sacct`.
//!
//! The Slurm client commands (`sbatch`, `scontrol`, `squeue`, `scancel`)
//! run through the [runner](crate::runner), the one place that starts
//! processes, with a wall-clock guard of [`CLIENT_TIMEOUT`].

pub mod merge;
pub mod script;
pub mod shard;
pub mod status;

use crate::store::journal;
use anyhow::{bail, Context, Result};
use script::{chunks, slurm_dir, task_time_limit, ScriptSpec, Stage};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// File of a campaign recording its Slurm submissions.
pub const STATE_FILE: &str = "slurm.json";

/// Slurm's default `MaxArraySize`, used when `scontrol` does not say.
pub const DEFAULT_MAX_ARRAY_SIZE: u32 = 1001;

/// `CAMPAIGN/slurm.json`.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct SlurmState {
    /// Shard count of the last submission.
    pub shards: u32,
    pub submissions: Vec<Submission>,
}

/// One submitted job (an array or a merge job).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Submission {
    pub stage: Stage,
    /// Slurm job id (of the array).
    pub job: String,
    /// Shard count N.
    pub shards: u32,
    /// `--array` value; None for a merge job.
    pub array: Option<String>,
    /// Shard of array task T is T + offset.
    pub offset: u32,
    /// Job ids this one waits for (`afterany`).
    pub after: Vec<String>,
    /// The sbatch command line.
    pub command: Vec<String>,
    /// Unix seconds.
    pub submitted: u64,
}

impl SlurmState {
    pub fn load(campaign: &Path) -> Result<Option<SlurmState>> {
        let path = campaign.join(STATE_FILE);
        match std::fs::read(&path) {
            Ok(bytes) => serde_json::from_slice(&bytes)
                .map(Some)
                .with_context(|| format!("{} is damaged", path.display())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e).with_context(|| format!("cannot read {}", path.display())),
        }
    }

    pub fn save(&self, campaign: &Path) -> Result<()> {
        let mut text = serde_json::to_vec_pretty(self)?;
        text.push(b'\n');
        journal::write_atomic(&campaign.join(STATE_FILE), &text)
    }
}

/// What `submit` submits: which stages, on which shards.
#[derive(Clone, Debug, PartialEq)]
pub struct SubmitOptions {
    pub shards: u32,
    /// Shards whose solve / check task to submit (empty: none).
    pub solve: Vec<u32>,
    pub check: Vec<u32>,
    /// `%K`: at most K tasks of an array at once.
    pub throttle: Option<u32>,
    pub cpus_per_task: u32,
    /// The `coreval` binary the tasks run (absolute).
    pub coreval: PathBuf,
    /// Run the score stage (`coreval run --stage score`) after the final merge.
    pub score: bool,
    /// Extra sbatch options, given to every `sbatch` call.
    pub sbatch_args: Vec<String>,
}

/// One job to submit: its script, its array offset, and the jobs (by
/// position in the plan) it waits for.
#[derive(Clone, Debug, PartialEq)]
pub struct PlannedJob {
    pub spec: ScriptSpec,
    pub offset: u32,
    pub after: Vec<usize>,
}

/// Figures of the campaign that size the jobs.
#[derive(Clone, Debug, PartialEq)]
pub struct Sizing {
    /// Pairs owned by each shard.
    pub pairs_per_shard: Vec<usize>,
    /// Seconds one solver run may take (limit + grace).
    pub solve_secs: f64,
    /// Seconds one checker run may take (limit + grace).
    pub check_secs: f64,
    /// Checkers a core may go to (worst case).
    pub checkers: usize,
    /// Memory limit per run, MB.
    pub memory_mb: Option<u64>,
    pub max_array_size: u32,
}

/// The jobs of a submission, in submission order (pure).
pub fn plan(campaign: &Path, o: &SubmitOptions, z: &Sizing) -> Vec<PlannedJob> {
    let max_pairs = |shards: &[u32]| {
        shards
            .iter()
            .map(|&s| z.pairs_per_shard.get(s as usize).copied().unwrap_or(0))
            .max()
            .unwrap_or(0) as u64
    };
    let base = |stage: Stage, time_limit: Duration| ScriptSpec {
        stage,
        campaign: campaign.to_path_buf(),
        coreval: o.coreval.clone(),
        shards: o.shards,
        array: None,
        time_limit,
        cpus_per_task: o.cpus_per_task,
        mem_mb: z.memory_mb.map(|m| (m + 256) * u64::from(o.cpus_per_task)),
        score: false,
    };
    let mut jobs: Vec<PlannedJob> = Vec::new();
    let mut previous_merge: Option<usize> = None;
    for (stage, shards) in [(Stage::Solve, &o.solve), (Stage::Check, &o.check)] {
        if shards.is_empty() {
            continue;
        }
        let (units, per_unit) = match stage {
            Stage::Solve => (max_pairs(shards), z.solve_secs + 1.0),
            _ => (
                max_pairs(shards) * z.checkers.max(1) as u64,
                z.check_secs + 1.0,
            ),
        };
        let limit = task_time_limit(units, Duration::from_secs_f64(per_unit), o.cpus_per_task);
        let mut array_jobs = Vec::new();
        for chunk in chunks(shards, z.max_array_size) {
            // Chunks run one after the other, so the throttle holds overall.
            let after: Vec<usize> = match array_jobs.last() {
                Some(&prev) => vec![prev],
                None => previous_merge.into_iter().collect(),
            };
            let mut spec = base(stage, limit);
            spec.array = Some(chunk.array(o.throttle));
            jobs.push(PlannedJob {
                spec,
                offset: chunk.offset,
                after,
            });
            array_jobs.push(jobs.len() - 1);
        }
        let mut merge = base(Stage::Merge, Duration::from_secs(30 * 60));
        merge.cpus_per_task = 1;
        merge.mem_mb = None;
        jobs.push(PlannedJob {
            spec: merge,
            offset: 0,
            after: array_jobs,
        });
        previous_merge = Some(jobs.len() - 1);
    }
    if let Some(last) = jobs.last_mut() {
        if o.score && !o.check.is_empty() {
            last.spec.score = true;
            last.spec.time_limit = Duration::from_secs(60 * 60);
        }
    }
    jobs
}

/// The sizing figures of a loaded campaign ([`crate::campaign::setup::context`]:
/// its limits and the checkers selected); `max_array_size` from the cluster.
pub fn sizing(
    ctx: &crate::campaign::setup::context::Context,
    work: &status::Work,
    shards: u32,
    max_array_size: u32,
) -> Sizing {
    let c = &ctx.campaign;
    Sizing {
        pairs_per_shard: work.pairs_per_shard(shards),
        solve_secs: (c.time + c.grace).as_secs_f64(),
        check_secs: (c.checker_time + c.grace).as_secs_f64(),
        checkers: ctx.checkers.len(),
        memory_mb: c.memory.map(|b| b.div_ceil(1024 * 1024)),
        max_array_size,
    }
}

/// How long a Slurm client command may take.
pub const CLIENT_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(120);

/// Fail with a clear message when a Slurm client command is absent.
pub fn require(program: &str) -> Result<()> {
    let out = crate::runner::run_short(program, vec!["--version".into()], CLIENT_TIMEOUT);
    match out.exit {
        crate::runner::Exit::FailedToStart(why) => bail!(
            "`{program}` cannot run ({why}): this needs a Slurm client on PATH (a login node of the cluster); \
             for a local test cluster run scripts/slurm-up.sh and export the SLURM_CONF it prints"
        ),
        _ => Ok(()),
    }
}

/// What a Slurm client command printed on stdout; `Err` when it could not
/// run, timed out or failed (with its stderr).
fn output<S: AsRef<str>>(program: &str, args: &[S]) -> Result<String> {
    let args: Vec<String> = args.iter().map(|a| a.as_ref().to_string()).collect();
    let shown = format!("{program} {}", args.join(" "));
    let out = crate::runner::run_short(program, args, CLIENT_TIMEOUT);
    match &out.exit {
        crate::runner::Exit::FailedToStart(why) => bail!("cannot run {shown}: {why}"),
        _ if out.timed_out => bail!("{shown} did not finish in {CLIENT_TIMEOUT:?}"),
        crate::runner::Exit::Exited(0) => Ok(String::from_utf8_lossy(&out.stdout).into_owned()),
        exit => bail!(
            "{shown} failed ({exit:?}): {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ),
    }
}

/// `MaxArraySize` from `scontrol show config`.
pub fn max_array_size() -> Result<u32> {
    let text = output("scontrol", &["show", "config"])?;
    Ok(parse_config_value(&text, "MaxArraySize")
        .and_then(|v| v.parse().ok())
        .unwrap_or(DEFAULT_MAX_ARRAY_SIZE))
}

/// A `Key = value` line of `scontrol show config`.
pub fn parse_config_value(text: &str, key: &str) -> Option<String> {
    text.lines().find_map(|l| {
        let (k, v) = l.split_once('=')?;
        (k.trim() == key).then(|| v.trim().to_string())
    })
}

/// Live states of the recorded jobs' array tasks, by shard (`squeue`).
/// Empty when the queue cannot be read.
pub fn queue_states(state: &SlurmState) -> BTreeMap<u32, Vec<String>> {
    let mut out: BTreeMap<u32, Vec<String>> = BTreeMap::new();
    let Ok(text) = output("squeue", &["--me", "-h", "-r", "-o", "%F|%K|%T"]) else {
        return out;
    };
    for line in text.lines() {
        let mut f = line.split('|');
        let (Some(job), Some(task), Some(st)) = (f.next(), f.next(), f.next()) else {
            continue;
        };
        let Ok(task) = task.trim().parse::<u32>() else {
            continue;
        };
        let sub = state
            .submissions
            .iter()
            .find(|s| s.job == job.trim() && s.array.is_some() && s.shards == state.shards);
        if let Some(s) = sub {
            out.entry(task + s.offset).or_default().push(format!(
                "{} {}",
                s.stage.name(),
                st.trim()
            ));
        }
    }
    out
}

/// A queued (pending or running) task of a recorded job.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct QueuedTask {
    /// The (array) job id as submitted.
    pub job: String,
    /// `JOB_TASK` for array tasks, `JOB` otherwise.
    pub id: String,
    pub state: String,
}

/// Recorded jobs' tasks still in the queue, from `squeue`.
pub fn active_jobs(state: &SlurmState) -> Result<Vec<QueuedTask>> {
    let text = output("squeue", &["--me", "-h", "-r", "-o", "%F|%i|%T"])?;
    Ok(text
        .lines()
        .filter_map(|l| {
            let mut f = l.split('|');
            let (job, id, st) = (f.next()?.trim(), f.next()?.trim(), f.next()?.trim());
            state
                .submissions
                .iter()
                .any(|s| s.job == job)
                .then(|| QueuedTask {
                    job: job.to_string(),
                    id: id.to_string(),
                    state: st.to_string(),
                })
        })
        .collect())
}

/// Write the scripts of a plan and submit them in order; every submitted
/// job is recorded in `slurm.json` at once.
pub fn submit(campaign: &Path, o: &SubmitOptions, jobs: &[PlannedJob]) -> Result<Vec<Submission>> {
    let dir = slurm_dir(campaign);
    std::fs::create_dir_all(dir.join("logs"))
        .with_context(|| format!("cannot create {}", dir.join("logs").display()))?;
    let mut state = SlurmState::load(campaign)?.unwrap_or_default();
    state.shards = o.shards;
    let mut done: Vec<Submission> = Vec::new();
    for job in jobs {
        let name = match (job.spec.stage, job.offset) {
            (s, 0) => format!("{}.sbatch", s.name()),
            (s, k) => format!("{}-{k}.sbatch", s.name()),
        };
        let path = dir.join(name);
        journal::write_atomic(&path, script::script(&job.spec).as_bytes())?;
        let after: Vec<String> = job.after.iter().map(|&i| done[i].job.clone()).collect();
        // The client runs in a scratch folder of the runner: tasks start in
        // the campaign folder instead.
        let mut args = vec![
            "--parsable".to_string(),
            format!("--chdir={}", campaign.display()),
        ];
        if !after.is_empty() {
            args.push(format!("--dependency=afterany:{}", after.join(":")));
        }
        args.extend(o.sbatch_args.iter().cloned());
        args.push(path.to_string_lossy().into_owned());
        if job.spec.array.is_some() {
            args.push(job.offset.to_string());
        }
        let out = output("sbatch", &args)?;
        let id = out.trim().split(';').next().unwrap_or("").to_string();
        if id.is_empty() || !id.bytes().all(|b| b.is_ascii_digit()) {
            bail!("sbatch printed no job id (got '{}')", out.trim());
        }
        let mut command = vec!["sbatch".to_string()];
        command.extend(args);
        let sub = Submission {
            stage: job.spec.stage,
            job: id,
            shards: o.shards,
            array: job.spec.array.clone(),
            offset: job.offset,
            after,
            command,
            submitted: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_secs())
                .unwrap_or(0),
        };
        state.submissions.push(sub.clone());
        state.save(campaign)?;
        done.push(sub);
    }
    Ok(done)
}

/// Cancel every recorded job still queued (`scancel`); returns their ids.
pub fn cancel(campaign: &Path) -> Result<Vec<String>> {
    let Some(state) = SlurmState::load(campaign)? else {
        return Ok(Vec::new());
    };
    let queued = active_jobs(&state)?;
    let ids: Vec<String> = state
        .submissions
        .iter()
        .map(|s| s.job.clone())
        .filter(|j| queued.iter().any(|q| q.job == *j))
        .collect();
    if !ids.is_empty() {
        output("scancel", &ids)?;
    }
    Ok(ids)
}

#[cfg(test)]
mod tests;
