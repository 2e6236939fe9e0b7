(assert (! (> x 1.5) :named |a b|)) ; done
"s""t" #b01 :kw |open