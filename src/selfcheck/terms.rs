//! The author's terms for what a solver read. On a scrambled variant
//! (`--scrambles K`) the solver saw shuffled assertions named `cvN` and
//! renamed symbols (`x_1`, `x_2`); a FAIL is told in the author's file
//! instead: each assertion by its own `:named` name (else `assertion N`)
//! and its line, each symbol of a model by the name the author declared,
//! through the descrambling map ([`crate::scramble::map`]). The kept files
//! stay in scrambled form, so that the printed commands repeat the run.
//! On a file read as written, names and symbols are the solver's own.

use super::inputs::Input;
use crate::explain::Author;
use crate::scramble::map::DescrambleMap;
use crate::smtlib::scanner::Scanner;
use crate::smtlib::symbol::quote;
use std::collections::HashMap;

/// How to say, in the author's file, where an assertion of the file the
/// solver read is, what it is called there, and what a symbol is.
pub struct Terms {
    /// The author's file as shown.
    shown: String,
    /// Line and own name of each of the author's assertions, in order.
    assertions: Vec<(u64, Option<String>)>,
    /// The descrambling map of a scrambled variant.
    map: Option<DescrambleMap>,
    /// Fresh symbol → the author's (normal form).
    symbols: HashMap<String, String>,
}

impl Terms {
    /// The terms of `input`, read as written (`map` is `None`) or through
    /// the descrambling map of its scrambled variant.
    pub fn new(input: &Input, map: Option<DescrambleMap>) -> Terms {
        let symbols = map
            .as_ref()
            .map(|m| m.symbols.0.iter().cloned().collect())
            .unwrap_or_default();
        Terms {
            shown: input.shown.clone(),
            assertions: own_assertions(input),
            map,
            symbols,
        }
    }

    /// Whether the solver read a scrambled variant.
    pub fn scrambled(&self) -> bool {
        self.map.is_some()
    }

    /// The 0-based position in the author's file of assertion `i` of the
    /// file the solver read.
    pub fn original(&self, i: usize) -> Option<usize> {
        match &self.map {
            Some(m) => m.original_position(i),
            None => Some(i),
        }
    }

    /// What the author calls assertion `i` of the file the solver read
    /// (on a scrambled variant; `None` as written: its printed name is).
    pub fn own_name(&self, i: usize) -> Option<String> {
        self.map.as_ref()?;
        let o = self.original(i)?;
        Some(
            match self.assertions.get(o).and_then(|(_, n)| n.as_deref()) {
                Some(n) => quote(n).into_owned(),
                None => format!("assertion {}", o + 1),
            },
        )
    }

    /// `text` with every fresh symbol of a scrambled variant replaced by
    /// the author's (quoted where SMT-LIB needs bars).
    pub fn symbols_in(&self, text: &str) -> String {
        if self.symbols.is_empty() {
            return text.to_string();
        }
        let simple = |c: char| c.is_ascii_alphanumeric() || "~!@$%^&*_-+=<>.?/".contains(c);
        let mut out = String::with_capacity(text.len());
        let mut word = String::new();
        let flush = |word: &mut String, out: &mut String| {
            match self.symbols.get(word.as_str()) {
                Some(original) => out.push_str(&quote(original)),
                None => out.push_str(word),
            }
            word.clear();
        };
        for c in text.chars() {
            if simple(c) {
                word.push(c);
            } else {
                flush(&mut word, &mut out);
                out.push(c);
            }
        }
        flush(&mut word, &mut out);
        out
    }
}

impl Author for Terms {
    fn place(&self, i: usize) -> String {
        match self.original(i).and_then(|o| self.assertions.get(o)) {
            Some((l, _)) => format!("{}:{l}", self.shown),
            None => format!("assertion {}", i + 1),
        }
    }

    fn name(&self, i: usize, printed: &str) -> String {
        self.own_name(i)
            .unwrap_or_else(|| quote(printed).into_owned())
    }

    fn term(&self, text: &str) -> String {
        self.symbols_in(text)
    }
}

/// The line and the own `:named` name of each top-level assertion of the
/// author's file (empty when it cannot be read; a scan error ends it).
fn own_assertions(input: &Input) -> Vec<(u64, Option<String>)> {
    let Ok(file) = crate::store::regular::open(&input.source) else {
        return Vec::new();
    };
    let mut scanner = Scanner::new(file);
    let mut out = Vec::new();
    while let Ok(Some(cmd)) = scanner.next_command() {
        if cmd.head() == "assert" {
            out.push((cmd.line, crate::scramble::map::top_level_name(&cmd.text)));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scramble::map::SymbolMap;

    #[test]
    fn scrambled_names_and_symbols_become_the_authors() {
        let dir = tempfile::tempdir().unwrap();
        let source = dir.path().join("a.smt2");
        std::fs::write(
            &source,
            "(declare-const x Int)\n(declare-const |y z| Int)\n\
             (assert (! (> x 0) :named pos))\n(assert (< |y z| 0))\n",
        )
        .unwrap();
        let input = Input {
            shown: "a.smt2".into(),
            id: "a.smt2".into(),
            source,
        };
        let mut map: DescrambleMap = serde_json::from_str(
            r#"{"format": "coreval-descramble-1", "seed": 1, "shuffle": true,
                "rename": true, "commute": false, "window": 1, "prefix": "x_",
                "assertions": [1, 0], "symbols": {}, "status": null, "removed": []}"#,
        )
        .unwrap();
        map.symbols = SymbolMap(vec![
            ("x_1".into(), "y z".into()),
            ("x_2".into(), "x".into()),
        ]);
        let t = Terms::new(&input, Some(map));
        assert_eq!(t.name(0, "cv1"), "assertion 2");
        assert_eq!(t.name(1, "cv2"), "pos");
        assert_eq!(
            (t.place(0), t.place(1)),
            ("a.smt2:4".into(), "a.smt2:3".into())
        );
        assert_eq!(
            t.term("x_1 = (- 1), x_2 = 0, x_10"),
            "|y z| = (- 1), x = 0, x_10"
        );
        let plain = Terms::new(&input, None);
        assert_eq!(plain.name(0, "cv1"), "cv1");
        assert_eq!(plain.term("x_1 = 0"), "x_1 = 0");
        assert_eq!(plain.place(1), "a.smt2:4");
    }
}
