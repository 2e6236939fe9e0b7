//! How many benchmarks of a logic the unsat-core track takes, per edition:
//! the cap as a function of n, the number of the logic's eligible
//! benchmarks.
//!
//! - 2024 and 2025 ([`CapRule::Half`]): every benchmark while n ≤ 300,
//!   300 while n ≤ 600, ⌊n/2⌋ above; the `smtcomp` tool computes it as
//!   `min(n, max(300, ⌊0.5 n⌋))`, the same numbers.
//! - 2026 ([`CapRule::Tiered`]): as above up to n ≤ 1000 (⌊n/2⌋ for
//!   600 < n ≤ 1000), then 500 + ⌊(n − 1000)/10⌋.

use crate::campaign::verdict::rules::Edition;

/// One edition's cap on a logic's benchmarks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CapRule {
    /// 2024, 2025: `min(n, max(300, ⌊n/2⌋))`.
    Half,
    /// 2026: half up to 1000 benchmarks, then a tenth of those beyond.
    Tiered,
}

/// Below this many eligible benchmarks a logic is taken whole.
pub const ALL_UP_TO: usize = 300;

impl CapRule {
    /// The rule of `edition`, `None` for an edition before the `smtcomp`
    /// tool (2024), whose selection coreval does not apply.
    pub fn of(edition: Edition) -> Option<CapRule> {
        match edition {
            Edition::Smtcomp2024 | Edition::Smtcomp2025 => Some(CapRule::Half),
            Edition::Smtcomp2026 => Some(CapRule::Tiered),
            _ => None,
        }
    }

    /// How many of a logic's `n` eligible benchmarks are taken.
    pub fn cap(self, n: usize) -> usize {
        let half = n.max(2 * ALL_UP_TO) / 2;
        match self {
            CapRule::Half => n.min(half),
            CapRule::Tiered if n <= 1000 => n.min(half),
            CapRule::Tiered => 500 + (n - 1000) / 10,
        }
    }
}

/// The year of `edition` (`smtcomp-2026` → 2026), whose previous year
/// marks a family as new.
pub fn year(edition: Edition) -> u32 {
    // Every edition is named `smtcomp-YYYY`.
    let name = edition.name();
    name.rsplit('-')
        .next()
        .and_then(|y| y.parse().ok())
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (n, cap) at the boundaries of the rules.
    const BOUNDARIES: [usize; 9] = [0, 1, 300, 301, 600, 601, 1000, 1001, 2000];

    #[test]
    fn half_up_to_2025() {
        let got: Vec<usize> = BOUNDARIES.iter().map(|&n| CapRule::Half.cap(n)).collect();
        assert_eq!(got, [0, 1, 300, 300, 300, 300, 500, 500, 1000]);
        assert_eq!(CapRule::Half.cap(3000), 1500);
        assert_eq!(CapRule::Half.cap(800), 400);
        assert_eq!(CapRule::Half.cap(250), 250);
        // The tool's formula, for every n up to 5 000.
        for n in 0..5000 {
            assert_eq!(CapRule::Half.cap(n), n.min(ALL_UP_TO.max(n / 2)), "n = {n}");
        }
    }

    #[test]
    fn tiered_in_2026() {
        let got: Vec<usize> = BOUNDARIES.iter().map(|&n| CapRule::Tiered.cap(n)).collect();
        assert_eq!(got, [0, 1, 300, 300, 300, 300, 500, 500, 600]);
        assert_eq!(CapRule::Tiered.cap(1009), 500);
        assert_eq!(CapRule::Tiered.cap(1010), 501);
        assert_eq!(CapRule::Tiered.cap(3000), 700);
        assert_eq!(CapRule::Tiered.cap(800), 400);
        // Never more than the logic has, never fewer as it grows.
        for n in 1..5000 {
            let c = CapRule::Tiered.cap(n);
            assert!(c <= n && c >= CapRule::Tiered.cap(n - 1), "n = {n}");
        }
    }

    #[test]
    fn editions_and_years() {
        assert_eq!(CapRule::of(Edition::Smtcomp2024), Some(CapRule::Half));
        assert_eq!(CapRule::of(Edition::Smtcomp2025), Some(CapRule::Half));
        assert_eq!(CapRule::of(Edition::Smtcomp2026), Some(CapRule::Tiered));
        assert_eq!(CapRule::of(Edition::Smtcomp2023), None);
        assert_eq!(year(Edition::Smtcomp2026), 2026);
        assert_eq!(year(Edition::Smtcomp2016), 2016);
    }
}
