//! Verdict per pair: a run record, the core's well-formedness and the
//! checkers' answers, folded by the campaign's decision policy.
//!
//! This is where "what happened" becomes one [`PairRecord`] for the scorer,
//! with the evidence kept beside it ([`PairVerdict`]): every checker's
//! answer, a *disputed* flag when checkers disagree (sat vs unsat: a
//! soundness problem in one of them, reported loudly), and a flag when a
//! core was confirmed by a checker of its producer's own team.

use crate::answer::{self, Answer};
use crate::campaign::ledger::index::Bench;
use crate::campaign::ledger::loaded::PairId;
use crate::campaign::ledger::records::CheckRecord;
use crate::campaign::ledger::records::RunRecord;
use crate::campaign::setup::selection;
use crate::campaign::setup::solvers::SolverUnderTest;
use crate::campaign::verdict::certification::{Certification, Refutation, Unproven};
use crate::campaign::verdict::pair::{
    CheckerTally, Contradiction, IllFormed, PairRecord, PairVerdict, Verdict,
};
use crate::campaign::verdict::policy::{CheckAnswer, Decision, Policy};
use crate::campaign::{ledger::Loaded, setup::Campaign};
use crate::checkers::SolverDef;
use crate::scramble::DescrambleMap;
use crate::store::compact::Name;
use anyhow::Result;
use rayon::prelude::*;
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::collections::BTreeMap;

/// Verdict for a run whose answer needs no checker (everything but a
/// well-formed unsat core), with the run status.
pub fn verdict_without_check(r: &RunRecord, e: &Bench) -> Option<Verdict> {
    if r.timed_out || r.memout {
        return Some(Verdict::NoAnswer);
    }
    Some(match r.answer {
        // Known unsat by its status; a validated core of another solver
        // may show it later ([`confirm_sats`]).
        Answer::Sat => Verdict::of_sat(e.status.as_deref() == Some("unsat")),
        Answer::Unknown => Verdict::Unknown,
        Answer::Timeout | Answer::Error | Answer::NoAnswer => Verdict::NoAnswer,
        Answer::Unsat => match &r.core {
            None => Verdict::without_core(r.core_problem),
            Some(core) if core.is_empty() => Verdict::IllFormed {
                reason: IllFormed::Empty,
            },
            Some(core) => match answer::core_issues(core, &e.top_level, &e.nested).first() {
                Some(reason) => Verdict::IllFormed { reason: *reason },
                None => return None,
            },
        },
    })
}

/// The checkers' answers as the scorer records them (none when no checker ran).
fn tally_of(
    mine: &BTreeMap<String, CheckAnswer>,
    selected: &[&SolverDef],
    s: &SolverUnderTest,
) -> Option<CheckerTally> {
    if mine.is_empty() {
        return None;
    }
    let view: HashMap<&str, CheckAnswer> = mine.iter().map(|(k, v)| (k.as_str(), *v)).collect();
    Some(crate::campaign::setup::selection::tally(&view, selected, s).0)
}

/// Every pair of the campaign with its verdict, in (solver, benchmark) order.
pub fn collect(l: &Loaded) -> Result<Vec<PairVerdict>> {
    let runs = crate::campaign::ledger::current::runs(l)?;
    collect_measured(l, runs).map(|(pairs, _)| pairs)
}

/// [`collect`], with how the runs judged were measured → how many (the
/// facts' [`crate::campaign::ledger::facts::Facts::measured`]).
pub fn collect_measured(
    l: &Loaded,
    runs: Vec<RunRecord>,
) -> Result<(Vec<PairVerdict>, BTreeMap<String, usize>)> {
    let c = l.campaign;

    crate::process::trace::phase("runs read");
    let core_of = crate::campaign::ledger::current::core_hashes(l, &runs)?;
    crate::process::trace::phase("core hashes");
    let checks: Vec<CheckRecord> = crate::campaign::ledger::current::checks(l)?;
    // The checkers counted need not be runnable here (scoring on another machine).
    let answered = checks.iter().map(|k| k.checker.as_str()).collect();
    let checkers = crate::campaign::setup::selection::verdict_checkers(c, l.defs, &answered);
    let policy = c.config.check.policy;
    let mut answers: HashMap<&str, BTreeMap<String, CheckAnswer>> = HashMap::default();
    // The records of each core, in journal order (looked up per pair, not
    // searched: a campaign has many pairs per core).
    let mut of_core: HashMap<&str, Vec<&CheckRecord>> = HashMap::default();
    for k in &checks {
        answers
            .entry(k.hash.as_str())
            .or_default()
            .insert(k.checker.clone(), k.counted(policy));
        of_core.entry(k.hash.as_str()).or_default().push(k);
    }
    let firsts = first_of_each_pair(l, &runs);
    // Each pair's run once (a re-run shard's second record is not scored).
    let mut measured = BTreeMap::new();
    for (r, _) in runs.iter().zip(&firsts).filter(|(_, id)| id.is_some()) {
        let by = r.measured.map_or("not recorded", |m| m.words());
        *measured.entry(by.to_string()).or_insert(0) += 1;
    }
    // Judged in parallel, in a few long runs of pairs (each with its own
    // shared names and maps, so that a name is held a few times at most);
    // the verdicts keep the journal's order.
    let judge = |(shared, distinct): &mut (Shared, HashSet<_>), (r, id): (RunRecord, _)| {
        let id = id?; // None: a pair journaled twice (re-run shard), counted once
        let (s, name, e) = (
            l.solver(&r.solver)?,
            l.solver_name(&r.solver)?,
            l.bench(&r.benchmark)?,
        );
        // Judged query by query (crate::incremental::verdict), not scored.
        if e.incremental {
            return None;
        }
        let hash = core_of.get(&id).cloned();
        let all_answers = hash.as_deref().and_then(|h| answers.get(h));
        let validators = l.ctx.validators.as_ref();
        let mut v = pair_verdict(
            c,
            r,
            e,
            (s, name),
            (&checkers, validators),
            (hash, all_answers),
            shared,
        );
        // One map per distinct set of answers, shared by its pairs (a
        // million pairs have a handful of them).
        match distinct.get(&*v.checkers) {
            Some(same) => v.checkers = std::sync::Arc::clone(same),
            None => {
                distinct.insert(std::sync::Arc::clone(&v.checkers));
            }
        }
        if let Some(h) = v.core_hash.clone() {
            let mine = of_core.get(&*h).map_or(&[][..], Vec::as_slice);
            explain_votes(&mut v, mine, policy, &checkers, e, s, l);
        }
        // Most pairs have no details: no box is kept for them.
        v.details.tidy();
        Some(v)
    };
    let runs_per_task = runs.len() / (4 * rayon::current_num_threads()) + 1;
    let judged: Vec<Option<PairVerdict>> = runs
        .into_par_iter()
        .zip(firsts)
        .with_min_len(runs_per_task)
        .map_init(|| (Shared::new(policy), HashSet::default()), judge)
        .collect();
    // In place: the verdicts take the slots they were judged into.
    let mut out: Vec<PairVerdict> = judged.into_iter().flatten().collect();
    // The original positions of scrambled benchmarks' cores, in order (a
    // map that cannot be read is warned about once).
    if l.index.iter().any(|e| e.descramble.is_some()) {
        let mut maps = HashMap::default();
        for v in out.iter_mut() {
            let Some(e) = l.bench(&v.pair.benchmark) else {
                continue;
            };
            if let Some(o) = original_core(c, e, v.pair.core.as_deref(), &mut maps, l.say) {
                v.details.original_core = Some(o);
            }
        }
    }
    confirm_sats(&mut out);
    attach_beyond(c, &mut out)?;
    // In place (a stable sort would take half the verdicts' size again):
    // each pair occurs once, so the order is the same.
    out.sort_unstable_by(|a, b| {
        (&a.pair.solver, &a.pair.benchmark).cmp(&(&b.pair.solver, &b.pair.benchmark))
    });
    Ok((out, measured))
}

/// A `sat` on a benchmark without an `unsat` status is wrong all the same
/// when a core of that benchmark was validated: the checkers showed part
/// of it unsat ([`Verdict::of_sat`]).
pub fn confirm_sats(pairs: &mut [PairVerdict]) {
    if !pairs
        .iter()
        .any(|v| v.pair.verdict == Verdict::SatUnconfirmed)
    {
        return;
    }
    let shown: HashSet<Name> = pairs
        .iter()
        .filter(|v| v.pair.verdict == Verdict::Validated)
        .map(|v| v.pair.benchmark.clone())
        .collect();
    for v in pairs.iter_mut() {
        if v.pair.verdict == Verdict::SatUnconfirmed && shown.contains(&v.pair.benchmark) {
            v.pair.verdict = Verdict::of_sat(true);
        }
    }
}

/// The certifications, the answers that cast no vote and why a vote was
/// not counted, from the core's records (`mine`, in journal order).
fn explain_votes(
    v: &mut PairVerdict,
    mine: &[&CheckRecord],
    policy: Policy,
    checkers: &[SolverDef],
    e: &Bench,
    s: &SolverUnderTest,
    l: &Loaded,
) {
    certify(v, mine, policy);
    let other = |k: &&&CheckRecord| v.checkers.get(&k.checker) == Some(&CheckAnswer::Other);
    let raw_answers: BTreeMap<_, _> = mine
        .iter()
        .filter(other)
        .map(|k| (k.checker.clone(), k.raw))
        .collect();
    // A sat/unsat that did not count says why; so does a checker that
    // answered on this core but is none of this pair's (the solver's own
    // team, left out).
    let mut not_counted: BTreeMap<_, _> = mine
        .iter()
        .filter(other)
        .filter_map(|k| {
            let void = k.certification.as_ref().filter(|c| c.voids_sat(policy));
            let why = k.note.clone().or_else(|| void.map(|c| c.describe()))?;
            Some((k.checker.clone(), why))
        })
        .collect();
    let validators = l.ctx.validators.as_ref();
    let independent = l.campaign.config.check.independent;
    for k in mine {
        let Some(def) = checkers.iter().find(|d| d.name == k.checker) else {
            continue;
        };
        if let Some(why) = selection::left_out(def, &e.logic, s, independent, validators) {
            not_counted.insert(k.checker.clone(), why.to_string());
        }
    }
    // Written only when there is something to say (a write boxes them).
    if !raw_answers.is_empty() {
        v.details.raw_answers = raw_answers;
    }
    if !not_counted.is_empty() {
        v.details.not_counted = not_counted;
    }
}

/// Per run, its pair when it is the pair's first record (the one that
/// counts, as everywhere), else `None`. Warns (once per process) when the
/// runs journals hold two records of one pair with different results: two
/// runs of the campaign at once (before the campaign lock), or shards
/// re-run with a nondeterministic solver.
fn first_of_each_pair(l: &Loaded, runs: &[RunRecord]) -> Vec<Option<PairId>> {
    let mut first: HashMap<PairId, usize> = HashMap::default();
    let mut conflicting = HashSet::default();
    let mut out = Vec::with_capacity(runs.len());
    for (i, r) in runs.iter().enumerate() {
        let Some(id) = l.pair_id(&r.solver, &r.benchmark) else {
            out.push(None);
            continue;
        };
        match first.get(&id) {
            None => {
                first.insert(id, i);
                out.push(Some(id));
                continue;
            }
            Some(&f) if runs[f].answer != r.answer || runs[f].core != r.core => {
                conflicting.insert(id);
            }
            Some(_) => {}
        }
        out.push(None);
    }
    if !conflicting.is_empty() {
        l.say.warning_once(format!(
            "{}: the runs journals hold conflicting records (different answers or cores) for {} pair(s); \
             the first record of each counts (were two runs of this campaign writing at once?)",
            crate::campaign::ledger::records::RUNS,
            conflicting.len()
        ));
    }
    out
}

/// Attach the certifications of the `sat` votes on the pair's core (the
/// newest record of each checker; `checks`: the core's records, in journal
/// order), mark a `sat` that is no vote
/// ([`Certification::voids_sat`]: its model rejected, or not certified
/// under a current preset) as a dispute, and say whether a refutation is
/// certified (under a current preset it always is: only certified `sat`
/// votes count, [`CheckRecord::counted`]).
fn certify(v: &mut PairVerdict, checks: &[&CheckRecord], policy: Policy) {
    let mut latest: BTreeMap<&str, &CheckRecord> = BTreeMap::new();
    for k in checks
        .iter()
        .copied()
        .filter(|k| v.checkers.contains_key(&k.checker))
    {
        latest.insert(k.checker.as_str(), k);
    }
    for (name, k) in latest {
        if k.answer != CheckAnswer::Sat {
            continue;
        }
        let cert = k.certification.clone().unwrap_or_else(|| {
            Certification::uncertified(
                Unproven::Unrecorded,
                "no model asked (a record of an earlier version)",
            )
        });
        // A `sat` that is no vote (its model rejected, or, under a current
        // preset, not certified) leaves the core in question.
        v.disputed |= matches!(cert, Certification::ModelRejected { .. }) || cert.voids_sat(policy);
        v.details.certifications.insert(name.to_string(), cert);
    }
    if v.pair.verdict == Verdict::Refuted {
        let counted = v
            .details
            .certifications
            .iter()
            .filter(|(k, _)| v.checkers.get(*k) == Some(&CheckAnswer::Sat))
            .map(|(_, c)| Some(c.clone()))
            .collect::<Vec<_>>();
        v.details.refutation = Some(Refutation::of(counted.iter()));
    }
}

/// Attach the minimality outcomes (validated pairs whose core was tested)
/// and the best-known references of `minimality.jsonl` / `best-known.jsonl`.
fn attach_beyond(c: &Campaign, pairs: &mut [PairVerdict]) -> Result<()> {
    use crate::campaign::verdict::minimality::{
        BestKnown, MinimalityRecord, Reference, BEST_KNOWN, MINIMALITY,
    };
    let tested: Vec<MinimalityRecord> = c.read_journal(MINIMALITY)?;
    let mut outcome = HashMap::default();
    for r in &tested {
        outcome.insert(
            (
                r.solver.as_str(),
                r.benchmark.as_str(),
                r.core_hash.as_str(),
            ),
            &r.minimality,
        );
    }
    let refs: Vec<BestKnown> = c.read_journal(BEST_KNOWN)?;
    let best: HashMap<&str, &BestKnown> = refs.iter().map(|b| (b.benchmark.as_str(), b)).collect();
    for p in pairs.iter_mut() {
        let validated = p.pair.verdict == Verdict::Validated;
        if let (true, Some(h)) = (validated, p.core_hash.as_deref()) {
            let key = (p.pair.solver.as_ref(), p.pair.benchmark.as_ref(), h);
            if let Some(m) = outcome.get(&key) {
                p.details.minimality = Some((*m).clone());
            }
        }
        if let Some(b) = best.get(p.pair.benchmark.as_ref()) {
            p.details.best_known = Some(Reference {
                size: b.size(),
                reduction: p.pair.assertions.saturating_sub(b.size()),
                origin: b.origin_text(&c.dir),
                gap: p
                    .pair
                    .core_size
                    .filter(|_| validated)
                    .map(|k| k.saturating_sub(b.size())),
            });
        }
    }
    Ok(())
}

/// What the verdicts of a campaign share instead of each holding a copy:
/// the policy's name and the names in cores (a million cores repeat a few
/// thousand names).
pub struct Shared {
    policy: std::sync::Arc<str>,
    names: HashSet<Name>,
}

impl Shared {
    /// For verdicts under `policy` (its name as written).
    pub fn new(policy: Policy) -> Shared {
        Shared {
            policy: policy.to_string().into(),
            names: HashSet::default(),
        }
    }

    fn name(&mut self, name: String) -> Name {
        match self.names.get(name.as_str()) {
            Some(same) => same.clone(),
            None => {
                let new = Name::from(name);
                self.names.insert(new.clone());
                new
            }
        }
    }
}

/// One pair's verdict (the solver's name, the benchmark's id and logic,
/// the policy's name and the core's names are shared: `shared`): the
/// solver, the checkers that may judge it (and the division's validators),
/// and the core's hash with every checker's answer on it.
pub fn pair_verdict(
    c: &Campaign,
    r: RunRecord,
    e: &Bench,
    (s, solver): (&SolverUnderTest, &Name),
    (checkers, validators): (
        &[SolverDef],
        Option<&crate::campaign::setup::validators::Validators>,
    ),
    (hash, all_answers): (
        Option<std::sync::Arc<str>>,
        Option<&BTreeMap<String, CheckAnswer>>,
    ),
    shared: &mut Shared,
) -> PairVerdict {
    let policy = c.config.check.policy;
    let independent = c.config.check.independent;
    let selected =
        crate::campaign::setup::selection::select(checkers, &e.logic, s, independent, validators);
    let mut mine = BTreeMap::new();
    if let Some(a) = all_answers {
        for k in &selected {
            if let Some(x) = a.get(&k.name) {
                mine.insert(k.name.clone(), *x);
            }
        }
    }
    let mut pending = false;
    let verdict = match verdict_without_check(&r, e) {
        Some(v) => v,
        None => {
            let view: HashMap<&str, CheckAnswer> =
                mine.iter().map(|(k, v)| (k.as_str(), *v)).collect();
            let (_, decision) =
                crate::campaign::setup::selection::decision(policy, &view, &selected, s);
            pending = decision.is_none() || hash.is_none();
            decision.unwrap_or(Decision::NotValidated).into()
        }
    };
    let sat = mine.values().filter(|a| **a == CheckAnswer::Sat).count();
    let unsat = mine.values().filter(|a| **a == CheckAnswer::Unsat).count();
    let confirmed_by_own_team = selected
        .iter()
        .any(|k| s.same_team(k) && mine.get(&k.name) == Some(&CheckAnswer::Unsat));
    let (status, contradiction) = (r.status(), Contradiction::from_flags(&r.flags));
    PairVerdict {
        pair: PairRecord {
            solver: solver.clone(),
            benchmark: e.id.clone(),
            division: e.logic.clone(),
            assertions: e.assertions,
            core_size: r.core.as_ref().map(|c| c.len() as u64),
            verdict,
            status,
            cpu: r.cpu,
            wall: r.wall,
            memory: r.max_rss,
            checks: tally_of(&mine, &selected, s),
            // A new boxed slice of shared names: reusing the record's buffer
            // would keep alive pages of the threads that parsed the journal
            // (200 MB at a million pairs).
            core: r
                .core
                .map(|c| c.into_iter().map(|n| shared.name(n)).collect()),
            // An imported run (BenchExec): the result file and line.
            origin: r.origin.map(Into::into),
            contradiction,
            expected: None,
        },
        checkers: mine.into(),
        disputed: sat > 0 && unsat > 0,
        confirmed_by_own_team,
        pending,
        flags: r.flags,
        core_hash: hash,
        policy: std::sync::Arc::clone(&shared.policy),
        details: Default::default(),
    }
}

/// The 1-based original positions of `core` (names `PN` of a scrambled,
/// named benchmark, see [`PairVerdict::original_core`]); `None` when the
/// benchmark is not scrambled, its map is unreadable (a warning, once), or
/// a name is not one coreval gave. `maps` caches the maps by benchmark.
fn original_core(
    c: &Campaign,
    e: &Bench,
    core: Option<&[Name]>,
    maps: &mut HashMap<String, Option<DescrambleMap>>,
    say: crate::message::Say,
) -> Option<Vec<usize>> {
    let (core, rel) = (core?, e.descramble.as_deref()?);
    let map = maps.entry(e.id.to_string()).or_insert_with(|| {
        let path = crate::store::safepath::safe_join(&c.named_dir(), rel).ok()?;
        DescrambleMap::load(&path)
            .map_err(|err| say.warning(format!("{err:#}: cores of {} shown as printed", e.id)))
            .ok()
    });
    let map = map.as_ref()?;
    let by_prefix: Option<Vec<usize>> = core
        .iter()
        .map(|name| {
            let n: usize = name.strip_prefix(&e.prefix)?.parse().ok()?;
            n.checked_sub(1)
        })
        .collect();
    // Names of the author's own, renamed by the scrambler: looked up in
    // the file the solver read.
    let positions = match by_prefix {
        Some(p) => p,
        None => {
            let path = crate::store::safepath::safe_join(&c.named_dir(), &e.output).ok()?;
            let file = crate::store::regular::open(&path).ok()?;
            let names: Vec<String> = core.iter().map(|n| n.to_string()).collect();
            crate::scramble::map::core_positions(file, &names).ok()?
        }
    };
    positions
        .into_iter()
        .map(|scrambled| map.original_position(scrambled).map(|p| p + 1))
        .collect()
}
