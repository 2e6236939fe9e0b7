//! Values of the model evaluator and the theory operations on them:
//! Booleans, integers and reals (exact: big integers and rationals),
//! bit-vectors of any width, elements of uninterpreted sorts, and arrays
//! (a default value plus the stored entries).

use num::bigint::{BigInt, BigUint, Sign};
use num::rational::BigRational;
use num::{One, Signed, ToPrimitive, Zero};

/// One value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    Bool(bool),
    Int(BigInt),
    Real(BigRational),
    /// Width in bits and the unsigned value (below 2^width).
    Bv(u32, BigUint),
    /// An element of an uninterpreted sort, by the name the model gave it
    /// (distinct names are distinct elements, as in every model printed).
    Elem(String),
    /// An array: the value everywhere else, and the entries that differ
    /// from it (sorted by their text: equal arrays are equal values).
    Array(Box<Value>, Vec<(Value, Value)>),
}

/// Why a term has no value here.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stuck {
    /// A construct the evaluator does not know (its name).
    Unsupported(String),
    /// A symbol that the model does not define.
    Missing(String),
}

pub type Res<T> = Result<T, Stuck>;

pub fn unsupported<T>(what: impl Into<String>) -> Res<T> {
    Err(Stuck::Unsupported(what.into()))
}

impl std::fmt::Display for Value {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Value::Bool(b) => write!(f, "{b}"),
            Value::Int(i) if i.is_negative() => write!(f, "(- {})", -i),
            Value::Int(i) => write!(f, "{i}"),
            Value::Real(r) => write!(f, "{r}"),
            Value::Bv(w, v) => write!(f, "(_ bv{v} {w})"),
            Value::Elem(e) => f.write_str(e),
            Value::Array(d, es) => {
                write!(f, "(const {d})")?;
                for (k, v) in es {
                    write!(f, "[{k}:={v}]")?;
                }
                Ok(())
            }
        }
    }
}

impl Value {
    pub fn as_bool(&self) -> Res<bool> {
        match self {
            Value::Bool(b) => Ok(*b),
            v => unsupported(format!("{v} where a Boolean is expected")),
        }
    }

    /// A number as a rational (integers included).
    pub fn as_real(&self) -> Res<BigRational> {
        match self {
            Value::Int(i) => Ok(BigRational::from_integer(i.clone())),
            Value::Real(r) => Ok(r.clone()),
            v => unsupported(format!("{v} where a number is expected")),
        }
    }

    pub fn as_int(&self) -> Res<BigInt> {
        match self {
            Value::Int(i) => Ok(i.clone()),
            Value::Real(r) if r.is_integer() => Ok(r.to_integer()),
            v => unsupported(format!("{v} where an integer is expected")),
        }
    }

    pub fn as_bv(&self) -> Res<(u32, BigUint)> {
        match self {
            Value::Bv(w, v) => Ok((*w, v.clone())),
            v => unsupported(format!("{v} where a bit-vector is expected")),
        }
    }

    /// SMT-LIB `=` between two values of one sort (an integer equals the
    /// real of the same value: solvers accept the mix).
    pub fn equals(&self, other: &Value) -> Res<bool> {
        match (self, other) {
            (Value::Int(_) | Value::Real(_), Value::Int(_) | Value::Real(_)) => {
                Ok(self.as_real()? == other.as_real()?)
            }
            (Value::Array(..), Value::Array(..)) => Ok(self == other),
            (Value::Bool(_), Value::Bool(_))
            | (Value::Bv(..), Value::Bv(..))
            | (Value::Elem(_), Value::Elem(_)) => Ok(self == other),
            (a, b) => unsupported(format!("comparing {a} with {b}")),
        }
    }

    /// The array with `v` stored at `k`.
    pub fn store(self, k: Value, v: Value) -> Res<Value> {
        let Value::Array(d, mut es) = self else {
            return unsupported("store into a non-array");
        };
        es.retain(|(x, _)| x != &k);
        if v != *d {
            es.push((k, v));
            es.sort_by_key(|(x, _)| x.to_string());
        }
        Ok(Value::Array(d, es))
    }

    pub fn select(&self, k: &Value) -> Res<Value> {
        let Value::Array(d, es) = self else {
            return unsupported("select from a non-array");
        };
        Ok(es
            .iter()
            .find(|(x, _)| x == k)
            .map(|(_, v)| v.clone())
            .unwrap_or_else(|| (**d).clone()))
    }
}

/// The bit-vector of `width` bits holding `v` modulo 2^width.
pub fn bv(width: u32, v: BigInt) -> Value {
    let m = BigInt::one() << width;
    let r = ((v % &m) + &m) % &m;
    Value::Bv(width, r.to_biguint().unwrap_or_default())
}

/// The two's complement reading of a bit-vector.
pub fn signed(w: u32, v: &BigUint) -> BigInt {
    let v = BigInt::from_biguint(Sign::Plus, v.clone());
    if w > 0 && v.bit(u64::from(w - 1)) {
        v - (BigInt::one() << w)
    } else {
        v
    }
}

fn unsigned(v: &BigUint) -> BigInt {
    BigInt::from_biguint(Sign::Plus, v.clone())
}

/// SMT-LIB's integer `div` and `mod` (Euclidean: the remainder is never
/// negative); `None` for a zero divisor (left unspecified by the standard).
pub fn euclid(a: &BigInt, b: &BigInt) -> Option<(BigInt, BigInt)> {
    if b.is_zero() {
        return None;
    }
    let mut q = a / b;
    let mut r = a - &q * b;
    if r.is_negative() {
        if b.is_positive() {
            q -= 1;
            r += b;
        } else {
            q += 1;
            r -= b;
        }
    }
    Some((q, r))
}

/// A binary bit-vector operation of equal widths (`bvadd` … `bvsmod`,
/// comparisons); `None` when `op` is not one.
pub fn bv_binary(op: &str, a: &(u32, BigUint), b: &(u32, BigUint)) -> Option<Res<Value>> {
    let (w, x, y) = (a.0, &a.1, &b.1);
    if a.0 != b.0 {
        return Some(unsupported(format!("{op} on widths {} and {}", a.0, b.0)));
    }
    let (ux, uy) = (unsigned(x), unsigned(y));
    let (sx, sy) = (signed(w, x), signed(w, y));
    let ones: BigInt = (BigInt::one() << w) - 1;
    let udiv = |p: &BigInt, q: &BigInt| if q.is_zero() { ones.clone() } else { p / q };
    let urem = |p: &BigInt, q: &BigInt| if q.is_zero() { p.clone() } else { p % q };
    let shift = y.to_u32().filter(|s| *s < w);
    let r = match op {
        "bvadd" => bv(w, ux + uy),
        "bvsub" => bv(w, ux - uy),
        "bvmul" => bv(w, ux * uy),
        "bvand" => Value::Bv(w, x & y),
        "bvor" => Value::Bv(w, x | y),
        "bvxor" => Value::Bv(w, x ^ y),
        "bvnand" => bv(w, &ones ^ unsigned(&(x & y))),
        "bvnor" => bv(w, &ones ^ unsigned(&(x | y))),
        "bvxnor" => bv(w, &ones ^ unsigned(&(x ^ y))),
        "bvudiv" => bv(w, udiv(&ux, &uy)),
        "bvurem" => bv(w, urem(&ux, &uy)),
        "bvsdiv" => {
            let q = udiv(&sx.abs(), &sy.abs());
            bv(
                w,
                if sx.is_negative() != sy.is_negative() {
                    -q
                } else {
                    q
                },
            )
        }
        "bvsrem" => {
            let r = urem(&sx.abs(), &sy.abs());
            bv(w, if sx.is_negative() { -r } else { r })
        }
        "bvsmod" => {
            let r = urem(&sx.abs(), &sy.abs());
            let r = match (r.is_zero(), sx.is_negative(), sy.is_negative()) {
                (true, _, _) | (_, false, false) => r,
                (_, true, false) => -r + &sy,
                (_, false, true) => r + &sy,
                (_, true, true) => -r,
            };
            bv(w, r)
        }
        "bvshl" => bv(w, shift.map_or(BigInt::zero(), |s| ux << s)),
        "bvlshr" => bv(w, shift.map_or(BigInt::zero(), |s| ux >> s)),
        "bvashr" => {
            let r = match shift {
                Some(s) => sx >> s,
                None if sx.is_negative() => BigInt::from(-1),
                None => BigInt::zero(),
            };
            bv(w, r)
        }
        "bvcomp" => Value::Bv(1, BigUint::from(u8::from(x == y))),
        "bvult" => Value::Bool(ux < uy),
        "bvule" => Value::Bool(ux <= uy),
        "bvugt" => Value::Bool(ux > uy),
        "bvuge" => Value::Bool(ux >= uy),
        "bvslt" => Value::Bool(sx < sy),
        "bvsle" => Value::Bool(sx <= sy),
        "bvsgt" => Value::Bool(sx > sy),
        "bvsge" => Value::Bool(sx >= sy),
        _ => return None,
    };
    Some(Ok(r))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b(w: u32, v: i64) -> (u32, BigUint) {
        bv(w, BigInt::from(v)).as_bv().unwrap()
    }

    #[test]
    fn bit_vector_arithmetic_follows_smtlib() {
        let ev = |op: &str, x: i64, y: i64| bv_binary(op, &b(4, x), &b(4, y)).unwrap().unwrap();
        assert_eq!(ev("bvadd", 15, 1), bv(4, 0.into()));
        assert_eq!(ev("bvudiv", 7, 0), bv(4, 15.into()), "x / 0 = all ones");
        assert_eq!(ev("bvurem", 7, 0), bv(4, 7.into()), "x % 0 = x");
        assert_eq!(ev("bvsdiv", -7, 2), bv(4, (-3).into()));
        assert_eq!(ev("bvsrem", -7, 2), bv(4, (-1).into()));
        assert_eq!(ev("bvsmod", -7, 2), bv(4, 1.into()));
        assert_eq!(ev("bvsmod", 7, -2), bv(4, (-1).into()));
        assert_eq!(ev("bvashr", -8, 1), bv(4, (-4).into()));
        assert_eq!(ev("bvashr", -8, 9), bv(4, (-1).into()));
        assert_eq!(ev("bvshl", 1, 4), bv(4, 0.into()));
        assert_eq!(ev("bvslt", -1, 0), Value::Bool(true));
        assert_eq!(ev("bvult", -1, 0), Value::Bool(false));
    }

    #[test]
    fn euclidean_division() {
        let e = |a: i64, b: i64| euclid(&a.into(), &b.into()).unwrap();
        assert_eq!(e(-7, 2), ((-4).into(), 1.into()));
        assert_eq!(e(-7, -2), (4.into(), 1.into()));
        assert_eq!(e(7, -2), ((-3).into(), 1.into()));
        assert!(euclid(&1.into(), &0.into()).is_none());
    }

    #[test]
    fn arrays_compare_by_content() {
        let a = Value::Array(Box::new(Value::Int(0.into())), Vec::new());
        let s = a
            .clone()
            .store(Value::Int(1.into()), Value::Int(0.into()))
            .unwrap();
        assert_eq!(s, a, "storing the default changes nothing");
        let t = a
            .clone()
            .store(Value::Int(1.into()), Value::Int(5.into()))
            .unwrap();
        assert_eq!(
            t.select(&Value::Int(1.into())).unwrap(),
            Value::Int(5.into())
        );
        assert_eq!(
            t.select(&Value::Int(2.into())).unwrap(),
            Value::Int(0.into())
        );
    }
}
