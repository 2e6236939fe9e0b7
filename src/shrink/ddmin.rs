//! coreval's own assertion-level pass: delta debugging (Zeller's ddmin)
//! over a benchmark's top-level `assert`s, every other command
//! (declarations, definitions, options, `check-sat`) kept as it is, each
//! candidate judged by [`super::judge`]. Cheap, since a candidate is a
//! subset of whole assertions; ddSMT then works inside the terms.

use crate::smtlib::scanner::Command;
use std::collections::HashMap;

/// A benchmark as commands, with its `assert`s picked out.
pub struct Script {
    commands: Vec<Command>,
    /// Indices (into `commands`) of the top-level asserts.
    pub asserts: Vec<usize>,
}

impl Script {
    pub fn parse(src: &[u8]) -> Result<Script, String> {
        let commands = crate::smtlib::scanner::commands(src).map_err(|e| e.to_string())?;
        let asserts = commands
            .iter()
            .enumerate()
            .filter(|(_, c)| crate::smtlib::lexer::command_head(&c.text) == Some(b"assert"))
            .map(|(i, _)| i)
            .collect();
        Ok(Script { commands, asserts })
    }

    /// The script with only the asserts numbered `keep` (indices into
    /// [`Script::asserts`]), one command a line.
    pub fn with(&self, keep: &[usize]) -> Vec<u8> {
        let kept: std::collections::HashSet<usize> =
            keep.iter().map(|&i| self.asserts[i]).collect();
        let mut out = Vec::new();
        for (i, c) in self.commands.iter().enumerate() {
            if self.asserts.contains(&i) && !kept.contains(&i) {
                continue;
            }
            out.extend_from_slice(&c.text);
            out.push(b'\n');
        }
        out
    }
}

/// The smallest subset of `0..n` ddmin finds for which `test` holds (it
/// holds for the whole set); `test` returning `None` stops the search (time
/// or interruption) with the best subset so far.
pub fn ddmin(n: usize, test: &mut dyn FnMut(&[usize]) -> Option<bool>) -> Vec<usize> {
    let mut memo: HashMap<Vec<usize>, bool> = HashMap::new();
    let mut ask = |set: &[usize]| -> Option<bool> {
        if let Some(&v) = memo.get(set) {
            return Some(v);
        }
        let v = test(set)?;
        memo.insert(set.to_vec(), v);
        Some(v)
    };
    let mut cur: Vec<usize> = (0..n).collect();
    let mut parts = 2;
    'outer: while cur.len() >= 2 {
        let chunks = split(&cur, parts);
        for c in &chunks {
            match ask(c) {
                None => break 'outer,
                Some(true) => {
                    cur = c.clone();
                    parts = 2;
                    continue 'outer;
                }
                Some(false) => {}
            }
        }
        if chunks.len() > 2 {
            for (i, _) in chunks.iter().enumerate() {
                let rest: Vec<usize> = chunks
                    .iter()
                    .enumerate()
                    .filter(|(j, _)| *j != i)
                    .flat_map(|(_, c)| c.iter().copied())
                    .collect();
                match ask(&rest) {
                    None => break 'outer,
                    Some(true) => {
                        cur = rest;
                        parts = (parts - 1).max(2);
                        continue 'outer;
                    }
                    Some(false) => {}
                }
            }
        }
        if parts >= cur.len() {
            break;
        }
        parts = (parts * 2).min(cur.len());
    }
    cur
}

/// `set` cut into `parts` consecutive chunks of (nearly) equal size.
fn split(set: &[usize], parts: usize) -> Vec<Vec<usize>> {
    let parts = parts.min(set.len()).max(1);
    let mut out = Vec::with_capacity(parts);
    let mut start = 0;
    for i in 0..parts {
        let end = start + (set.len() - start) / (parts - i);
        out.push(set[start..end].to_vec());
        start = end;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ddmin_finds_the_needed_pair_and_stops_when_told() {
        let mut calls = 0;
        let got = ddmin(40, &mut |s| {
            calls += 1;
            Some(s.contains(&7) && s.contains(&31))
        });
        assert_eq!(got, [7, 31]);
        assert!(calls < 120, "{calls}");
        let mut left = 3;
        let got = ddmin(40, &mut |s| {
            left -= 1;
            (left > 0).then_some(s.contains(&7))
        });
        assert!(got.contains(&7) && got.len() < 40);
    }

    #[test]
    fn a_script_keeps_its_declarations() {
        let s = Script::parse(
            b"(set-logic QF_UF)(declare-const p Bool)(assert p)(assert (not p))(check-sat)",
        )
        .unwrap();
        assert_eq!(s.asserts.len(), 2);
        assert_eq!(
            String::from_utf8(s.with(&[1])).unwrap(),
            "(set-logic QF_UF)\n(declare-const p Bool)\n(assert (not p))\n(check-sat)\n"
        );
    }
}
