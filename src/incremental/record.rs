//! What a campaign keeps of an incremental run once its output is matched
//! to the script: one [`QueryRecord`] per run in `incremental.jsonl`,
//! appended whole, with every `unsat` answer's check (the hash of its
//! check script under `cores/`, or why it is ill-formed) and every query's
//! answer with the status the script declared before it. A record counts
//! only for the run it was built from ([`QueryRecord::source`]: the named
//! script's hash and the solver's output), so a re-run builds it anew and
//! an unchanged campaign redoes nothing.

use super::script::{self, Check, Cmd};
use super::sexp;
use serde::{Deserialize, Serialize};

/// File name of the journal.
pub const INCREMENTAL: &str = "incremental.jsonl";

/// The check of one `unsat` answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum QueryCheck {
    /// The check script `cores/<hash>.smt2`: the answer holds when the
    /// checkers find it unsat.
    Script { hash: String },
    /// Ill-formed at once: `popped-scope`, `unknown-name`, `duplicate`,
    /// `not-a-name`, `not-an-assumption`.
    IllFormed { label: String, why: String },
    /// `unsat`, then an `(error …)` or no list where the core should be.
    NoCore { why: String },
}

/// One `unsat` answer followed by a core or an unsat-assumption set.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct QueryEntry {
    /// Line of the `check-sat` / `check-sat-assuming` in the named script.
    pub line: u64,
    /// `get-unsat-core` or `get-unsat-assumptions`.
    pub asked: String,
    /// What the solver answered to it.
    pub answer: String,
    pub check: QueryCheck,
    /// Accepted z3 conventions, said (docs/authors.md, "Incremental and
    /// assumption cores").
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// One query's answer and the status declared before it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct QueryAnswer {
    pub line: u64,
    pub answer: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
}

/// `incremental.jsonl`: an incremental run matched to its script.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct QueryRecord {
    pub solver: String,
    pub benchmark: String,
    /// [`source`] of the run it was built from.
    pub source: String,
    pub queries: Vec<QueryEntry>,
    pub answers: Vec<QueryAnswer>,
    /// Output that contradicts the script (a non-answer to a query,
    /// output left over).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub faults: Vec<String>,
    /// The output ended before this line's command.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cut_at: Option<u64>,
    /// The output is not S-expressions: why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ill_formed_output: Option<String>,
}

/// The version of the matching and of the check scripts it writes: a
/// record of another version is built anew.
const FORMAT: u32 = 1;

/// What a record is built from: the named script's hash and the output
/// (and the [`FORMAT`]).
pub fn source(bench_hash: Option<&str>, transcript: &str) -> String {
    let text = format!("{FORMAT}\n{}\n{transcript}", bench_hash.unwrap_or(""));
    blake3::hash(text.as_bytes()).to_hex().to_string()
}

/// Match `transcript` (the solver's stdout) to the commands of the named
/// script: the record (its identity left to the caller to fill) and the
/// check scripts to store, as (hash, text).
pub fn build(cmds: &[Cmd], transcript: &str) -> (QueryRecord, Vec<(String, String)>) {
    let mut rec = QueryRecord {
        solver: String::new(),
        benchmark: String::new(),
        source: String::new(),
        queries: Vec::new(),
        answers: Vec::new(),
        faults: Vec::new(),
        cut_at: None,
        ill_formed_output: None,
    };
    let output = match sexp::parse_all(transcript) {
        Ok(o) => o,
        Err(why) => {
            rec.ill_formed_output = Some(why.to_string());
            return (rec, Vec::new());
        }
    };
    let m = script::judge(cmds, &output);
    let mut scripts = Vec::new();
    for q in m.queries {
        let check = match q.check {
            Check::Script(text) => {
                let hash = blake3::hash(text.as_bytes()).to_hex().to_string();
                scripts.push((hash.clone(), text));
                QueryCheck::Script { hash }
            }
            Check::IllFormed(label, why) => QueryCheck::IllFormed {
                label: label.to_string(),
                why,
            },
            Check::Missing(why) => QueryCheck::NoCore { why },
        };
        rec.queries.push(QueryEntry {
            line: q.line,
            asked: q.asked,
            answer: q.answer,
            check,
            notes: q.notes,
        });
    }
    rec.answers = m
        .answers
        .into_iter()
        .map(|a| QueryAnswer {
            line: a.line,
            answer: a.answer,
            status: a.status,
        })
        .collect();
    rec.faults = m.faults;
    rec.cut_at = m.cut_at;
    (rec, scripts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn build_keeps_every_answer_and_stores_one_script_per_unsat() {
        let script = "(set-logic QF_LIA)\n(declare-const x Int)\n\
            (assert (! (> x 0) :named cv1))\n(push 1)\n(assert (! (< x 0) :named cv2))\n\
            (set-info :status unsat)\n(check-sat)\n(get-unsat-core)\n(pop 1)\n(check-sat)\n\
            (get-unsat-core)\n(push 1)\n(assert (! (< x 1) :named cv3))\n(check-sat)\n\
            (get-unsat-core)\n";
        let cmds: Vec<_> = crate::smtlib::scanner::commands(script.as_bytes())
            .unwrap()
            .iter()
            .map(|c| crate::incremental::parse_cmd(std::str::from_utf8(&c.text).unwrap(), c.line))
            .collect();
        let out = "unsat\n(cv1 cv2)\nsat\n(error \"no core\")\nunsat\n(cv3 cv2)\n";
        let (rec, scripts) = build(&cmds, out);
        assert_eq!(rec.answers.len(), 3);
        assert_eq!(rec.answers[0].status.as_deref(), Some("unsat"));
        assert_eq!(rec.answers[1].answer, "sat");
        assert_eq!(scripts.len(), 1);
        assert!(!scripts[0].1.contains(":status"), "{}", scripts[0].1);
        assert!(
            matches!(&rec.queries[0].check, QueryCheck::Script { hash } if *hash == scripts[0].0)
        );
        assert!(
            matches!(&rec.queries[1].check, QueryCheck::IllFormed { label, .. } if label == "popped-scope")
        );
        let (bad, none) = build(&cmds, "unsat\n(cv1");
        assert!(bad.ill_formed_output.is_some() && none.is_empty());
        assert_ne!(source(Some("a"), out), source(Some("b"), out));
    }
}
