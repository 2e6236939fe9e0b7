//! Tests of the scope check: symbols and sorts used without a definition,
//! binders, datatypes, `push`/`pop` and quoting.

use super::*;

fn errors(src: &str) -> Vec<String> {
    strict_script(src.as_bytes(), 10)
        .iter()
        .map(|e| format!("{}:{}: {}", e.line, e.column, e.message))
        .collect()
}

/// The scope's errors alone (SMT-LIB 2.5 forms and `define-funs-rec`,
/// which smt2parser refuses, included).
fn scope_errors(src: &str) -> Vec<String> {
    let mut scope = Scope::new();
    crate::smtlib::scanner::commands(src.as_bytes())
        .unwrap()
        .iter()
        .filter_map(|c| scope.command(c).err())
        .map(|e| format!("{}:{}: {}", e.line, e.column, e.message))
        .collect()
}

/// Issue 47, item 8: a reproducer that uses a `define-fun` symbol
/// without its definition was called valid.
#[test]
fn a_symbol_used_without_its_definition_is_an_error_where_it_is_used() {
    let src = "(set-logic QF_LIA)\n(declare-fun x () Int)\n(assert (> (f x) 0))\n(check-sat)\n";
    assert_eq!(errors(src), ["3:13: undefined symbol 'f'"]);
    let defined = src.replace("(assert", "(define-fun f ((y Int)) Int (+ y 1))\n(assert");
    assert_eq!(errors(&defined), Vec::<String>::new());
    // A sort without its `define-sort`.
    assert_eq!(
        errors("(declare-fun w () Word)\n"),
        ["1:19: undefined sort 'Word'"]
    );
    // A definition's body is checked where it stands: `f` is not yet defined.
    assert_eq!(
        errors("(define-fun f ((y Int)) Int (f y))\n"),
        ["1:30: undefined symbol 'f'"]
    );
}

#[test]
fn binders_datatypes_named_terms_and_scopes() {
    let ok = "(set-logic ALL)\n\
        (declare-datatypes ((L 1)) ((par (T) ((nil) (cons (hd T) (tl (L T)))))))\n\
        (declare-datatypes () ((Color red green)))\n\
        (declare-sort U 0)\n(define-sort Arr (X) (Array Int X))\n\
        (declare-fun a () (Arr U))\n(declare-fun l () (L Int))\n\
        (define-fun-rec len ((x (L Int))) Int (match x ((nil 0) ((cons h t) (+ 1 (len t))))))\n\
        (define-funs-rec ((ev ((n Int)) Bool) (od ((n Int)) Bool)) ((ite (= n 0) true (od (- n 1))) (ite (= n 0) false (ev (- n 1)))))\n\
        (assert (! (let ((y (len l))) (forall ((z Int)) (=> (> z y) (is-cons l)))) :named n1))\n\
        (assert (and n1 ((_ is nil) (as nil (L Int))) (= ((_ extract 3 0) #xff) #b1111)))\n\
        (assert (= (select a 0) (select ((as const (Arr U)) (select a 1)) 2)))\n\
        (assert (distinct red green))\n\
        (push 1)\n(declare-const p Bool)\n(assert p)\n(pop 1)\n(check-sat)\n";
    assert_eq!(scope_errors(ok), Vec::<String>::new());
    // Bound variables do not outlive their binder, nor a popped scope.
    assert_eq!(
        errors("(assert (and (exists ((z Int)) (> z 0)) (> z 1)))\n"),
        ["1:24: undefined symbol 'z'"]
    );
    assert_eq!(
        errors("(push 1)\n(declare-const p Bool)\n(pop 1)\n(assert p)\n"),
        ["4:9: undefined symbol 'p'"]
    );
    // Quoting does not matter.
    assert_eq!(
        errors("(declare-const |a b| Bool)\n(assert |a b|)\n"),
        Vec::<String>::new()
    );
}

#[test]
fn what_a_command_defines_and_names() {
    let cmds = crate::smtlib::scanner::commands(
        b"(declare-datatype P ((pair (fst Int) (snd Int))))(define-fun f ((x Int)) Int x)",
    )
    .unwrap();
    let mut d = defines(&cmds[0]);
    d.sort();
    assert_eq!(d, ["P", "fst", "is-pair", "pair", "snd"]);
    assert_eq!(defines(&cmds[1]), ["f"]);
    assert!(mentions(&cmds[1].text).contains("x"));
}
