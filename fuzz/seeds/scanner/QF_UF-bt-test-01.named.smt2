; EXPECT: unsat
(set-option :produce-unsat-cores true)
(set-logic QF_UF)
(set-info :smt-lib-version 2.6)
(set-info :category "crafted")
(set-info :status unsat)

(declare-fun x0 () Bool)
(declare-fun y0 () Bool)
(declare-fun z0 () Bool)

(assert (! (or x0 y0) :named a1))
(assert (! (or (not y0) z0) :named a2))

(declare-fun x1 () Bool)
(declare-fun y1 () Bool)

(assert (! x1 :named a3))
(assert (! y1 :named a4))

(declare-fun f (Bool) Bool)

(assert (! (not (= (f (or x0 z0)) (f (and x1 y1)))) :named a5))

(check-sat)
(get-unsat-core)

(exit)
