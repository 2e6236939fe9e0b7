//! Asking the checkers about one core-only benchmark at a time, within a
//! deadline: the engine of the minimality check ([`super::minimality`]) and
//! of best-known cores ([`super::best`]).
//!
//! An answer comes from, in order: this campaign's journals (the check
//! stage's and this one's), the cross-campaign cache ([`super::cache`],
//! the same records as validation's), the checker's dialect (a variant
//! file, or `not-applicable`), and only then a checker run. A run gets the
//! campaign's checker time limit, cut to what is left of the deadline; a
//! run cut by the deadline (or by Ctrl-C) leaves no record and no answer,
//! so a budget that is too small gives "undecided", never a guess. Every
//! other run is journaled and cached under the full limit, so that later
//! campaigns need not run it again. Checkers are asked one after another
//! until the caller's `decided` says the answers so far are enough.

use super::cache::Cache;
use crate::campaign::ledger::records::{CheckRecord, RunRecord, CHECKS};
use crate::campaign::setup::selection::{decision, select};
use crate::campaign::setup::solvers::SolverUnderTest;
use crate::campaign::setup::validators::Validators;
use crate::campaign::verdict::policy::CheckAnswer;
use crate::campaign::{
    ledger::{index::Bench, Loaded},
    setup::Campaign,
};
use crate::checkers::SolverDef;
use crate::message::Say;
use crate::rebuild::Dialect;
use crate::store::journal::Journal;
use anyhow::Result;
use serde::Serialize;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::Instant;

/// What the asking cost.
#[derive(Clone, Debug, Default, Serialize)]
pub struct AskStats {
    /// Checker runs started and finished (not cut).
    pub ran: usize,
    /// Their CPU seconds.
    pub cpu: f64,
    /// Answers taken from the cross-campaign cache.
    pub cache_hits: usize,
    /// Runs cut by a deadline (no answer kept).
    pub cut: usize,
}

/// The checkers, their versions, the cache and the answers known so far.
pub struct Asker<'a> {
    pub c: &'a Campaign,
    pub checkers: Vec<SolverDef>,
    current: &'a crate::campaign::ledger::provenance::Current,
    validators: Option<&'a Validators>,
    dialects: Vec<Option<Dialect>>,
    cache: Cache,
    journal: Journal,
    known: Mutex<HashMap<(String, String), CheckAnswer>>,
    stats: Mutex<AskStats>,
    failed: Mutex<BTreeMap<String, String>>,
    cancel: &'a AtomicBool,
    /// Where the warnings and errors go ([`Loaded::say`]).
    pub say: Say<'a>,
}

impl<'a> Asker<'a> {
    /// Load the campaign's checkers (probing their versions), the answers
    /// of `CHECKS` and of `journal`, where new answers go.
    pub fn open(l: &'a Loaded, journal: &str, cancel: &'a AtomicBool) -> Result<Asker<'a>> {
        let c = l.campaign;
        // Asked in this order (see `select`): native before wrapped.
        let mut checkers: Vec<(f64, SolverDef)> = l
            .ctx
            .checkers
            .iter()
            .map(|k| (k.prior_cost(), k.clone()))
            .collect();
        checkers.sort_by(|a, b| a.0.total_cmp(&b.0));
        let checkers: Vec<SolverDef> = checkers.into_iter().map(|(_, k)| k).collect();
        let dialects = checkers
            .iter()
            .map(|k| Dialect::new(k.accepts_named, &k.unsupported_commands))
            .collect();
        let mut known = HashMap::new();
        for name in [CHECKS, journal] {
            for r in crate::campaign::ledger::current::checks_of(l, name)? {
                known.insert((r.hash, r.checker), r.answer);
            }
        }
        let (cache, w) = Cache::open(&c.cache_dir());
        super::warn(l.say, w);
        Ok(Asker {
            c,
            checkers,
            current: &l.current,
            validators: l.ctx.validators.as_ref(),
            dialects,
            cache,
            journal: Journal::open(&c.journal_path(journal))?,
            known: Mutex::new(known),
            stats: Mutex::new(AskStats::default()),
            failed: Mutex::new(BTreeMap::new()),
            cancel,
            say: l.say,
        })
    }

    /// The checkers that judge `solver`'s cores in `logic`, in the order
    /// [`Asker::ask`] asks them: native binaries before interpreted
    /// wrappers ([`SolverDef::prior_cost`], sorted once by [`Asker::open`]),
    /// else as defined.
    pub fn select(&self, logic: &str, solver: &SolverUnderTest) -> Vec<&SolverDef> {
        select(
            &self.checkers,
            logic,
            solver,
            self.c.config.check.independent,
            self.validators,
        )
    }

    /// Answers of `selected` on core-only benchmark `hash` (in `cores/`),
    /// asked one after another until `decided` holds. `false` when the
    /// deadline or Ctrl-C stopped the asking first.
    pub fn ask(
        &self,
        hash: &str,
        selected: &[&SolverDef],
        deadline: Instant,
        decided: &dyn Fn(&HashMap<&str, CheckAnswer>) -> bool,
    ) -> Result<(HashMap<String, CheckAnswer>, bool)> {
        let mut got: HashMap<String, CheckAnswer> = HashMap::new();
        let view = |got: &HashMap<String, CheckAnswer>| -> bool {
            let v: HashMap<&str, CheckAnswer> = got.iter().map(|(k, a)| (k.as_str(), *a)).collect();
            decided(&v)
        };
        {
            let known = self.known.lock().unwrap();
            for k in selected {
                if let Some(a) = known.get(&(hash.to_string(), k.name.clone())) {
                    got.insert(k.name.clone(), *a);
                }
            }
        }
        let limit = self.c.checker_time;
        for k in selected {
            if view(&got) {
                return Ok((got, true));
            }
            if got.contains_key(&k.name) {
                continue;
            }
            let ki = self
                .checkers
                .iter()
                .position(|x| x.name == k.name)
                .expect("selected among the asker's checkers");
            let version = self.current.version(&k.name, true);
            let core = self.c.cores_dir().join(format!("{hash}.smt2"));
            let key = self.current.checker_key(&k.name);
            if let Some(hit) = self.cache.get(hash, &k.name, key.as_deref()) {
                let mut rec = hit.clone();
                rec.cached = true;
                rec.timing = None;
                rec.provenance = self.current.check_provenance(self.c, &k.name, &core);
                self.stats.lock().unwrap().cache_hits += 1;
                self.keep(rec, &mut got, false)?;
                continue;
            }
            let path = match &self.dialects[ki] {
                None => core.clone(),
                Some(d) => match crate::rebuild::store_variant(&core, d)? {
                    Ok(p) => p,
                    Err(why) => {
                        let mut rec = super::plan::not_applicable(
                            hash,
                            k,
                            version,
                            limit.as_secs_f64(),
                            why.to_string(),
                        );
                        rec.provenance = self.current.check_provenance(self.c, &k.name, &core);
                        self.keep(rec, &mut got, false)?;
                        continue;
                    }
                },
            };
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() || self.cancel.load(Ordering::SeqCst) {
                return Ok((got, false));
            }
            let spec =
                crate::campaign::setup::solvers::spec_for(k, &path, self.c, limit.min(left), false);
            let out = crate::runner::run(&spec, self.cancel);
            if let Some(why) = out.start_failure() {
                self.failed
                    .lock()
                    .unwrap()
                    .entry(k.name.clone())
                    .or_insert_with(|| why.to_string());
                continue;
            }
            if out.cancelled || (out.timed_out && left < limit) {
                self.stats.lock().unwrap().cut += 1;
                return Ok((got, false));
            }
            {
                let mut st = self.stats.lock().unwrap();
                st.ran += 1;
                st.cpu += out.cpu;
            }
            let mut rec =
                super::to_record(hash, k, version, limit.as_secs_f64(), &out, &self.c.dir);
            // Journaled under the full limit (see the module doc).
            rec.provenance = self.current.check_provenance(self.c, &k.name, &path);
            self.keep(rec, &mut got, true)?;
        }
        let complete = view(&got) || selected.iter().all(|k| got.contains_key(&k.name));
        Ok((got, complete))
    }

    /// Journal an answer (and cache a fresh one), and count it.
    fn keep(
        &self,
        rec: CheckRecord,
        got: &mut HashMap<String, CheckAnswer>,
        fresh: bool,
    ) -> Result<()> {
        self.journal.append(&rec)?;
        if fresh {
            if let Some(w) = self.cache.put(&self.current.inline_check(&rec)) {
                self.say.warning_once(format!("{w} (answers not cached)"));
            }
        }
        got.insert(rec.checker.clone(), rec.answer);
        self.known
            .lock()
            .unwrap()
            .insert((rec.hash, rec.checker), rec.answer);
        Ok(())
    }

    /// What the asking cost so far; checkers that could not start are reported.
    pub fn finish(&self) -> AskStats {
        for (k, why) in self.failed.lock().unwrap().iter() {
            self.say.error(format!(
                "checker '{k}' could not be started: {why}; its answers are missing"
            ));
        }
        self.stats.lock().unwrap().clone()
    }
}

/// A pair whose core the campaign's checkers validated.
pub struct Validated<'a> {
    pub solver: &'a SolverUnderTest,
    pub bench: &'a Bench,
    /// The core's names (normal forms, printed order, no repeats).
    pub core: Vec<String>,
    /// Hash of its core-only benchmark.
    pub hash: String,
}

/// The pairs of `l` (benchmarks passing `filter`) whose cores are
/// validated now, by the answers in the check journal.
pub fn validated<'l>(
    l: &'l Loaded,
    asker: &Asker,
    filter: &dyn Fn(&str) -> bool,
) -> Result<Vec<Validated<'l>>> {
    let c = l.campaign;
    let runs: Vec<RunRecord> = crate::campaign::ledger::current::runs(l)?;
    let hash_of = crate::campaign::ledger::current::core_hashes(l, &runs)?;
    let known = asker.known.lock().unwrap().clone();
    let policy = c.config.check.policy;
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for r in &runs {
        let (Some(s), Some(e)) = (l.solver(&r.solver), l.bench(&r.benchmark)) else {
            continue;
        };
        if !filter(&r.benchmark) || !seen.insert((r.solver.as_str(), r.benchmark.as_str())) {
            continue;
        }
        let Some(core) = super::checkable_core(r, e) else {
            continue;
        };
        let Some(hash) = l
            .pair_id(&r.solver, &r.benchmark)
            .and_then(|id| hash_of.get(&id))
        else {
            continue;
        };
        let selected = asker.select(&e.logic, s);
        let view: HashMap<&str, CheckAnswer> = selected
            .iter()
            .filter_map(|k| {
                known
                    .get(&(hash.to_string(), k.name.clone()))
                    .map(|a| (k.name.as_str(), *a))
            })
            .collect();
        if decision(policy, &view, &selected, s).1
            == Some(crate::campaign::verdict::policy::Decision::Validated)
        {
            let mut names = Vec::new();
            for n in core {
                if !names.contains(n) {
                    names.push(n.clone());
                }
            }
            out.push(Validated {
                solver: s,
                bench: e,
                core: names,
                hash: hash.to_string(),
            });
        }
    }
    Ok(out)
}

/// Rebuild the core-only benchmark of `names` on `e` into `cores/`; its hash.
pub fn rebuild(c: &Campaign, e: &Bench, names: &[String]) -> Result<String> {
    let set: HashSet<String> = names.iter().cloned().collect();
    Ok(super::plan::store_core(c, e, &set)?.0)
}

/// Run `work` on every item with `jobs` threads; the first error wins.
pub fn parallel<T: Sync>(
    jobs: usize,
    items: &[T],
    work: &(dyn Fn(&T) -> Result<()> + Sync),
) -> Result<()> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let first_error: Mutex<Option<anyhow::Error>> = Mutex::new(None);
    std::thread::scope(|s| {
        for _ in 0..jobs.clamp(1, items.len().max(1)) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                let Some(item) = items.get(i) else { break };
                if first_error.lock().unwrap().is_some() {
                    break;
                }
                if let Err(e) = work(item) {
                    first_error.lock().unwrap().get_or_insert(e);
                }
            });
        }
    });
    match first_error.into_inner().unwrap() {
        Some(e) => Err(e),
        None => Ok(()),
    }
}
