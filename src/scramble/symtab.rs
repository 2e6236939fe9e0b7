//! The scrambler's symbol table and its fresh names.
//!
//! Every user symbol (declared, defined, bound, `:named`) gets one fresh
//! name for the whole file, `<prefix><n>` with n = 1, 2, … in order of first
//! output. The map from original names to fresh names is injective, and it
//! is applied only to occurrences that refer to a user binding (a global
//! declaration or an enclosing binder, tracked by counters here), so
//! shadowing is preserved exactly and a theory symbol that a bound variable
//! happens to shadow elsewhere keeps its name.
//!
//! Why fresh names cannot collide: the prefix is chosen so that "prefix
//! followed by a digit" occurs nowhere in the input bytes ([`super::choose_prefix`],
//! and the scrambler re-checks every command it reads). Every token of the
//! output is either a fresh name, `is-` + a fresh name (a datatype tester),
//! or copied from the input, hence different from every fresh name. The
//! candidate prefixes are a letter and an underscore (`x_`, `y_`, …, then two
//! letters and an underscore): they end in `_`, so the output never gains a
//! `<letters><digit>` string that could block the prefix the naming stage
//! prefers (`smtcomp`, `a`).

const K: u64 = 0x517c_c1b7_2722_0a95;

#[inline]
fn mix(h: u64, w: u64) -> u64 {
    (h.rotate_left(5) ^ w).wrapping_mul(K)
}

/// A name of at most 8 bytes as a little-endian word, zero-padded. Read
/// with two overlapping loads: a byte loop or a `memcpy` into a stack
/// buffer followed by a word load stalls on store forwarding, which was a
/// third of the scrambler's time.
#[inline]
fn load_short(b: &[u8]) -> u64 {
    let n = b.len();
    debug_assert!(n <= 8);
    if n >= 4 {
        let lo = u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as u64;
        let hi = u32::from_le_bytes([b[n - 4], b[n - 3], b[n - 2], b[n - 1]]) as u64;
        lo | hi << (8 * (n - 4))
    } else if n > 0 {
        b[0] as u64 | (b[n / 2] as u64) << (8 * (n / 2)) | (b[n - 1] as u64) << (8 * (n - 1))
    } else {
        0
    }
}

/// FxHash over 8-byte words (fast for short symbol names) and the key kept
/// in a slot: the name itself when it fits in 8 bytes, else the hash.
#[inline]
fn hash_key(bytes: &[u8]) -> (u64, u64) {
    let n = bytes.len();
    if n <= 8 {
        let w = load_short(bytes);
        return (finish(mix(n as u64, w)), w);
    }
    let mut h = n as u64;
    let mut chunks = bytes.chunks_exact(8);
    for c in &mut chunks {
        h = mix(h, u64::from_le_bytes(c.try_into().unwrap()));
    }
    let rest = chunks.remainder().len();
    if rest > 0 {
        // The last 8 bytes, shifted so that only the remainder is left.
        let last = u64::from_le_bytes(bytes[n - 8..].try_into().unwrap());
        h = mix(h, last >> (8 * (8 - rest)));
    }
    let h = finish(h);
    (h, h)
}

/// Mix the high bits down: the slot index uses the low bits.
#[inline]
fn finish(h: u64) -> u64 {
    h ^ (h >> 29)
}

/// Flag bits of a symbol (see [`SymTab`]).
const TERM: u8 = 1;
const SORT: u8 = 2;
const CTOR: u8 = 4;
const FUN: u8 = 8;
const DECL_SORT: u8 = 16;

/// Longest fresh name kept in a slot (prefix of up to 3 bytes + 10 digits).
const INLINE_OUT: usize = 14;
/// Where a slot's `out` keeps the length of the printed name, and the flags.
const OUT_LEN: usize = 14;
const FLAGS: usize = 15;

/// One slot of the index, one half cache line: names of up to 8 bytes are
/// stored inline (and compared without touching anything else), longer ones
/// by hash; the symbol's flags and its printed fresh name live here too, so
/// that renaming a use costs one memory access.
#[derive(Clone, Copy, Default)]
#[repr(C, align(32))]
struct Slot {
    key: u64,
    /// Symbol index + 1; 0 for an empty slot.
    idx: u32,
    len: u32,
    /// The printed fresh name (up to [`INLINE_OUT`] bytes), its length at
    /// [`OUT_LEN`] (0: not printed yet, or too long) and the flags at
    /// [`FLAGS`]: 16 bytes, copied to the output in one move.
    out: [u8; 16],
}

impl Slot {
    fn flags(&self) -> u8 {
        self.out[FLAGS]
    }

    fn out_len(&self) -> usize {
        self.out[OUT_LEN] as usize
    }
}

/// Append the first `len` bytes of `bytes` to `out` with one fixed-size
/// copy of the whole array (a variable-length copy of a few bytes is a
/// call to `memcpy`).
#[inline]
pub fn push_prefix<const N: usize>(out: &mut Vec<u8>, bytes: &[u8; N], len: usize) {
    assert!(len <= N);
    out.reserve(N);
    let spare = out.spare_capacity_mut();
    for (d, &s) in spare[..N].iter_mut().zip(bytes) {
        d.write(s);
    }
    // SAFETY: the first N >= len spare bytes were initialised just above.
    unsafe { out.set_len(out.len() + len) };
}

/// The table (cloned to print ahead on a second thread, see
/// `super::parallel`). Names are normal forms ([`crate::smtlib::symbol::normalize`]).
///
/// Every token of a rewritten command is looked up, so the layout is
/// chosen for few cache misses: an open-addressing index of 32-byte slots
/// (see `Slot`) and per-symbol data in dense arrays.
pub struct SymTab {
    slots: Vec<Slot>,
    /// Names end to end; symbol i is `arena[offs[i]..offs[i + 1]]`.
    arena: Vec<u8>,
    offs: Vec<usize>,
    /// Slot of each symbol.
    slot_of: Vec<u32>,
    fresh: Vec<u32>,
    /// Printed fresh names end to end; fresh number n is
    /// `names_out[out_offs[n - 1]..out_offs[n]]`.
    names_out: Vec<u8>,
    out_offs: Vec<usize>,
    /// Enclosing term binders and sort parameters per symbol.
    bound: Vec<(u32, u32)>,
    /// Symbol index by fresh number − 1.
    by_fresh: Vec<u32>,
    prefix: Vec<u8>,
    /// Active binders: symbol index and whether it binds a sort parameter.
    binds: Vec<(u32, bool)>,
}

impl Clone for SymTab {
    fn clone(&self) -> Self {
        let mut copy = SymTab::new("");
        copy.clone_from(self);
        copy
    }

    /// Field by field, reusing `self`'s allocations (the second renderer
    /// copies the table for every piece it prints ahead).
    fn clone_from(&mut self, o: &Self) {
        // Destructured: a new field cannot be forgotten here.
        let SymTab {
            slots,
            arena,
            offs,
            slot_of,
            fresh,
            names_out,
            out_offs,
            bound,
            by_fresh,
            prefix,
            binds,
        } = o;
        self.slots.clone_from(slots);
        self.arena.clone_from(arena);
        self.offs.clone_from(offs);
        self.slot_of.clone_from(slot_of);
        self.fresh.clone_from(fresh);
        self.names_out.clone_from(names_out);
        self.out_offs.clone_from(out_offs);
        self.bound.clone_from(bound);
        self.by_fresh.clone_from(by_fresh);
        self.prefix.clone_from(prefix);
        self.binds.clone_from(binds);
    }
}

impl SymTab {
    pub fn new(prefix: &str) -> Self {
        SymTab {
            slots: vec![Slot::default(); 1024],
            arena: Vec::new(),
            offs: vec![0],
            slot_of: Vec::new(),
            fresh: Vec::new(),
            names_out: Vec::new(),
            out_offs: vec![0],
            bound: Vec::new(),
            by_fresh: Vec::new(),
            prefix: prefix.as_bytes().to_vec(),
            binds: Vec::new(),
        }
    }

    pub fn prefix(&self) -> &[u8] {
        &self.prefix
    }

    /// Fresh numbers assigned so far.
    pub fn fresh_count(&self) -> usize {
        self.by_fresh.len()
    }

    /// About how many bytes a copy of the table takes.
    pub fn memory(&self) -> usize {
        self.slots.len() * std::mem::size_of::<Slot>()
            + self.arena.len()
            + self.names_out.len()
            + self.slot_of.len() * 40
    }

    /// Number of symbols.
    pub fn len(&self) -> usize {
        self.slot_of.len()
    }

    pub fn is_empty(&self) -> bool {
        self.slot_of.is_empty()
    }

    /// The normal form of symbol `i`.
    pub fn name(&self, i: u32) -> &[u8] {
        &self.arena[self.offs[i as usize]..self.offs[i as usize + 1]]
    }

    /// `Ok(slot of the symbol)` or `Err(free slot)`.
    #[inline(always)]
    fn find(&self, name: &[u8], h: u64, key: u64) -> Result<usize, usize> {
        let mask = self.slots.len() - 1;
        let mut i = h as usize & mask;
        loop {
            let slot = &self.slots[i];
            if slot.idx == 0 {
                return Err(i);
            }
            if slot.key == key
                && slot.len as usize == name.len()
                && (name.len() <= 8 || self.name(slot.idx - 1) == name)
            {
                return Ok(i);
            }
            i = (i + 1) & mask;
        }
    }

    #[inline(always)]
    fn slot(&self, name: &[u8]) -> Option<usize> {
        let (h, key) = hash_key(name);
        self.find(name, h, key).ok()
    }

    pub fn lookup(&self, name: &[u8]) -> Option<u32> {
        self.slot(name).map(|s| self.slots[s].idx - 1)
    }

    pub fn intern(&mut self, name: &[u8]) -> u32 {
        let (h, key) = hash_key(name);
        let free = match self.find(name, h, key) {
            Ok(s) => return self.slots[s].idx - 1,
            Err(free) => free,
        };
        let i = self.slot_of.len() as u32;
        self.arena.extend_from_slice(name);
        self.offs.push(self.arena.len());
        self.slot_of.push(free as u32);
        self.fresh.push(0);
        self.bound.push((0, 0));
        self.slots[free] = Slot {
            key,
            idx: i + 1,
            len: name.len() as u32,
            ..Slot::default()
        };
        if self.slot_of.len() * 4 > self.slots.len() * 3 {
            self.grow();
        }
        i
    }

    fn grow(&mut self) {
        let mut slots = vec![Slot::default(); self.slots.len() * 2];
        let mask = slots.len() - 1;
        for old in self.slots.iter().filter(|s| s.idx != 0) {
            let (h, _) = hash_key(self.name(old.idx - 1));
            let mut i = h as usize & mask;
            while slots[i].idx != 0 {
                i = (i + 1) & mask;
            }
            slots[i] = *old;
            self.slot_of[old.idx as usize - 1] = i as u32;
        }
        self.slots = slots;
    }

    fn flags_mut(&mut self, i: u32) -> &mut u8 {
        &mut self.slots[self.slot_of[i as usize] as usize].out[FLAGS]
    }

    /// Recompute the TERM and SORT bits of symbol `i`.
    fn refresh(&mut self, i: u32) {
        let (b, p) = self.bound[i as usize];
        let f = self.flags_mut(i);
        let keep = *f & (CTOR | FUN | DECL_SORT);
        let term = if b > 0 || keep & FUN != 0 { TERM } else { 0 };
        let sort = if p > 0 || keep & DECL_SORT != 0 {
            SORT
        } else {
            0
        };
        *f = keep | term | sort;
    }

    /// From now on symbol `i` is a user function (or constant).
    pub fn set_fun(&mut self, i: u32) {
        *self.flags_mut(i) |= FUN;
        self.refresh(i);
    }

    /// From now on symbol `i` is a user sort.
    pub fn set_sort(&mut self, i: u32) {
        *self.flags_mut(i) |= DECL_SORT;
        self.refresh(i);
    }

    /// From now on symbol `i` is a datatype constructor (and a function).
    pub fn set_ctor(&mut self, i: u32) {
        *self.flags_mut(i) |= CTOR | FUN;
        self.refresh(i);
    }

    /// The flag bits of symbol `i`, to [`Self::restore_flags`] later.
    pub fn flags_of(&self, i: u32) -> u8 {
        self.slots[self.slot_of[i as usize] as usize].flags()
    }

    /// Undo flag changes (with the binders they depended on closed).
    pub fn restore_flags(&mut self, i: u32, flags: u8) {
        *self.flags_mut(i) = flags;
    }

    pub fn is_ctor(&self, i: u32) -> bool {
        self.slots[self.slot_of[i as usize] as usize].flags() & CTOR != 0
    }

    /// The symbol's fresh number, assigned on first use.
    pub fn fresh(&mut self, i: u32) -> u32 {
        let f = self.fresh[i as usize];
        if f != 0 {
            return f;
        }
        self.by_fresh.push(i);
        let n = self.by_fresh.len() as u32;
        self.fresh[i as usize] = n;
        let start = self.names_out.len();
        self.names_out.extend_from_slice(&self.prefix);
        write_decimal(n as u64, &mut self.names_out);
        self.out_offs.push(self.names_out.len());
        let printed = &self.names_out[start..];
        if printed.len() <= INLINE_OUT {
            let slot = &mut self.slots[self.slot_of[i as usize] as usize];
            slot.out[..printed.len()].copy_from_slice(printed);
            slot.out[OUT_LEN] = printed.len() as u8;
        }
        n
    }

    /// Append the fresh name of symbol `i` to `out`.
    pub fn write_fresh(&mut self, i: u32, out: &mut Vec<u8>) {
        let slot = &self.slots[self.slot_of[i as usize] as usize];
        if slot.out_len() > 0 {
            push_prefix(out, &slot.out, slot.out_len());
            return;
        }
        let n = self.fresh(i) as usize;
        out.extend_from_slice(&self.names_out[self.out_offs[n - 1]..self.out_offs[n]]);
    }

    /// The symbol a term-position occurrence of `name` refers to, when it
    /// is a user symbol.
    pub fn term_ref(&self, name: &[u8]) -> Option<u32> {
        let s = &self.slots[self.slot(name)?];
        (s.flags() & TERM != 0).then_some(s.idx - 1)
    }

    /// Same for a sort-position occurrence.
    pub fn sort_ref(&self, name: &[u8]) -> Option<u32> {
        let s = &self.slots[self.slot(name)?];
        (s.flags() & SORT != 0).then_some(s.idx - 1)
    }

    /// Write the fresh name of `name` when it refers to a user symbol in
    /// term position (`sort`: in sort position); false otherwise.
    #[inline(always)]
    pub fn write_ref(&mut self, name: &[u8], sort: bool, out: &mut Vec<u8>) -> bool {
        let Some(s) = self.slot(name) else {
            return false;
        };
        let slot = &self.slots[s];
        if slot.flags() & (if sort { SORT } else { TERM }) == 0 {
            return false;
        }
        if slot.out_len() > 0 {
            push_prefix(out, &slot.out, slot.out_len());
        } else {
            let i = slot.idx - 1;
            self.write_fresh(i, out);
        }
        true
    }

    /// Open a binder for `name` (a term variable, or a sort parameter).
    pub fn bind(&mut self, name: &[u8], sort_param: bool) -> u32 {
        let i = self.intern(name);
        let b = &mut self.bound[i as usize];
        if sort_param {
            b.1 += 1;
        } else {
            b.0 += 1;
        }
        self.refresh(i);
        self.binds.push((i, sort_param));
        i
    }

    /// Close the `n` innermost binders.
    pub fn unbind(&mut self, n: usize) {
        for _ in 0..n {
            let (i, sort_param) = self.binds.pop().expect("unbind without bind");
            let b = &mut self.bound[i as usize];
            if sort_param {
                b.1 -= 1;
            } else {
                b.0 -= 1;
            }
            self.refresh(i);
        }
    }

    /// Close every binder (after an error inside a command).
    pub fn unbind_all(&mut self) {
        let n = self.binds.len();
        self.unbind(n);
    }

    /// (fresh name, original normal form) in order of fresh number.
    pub fn renaming(&self) -> Vec<(String, String)> {
        let prefix = String::from_utf8_lossy(&self.prefix);
        self.by_fresh
            .iter()
            .enumerate()
            .map(|(k, &i)| {
                (
                    format!("{prefix}{}", k + 1),
                    String::from_utf8_lossy(self.name(i)).into_owned(),
                )
            })
            .collect()
    }
}

/// Append the decimal digits of `n`.
pub fn write_decimal(mut n: u64, out: &mut Vec<u8>) {
    let mut buf = [0u8; 20];
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&buf[i..]);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_names_load_as_zero_padded_words() {
        let bytes = b"\x01\x82c\xffe\x00g\x7f";
        for n in 0..=8 {
            let mut w = [0u8; 8];
            w[..n].copy_from_slice(&bytes[..n]);
            assert_eq!(load_short(&bytes[..n]), u64::from_le_bytes(w), "{n}");
            assert_eq!(hash_key(&bytes[..n]).1, u64::from_le_bytes(w));
        }
        // Longer names: the hash depends on every byte and on the length.
        let long = b"abcdefghijklmnopqrstu";
        let mut seen = std::collections::HashSet::new();
        for n in 9..=long.len() {
            assert!(seen.insert(hash_key(&long[..n]).0), "{n}");
            let mut other = long[..n].to_vec();
            other[n - 1] ^= 1;
            assert_ne!(hash_key(&other).0, hash_key(&long[..n]).0, "{n}");
        }
    }

    #[test]
    fn many_names_survive_growth() {
        let mut t = SymTab::new("x_");
        let names: Vec<String> = (0..5000)
            .map(|i| format!("v{i}{}", if i % 2 == 0 { "_long_name" } else { "" }))
            .collect();
        let ids: Vec<u32> = names.iter().map(|n| t.intern(n.as_bytes())).collect();
        for (n, &i) in names.iter().zip(&ids) {
            assert_eq!(t.lookup(n.as_bytes()), Some(i));
            assert_eq!(t.name(i), n.as_bytes());
        }
        assert_eq!(t.lookup(b"v5000"), None);
        assert_eq!(t.lookup(b"v4_long_nam"), None);
        assert_eq!(t.len(), 5000);
        assert_eq!(t.intern(b"v17"), ids[17]);
    }

    #[test]
    fn binders_nest_and_fresh_names_are_injective() {
        let mut t = SymTab::new("x_");
        let a = t.intern(b"a");
        t.set_fun(a);
        assert_eq!(t.term_ref(b"a"), Some(a));
        assert_eq!(t.term_ref(b"b"), None);
        let b = t.bind(b"b", false);
        t.bind(b"b", false);
        t.unbind(1);
        assert_eq!(t.term_ref(b"b"), Some(b));
        assert_eq!(t.sort_ref(b"b"), None);
        t.unbind(1);
        assert_eq!(t.term_ref(b"b"), None);
        let mut out = Vec::new();
        t.write_fresh(b, &mut out);
        out.push(b' ');
        t.write_fresh(a, &mut out);
        t.write_fresh(b, &mut out);
        assert_eq!(out, b"x_1 x_2x_1");
        assert_eq!(
            t.renaming(),
            vec![("x_1".into(), "b".into()), ("x_2".into(), "a".into())]
        );
    }
}
