//! Unit tests of the renderer: roles, scopes, shadowing, datatypes,
//! commuting.

use super::super::random::GlibcRandom;
use super::super::symtab::SymTab;
use super::Renderer;

/// Render each command of `cmds` in order with one renderer.
fn render(cmds: &[&str], rename: bool, commute: bool, seed: u32) -> Vec<String> {
    let mut r = Renderer::new(SymTab::new("x_"), rename, commute);
    let mut rng = GlibcRandom::new(seed);
    cmds.iter()
        .map(|c| {
            let mut out = Vec::new();
            r.render(c.as_bytes(), &mut rng, &mut out)
                .unwrap_or_else(|e| panic!("{c}: {}", e.message));
            String::from_utf8(out).unwrap()
        })
        .collect()
}

fn renamed(cmds: &[&str]) -> Vec<String> {
    render(cmds, true, false, 1)
}

#[test]
fn bound_variables_follow_their_binder() {
    let out = renamed(&[
        "(declare-fun x () Int)",
        "(assert (forall ((x Bool) (y Int)) (=> x (> y 0))))",
        "(assert (> x 0))",
        "(assert (let ((y x) (z 1)) (let ((y z)) (= y z))))",
    ]);
    assert_eq!(out[0], "(declare-fun x_1 () Int)");
    assert_eq!(
        out[1],
        "(assert (forall ((x_1 Bool) (x_2 Int)) (=> x_1 (> x_2 0))))"
    );
    assert_eq!(out[2], "(assert (> x_1 0))");
    assert_eq!(
        out[3],
        "(assert (let ((x_2 x_1) (x_3 1)) (let ((x_2 x_3)) (= x_2 x_3))))"
    );
}

#[test]
fn a_bound_variable_shadowing_a_theory_symbol_does_not_rename_it_elsewhere() {
    let out = renamed(&[
        "(assert (forall ((abs Int)) (> abs 0)))",
        "(assert (= (abs (- 1)) 1))",
    ]);
    assert_eq!(out[0], "(assert (forall ((x_1 Int)) (> x_1 0)))");
    assert_eq!(out[1], "(assert (= (abs (- 1)) 1))");
}

#[test]
fn attributes_named_pattern_and_opaque_values() {
    let out = renamed(&[
        "(declare-fun f (Int) Int)",
        "(assert (! (forall ((v Int)) (! (> (f v) 0) :pattern ((f v)) :qid v :no-pattern (f 0) :weight 3)) :named |my name|))",
        "(assert (not |my name|))",
    ]);
    assert_eq!(
        out[1],
        "(assert (! (forall ((x_2 Int)) (! (> (x_1 x_2) 0) :pattern ((x_1 x_2)) :qid v :no-pattern (x_1 0) :weight 3)) :named x_3))"
    );
    assert_eq!(out[2], "(assert (not x_3))");
}

#[test]
fn definitions_scope_their_parameters_and_names() {
    let out = renamed(&[
        "(define-sort Arr (X) (Array X X))",
        "(declare-fun a () (Arr Int))",
        "(define-fun-rec fact ((n Int)) Int (ite (<= n 0) 1 (* n (fact (- n 1)))))",
        "(define-funs-rec ((ev ((n Int)) Bool) (od ((n Int)) Bool)) ((ite (= n 0) true (od (- n 1))) (ite (= n 0) false (ev (- n 1)))))",
        "(define-const c Int (fact 3))",
        "(define-fun X () Int c)",
    ]);
    assert_eq!(out[0], "(define-sort x_1 (x_2) (Array x_2 x_2))");
    assert_eq!(out[1], "(declare-fun x_3 () (x_1 Int))");
    assert_eq!(
        out[2],
        "(define-fun-rec x_4 ((x_5 Int)) Int (ite (<= x_5 0) 1 (* x_5 (x_4 (- x_5 1)))))"
    );
    assert_eq!(
        out[3],
        "(define-funs-rec ((x_6 ((x_5 Int)) Bool) (x_7 ((x_5 Int)) Bool)) ((ite (= x_5 0) true (x_7 (- x_5 1))) (ite (= x_5 0) false (x_6 (- x_5 1)))))"
    );
    assert_eq!(out[4], "(define-const x_8 Int (x_4 3))");
    // X was a sort parameter; as a function it gets the same fresh name.
    assert_eq!(out[5], "(define-fun x_2 () Int x_8)");
}

#[test]
fn datatypes_constructors_selectors_testers_and_match() {
    let out = renamed(&[
        "(declare-datatypes ((Lst 1) (Color 0)) ((par (T) ((nil) (cons (hd T) (tl (Lst T))))) ((red) (green))))",
        "(declare-fun l () (Lst Color))",
        "(assert (and ((_ is cons) l) (is-cons l) (= (hd l) red) (= l (as nil (Lst Color)))))",
        "(assert (match l ((nil false) ((cons h t) (= h green)) (other true))))",
        "(declare-datatype Pair ((mk (fst Int) (snd Int))))",
    ]);
    assert_eq!(
        out[0],
        "(declare-datatypes ((x_1 1) (x_2 0)) ((par (x_3) ((x_4) (x_5 (x_6 x_3) (x_7 (x_1 x_3))))) ((x_8) (x_9))))"
    );
    assert_eq!(out[1], "(declare-fun x_10 () (x_1 x_2))");
    assert_eq!(
        out[2],
        "(assert (and ((_ is x_5) x_10) (is-x_5 x_10) (= (x_6 x_10) x_8) (= x_10 (as x_4 (x_1 x_2)))))"
    );
    assert_eq!(
        out[3],
        "(assert (match x_10 ((x_4 false) ((x_5 x_11 x_12) (= x_11 x_9)) (x_13 true))))"
    );
    assert_eq!(
        out[4],
        "(declare-datatype x_14 ((x_15 (x_16 Int) (x_17 Int))))"
    );
}

#[test]
fn legacy_datatypes_syntax() {
    let out = renamed(&[
        "(declare-datatypes () ((Nat zero (succ (pred Nat)))))",
        "(assert (= (pred (succ zero)) zero))",
    ]);
    assert_eq!(out[0], "(declare-datatypes () ((x_1 x_2 (x_3 (x_4 x_1)))))");
    assert_eq!(out[1], "(assert (= (x_4 (x_3 x_2)) x_2))");
}

#[test]
fn commuting_permutes_only_commutative_arguments() {
    let cmd = "(assert (and (= a b c d) (distinct a b c) (+ a b c d) (- a b c) (fp.add RNE a b) (bvnand a b) (f a b c)))";
    let mut seen_and = std::collections::HashSet::new();
    let mut seen_fp = std::collections::HashSet::new();
    for seed in 0..40 {
        let out = &render(
            &["(declare-fun f (Int Int Int) Bool)", cmd],
            false,
            true,
            seed,
        )[1];
        assert!(out.contains("(- a b c)"), "{out}");
        assert!(out.contains("(f a b c)"), "{out}");
        assert!(out.contains("(fp.add RNE "), "{out}");
        let and_args = out.trim_start_matches("(assert (and ").len();
        seen_and.insert(
            out[out.len() - and_args..]
                .split(' ')
                .next()
                .unwrap()
                .to_string(),
        );
        seen_fp.insert(out.contains("(fp.add RNE a b)"));
        // Same multiset of characters: a permutation.
        let mut x: Vec<char> = out.chars().collect();
        let mut y: Vec<char> = cmd.chars().collect();
        x.sort();
        y.sort();
        assert_eq!(x, y);
    }
    assert!(seen_and.len() > 3, "{seen_and:?}");
    assert_eq!(seen_fp.len(), 2);
}

#[test]
fn user_symbols_named_like_operators_keep_their_order() {
    for seed in 0..20 {
        let out = &render(
            &[
                "(declare-fun and (Int Int) Int)",
                "(assert (= 0 (and 1 2)))",
            ],
            false,
            true,
            seed,
        )[1];
        assert!(out.contains("(and 1 2)"), "{out}");
    }
}

#[test]
fn named_arguments_keep_their_order() {
    for seed in 0..20 {
        let out = &render(&["(assert (or (! (= x 5) :named p) p))"], false, true, seed)[0];
        assert!(out.starts_with("(assert (or (! "), "{out}");
        assert!(out.ends_with(" :named p) p))"), "{out}");
    }
}

#[test]
fn difference_logic_keeps_arithmetic_order() {
    let mut r = Renderer::new(SymTab::new("x_"), false, true);
    r.difference_logic = true;
    for seed in 0..20 {
        let mut rng = GlibcRandom::new(seed);
        let mut out = Vec::new();
        r.render(b"(assert (= (- x y) 3))", &mut rng, &mut out)
            .unwrap();
        assert_eq!(out, b"(assert (= (- x y) 3))");
    }
}

/// Render `cmds` in order with the one-pass path on and off: every output
/// (or error position and message) is the same.
fn both_paths(cmds: &[&[u8]], what: &str) {
    let mut outs = Vec::new();
    for stream in [true, false] {
        let mut r = Renderer::new(SymTab::new("x_"), true, false);
        r.stream = stream;
        let mut rng = GlibcRandom::new(1);
        let mut printed = Vec::new();
        for c in cmds {
            let mut out = Vec::new();
            match r.render(c, &mut rng, &mut out) {
                Ok(()) => printed.push(String::from_utf8_lossy(&out).into_owned()),
                Err(e) => printed.push(format!("error at {}: {}", e.offset, e.message)),
            }
        }
        outs.push(printed);
    }
    for (k, (a, b)) in outs[0].iter().zip(&outs[1]).enumerate() {
        assert_eq!(a, b, "{what}: {}", String::from_utf8_lossy(cmds[k]));
    }
}

#[test]
fn the_one_pass_path_prints_what_the_tree_path_prints() {
    let setup = [
        "(declare-fun f (Int Int) Int)",
        "(declare-const |q r| Bool)",
        "(declare-fun s () String)",
        "(declare-sort U 0)",
        "(declare-datatypes ((L 0)) (((nil) (cons (hd Int) (tl L)))))",
    ];
    let cases = [
        "(assert (= (f 1 2) 3))",
        "(assert |q r|)",
        "(assert (and |q r| (not (= s \"a b\"\"c\")) (> (f #x0F 2.5) (- 1))))",
        "(assert (=> ; comment\n |q r| |and|))",
        "(assert (let ((y 1)) (f y y)))",
        "(assert (let ((y 1) (z y)) (let ((y z)) (f y z))))",
        "(assert (let () true))",
        "(assert (! |q r| :named n))",
        "(assert (! (> (f 1 2) 0) :named m :pattern ((f 1 2) (f 2 1)) :no-pattern (f 0 0) :qid f :weight))",
        "(assert (forall ((x Int) (u U)) (! (exists ((y U)) (= u y)) :pattern ((f x x)))))",
        "(assert (forall ((x (_ BitVec 8)) (a (Array Int U))) (= ((_ extract 1 0) x) (_ bv0 2))))",
        "(assert (lambda ((x Int)) x))",
        "(assert (= ((as f Int) 1 2) ((_ extract 1 0) 3)))",
        "(assert (= (as nil L) (cons 1 (as nil L))))",
        "(assert (and ((_ is cons) nil) (is-cons nil) ((_ is cons extra) nil)))",
        "(assert (match nil ((nil true) ((cons h t) false))))",
        "(assert (f))",
        "(assert ())",
        "(assert (1 2))",
        "(assert (:k 2))",
        "(assert)",
        "(assert |q r| |q r|)",
        "(assert (f 1 2) )",
        "(assert (= (is-f 1) (g f)))",
        "(assert (let ((y 1) z) y))",
        "(assert (let ((y)) y))",
        "(assert (let ((1 2)) y))",
        "(assert (let ((y 1)) y y))",
        "(assert (forall ((x)) x))",
        "(assert (forall ((x Int 1)) x))",
        "(assert (forall ((x 1)) x))",
        "(assert (forall ((x ())) x))",
        "(assert (! p 1))",
        "(assert (! p :named (a)))",
        "(assert (! p :named 1))",
        "(assert (! p :pattern x))",
        "(assert (!))",
        "(assert (as x))",
        "(assert (and n (! p :named n) (as x Int Int)))",
        "(assert (and n (! p :named n) (match nil ((nil true)))))",
        "(assert (! q :named n2))",
        "(assert n2)",
        "(assert (par (X) x))",
        "(assert ((f 1) 2))",
        "(assert (let ((y 1)) (! (> y 0) :named y)))",
        "(assert (! (let ((w 1)) w) :named w))",
    ];
    for case in cases {
        let cmds: Vec<&[u8]> = setup.iter().chain([&case]).map(|c| c.as_bytes()).collect();
        both_paths(&cmds, case);
    }
}

#[test]
fn the_one_pass_path_prints_what_the_tree_path_prints_on_the_benchmarks() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/benchmarks");
    let mut files = 0;
    let mut stack = vec![root];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "smt2") {
                let bytes = std::fs::read(&p).unwrap();
                let Ok(cmds) = crate::smtlib::scanner::commands(&bytes) else {
                    continue;
                };
                let texts: Vec<&[u8]> = cmds.iter().map(|c| &c.text[..]).collect();
                both_paths(&texts, &p.display().to_string());
                files += 1;
            }
        }
    }
    assert!(files >= 390, "{files} benchmarks");
}
