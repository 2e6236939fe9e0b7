//! Evaluation of SMT-LIB terms under a model: the definitions of the
//! script and of the model, `let`, `ite`, `:named` terms, Core, integer
//! and real arithmetic, bit-vectors, arrays and uninterpreted functions,
//! and quantifiers over `Bool` and over uninterpreted sorts whose finite
//! universe the model states ([`super::universe`]). Anything else
//! (quantifiers over other sorts, strings, floating point, datatypes…) is
//! [`Stuck::Unsupported`], with its name.

use super::sexp::Sexp;
use super::value::{bv, bv_binary, euclid, signed, unsupported, Res, Stuck, Value};
use crate::smtlib::lexer::TokenKind;
use num::bigint::{BigInt, BigUint};
use num::rational::BigRational;
use num::{Signed, Zero};
use std::cell::RefCell;
use std::collections::HashMap;

/// A function (nullary: a constant): its parameters and body.
#[derive(Clone, Debug)]
pub struct Fun {
    pub params: Vec<String>,
    pub body: Sexp,
}

/// What the evaluator knows: definitions (the model's and the script's),
/// declared symbols with their result sorts (to complete a model that
/// leaves some out), and the elements of uninterpreted sorts.
#[derive(Default)]
pub struct Env {
    pub funs: HashMap<String, Fun>,
    pub declared: HashMap<String, Sexp>,
    pub elements: std::collections::HashSet<String>,
    /// Uninterpreted sort → its whole universe, as the model states it.
    pub universes: HashMap<String, Vec<String>>,
    /// Symbols the model did not define and that were given a default value.
    pub completed: RefCell<Vec<String>>,
    /// Set when two differently named elements of an uninterpreted sort
    /// were compared and one of them is not of the model's declared universe
    /// (z3's `U!val!0`, cvc5's and cvc4's `; rep:` lines): other solvers'
    /// abstract values (`(as @const_1 U)`; bitwuzla's `@const_def1`) need
    /// not be distinct, so a `false` resting on it is not to be trusted.
    pub compared_abstract: std::cell::Cell<bool>,
    memo: RefCell<HashMap<String, Value>>,
    /// The constants whose definitions are being evaluated.
    active: RefCell<Vec<String>>,
}

type Scope = Vec<(String, Value)>;

const MAX_DEPTH: usize = 2000;
/// Instances of one quantifier evaluated at most.
const MAX_INSTANCES: usize = 100_000;

impl Env {
    /// The value of a closed term.
    pub fn eval(&self, t: &Sexp) -> Res<Value> {
        self.term(t, &mut Vec::new(), 0)
    }

    fn term(&self, t: &Sexp, sc: &mut Scope, depth: usize) -> Res<Value> {
        if depth > MAX_DEPTH {
            return unsupported("terms nested too deeply");
        }
        // A level of this recursion takes a few KB of stack: MAX_DEPTH of
        // them need more than a thread's 2 MiB.
        crate::process::deep::deep(|| self.term_at(t, sc, depth))
    }

    fn term_at(&self, t: &Sexp, sc: &mut Scope, depth: usize) -> Res<Value> {
        match t {
            Sexp::Atom(TokenKind::Literal, s) => literal(s),
            Sexp::Atom(TokenKind::Symbol | TokenKind::QuotedSymbol, s) => self.symbol(s, sc, depth),
            Sexp::Atom(_, s) => unsupported(format!("literal {s}")),
            Sexp::List(items) => self.list(items, sc, depth + 1),
        }
    }

    fn symbol(&self, s: &str, sc: &mut Scope, depth: usize) -> Res<Value> {
        if let Some((_, v)) = sc.iter().rev().find(|(n, _)| n == s) {
            return Ok(v.clone());
        }
        match s {
            "true" => return Ok(Value::Bool(true)),
            "false" => return Ok(Value::Bool(false)),
            _ => {}
        }
        if let Some(v) = self.memo.borrow().get(s) {
            return Ok(v.clone());
        }
        let before = self.completed.borrow().len();
        let v = if let Some(f) = self.funs.get(s).filter(|f| f.params.is_empty()) {
            self.defined(s, f, depth)?
        } else if self.elements.contains(s) || s.contains("!val!") || s.starts_with('@') {
            // z3's `U!val!0` and the `@…` abstract values of cvc5 and yices
            // name elements of uninterpreted sorts.
            Value::Elem(s.to_string())
        } else if let Some(sort) = self.declared.get(s) {
            self.completed.borrow_mut().push(s.to_string());
            default_of(sort)?
        } else {
            return unsupported(format!("symbol {s}"));
        };
        // A value resting on a default is not kept: each assertion must
        // see which defaults it rests on.
        if self.completed.borrow().len() == before {
            self.memo.borrow_mut().insert(s.to_string(), v.clone());
        }
        Ok(v)
    }

    /// The value of the constant `s` defined as `f`; a definition that
    /// needs its own value (z3's `(define-fun x () Real (root-obj (+ (^ x
    /// 2) (- 2)) 2))`, where `x` is root-obj's variable) has none here.
    fn defined(&self, s: &str, f: &Fun, depth: usize) -> Res<Value> {
        if self.active.borrow().iter().any(|a| a == s) {
            return unsupported(format!("the definition of {s}, which refers to {s}"));
        }
        self.active.borrow_mut().push(s.to_string());
        let v = self.term(&f.body, &mut Vec::new(), depth + 1);
        self.active.borrow_mut().pop();
        v
    }

    fn list(&self, items: &[Sexp], sc: &mut Scope, depth: usize) -> Res<Value> {
        let Some(head) = items.first() else {
            return unsupported("()");
        };
        let args = &items[1..];
        let Some(op) = head.sym() else {
            return self.indexed(head, args, sc, depth);
        };
        match op {
            "!" => return self.term(args.first().ok_or_else(|| bad("!"))?, sc, depth),
            "let" => return self.let_(args, sc, depth),
            "forall" | "exists" => return self.quantifier(op == "forall", args, sc, depth),
            "_" => return indexed_constant(args),
            "as" => {
                return match args.first().and_then(Sexp::sym) {
                    Some(e) => Ok(Value::Elem(e.to_string())),
                    None => unsupported("as"),
                }
            }
            "ite" => {
                let [c, a, b] = args else {
                    return Err(bad("ite"));
                };
                let c = self.term(c, sc, depth)?.as_bool()?;
                return self.term(if c { a } else { b }, sc, depth);
            }
            "and" | "or" => return self.junction(op == "and", args, sc, depth),
            "select" => {
                if let [a, k] = args {
                    if let Some(f) = self.array_fun(a) {
                        let k = self.term(k, sc, depth)?;
                        return self.apply(f, vec![k], depth);
                    }
                }
            }
            _ => {}
        }
        let vals = args
            .iter()
            .map(|a| self.term(a, sc, depth))
            .collect::<Res<Vec<Value>>>()?;
        if let Some(f) = self.funs.get(op) {
            return self.apply(f, vals, depth);
        }
        if matches!(op, "=" | "distinct") {
            self.note_abstract(&vals);
        }
        if let Some(sort) = self.declared.get(op) {
            self.completed.borrow_mut().push(op.to_string());
            return default_of(sort);
        }
        builtin(op, vals)
    }

    fn note_abstract(&self, vals: &[Value]) {
        let names: Vec<&str> = vals
            .iter()
            .filter_map(|v| match v {
                Value::Elem(e) => Some(e.as_str()),
                _ => None,
            })
            .collect();
        let declared = |n: &str| self.elements.contains(n);
        if names.iter().any(|a| {
            names
                .iter()
                .any(|b| a != b && !(declared(a) && declared(b)))
        }) {
            self.compared_abstract.set(true);
        }
    }

    /// The function behind an array printed as one: a symbol the model
    /// defines with one parameter (yices), or `(_ as-array f)` (z3).
    fn array_fun(&self, a: &Sexp) -> Option<&Fun> {
        let name = match a {
            Sexp::List(v)
                if v.len() == 3 && v[0].sym() == Some("_") && v[1].sym() == Some("as-array") =>
            {
                v[2].sym()?
            }
            _ => a.sym()?,
        };
        self.funs.get(name).filter(|f| f.params.len() == 1)
    }

    fn apply(&self, f: &Fun, vals: Vec<Value>, depth: usize) -> Res<Value> {
        if f.params.len() != vals.len() {
            return unsupported("an application with the wrong number of arguments");
        }
        let mut local: Scope = f.params.iter().cloned().zip(vals).collect();
        self.term(&f.body, &mut local, depth + 1)
    }

    /// `and`/`or`: a deciding argument decides even when another is stuck.
    fn junction(&self, and: bool, args: &[Sexp], sc: &mut Scope, depth: usize) -> Res<Value> {
        let mut stuck = None;
        for a in args {
            match self.term(a, sc, depth).and_then(|v| v.as_bool()) {
                Ok(b) if b != and => return Ok(Value::Bool(b)),
                Ok(_) => {}
                Err(e) => stuck = stuck.or(Some(e)),
            }
        }
        match stuck {
            Some(e) => Err(e),
            None => Ok(Value::Bool(and)),
        }
    }

    /// `forall`/`exists` over finite domains: `Bool`, and the uninterpreted
    /// sorts whose universe the model states; every instance is evaluated
    /// (a deciding instance decides even when another is stuck).
    fn quantifier(&self, forall: bool, args: &[Sexp], sc: &mut Scope, depth: usize) -> Res<Value> {
        let [vars, body] = args else {
            return Err(bad("quantifier"));
        };
        let mut domains: Vec<(String, Vec<Value>)> = Vec::new();
        for v in vars.list().ok_or_else(|| bad("quantifier"))? {
            let Some([Sexp::Atom(_, n), sort]) = v.list() else {
                return Err(bad("quantifier"));
            };
            let domain = match sort.sym() {
                Some("Bool") => vec![Value::Bool(false), Value::Bool(true)],
                Some(s) if self.universes.contains_key(s) => self.universes[s]
                    .iter()
                    .map(|e| Value::Elem(e.clone()))
                    .collect(),
                _ => {
                    return unsupported(format!(
                        "quantifiers over {sort} (no finite universe in the model)"
                    ))
                }
            };
            domains.push((n.clone(), domain));
        }
        let total = domains.iter().try_fold(1usize, |acc, (_, d)| {
            acc.checked_mul(d.len()).filter(|t| *t <= MAX_INSTANCES)
        });
        let Some(total) = total else {
            return unsupported("a quantifier with too many instances");
        };
        let mut stuck = None;
        for i in 0..total {
            let mut k = i;
            for (name, domain) in &domains {
                sc.push((name.clone(), domain[k % domain.len()].clone()));
                k /= domain.len();
            }
            let r = self.term(body, sc, depth).and_then(|v| v.as_bool());
            sc.truncate(sc.len() - domains.len());
            match r {
                Ok(b) if b != forall => return Ok(Value::Bool(b)),
                Ok(_) => {}
                Err(e) => stuck = stuck.or(Some(e)),
            }
        }
        match stuck {
            Some(e) => Err(e),
            None => Ok(Value::Bool(forall)),
        }
    }

    fn let_(&self, args: &[Sexp], sc: &mut Scope, depth: usize) -> Res<Value> {
        let [binds, body] = args else {
            return Err(bad("let"));
        };
        let mut new = Vec::new();
        for b in binds.list().ok_or_else(|| bad("let"))? {
            match b.list() {
                Some([Sexp::Atom(_, n), t]) => new.push((n.clone(), self.term(t, sc, depth)?)),
                _ => return Err(bad("let")),
            }
        }
        let n = new.len();
        sc.extend(new);
        let r = self.term(body, sc, depth);
        sc.truncate(sc.len() - n);
        r
    }

    /// `((_ extract i j) x)` and the other indexed operators, `((as const S) v)`.
    fn indexed(&self, head: &Sexp, args: &[Sexp], sc: &mut Scope, depth: usize) -> Res<Value> {
        let h = head.list().unwrap_or(&[]);
        let vals = args
            .iter()
            .map(|a| self.term(a, sc, depth))
            .collect::<Res<Vec<Value>>>()?;
        if h.len() == 3 && h[0].sym() == Some("as") && h[1].sym() == Some("const") {
            let [v] = &vals[..] else {
                return Err(bad("const"));
            };
            return Ok(Value::Array(Box::new(v.clone()), Vec::new()));
        }
        let (Some("_"), Some(op)) = (h.first().and_then(Sexp::sym), h.get(1).and_then(Sexp::sym))
        else {
            return unsupported(format!("{head}"));
        };
        let idx: Vec<u32> = h[2..]
            .iter()
            .map(|i| match i {
                Sexp::Atom(TokenKind::Literal, s) => s.parse().ok(),
                _ => None,
            })
            .collect::<Option<Vec<u32>>>()
            .ok_or_else(|| Stuck::Unsupported(format!("{head}")))?;
        let [x] = &vals[..] else {
            return unsupported(format!("{head}"));
        };
        let (w, v) = x.as_bv()?;
        let bits = |v: &BigUint, from: u32, n: u32| (v >> from) & ((BigUint::from(1u8) << n) - 1u8);
        Ok(match (op, &idx[..]) {
            ("extract", [i, j]) if j <= i && *i < w => {
                Value::Bv(i - j + 1, bits(&v, *j, i - j + 1))
            }
            ("zero_extend", [k]) => Value::Bv(w + k, v),
            ("sign_extend", [k]) => bv(w + k, signed(w, &v)),
            ("repeat", [k]) if *k > 0 => {
                let mut r = BigUint::zero();
                for _ in 0..*k {
                    r = (r << w) | &v;
                }
                Value::Bv(w * k, r)
            }
            ("rotate_left" | "rotate_right", [k]) if w > 0 => {
                let k = if op == "rotate_left" {
                    k % w
                } else {
                    (w - k % w) % w
                };
                let hi = bits(&v, 0, w - k) << k;
                Value::Bv(w, hi | (&v >> (w - k)))
            }
            _ => return unsupported(format!("{head}")),
        })
    }
}

fn bad(what: &str) -> Stuck {
    Stuck::Unsupported(format!("malformed {what}"))
}

/// A numeral, decimal, `#x…` or `#b…` literal.
fn literal(s: &str) -> Res<Value> {
    let parse = |digits: &str, radix: u32, per: u32| {
        BigUint::parse_bytes(digits.as_bytes(), radix)
            .map(|v| Value::Bv(digits.len() as u32 * per, v))
            .ok_or_else(|| Stuck::Unsupported(format!("literal {s}")))
    };
    if let Some(h) = s.strip_prefix("#x") {
        return parse(h, 16, 4);
    }
    if let Some(b) = s.strip_prefix("#b") {
        return parse(b, 2, 1);
    }
    if let Some((i, f)) = s.split_once('.') {
        let den = BigInt::from(10u8).pow(f.len() as u32);
        let num: BigInt = format!("{i}{f}").parse().map_err(|_| bad("decimal"))?;
        return Ok(Value::Real(BigRational::new(num, den)));
    }
    s.parse::<BigInt>()
        .map(Value::Int)
        .map_err(|_| bad("numeral"))
}

/// `(_ bvN w)`.
fn indexed_constant(args: &[Sexp]) -> Res<Value> {
    if let [Sexp::Atom(_, n), Sexp::Atom(TokenKind::Literal, w)] = args {
        if let (Some(v), Ok(w)) = (
            n.strip_prefix("bv").and_then(|d| d.parse::<BigInt>().ok()),
            w.parse(),
        ) {
            return Ok(bv(w, v));
        }
    }
    unsupported("(_ …) constant")
}

/// A default value of `sort`, for a symbol the model leaves out.
fn default_of(sort: &Sexp) -> Res<Value> {
    match sort {
        Sexp::Atom(_, s) if s == "Bool" => Ok(Value::Bool(false)),
        Sexp::Atom(_, s) if s == "Int" => Ok(Value::Int(BigInt::zero())),
        Sexp::Atom(_, s) if s == "Real" => Ok(Value::Real(BigRational::zero())),
        Sexp::List(v)
            if v.len() == 3 && v[0].sym() == Some("_") && v[1].sym() == Some("BitVec") =>
        {
            let w: u32 = v[2].to_string().parse().map_err(|_| bad("BitVec"))?;
            Ok(Value::Bv(w, BigUint::zero()))
        }
        Sexp::List(v) if v.len() == 3 && v[0].sym() == Some("Array") => {
            Ok(Value::Array(Box::new(default_of(&v[2])?), Vec::new()))
        }
        Sexp::Atom(_, s) => Ok(Value::Elem(format!("{s}!default"))),
        s => unsupported(format!("sort {s}")),
    }
}

/// The operators of Core, arithmetic, bit-vectors and arrays on values.
fn builtin(op: &str, v: Vec<Value>) -> Res<Value> {
    let bool_of = |b: bool| Ok(Value::Bool(b));
    let all_int = v.iter().all(|x| matches!(x, Value::Int(_)));
    let num = |x: BigRational| {
        if all_int && x.is_integer() {
            Value::Int(x.to_integer())
        } else {
            Value::Real(x)
        }
    };
    match (op, &v[..]) {
        ("not", [a]) => bool_of(!a.as_bool()?),
        ("=>", [.., _]) => {
            let (last, init) = v.split_last().ok_or_else(|| bad("=>"))?;
            let mut r = last.as_bool()?;
            for p in init.iter().rev() {
                r = !p.as_bool()? || r;
            }
            bool_of(r)
        }
        ("xor", [_, ..]) => bool_of(v.iter().try_fold(false, |acc, x| Ok(acc ^ x.as_bool()?))?),
        ("=", [a, rest @ ..]) if !rest.is_empty() => bool_of(
            rest.iter()
                .try_fold(true, |acc, b| Ok(acc && a.equals(b)?))?,
        ),
        ("distinct", _) => {
            for i in 0..v.len() {
                for j in i + 1..v.len() {
                    if v[i].equals(&v[j])? {
                        return bool_of(false);
                    }
                }
            }
            bool_of(true)
        }
        ("+", [_, ..]) => Ok(num(v
            .iter()
            .try_fold(BigRational::zero(), |s, x| Ok(s + x.as_real()?))?)),
        ("*", [_, ..]) => Ok(num(v
            .iter()
            .try_fold(BigRational::from_integer(1.into()), |s, x| {
                Ok(s * x.as_real()?)
            })?)),
        ("-", [a]) => Ok(num(-a.as_real()?)),
        ("-", [a, rest @ ..]) => Ok(num(rest
            .iter()
            .try_fold(a.as_real()?, |s, x| Ok(s - x.as_real()?))?)),
        ("/", [a, rest @ ..]) if !rest.is_empty() => {
            let mut r = a.as_real()?;
            for x in rest {
                let d = x.as_real()?;
                if d.is_zero() {
                    return unsupported("division by zero");
                }
                r /= d;
            }
            Ok(Value::Real(r))
        }
        ("div" | "mod", [a, b]) => {
            let (q, r) = euclid(&a.as_int()?, &b.as_int()?)
                .ok_or_else(|| Stuck::Unsupported(format!("{op} by zero")))?;
            Ok(Value::Int(if op == "div" { q } else { r }))
        }
        ("abs", [a]) => Ok(num(a.as_real()?.abs())),
        ("to_real", [a]) => Ok(Value::Real(a.as_real()?)),
        ("to_int", [a]) => Ok(Value::Int(a.as_real()?.floor().to_integer())),
        ("is_int", [a]) => bool_of(a.as_real()?.is_integer()),
        ("<" | "<=" | ">" | ">=", [_, _, ..]) => {
            let r = v.iter().map(Value::as_real).collect::<Res<Vec<_>>>()?;
            bool_of(r.windows(2).all(|p| match op {
                "<" => p[0] < p[1],
                "<=" => p[0] <= p[1],
                ">" => p[0] > p[1],
                _ => p[0] >= p[1],
            }))
        }
        ("select", [a, k]) => a.select(k),
        ("store", [a, k, x]) => a.clone().store(k.clone(), x.clone()),
        ("bvnot", [a]) => {
            let (w, x) = a.as_bv()?;
            Ok(bv(w, ((BigInt::from(1u8) << w) - 1u8) - BigInt::from(x)))
        }
        ("bvneg", [a]) => {
            let (w, x) = a.as_bv()?;
            Ok(bv(w, -BigInt::from(x)))
        }
        ("concat", [a, rest @ ..]) if !rest.is_empty() => {
            let (mut w, mut x) = a.as_bv()?;
            for b in rest {
                let (w2, y) = b.as_bv()?;
                x = (x << w2) | y;
                w += w2;
            }
            Ok(Value::Bv(w, x))
        }
        ("bv2nat", [a]) => Ok(Value::Int(BigInt::from(a.as_bv()?.1))),
        (_, [a, b]) if op.starts_with("bv") => match bv_binary(op, &a.as_bv()?, &b.as_bv()?) {
            Some(r) => r,
            None => unsupported(format!("operator {op}")),
        },
        (_, [a, b, rest @ ..])
            if op.starts_with("bv")
                && matches!(op, "bvadd" | "bvmul" | "bvand" | "bvor" | "bvxor") =>
        {
            let mut acc = bv_binary(op, &a.as_bv()?, &b.as_bv()?).ok_or_else(|| bad(op))??;
            for c in rest {
                acc = bv_binary(op, &acc.as_bv()?, &c.as_bv()?).ok_or_else(|| bad(op))??;
            }
            Ok(acc)
        }
        _ => unsupported(format!("operator {op}")),
    }
}
