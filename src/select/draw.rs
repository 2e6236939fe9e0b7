//! The random part of the selection, one logic at a time: new benchmarks
//! first, then the rest, until the cap.
//!
//! The order follows the rules' text, which guarantees one benchmark per
//! new family: first one benchmark of each new family (the families in a
//! random order, one member of each drawn at random; when the cap is
//! smaller than the number of new families, the first `cap` families of
//! that order get one), then the other new benchmarks in a random order,
//! then the old ones in a random order, until the cap is reached. The
//! `smtcomp` tool instead takes `min(cap, #new)` new benchmarks at random,
//! without regard to their families, then old ones: where the new
//! benchmarks fit the cap both take them all; where they do not, the
//! tool may leave a new family out, this never does.
//!
//! The numbers are glibc's `random()` after `srandom(seed)`
//! ([`crate::scramble::GlibcRandom`], the scrambler's generator), started
//! afresh for each logic with the competition's seed, so that a logic's
//! pick depends only on its own benchmarks and the seed. This is not the
//! tool's polars `list.sample(seed=…)`: the same seed gives another (as
//! valid) sample than the tool's.

use crate::scramble::GlibcRandom;
use std::collections::BTreeMap;

/// What one logic's draw picked.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Drawn {
    /// The picked members, by position in the list given.
    pub picked: Vec<usize>,
    /// New benchmarks among the members.
    pub new: usize,
    /// New families among the members.
    pub new_families: usize,
}

/// Draw up to `cap` of a logic's eligible benchmarks, given as their
/// families in a fixed order (sorted by id, so that the draw does not
/// depend on the input's order); `new(family)` says which are new.
pub fn draw(families: &[&str], new: impl Fn(&str) -> bool, cap: usize, seed: u32) -> Drawn {
    let mut rng = GlibcRandom::new(seed);
    let mut by_family: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    let mut old = Vec::new();
    for (i, f) in families.iter().enumerate() {
        if new(f) {
            by_family.entry(f).or_default().push(i);
        } else {
            old.push(i);
        }
    }
    let mut out = Drawn {
        new: by_family.values().map(Vec::len).sum(),
        new_families: by_family.len(),
        ..Drawn::default()
    };
    let mut taken = vec![false; families.len()];
    // One of each new family, the families in a random order.
    let mut order: Vec<&Vec<usize>> = by_family.values().collect();
    rng.shuffle(&mut order);
    for members in order {
        if out.picked.len() >= cap {
            break;
        }
        let i = members[rng.below(members.len())];
        taken[i] = true;
        out.picked.push(i);
    }
    // The other new ones, then the old ones, each in a random order.
    let rest_new: Vec<usize> = (by_family.values().flatten().copied())
        .filter(|&i| !taken[i])
        .collect();
    for mut group in [rest_new, old] {
        if out.picked.len() >= cap {
            break;
        }
        rng.shuffle(&mut group);
        let room = cap - out.picked.len();
        out.picked.extend(group.into_iter().take(room));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn is_new(f: &str) -> bool {
        f.starts_with("2025")
    }

    /// 100 old benchmarks and 3 new families of 4.
    fn families() -> Vec<&'static str> {
        let mut f = vec!["old"; 100];
        for fam in ["2025-a", "20250317-b", "2025c"] {
            f.extend([fam; 4]);
        }
        f
    }

    #[test]
    fn new_benchmarks_come_first_one_per_family_first() {
        let f = families();
        // Cap above the new ones: all 12 new, the rest old, none twice.
        let d = draw(&f, is_new, 50, 7);
        assert_eq!((d.new, d.new_families, d.picked.len()), (12, 3, 50));
        let mut sorted = d.picked.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), 50);
        assert!(d.picked[..12].iter().all(|&i| is_new(f[i])));
        let first: std::collections::BTreeSet<&str> = d.picked[..3].iter().map(|&i| f[i]).collect();
        assert_eq!(first.len(), 3, "one of each family first");
        // Cap between the families and the new ones: one of each, then new ones.
        let d = draw(&f, is_new, 5, 7);
        let fams: std::collections::BTreeSet<&str> = d.picked.iter().map(|&i| f[i]).collect();
        assert_eq!(fams.len(), 3);
        assert!(d.picked.iter().all(|&i| is_new(f[i])));
        // Cap below the families: that many families, one each.
        for seed in 0..20 {
            let d = draw(&f, is_new, 2, seed);
            let fams: std::collections::BTreeSet<&str> = d.picked.iter().map(|&i| f[i]).collect();
            assert_eq!((d.picked.len(), fams.len()), (2, 2), "seed {seed}");
        }
    }

    #[test]
    fn the_seed_decides_the_draw() {
        let f = families();
        assert_eq!(draw(&f, is_new, 40, 1), draw(&f, is_new, 40, 1));
        assert_ne!(draw(&f, is_new, 40, 1), draw(&f, is_new, 40, 2));
        // A cap of at least the members takes them all.
        assert_eq!(draw(&f, is_new, 500, 3).picked.len(), f.len());
        assert!(draw(&f, is_new, 0, 3).picked.is_empty());
    }
}
