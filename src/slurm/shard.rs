//! Deterministic sharding of a campaign's work, for running it as the tasks
//! of a cluster job array.
//!
//! A shard `I/N` (0-based, `0 ≤ I < N`, so that `I` is Slurm's
//! `$SLURM_ARRAY_TASK_ID` of an `--array=0-(N-1)` job) owns a work item when
//! the first 8 bytes of the BLAKE3 hash of the item's key, read as a
//! little-endian `u64`, are `I` modulo `N`. The owner of a key depends on
//! nothing but the key and `N`: adding benchmarks to a campaign adds work to
//! shards without moving any existing item, and every process (a task on
//! any node, `coreval slurm status`, `coreval merge`) agrees on it.
//!
//! Keys: a solve job is a (solver, benchmark) pair, keyed by
//! [`pair_key`]; check work is keyed by the benchmark id, so that every core
//! of a benchmark — and identical cores only ever arise on the same
//! benchmark, since a core-only file holds the benchmark's declarations — is
//! rebuilt and checked in one shard, once.
//!
//! Each shard writes its journals in its own folder, [`Shard::dir`]:
//! `CAMPAIGN/shards/{I}-of-{N}/{runs,cores,checks}.jsonl`; `coreval merge`
//! folds them into the campaign's.

use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

/// Folder of a campaign holding one sub-folder per shard.
pub const SHARDS_DIR: &str = "shards";

/// One shard `index/count` of a campaign's work.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Shard {
    pub index: u32,
    pub count: u32,
}

/// Why a shard specification was refused.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ShardError {
    #[error("shard '{0}' must be written I/N, e.g. 0/4 (shards are numbered 0 to N-1)")]
    Syntax(String),
    #[error("shard '{0}': '{1}' is not a whole number")]
    Number(String, String),
    #[error("shard '{0}': the shard count must be at least 1")]
    ZeroCount(String),
    #[error("shard '{0}': the index must be below the count (shards are numbered 0 to {1})")]
    OutOfRange(String, u32),
}

impl Shard {
    /// A shard, checked: `index < count`.
    pub fn new(index: u32, count: u32) -> Result<Shard, ShardError> {
        let text = format!("{index}/{count}");
        if count == 0 {
            return Err(ShardError::ZeroCount(text));
        }
        if index >= count {
            return Err(ShardError::OutOfRange(text, count - 1));
        }
        Ok(Shard { index, count })
    }

    /// All shards of a split into `count`.
    pub fn all(count: u32) -> impl Iterator<Item = Shard> {
        (0..count).map(move |index| Shard { index, count })
    }

    /// Whether this shard owns the work item with this key.
    pub fn owns(&self, key: &str) -> bool {
        owner(key, self.count) == self.index
    }

    /// The shard's own folder: `CAMPAIGN/shards/{I}-of-{N}/`.
    pub fn dir(&self, campaign_dir: &Path) -> PathBuf {
        campaign_dir
            .join(SHARDS_DIR)
            .join(format!("{}-of-{}", self.index, self.count))
    }

    /// The shard of a folder name `{I}-of-{N}` (None for anything else).
    pub fn from_dir_name(name: &str) -> Option<Shard> {
        let (i, n) = name.split_once("-of-")?;
        Shard::new(i.parse().ok()?, n.parse().ok()?).ok()
    }
}

/// The index of the shard (out of `count`) that owns `key`.
pub fn owner(key: &str, count: u32) -> u32 {
    let hash = blake3::hash(key.as_bytes());
    let mut first = [0u8; 8];
    first.copy_from_slice(&hash.as_bytes()[..8]);
    (u64::from_le_bytes(first) % u64::from(count.max(1))) as u32
}

/// The key of a solve job: solver name and benchmark id, NUL-separated
/// (neither can contain a NUL byte, so distinct pairs have distinct keys).
pub fn pair_key(solver: &str, benchmark: &str) -> String {
    format!("{solver}\0{benchmark}")
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl FromStr for Shard {
    type Err = ShardError;

    fn from_str(s: &str) -> Result<Shard, ShardError> {
        let t = s.trim();
        let (i, n) = t
            .split_once('/')
            .ok_or_else(|| ShardError::Syntax(s.to_string()))?;
        let num = |x: &str| {
            x.trim()
                .parse::<u32>()
                .map_err(|_| ShardError::Number(s.to_string(), x.trim().to_string()))
        };
        let (index, count) = (num(i)?, num(n)?);
        if count == 0 {
            return Err(ShardError::ZeroCount(s.to_string()));
        }
        if index >= count {
            return Err(ShardError::OutOfRange(s.to_string(), count - 1));
        }
        Ok(Shard { index, count })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_prints() {
        let s: Shard = "3/8".parse().unwrap();
        assert_eq!(s, Shard { index: 3, count: 8 });
        assert_eq!(s.to_string(), "3/8");
        assert_eq!(
            " 0 / 1 ".parse::<Shard>().unwrap(),
            Shard::new(0, 1).unwrap()
        );
    }

    #[test]
    fn bad_specifications_say_why() {
        let e = |s: &str| s.parse::<Shard>().unwrap_err().to_string();
        assert!(e("3").contains("written I/N"), "{}", e("3"));
        assert!(
            e("a/4").contains("'a' is not a whole number"),
            "{}",
            e("a/4")
        );
        assert!(e("-1/4").contains("not a whole number"));
        assert!(e("1/0").contains("at least 1"));
        assert!(e("4/4").contains("numbered 0 to 3"), "{}", e("4/4"));
        assert_eq!(
            Shard::new(2, 2),
            Err(ShardError::OutOfRange("2/2".into(), 1))
        );
    }

    #[test]
    fn owner_is_stable() {
        // Pinned values: changing the hash or key layout would silently
        // reshuffle every running sharded campaign.
        assert_eq!(owner("", 1000), owner("", 1000));
        let k = pair_key("z3", "QF_LIA/family/a.smt2");
        assert_eq!(k, "z3\0QF_LIA/family/a.smt2");
        let h = blake3::hash(k.as_bytes());
        let v = u64::from_le_bytes(h.as_bytes()[..8].try_into().unwrap());
        assert_eq!(owner(&k, 7), (v % 7) as u32);
        assert_eq!(owner(&k, 1), 0);
        assert_eq!(
            owner("abc", 1 << 31),
            (0x3351_4638_acb3_3764u64 % (1 << 31)) as u32
        );
    }

    #[test]
    fn exactly_one_shard_owns_each_key() {
        for n in [1u32, 2, 3, 4, 17] {
            for k in 0..200 {
                let key = pair_key("s", &format!("b{k}"));
                let owners = Shard::all(n).filter(|s| s.owns(&key)).count();
                assert_eq!(owners, 1, "key {k} with {n} shards");
            }
        }
    }

    #[test]
    fn work_is_balanced() {
        let n = 16u32;
        let keys = 32_000;
        let mut counts = vec![0u32; n as usize];
        for k in 0..keys {
            counts[owner(
                &pair_key("cvc5", &format!("QF_BV/f{}/b{k}.smt2", k % 37)),
                n,
            ) as usize] += 1;
        }
        let mean = keys as f64 / n as f64;
        for c in &counts {
            assert!((f64::from(*c) - mean).abs() < mean * 0.06, "{counts:?}");
        }
    }

    #[test]
    fn adding_keys_does_not_move_existing_keys() {
        let n = 8;
        let before: Vec<(String, u32)> = (0..1000)
            .map(|k| {
                let key = pair_key("yices", &format!("b{k}"));
                let o = owner(&key, n);
                (key, o)
            })
            .collect();
        // A bigger campaign, keys interleaved and in another order: every
        // old key keeps its shard, whatever its position among the others.
        let mut bigger: Vec<String> = (0..3000)
            .map(|k| pair_key("yices", &format!("b{k}")))
            .collect();
        bigger.sort();
        bigger.reverse();
        let after: std::collections::HashMap<&str, u32> = bigger
            .iter()
            .map(|k| (k.as_str(), Shard::all(n).find(|s| s.owns(k)).unwrap().index))
            .collect();
        for (key, o) in &before {
            assert_eq!(after[key.as_str()], *o);
        }
    }

    #[test]
    fn shard_dirs() {
        let s = Shard::new(2, 5).unwrap();
        assert_eq!(s.dir(Path::new("/c")), PathBuf::from("/c/shards/2-of-5"));
        assert_eq!(Shard::from_dir_name("2-of-5"), Some(s));
        assert_eq!(Shard::from_dir_name("5-of-5"), None);
        assert_eq!(Shard::from_dir_name("x"), None);
    }
}
