//! Unit tests of the driver: runs, windows, metadata, determinism, errors.

use super::*;

fn run(src: &str, opts: &ScrambleOptions) -> (String, DescrambleMap) {
    let mut out = Vec::new();
    let map = scramble(src.as_bytes(), &mut out, opts).unwrap();
    (String::from_utf8(out).unwrap(), map)
}

fn opts(seed: u32) -> ScrambleOptions {
    ScrambleOptions {
        seed,
        ..ScrambleOptions::default()
    }
}

fn plain() -> ScrambleOptions {
    ScrambleOptions {
        shuffle: false,
        rename: false,
        ..opts(1)
    }
}

fn lines(s: &str) -> Vec<&str> {
    s.lines().collect()
}

#[test]
fn identity_options_only_normalise_layout_and_metadata() {
    let src = "; header comment\n(set-info :smt-lib-version 2.6)\n(set-logic QF_UF)\n\
        (set-info :source |multi\nline|)\n(set-info :status unsat)\n(declare-fun  p () Bool) ; c\n\
        (assert (and p\n  (not p)))\n(echo \"hi\")\n(check-sat)\n(exit)\n";
    let (out, map) = run(src, &plain());
    assert_eq!(
        lines(&out),
        [
            "(set-info :smt-lib-version 2.6)",
            "(set-logic QF_UF)",
            "(declare-fun p () Bool)",
            "(assert (and p (not p)))",
            "(check-sat)",
            "(exit)"
        ]
    );
    assert_eq!(map.status.as_deref(), Some("unsat"));
    assert_eq!(map.removed.len(), 3);
    assert!(map.removed[0].starts_with("(set-info :source |multi\nline|"));
    assert_eq!(map.assertions, vec![0]);
    assert!(map.symbols.0.is_empty());
}

#[test]
fn renames_declarations_and_uses() {
    let src =
        "(set-logic QF_UFLIA)(declare-sort U 0)(declare-fun f (U) Int)(declare-const |a b| U)\
        (define-fun g ((x Int)) Int (+ x (f |a b|)))(assert (> (g 1) 0))";
    let o = ScrambleOptions {
        shuffle: false,
        ..opts(3)
    };
    let (out, map) = run(src, &o);
    assert_eq!(
        lines(&out),
        [
            "(set-logic QF_UFLIA)",
            "(declare-sort x_1 0)",
            "(declare-fun x_2 (x_1) Int)",
            "(declare-const x_3 x_1)",
            "(define-fun x_4 ((x_5 Int)) Int (+ x_5 (x_2 x_3)))",
            "(assert (> (x_4 1) 0))"
        ]
    );
    let names: Vec<_> = map.symbols.0.iter().map(|(_, o)| o.as_str()).collect();
    assert_eq!(names, ["U", "f", "a b", "g", "x"]);
}

#[test]
fn shuffles_only_runs_of_the_same_kind() {
    let mut src = String::from("(set-logic QF_LIA)");
    for i in 0..20 {
        src.push_str(&format!("(declare-fun v{i} () Int)"));
    }
    src.push_str("(define-fun d () Int v0)");
    for i in 0..20 {
        src.push_str(&format!("(assert (> v{i} {i}))"));
    }
    src.push_str("(check-sat)");
    for i in 0..5 {
        src.push_str(&format!("(assert (< v{i} {i}))"));
    }
    let o = ScrambleOptions {
        rename: false,
        ..opts(11)
    };
    let (out, map) = run(&src, &o);
    let l = lines(&out);
    assert!(l[1..21].iter().all(|c| c.starts_with("(declare-fun")));
    assert_eq!(l[21], "(define-fun d () Int v0)");
    assert!(l[22..42].iter().all(|c| c.starts_with("(assert (>")));
    assert_eq!(l[42], "(check-sat)");
    let mut decl: Vec<_> = l[1..21].to_vec();
    assert_ne!(
        decl,
        (0..20)
            .map(|i| format!("(declare-fun v{i} () Int)"))
            .collect::<Vec<_>>()
    );
    decl.sort();
    let mut want: Vec<_> = (0..20)
        .map(|i| format!("(declare-fun v{i} () Int)"))
        .collect();
    want.sort();
    assert_eq!(decl, want);
    // The map is a permutation of each run, in place.
    let mut first: Vec<u32> = map.assertions[..20].to_vec();
    assert_ne!(first, (0..20).collect::<Vec<u32>>());
    first.sort();
    assert_eq!(first, (0..20).collect::<Vec<u32>>());
    let mut second: Vec<u32> = map.assertions[20..].to_vec();
    second.sort();
    assert_eq!(second, (20..25).collect::<Vec<u32>>());
    for (new, &orig) in map.assertions.iter().enumerate() {
        let cmd = l[22 + new + (new >= 20) as usize];
        let want = if orig < 20 {
            format!("(assert (> v{orig} {orig}))")
        } else {
            format!("(assert (< v{0} {0}))", orig - 20)
        };
        assert_eq!(cmd, want);
    }
}

#[test]
fn same_seed_same_bytes_different_seed_different_order() {
    let mut src = String::from("(set-logic QF_LIA)(declare-fun x () Int)");
    for i in 0..30 {
        src.push_str(&format!("(assert (distinct x {i} (+ x {i}) (* 2 x)))"));
    }
    let o = |s| ScrambleOptions {
        commute: true,
        ..opts(s)
    };
    let (a, ma) = run(&src, &o(5));
    let (b, mb) = run(&src, &o(5));
    assert_eq!(a, b);
    assert_eq!(ma, mb);
    let (c, mc) = run(&src, &o(6));
    assert_ne!(a, c);
    assert_ne!(ma.assertions, mc.assertions);
}

#[test]
fn a_use_of_a_name_stays_after_its_definition() {
    let src = "(set-logic QF_LIA)(declare-fun x () Int)(declare-fun y () Int)\
        (assert (> x 0))(assert (or (! (= x 5) :named foo) (= x y)))(assert (> y 0))\
        (assert (= foo (= x 7)))(assert (< y 9))(assert (< x 9))";
    for seed in 0..40 {
        let (out, map) = run(src, &opts(seed));
        let def = map.assertions.iter().position(|&p| p == 1).unwrap();
        let used = map.assertions.iter().position(|&p| p == 3).unwrap();
        assert!(def < used, "seed {seed}: {out}");
        // The name is renamed consistently.
        let fresh = &map.symbols.0.iter().find(|(_, o)| o == "foo").unwrap().0;
        assert_eq!(out.matches(fresh.as_str()).count(), 2, "{out}");
    }
}

#[test]
fn windows_bound_the_buffered_run() {
    let mut src = String::from("(set-logic QF_UF)(declare-fun p () Bool)");
    for i in 0..200 {
        src.push_str(&format!("(assert (or p (= {i} {i})))"));
    }
    let o = ScrambleOptions {
        window: 1000,
        ..opts(9)
    };
    let (_, map) = run(&src, &o);
    let per = 1000 / ("(assert (or p (= 100 100)))".len() + std::mem::size_of::<Item>());
    assert!(per >= 2);
    // No assertion moves farther than one window.
    let mut moved = false;
    for (new, &orig) in map.assertions.iter().enumerate() {
        assert!((new as i64 - orig as i64).unsigned_abs() < per as u64 + 1);
        moved |= new != orig as usize;
    }
    assert!(moved);
}

#[test]
fn prefix_must_not_occur_in_the_input() {
    let src = "(set-logic QF_UF)(declare-fun x_1 () Bool)(assert x_1)";
    let mut out = Vec::new();
    let e = scramble(src.as_bytes(), &mut out, &opts(1)).unwrap_err();
    assert!(matches!(e, ScrambleError::PrefixInInput { .. }), "{e}");
    let p = choose_prefix(src.as_bytes()).unwrap();
    let o = ScrambleOptions {
        prefix: Some(p.clone()),
        ..opts(1)
    };
    let (out, _) = run(src, &o);
    assert!(
        out.contains(&format!("(declare-fun {p}1 () Bool)")),
        "{out}"
    );
}

#[test]
fn errors_name_line_and_column() {
    let src = "(set-logic QF_UF)\n(declare-fun p () Bool)\n(assert (and p\n   (let x p)))\n";
    let mut out = Vec::new();
    let e = scramble(src.as_bytes(), &mut out, &opts(1)).unwrap_err();
    match e {
        ScrambleError::Syntax {
            line,
            column,
            message,
        } => {
            assert_eq!((line, column), (4, 9));
            assert!(message.contains("list of bindings"), "{message}");
        }
        other => panic!("{other}"),
    }
    let e = scramble(&b"(assert p))"[..], &mut out, &opts(1)).unwrap_err();
    assert!(e.to_string().contains("line 1, column 11"), "{e}");
    let e = scramble(&b"(declare-rel r (Int))"[..], &mut out, &opts(1)).unwrap_err();
    assert!(
        e.to_string().contains("unsupported command 'declare-rel'"),
        "{e}"
    );
    let o = ScrambleOptions {
        rename: false,
        ..opts(1)
    };
    assert!(scramble(&b"(declare-rel r (Int))"[..], &mut out, &o).is_ok());
}

#[test]
fn deep_nesting_streams_without_recursion() {
    let depth = 1_000_000;
    let mut src =
        String::from("(set-logic QF_UF)(declare-fun p () Bool)(declare-fun q () Bool)(assert ");
    for _ in 0..depth {
        src.push_str("(and q ");
    }
    src.push('p');
    src.push_str(&")".repeat(depth + 1));
    let o = ScrambleOptions {
        commute: true,
        ..opts(2)
    };
    let (out, _) = run(&src, &o);
    let last = out.lines().last().unwrap();
    assert_eq!(last.matches("(and").count(), depth);
    assert_eq!(last.matches(')').count(), depth + 1);
}

/// `opts` on one thread, and on two with every run of assertions split.
fn one_and_two_threads(o: &ScrambleOptions) -> [ScrambleOptions; 2] {
    [
        ScrambleOptions {
            threads: 1,
            ..o.clone()
        },
        ScrambleOptions {
            threads: 2,
            split_min: 1,
            ..o.clone()
        },
    ]
}

/// Scramble `src` with both [`one_and_two_threads`] options: same bytes,
/// same map, or the same error.
fn same_on_two_threads(src: &str, o: &ScrambleOptions) -> Result<String, String> {
    let [one, two] = one_and_two_threads(o).map(|o| {
        let mut out = Vec::new();
        scramble(src.as_bytes(), &mut out, &o)
            .map(|map| (String::from_utf8(out).unwrap(), map))
            .map_err(|e| e.to_string())
    });
    assert_eq!(one, two);
    one.map(|(out, _)| out)
}

#[test]
fn two_threads_print_the_same_bytes() {
    use std::sync::atomic::Ordering::Relaxed;
    let mut src = String::from("(set-logic QF_LIA)\n");
    for i in 0..50 {
        src.push_str(&format!("(declare-fun v{i} () Int)\n"));
    }
    // First run: every symbol and the let variable get their numbers.
    let body = |i: usize| {
        format!(
            "(assert (let ((s (+ v{} v{}))) (forall ((k Int)) (or (> s k) (= (as v{} Int) {i})))))\n",
            i % 50,
            (i * 7) % 50,
            (i * 3) % 50
        )
    };
    for i in 0..400 {
        src.push_str(&body(i));
    }
    src.push_str("(check-sat)\n");
    // Second run: nothing new, so the second half is printed ahead.
    for i in 0..400 {
        src.push_str(&body(i + 1000));
    }
    // Third run: a new symbol in the second half (not numbered yet).
    src.push_str("(push 1)\n(declare-fun late () Int)\n");
    for i in 0..400 {
        src.push_str(&body(i));
    }
    src.push_str("(assert (> late 0))\n(check-sat)\n");
    let used = parallel::AHEAD_USED.load(Relaxed);
    for seed in 0..5 {
        let out = same_on_two_threads(&src, &opts(seed)).unwrap();
        assert_eq!(out.lines().count(), 50 + 1201 + 5);
    }
    assert!(
        parallel::AHEAD_USED.load(Relaxed) > used,
        "never printed ahead"
    );
    // With `:named` in a run, or commuting, one thread prints (same bytes).
    let named = src.replace("(assert (> late 0))", "(assert (! (> late 0) :named n))");
    same_on_two_threads(&named, &opts(3)).unwrap();
    let commute = ScrambleOptions {
        commute: true,
        ..opts(3)
    };
    let fed = tree_feed::FED.load(Relaxed);
    same_on_two_threads(&src, &commute).unwrap();
    assert!(
        tree_feed::FED.load(Relaxed) > fed + 1000,
        "trees not built ahead"
    );
}

#[test]
fn two_threads_report_the_same_errors() {
    let mut lines: Vec<String> = (0..300)
        .map(|i| format!("(assert (> x{} 0))", i % 7))
        .collect();
    lines.insert(0, "(declare-fun x0 () Int)".into());
    for bad in [10, 150, 299] {
        let mut l = lines.clone();
        l[bad] = "(assert (let ((y)) y))".into();
        let src = l.join("\n");
        for seed in 0..4 {
            // Odd seeds commute: the trees are built on the second thread.
            let o = ScrambleOptions {
                commute: seed % 2 == 1,
                ..opts(seed)
            };
            let e = same_on_two_threads(&src, &o).unwrap_err();
            assert!(e.contains(&format!("line {}", bad + 1)), "{e}");
        }
    }
}
