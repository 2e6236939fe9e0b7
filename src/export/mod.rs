//! coreval's results handed back to the competition's own tools: the
//! `smtcomp` tool's results and benchmark list (`smtcomp_json.rs`,
//! `coreval score --smtcomp-json DIR`) and one BenchExec result file per
//! solver for BenchExec's `table-generator` (`benchexec_xml.rs`,
//! `--benchexec-xml DIR`). Both write the scored pairs ([`PairRecord`],
//! what a campaign's score stage and every importer produce) as each pair
//! counted under the rules edition ([`Outcome`]), so that the tool that
//! reads them scores what coreval scored.

pub mod benchexec_xml;
pub mod smtcomp_json;

use crate::campaign::ledger::facts::Facts;
use crate::campaign::verdict::pair::{PairRecord, RunStatus, Verdict};
use crate::score::pair::verdict_worth;
use crate::score::rules::Rules;

/// What is exported: the scored pairs and what they were scored under.
pub struct Scored<'a> {
    /// The pairs, in the order of the data (a campaign's judged pairs, an
    /// archive's rows).
    pub pairs: &'a [&'a PairRecord],
    /// The rules edition they were scored under.
    pub rules: &'a Rules,
    /// Whether checked cores were judged again (`--rejudge`).
    pub rejudge: bool,
    /// A benchmark's declared status (`sat` or `unsat`) by its id, where
    /// known (a campaign's named index, an archive's own column).
    pub status: &'a dyn Fn(&PairRecord) -> Option<String>,
    /// A campaign's facts (limits, each solver's command and version).
    pub facts: Option<&'a Facts>,
    /// What the results are of: the campaign folder's name, or `imported`.
    pub name: &'a str,
}

impl Scored<'_> {
    /// The verdict pair `rec` was scored by.
    pub fn verdict(&self, rec: &PairRecord) -> Verdict {
        crate::score::scored_verdict(rec, self.rules, self.rejudge)
    }

    /// How pair `rec` counted.
    pub fn outcome(&self, rec: &PairRecord) -> Outcome {
        outcome(rec, &self.verdict(rec), self.rules)
    }

    /// The edition's year (`smtcomp-2024` → `2024`): the exported files'
    /// names carry it.
    pub fn year(&self) -> &'static str {
        let name = self.rules.edition.name();
        name.rsplit('-').next().unwrap_or(name)
    }
}

/// How one pair counted under an edition, in the terms both tools share.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// A validated core that scores its reduction A − |core|.
    Solved,
    /// An error other than a `sat`: a refuted core, and where the edition
    /// counts them as errors an ill-formed or missing core or
    /// contradictory output.
    Wrong,
    /// A `sat` on a benchmark known to be unsat: an error.
    WrongSat,
    /// No answer that counts, killed at the time limit.
    Timeout,
    /// No answer that counts, out of memory.
    Memout,
    /// Neither points nor an error: `unknown`, a crash, a core no checker
    /// decided or not yet checked, a `sat` with no evidence against it, an
    /// answer the edition does not count (ill-formed or missing core,
    /// contradictory output, a status mismatch under `no-score`).
    Nothing,
}

/// How pair `rec`, scored by `verdict`, counted under `rules`: an error
/// when [`verdict_worth`] says so, solved when a validated core is worth
/// what a plain validated core of its size is (no contradiction or status
/// mismatch took it away), else by how the run ended.
pub fn outcome(rec: &PairRecord, verdict: &Verdict, rules: &Rules) -> Outcome {
    let (e, n) = verdict_worth(rec, verdict, rules);
    if e > 0 {
        return match verdict {
            Verdict::SatAnswer | Verdict::SatUnconfirmed => Outcome::WrongSat,
            _ => Outcome::Wrong,
        };
    }
    if *verdict == Verdict::Validated {
        let plain = PairRecord {
            assertions: rec.assertions,
            core_size: rec.core_size,
            verdict: Verdict::Validated,
            ..PairRecord::default()
        };
        if verdict_worth(&plain, verdict, rules) == (0, n) {
            return Outcome::Solved;
        }
    }
    match rec.status {
        RunStatus::Timeout => Outcome::Timeout,
        RunStatus::Memout => Outcome::Memout,
        RunStatus::Complete => Outcome::Nothing,
    }
}

/// A benchmark id (`LOGIC/FAMILY…/NAME`, its path below the benchmark
/// root) split as the `smtcomp` tool names a benchmark: the family is the
/// folders below the first folder named like the logic (`division`), or
/// every folder when none is (folders above the logic folder are dropped,
/// as the scores' families do: [`crate::score::division::family_of`]).
pub fn split_id(id: &str, division: &str) -> (Vec<String>, String) {
    let mut parts: Vec<&str> = id.split('/').filter(|p| !p.is_empty()).collect();
    let name = parts.pop().unwrap_or_default().to_string();
    let below = match parts.iter().position(|p| *p == division) {
        Some(i) => &parts[i + 1..],
        None => &parts[..],
    };
    (below.iter().map(|s| s.to_string()).collect(), name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::score::rules::Edition;

    #[test]
    fn ids_split_below_the_logic_folder() {
        let v = |f: &[&str]| f.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            split_id("QF_LIA/a/b/c.smt2", "QF_LIA"),
            (v(&["a", "b"]), "c.smt2".into())
        );
        assert_eq!(
            split_id("Space/QF_LIA/a/c.smt2", "QF_LIA"),
            (v(&["a"]), "c.smt2".into())
        );
        assert_eq!(
            split_id("a/b/c.smt2", "QF_UF"),
            (v(&["a", "b"]), "c.smt2".into())
        );
        assert_eq!(split_id("c.smt2", "QF_UF"), (v(&[]), "c.smt2".into()));
    }

    #[test]
    fn every_verdict_counts_as_the_edition_scores_it() {
        let rec = |verdict: Verdict, status: RunStatus| PairRecord {
            assertions: 10,
            core_size: Some(4),
            verdict,
            status,
            ..PairRecord::default()
        };
        let r2024 = Edition::Smtcomp2024.rules();
        let r2016 = Edition::Smtcomp2016.rules();
        let ill = Verdict::IllFormed {
            reason: crate::answer::IllFormed::ALL[0],
        };
        let of = |v: Verdict, s: RunStatus, r: &Rules| outcome(&rec(v.clone(), s), &v, r);
        use Outcome::{Nothing, Solved, Wrong, WrongSat};
        use RunStatus::Complete;
        assert_eq!(of(Verdict::Validated, Complete, &r2024), Solved);
        assert_eq!(of(Verdict::Refuted, Complete, &r2024), Wrong);
        assert_eq!(of(Verdict::SatAnswer, Complete, &r2024), WrongSat);
        assert_eq!(of(Verdict::SatUnconfirmed, Complete, &r2024), Nothing);
        assert_eq!(of(Verdict::NotValidated, Complete, &r2024), Nothing);
        let timeout = of(Verdict::NoAnswer, RunStatus::Timeout, &r2024);
        assert_eq!(timeout, Outcome::Timeout);
        let memout = of(Verdict::NoAnswer, RunStatus::Memout, &r2024);
        assert_eq!(memout, Outcome::Memout);
        assert_eq!(of(ill.clone(), Complete, &r2024), Nothing);
        assert_eq!(of(ill, Complete, &r2016), Wrong);
        assert_eq!(of(Verdict::UnsatNoCore, Complete, &r2016), Wrong);
        assert_eq!(of(Verdict::UnsatNoCore, Complete, &r2024), Nothing);
        let mut twice = rec(Verdict::Validated, Complete);
        twice.contradiction =
            Some(crate::campaign::verdict::pair::Contradiction::FailedAfterAnswer);
        assert_eq!(outcome(&twice, &Verdict::Validated, &r2024), Nothing);
    }
}
