//! Which argument lists may be permuted without changing a term's meaning.
//!
//! Only operators the SMT-LIB theories define as commutative qualify, and
//! only the arguments they are commutative in:
//!
//! | operator | theory | arguments permuted |
//! |---|---|---|
//! | `and` `or` `xor` | Core (`:left-assoc`, AC) | all |
//! | `=` | Core (`:chainable`; equality is an equivalence) | all |
//! | `distinct` | Core (`:pairwise`) | all |
//! | `+` `*` | Ints, Reals (`:left-assoc`, AC) | all |
//! | `bvand` `bvor` `bvxor` `bvadd` `bvmul` | FixedSizeBitVectors (AC) | all |
//! | `bvnand` `bvnor` `bvcomp` | FixedSizeBitVectors (binary, symmetric) | both |
//! | `fp.eq` | FloatingPoint (`:chainable`; an equivalence off NaN, false on it) | all |
//! | `fp.add` `fp.mul` | FloatingPoint (IEEE 754 + and × are commutative) | the two operands, never the rounding mode |
//!
//! Not permuted: `fp.min`/`fp.max` (unspecified on ±0), `-`, `/`, `=>`,
//! relations (the official scrambler also flips `<` into `>`; coreval does
//! not rewrite symbols). In difference logics (logic name containing `DL`)
//! `=`, `distinct`, `+` and `*` keep their order, because those logics fix
//! the shape of atoms (`(<= (- x y) c)`), as the official scrambler does.
//! A symbol the file declares or binds is not the theory's symbol and is
//! never permuted (the caller checks the symbol table), and an argument list
//! in which an argument contains a `:named` term keeps its order, because a
//! later sibling may use that name.

/// Whether the file's logic is a difference logic (`QF_IDL`, `QF_RDL`,
/// `QF_UFIDL`…).
pub fn is_difference_logic(logic: &str) -> bool {
    logic.contains("DL")
}

/// For an application of the (theory) symbol `op` with `args` arguments:
/// the index of the first argument that may be permuted with the others,
/// or `None` when the order must be kept.
pub fn permutable_from(op: &[u8], args: usize, difference_logic: bool) -> Option<usize> {
    let from = match op {
        b"and" | b"or" | b"xor" => 0,
        b"=" | b"distinct" | b"+" | b"*" if !difference_logic => 0,
        b"bvand" | b"bvor" | b"bvxor" | b"bvadd" | b"bvmul" | b"fp.eq" => 0,
        b"bvnand" | b"bvnor" | b"bvcomp" if args == 2 => 0,
        b"fp.add" | b"fp.mul" if args == 3 => 1,
        _ => return None,
    };
    (args >= from + 2).then_some(from)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_commutative_arguments() {
        assert_eq!(permutable_from(b"and", 3, false), Some(0));
        assert_eq!(permutable_from(b"and", 1, false), None);
        assert_eq!(permutable_from(b"=", 2, true), None);
        assert_eq!(permutable_from(b"=", 4, false), Some(0));
        assert_eq!(permutable_from(b"fp.add", 3, false), Some(1));
        assert_eq!(permutable_from(b"fp.add", 2, false), None);
        assert_eq!(permutable_from(b"bvnand", 3, false), None);
        assert_eq!(permutable_from(b"bvsub", 2, false), None);
        assert_eq!(permutable_from(b"fp.min", 2, false), None);
        assert_eq!(permutable_from(b"-", 2, false), None);
        assert!(is_difference_logic("QF_UFIDL"));
        assert!(!is_difference_logic("QF_LIA"));
    }
}
