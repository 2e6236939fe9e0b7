//! `coreval merge <CAMPAIGN>`: fold the journals of every shard
//! (`shards/*/{runs,cores,checks}.jsonl`) into the campaign's, so that
//! `coreval check`, `score` and `report` see a sharded run as one.

use crate::cmd::exit;
use anyhow::{bail, Result};
use clap::Args;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct MergeArgs {
    /// The campaign folder (holding campaign.toml).
    pub campaign: PathBuf,
}

pub fn run(args: MergeArgs) -> Result<u8> {
    let config = args.campaign.join(crate::campaign::setup::CONFIG_FILE);
    if !config.is_file() {
        bail!(
            "{} is not a campaign folder (no {})",
            args.campaign.display(),
            crate::campaign::setup::CONFIG_FILE
        );
    }
    let no_cancel = std::sync::atomic::AtomicBool::new(false);
    let _lock = crate::store::lock::acquire_in(&args.campaign, false, &no_cancel)?;
    let s = crate::slurm::merge::merge(&args.campaign)?;
    for w in &s.warnings {
        eprintln!("warning: {w}");
    }
    if s.shards.is_empty() {
        eprintln!(
            "merge: no shard folders in {}; nothing to do",
            args.campaign
                .join(crate::slurm::shard::SHARDS_DIR)
                .display()
        );
        return Ok(exit::OK);
    }
    let parts: Vec<String> = s
        .journals
        .iter()
        .map(|j| {
            format!(
                "{} +{} ({} already there, {} after)",
                j.file,
                j.added,
                j.duplicates,
                j.before + j.added
            )
        })
        .collect();
    eprintln!("merge: {} shard(s): {}", s.shards.len(), parts.join(", "));
    Ok(exit::OK)
}
