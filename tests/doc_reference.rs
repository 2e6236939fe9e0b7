//! `docs/reference.md` names every key a `campaign.toml` may hold: the
//! keys are read off the config type itself (every field set, serialized),
//! so a key added to the code without a line in the reference fails here.

mod common;

use coreval::campaign::setup::ConfigFile;

/// Every key of `value`, as `table.key` (arrays of tables by their name).
fn keys(value: &toml::Value, prefix: &str, out: &mut Vec<String>) {
    match value {
        toml::Value::Table(t) => {
            for (k, v) in t {
                let name = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}.{k}")
                };
                out.push(name.clone());
                // A table's keys, not a map's (`check.validator_names`).
                if prefix.is_empty() {
                    keys(v, &name, out);
                }
            }
        }
        toml::Value::Array(items) => {
            for v in items.iter().filter(|v| v.is_table()) {
                keys(v, prefix, out);
            }
        }
        _ => {}
    }
}

#[test]
fn the_reference_names_every_campaign_key() {
    let mut config = ConfigFile::new("b");
    config.checkers_dir = Some("c".into());
    config.benchmark_list = Some("l.txt".into());
    config.cache = Some("c".into());
    config.naming.scramble_seed = Some(1);
    config.limits.time = Some(1.0);
    config.check.validators_from = Some("v.csv".into());
    config.check.validator_names.insert("a".into(), "b".into());
    config.score.family = Some("directory".into());
    config.score.participants = Some("p.csv".into());
    config.score.divisions = Some("d.toml".into());
    config.solver_definition("s", "z3");
    let s = &mut config.solvers[0];
    s.team = Some("t".into());
    s.args = vec!["x".into()];
    s.answer_stream = Some(Default::default());
    s.workdir = Some("w".into());
    s.teams = vec!["t".into()];
    s.cached = true;
    s.observe = true;
    config.solver_command("c", &["x", "{file}"]);
    let text = toml::to_string(&config).unwrap();
    let mut all = Vec::new();
    keys(&text.parse::<toml::Value>().unwrap(), "", &mut all);
    all.sort();
    all.dedup();
    let reference = std::fs::read_to_string(common::repo().join("docs/reference.md")).unwrap();
    let start = reference.find("| key | default | meaning |").unwrap();
    let table: String = reference[start..]
        .lines()
        .take_while(|l| l.starts_with('|'))
        .collect::<Vec<_>>()
        .join("\n");
    let missing: Vec<&String> = all
        .iter()
        .filter(|k| {
            let (table_name, key) = k.rsplit_once('.').unwrap_or(("", k));
            let row_of_table = |row: &&str| match table_name {
                "" => !row.starts_with("| `["),
                "solver" => row.starts_with("| `[[solver]]"),
                t => row.starts_with(&format!("| `[{t}]")),
            };
            !table.lines().filter(row_of_table).any(|row| {
                let head = row.split(" | ").next().unwrap_or("");
                head.split(|c: char| !(c.is_alphanumeric() || c == '_'))
                    .any(|w| w == key)
            })
        })
        .filter(|k| {
            !matches!(
                k.as_str(),
                "naming" | "limits" | "check" | "score" | "solver"
            )
        })
        .collect();
    assert!(
        missing.is_empty(),
        "docs/reference.md's key table lacks {missing:?} (keys: {all:?})"
    );
}
