//! The descrambling map written beside each scrambled benchmark, and the
//! mapping of a core found on the scrambled file back to the original.
//!
//! JSON, one object (`<name>.descramble.json` beside `<name>.smt2`):
//!
//! ```json
//! { "format": "coreval-descramble-1", "seed": 42,
//!   "shuffle": true, "rename": true, "commute": false, "window": 16777216,
//!   "prefix": "x_",
//!   "assertions": [2, 0, 1],
//!   "symbols": { "x_1": "y", "x_2": "f" },
//!   "status": "unsat",
//!   "removed": ["(set-info :source |…|)"] }
//! ```
//!
//! Assertion positions are 0-based indices among the file's `assert`
//! commands in order; `assertions[new] = original`. `symbols` maps each
//! fresh name to the original symbol's normal form (bars removed), in order
//! of first output. `status` is the removed `(set-info :status …)` value,
//! `removed` the text of every command the scrambler dropped.

use serde::de::{MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::collections::HashMap;
use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};

use crate::smtlib::lexer::{Lexer, TokenKind};
use crate::smtlib::scanner::Scanner;
use crate::smtlib::symbol::normalize;

/// Value of the `format` field.
pub const FORMAT: &str = "coreval-descramble-1";

/// Fresh name → original name, kept in order of first output.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SymbolMap(pub Vec<(String, String)>);

impl Serialize for SymbolMap {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}

impl<'de> Deserialize<'de> for SymbolMap {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = SymbolMap;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object from fresh names to original names")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<SymbolMap, A::Error> {
                let mut v = Vec::new();
                while let Some((k, val)) = a.next_entry::<String, String>()? {
                    v.push((k, val));
                }
                Ok(SymbolMap(v))
            }
        }
        d.deserialize_map(V)
    }
}

/// Everything needed to relate a scrambled benchmark to its original.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DescrambleMap {
    /// Always [`FORMAT`].
    pub format: String,
    /// The seed given to `srandom`.
    pub seed: u32,
    /// Whether runs of assertions and declarations were shuffled.
    pub shuffle: bool,
    /// Whether user symbols were renamed.
    pub rename: bool,
    /// Whether arguments of commutative operators were permuted.
    pub commute: bool,
    /// Largest buffered run in bytes (longer runs are shuffled window by window).
    pub window: u64,
    /// Prefix of the fresh names (`<prefix><n>`).
    pub prefix: String,
    /// `assertions[new position] = original position`, 0-based.
    pub assertions: Vec<u32>,
    /// Fresh name → original name (normal form).
    pub symbols: SymbolMap,
    /// The removed `(set-info :status …)` value, if the file had one.
    pub status: Option<String>,
    /// Text of the commands the scrambler removed, in input order.
    pub removed: Vec<String>,
}

/// A core that cannot be mapped back.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CoreMapError {
    #[error(
        "assertion position {position} is out of range: the scrambled file has {count} assertions"
    )]
    OutOfRange { position: usize, count: usize },
    #[error("'{0}' names no top-level assertion of the scrambled file")]
    UnknownName(String),
    #[error("scrambled file: {0}")]
    Syntax(String),
}

impl DescrambleMap {
    /// The original position of the assertion at `new` in the scrambled file.
    pub fn original_position(&self, new: usize) -> Option<usize> {
        self.assertions.get(new).map(|&p| p as usize)
    }

    /// Map the positions of a core on the scrambled file to original
    /// positions, element by element (order and duplicates kept).
    pub fn original_positions(&self, core: &[usize]) -> Result<Vec<usize>, CoreMapError> {
        core.iter()
            .map(|&p| {
                self.original_position(p).ok_or(CoreMapError::OutOfRange {
                    position: p,
                    count: self.assertions.len(),
                })
            })
            .collect()
    }

    /// The original name of a fresh symbol.
    pub fn original_symbol(&self, fresh: &str) -> Option<&str> {
        self.symbols
            .0
            .iter()
            .find(|(k, _)| k == fresh)
            .map(|(_, v)| v.as_str())
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a map always serializes")
    }

    /// Write the map as JSON.
    pub fn write(&self, path: &Path) -> anyhow::Result<()> {
        use anyhow::Context;
        let f =
            std::fs::File::create(path).with_context(|| format!("creating {}", path.display()))?;
        let mut w = std::io::BufWriter::new(f);
        serde_json::to_writer(&mut w, self)
            .with_context(|| format!("writing {}", path.display()))?;
        std::io::Write::flush(&mut w).with_context(|| format!("writing {}", path.display()))?;
        Ok(())
    }

    /// Read a map written by [`DescrambleMap::write`].
    pub fn load(path: &Path) -> anyhow::Result<Self> {
        use anyhow::{bail, Context};
        let f = crate::store::regular::open(path)
            .with_context(|| format!("opening {}", path.display()))?;
        let map: Self = serde_json::from_reader(std::io::BufReader::new(f))
            .with_context(|| format!("{}: not a descrambling map", path.display()))?;
        if map.format != FORMAT {
            bail!("{}: unknown format {:?}", path.display(), map.format);
        }
        Ok(map)
    }
}

/// Where the map of a scrambled benchmark lives: `x.smt2` →
/// `x.descramble.json`.
pub fn map_path(scrambled: &Path) -> PathBuf {
    scrambled.with_extension("descramble.json")
}

/// The 0-based positions, among the top-level assertions of a *named*
/// benchmark (each `(assert (! t … :named N …))`), of the names in `core`,
/// in the order given. Names are compared in normal form (`|a|` = `a`).
pub fn core_positions<R: Read>(named: R, core: &[String]) -> Result<Vec<usize>, CoreMapError> {
    let mut by_name: HashMap<String, usize> = HashMap::new();
    let mut sc = Scanner::new(named);
    let mut position = 0usize;
    while let Some(cmd) = sc
        .next_command()
        .map_err(|e| CoreMapError::Syntax(e.to_string()))?
    {
        if cmd.head() != "assert" {
            continue;
        }
        if let Some(name) = top_level_name(&cmd.text) {
            by_name.entry(name).or_insert(position);
        }
        position += 1;
    }
    core.iter()
        .map(|n| {
            by_name
                .get(normalize(n))
                .copied()
                .ok_or_else(|| CoreMapError::UnknownName(n.clone()))
        })
        .collect()
}

/// The `:named` attribute of `(assert (! t … :named N …))`, in normal form.
pub fn top_level_name(text: &[u8]) -> Option<String> {
    let toks: Vec<_> = Lexer::new(text).collect::<Result<_, _>>().ok()?;
    // ( assert ( ! … at depth 2 look for :named NAME.
    if toks.len() < 4 || toks[2].kind != TokenKind::Open || toks[3].bytes(text) != b"!" {
        return None;
    }
    let mut depth = 0i64;
    for (i, t) in toks.iter().enumerate() {
        match t.kind {
            TokenKind::Open => depth += 1,
            TokenKind::Close => depth -= 1,
            TokenKind::Keyword if depth == 2 && t.bytes(text) == b":named" => {
                let n = toks.get(i + 1)?;
                return n
                    .is_symbol()
                    .then(|| String::from_utf8_lossy(n.symbol(text)).into_owned());
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> DescrambleMap {
        DescrambleMap {
            format: FORMAT.into(),
            seed: 7,
            shuffle: true,
            rename: true,
            commute: false,
            window: 1 << 24,
            prefix: "x_".into(),
            assertions: vec![2, 0, 1],
            symbols: SymbolMap(vec![
                ("x_1".into(), "y".into()),
                ("x_2".into(), "a b".into()),
            ]),
            status: Some("unsat".into()),
            removed: vec!["(set-info :status unsat)".into()],
        }
    }

    #[test]
    fn json_round_trip_keeps_symbol_order() {
        let m = sample();
        let json = m.to_json();
        assert!(
            json.contains(r#""symbols":{"x_1":"y","x_2":"a b"}"#),
            "{json}"
        );
        let back: DescrambleMap = serde_json::from_str(&json).unwrap();
        assert_eq!(back, m);
        assert_eq!(m.original_symbol("x_2"), Some("a b"));
    }

    #[test]
    fn positions_map_back() {
        let m = sample();
        assert_eq!(m.original_positions(&[0, 2]).unwrap(), vec![2, 1]);
        assert_eq!(
            m.original_positions(&[3]).unwrap_err(),
            CoreMapError::OutOfRange {
                position: 3,
                count: 3
            }
        );
    }

    #[test]
    fn names_to_positions() {
        let named = b"(set-logic QF_UF)(declare-const p Bool)\n\
            (assert (! p :named |s 1|))\n(assert (! (not (! p :named inner)) :named s2))\n\
            (assert (! (and p p) :pattern (p) :named s3))";
        let core = vec!["s3".to_string(), "|s 1|".to_string()];
        assert_eq!(core_positions(&named[..], &core).unwrap(), vec![2, 0]);
        let bad = vec!["inner".to_string()];
        assert_eq!(
            core_positions(&named[..], &bad).unwrap_err(),
            CoreMapError::UnknownName("inner".into())
        );
    }
}
