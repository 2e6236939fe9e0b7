
; Copyright (c) 2015 Microsoft Corporation
(set-option :produce-unsat-cores true)
(set-logic QF_BV)
(set-info :status unsat)
(declare-const a (_ BitVec 4))
(declare-const b (_ BitVec 4))
(declare-const c Bool)
(declare-const d Bool)
;; make sure the simplifier doesn't catch it.
(assert (! (or d c) :named a1))
(assert (! (or (not d) c) :named a2))
(assert (! (=> c (= a #x0)) :named a3))
(assert (! (=> c (= b #b1010)) :named a4))
(assert (! (= (bvsmod a b) b) :named a5))
(check-sat)
(get-unsat-core)

