//! The scanner's fast path inside a command: a chunk of bytes at a time,
//! for the common case where the bytes only move the depth and count lines.
//!
//! A chunk is skipped as a whole when it holds no `"`, `|` or `;` (which
//! change the scanner's state) and no `)` brings the depth down to 1 (where
//! an argument ends) or 0 (the end of the command); the depth, the maximum
//! depth and the line count are updated for it. Otherwise the scanner's
//! byte loop takes that chunk.
//!
//! Two versions: SSE2 on x86_64 (always present there), 16-byte chunks, with
//! prefix sums in the vector; and a portable one, 8-byte chunks in a `u64`
//! (SWAR), where the depth after each byte comes from one multiplication:
//! with `b` = 1 + opens − closes per byte (0, 1 or 2), `b · 0x0101…01` holds
//! the running sums. The portable one is more careful: it leaves to the
//! byte loop any chunk with a byte at depth ≤ 1 or a new maximum depth.

const L: u64 = 0x0101_0101_0101_0101;
const H: u64 = 0x8080_8080_8080_8080;
/// Byte k holds 7 − k: with it, byte k of the running sum becomes
/// (depth change after byte k) + 8, never negative.
const BIAS: u64 = 0x0001_0203_0405_0607;

/// 0x80 in each byte of `w` equal to `c`, exactly (no borrow between bytes).
#[inline(always)]
fn eq_mask(w: u64, c: u8) -> u64 {
    let x = w ^ (L * c as u64);
    !(((x & !H).wrapping_add(!H)) | x) & H
}

/// True when some byte of `w` equals `c` (may misplace, never misses).
#[inline(always)]
fn has_byte(w: u64, c: u8) -> bool {
    let x = w ^ (L * c as u64);
    x.wrapping_sub(L) & !x & H != 0
}

/// Skip whole chunks of `buf[i..end]`; returns where the byte loop must take
/// over (a chunk that needs it, or fewer bytes left than a chunk). `depth`,
/// `line` and `line_start` (absolute, `base` is the offset of `buf[0]`) are
/// updated for the bytes skipped. SSE2 (16-byte chunks) on x86_64, where it
/// is always present; portable `u64` arithmetic elsewhere.
#[inline]
#[allow(clippy::too_many_arguments)]
pub(super) fn skip(
    buf: &[u8],
    i: usize,
    end: usize,
    depth: &mut u64,
    max_depth: &mut u64,
    line: &mut u64,
    line_start: &mut u64,
    base: u64,
) -> usize {
    #[cfg(target_arch = "x86_64")]
    {
        sse2::skip(buf, i, end, depth, max_depth, line, line_start, base)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        skip_u64(buf, i, end, depth, *max_depth, line, line_start, base)
    }
}

/// [`skip`] with 8-byte chunks in a `u64`.
#[inline]
#[allow(clippy::too_many_arguments, dead_code)]
fn skip_u64(
    buf: &[u8],
    mut i: usize,
    end: usize,
    depth: &mut u64,
    max_depth: u64,
    line: &mut u64,
    line_start: &mut u64,
    base: u64,
) -> usize {
    let mut d = *depth;
    while i + 8 <= end {
        let w = u64::from_le_bytes(buf[i..i + 8].try_into().expect("8 bytes"));
        if has_byte(w, b'"') || has_byte(w, b'|') || has_byte(w, b';') {
            break;
        }
        let open = eq_mask(w, b'(');
        let close = eq_mask(w, b')');
        if open | close != 0 {
            let b = (open >> 7) + L - (close >> 7);
            let q = b.wrapping_mul(L).wrapping_add(BIAS);
            // Depth + change ≤ 1 somewhere ⇔ some byte of q < 10 − depth.
            if d < 10 {
                let t = 10 - d;
                if q.wrapping_add(L * (0x80 - t)) & H != H {
                    break;
                }
            }
            // Deeper than ever ⇔ some byte of q ≥ max − depth + 9.
            let t = max_depth - d + 9;
            if t <= 24 && q.wrapping_add(L * (0x80 - t)) & H != 0 {
                break;
            }
            d = d + (q >> 56) - 8;
        }
        let nl = eq_mask(w, b'\n');
        if nl != 0 {
            *line += nl.count_ones() as u64;
            let last = (63 - nl.leading_zeros()) / 8;
            *line_start = base + (i + last as usize) as u64 + 1;
        }
        i += 8;
    }
    *depth = d;
    i
}

#[cfg(target_arch = "x86_64")]
mod sse2 {
    use std::arch::x86_64::*;

    /// The depth change over a 16-byte chunk, its lowest value right after a
    /// `)` and its highest right after a `(` (±100 when there is none),
    /// from prefix sums in the vector (four shifted additions).
    ///
    /// # Safety
    /// SSE2 only, part of the x86_64 baseline.
    #[inline(always)]
    unsafe fn prefix_sums(v: __m128i, open: __m128i, close: __m128i) -> (i64, i64, i64) {
        let op = _mm_cmpeq_epi8(v, open);
        let cl = _mm_cmpeq_epi8(v, close);
        // +1 at `(`, −1 at `)` (the masks are −1 where they match).
        let mut p = _mm_sub_epi8(cl, op);
        p = _mm_add_epi8(p, _mm_slli_si128::<1>(p));
        p = _mm_add_epi8(p, _mm_slli_si128::<2>(p));
        p = _mm_add_epi8(p, _mm_slli_si128::<4>(p));
        p = _mm_add_epi8(p, _mm_slli_si128::<8>(p));
        // Signed bytes to unsigned order for min/max_epu8.
        let flip = _mm_set1_epi8(-128);
        let at_close = _mm_or_si128(
            _mm_and_si128(cl, p),
            _mm_andnot_si128(cl, _mm_set1_epi8(100)),
        );
        let at_open = _mm_or_si128(
            _mm_and_si128(op, p),
            _mm_andnot_si128(op, _mm_set1_epi8(-100)),
        );
        let mut lo = _mm_xor_si128(at_close, flip);
        let mut hi = _mm_xor_si128(at_open, flip);
        lo = _mm_min_epu8(lo, _mm_srli_si128::<8>(lo));
        hi = _mm_max_epu8(hi, _mm_srli_si128::<8>(hi));
        lo = _mm_min_epu8(lo, _mm_srli_si128::<4>(lo));
        hi = _mm_max_epu8(hi, _mm_srli_si128::<4>(hi));
        lo = _mm_min_epu8(lo, _mm_srli_si128::<2>(lo));
        hi = _mm_max_epu8(hi, _mm_srli_si128::<2>(hi));
        lo = _mm_min_epu8(lo, _mm_srli_si128::<1>(lo));
        hi = _mm_max_epu8(hi, _mm_srli_si128::<1>(hi));
        let byte = |x: __m128i| (_mm_cvtsi128_si32(x) as u8 ^ 0x80) as i8 as i64;
        let net = _mm_cvtsi128_si32(_mm_srli_si128::<15>(p)) as u8 as i8 as i64;
        (net, byte(lo), byte(hi))
    }

    /// [`super::skip`] with 16-byte chunks; it also raises `max_depth`.
    #[inline]
    #[allow(clippy::too_many_arguments)]
    pub(super) fn skip(
        buf: &[u8],
        mut i: usize,
        end: usize,
        depth: &mut u64,
        max_depth: &mut u64,
        line: &mut u64,
        line_start: &mut u64,
        base: u64,
    ) -> usize {
        let end = end.min(buf.len());
        let mut d = *depth as i64;
        let mut max = *max_depth as i64;
        // SAFETY: SSE2 is part of the x86_64 baseline; every load reads the
        // 16 bytes buf[i..i + 16], in bounds since i + 16 <= end <= len.
        unsafe {
            let splat = |c: u8| _mm_set1_epi8(c as i8);
            let (quote, bar, semi) = (splat(b'"'), splat(b'|'), splat(b';'));
            let (open, close, newline) = (splat(b'('), splat(b')'), splat(b'\n'));
            while i + 16 <= end {
                let v = _mm_loadu_si128(buf.as_ptr().add(i) as *const __m128i);
                let stop = _mm_or_si128(
                    _mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, bar)),
                    _mm_cmpeq_epi8(v, semi),
                );
                if _mm_movemask_epi8(stop) != 0 {
                    break;
                }
                let o = _mm_movemask_epi8(_mm_cmpeq_epi8(v, open)) as u32;
                let c = _mm_movemask_epi8(_mm_cmpeq_epi8(v, close)) as u32;
                if o | c != 0 {
                    let (opens, closes) = (o.count_ones() as i64, c.count_ones() as i64);
                    if c == 0 {
                        // Only `(`: the depth rises to d + opens.
                        max = max.max(d + opens);
                    } else if o == 0 {
                        // Only `)`: the lowest depth is d − closes.
                        if d - closes <= 1 {
                            break;
                        }
                    } else if d - closes <= 1 || d + opens > max {
                        // A `)` may end an argument, or a `(` reach a new
                        // depth: the exact prefix sums decide.
                        let (net, lo, hi) = prefix_sums(v, open, close);
                        if d + lo <= 1 {
                            break;
                        }
                        max = max.max(d + hi);
                        debug_assert_eq!(net, opens - closes);
                    }
                    d += opens - closes;
                }
                let nl = _mm_movemask_epi8(_mm_cmpeq_epi8(v, newline)) as u32;
                if nl != 0 {
                    *line += nl.count_ones() as u64;
                    *line_start = base + (i as u64) + (31 - nl.leading_zeros()) as u64 + 1;
                }
                i += 16;
            }
        }
        *depth = d as u64;
        *max_depth = max as u64;
        i
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the byte loop would do with one chunk: `Some((depth, max))`
    /// after it when nothing but depth, maximum and lines change (no state
    /// change, no `)` down to depth ≤ 1). The `u64` version is more careful
    /// (`strict`): it also leaves any byte at depth ≤ 1, and a new maximum,
    /// to the byte loop.
    fn slow(chunk: &[u8], depth: u64, max: u64, strict: bool) -> Option<(u64, u64)> {
        let (mut d, mut m) = (depth, max);
        for &c in chunk {
            match c {
                b'"' | b'|' | b';' => return None,
                b'(' => d += 1,
                b')' => {
                    d -= 1;
                    if d <= 1 {
                        return None;
                    }
                }
                _ => {}
            }
            if strict && (d <= 1 || d > max) {
                return None;
            }
            m = m.max(d);
        }
        Some((d, m))
    }

    type Skip = fn(&[u8], usize, usize, &mut u64, &mut u64, &mut u64, &mut u64, u64) -> usize;

    /// The `u64` version under the [`Skip`] signature.
    #[allow(clippy::too_many_arguments)]
    fn u64_skip(
        b: &[u8],
        i: usize,
        e: usize,
        d: &mut u64,
        m: &mut u64,
        l: &mut u64,
        ls: &mut u64,
        base: u64,
    ) -> usize {
        skip_u64(b, i, e, d, *m, l, ls, base)
    }

    /// `f` on one chunk agrees with the byte loop: it skips it exactly when
    /// safe (and is not needlessly careful), with the right depth, maximum
    /// and lines.
    fn check(f: Skip, chunk: &[u8], depth: u64, max: u64, strict: bool) {
        let (mut d, mut m, mut line, mut ls) = (depth, max, 1, 0);
        let i = f(
            chunk,
            0,
            chunk.len(),
            &mut d,
            &mut m,
            &mut line,
            &mut ls,
            100,
        );
        let ctx = format!(
            "{:?} depth {depth} max {max}",
            String::from_utf8_lossy(chunk)
        );
        if i == 0 {
            assert_eq!((d, m, line), (depth, max, 1), "{ctx}");
            assert_eq!(
                slow(chunk, depth, max, strict),
                None,
                "needless bail: {ctx}"
            );
            return;
        }
        assert_eq!(i, chunk.len());
        assert_eq!(Some((d, m)), slow(chunk, depth, max, false), "{ctx}");
        let nls = chunk.iter().filter(|&&c| c == b'\n').count() as u64;
        assert_eq!(line, 1 + nls, "{ctx}");
        if let Some(p) = chunk.iter().rposition(|&c| c == b'\n') {
            assert_eq!(ls, 100 + p as u64 + 1, "{ctx}");
        }
    }

    const ALPHABET: [u8; 5] = [b'(', b')', b'x', b'\n', b'|'];
    const DEPTHS: [(u64, u64); 6] = [(1, 5), (2, 2), (3, 9), (9, 20), (12, 12), (30, 40)];

    fn chunk_of(mut n: u64, out: &mut [u8]) {
        for c in out.iter_mut() {
            *c = ALPHABET[(n % 5) as usize];
            n /= 5;
        }
    }

    #[test]
    fn u64_chunks_agree_with_the_byte_loop_on_every_small_chunk() {
        let mut chunk = [0u8; 8];
        for n in 0..5u64.pow(8) {
            chunk_of(n, &mut chunk);
            for (depth, max) in DEPTHS {
                check(u64_skip, &chunk, depth, max, true);
            }
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn sse2_chunks_agree_with_the_byte_loop() {
        // 16-byte chunks: a pseudo-random sample plus the patterns of
        // nested terms, at several depths.
        let mut chunk = [0u8; 16];
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        for _ in 0..200_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            chunk_of(x, &mut chunk);
            if x & 1 == 0 {
                // Half of them without a state change.
                chunk
                    .iter_mut()
                    .filter(|c| **c == b'|')
                    .for_each(|c| *c = b'x');
            }
            for (depth, max) in DEPTHS {
                check(sse2::skip, &chunk, depth, max, false);
            }
        }
        for text in [
            &b"(f (g x) (h y))\n"[..],
            b"))))))))))))))))",
            b"((((((((((((((((",
            b"xxxxxxxxxxxxxxxx",
        ] {
            for (depth, max) in DEPTHS {
                check(sse2::skip, text, depth, max, false);
                check(sse2::skip, text, depth, max + 20, false);
            }
        }
    }

    #[test]
    fn exact_masks() {
        let w = u64::from_le_bytes(*b"((\x00()\x01)(");
        assert_eq!(eq_mask(w, b'('), 0x8000_0000_8000_8080);
        assert_eq!(eq_mask(w, b')'), 0x0080_0080_0000_0000);
        assert!(!has_byte(w, b'|'));
    }
}
