; COMMAND-LINE: --nl-ext=full
; EXPECT: unsat
(set-option :produce-unsat-cores true)
(set-logic QF_NRA)
(set-info :status unsat)

(declare-fun a () Real)
(declare-fun b () Real)

(assert (! (> a 0) :named a1))
(assert (! (> b 0) :named a2))

(assert (! (>= a (* 3 b)) :named a3))

(assert (! (< (* a a) (* 3 a b)) :named a4))

(check-sat)
(get-unsat-core)
