//! The evaluator on scripts and models as the solvers print them.

use super::*;

fn run(script: &str, model: &str) -> ModelCheck {
    match read_model(model) {
        Ok(env) => check(script.as_bytes(), env),
        Err(e) => ModelCheck::Unreadable(e),
    }
}

const LIA: &str = "(set-logic QF_LIA)(declare-fun x () Int)(declare-fun y () Int)\
    (assert (! (> x 3) :named a1))(assert (let ((z (+ x y))) (= (mod z 3) 1)))(assert (=> a1 (< y 0)))(check-sat)";

#[test]
fn integer_models_of_z3_and_cvc5() {
    assert_eq!(
        run(
            LIA,
            "(\n (define-fun x () Int 5)\n (define-fun y () Int (- 1)))"
        ),
        ModelCheck::Satisfies
    );
    assert_eq!(
        run(
            LIA,
            "(model (define-fun y () Int (- 1)) (define-fun x () Int 5))"
        ),
        ModelCheck::Satisfies
    );
    match run(LIA, "((define-fun x () Int 5) (define-fun y () Int 2))") {
        ModelCheck::Violates { assertion, .. } => assert_eq!(assertion, 3),
        other => panic!("{other:?}"),
    }
}

#[test]
fn missing_symbols_are_completed_but_never_convict() {
    let free_y =
        "(declare-fun x () Int)(declare-fun y () Int)(assert (> x 3))(assert (>= (* y y) 0))";
    assert_eq!(
        run(free_y, "((define-fun x () Int 4))"),
        ModelCheck::Satisfies,
        "y = 0 fits"
    );
    assert!(matches!(
        run(LIA, "((define-fun x () Int 5))"),
        ModelCheck::Incomplete { .. }
    ));
    assert!(matches!(
        run(LIA, "((define-fun y () Int (- 1)))"),
        ModelCheck::Incomplete { .. }
    ));
}

#[test]
fn reals_bitvectors_functions_arrays() {
    let real = "(declare-fun r () Real)(assert (< r (/ 1 3)))(assert (> (* 3 r) (- 1.0)))";
    assert_eq!(
        run(real, "((define-fun r () Real (- (/ 2.0 9.0))))"),
        ModelCheck::Satisfies
    );
    assert!(matches!(
        run(real, "((define-fun r () Real (/ 1.0 3.0)))"),
        ModelCheck::Violates { .. }
    ));
    let bvs = "(declare-fun b () (_ BitVec 8))(assert (bvult #x05 b))\
        (assert (= ((_ extract 3 0) b) #b1110))(assert (= (concat #x0 ((_ extract 7 4) b)) (bvlshr b #x04)))";
    assert_eq!(
        run(bvs, "((define-fun b () (_ BitVec 8) #x0e))"),
        ModelCheck::Satisfies
    );
    assert_eq!(
        run(bvs, "b 0000111x\n"),
        ModelCheck::Satisfies,
        "boolector's lines"
    );
    assert!(matches!(
        run(bvs, "((define-fun b () (_ BitVec 8) (_ bv31 8)))"),
        ModelCheck::Violates { .. }
    ));
    let uf = "(declare-sort U 0)(declare-fun f (Int) Int)(declare-fun u () U)(declare-fun v () U)\
        (declare-fun a () (Array Int Int))(assert (= (f 4) (- 2)))(assert (not (= u v)))(assert (= (select a 3) 5))";
    let z3 = "((declare-fun U!val!0 () U)(declare-fun U!val!1 () U)\
        (define-fun f ((x!0 Int)) Int (ite (= x!0 4) (- 2) 0))(define-fun u () U U!val!0)(define-fun v () U U!val!1)\
        (define-fun a () (Array Int Int) (store ((as const (Array Int Int)) 0) 3 5)))";
    assert_eq!(run(uf, z3), ModelCheck::Satisfies);
    let yices = "(model (define-fun f ((x!0 Int)) Int (- 2)) (define-fun u () U (as @const_3 U))\
        (define-fun v () U (as @const_4 U)) (define-fun a ((x!0 Int)) Int (ite (= x!0 3) 5 0)))";
    assert_eq!(
        run(uf, yices),
        ModelCheck::Satisfies,
        "yices' abstract values read as distinct elements satisfy the script"
    );
    // One name is one element: `(not (= u v))` is false for sure.
    let yices_same = yices.replace("@const_4", "@const_3");
    assert!(matches!(
        run(uf, &yices_same),
        ModelCheck::Violates { assertion: 2, .. }
    ));
    // Two names of no stated universe may be one element: no proof.
    let eq = uf.replace("(not (= u v))", "(= u v)");
    assert!(
        matches!(run(&eq, yices), ModelCheck::Unsupported(_)),
        "a false resting on abstract values of no stated universe is no proof"
    );
    let arr = "(declare-fun a () (Array Int Int))(assert (= (select a 3) 5))";
    assert_eq!(
        run(arr, yices),
        ModelCheck::Satisfies,
        "an array printed as a function"
    );
    let same = z3.replace("(define-fun v () U U!val!1)", "(define-fun v () U U!val!0)");
    assert!(matches!(
        run(uf, &same),
        ModelCheck::Violates { assertion: 2, .. }
    ));
    // Abstract values of other solvers need not be distinct: no verdict on them.
    let bitwuzla = "((define-fun f ((x Int)) Int (- 2))(define-fun u () U (as @const_1 U))\
        (define-fun v () U (as @const_def1 U))(define-fun a () (Array Int Int) (store ((as const (Array Int Int)) 0) 3 5)))";
    let eq = uf.replace("(not (= u v))", "(= u v)");
    assert!(matches!(run(&eq, bitwuzla), ModelCheck::Unsupported(_)));
}

/// Models over an uninterpreted sort as z3 5.4, cvc5 1.0 and cvc4 1.8
/// print them for `(distinct x y)`, `(= (f x) y)`.
const SORTED: &str = "(set-logic UF)(declare-sort U 0)(declare-fun x () U)(declare-fun y () U)\
    (declare-fun f (U) U)(assert (distinct x y))(assert (= (f x) y))";
const Z3_SORTED: &str = "(\n  ;; universe for U:\n  ;;   U!val!1 U!val!0 \n  ;; -----------\n\
    (declare-fun U!val!1 () U)\n  (declare-fun U!val!0 () U)\n  ;; cardinality constraint:\n\
    (forall ((x U)) (or (= x U!val!1) (= x U!val!0)))\n  (define-fun x () U\n    U!val!0)\n\
    (define-fun y () U\n    U!val!1)\n  (define-fun f ((x!0 U)) U\n    U!val!1)\n)";
const CVC5_SORTED: &str = "(\n; cardinality of U is 2\n; rep: (as @U_0 U)\n; rep: (as @U_1 U)\n\
    (define-fun x () U (as @U_0 U))\n(define-fun y () U (as @U_1 U))\n\
    (define-fun f ((_arg_1 U)) U (as @U_1 U))\n)";
const CVC4_SORTED: &str = "(model\n; cardinality of U is 2\n(declare-sort U 0)\n; rep: @uc_U_0\n\
    ; rep: @uc_U_1\n(define-fun x () U @uc_U_0)\n(define-fun y () U @uc_U_1)\n\
    (define-fun f ((BOUND_VARIABLE_294 U)) U @uc_U_1)\n)";

#[test]
fn uninterpreted_sorts_of_every_solver() {
    for (solver, model) in [
        ("z3", Z3_SORTED),
        ("cvc5", CVC5_SORTED),
        ("cvc4", CVC4_SORTED),
    ] {
        assert_eq!(run(SORTED, model), ModelCheck::Satisfies, "{solver}");
        // Their elements are a stated universe: a false is a proof.
        let wrong = SORTED.replace("(= (f x) y)", "(= (f x) x)");
        assert!(
            matches!(
                run(&wrong, model),
                ModelCheck::Violates { assertion: 2, .. }
            ),
            "{solver}: {:?}",
            run(&wrong, model)
        );
        // Quantifiers over the stated universe are evaluated.
        let every = format!("{SORTED}(assert (forall ((z U)) (or (= z x) (= z y))))");
        assert_eq!(run(&every, model), ModelCheck::Satisfies, "{solver}");
        let none = format!(
            "{SORTED}(assert (exists ((z U) (b Bool)) (and b (distinct z x) (distinct z y))))"
        );
        assert!(
            matches!(run(&none, model), ModelCheck::Violates { assertion: 3, .. }),
            "{solver}"
        );
    }
    let yices =
        "(model\n  (define-fun x () U (as @const_1 U))\n  (define-fun y () U (as @const_2 U))\n\
        (define-fun f ((x!0 U)) U (ite (= x!0 (as @const_1 U)) (as @const_2 U) (as @const_1 U))))";
    assert_eq!(run(SORTED, yices), ModelCheck::Satisfies);
    let every = format!("{SORTED}(assert (forall ((z U)) (= z z)))");
    assert!(
        matches!(run(&every, yices), ModelCheck::Unsupported(w) if w.contains("no finite universe")),
        "yices states no universe"
    );
}

#[test]
fn unsupported_constructs_are_named() {
    let q = "(declare-fun x () Int)(assert (forall ((y Int)) (> (+ x y) y)))";
    assert_eq!(
        run(q, "((define-fun x () Int 1))"),
        ModelCheck::Unsupported("quantifiers over Int (no finite universe in the model)".into())
    );
    let s = "(declare-fun s () String)(assert (= (str.len s) 2))";
    assert_eq!(
        run(s, "((define-fun s () String \"ab\"))"),
        ModelCheck::Unsupported("literal \"ab\"".into())
    );
    assert!(matches!(
        run(LIA, "(error \"model is not available\")"),
        ModelCheck::Unreadable(_)
    ));
    assert!(matches!(
        run(LIA, "garbage here"),
        ModelCheck::Unreadable(_)
    ));
}

#[test]
fn values_of_the_declared_symbols() {
    let v = values(CVC5_SORTED, SORTED.as_bytes());
    assert_eq!(
        v,
        [
            "x = (as @U_0 U)",
            "y = (as @U_1 U)",
            "f = (lambda ((_arg_1 U)) (as @U_1 U))"
        ]
    );
}

use crate::process::deep::{nested_not, on_small_stack};

#[test]
fn a_definition_that_names_itself_is_not_evaluated_forever() {
    // z3 writes an algebraic number with the constant's own name as
    // root-obj's variable (a real z3 4.x model of `(= (* x x) 2)`).
    let script = "(set-logic QF_NRA)(declare-fun x () Real)(assert (= (* x x) 2))(assert (> x 0))";
    let model = "(\n  (define-fun x () Real\n    (root-obj (+ (^ x 2) (- 2)) 2))\n)";
    match on_small_stack(move || run(script, model)) {
        ModelCheck::Unsupported(what) => assert!(what.contains("definition of x"), "{what}"),
        other => panic!("{other:?}"),
    }
    // Two constants defined by each other.
    let script = "(declare-fun a () Int)(declare-fun b () Int)(assert (= a b))";
    let model = "((define-fun a () Int (+ b 1)) (define-fun b () Int (- a 1)))";
    match on_small_stack(move || run(script, model)) {
        ModelCheck::Unsupported(what) => assert!(what.contains("definition of"), "{what}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn terms_nested_a_hundred_thousand_deep_are_judged_without_overflow() {
    const N: usize = 100_000;
    let deep = nested_not(N);
    // Named, so that the named term is cloned, and false under the model,
    // so that its text is printed.
    let script = format!("(declare-fun p () Bool)(assert (! {deep} :named a1))");
    let got = on_small_stack(move || run(&script, "((define-fun p () Bool true))"));
    match got {
        ModelCheck::Unsupported(what) => assert!(what.contains("nested too deeply"), "{what}"),
        other => panic!("{other:?}"),
    }
    // A depth the evaluator takes (each level a few KB of stack), false.
    let n = 1_500;
    let deep = nested_not(n);
    let script = format!("(declare-fun p () Bool)(assert (not {deep}))");
    let got = on_small_stack(move || run(&script, "((define-fun p () Bool true))"));
    match got {
        ModelCheck::Violates { assertion: 1, text } => {
            assert!(text.starts_with("(not (not"), "{text}")
        }
        other => panic!("{other:?}"),
    }
    // Printed, compared, cloned and dropped at full depth.
    let text = format!("{}x{}", "(f ".repeat(N), ")".repeat(N));
    on_small_stack(move || {
        let t = sexp::parse_all(text.as_bytes()).unwrap();
        let copy = t.clone();
        assert_eq!(t, copy);
        assert_eq!(t[0].to_string(), text);
        assert!(format!("{:?}", copy[0]).starts_with("List([Atom(Symbol, \"f\")"));
    });
}
