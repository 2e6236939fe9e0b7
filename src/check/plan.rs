//! Before any checker runs: which pairs have a core to check, their
//! core-only files, and which (core, checker) jobs are still needed.
//!
//! A job is needed while some pair using the core selects the checker and
//! is not settled (its decision can still change). Answers already journaled, then the
//! cross-campaign cache, then the checker's dialect (a variant file, or an
//! explicit `not-applicable`) remove jobs; what is left is queued per core,
//! most useful checker first (the one that counts for the most undecided
//! pairs), then the cheapest (mean CPU of earlier answers). Journal writes
//! of this phase are grouped (one fsync per journal), and rebuilds run in
//! parallel: on a campaign whose answers are all cached, this phase is the
//! whole stage.

use super::{cache::Cache, checkable_core};
use crate::answer::Answer;
use crate::campaign::ledger::index::Bench;
use crate::campaign::ledger::loaded::PairId;
use crate::campaign::ledger::provenance::{core_source, Current};
use crate::campaign::ledger::records::CheckRecord;
use crate::campaign::ledger::records::CoreRecord;
use crate::campaign::ledger::records::RunRecord;
use crate::campaign::setup::selection::{select, tally};
use crate::campaign::setup::solvers::SolverUnderTest;
use crate::campaign::setup::validators::Validators;
use crate::campaign::verdict::policy::{decided_early, CheckAnswer, Policy};
use crate::campaign::{ledger::Loaded, setup::Campaign};
use crate::checkers::SolverDef;
use crate::rebuild::Dialect;
use crate::store::journal::Journal;
use anyhow::{Context, Result};
use rayon::prelude::*;
use rustc_hash::FxHashMap as HashMap;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// Answers known so far: (core hash, checker) → answer.
pub type Answers = HashMap<(String, String), CheckAnswer>;

/// A pair with a well-formed core: its solver, benchmark and core hash.
pub type Pair<'a> = (&'a SolverUnderTest, &'a Bench, std::sync::Arc<str>);

/// The pairs to check, rebuilding the core-only files not yet built (or
/// removed since) and journaling them in `cores.jsonl`.
pub fn pairs_to_check<'a>(
    l: &'a Loaded,
    runs: &'a [RunRecord],
    filter: &dyn Fn(&str) -> bool,
    which: &dyn Fn(&RunRecord) -> bool,
) -> Result<Vec<Pair<'a>>> {
    let c = l.campaign;
    let cores_path = c.journal_path(crate::campaign::ledger::records::CORES);
    // A core record counts only for the run it was built from (and a hash
    // names a file under `cores/`): otherwise the core is rebuilt.
    let mut hash_of = crate::campaign::ledger::current::core_hashes(l, runs)?;
    crate::process::trace::phase("check: core hashes");
    // Worked out in parallel (8 bytes a run), taken in journal order.
    let checkable: Vec<Option<PairId>> = runs
        .par_iter()
        .map(|r| {
            let id = l.pair_id(&r.solver, &r.benchmark)?;
            checkable_core(r, &l.index[id.bench()]).map(|_| id)
        })
        .collect();
    let mut wanted = Vec::new();
    // Pairs are dense (solver's place × benchmark's place): a flag each.
    let width = l.index.len();
    let mut seen = vec![false; l.solvers.len() * width];
    // 16 bytes a pair: its solver, benchmark and core are found from these.
    for (r, id) in runs.iter().zip(checkable) {
        let Some(id) = id else { continue };
        let first = !std::mem::replace(&mut seen[id.solver() * width + id.bench()], true);
        if filter(&r.benchmark) && first && which(r) {
            wanted.push((id, r)); // (else another shard's, or journaled twice)
        }
    }
    drop(seen);
    let missing: Vec<_> = {
        // Each distinct core-only file looked for once (many pairs share
        // one): by the shared text's address, not by hashing the text for
        // each pair (a text held twice is looked for twice, no more).
        let (cores, mut on_disk) = (c.cores_dir(), HashMap::default());
        let mut stored = |id: &PairId| {
            hash_of.get(id).is_some_and(|h| {
                *on_disk
                    .entry(std::sync::Arc::as_ptr(h) as *const u8 as usize)
                    .or_insert_with(|| cores.join(format!("{h}.smt2")).exists())
            })
        };
        wanted.iter().filter(|w| !stored(&w.0)).collect()
    };
    // Rebuilds are mostly fsync waits: more threads than cores.
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(c.jobs.max(8))
        .build()
        .context("cannot start rebuild threads")?;
    let built: Vec<Result<CoreRecord>> = pool.install(|| {
        missing
            .par_iter()
            .map(|(id, r)| {
                let e = &l.index[id.bench()];
                let core = r.core.as_deref().expect("a checkable core");
                let set: std::collections::HashSet<String> = core.iter().cloned().collect();
                let (hash, stats) = store_core(c, e, &set)?;
                let source = core_source(l.current.bench_hash(&e.id), core);
                Ok(CoreRecord {
                    solver: r.solver.clone(),
                    benchmark: r.benchmark.clone(),
                    hash,
                    kept: stats.kept,
                    source: Some(source),
                })
            })
            .collect()
    });
    let built = built.into_iter().collect::<Result<Vec<_>>>()?;
    if !built.is_empty() {
        Journal::open(&cores_path)?.append_all(&built)?;
    }
    for (rec, (id, _)) in built.iter().zip(&missing) {
        hash_of.insert(*id, rec.hash.as_str().into());
    }
    Ok(wanted
        .into_iter()
        // Moved out, not copied: each pair is wanted once.
        .map(|(id, _)| {
            let hash = hash_of.remove(&id);
            (
                &l.solvers[id.solver()],
                &l.index[id.bench()],
                hash.expect("every wanted pair's core is stored or built above"),
            )
        })
        .collect())
}

/// The distinct cores of the pairs, and what decides whether a job is needed.
pub struct Plan<'a> {
    pub c: &'a Campaign,
    pub checkers: Vec<SolverDef>,
    /// The validators by soundness, when the campaign has them.
    pub validators: Option<&'a Validators>,
    pub pairs: Vec<Pair<'a>>,
    /// Hash → indices into `pairs`.
    pub hashes: BTreeMap<String, Vec<usize>>,
    /// The distinct hashes, in order (a job's `core` indexes this).
    pub hash_list: Vec<String>,
}

/// The jobs left after journaled answers, cache hits and dialects.
#[derive(Default)]
pub struct Jobs {
    /// Per core (index into `hash_list`): checker indices, in queue order.
    pub queue: Vec<Vec<usize>>,
    /// Variant files for (core, checker) jobs of restricted checkers.
    pub files: std::collections::HashMap<(usize, usize), PathBuf>,
    pub cache_hits: usize,
    pub not_applicable: usize,
    /// (core, checker) of the answers journaled here (cache hits,
    /// `not-applicable`).
    pub journaled: Vec<(String, String)>,
}

impl<'a> Plan<'a> {
    pub fn new(
        c: &'a Campaign,
        checkers: Vec<SolverDef>,
        pairs: Vec<Pair<'a>>,
        validators: Option<&'a Validators>,
    ) -> Plan<'a> {
        // Grouped by the shared text's address first (a million pairs, a
        // few thousand cores), then by text: the key copied once per core.
        let mut group_at: HashMap<usize, usize> = HashMap::default();
        let mut groups: Vec<(&str, Vec<usize>)> = Vec::new();
        for (i, (_, _, h)) in pairs.iter().enumerate() {
            let at = std::sync::Arc::as_ptr(h) as *const u8 as usize;
            let g = *group_at.entry(at).or_insert_with(|| {
                groups.push((h, Vec::new()));
                groups.len() - 1
            });
            groups[g].1.push(i);
        }
        let mut hashes: BTreeMap<String, Vec<usize>> = BTreeMap::new();
        for (h, of) in groups {
            match hashes.get_mut(h) {
                // A text held twice: its pairs in order again.
                Some(all) => {
                    all.extend(of);
                    all.sort_unstable();
                }
                None => {
                    hashes.insert(h.to_string(), of);
                }
            }
        }
        let hash_list = hashes.keys().cloned().collect();
        Plan {
            c,
            checkers,
            validators,
            pairs,
            hashes,
            hash_list,
        }
    }

    /// Pairs of `h` that select checker `k` and are not settled yet.
    pub fn waiting(&self, h: &str, k: &str, answers: &Answers) -> usize {
        let cfg = &self.c.config.check;
        // Whether a pair waits depends on its solver and logic alone (the
        // core is `h` for all): worked out once per (solver, logic), not
        // for each of the thousands of pairs that share a core.
        let mut known: Vec<(&SolverUnderTest, &str, bool)> = Vec::new();
        self.hashes[h]
            .iter()
            .filter(|&&p| {
                let (s, e, _) = &self.pairs[p];
                let same = |x: &&(&SolverUnderTest, &str, bool)| {
                    std::ptr::eq(x.0, *s) && x.1 == e.logic.as_str()
                };
                if let Some(&(_, _, w)) = known.iter().find(same) {
                    return w;
                }
                let sel = select(
                    &self.checkers,
                    &e.logic,
                    s,
                    cfg.independent,
                    self.validators,
                );
                let w = sel.iter().any(|x| x.name == k)
                    && !pair_settled(cfg.policy, h, &sel, s, answers, cfg.early_stop);
                known.push((s, e.logic.as_str(), w));
                w
            })
            .count()
    }

    pub fn needed(&self, h: &str, k: &str, answers: &Answers) -> bool {
        !answers.contains_key(&(h.to_string(), k.to_string())) && self.waiting(h, k, answers) > 0
    }

    /// Whether any job is needed at all.
    pub fn any_needed(&self, answers: &Answers) -> bool {
        self.hash_list.iter().any(|h| {
            self.checkers
                .iter()
                .any(|k| self.needed(h, &k.name, answers))
        })
    }

    /// The jobs still needed. Cache hits and `not-applicable` answers are
    /// added to `answers` and journaled in `checks` (one group commit).
    pub fn jobs(
        &self,
        answers: &mut Answers,
        cache: &Cache,
        current: &Current,
        checks: &Journal,
        earlier: &[CheckRecord],
        run_cost: &HashMap<String, f64>,
    ) -> Result<Jobs> {
        let limit = self.c.checker_time.as_secs_f64();
        let dialects: Vec<Option<Dialect>> = self
            .checkers
            .iter()
            .map(|k| Dialect::new(k.accepts_named, &k.unsupported_commands))
            .collect();
        let measured = mean_cpu(earlier.iter().chain(cache.records()));
        // Each checker's cost, worked out once: measured as a checker; never
        // asked yet, what its program cost as a solver in this campaign;
        // else a native binary before an interpreted wrapper.
        let cost: Vec<f64> = self
            .checkers
            .iter()
            .map(|k| {
                measured
                    .get(k.name.as_str())
                    .or_else(|| run_cost.get(&k.name))
                    .copied()
                    .unwrap_or_else(|| k.prior_cost())
            })
            .collect();
        let mut out = Jobs::default();
        let mut records = Vec::new();
        for (hi, h) in self.hash_list.iter().enumerate() {
            let mut want = Vec::new();
            for (ki, k) in self.checkers.iter().enumerate() {
                if !self.needed(h, &k.name, answers) {
                    continue;
                }
                let core = self.c.cores_dir().join(format!("{h}.smt2"));
                let key = current.checker_key(&k.name);
                let hit = cache.get_vote(h, &k.name, key.as_deref(), &self.c.dir);
                if let Some(hit) = hit {
                    let mut rec = hit.clone();
                    rec.cached = true;
                    rec.timing = None;
                    // The cached run's command named the other campaign's file.
                    rec.provenance = current.check_provenance(self.c, &k.name, &core);
                    let counted = rec.counted(self.c.config.check.policy);
                    answers.insert((h.clone(), k.name.clone()), counted);
                    records.push(rec);
                    out.cache_hits += 1;
                    continue;
                }
                if let Some(d) = &dialects[ki] {
                    match crate::rebuild::store_variant(&core, d)? {
                        Ok(path) => {
                            out.files.insert((hi, ki), path);
                        }
                        Err(why) => {
                            let mut rec = not_applicable(
                                h,
                                k,
                                current.version(&k.name, true),
                                limit,
                                why.to_string(),
                            );
                            rec.provenance = current.check_provenance(self.c, &k.name, &core);
                            answers.insert((h.clone(), k.name.clone()), rec.answer);
                            records.push(rec);
                            out.not_applicable += 1;
                            continue;
                        }
                    }
                }
                want.push(ki);
            }
            // Cache hits may already settle the core; most useful checkers first.
            want.retain(|&ki| self.needed(h, &self.checkers[ki].name, answers));
            let useful: HashMap<usize, usize> = want
                .iter()
                .map(|&ki| (ki, self.waiting(h, &self.checkers[ki].name, answers)))
                .collect();
            want.sort_by(|a, b| {
                useful[b]
                    .cmp(&useful[a])
                    .then(cost[*a].total_cmp(&cost[*b]))
            });
            out.queue.push(want);
        }
        checks.append_all(&records)?;
        out.journaled = records.into_iter().map(|r| (r.hash, r.checker)).collect();
        Ok(out)
    }
}

/// Mean CPU seconds of the runs of each checker definition's program as a
/// solver of this campaign (a reference solver, or a solver that runs a
/// checker's program): what the checker is likely to cost before it was
/// ever asked.
pub fn run_costs(l: &Loaded, runs: &[RunRecord]) -> HashMap<String, f64> {
    let of_solver: HashMap<&str, Vec<&str>> = l
        .solvers
        .iter()
        .map(|s| {
            let mut defs: Vec<&str> = s.runs.iter().map(|(k, _)| k.as_str()).collect();
            defs.extend(s.definition.as_deref());
            (s.name.as_str(), defs)
        })
        .collect();
    let mut sums: HashMap<&str, (f64, u32)> = HashMap::default();
    for r in runs.iter().filter(|r| r.cpu > 0.0) {
        for d in of_solver.get(r.solver.as_str()).into_iter().flatten() {
            let e = sums.entry(d).or_default();
            e.0 += r.cpu;
            e.1 += 1;
        }
    }
    sums.into_iter()
        .map(|(k, (s, n))| (k.to_string(), s / f64::from(n)))
        .collect()
}

/// Mean CPU seconds per run of each checker, from earlier records.
fn mean_cpu<'r>(records: impl Iterator<Item = &'r CheckRecord>) -> HashMap<&'r str, f64> {
    let mut sums: HashMap<&str, (f64, u32)> = HashMap::default();
    for r in records.filter(|r| r.answer != CheckAnswer::NotApplicable) {
        let e = sums.entry(r.checker.as_str()).or_default();
        e.0 += r.cpu;
        e.1 += 1;
    }
    sums.into_iter()
        .map(|(k, (s, n))| (k, s / f64::from(n)))
        .collect()
}

pub(crate) fn not_applicable(
    h: &str,
    k: &SolverDef,
    version: Option<String>,
    limit: f64,
    why: String,
) -> CheckRecord {
    CheckRecord {
        hash: h.to_string(),
        checker: k.name.clone(),
        version,
        time_limit: limit,
        answer: CheckAnswer::NotApplicable,
        raw: Answer::NoAnswer,
        exit: crate::runner::Exit::FailedToStart("not run: not applicable".into()),
        wall: 0.0,
        cpu: 0.0,
        cached: false,
        note: Some(why),
        output: None,
        timing: None,
        provenance: None,
        flags: Vec::new(),
        stdout_dropped: 0,
        stderr_dropped: 0,
        certification: None,
        model: None,
    }
}

/// Whether a pair's decision can no longer change.
fn pair_settled(
    policy: Policy,
    hash: &str,
    selected: &[&SolverDef],
    solver: &SolverUnderTest,
    answers: &Answers,
    early_stop: bool,
) -> bool {
    let mine: HashMap<&str, CheckAnswer> = selected
        .iter()
        .filter_map(|k| {
            answers
                .get(&(hash.to_string(), k.name.clone()))
                .map(|a| (k.name.as_str(), *a))
        })
        .collect();
    let (t, remaining, producer_pending) = tally(&mine, selected, solver);
    if remaining == 0 {
        return true;
    }
    // A `sat` with no `unsat` yet never settles a core early: the remaining
    // checkers run, so that one unsound checker shows as a dispute instead of
    // silently refuting a correct core (refuted cores are rare, this costs little).
    if t.sat > 0 && t.unsat == 0 {
        return false;
    }
    early_stop && decided_early(policy, &t, remaining, producer_pending).is_some()
}

/// Rebuild the core-only benchmark of the names `core` on `e` into the
/// campaign's `cores/`: its hash and the rebuild's stats. The benchmark is
/// read twice only when it may use a named term by its name.
pub(crate) fn store_core(
    c: &Campaign,
    e: &Bench,
    core: &std::collections::HashSet<String>,
) -> Result<(String, crate::rebuild::RebuildStats)> {
    let own = crate::rebuild::numbered_with(&e.prefix);
    let names_used = !e.nested.is_empty() || !e.top_level.iter().all(|n| own(n));
    let (hash, _, stats) = crate::rebuild::store(
        &c.named_dir().join(&e.output),
        &c.cores_dir(),
        core,
        &own,
        names_used,
    )?;
    Ok((hash, stats))
}
