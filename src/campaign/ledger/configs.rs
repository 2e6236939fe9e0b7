//! The provenance table, `provenance.jsonl`: every configuration that
//! produced journal records (a solver's or checker's command with `{file}`
//! for its input, its limits, its program's identity), written once, and
//! durably, before the first record that refers to it, under its id: the
//! first 16 hex digits of the BLAKE3 of its JSON. A record then carries
//! that id and its own input ([`Provenance`]'s compact form) instead of the
//! whole provenance on every line. Any record stays accountable: its id
//! leads to one line of the table, and a line whose id is not its content's
//! hash is refused (with a warning; records that refer to it are then of
//! an unknown configuration and are redone). A shard writes the table of
//! its own folder beside its journals; reading takes the campaign's and
//! every shard's, as for the journals.

use super::produced::{Limits, Program, Provenance};
use crate::campaign::setup::Campaign;
use crate::message::Say;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, RwLock};

/// File name of the provenance table.
pub const TABLE: &str = "provenance.jsonl";

/// One configuration: a line of the table.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Config {
    /// Its id ([`id_of`] of the rest).
    pub of: String,
    /// Program and arguments, `{file}` for the input.
    pub command: Vec<String>,
    pub limits: Limits,
    pub program: Program,
}

/// The id of a configuration: the first 16 hex digits of the BLAKE3 of
/// its JSON.
pub fn id_of(template: &[String], limits: &Limits, program: &Program) -> String {
    let text = serde_json::to_string(&(template, limits, program)).unwrap_or_default();
    blake3::hash(text.as_bytes()).to_hex()[..16].to_string()
}

impl Config {
    pub fn new(template: &[String], limits: &Limits, program: &Program) -> Config {
        Config {
            of: id_of(template, limits, program),
            command: template.to_vec(),
            limits: limits.clone(),
            program: program.clone(),
        }
    }

    /// The inline provenance of a run of this configuration on `file`.
    pub fn inline(&self, file: &str, benchmark: Option<String>) -> Provenance {
        Provenance {
            of: None,
            command: self
                .command
                .iter()
                .map(|a| a.replace("{file}", file))
                .collect(),
            file: file.to_string(),
            limits: self.limits.clone().into(),
            program: self.program.clone().into(),
            benchmark,
        }
    }
}

/// The table of a campaign: the configurations read from it, and where
/// new ones go. Cloning shares it.
#[derive(Clone, Debug, Default)]
pub struct Table {
    /// Where this process writes (the campaign's or its shard's folder);
    /// `None`: records keep their provenance inline.
    path: Option<PathBuf>,
    known: Arc<RwLock<HashMap<String, Config>>>,
    /// One writer at a time (the check between reading and appending).
    writing: Arc<Mutex<()>>,
}

impl Table {
    /// Read the campaign's table (and every shard's); lines whose id is not
    /// their content's are refused with a warning said to `say`.
    pub fn load(c: &Campaign, say: Say) -> Table {
        let lines: Vec<Config> = c.read_journal(TABLE).unwrap_or_else(|e| {
            say.warning(format!("{e:#}"));
            Vec::new()
        });
        let mut known = HashMap::new();
        for k in lines {
            if id_of(&k.command, &k.limits, &k.program) != k.of {
                say.warning_once(format!(
                    "{TABLE}: the line of id {} does not hash to it: refused (its records are redone)",
                    k.of
                ));
                continue;
            }
            known.insert(k.of.clone(), k);
        }
        Table {
            path: Some(c.journal_path(TABLE)),
            known: Arc::new(RwLock::new(known)),
            writing: Arc::default(),
        }
    }

    /// The table of one file (no shards), read as [`Table::load`] does.
    pub fn at(path: PathBuf) -> Table {
        let (lines, _) = crate::store::journal::read_all::<Config>(&path).unwrap_or_default();
        let known = lines
            .into_iter()
            .filter(|k| id_of(&k.command, &k.limits, &k.program) == k.of)
            .map(|k| (k.of.clone(), k))
            .collect();
        Table {
            path: Some(path),
            known: Arc::new(RwLock::new(known)),
            writing: Arc::default(),
        }
    }

    /// The configuration of an id.
    pub fn get(&self, id: &str) -> Option<Config> {
        self.read().get(id).cloned()
    }

    /// Whether the configuration of `id` is there.
    pub fn has(&self, id: &str) -> bool {
        self.read().contains_key(id)
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, HashMap<String, Config>> {
        self.known.read().unwrap_or_else(|p| p.into_inner())
    }

    /// Make sure `k` is in the table on disk (appended and fsynced when
    /// not yet); false when it cannot be (no table, a write failed): the
    /// caller then records the provenance inline.
    pub fn ensure(&self, k: &Config) -> bool {
        if self.has(&k.of) {
            return true;
        }
        let Some(path) = &self.path else {
            return false;
        };
        let _one = self.writing.lock().unwrap_or_else(|p| p.into_inner());
        if self.has(&k.of) {
            return true;
        }
        let written = crate::store::journal::Journal::open(path).and_then(|j| j.append(k));
        if written.is_err() {
            return false;
        }
        self.known
            .write()
            .unwrap_or_else(|p| p.into_inner())
            .insert(k.of.clone(), k.clone());
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(time: f64) -> Config {
        Config::new(
            &["/bin/z3".to_string(), "{file}".to_string()],
            &Limits {
                time: Some(time),
                ..Limits::default()
            },
            &Program::default(),
        )
    }

    #[test]
    fn a_configuration_is_written_once_and_read_back_verified() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("campaign.toml"), "benchmarks = \"b\"\n").unwrap();
        std::fs::create_dir_all(dir.path().join("b")).unwrap();
        let c = Campaign::load(dir.path()).unwrap();
        let t = Table::load(&c, Say::stderr());
        let (a, b) = (config(10.0), config(20.0));
        assert_ne!(a.of, b.of);
        assert_eq!(a.of.len(), 16);
        assert!(t.ensure(&a) && t.ensure(&a) && t.ensure(&b));
        let text = std::fs::read_to_string(dir.path().join(TABLE)).unwrap();
        assert_eq!(text.lines().count(), 2, "each configuration once");
        // A line edited by hand no longer matches its id: refused.
        let forged = text.replacen("10.0", "11.0", 1);
        std::fs::write(dir.path().join(TABLE), forged).unwrap();
        let t = Table::load(&c, Say::stderr());
        assert!(!t.has(&a.of) && t.has(&b.of));
        assert_eq!(t.get(&b.of).unwrap(), b);
        assert_eq!(
            b.inline("named/x.smt2", None).command,
            vec!["/bin/z3", "named/x.smt2"]
        );
        assert!(!Table::default().ensure(&a), "no table: inline");
    }
}
