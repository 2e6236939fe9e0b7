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
//! followed by a digit" occurs nowhere in the input bytes ([`choose_prefix`],
//! and the scrambler re-checks every command it reads). Every token of the
//! output is either a fresh name, `is-` + a fresh name (a datatype tester),
//! or copied from the input, hence different from every fresh name. The
//! candidate prefixes are a letter and an underscore (`x_`, `y_`, …, then two
//! letters and an underscore): they end in `_`, so the output never gains a
//! `<letters><digit>` string that could block the prefix the naming stage
//! prefers (`smtcomp`, `a`).

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::io::{self, Read};

/// FxHash: a fast non-cryptographic hasher for short symbol names.
#[derive(Default, Clone, Copy)]
pub struct FxHasher(u64);

const FX_K: u64 = 0x517c_c1b7_2722_0a95;

impl Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut h = self.0;
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let w = u64::from_le_bytes(c.try_into().unwrap());
            h = (h.rotate_left(5) ^ w).wrapping_mul(FX_K);
        }
        for &b in chunks.remainder() {
            h = (h.rotate_left(5) ^ b as u64).wrapping_mul(FX_K);
        }
        self.0 = h;
    }
    fn write_usize(&mut self, n: usize) {
        self.0 = (self.0.rotate_left(5) ^ n as u64).wrapping_mul(FX_K);
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

type FxMap<K, V> = HashMap<K, V, BuildHasherDefault<FxHasher>>;

/// What the file says about one name.
#[derive(Clone, Debug, Default)]
pub struct Sym {
    /// Normal form (bars removed).
    pub name: Box<[u8]>,
    /// Fresh number, 0 until first printed.
    pub fresh: u32,
    /// Declared or defined as a function/constant (or `:named`).
    pub fun: bool,
    /// Declared or defined as a sort.
    pub sort: bool,
    /// A datatype constructor.
    pub ctor: bool,
    /// Enclosing term binders (let, forall, exists, match, parameters).
    pub bound: u32,
    /// Enclosing sort parameters (define-sort, par).
    pub sort_params: u32,
}

/// The table. Names are normal forms ([`crate::smtlib::symbol::normalize`]).
pub struct SymTab {
    index: FxMap<Box<[u8]>, u32>,
    pub syms: Vec<Sym>,
    /// Symbol index by fresh number − 1.
    by_fresh: Vec<u32>,
    prefix: Vec<u8>,
    /// Active binders: symbol index and whether it binds a sort parameter.
    binds: Vec<(u32, bool)>,
}

impl SymTab {
    pub fn new(prefix: &str) -> Self {
        SymTab {
            index: FxMap::default(),
            syms: Vec::new(),
            by_fresh: Vec::new(),
            prefix: prefix.as_bytes().to_vec(),
            binds: Vec::new(),
        }
    }

    pub fn prefix(&self) -> &[u8] {
        &self.prefix
    }

    pub fn lookup(&self, name: &[u8]) -> Option<u32> {
        self.index.get(name).copied()
    }

    pub fn intern(&mut self, name: &[u8]) -> u32 {
        if let Some(&i) = self.index.get(name) {
            return i;
        }
        let i = self.syms.len() as u32;
        self.syms.push(Sym {
            name: name.into(),
            ..Sym::default()
        });
        self.index.insert(name.into(), i);
        i
    }

    pub fn sym(&self, i: u32) -> &Sym {
        &self.syms[i as usize]
    }

    pub fn sym_mut(&mut self, i: u32) -> &mut Sym {
        &mut self.syms[i as usize]
    }

    /// The symbol's fresh number, assigned on first use.
    pub fn fresh(&mut self, i: u32) -> u32 {
        let s = &mut self.syms[i as usize];
        if s.fresh == 0 {
            self.by_fresh.push(i);
            s.fresh = self.by_fresh.len() as u32;
        }
        s.fresh
    }

    /// Append the fresh name of symbol `i` to `out`.
    pub fn write_fresh(&mut self, i: u32, out: &mut Vec<u8>) {
        let n = self.fresh(i);
        out.extend_from_slice(&self.prefix);
        write_decimal(n as u64, out);
    }

    /// The symbol a term-position occurrence of `name` refers to, when it
    /// is a user symbol.
    pub fn term_ref(&self, name: &[u8]) -> Option<u32> {
        let i = self.lookup(name)?;
        let s = &self.syms[i as usize];
        (s.bound > 0 || s.fun).then_some(i)
    }

    /// Same for a sort-position occurrence.
    pub fn sort_ref(&self, name: &[u8]) -> Option<u32> {
        let i = self.lookup(name)?;
        let s = &self.syms[i as usize];
        (s.sort_params > 0 || s.sort).then_some(i)
    }

    /// Open a binder for `name` (a term variable, or a sort parameter).
    pub fn bind(&mut self, name: &[u8], sort_param: bool) -> u32 {
        let i = self.intern(name);
        let s = &mut self.syms[i as usize];
        if sort_param {
            s.sort_params += 1;
        } else {
            s.bound += 1;
        }
        self.binds.push((i, sort_param));
        i
    }

    /// Close the `n` innermost binders.
    pub fn unbind(&mut self, n: usize) {
        for _ in 0..n {
            let (i, sort_param) = self.binds.pop().expect("unbind without bind");
            let s = &mut self.syms[i as usize];
            if sort_param {
                s.sort_params -= 1;
            } else {
                s.bound -= 1;
            }
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
                    String::from_utf8_lossy(&self.syms[i as usize].name).into_owned(),
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

/// Candidate prefixes in order of preference: `x_`, `y_`, `z_`, `v_`, `w_`,
/// `u_`, …, then two letters and `_`.
fn candidates() -> Vec<Vec<u8>> {
    let letters: Vec<u8> = b"xyzvwutsrqponmlkjihgfedcba".to_vec();
    let mut out: Vec<Vec<u8>> = letters.iter().map(|&l| vec![l, b'_']).collect();
    for &a in &letters {
        for &b in &letters {
            out.push(vec![a, b, b'_']);
        }
    }
    out
}

/// Whether `prefix` followed by an ASCII digit occurs in `bytes`.
pub fn occurs_with_digit(prefix: &[u8], bytes: &[u8]) -> bool {
    memchr::memmem::find_iter(bytes, prefix).any(|at| {
        bytes
            .get(at + prefix.len())
            .is_some_and(|b| b.is_ascii_digit())
    })
}

/// The first candidate prefix that, followed by a digit, occurs nowhere in
/// the input. One pass over the bytes; each `_` followed by a digit blocks
/// the candidates ending there.
pub fn choose_prefix<R: Read>(mut reader: R) -> io::Result<String> {
    let mut blocked1 = [false; 256];
    let mut blocked2: std::collections::HashSet<[u8; 2]> = Default::default();
    let mut buf = vec![0u8; 1 << 20];
    // The last three bytes of the previous block, then the block.
    let mut carry: Vec<u8> = Vec::with_capacity(3);
    let mut win: Vec<u8> = Vec::with_capacity(buf.len() + 3);
    loop {
        let n = match reader.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        win.clear();
        win.extend_from_slice(&carry);
        win.extend_from_slice(&buf[..n]);
        // Positions p with win[p] == b'_' and win[p+1] a digit.
        for p in memchr::memchr_iter(b'_', &win) {
            if !win.get(p + 1).is_some_and(|b| b.is_ascii_digit()) {
                continue;
            }
            if p >= 1 {
                blocked1[win[p - 1] as usize] = true;
            }
            if p >= 2 {
                blocked2.insert([win[p - 2], win[p - 1]]);
            }
        }
        let keep = win.len().min(3);
        carry = win[win.len() - keep..].to_vec();
    }
    candidates()
        .into_iter()
        .find(|c| match c.len() {
            2 => !blocked1[c[0] as usize],
            _ => !blocked2.contains(&[c[0], c[1]]),
        })
        .map(|c| String::from_utf8(c).unwrap())
        .ok_or_else(|| {
            io::Error::other("every candidate prefix for fresh names occurs in the file")
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefix_avoids_the_file() {
        assert_eq!(choose_prefix(&b"(declare-fun x () Int)"[..]).unwrap(), "x_");
        assert_eq!(
            choose_prefix(&b"(declare-fun x_1 () Int)"[..]).unwrap(),
            "y_"
        );
        // A match split across the carry is still found.
        let mut text = vec![b' '; (1 << 20) - 1];
        text.extend_from_slice(b"x_9 y_1 z_0 v_x");
        assert_eq!(choose_prefix(&text[..]).unwrap(), "v_");
        assert!(occurs_with_digit(b"x_", b"ab x_12"));
        assert!(!occurs_with_digit(b"x_", b"ab x_ x_a"));
    }

    #[test]
    fn two_letter_fallback() {
        let mut text = Vec::new();
        for l in b'a'..=b'z' {
            text.extend_from_slice(&[l, b'_', b'1', b' ']);
        }
        assert_eq!(choose_prefix(&text[..]).unwrap(), "xx_");
        text.extend_from_slice(b"xx_1");
        assert_eq!(choose_prefix(&text[..]).unwrap(), "xy_");
    }

    #[test]
    fn binders_nest_and_fresh_names_are_injective() {
        let mut t = SymTab::new("x_");
        let a = t.intern(b"a");
        t.sym_mut(a).fun = true;
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
