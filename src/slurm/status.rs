//! Progress of a sharded campaign, read from the journals alone (no
//! `sacct`: many clusters have no accounting database).
//!
//! - **Solve**: expected pairs of shard `I` are the (solver, named
//!   benchmark) pairs it owns ([`crate::slurm::shard::pair_key`]); done ones are
//!   those with a record in some runs journal (the campaign's or a shard
//!   folder's, [`Campaign::read_journal`]).
//! - **Check**: the distinct cores known so far (every `cores.jsonl`) that
//!   the shard owns by hash, and how many of them have at least one checker
//!   answer in some `checks.jsonl`. (Cores no checker supports never get an
//!   answer; the task record below tells whether the task finished.)
//! - **Tasks**: the last line of the shard's `tasks.jsonl` per stage, which
//!   each array task appends when `coreval` ends (exit code, host, times);
//!   a task killed by `scancel` or its time limit writes none.
//! - **Queue**: the live state of the recorded jobs' tasks from `squeue`
//!   (pending, running), when the cluster answers.

use crate::campaign::setup::context;
use crate::campaign::setup::Campaign;
use crate::slurm::shard::{owner, pair_key, Shard};
use crate::store::journal;
use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::{BTreeMap, HashSet};

/// File of a shard folder where its array tasks record how they ended.
pub const TASKS_FILE: &str = "tasks.jsonl";

/// The line an array task appends to its shard's `tasks.jsonl`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct TaskRecord {
    pub stage: String,
    pub shard: u32,
    pub shards: u32,
    /// `ARRAYJOB_TASK`.
    pub job: String,
    pub exit: i32,
    pub host: String,
    /// Unix seconds.
    pub start: u64,
    pub end: u64,
}

impl TaskRecord {
    /// `coreval` ended normally: 0 (all passed) or 1 (some item failed).
    pub fn finished(&self) -> bool {
        self.exit == 0 || self.exit == 1
    }
}

/// Progress of one shard.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct ShardStatus {
    pub shard: u32,
    /// Pairs this shard owns.
    pub solve_expected: usize,
    /// Of which journaled.
    pub solve_done: usize,
    /// Distinct known cores this shard owns.
    pub check_cores: usize,
    /// Of which have at least one checker answer.
    pub check_answered: usize,
    /// Last recorded solve / check task.
    pub solve_task: Option<TaskRecord>,
    pub check_task: Option<TaskRecord>,
    /// Live `squeue` states of this shard's tasks (`PENDING`, `RUNNING`…).
    pub queue: Vec<String>,
}

impl ShardStatus {
    pub fn solve_complete(&self) -> bool {
        self.solve_done >= self.solve_expected
    }
}

/// The solve work of a campaign: the (solver, benchmark) pairs the solve
/// stage runs.
#[derive(Clone, Debug, Default)]
pub struct Work {
    /// Named (eligible) benchmarks.
    pub benchmarks: usize,
    /// Solvers under test.
    pub solvers: usize,
    /// (solver, benchmark id) pairs: each solver on the named benchmarks of
    /// the divisions it is entered in ([`entered`]).
    pub pairs: Vec<(String, String)>,
}

impl Work {
    /// The work of a loaded campaign: its solvers under test on the named
    /// benchmarks of the divisions each is entered in.
    pub fn of(ctx: &context::Context) -> Result<Work> {
        let index = crate::campaign::ledger::index::read_index(&ctx.campaign)?;
        let mut pairs = Vec::new();
        for s in &ctx.solvers {
            for e in &index {
                if entered(s, e) {
                    pairs.push((s.name.clone(), e.id.to_string()));
                }
            }
        }
        Ok(Work {
            benchmarks: index.len(),
            solvers: ctx.solvers.len(),
            pairs,
        })
    }

    /// Pairs owned by each of `count` shards.
    pub fn pairs_per_shard(&self, count: u32) -> Vec<usize> {
        let mut n = vec![0usize; count as usize];
        for (s, b) in &self.pairs {
            n[owner(&pair_key(s, b), count) as usize] += 1;
        }
        n
    }
}

/// Whether the solve stage runs solver `s` on benchmark `e`: its definition
/// supports the division's logic, with cores.
use crate::campaign::ledger::index::entered;

fn str_field(v: &Value, f: &str) -> Option<String> {
    v.get(f)?.as_str().map(str::to_string)
}

/// Progress of every shard of a split into `count`, from the journals (the
/// campaign's and every shard folder's, whatever its shard count).
/// `queue` maps shard index → live task states (see [`super::queue_states`]).
pub fn shard_status(
    c: &Campaign,
    work: &Work,
    count: u32,
    queue: &BTreeMap<u32, Vec<String>>,
) -> Result<Vec<ShardStatus>> {
    let expected = work.pairs_per_shard(count);
    let wanted: HashSet<(&str, &str)> = work
        .pairs
        .iter()
        .map(|(s, b)| (s.as_str(), b.as_str()))
        .collect();
    let runs: Vec<Value> = c.read_journal(crate::campaign::ledger::records::RUNS)?;
    let done: HashSet<(String, String)> = runs
        .iter()
        .filter_map(|r| Some((str_field(r, "solver")?, str_field(r, "benchmark")?)))
        .filter(|(s, b)| wanted.contains(&(s.as_str(), b.as_str())))
        .collect();
    let mut solve_done = vec![0usize; count as usize];
    for (s, b) in &done {
        solve_done[owner(&pair_key(s, b), count) as usize] += 1;
    }
    let hashes = |file: &str| -> Result<HashSet<String>> {
        let records: Vec<Value> = c.read_journal(file)?;
        Ok(records
            .iter()
            .filter_map(|r| str_field(r, "hash"))
            .collect())
    };
    let cores = hashes(crate::campaign::ledger::records::CORES)?;
    let answered = hashes(crate::campaign::ledger::records::CHECKS)?;
    let mut out = Vec::new();
    for shard in Shard::all(count) {
        let owned: Vec<&String> = cores.iter().filter(|h| shard.owns(h)).collect();
        let tasks_path = shard.dir(&c.dir).join(TASKS_FILE);
        let tasks: Vec<TaskRecord> = journal::read_all(&tasks_path)
            .with_context(|| format!("cannot read the task records of shard {shard}"))?
            .0;
        let last = |stage: &str| {
            tasks
                .iter()
                .rev()
                .find(|t| t.stage == stage && t.shards == count)
                .cloned()
        };
        out.push(ShardStatus {
            shard: shard.index,
            solve_expected: expected[shard.index as usize],
            solve_done: solve_done[shard.index as usize],
            check_cores: owned.len(),
            check_answered: owned.iter().filter(|h| answered.contains(**h)).count(),
            solve_task: last("solve"),
            check_task: last("check"),
            queue: queue.get(&shard.index).cloned().unwrap_or_default(),
        });
    }
    Ok(out)
}

/// Shards whose solve stage is incomplete.
pub fn missing_solve(status: &[ShardStatus]) -> Vec<u32> {
    status
        .iter()
        .filter(|s| !s.solve_complete())
        .map(|s| s.shard)
        .collect()
}

/// Shards whose check task has not finished since the last solve task of
/// any shard ended (new cores may have arrived after it).
pub fn missing_check(status: &[ShardStatus]) -> Vec<u32> {
    let last_solve = status
        .iter()
        .filter_map(|s| s.solve_task.as_ref().map(|t| t.end))
        .max()
        .unwrap_or(0);
    status
        .iter()
        .filter(|s| match &s.check_task {
            Some(t) => !(t.finished() && t.start >= last_solve),
            None => true,
        })
        .map(|s| s.shard)
        .collect()
}

fn task_text(t: &Option<TaskRecord>) -> String {
    match t {
        Some(t) => format!("exit {} ({} on {})", t.exit, t.job, t.host),
        None => "-".into(),
    }
}

/// The status table.
pub fn table(status: &[ShardStatus]) -> String {
    let mut rows = vec![[
        "SHARD".to_string(),
        "SOLVED".into(),
        "CORES ANSWERED".into(),
        "SOLVE TASK".into(),
        "CHECK TASK".into(),
        "QUEUE".into(),
    ]];
    let count = status.len();
    for s in status {
        rows.push([
            format!("{}/{count}", s.shard),
            format!(
                "{}/{}{}",
                s.solve_done,
                s.solve_expected,
                if s.solve_complete() { "" } else { " *" }
            ),
            format!("{}/{}", s.check_answered, s.check_cores),
            task_text(&s.solve_task),
            task_text(&s.check_task),
            if s.queue.is_empty() {
                "-".into()
            } else {
                s.queue.join(",")
            },
        ]);
    }
    let sum = |f: fn(&ShardStatus) -> usize| status.iter().map(f).sum::<usize>();
    rows.push([
        "total".into(),
        format!("{}/{}", sum(|s| s.solve_done), sum(|s| s.solve_expected)),
        format!("{}/{}", sum(|s| s.check_answered), sum(|s| s.check_cores)),
        String::new(),
        String::new(),
        String::new(),
    ]);
    let widths: Vec<usize> = (0..6)
        .map(|i| rows.iter().map(|r| r[i].chars().count()).max().unwrap_or(0))
        .collect();
    let mut text = String::new();
    for r in rows {
        let cells: Vec<String> = r
            .iter()
            .zip(&widths)
            .map(|(c, w)| format!("{c:<w$}"))
            .collect();
        text.push_str(cells.join("  ").trim_end());
        text.push('\n');
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::path::Path;

    fn append(path: &Path, v: Value) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        let mut t = std::fs::read_to_string(path).unwrap_or_default();
        t.push_str(&format!("{v}\n"));
        std::fs::write(path, t).unwrap();
    }

    fn task(stage: &str, shard: u32, exit: i32, start: u64, end: u64) -> Value {
        json!({"stage": stage, "shard": shard, "shards": 2, "job": format!("9_{shard}"), "exit": exit, "host": "n1", "start": start, "end": end})
    }

    #[test]
    fn progress_from_journals() {
        let d = tempfile::tempdir().unwrap();
        let c = d.path();
        std::fs::write(c.join("campaign.toml"), "benchmarks = \"b\"\n").unwrap();
        let campaign = Campaign::load(c).unwrap();
        let mut work = Work {
            benchmarks: 10,
            solvers: 2,
            pairs: Vec::new(),
        };
        for s in ["z3", "yices"] {
            for k in 0..10 {
                work.pairs.push((s.to_string(), format!("L/b{k}.smt2")));
            }
        }
        let per = work.pairs_per_shard(2);
        assert_eq!(per.iter().sum::<usize>(), 20);
        // Shard 0 journaled all its pairs except one; one of them only in
        // the merged campaign journal. A stray pair not in the work is ignored.
        let s0 = Shard::new(0, 2).unwrap();
        let mine: Vec<(String, String)> = work
            .pairs
            .iter()
            .filter(|(s, b)| s0.owns(&pair_key(s, b)))
            .cloned()
            .collect();
        let (last, rest) = mine.split_last().unwrap();
        let (first, middle) = rest.split_first().unwrap();
        append(
            &c.join("runs.jsonl"),
            json!({"solver": first.0, "benchmark": first.1}),
        );
        for (s, b) in middle {
            append(
                &s0.dir(c).join("runs.jsonl"),
                json!({"solver": s, "benchmark": b}),
            );
        }
        append(
            &s0.dir(c).join("runs.jsonl"),
            json!({"solver": "other", "benchmark": "x"}),
        );
        let _ = last;
        // Cores: two hashes, one answered.
        let (h0, h1) = ("aa".to_string(), "bb".to_string());
        append(
            &s0.dir(c).join("cores.jsonl"),
            json!({"solver": "z3", "benchmark": "b", "hash": h0}),
        );
        append(
            &c.join("cores.jsonl"),
            json!({"solver": "z3", "benchmark": "c", "hash": h1}),
        );
        append(
            &c.join("checks.jsonl"),
            json!({"hash": h0, "checker": "cvc5"}),
        );
        append(
            &s0.dir(c).join("tasks.jsonl"),
            task("solve", 0, 130, 10, 20),
        );
        append(&s0.dir(c).join("tasks.jsonl"), task("solve", 0, 0, 30, 40));
        let mut queue = BTreeMap::new();
        queue.insert(1, vec!["RUNNING".to_string()]);
        let st = shard_status(&campaign, &work, 2, &queue).unwrap();
        assert_eq!(st[0].solve_expected, per[0]);
        assert_eq!(st[0].solve_done, per[0] - 1);
        assert_eq!(st[1].solve_done, 0);
        assert_eq!(
            st[0].solve_task.as_ref().unwrap().exit,
            0,
            "the last record counts"
        );
        assert_eq!(st[1].queue, vec!["RUNNING"]);
        let cores: usize = st.iter().map(|s| s.check_cores).sum();
        let answered: usize = st.iter().map(|s| s.check_answered).sum();
        assert_eq!((cores, answered), (2, 1));
        assert_eq!(missing_solve(&st), vec![0, 1]);
        let t = table(&st);
        assert!(
            t.contains(&format!("0/2    {}/{} *", per[0] - 1, per[0])),
            "{t}"
        );
        assert!(t.contains("exit 0 (9_0 on n1)"), "{t}");
        assert!(t.lines().last().unwrap().starts_with("total"), "{t}");
    }

    #[test]
    fn missing_checks_follow_the_last_solve() {
        let st = |check: Option<(i32, u64)>, solve_end: u64| ShardStatus {
            shard: 0,
            solve_expected: 1,
            solve_done: 1,
            check_cores: 0,
            check_answered: 0,
            solve_task: Some(serde_json::from_value(task("solve", 0, 0, 0, solve_end)).unwrap()),
            check_task: check.map(|(e, start)| {
                serde_json::from_value(task("check", 0, e, start, start + 1)).unwrap()
            }),
            queue: vec![],
        };
        let mut v = vec![
            st(Some((0, 100)), 50),
            st(Some((1, 100)), 50),
            st(None, 50),
            st(Some((130, 100)), 50),
        ];
        for (i, s) in v.iter_mut().enumerate() {
            s.shard = i as u32;
        }
        assert_eq!(missing_check(&v), vec![2, 3]);
        // A shard re-solved after the checks: every check must run again.
        v[0].solve_task.as_mut().unwrap().end = 150;
        assert_eq!(missing_check(&v), vec![0, 1, 2, 3]);
    }
}
