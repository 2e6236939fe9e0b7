//! Which logics each division groups (SMT-COMP from 2021). A map is a TOML
//! file with one table, `[divisions]`, whose keys are division names and
//! whose values are lists of logics:
//!
//! ```toml
//! [divisions]
//! "QF_LinearIntArith" = ["QF_IDL", "QF_LIA", "QF_LIRA"]
//! ```
//!
//! Every edition from 2021 ships its own map (`divisions/<edition>.toml`,
//! compiled in); `--divisions FILE` or `[score] divisions` replaces it. A
//! logic in no division is scored as a division of its own, with a warning.

use super::rules::Edition;
use anyhow::{bail, Context, Result};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;

/// A logic → division map.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DivisionMap {
    /// Logic → division.
    of_logic: BTreeMap<String, String>,
    /// Where the map came from (a file, or the edition's own), for reports.
    pub source: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MapFile {
    divisions: BTreeMap<String, Vec<String>>,
}

impl DivisionMap {
    /// Parse a map; `label` names the source in messages and reports.
    pub fn parse(text: &str, label: &str) -> Result<Self> {
        let file: MapFile = toml::from_str(text)
            .map_err(|e| anyhow::anyhow!("{label}: {}", e.to_string().trim()))?;
        let line_of = |needle: &str| {
            text.lines()
                .position(|l| l.contains(needle))
                .map_or(0, |i| i + 1)
        };
        let mut of_logic = BTreeMap::new();
        for (division, logics) in &file.divisions {
            if division.trim().is_empty() {
                bail!("{label}: line {}: empty division name", line_of("\"\""));
            }
            for logic in logics {
                if let Some(other) = of_logic.insert(logic.clone(), division.clone()) {
                    bail!(
                        "{label}: line {}: logic {logic} is in two divisions, {other} and {division}",
                        line_of(&format!("\"{division}\""))
                    );
                }
            }
        }
        Ok(DivisionMap {
            of_logic,
            source: label.to_string(),
        })
    }

    /// Read a map from a file.
    pub fn load(path: &Path) -> Result<Self> {
        let text = crate::store::regular::read_to_string(path)
            .with_context(|| format!("cannot read division map {}", path.display()))?;
        Self::parse(&text, &path.display().to_string())
    }

    /// The map an edition ships, when its divisions group logics.
    pub fn of_edition(edition: Edition) -> Option<Self> {
        let text = edition.division_map()?;
        let label = format!("divisions/{}.toml", edition.name());
        // the shipped files are checked by the tests below
        Self::parse(text, &label).ok()
    }

    /// The map to score by: `file` when given, else the edition's own when
    /// its divisions group logics, else none (a division is a logic).
    pub fn for_rules(rules: &super::rules::Rules, file: Option<&Path>) -> Result<Option<Self>> {
        match file {
            Some(f) => Self::load(f).map(Some),
            None if rules.grouped_divisions => Ok(Self::of_edition(rules.edition)),
            None => Ok(None),
        }
    }

    /// The division of `logic`, when the map names one.
    pub fn division_of(&self, logic: &str) -> Option<&str> {
        self.of_logic.get(logic).map(String::as_str)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_shipped_map_parses_and_groups() {
        for e in Edition::ALL {
            let Some(text) = e.division_map() else {
                assert!(!e.rules().grouped_divisions, "{}", e.name());
                continue;
            };
            assert!(e.rules().grouped_divisions, "{}", e.name());
            let m = DivisionMap::parse(text, e.name()).unwrap();
            assert_eq!(m.division_of("QF_LIA"), Some("QF_LinearIntArith"));
            assert_eq!(m.division_of("QF_IDL"), Some("QF_LinearIntArith"));
            assert_eq!(m.division_of("QF_UF"), Some("QF_Equality"));
            assert_eq!(m.division_of("LIA"), Some("Arith"));
            assert!(DivisionMap::of_edition(e).is_some());
        }
        assert!(DivisionMap::of_edition(Edition::Smtcomp2020).is_none());
    }

    #[test]
    fn a_logic_in_two_divisions_is_refused_with_its_line() {
        let text = "[divisions]\n\"A\" = [\"QF_LIA\"]\n\"B\" = [\"QF_LIA\"]\n";
        let e = DivisionMap::parse(text, "m.toml").unwrap_err().to_string();
        assert!(e.contains("m.toml: line 3") && e.contains("QF_LIA"), "{e}");
        let e = DivisionMap::parse("[division]\n", "m.toml").unwrap_err();
        assert!(e.to_string().starts_with("m.toml:"), "{e}");
    }
}
