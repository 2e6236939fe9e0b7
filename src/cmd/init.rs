//! `coreval init <DIR>`: write a commented campaign config that documents
//! every option (docs/reference.md lists the keys; this file explains them).

use crate::campaign::setup::CONFIG_FILE;
use crate::cmd::exit;
use anyhow::{bail, Context, Result};
use clap::Args;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct InitArgs {
    /// Folder of the new campaign (created if missing).
    pub dir: PathBuf,
    /// Benchmark root to put in the config (relative to DIR or absolute).
    #[arg(long, default_value = "benchmarks")]
    pub benchmarks: PathBuf,
    /// Overwrite an existing campaign.toml.
    #[arg(long)]
    pub force: bool,
}

/// The commented default config.
pub const TEMPLATE: &str = include_str!("campaign.template.toml");

pub fn run(args: InitArgs) -> Result<u8> {
    let path = args.dir.join(CONFIG_FILE);
    if path.exists() && !args.force {
        bail!(
            "{} exists already (use --force to overwrite)",
            path.display()
        );
    }
    std::fs::create_dir_all(&args.dir)
        .with_context(|| format!("cannot create {}", args.dir.display()))?;
    let bench = args
        .benchmarks
        .to_string_lossy()
        .replace('\\', "\\\\")
        .replace('"', "\\\"");
    let text = TEMPLATE.replace(
        "benchmarks = \"benchmarks\"",
        &format!("benchmarks = \"{bench}\""),
    );
    crate::store::journal::write_atomic(&path, text.as_bytes())?;
    eprintln!(
        "wrote {}; edit the [[solver]] entries, then: coreval run {}",
        path.display(),
        args.dir.display()
    );
    Ok(exit::OK)
}

#[cfg(test)]
mod tests {
    #[test]
    fn template_is_a_valid_config() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(super::CONFIG_FILE), super::TEMPLATE).unwrap();
        let c = crate::campaign::setup::Campaign::load(dir.path()).unwrap();
        assert_eq!(c.config.solvers.len(), 2);
    }

    #[test]
    fn template_lists_every_edition_and_writes_the_time_limit() {
        let text = super::TEMPLATE;
        for e in crate::campaign::verdict::rules::Edition::ALL {
            assert!(text.contains(e.name()), "{} is not listed", e.name());
        }
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(super::CONFIG_FILE), text).unwrap();
        let c = crate::campaign::setup::Campaign::load(dir.path()).unwrap();
        assert_eq!(c.config.limits.time, Some(c.edition.time_limit()));
    }
}
