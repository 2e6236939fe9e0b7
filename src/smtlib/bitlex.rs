//! A second lexer for the commonest commands, those without string
//! literals, quoted symbols and comments: it classifies the whole command
//! 16 bytes at a time into bitmaps, then walks the tokens with bit
//! operations.
//!
//! The byte-at-a-time [`Lexer`](super::lexer::Lexer) finds where a token
//! starts by reading the byte after the previous one, a chain of dependent
//! loads and branches on every token; here every token start is known
//! before the first one is returned, so the CPU overlaps the work of
//! consecutive tokens. The scrambler renames every token of every
//! assertion, so this is its inner loop.
//!
//! [`BitLexer::new`] returns `None` when the command holds `"`, `|` or `;`
//! (the caller then uses the byte lexer); otherwise its tokens are exactly
//! the byte lexer's (a test compares both).

use super::token::{Token, TokenKind};
use crate::smtlib::OffsetError;

/// Reusable bitmaps of one command: bit k of word k / 64 is byte k.
#[derive(Default)]
pub struct Bitmaps {
    /// Bytes inside a symbol, keyword or literal.
    atom: Vec<u64>,
    /// Bytes where a token starts.
    starts: Vec<u64>,
}

/// The tokens of one command, from its [`Bitmaps`].
#[derive(Clone)]
pub struct BitLexer<'a> {
    src: &'a [u8],
    atom: &'a [u64],
    starts: &'a [u64],
    /// Word being walked and its token starts not yet returned.
    word: usize,
    pending: u64,
}

impl<'a> BitLexer<'a> {
    /// Classify `src` into `maps`; `None` when `src` holds a string
    /// literal, a quoted symbol or a comment.
    pub fn new(src: &'a [u8], maps: &'a mut Bitmaps) -> Option<Self> {
        // One word more than the bytes need: the padding after the last
        // byte is white space, so every atom ends inside the maps.
        let words = src.len() / 64 + 1;
        maps.atom.clear();
        maps.starts.clear();
        maps.atom.reserve(words);
        maps.starts.reserve(words);
        let mut carry = 0u64; // whether the previous byte was in an atom
        for w in 0..words {
            let from = w * 64;
            let (mut white, mut paren, mut special) = (0u64, 0u64, 0u64);
            for q in 0..4 {
                let at = from + q * 16;
                let (wh, pa, sp) = if at + 16 <= src.len() {
                    classify(src[at..at + 16].try_into().unwrap())
                } else {
                    // The tail, padded with spaces.
                    let mut chunk = [b' '; 16];
                    if at < src.len() {
                        chunk[..src.len() - at].copy_from_slice(&src[at..]);
                    }
                    classify(&chunk)
                };
                white |= (wh as u64) << (q * 16);
                paren |= (pa as u64) << (q * 16);
                special |= (sp as u64) << (q * 16);
            }
            if special != 0 {
                return None;
            }
            let atom = !(white | paren);
            let starts = paren | (atom & !((atom << 1) | carry));
            carry = atom >> 63;
            maps.atom.push(atom);
            maps.starts.push(starts);
        }
        let maps: &'a Bitmaps = maps;
        Some(BitLexer {
            src,
            atom: &maps.atom,
            starts: &maps.starts,
            word: 0,
            pending: maps.starts[0],
        })
    }

    /// The first byte after position `start` that is not in an atom.
    #[inline]
    fn atom_end(&self, start: usize) -> usize {
        let (mut w, bit) = (start / 64, start % 64);
        let mut outside = !self.atom[w] & (!0u64 << bit);
        while outside == 0 {
            w += 1;
            outside = !self.atom[w];
        }
        w * 64 + outside.trailing_zeros() as usize
    }
}

impl Iterator for BitLexer<'_> {
    type Item = Result<Token, OffsetError>;

    #[inline(always)]
    fn next(&mut self) -> Option<Self::Item> {
        while self.pending == 0 {
            self.word += 1;
            self.pending = *self.starts.get(self.word)?;
        }
        let start = self.word * 64 + self.pending.trailing_zeros() as usize;
        self.pending &= self.pending - 1;
        let (kind, end) = match self.src[start] {
            b'(' => (TokenKind::Open, start + 1),
            b')' => (TokenKind::Close, start + 1),
            b => {
                let kind = match b {
                    b':' => TokenKind::Keyword,
                    b'#' | b'0'..=b'9' => TokenKind::Literal,
                    _ => TokenKind::Symbol,
                };
                (kind, self.atom_end(start))
            }
        };
        Some(Ok(Token { kind, start, end }))
    }
}

/// (white space, parentheses, `"`/`|`/`;`) bits of 16 bytes. SSE2 on
/// x86_64 (always present there), a byte loop elsewhere.
#[inline(always)]
pub(super) fn classify(chunk: &[u8; 16]) -> (u32, u32, u32) {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: the 16 bytes of `chunk` are readable.
        unsafe { sse2::classify(chunk.as_ptr()) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let (mut w, mut p, mut s) = (0, 0, 0);
        for (k, &b) in chunk.iter().enumerate() {
            w |= (super::token::is_whitespace(b) as u32) << k;
            p |= (matches!(b, b'(' | b')') as u32) << k;
            s |= (matches!(b, b'"' | b'|' | b';') as u32) << k;
        }
        (w, p, s)
    }
}

#[cfg(target_arch = "x86_64")]
mod sse2 {
    use std::arch::x86_64::*;

    /// # Safety
    /// `p` must point to 16 readable bytes.
    #[inline(always)]
    pub(super) unsafe fn classify(p: *const u8) -> (u32, u32, u32) {
        let v = _mm_loadu_si128(p.cast());
        let set = |b: u8| _mm_set1_epi8(b as i8);
        // \t \n \v \f \r are 9..=13: v − 9 ≤ 4 unsigned; and the space.
        let t = _mm_sub_epi8(v, set(9));
        let ctl = _mm_cmpeq_epi8(_mm_min_epu8(t, set(4)), t);
        let white = _mm_or_si128(ctl, _mm_cmpeq_epi8(v, set(b' ')));
        // '(' 0x28 and ')' 0x29.
        let paren = _mm_cmpeq_epi8(_mm_and_si128(v, set(0xfe)), set(0x28));
        let special = _mm_or_si128(
            _mm_cmpeq_epi8(v, set(b'"')),
            _mm_or_si128(_mm_cmpeq_epi8(v, set(b'|')), _mm_cmpeq_epi8(v, set(b';'))),
        );
        (
            _mm_movemask_epi8(white) as u32,
            _mm_movemask_epi8(paren) as u32,
            _mm_movemask_epi8(special) as u32,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::smtlib::lexer::Lexer;

    fn same_tokens(src: &[u8]) {
        let mut maps = Bitmaps::default();
        let special = src.iter().any(|b| matches!(b, b'"' | b'|' | b';'));
        match BitLexer::new(src, &mut maps) {
            None => assert!(special, "{:?}", String::from_utf8_lossy(src)),
            Some(bits) => {
                assert!(!special);
                let a: Vec<_> = bits.collect();
                let b: Vec<_> = Lexer::new(src).collect();
                assert_eq!(a, b, "{:?}", String::from_utf8_lossy(src));
            }
        }
    }

    #[test]
    fn agrees_with_the_byte_lexer() {
        same_tokens(b"");
        same_tokens(b"(assert (or (> (+ v1 (* 3 v2)) 56) (= v7 #b01) (not (<= x (- 5.0)))))");
        same_tokens(b"(assert (! (f x) :named n))");
        same_tokens(b"(assert |q|)");
        same_tokens(b"(assert \"s\")");
        same_tokens(b"(assert x) ; c");
        same_tokens(b"\t(\x0b a\r\n)\x0c");
        // Atoms across word boundaries and at the very end.
        for n in [1, 15, 16, 17, 62, 63, 64, 65, 127, 128, 129, 300] {
            let long = "a".repeat(n);
            same_tokens(format!("(f {long} {long})").as_bytes());
            same_tokens(format!("({long}").as_bytes());
            same_tokens(long.as_bytes());
            same_tokens(format!("{long})").as_bytes());
        }
    }

    #[test]
    fn agrees_on_random_bytes() {
        // Random strings over a small alphabet that covers every class.
        let alphabet = b"( )\t\n\r\x0b\x0cab:#0x_\x01\xff";
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        for _ in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let len = (x % 200) as usize;
            let mut y = x;
            let src: Vec<u8> = (0..len)
                .map(|_| {
                    y = y
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    alphabet[(y >> 33) as usize % alphabet.len()]
                })
                .collect();
            same_tokens(&src);
        }
    }
}
