//! The division maps coreval ships (`divisions/smtcomp-20NN.toml`) are the
//! official ones: each equals a verbatim copy of the organizers' table kept in
//! `tests/data/divisions/` (2021–2023: `YEAR/new-divisions.json` of
//! SMT-COMP/smt-comp; 2024–2026: `smtcomp/defs.py` of SMT-COMP/smt-comp.github.io;
//! each copy names its commit), and every logic that a published 2021–2023
//! division page lists is in that division of the shipped map.

use std::collections::BTreeMap;
use std::path::Path;

type Map = BTreeMap<String, Vec<String>>;

fn read(rel: &str) -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join(rel);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// The shipped map of `year`, division → sorted logics.
fn shipped(year: u32) -> Map {
    #[derive(serde::Deserialize)]
    struct File {
        divisions: Map,
    }
    let f: File = toml::from_str(&read(&format!("divisions/smtcomp-{year}.toml"))).unwrap();
    sorted(f.divisions)
}

fn sorted(mut m: Map) -> Map {
    for v in m.values_mut() {
        v.sort();
    }
    m
}

/// The copy of `track_unsat_core` of `YEAR/new-divisions.json` (after its
/// `#` header).
fn official_json(year: u32) -> Map {
    let text = read(&format!("tests/data/divisions/official-{year}.json.txt"));
    let body: String = text
        .lines()
        .filter(|l| !l.starts_with('#'))
        .collect::<Vec<_>>()
        .join("\n");
    sorted(serde_json::from_str(&body).unwrap())
}

/// The copy of `smtcomp/defs.py`: the `Division` enum (Python name → division
/// name) and the `Track.UnsatCore` entry (`Division.X: {` … `Logic.Y,` … `},`).
fn official_defs(year: u32) -> Map {
    let text = read(&format!("tests/data/divisions/official-{year}.defs.py"));
    let mut names = BTreeMap::new();
    let mut in_enum = false;
    for l in text.lines() {
        if l.starts_with("class Division(") {
            in_enum = true;
        } else if in_enum && l.trim().is_empty() {
            in_enum = false;
        } else if in_enum {
            let (k, v) = l.trim().split_once(" = ").expect(l);
            names.insert(k.to_string(), v.trim_matches('"').to_string());
        }
    }
    assert!(names.len() > 15, "{year}: Division enum not found");
    let block = text
        .split("Track.UnsatCore: {")
        .nth(1)
        .expect("Track.UnsatCore entry");
    let mut m = Map::new();
    let mut current: Option<String> = None;
    for l in block.lines().map(str::trim) {
        if let Some(d) = l.strip_prefix("Division.") {
            let d = d.trim_end_matches(": {");
            let name = names
                .get(d)
                .unwrap_or_else(|| panic!("{year}: {d} not in the enum"));
            current = Some(name.clone());
            m.insert(name.clone(), Vec::new());
        } else if let Some(logic) = l.strip_prefix("Logic.") {
            let d = current.as_ref().expect("a logic outside a division");
            m.get_mut(d)
                .unwrap()
                .push(logic.trim_end_matches(',').to_string());
        } else if l == "}," && current.take().is_none() {
            break; // the end of Track.UnsatCore
        }
    }
    sorted(m)
}

fn logics(m: &Map) -> usize {
    m.values().map(Vec::len).sum()
}

#[test]
fn maps_2021_to_2023_equal_the_organizers_tables() {
    for year in 2021..=2023 {
        let official = official_json(year);
        assert!(logics(&official) > 60, "{year}: {official:?}");
        assert_eq!(shipped(year), official, "divisions/smtcomp-{year}.toml");
    }
}

#[test]
fn maps_2024_to_2026_equal_the_smtcomp_tools_tables() {
    for year in 2024..=2026 {
        let official = official_defs(year);
        assert_eq!(official.len(), 19, "{year}: divisions");
        assert!(logics(&official) > 70, "{year}: {official:?}");
        assert_eq!(shipped(year), official, "divisions/smtcomp-{year}.toml");
    }
    // the logics the issue found missing are in their divisions
    let in_division = |year, d: &str, l: &str| shipped(year)[d].iter().any(|x| x == l);
    for year in 2024..=2026 {
        assert!(in_division(year, "Equality+NonLinearArith", "UFNIRA"));
    }
    for l in [
        "AUFBVFPDTNIRA",
        "UFBVDTLIA",
        "UFBVDTNIA",
        "UFBVDTNIRA",
        "UFBVFPDTNIRA",
    ] {
        assert!(!in_division(2024, "Equality+MachineArith", l), "{l}");
        assert!(in_division(2025, "Equality+MachineArith", l), "{l}");
        assert!(in_division(2026, "Equality+MachineArith", l), "{l}");
    }
}

#[test]
fn every_logic_a_published_division_page_lists_is_in_that_division() {
    let mut checked = 0;
    for year in 2021..=2023 {
        let map = shipped(year);
        let text = read(&format!("tests/data/divisions/published-{year}.txt"));
        for line in text.lines().filter(|l| !l.starts_with('#')) {
            let (division, listed) = line.split_once(": ").expect(line);
            let ours = map
                .get(division)
                .unwrap_or_else(|| panic!("{year}: no division {division}"));
            for logic in listed.split_whitespace() {
                assert!(
                    ours.iter().any(|l| l == logic),
                    "{year}: {logic} is listed on the {division} page but not in our {division}"
                );
                checked += 1;
            }
        }
    }
    // the pages as stored list 54 (2021), 59 (2022) and 55 (2023) logics
    assert_eq!(checked, 54 + 59 + 55);
}
