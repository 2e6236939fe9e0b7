//! The scanner's structure found 64 bytes at a time with bitmasks (as
//! simdjson does), for naming at disk speed: [`Blocks`] classifies each
//! block once into masks (parentheses, `"`, `|`, `;`, newlines, `:`, white
//! space), works out which bytes lie inside string literals, quoted symbols
//! and comments (carried across blocks), and finds where each top-level
//! command closes from the depth, counting only the parentheses outside
//! them. Commands come out as [`Span`]s of the caller's buffer, with what
//! [`super::Command`] would record about them (`has_comment`,
//! `depth1_end`, line and column); no byte is copied.
//!
//! It is the same grammar as [`super::Scanner`]'s, and it stops rather than
//! guess: at the first byte between commands that is neither white space
//! nor part of a comment ([`Blocks::stopped`]); the caller then hands the
//! rest to the byte scanner, whose errors it does not repeat.

/// A top-level command found in the buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    /// Absolute offset of its `(`.
    pub start: u64,
    /// Absolute offset one past its final `)`.
    pub end: u64,
    /// 1-based line and byte column of its `(`.
    pub line: u64,
    pub column: u64,
    /// A `;` comment inside it ([`super::Command::has_comment`]).
    pub has_comment: bool,
    /// A `:` byte anywhere in it (strings and comments included).
    pub colon: bool,
    /// [`super::Command::depth1_end`]: just after the last `)` that closed
    /// an argument, relative to `start`; 0 if none.
    pub depth1_end: usize,
}

/// What encloses the current byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Region {
    Code,
    Str,
    Quoted,
    Comment,
}

/// The masks of one block: bit k is byte k.
#[derive(Clone, Copy, Default)]
struct Masks {
    open: u64,
    close: u64,
    quote: u64,
    bar: u64,
    semi: u64,
    newline: u64,
    colon: u64,
    white: u64,
}

/// The block scanner's state between blocks; see the module documentation.
pub struct Blocks {
    region: Region,
    depth: u64,
    /// Inside a command (`depth` ≥ 1).
    in_cmd: bool,
    /// The open command: its start, line and column, flags so far, and the
    /// last parenthesis outside strings, symbols and comments seen in it
    /// (absolute offset, whether it was `)`).
    cmd: Span,
    last_paren: (u64, bool),
    /// Line and absolute start of the line at the next block.
    line: u64,
    line_start: u64,
    /// Where a byte between commands was found that only the byte scanner
    /// can judge (absolute offset).
    stop: Option<u64>,
    /// The CPU has `popcnt`, `lzcnt`, BMI and AVX2.
    bits: bool,
    /// ... and AVX-512 (F and BW): a block is one vector.
    wide512: bool,
}

impl Default for Blocks {
    fn default() -> Self {
        Self::new()
    }
}

/// Bits at and above `p` (none for `p` ≥ 64).
#[inline(always)]
fn from(p: u32) -> u64 {
    if p >= 64 {
        0
    } else {
        !0u64 << p
    }
}

/// Bits below `p`.
#[inline(always)]
fn below(p: u32) -> u64 {
    !from(p)
}

/// Bit k set when an odd number of bits of `x` are at or below k.
#[inline(always)]
fn prefix_xor(mut x: u64) -> u64 {
    x ^= x << 1;
    x ^= x << 2;
    x ^= x << 4;
    x ^= x << 8;
    x ^= x << 16;
    x ^= x << 32;
    x
}

/// Position of the `n`-th (0-based) set bit of `x`, which has more than `n`;
/// with `pdep` (BMI2) where `bits` says the CPU has it.
#[inline(always)]
fn select(mut x: u64, n: u64, bits: bool) -> u32 {
    #[cfg(target_arch = "x86_64")]
    if bits {
        // SAFETY: `bits` is only set where the CPU has BMI2.
        return unsafe { std::arch::x86_64::_pdep_u64(1 << n, x) }.trailing_zeros();
    }
    let _ = bits;
    for _ in 0..n {
        x &= x - 1;
    }
    x.trailing_zeros()
}

impl Blocks {
    pub fn new() -> Self {
        Blocks {
            region: Region::Code,
            depth: 0,
            in_cmd: false,
            cmd: Span {
                start: 0,
                end: 0,
                line: 0,
                column: 0,
                has_comment: false,
                colon: false,
                depth1_end: 0,
            },
            last_paren: (0, false),
            line: 1,
            line_start: 0,
            stop: None,
            #[cfg(target_arch = "x86_64")]
            bits: std::arch::is_x86_feature_detected!("popcnt")
                && std::arch::is_x86_feature_detected!("lzcnt")
                && std::arch::is_x86_feature_detected!("bmi1")
                && std::arch::is_x86_feature_detected!("bmi2")
                && std::arch::is_x86_feature_detected!("avx2"),
            #[cfg(not(target_arch = "x86_64"))]
            bits: false,
            #[cfg(target_arch = "x86_64")]
            wide512: std::arch::is_x86_feature_detected!("avx512f")
                && std::arch::is_x86_feature_detected!("avx512bw"),
            #[cfg(not(target_arch = "x86_64"))]
            wide512: false,
        }
    }

    /// The offset of a byte between commands that the byte scanner must
    /// judge (an error, in fact); no block may follow.
    pub fn stopped(&self) -> Option<u64> {
        self.stop
    }

    /// The line at the next block.
    pub fn line(&self) -> u64 {
        self.line
    }

    /// A scanner for the input from the start of line `line` at absolute
    /// offset `line_start` on (a scan again from a command's start).
    pub fn at_line(line: u64, line_start: u64) -> Self {
        Blocks {
            line,
            line_start,
            ..Blocks::new()
        }
    }

    /// The command still open after the blocks scanned (`end` not set yet,
    /// `colon` and `has_comment` so far), and its depth there.
    pub fn open_command(&self) -> Option<(Span, u64)> {
        self.in_cmd.then_some((self.cmd, self.depth))
    }

    /// Whether the input may end here: no command, string, symbol or
    /// comment is open.
    pub fn at_rest(&self) -> bool {
        !self.in_cmd && self.region == Region::Code && self.stop.is_none()
    }

    /// Scan the whole 64-byte blocks of `bytes` (at absolute offset `at`),
    /// pushing every command that closes in them onto `out`; returns the
    /// bytes scanned: all the whole blocks, or up to the block where the
    /// scanner stopped.
    pub fn scan_all(&mut self, bytes: &[u8], at: u64, out: &mut Vec<Span>) -> usize {
        #[cfg(target_arch = "x86_64")]
        if self.bits && self.wide512 {
            // SAFETY: the CPU has the features (checked in `new`).
            return unsafe { self.scan_all_512(bytes, at, out) };
        }
        #[cfg(target_arch = "x86_64")]
        if self.bits {
            // SAFETY: the CPU has the features (checked in `new`).
            return unsafe { self.scan_all_bits(bytes, at, out) };
        }
        self.scan_all_any(bytes, at, out, Simd::None)
    }

    /// [`Blocks::scan_all_bits`] with a block classified as one 64-byte
    /// vector (AVX-512 BW). SAFETY: callers check the CPU has these features.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "popcnt,lzcnt,bmi1,bmi2,avx2,avx512f,avx512bw")]
    unsafe fn scan_all_512(&mut self, bytes: &[u8], at: u64, out: &mut Vec<Span>) -> usize {
        self.scan_all_any(bytes, at, out, Simd::Avx512)
    }

    /// [`Blocks::scan_all`] with the bit instructions (`popcnt`, `lzcnt`,
    /// `tzcnt`) instead of their portable sequences, and 32-byte vectors.
    /// SAFETY: callers check the CPU has these features.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "popcnt,lzcnt,bmi1,bmi2,avx2")]
    unsafe fn scan_all_bits(&mut self, bytes: &[u8], at: u64, out: &mut Vec<Span>) -> usize {
        self.scan_all_any(bytes, at, out, Simd::Avx2)
    }

    #[inline(always)]
    fn scan_all_any(&mut self, bytes: &[u8], at: u64, out: &mut Vec<Span>, simd: Simd) -> usize {
        let mut i = 0;
        while i + 64 <= bytes.len() {
            let block: &[u8; 64] = bytes[i..i + 64].try_into().expect("64 bytes");
            self.scan_block(block, at + i as u64, out, simd);
            if self.stop.is_some() {
                break;
            }
            i += 64;
        }
        i
    }

    /// Scan the 64 bytes `block`, at absolute offset `at`, pushing every
    /// command that closes in it onto `out`. Past the end of the input, a
    /// block is padded with spaces.
    pub fn scan(&mut self, block: &[u8; 64], at: u64, out: &mut Vec<Span>) {
        self.scan_all(block, at, out);
    }

    #[inline(always)]
    fn scan_block(&mut self, block: &[u8; 64], at: u64, out: &mut Vec<Span>, simd: Simd) {
        if self.stop.is_some() {
            return;
        }
        let wide = simd != Simd::None;
        let m = classify(block, simd);
        let (inside, comment) = self.regions(&m);
        let open = m.open & !inside;
        let close = m.close & !inside;
        let mut p = 0u32;
        loop {
            if !self.in_cmd {
                let opens = open & from(p);
                let upto = if opens == 0 {
                    !0
                } else {
                    below(opens.trailing_zeros())
                };
                let bad = upto & from(p) & !m.white & !comment;
                if bad != 0 {
                    self.stop = Some(at + bad.trailing_zeros() as u64);
                    return;
                }
                if opens == 0 {
                    break;
                }
                let k = opens.trailing_zeros();
                let nl = m.newline & below(k);
                let (line, line_start) = if nl == 0 {
                    (self.line, self.line_start)
                } else {
                    let last = 63 - nl.leading_zeros() as u64;
                    (self.line + nl.count_ones() as u64, at + last + 1)
                };
                let start = at + k as u64;
                self.cmd = Span {
                    start,
                    end: 0,
                    line,
                    column: start - line_start + 1,
                    has_comment: false,
                    colon: false,
                    depth1_end: 0,
                };
                self.last_paren = (start, false);
                self.in_cmd = true;
                self.depth = 1;
                p = k + 1;
            }
            // Inside a command from bit p with depth `self.depth`: the
            // command closes at the first `)` where the depth reaches 0,
            // at the earliest the depth-th `)` from here.
            let (mut opens, mut closes) = (open & from(p), close & from(p));
            let mut d = self.depth;
            let closed = loop {
                if (closes.count_ones() as u64) < d {
                    break None;
                }
                let k = select(closes, d - 1, wide);
                let upto = below(k + 1);
                let after =
                    d + (opens & upto).count_ones() as u64 - (closes & upto).count_ones() as u64;
                if after == 0 {
                    break Some(k);
                }
                d = after;
                opens &= from(k + 1);
                closes &= from(k + 1);
            };
            let Some(k) = closed else {
                // Still open at the end of the block.
                let span = from(p);
                self.depth += (open & span).count_ones() as u64;
                self.depth -= (close & span).count_ones() as u64;
                self.note(&m, comment, span, open | close, at);
                break;
            };
            let span = from(p) & below(k);
            self.note(&m, comment, span, open | close, at);
            // Field by field: a copy of `self.cmd` just after these stores
            // would wait for them.
            let c = &self.cmd;
            out.push(Span {
                start: c.start,
                end: at + k as u64 + 1,
                line: c.line,
                column: c.column,
                has_comment: c.has_comment,
                colon: c.colon,
                depth1_end: match self.last_paren {
                    (pos, true) => (pos + 1 - c.start) as usize,
                    _ => 0,
                },
            });
            self.in_cmd = false;
            self.depth = 0;
            p = k + 1;
        }
        self.line += m.newline.count_ones() as u64;
        if m.newline != 0 {
            self.line_start = at + 64 - m.newline.leading_zeros() as u64;
        }
    }

    /// Record the bytes `span` of the open command: comments, colons, and
    /// its last parenthesis.
    #[inline(always)]
    fn note(&mut self, m: &Masks, comment: u64, span: u64, parens: u64, at: u64) {
        let c = &mut self.cmd;
        c.has_comment |= comment & span != 0;
        c.colon |= m.colon & span != 0;
        let p = parens & span;
        if p != 0 {
            let k = 63 - p.leading_zeros();
            self.last_paren = (at + k as u64, m.close >> k & 1 != 0);
        }
    }

    /// The bytes of the block inside strings, quoted symbols and comments
    /// (delimiters included), and those of comments alone (from the `;` to
    /// the end of the line); the region open at the block's end is kept.
    #[inline(always)]
    fn regions(&mut self, m: &Masks) -> (u64, u64) {
        let specials = m.quote | m.bar | m.semi;
        if specials == 0 && self.region == Region::Code {
            return (0, 0);
        }
        // One kind of delimiter (`|` or `"`): its regions alternate, and
        // comments start at the `;` outside them, unless a delimiter falls
        // inside a comment (then the general loop below decides).
        if self.region != Region::Comment {
            let single = if m.quote == 0 && self.region != Region::Str {
                Some((m.bar, Region::Quoted))
            } else if m.bar == 0 && self.region != Region::Quoted {
                Some((m.quote, Region::Str))
            } else {
                None
            };
            if let Some((delims, kind)) = single {
                let mut x = prefix_xor(delims);
                if self.region == kind {
                    x = !x;
                }
                let quoted = x | delims;
                let mut end = if x >> 63 & 1 != 0 { kind } else { Region::Code };
                let mut semis = m.semi & !quoted;
                let mut comment = 0u64;
                while semis != 0 {
                    let k = semis.trailing_zeros();
                    let nl = m.newline & from(k + 1);
                    if nl == 0 {
                        comment |= from(k);
                        end = Region::Comment;
                        break;
                    }
                    let j = nl.trailing_zeros();
                    comment |= from(k) & below(j);
                    semis &= from(j + 1);
                }
                if delims & comment == 0 {
                    self.region = end;
                    return (quoted | comment, comment);
                }
            }
        }
        let (mut inside, mut comment) = (0u64, 0u64);
        let mut start = 0u32;
        let mut p = 0u32;
        loop {
            if self.region == Region::Code {
                let s = specials & from(p);
                if s == 0 {
                    break;
                }
                let k = s.trailing_zeros();
                let bit = 1u64 << k;
                self.region = if m.quote & bit != 0 {
                    Region::Str
                } else if m.bar & bit != 0 {
                    Region::Quoted
                } else {
                    Region::Comment
                };
                start = k;
                p = k + 1;
            }
            let closer = match self.region {
                Region::Str => m.quote,
                Region::Quoted => m.bar,
                _ => m.newline,
            } & from(p);
            let is_comment = self.region == Region::Comment;
            if closer == 0 {
                inside |= from(start);
                if is_comment {
                    comment |= from(start);
                }
                break;
            }
            let k = closer.trailing_zeros();
            inside |= from(start) & below(k + 1);
            if is_comment {
                comment |= from(start) & below(k);
            }
            self.region = Region::Code;
            p = k + 1;
        }
        (inside, comment)
    }
}

/// `[f(b'('), f(b')'), …]` over the bytes of [`Masks`]' fields `open` to
/// `colon`, in their order. A macro, not `array::map`: a closure called
/// through `map` is not inlined into the vector code and loses its
/// instruction set (3–5× slower).
#[cfg(target_arch = "x86_64")]
macro_rules! classes {
    ($f:expr) => {
        [
            $f(b'('),
            $f(b')'),
            $f(b'"'),
            $f(b'|'),
            $f(b';'),
            $f(b'\n'),
            $f(b':'),
        ]
    };
}

impl Masks {
    /// The masks of the bytes of `classes!`, and of white space.
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    fn of(eq: [u64; 7], white: u64) -> Masks {
        let [open, close, quote, bar, semi, newline, colon] = eq;
        Masks {
            open,
            close,
            quote,
            bar,
            semi,
            newline,
            colon,
            white,
        }
    }
}

/// The vector instructions a scan may use (the CPU has them).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Simd {
    None,
    Avx2,
    Avx512,
}

/// The masks of one block: AVX-512 or AVX2 where `simd` says the CPU has
/// them, a byte loop elsewhere.
#[inline(always)]
fn classify(block: &[u8; 64], simd: Simd) -> Masks {
    let mut m = Masks::default();
    #[cfg(target_arch = "x86_64")]
    if simd == Simd::Avx512 {
        // SAFETY: the 64 bytes of `block` are readable, and `simd` is
        // only `Avx512` where the CPU has AVX-512 F and BW.
        let (eq, white) = unsafe { avx512::classify(block.as_ptr()) };
        return Masks::of(eq, white);
    }
    #[cfg(target_arch = "x86_64")]
    if simd == Simd::Avx2 {
        // SAFETY: the 32 bytes at block[0] and at block[32] are readable,
        // and `simd` is only `Avx2` where the CPU has AVX2.
        let ((lo, lo_white), (hi, hi_white)) = unsafe {
            let p = block.as_ptr();
            (avx2::classify(p), avx2::classify(p.add(32)))
        };
        let mut eq = [0u64; 7];
        for (k, e) in eq.iter_mut().enumerate() {
            *e = lo[k] as u64 | (hi[k] as u64) << 32;
        }
        return Masks::of(eq, lo_white as u64 | (hi_white as u64) << 32);
    }
    for (k, &b) in block.iter().enumerate() {
        let bit = 1u64 << k;
        match b {
            b'(' => m.open |= bit,
            b')' => m.close |= bit,
            b'"' => m.quote |= bit,
            b'|' => m.bar |= bit,
            b';' => m.semi |= bit,
            b':' => m.colon |= bit,
            b'\n' => m.newline |= bit,
            _ => {}
        }
        if crate::smtlib::lexer::is_whitespace(b) {
            m.white |= bit;
        }
    }
    m
}

#[cfg(target_arch = "x86_64")]
mod avx512 {
    use std::arch::x86_64::*;

    /// The masks of 64 bytes, as [`super::avx2::classify`]'s.
    ///
    /// # Safety
    /// `p` must point to 64 readable bytes, and the CPU must have AVX-512
    /// F and BW.
    #[inline(always)]
    pub(super) unsafe fn classify(p: *const u8) -> ([u64; 7], u64) {
        let v = _mm512_loadu_si512(p.cast());
        let set = |b: u8| _mm512_set1_epi8(b as i8);
        let eq = |b: u8| _mm512_cmpeq_epi8_mask(v, set(b));
        let ctl = _mm512_cmple_epu8_mask(_mm512_sub_epi8(v, set(9)), set(4));
        (classes!(eq), ctl | eq(b' '))
    }
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use std::arch::x86_64::*;

    /// The masks of 32 bytes: `(`, `)`, `"`, `|`, `;`, newline, `:`, white
    /// space (\t \n \v \f \r are 9..=13: v − 9 ≤ 4 unsigned; and the
    /// space).
    ///
    /// # Safety
    /// `p` must point to 32 readable bytes, and the CPU must have AVX2.
    #[inline(always)]
    pub(super) unsafe fn classify(p: *const u8) -> ([u32; 7], u32) {
        let v = _mm256_loadu_si256(p.cast());
        let set = |b: u8| _mm256_set1_epi8(b as i8);
        let eq = |b: u8| _mm256_movemask_epi8(_mm256_cmpeq_epi8(v, set(b))) as u32;
        let t = _mm256_sub_epi8(v, set(9));
        let ctl = _mm256_cmpeq_epi8(_mm256_min_epu8(t, set(4)), t);
        let space = _mm256_cmpeq_epi8(v, set(b' '));
        let white = _mm256_movemask_epi8(_mm256_or_si256(ctl, space)) as u32;
        (classes!(eq), white)
    }
}

#[cfg(test)]
mod tests;
