//! The competition's pseudo-random numbers: glibc's `random()` after
//! `srandom(seed)`, reimplemented bit for bit, and the seed procedure of
//! the rules.
//!
//! SMT-COMP 2016 rules, "Pseudo-random numbers" (docs/RULES.md, source 000 §6): numbers are
//! generated "using the standard C library function random(), seeded (using
//! srandom()) with the sum, modulo 2^30, of the integer numbers provided in
//! the system descriptions by all SMT-COMP entrants other than the
//! organizers'. Additionally, the integer part of the opening value of the
//! New York Stock Exchange Composite Index [...] will be added to the other
//! seeding values." We read the NYSE value as one more *seeding value*:
//! seed = (Σ entrants' numbers + ⌊NYSE⌋) mod 2^30 (see [`competition_seed`]).
//!
//! glibc's default generator is TYPE_3: an additive lagged Fibonacci
//! generator over 31 words, `r[i] = r[i−3] + r[i−31]` (mod 2^32), output
//! `r[i] >> 1`. `srandom(s)` fills the words with 16807·r mod (2^31 − 1)
//! (Schrage's method, on the seed reinterpreted as a signed 32-bit word,
//! with 0 replaced by 1) and discards the first 310 outputs. The official
//! scrambler source (SMT-COMP/scrambler, scrambler.cpp) uses its own 48-bit
//! linear congruential generator instead, despite the rules' text; coreval
//! follows the rules. A test compares [`GlibcRandom`] with the C library's
//! `random()` for many seeds.

use anyhow::{bail, Context};
use std::path::Path;

/// Words of state of glibc's TYPE_3 generator (`DEG_3`).
const DEG: usize = 31;
/// Distance between the two taps (`SEP_3`).
const SEP: usize = 3;

/// glibc's `random()` state after `srandom(seed)`.
#[derive(Clone, Debug)]
pub struct GlibcRandom {
    state: [i32; DEG],
    front: usize,
    rear: usize,
}

impl GlibcRandom {
    /// The generator `srandom(seed)` leaves behind.
    pub fn new(seed: u32) -> Self {
        let seed = if seed == 0 { 1 } else { seed };
        let mut state = [0i32; DEG];
        state[0] = seed as i32;
        // state[i] = 16807 * state[i-1] % 2147483647 without overflowing
        // 31 bits (Schrage), with C's truncating division on a signed word.
        let mut word = seed as i32 as i64;
        for slot in state.iter_mut().skip(1) {
            let hi = word / 127_773;
            let lo = word % 127_773;
            word = 16_807 * lo - 2_836 * hi;
            if word < 0 {
                word += 2_147_483_647;
            }
            *slot = word as i32;
        }
        let mut rng = GlibcRandom {
            state,
            front: SEP,
            rear: 0,
        };
        for _ in 0..DEG * 10 {
            rng.next_u31();
        }
        rng
    }

    /// The next value of `random()`, in `0..2^31`.
    pub fn next_u31(&mut self) -> u32 {
        let val = (self.state[self.front] as u32).wrapping_add(self.state[self.rear] as u32);
        self.state[self.front] = val as i32;
        self.front += 1;
        self.rear += 1;
        if self.front >= DEG {
            self.front = 0;
        } else if self.rear >= DEG {
            self.rear = 0;
        }
        val >> 1
    }

    /// `random() % bound`, the way the official scrambler draws an index
    /// (the modulo bias, at most bound/2^31, is kept for fidelity).
    pub fn below(&mut self, bound: usize) -> usize {
        debug_assert!(bound > 0);
        self.next_u31() as usize % bound
    }

    /// Fisher–Yates, as in the official scrambler's `shuffle_list`: for
    /// i = n−1 down to 1, swap item i with item `random() % (i+1)`. A slice
    /// of n items consumes n−1 numbers.
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below(i + 1);
            items.swap(i, j);
        }
    }
}

/// 2^30: the rules' modulus for the seed.
pub const SEED_MODULUS: u64 = 1 << 30;

/// The rules' seed: the entrants' numbers (organizers' excluded by the
/// caller) plus the integer part of the NYSE Composite opening value,
/// summed modulo 2^30.
pub fn competition_seed(entrant_numbers: &[u32], nyse_integer_part: u64) -> u32 {
    let sum = entrant_numbers
        .iter()
        .fold(nyse_integer_part % SEED_MODULUS, |acc, &n| {
            (acc + n as u64) % SEED_MODULUS
        });
    sum as u32
}

/// The seed of the `smtcomp` tool (2024 on): (Σ numbers mod 2³⁰) +
/// ⌊100 × NYSE⌋, the modulo taken before the index is added; `None` when
/// it does not fit the generator's 32-bit seed.
pub fn tool_seed(entrant_numbers: &[u32], nyse_hundredths: u64) -> Option<u32> {
    let sum = entrant_numbers
        .iter()
        .fold(0u64, |acc, &n| (acc + n as u64) % SEED_MODULUS);
    u32::try_from(sum + nyse_hundredths).ok()
}

/// ⌊100 × value⌋ of an index value as published (`10523.45` → 1052345).
pub fn parse_nyse_hundredths(text: &str) -> anyhow::Result<u64> {
    let int = parse_nyse(text)?;
    let t = text.trim().replace(',', "");
    let frac = t.split_once('.').map(|(_, f)| f).unwrap_or("");
    let cents: u64 = format!("{:0<2}", &frac[..frac.len().min(2)])
        .parse()
        .unwrap_or(0);
    int.checked_mul(100)
        .and_then(|v| v.checked_add(cents))
        .with_context(|| format!("--nyse {text:?}: value too large"))
}

/// The integer part of an index value as published (`10523.45`, `10,523.45`).
pub fn parse_nyse(text: &str) -> anyhow::Result<u64> {
    let t = text.trim().replace(',', "");
    let int = t.split('.').next().unwrap_or("");
    if int.is_empty() || !int.bytes().all(|b| b.is_ascii_digit()) {
        bail!("--nyse {text:?}: expected the index's opening value, e.g. 10523.45");
    }
    let frac = t.split_once('.').map(|(_, f)| f).unwrap_or("0");
    if !frac.bytes().all(|b| b.is_ascii_digit()) {
        bail!("--nyse {text:?}: expected the index's opening value, e.g. 10523.45");
    }
    int.parse::<u64>()
        .with_context(|| format!("--nyse {text:?}: value too large"))
}

/// One entrant's line of the entrants file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entrant {
    /// The solver or team, for the report.
    pub name: String,
    /// The 32-bit unsigned number from the system description.
    pub number: u32,
    /// Organizers' entries do not count towards the seed.
    pub organizer: bool,
}

/// Read the entrants CSV: a header, then one row per entrant. Columns (by
/// header name, case-insensitive): `number` (also `seed` or
/// `magic_number`), optionally `solver` (or `name`, `team`) and
/// `organizer` (`true`/`yes`/`1`/`x` exclude the row from the sum).
pub fn read_entrants(path: &Path) -> anyhow::Result<Vec<Entrant>> {
    let mut rd = csv::ReaderBuilder::new()
        .trim(csv::Trim::All)
        .flexible(false)
        .from_reader(
            crate::store::regular::open(path)
                .with_context(|| format!("reading {}", path.display()))?,
        );
    let headers: Vec<String> = rd
        .headers()
        .with_context(|| format!("{}: reading the header", path.display()))?
        .iter()
        .map(|h| h.to_ascii_lowercase())
        .collect();
    let col = |names: &[&str]| headers.iter().position(|h| names.contains(&h.as_str()));
    let Some(num_col) = col(&["number", "seed", "magic_number", "magic"]) else {
        bail!(
            "{}: no `number` column in the header (found: {})",
            path.display(),
            headers.join(", ")
        );
    };
    let name_col = col(&["solver", "name", "team"]);
    let org_col = col(&["organizer", "organiser", "organizers"]);
    let mut out = Vec::new();
    for (i, rec) in rd.records().enumerate() {
        let line = i + 2;
        let rec = rec.with_context(|| format!("{}:{line}: malformed row", path.display()))?;
        let raw = rec.get(num_col).unwrap_or("");
        let number: u32 = raw.parse().with_context(|| {
            format!(
                "{}:{line}: number {raw:?} is not a 32-bit unsigned integer",
                path.display()
            )
        })?;
        let organizer = org_col
            .and_then(|c| rec.get(c))
            .map(|v| matches!(v.to_ascii_lowercase().as_str(), "true" | "yes" | "1" | "x"))
            .unwrap_or(false);
        let name = name_col.and_then(|c| rec.get(c)).unwrap_or("").to_string();
        out.push(Entrant {
            name,
            number,
            organizer,
        });
    }
    if out.iter().all(|e| e.organizer) {
        bail!("{}: no entrant other than the organizers", path.display());
    }
    Ok(out)
}

/// A seed computed by the rules' procedure, with what went into it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CompetitionSeed {
    /// The value for `srandom`.
    pub seed: u32,
    /// Entrants whose numbers were summed.
    pub entrants: usize,
    /// Organizers' rows left out.
    pub organizers: usize,
    /// Integer part of the NYSE Composite opening value.
    pub nyse: u64,
}

/// The seed from an entrants file and the NYSE opening value.
///
/// `modulo_first`: the `smtcomp` tool's formula ([`tool_seed`], 2024 on)
/// instead of the rules text's ([`competition_seed`]).
pub fn seed_from_entrants(
    path: &Path,
    nyse: &str,
    modulo_first: bool,
) -> anyhow::Result<CompetitionSeed> {
    let entrants = read_entrants(path)?;
    let numbers: Vec<u32> = entrants
        .iter()
        .filter(|e| !e.organizer)
        .map(|e| e.number)
        .collect();
    let (seed, nyse) = if modulo_first {
        let h = parse_nyse_hundredths(nyse)?;
        let seed = tool_seed(&numbers, h)
            .with_context(|| format!("--nyse {nyse:?}: the seed does not fit 32 bits"))?;
        (seed, h / 100)
    } else {
        let n = parse_nyse(nyse)?;
        (competition_seed(&numbers, n), n)
    };
    Ok(CompetitionSeed {
        seed,
        entrants: numbers.len(),
        organizers: entrants.len() - numbers.len(),
        nyse,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    /// `srandom`/`random` share process-wide state: one caller at a time.
    static LIBC_RANDOM: Mutex<()> = Mutex::new(());

    // The C library's generator (the libc crate does not bind these two).
    extern "C" {
        fn srandom(seed: libc::c_uint);
        fn random() -> libc::c_long;
    }

    fn libc_sequence(seed: u32, n: usize) -> Vec<u32> {
        let _guard = LIBC_RANDOM.lock().unwrap();
        // SAFETY: `srandom` and `random` take and return plain integers and
        // touch only the C library's generator state, which the guard above
        // keeps to one thread of this test binary at a time.
        unsafe {
            srandom(seed);
            (0..n).map(|_| random() as u32).collect()
        }
    }

    #[test]
    fn identical_to_the_c_library_for_many_seeds() {
        let mut seeds: Vec<u32> = (0..200).collect();
        seeds.extend([
            1 << 30,
            (1 << 30) - 1,
            0x7fff_ffff,
            0x8000_0000,
            0x8000_0001,
            0xdead_beef,
            u32::MAX,
            u32::MAX - 1,
            127_773,
            2_147_483_647 - 1,
        ]);
        let mut x: u32 = 12345;
        for _ in 0..300 {
            x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            seeds.push(x);
        }
        for seed in seeds {
            let ours: Vec<u32> = {
                let mut r = GlibcRandom::new(seed);
                (0..1000).map(|_| r.next_u31()).collect()
            };
            assert_eq!(ours, libc_sequence(seed, 1000), "seed {seed}");
        }
    }

    #[test]
    fn shuffle_is_fisher_yates_on_random() {
        let mut a: Vec<u32> = (0..10).collect();
        GlibcRandom::new(7).shuffle(&mut a);
        let mut expect: Vec<u32> = (0..10).collect();
        let seq = libc_sequence(7, 9);
        for (k, i) in (1..10usize).rev().enumerate() {
            expect.swap(i, seq[k] as usize % (i + 1));
        }
        assert_eq!(a, expect);
        let mut b: Vec<u32> = (0..10).collect();
        GlibcRandom::new(8).shuffle(&mut b);
        assert_ne!(a, b);
    }

    #[test]
    fn seed_is_the_sum_modulo_2_30() {
        assert_eq!(competition_seed(&[1, 2, 3], 10_000), 10_006);
        assert_eq!(
            competition_seed(&[u32::MAX, u32::MAX], 12_345),
            ((2 * u32::MAX as u64 + 12_345) % (1 << 30)) as u32
        );
        assert_eq!(parse_nyse("10,523.97").unwrap(), 10_523);
        assert_eq!(parse_nyse(" 9876 ").unwrap(), 9_876);
        assert!(parse_nyse("-3").is_err());
        assert!(parse_nyse("abc").is_err());
    }

    #[test]
    fn entrants_file_excludes_organizers() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("entrants.csv");
        std::fs::write(
            &p,
            "solver,Number,organizer\nA,4294967295,no\nB,17,\nOrg,1000,yes\n",
        )
        .unwrap();
        let e = read_entrants(&p).unwrap();
        assert_eq!(e.len(), 3);
        assert!(e[2].organizer);
        let seed = seed_from_entrants(&p, "11000.5", false).unwrap();
        assert_eq!((seed.entrants, seed.organizers, seed.nyse), (2, 1, 11_000));
        assert_eq!(
            seed.seed as u64,
            (4_294_967_295u64 + 17 + 11_000) % (1 << 30)
        );
        std::fs::write(&p, "solver,number\nA,-1\n").unwrap();
        let err = read_entrants(&p).unwrap_err().to_string();
        assert!(err.contains(":2:"), "{err}");
        std::fs::write(&p, "solver,magic\nA,1\n").unwrap();
        assert!(read_entrants(&p).is_ok());
        std::fs::write(&p, "solver,value\nA,1\n").unwrap();
        assert!(read_entrants(&p).is_err());
    }

    #[test]
    fn the_tool_takes_the_modulo_before_the_index() {
        let numbers = [(1u32 << 30) - 1, 5];
        assert_eq!(parse_nyse_hundredths("10,523.456").unwrap(), 1_052_345);
        assert_eq!(parse_nyse_hundredths("10523.4").unwrap(), 1_052_340);
        assert_eq!(parse_nyse_hundredths("10523").unwrap(), 1_052_300);
        // (2^30 - 1 + 5) mod 2^30 = 4, then + 1052345
        assert_eq!(tool_seed(&numbers, 1_052_345), Some(1_052_349));
        // the rules text: (sum + 10523) mod 2^30
        assert_eq!(competition_seed(&numbers, 10523), 10527);
    }
}
