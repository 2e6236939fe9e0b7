(set-info :source "a ""(""; b")
(declare-fun |x (
) ; y| () Bool) ; c
(assert (! (not |x (
) ; y|) :named |cv1|))
(exit)
; tail