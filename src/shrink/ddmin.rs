//! coreval's own assertion-level pass: delta debugging (Zeller's ddmin)
//! over a benchmark's top-level `assert`s, each candidate judged by
//! [`super::oracle`]. Cheap, since a candidate is a subset of whole
//! assertions; ddSMT then works inside the terms.
//!
//! A candidate keeps every command that declares nothing (options,
//! `set-logic`, `check-sat`), and of the declarations and definitions
//! (`declare-fun`, `define-fun`, `define-fun-rec`, `define-funs-rec`,
//! `declare-sort`, `define-sort`, `declare-datatype(s)`) exactly those the
//! kept assertions need, transitively (a definition's own body and sorts
//! count): valid by construction, and no larger than it must be.

use crate::smtlib::scanner::Command;
use std::collections::{HashMap, HashSet};

/// A benchmark as commands, with its `assert`s picked out.
pub struct Script {
    commands: Vec<Command>,
    /// Indices (into `commands`) of the top-level asserts.
    pub asserts: Vec<usize>,
    /// Whether each command declares something ([`crate::scope::defines`]).
    declares: Vec<bool>,
    /// The symbols each command names ([`crate::scope::mentions`]).
    mentions: Vec<HashSet<String>>,
    /// Symbol → the commands other than asserts that declare it.
    declared_by: HashMap<String, Vec<usize>>,
}

impl Script {
    pub fn parse(src: &[u8]) -> Result<Script, String> {
        let commands = crate::smtlib::scanner::commands(src).map_err(|e| e.to_string())?;
        let asserts: Vec<usize> = commands
            .iter()
            .enumerate()
            .filter(|(_, c)| crate::smtlib::lexer::command_head(&c.text) == Some(b"assert"))
            .map(|(i, _)| i)
            .collect();
        let is_assert: HashSet<usize> = asserts.iter().copied().collect();
        let mut declared_by: HashMap<String, Vec<usize>> = HashMap::new();
        let mut declares = Vec::with_capacity(commands.len());
        for (i, c) in commands.iter().enumerate() {
            let names = crate::scope::defines(c);
            declares.push(!names.is_empty());
            if !is_assert.contains(&i) {
                for n in names {
                    declared_by.entry(n).or_default().push(i);
                }
            }
        }
        let mentions = commands
            .iter()
            .map(|c| crate::scope::mentions(&c.text))
            .collect();
        Ok(Script {
            commands,
            asserts,
            declares,
            mentions,
            declared_by,
        })
    }

    /// The script with only the asserts numbered `keep` (indices into
    /// [`Script::asserts`]) and the declarations they need, one command a
    /// line.
    pub fn with(&self, keep: &[usize]) -> Vec<u8> {
        let asserts: HashSet<usize> = self.asserts.iter().copied().collect();
        let mut kept: Vec<bool> = (0..self.commands.len())
            .map(|i| !asserts.contains(&i) && !self.declares[i])
            .collect();
        for &i in keep {
            kept[self.asserts[i]] = true;
        }
        // The closure over the declarations that kept commands name.
        let mut todo: Vec<usize> = (0..kept.len()).filter(|&i| kept[i]).collect();
        while let Some(i) = todo.pop() {
            for name in &self.mentions[i] {
                for &j in self.declared_by.get(name).map_or(&[][..], Vec::as_slice) {
                    if !kept[j] {
                        kept[j] = true;
                        todo.push(j);
                    }
                }
            }
        }
        let mut out = Vec::new();
        for (c, _) in self.commands.iter().zip(&kept).filter(|(_, k)| **k) {
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

    /// Issue 47, item 8: the definitions an assertion uses stay, through
    /// other definitions, sorts and datatypes; the others go.
    #[test]
    fn a_candidate_keeps_exactly_the_definitions_its_assertions_need() {
        let src = "(set-logic ALL)\n(define-sort Word () (_ BitVec 8))\n\
                   (declare-datatypes ((Box 0)) (((box (unbox Int)))))\n\
                   (declare-fun w () Word)\n(declare-fun b () Box)\n(declare-fun unused () Int)\n\
                   (define-fun inc ((x Int)) Int (+ x 1))\n\
                   (define-fun twice ((x Int)) Int (inc (inc x)))\n\
                   (define-fun-rec down ((x Int)) Int (ite (<= x 0) 0 (down (- x 1))))\n\
                   (assert (> (twice (unbox b)) 3))\n(assert (= w #x00))\n\
                   (assert (= (down 3) unused))\n(check-sat)\n";
        let s = Script::parse(src.as_bytes()).unwrap();
        let first = String::from_utf8(s.with(&[0])).unwrap();
        assert_eq!(
            first,
            "(set-logic ALL)\n(declare-datatypes ((Box 0)) (((box (unbox Int)))))\n\
             (declare-fun b () Box)\n(define-fun inc ((x Int)) Int (+ x 1))\n\
             (define-fun twice ((x Int)) Int (inc (inc x)))\n\
             (assert (> (twice (unbox b)) 3))\n(check-sat)\n"
        );
        let second = String::from_utf8(s.with(&[1, 2])).unwrap();
        assert_eq!(
            second,
            "(set-logic ALL)\n(define-sort Word () (_ BitVec 8))\n(declare-fun w () Word)\n\
             (declare-fun unused () Int)\n\
             (define-fun-rec down ((x Int)) Int (ite (<= x 0) 0 (down (- x 1))))\n\
             (assert (= w #x00))\n(assert (= (down 3) unused))\n(check-sat)\n"
        );
        for kept in [first, second] {
            assert_eq!(
                crate::scope::strict_script(kept.as_bytes(), 5),
                vec![],
                "{kept}"
            );
        }
    }
}
