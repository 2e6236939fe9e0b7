//! The sbatch scripts of a sharded campaign, as pure functions of their
//! settings: array specifications, time limits, and the script text.
//!
//! A *stage* script is one job array: task `T` runs shard `T + OFFSET` of
//! `N` (`OFFSET`, the script's first argument, is 0 unless the shard count
//! exceeds the cluster's `MaxArraySize`, see [`chunks`]), and appends one
//! line to the shard's `tasks.jsonl` when `coreval` ends (stage, exit code,
//! host, start and end): `coreval slurm status` reads these, because many
//! clusters keep no accounting database for `sacct`. A task killed by
//! `scancel` or its time limit leaves no such line. The *merge* script is a
//! single job running `coreval merge` (and, at the end, the score stage:
//! `coreval run CAMPAIGN --stage score`, writing `CAMPAIGN/reports/`).

use std::path::{Path, PathBuf};
use std::time::Duration;

/// Which command a generated job runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Stage {
    /// `coreval solve CAMPAIGN --shard I/N`, one array task per shard.
    Solve,
    /// `coreval check CAMPAIGN --shard I/N`, one array task per shard.
    Check,
    /// `coreval merge CAMPAIGN` (one job), then optionally the score stage.
    Merge,
}

impl Stage {
    pub fn name(self) -> &'static str {
        match self {
            Stage::Solve => "solve",
            Stage::Check => "check",
            Stage::Merge => "merge",
        }
    }
}

/// Settings of one generated script.
#[derive(Clone, Debug, PartialEq)]
pub struct ScriptSpec {
    pub stage: Stage,
    /// Absolute campaign folder.
    pub campaign: PathBuf,
    /// Absolute path of the `coreval` binary the tasks run.
    pub coreval: PathBuf,
    /// The shard count N.
    pub shards: u32,
    /// `--array` value (with its `%K` throttle) for solve and check.
    pub array: Option<String>,
    pub time_limit: Duration,
    pub cpus_per_task: u32,
    /// `--mem` in MB, when the campaign has a memory limit.
    pub mem_mb: Option<u64>,
    /// Merge job only: run the score stage after merging.
    pub score: bool,
}

/// Quote a word for a POSIX shell (single quotes).
pub fn sh_quote(word: &str) -> String {
    if !word.is_empty()
        && word
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./=:,+@%".contains(&b))
    {
        return word.to_string();
    }
    format!("'{}'", word.replace('\'', r"'\''"))
}

fn q(p: &Path) -> String {
    sh_quote(&p.to_string_lossy())
}

/// `--array` indices as compact ranges: `[0,1,2,5,7,8]` → `0-2,5,7-8`.
pub fn compact_ranges(sorted: &[u32]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < sorted.len() {
        let start = sorted[i];
        let mut end = start;
        while i + 1 < sorted.len() && sorted[i + 1] == end + 1 {
            i += 1;
            end = sorted[i];
        }
        parts.push(if start == end {
            start.to_string()
        } else {
            format!("{start}-{end}")
        });
        i += 1;
    }
    parts.join(",")
}

/// One job array of a submission: shards `offset + t` for the array
/// indices `t` in `indices` (all below `MaxArraySize`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Chunk {
    pub offset: u32,
    pub indices: Vec<u32>,
}

impl Chunk {
    /// The `--array` value, with the throttle `%K` when given.
    pub fn array(&self, throttle: Option<u32>) -> String {
        let spec = compact_ranges(&self.indices);
        match throttle {
            Some(k) => format!("{spec}%{k}"),
            None => spec,
        }
    }

    pub fn shards(&self) -> Vec<u32> {
        self.indices.iter().map(|t| t + self.offset).collect()
    }
}

/// Split the shards to run into arrays whose indices stay below
/// `max_array_size` (Slurm refuses larger indices): shard `s` runs as index
/// `s mod M` of the array with offset `s - s mod M`.
pub fn chunks(shards: &[u32], max_array_size: u32) -> Vec<Chunk> {
    let m = max_array_size.max(1);
    let mut sorted = shards.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    let mut out: Vec<Chunk> = Vec::new();
    for s in sorted {
        let offset = s / m * m;
        match out.last_mut() {
            Some(c) if c.offset == offset => c.indices.push(s - offset),
            _ => out.push(Chunk {
                offset,
                indices: vec![s - offset],
            }),
        }
    }
    out
}

/// Time limit of a task doing `units` jobs of at most `per_unit` each with
/// `parallel` jobs at once: the worst case plus a quarter, plus two minutes
/// for start-up and journal reading, rounded up to whole minutes.
pub fn task_time_limit(units: u64, per_unit: Duration, parallel: u32) -> Duration {
    let waves = units.div_ceil(u64::from(parallel.max(1)));
    let secs = per_unit.as_secs_f64() * waves as f64 * 1.25 + 120.0;
    Duration::from_secs(((secs / 60.0).ceil() as u64).max(1) * 60)
}

/// Slurm's `D-HH:MM:SS` form of a time limit.
pub fn slurm_time(d: Duration) -> String {
    let s = d.as_secs();
    format!(
        "{}-{:02}:{:02}:{:02}",
        s / 86_400,
        s / 3600 % 24,
        s / 60 % 60,
        s % 60
    )
}

/// Folder of a campaign holding the scripts and the task logs.
pub fn slurm_dir(campaign: &Path) -> PathBuf {
    campaign.join("slurm")
}

/// The sbatch script of a spec.
pub fn script(spec: &ScriptSpec) -> String {
    let stage = spec.stage.name();
    let c = q(&spec.campaign);
    let bin = q(&spec.coreval);
    let logs = slurm_dir(&spec.campaign).join("logs");
    let mut s = String::from("#!/bin/bash\n");
    s.push_str(&format!(
        "# coreval {stage} of {} — written by `coreval slurm submit`.\n",
        spec.campaign.display()
    ));
    match spec.stage {
        Stage::Solve | Stage::Check => s.push_str(&format!(
            "# Array task T runs shard T+OFFSET of {n} (OFFSET: first argument, default 0).\n",
            n = spec.shards
        )),
        Stage::Merge => s.push_str("# Folds the shard journals into the campaign's.\n"),
    }
    s.push_str(&format!("#SBATCH --job-name=coreval-{stage}\n"));
    if let Some(a) = &spec.array {
        s.push_str(&format!("#SBATCH --array={a}\n"));
    }
    s.push_str(&format!("#SBATCH --time={}\n", slurm_time(spec.time_limit)));
    s.push_str("#SBATCH --nodes=1\n#SBATCH --ntasks=1\n");
    s.push_str(&format!("#SBATCH --cpus-per-task={}\n", spec.cpus_per_task));
    if let Some(m) = spec.mem_mb {
        s.push_str(&format!("#SBATCH --mem={m}M\n"));
    }
    let pattern = match spec.stage {
        Stage::Merge => format!("{stage}-%j.out"),
        _ => format!("{stage}-%A_%a.out"),
    };
    s.push_str(&format!("#SBATCH --output={}\n", q(&logs.join(pattern))));
    s.push_str("set -u\n");
    match spec.stage {
        Stage::Merge => {
            s.push_str(&format!("{bin} merge {c} || exit $?\n"));
            if spec.score {
                s.push_str(&format!("{bin} run {c} --stage score\n"));
            }
        }
        Stage::Solve | Stage::Check => {
            let n = spec.shards;
            s.push_str("offset=${1:-0}\n");
            s.push_str("shard=$((SLURM_ARRAY_TASK_ID + offset))\n");
            s.push_str(&format!(
                "dir={}/\"$shard-of-{n}\"\n",
                q(&spec.campaign.join(crate::slurm::shard::SHARDS_DIR))
            ));
            s.push_str("mkdir -p \"$dir\"\nstart=$(date +%s)\n");
            s.push_str(&format!(
                "{bin} {stage} {c} --shard \"$shard/{n}\" --jobs \"${{SLURM_CPUS_PER_TASK:-1}}\"\n"
            ));
            s.push_str("rc=$?\n");
            s.push_str(&format!(
                "printf '{{\"stage\":\"{stage}\",\"shard\":%d,\"shards\":{n},\"job\":\"%s_%s\",\"exit\":%d,\"host\":\"%s\",\"start\":%d,\"end\":%d}}\\n' \\\n  \
                 \"$shard\" \"$SLURM_ARRAY_JOB_ID\" \"$SLURM_ARRAY_TASK_ID\" \"$rc\" \"$(hostname)\" \"$start\" \"$(date +%s)\" >>\"$dir/{tasks}\"\n",
                tasks = super::status::TASKS_FILE
            ));
            s.push_str("exit $rc\n");
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(stage: Stage) -> ScriptSpec {
        ScriptSpec {
            stage,
            campaign: PathBuf::from("/data/ucore 2025"),
            coreval: PathBuf::from("/opt/coreval/bin/coreval"),
            shards: 4,
            array: Some("0-3%2".into()),
            time_limit: Duration::from_secs(90 * 60),
            cpus_per_task: 2,
            mem_mb: None,
            score: false,
        }
    }

    #[test]
    fn solve_script() {
        assert_eq!(
            script(&spec(Stage::Solve)),
            r#"#!/bin/bash
# coreval solve of /data/ucore 2025 — written by `coreval slurm submit`.
# Array task T runs shard T+OFFSET of 4 (OFFSET: first argument, default 0).
#SBATCH --job-name=coreval-solve
#SBATCH --array=0-3%2
#SBATCH --time=0-01:30:00
#SBATCH --nodes=1
#SBATCH --ntasks=1
#SBATCH --cpus-per-task=2
#SBATCH --output='/data/ucore 2025/slurm/logs/solve-%A_%a.out'
set -u
offset=${1:-0}
shard=$((SLURM_ARRAY_TASK_ID + offset))
dir='/data/ucore 2025/shards'/"$shard-of-4"
mkdir -p "$dir"
start=$(date +%s)
/opt/coreval/bin/coreval solve '/data/ucore 2025' --shard "$shard/4" --jobs "${SLURM_CPUS_PER_TASK:-1}"
rc=$?
printf '{"stage":"solve","shard":%d,"shards":4,"job":"%s_%s","exit":%d,"host":"%s","start":%d,"end":%d}\n' \
  "$shard" "$SLURM_ARRAY_JOB_ID" "$SLURM_ARRAY_TASK_ID" "$rc" "$(hostname)" "$start" "$(date +%s)" >>"$dir/tasks.jsonl"
exit $rc
"#
        );
    }

    #[test]
    fn check_and_merge_scripts() {
        let mut c = spec(Stage::Check);
        c.mem_mb = Some(8704);
        let text = script(&c);
        assert!(text.contains("#SBATCH --job-name=coreval-check\n"));
        assert!(text.contains("#SBATCH --mem=8704M\n"));
        assert!(text.contains("coreval check '/data/ucore 2025' --shard \"$shard/4\""));
        assert!(text.contains(r#"{"stage":"check","#));
        let mut m = spec(Stage::Merge);
        m.array = None;
        m.time_limit = Duration::from_secs(1800);
        m.score = true;
        let text = script(&m);
        assert!(!text.contains("--array"));
        assert!(text.contains("#SBATCH --time=0-00:30:00\n"));
        assert!(text.contains("--output='/data/ucore 2025/slurm/logs/merge-%j.out'\n"));
        assert!(text.ends_with(
            "set -u\n/opt/coreval/bin/coreval merge '/data/ucore 2025' || exit $?\n/opt/coreval/bin/coreval run '/data/ucore 2025' --stage score\n"
        ));
    }

    #[test]
    fn script_runs_under_bash() {
        // The generated shell is valid: run a solve script with a fake
        // coreval that records its arguments and exits 1.
        let d = tempfile::tempdir().unwrap();
        let fake = d.path().join("coreval");
        std::fs::write(
            &fake,
            "#!/bin/sh\necho \"$@\" > \"$(dirname \"$0\")/args\"\nexit 1\n",
        )
        .unwrap();
        std::process::Command::new("chmod")
            .arg("+x")
            .arg(&fake)
            .status()
            .unwrap();
        let mut sp = spec(Stage::Solve);
        sp.campaign = d.path().join("camp 'x'");
        sp.coreval = fake;
        let path = d.path().join("s.sh");
        std::fs::write(&path, script(&sp)).unwrap();
        let st = std::process::Command::new("bash")
            .arg(&path)
            .arg("1000")
            .env("SLURM_ARRAY_TASK_ID", "2")
            .env("SLURM_ARRAY_JOB_ID", "77")
            .env("SLURM_CPUS_PER_TASK", "3")
            .status()
            .unwrap();
        assert_eq!(st.code(), Some(1));
        let args = std::fs::read_to_string(d.path().join("args")).unwrap();
        assert_eq!(
            args.trim(),
            format!("solve {} --shard 1002/4 --jobs 3", sp.campaign.display())
        );
        let line =
            std::fs::read_to_string(sp.campaign.join("shards/1002-of-4/tasks.jsonl")).unwrap();
        let v: serde_json::Value = serde_json::from_str(line.trim()).unwrap();
        assert_eq!(
            (v["stage"].as_str(), v["shard"].as_u64(), v["exit"].as_i64()),
            (Some("solve"), Some(1002), Some(1))
        );
        assert_eq!(v["job"], "77_2");
    }

    #[test]
    fn quoting() {
        assert_eq!(sh_quote("/a/b-c_d.e"), "/a/b-c_d.e");
        assert_eq!(sh_quote("a b"), "'a b'");
        assert_eq!(sh_quote("it's"), r"'it'\''s'");
        assert_eq!(sh_quote("$HOME"), "'$HOME'");
        assert_eq!(sh_quote(""), "''");
    }

    #[test]
    fn ranges_and_chunks() {
        assert_eq!(compact_ranges(&[0, 1, 2, 5, 7, 8]), "0-2,5,7-8");
        assert_eq!(compact_ranges(&[3]), "3");
        let all: Vec<u32> = (0..2500).collect();
        let c = chunks(&all, 1001);
        assert_eq!(c.len(), 3);
        assert_eq!(
            (c[0].offset, c[0].array(Some(50))),
            (0, "0-1000%50".to_string())
        );
        assert_eq!(
            (c[1].offset, c[1].array(None)),
            (1001, "0-1000".to_string())
        );
        assert_eq!((c[2].offset, c[2].array(None)), (2002, "0-497".to_string()));
        let some = chunks(&[1500, 3, 1, 3], 1001);
        assert_eq!(
            some,
            vec![
                Chunk {
                    offset: 0,
                    indices: vec![1, 3]
                },
                Chunk {
                    offset: 1001,
                    indices: vec![499]
                }
            ]
        );
        assert_eq!(some[1].shards(), vec![1500]);
    }

    #[test]
    fn time_limits() {
        // 25 pairs of (20 s + 2 s grace + 1 s) on 1 CPU: 575 s × 1.25 + 120 s → 14 min.
        assert_eq!(
            task_time_limit(25, Duration::from_secs(23), 1),
            Duration::from_secs(14 * 60)
        );
        // 300 pairs of 41 min on 8 CPUs: 38 waves.
        let t = task_time_limit(300, Duration::from_secs(41 * 60), 8);
        // 38 × 2460 s × 1.25 + 120 s = 116 970 s → 1950 min.
        assert_eq!(slurm_time(t), "1-08:30:00");
        assert_eq!(slurm_time(Duration::from_secs(59)), "0-00:00:59");
    }
}
