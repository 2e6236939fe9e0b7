//! Randomness for the fuzz bodies: [`Source`] turns a fuzzer's bytes into
//! choices for the structured generators (so libFuzzer's mutations steer
//! them), and [`Rng`] with [`mutate`] drives the stable smoke test, which has
//! no fuzzer: it feeds PRNG bytes to the same generators and mutates seeds.

/// Choices read from fuzz input; once the bytes run out every choice is 0,
/// so a generator always terminates.
pub struct Source<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Source<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        Source { data, pos: 0 }
    }

    pub fn byte(&mut self) -> u8 {
        let b = self.data.get(self.pos).copied().unwrap_or(0);
        self.pos += 1;
        b
    }

    /// A number in `0..n` (`n > 0`), 0 once the input is exhausted.
    pub fn below(&mut self, n: usize) -> usize {
        let v = if n <= 256 {
            self.byte() as usize
        } else {
            (self.byte() as usize) << 8 | self.byte() as usize
        };
        v % n
    }

    /// True with probability `p`/256 (never once the input is exhausted).
    pub fn chance(&mut self, p: u8) -> bool {
        self.pos < self.data.len() && self.byte() < p
    }

    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }
}

/// splitmix64: tiny, seedable, good enough to pick mutations.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    pub fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next_u64() as u8).collect()
    }
}

/// Tokens that matter to SMT-LIB scanners, solver-output parsers and CSV
/// readers; mutations splice them in.
pub const DICT: &[&[u8]] = &[
    b"(",
    b")",
    b"\"",
    b"\"\"",
    b"|",
    b";",
    b"\n",
    b"\r",
    b"\r\n",
    b"\0",
    b"\x0b",
    b"\x0c",
    b" ",
    b"\t",
    b",",
    b"\xff",
    b"\xc3\xa9",
    b"(assert ",
    b"(! ",
    b":named ",
    b":pattern ",
    b"cv1",
    b"|cv2|",
    b"(get-unsat-core)",
    b"(set-option :produce-unsat-cores true)",
    b"unsat\n",
    b"sat\n",
    b"unknown\n",
    b"(error \"",
    b"\")\n",
    b"success\n",
    b"[btorsmt2] WARNING ",
    b"f.smt2:3: ",
    b"true",
    b"false",
    b"-",
    b"1.5",
    b"S/QF_LIA/f/a.smt2",
    b"REVISED_",
];

/// One random edit of `input`; `other` is spliced from.
pub fn mutate(rng: &mut Rng, input: &[u8], other: &[u8]) -> Vec<u8> {
    let mut v = input.to_vec();
    let edits = 1 + rng.below(4);
    for _ in 0..edits {
        let at = if v.is_empty() {
            0
        } else {
            rng.below(v.len() + 1)
        };
        match rng.below(8) {
            0 if !v.is_empty() => {
                let i = rng.below(v.len());
                v[i] ^= 1 << rng.below(8);
            }
            1 | 2 => {
                let t = DICT[rng.below(DICT.len())];
                v.splice(at..at, t.iter().copied());
            }
            3 if !v.is_empty() => {
                let end = (at + 1 + rng.below(16)).min(v.len());
                v.drain(at.min(end)..end);
            }
            4 if !v.is_empty() => {
                let start = rng.below(v.len());
                let end = (start + 1 + rng.below(64)).min(v.len());
                let piece = v[start..end].to_vec();
                v.splice(at..at, piece);
            }
            5 => v.truncate(at),
            6 if !other.is_empty() => {
                let start = rng.below(other.len());
                let end = (start + 1 + rng.below(256)).min(other.len());
                v.splice(at..at, other[start..end].iter().copied());
            }
            _ => {
                let n = 1 + rng.below(8);
                let junk = rng.bytes(n);
                v.splice(at..at, junk);
            }
        }
    }
    v
}
