//! `reports/pairs.jsonl`: every judged pair with the evidence behind its
//! verdict, one JSON object a line, with `division` as in `pairs.csv` (the
//! division map's) and `logic` beside it; then the incremental pairs
//! (`"incremental": true`). Streamed to the file, a line at a time: at a
//! million pairs it is half a gigabyte.

use crate::campaign::verdict::division_map::DivisionMap;
use crate::campaign::verdict::pair::PairVerdict;
use crate::incremental::verdict::IncrementalPair;
use anyhow::Result;
use std::path::Path;

/// Write `path` atomically from the judged pairs; `divisions` maps a logic
/// to its division (none: each logic is a division, as in the scores).
pub fn write(
    path: &Path,
    pairs: &[PairVerdict],
    incremental: &[IncrementalPair],
    divisions: Option<&DivisionMap>,
) -> Result<()> {
    crate::store::journal::write_atomic_with(path, |w| {
        let mut buf = Vec::with_capacity(1024);
        for p in pairs {
            let logic = p.pair.division.as_ref();
            let division = divisions
                .and_then(|m| m.division_of(logic))
                .unwrap_or(logic);
            line(p, division, &mut buf)?;
            w.write_all(&buf)?;
        }
        for p in incremental {
            serde_json::to_writer(&mut *w, p)?;
            w.write_all(b"\n")?;
        }
        Ok(())
    })
}

/// One pair's line into `buf` (cleared first): the verdict as serialized,
/// its `division` value (the pair's logic) replaced by `division`, and
/// `"logic"` added last. Built on the bytes rather than through a
/// `serde_json::Value` tree (a third of the cost of `score` at a million
/// pairs). The key is found safely: inside a JSON string every `"` is
/// escaped, so the bytes `"division":` occur only as a key — and the
/// record's own fields come before the verdict's, so the first is the
/// record's.
fn line(p: &PairVerdict, division: &str, buf: &mut Vec<u8>) -> serde_json::Result<()> {
    const KEY: &[u8] = b"\"division\":";
    buf.clear();
    serde_json::to_writer(&mut *buf, p)?;
    let at =
        memchr::memmem::find(buf, KEY).expect("a pair record always has its division") + KEY.len();
    let end = at + string_len(&buf[at..]);
    let value = serde_json::to_vec(division)?;
    buf.splice(at..end, value);
    let close = buf.pop();
    debug_assert_eq!(close, Some(b'}'));
    buf.extend_from_slice(b",\"logic\":");
    serde_json::to_writer(&mut *buf, &p.pair.division)?;
    buf.extend_from_slice(b"}\n");
    Ok(())
}

/// The length of the JSON string at the start of `bytes`, quotes included.
fn string_len(bytes: &[u8]) -> usize {
    debug_assert_eq!(bytes.first(), Some(&b'"'));
    let mut i = 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => return i + 1,
            _ => i += 1,
        }
    }
    bytes.len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::campaign::verdict::pair::PairRecord;

    /// What the line was before it was built on the bytes: the verdict as
    /// a `Value`, `division` replaced and `logic` added.
    fn through_value(p: &PairVerdict, division: &str) -> serde_json::Value {
        let mut v = serde_json::to_value(p).unwrap();
        v["division"] = division.into();
        v["logic"] = p.pair.division.to_string().into();
        v
    }

    #[test]
    fn lines_say_what_the_value_tree_said_for_any_names() {
        let awkward = [
            "plain",
            "with \"division\": inside",
            "back\\slash\\",
            "\\\"division\\\":",
            "tab\tand \u{e9}\u{1F600}",
        ];
        let template: PairVerdict = serde_json::from_str(
            r#"{"assertions": 3, "benchmark": "b", "checkers": {"check0": "unsat", "check1": "other"},
            "checks": {"producer_sat": false, "sat": 0, "unknown": 0, "unsat": 1},
            "confirmed_by_own_team": false, "core": ["cv1", "a \"division\": b"], "core_size": 2,
            "cpu": 0.001, "disputed": false, "division": "QF_UF", "flags": [], "pending": false,
            "policy": "smtcomp-2025", "solver": "s", "status": "complete",
            "verdict": {"kind": "validated"}, "wall": 0.001, "original_core": [1, 3],
            "not_counted": {"check1": "printed \"division\": x"}, "raw_answers": {"check1": "error"}}"#,
        )
        .unwrap();
        for solver in awkward {
            for logic in awkward {
                let mut p = template.clone();
                p.pair = PairRecord {
                    solver: solver.into(),
                    benchmark: format!("{logic}/b.smt2").into(),
                    division: logic.to_string().into(),
                    ..p.pair
                };
                p.flags = vec![format!("\"division\":{solver}")];
                let mut buf = Vec::new();
                line(&p, "Equality \"mapped\"", &mut buf).unwrap();
                assert_eq!(buf.last(), Some(&b'\n'));
                assert_eq!(buf.iter().filter(|b| **b == b'\n').count(), 1);
                let got: serde_json::Value = serde_json::from_slice(&buf).unwrap();
                assert_eq!(
                    got,
                    through_value(&p, "Equality \"mapped\""),
                    "{solver} {logic}"
                );
            }
        }
    }
}
