//! Best-known cores (`[check] best_known = true`): per benchmark, the
//! smallest validated core seen by any campaign sharing the cache, kept in
//! `<cache>/best-known.jsonl` under the named benchmark's content hash
//! (the file the core's names refer to) with its origin.
//!
//! For every benchmark with a validated core here, the candidate is this
//! campaign's smallest validated core, or the cache's when that one is
//! smaller. A core from the cache is validated here before it is used (its
//! names must be the benchmark's, and this campaign's checkers, minus the
//! producer's team when `independent`, must validate its core-only
//! benchmark under the campaign's policy); one that fails is not used and
//! reported. With `shrink_budget` > 0 the candidate is then shrunk by
//! deletion within that many seconds of checker time: each member whose
//! removal is proven unsatisfiable (the rule of [`crate::campaign::verdict::minimality`])
//! is dropped, so every step is itself a validated core, and when every
//! remaining member was proven needed the result is a minimal unsatisfiable
//! subset (`mus`). The campaign keeps its references in `best-known.jsonl`;
//! a smaller one goes back to the cache.

use super::ask::{parallel, rebuild, validated, AskStats, Asker, Validated};
use crate::campaign::ledger::index::Bench;
use crate::campaign::ledger::Loaded;
use crate::campaign::verdict::minimality::{removal, BestKnown, Origin, Removal, BEST_KNOWN};
use crate::campaign::verdict::policy::{decided_early, CheckAnswer, Decision, Tally};
use crate::checkers::SolverDef;
use crate::message::Say;
use crate::store::journal::Journal;
use anyhow::Result;
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::AtomicBool;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// File of the cache (and the campaign's journal of checker answers).
pub const CACHE_FILE: &str = "best-known.jsonl";
pub const BEST_KNOWN_CHECKS: &str = "best-known-checks.jsonl";

/// What a best-known pass did.
#[derive(Clone, Debug, Default, Serialize)]
pub struct BestSummary {
    /// Benchmarks with a reference now.
    pub benchmarks: usize,
    /// References taken from the cache (validated here).
    pub from_cache: usize,
    /// Cached cores that this campaign's checkers did not validate.
    pub rejected: usize,
    /// References made smaller by deletion.
    pub shrunk: usize,
    /// References written back to the cache (new or smaller).
    pub cached: usize,
    pub asked: AskStats,
}

/// Update the best-known cores of the benchmarks passing `filter`.
pub fn run(l: &Loaded, filter: &dyn Fn(&str) -> bool, cancel: &AtomicBool) -> Result<BestSummary> {
    let c = l.campaign;
    let asker = Asker::open(l, BEST_KNOWN_CHECKS, cancel)?;
    let mut own: BTreeMap<&str, Validated> = BTreeMap::new();
    for v in validated(l, &asker, filter)? {
        let better = own
            .get(v.bench.id.as_str())
            .is_none_or(|o| (v.core.len(), &v.solver.name) < (o.core.len(), &o.solver.name));
        if better {
            own.insert(v.bench.id.as_str(), v);
        }
    }
    let cache_path = c.cache_dir().join(CACHE_FILE);
    let cached = load_cache(&cache_path, l.say);
    let cache = Journal::open(&cache_path)
        .map_err(|e| {
            l.say
                .warning(format!("{e:#}; best-known cores are not cached"))
        })
        .ok();
    let journal = Journal::open(&c.journal_path(BEST_KNOWN))?;
    let earlier: HashMap<String, BestKnown> = c
        .read_journal::<BestKnown>(BEST_KNOWN)?
        .into_iter()
        .map(|b| (b.benchmark.clone(), b))
        .collect();
    let summary = Mutex::new(BestSummary::default());
    let items: Vec<&Validated> = own.values().collect();
    let shrink = c.config.check.shrink_budget;
    parallel(c.jobs, &items, &|v: &&Validated| {
        let e = v.bench;
        let bytes = std::fs::read(c.named_dir().join(&e.output))?;
        let bench_hash = blake3::hash(&bytes).to_hex().to_string();
        let mut best = BestKnown {
            benchmark_hash: bench_hash.clone(),
            benchmark: e.id.to_string(),
            assertions: e.assertions,
            core: v.core.clone(),
            origin: Origin {
                campaign: c.dir.display().to_string(),
                solver: v.solver.name.clone(),
                team: v.solver.team.clone(),
                shrunk: false,
                mus: false,
            },
        };
        let note = |f: &dyn Fn(&mut BestSummary)| f(&mut summary.lock().unwrap());
        let prev = earlier
            .get(e.id.as_str())
            .filter(|p| p.benchmark_hash == bench_hash);
        if let Some(p) = prev.filter(|p| p.size() <= best.size()) {
            best = p.clone(); // validated here before (or this campaign's own)
        }
        if let Some(x) = cached.get(&bench_hash).filter(|x| x.size() < best.size()) {
            let deadline = Instant::now() + c.checker_time * (asker.checkers.len() as u32 + 1);
            if valid_here(&asker, e, x, deadline)? {
                best = BestKnown {
                    benchmark: e.id.to_string(),
                    ..x.clone()
                };
                note(&|s| s.from_cache += 1);
            } else {
                l.say.warning(format!(
                    "the best-known core of {} from {} ({} assertions) is not validated by this campaign's checkers; not used",
                    e.id,
                    x.origin_text(&c.dir),
                    x.size()
                ));
                note(&|s| s.rejected += 1);
            }
        }
        if shrink > 0.0 && !best.origin.mus && best.size() > 1 {
            let deadline = Instant::now() + Duration::from_secs_f64(shrink);
            let before = best.size();
            shrink_core(&asker, e, &mut best, deadline)?;
            if best.size() < before {
                best.origin.shrunk = true;
                note(&|s| s.shrunk += 1);
            }
        }
        if cancel.load(std::sync::atomic::Ordering::SeqCst) {
            return Ok(());
        }
        if prev != Some(&best) {
            journal.append(&best)?;
        }
        if cached.get(&bench_hash).is_none_or(|x| {
            best.size() < x.size() || (best.size() == x.size() && best.origin.mus && !x.origin.mus)
        }) {
            if let Some(j) = &cache {
                if let Err(err) = j.append(&best) {
                    l.say
                        .warning_once(format!("{err:#}; best-known cores are not cached"));
                }
            }
            note(&|s| s.cached += 1);
        }
        note(&|s| s.benchmarks += 1);
        Ok(())
    })?;
    let mut s = summary.into_inner().unwrap();
    s.asked = asker.finish();
    Ok(s)
}

/// The cache's best core per benchmark hash (smallest; the first of equals,
/// unless a later one is a proven MUS). An unreadable cache is a warning.
fn load_cache(path: &std::path::Path, say: Say) -> HashMap<String, BestKnown> {
    let recs: Vec<BestKnown> = match crate::store::journal::read_all(path) {
        Ok((r, rep)) => {
            for w in rep.warnings(path) {
                say.warning_once(w);
            }
            r
        }
        Err(e) => {
            say.warning(format!(
                "{e:#}; best-known cores from the cache are not used"
            ));
            Vec::new()
        }
    };
    let mut out: HashMap<String, BestKnown> = HashMap::new();
    for r in recs {
        let better = out.get(&r.benchmark_hash).is_none_or(|o| {
            r.size() < o.size() || (r.size() == o.size() && r.origin.mus && !o.origin.mus)
        });
        if better {
            out.insert(r.benchmark_hash.clone(), r);
        }
    }
    out
}

/// The checkers that judge a best-known core: this campaign's that handle
/// the logic, minus its producer's team when checking is independent.
fn judges<'a>(asker: &'a Asker, e: &Bench, team: &str) -> Vec<&'a SolverDef> {
    let independent = asker.c.config.check.independent;
    asker
        .checkers
        .iter()
        .filter(|k| k.supports(&e.logic) && !(independent && k.team == team))
        .collect()
}

fn tally_of(answers: &HashMap<&str, CheckAnswer>, selected: &[&SolverDef]) -> (Tally, u32) {
    let mut t = Tally::default();
    let mut remaining = 0;
    for k in selected {
        match answers.get(k.name.as_str()) {
            Some(a) => t.add(*a, false),
            None => remaining += 1,
        }
    }
    (t, remaining)
}

/// Whether this campaign's checkers validate `x` on `e`.
fn valid_here(asker: &Asker, e: &Bench, x: &BestKnown, deadline: Instant) -> Result<bool> {
    if x.core.is_empty() || !crate::answer::core_issues(&x.core, &e.top_level, &e.nested).is_empty()
    {
        return Ok(false);
    }
    let selected = judges(asker, e, &x.origin.team);
    if selected.is_empty() {
        return Ok(false);
    }
    let policy = asker.c.config.check.policy;
    let decide = |a: &HashMap<&str, CheckAnswer>| {
        let (t, remaining) = tally_of(a, &selected);
        let d = if remaining == 0 {
            Some(policy.decide(&t))
        } else {
            decided_early(policy, &t, remaining, false)
        };
        (t, d)
    };
    let hash = rebuild(asker.c, e, &x.core)?;
    let (answers, _) = asker.ask(&hash, &selected, deadline, &|a| decide(a).1.is_some())?;
    let view: HashMap<&str, CheckAnswer> = answers.iter().map(|(k, a)| (k.as_str(), *a)).collect();
    let (t, d) = decide(&view);
    Ok(d == Some(Decision::Validated) && t.unsat > 0)
}

/// Drop every member whose removal is proven unsatisfiable, within `deadline`.
fn shrink_core(asker: &Asker, e: &Bench, best: &mut BestKnown, deadline: Instant) -> Result<()> {
    let selected = judges(asker, e, &best.origin.team);
    let check = &asker.c.config.check;
    let outcome = |a: &HashMap<&str, CheckAnswer>| {
        let (t, remaining) = tally_of(a, &selected);
        removal(check.policy, &t, remaining, false, check.early_stop)
    };
    let mut all_needed = !selected.is_empty();
    for member in best.core.clone() {
        if best.core.len() <= 1 {
            break;
        }
        let rest: Vec<String> = best
            .core
            .iter()
            .filter(|n| **n != member)
            .cloned()
            .collect();
        let hash = rebuild(asker.c, e, &rest)?;
        let (answers, _) = asker.ask(&hash, &selected, deadline, &|a| outcome(a).is_some())?;
        let view: HashMap<&str, CheckAnswer> =
            answers.iter().map(|(k, a)| (k.as_str(), *a)).collect();
        match outcome(&view) {
            Some(Removal::Removable) => best.core = rest,
            Some(Removal::Needed) => {}
            _ => all_needed = false,
        }
    }
    best.origin.mus = all_needed;
    Ok(())
}
