# SMT-COMP 2024, unsat-core track: the `smtcomp` tool's division table, copied
# verbatim (the Division enum, and the Track.UnsatCore entry of `tracks`).
# Source: repository SMT-COMP/smt-comp.github.io, path smtcomp/defs.py,
# commit a71d95892ec4edbd8ef2ec380f1a4bba5fd5f0dd (tag smtcomp24).

class Division(EnumAutoInt):
    Arith = "Arith"
    Bitvec = "Bitvec"
    Equality = "Equality"
    Equality_LinearArith = "Equality+LinearArith"
    Equality_MachineArith = "Equality+MachineArith"
    Equality_NonLinearArith = "Equality+NonLinearArith"
    FPArith = "FPArith"
    QF_ADT_BitVec = "QF_ADT+BitVec"
    QF_ADT_LinArith = "QF_ADT+LinArith"
    QF_Bitvec = "QF_Bitvec"
    QF_Datatypes = "QF_Datatypes"
    QF_Equality = "QF_Equality"
    QF_Equality_Bitvec = "QF_Equality+Bitvec"
    QF_Equality_Bitvec_Arith = "QF_Equality+Bitvec+Arith"
    QF_Equality_LinearArith = "QF_Equality+LinearArith"
    QF_Equality_NonLinearArith = "QF_Equality+NonLinearArith"
    QF_FPArith = "QF_FPArith"
    QF_LinearIntArith = "QF_LinearIntArith"
    QF_LinearRealArith = "QF_LinearRealArith"
    QF_NonLinearIntArith = "QF_NonLinearIntArith"
    QF_NonLinearRealArith = "QF_NonLinearRealArith"
    QF_Strings = "QF_Strings"

tracks = {
    Track.UnsatCore: {
        Division.QF_Datatypes: {
            Logic.QF_DT,
            Logic.QF_UFDT,
        },
        Division.QF_Equality: {
            Logic.QF_AX,
            Logic.QF_UF,
        },
        Division.QF_Equality_LinearArith: {
            Logic.QF_ALIA,
            Logic.QF_AUFLIA,
            Logic.QF_UFDTLIA,
            Logic.QF_UFDTLIRA,
            Logic.QF_UFIDL,
            Logic.QF_UFLIA,
            Logic.QF_UFLRA,
        },
        Division.QF_Equality_NonLinearArith: {
            Logic.QF_ANIA,
            Logic.QF_AUFNIA,
            Logic.QF_UFDTNIA,
            Logic.QF_UFNIA,
            Logic.QF_UFNRA,
        },
        Division.QF_Equality_Bitvec: {
            Logic.QF_ABV,
            Logic.QF_AUFBV,
            Logic.QF_UFBV,
            Logic.QF_UFBVDT,
        },
        Division.QF_LinearIntArith: {
            Logic.QF_IDL,
            Logic.QF_LIA,
            Logic.QF_LIRA,
        },
        Division.QF_LinearRealArith: {
            Logic.QF_LRA,
            Logic.QF_RDL,
        },
        Division.QF_Bitvec: {
            Logic.QF_BV,
        },
        Division.QF_FPArith: {
            Logic.QF_ABVFP,
            Logic.QF_ABVFPLRA,
            Logic.QF_AUFBVFP,
            Logic.QF_BVFP,
            Logic.QF_BVFPLRA,
            Logic.QF_FP,
            Logic.QF_FPLRA,
            Logic.QF_UFFP,
            Logic.QF_UFFPDTNIRA,
        },
        Division.QF_NonLinearIntArith: {
            Logic.QF_NIA,
            Logic.QF_NIRA,
        },
        Division.QF_NonLinearRealArith: {
            Logic.QF_NRA,
        },
        Division.QF_Strings: {
            Logic.QF_S,
            Logic.QF_SLIA,
            Logic.QF_SNIA,
        },
        Division.Equality: {
            Logic.UF,
            Logic.UFDT,
        },
        Division.Equality_LinearArith: {
            Logic.ALIA,
            Logic.AUFDTLIA,
            Logic.AUFDTLIRA,
            Logic.AUFLIA,
            Logic.AUFLIRA,
            Logic.UFDTLIA,
            Logic.UFDTLIRA,
            Logic.UFIDL,
            Logic.UFLIA,
            Logic.UFLRA,
        },
        Division.Equality_MachineArith: {
            Logic.ABV,
            Logic.ABVFP,
            Logic.ABVFPLRA,
            Logic.AUFBV,
            Logic.AUFBVDTLIA,
            Logic.AUFBVDTNIA,
            Logic.AUFBVDTNIRA,
            Logic.AUFBVFP,
            Logic.AUFFPDTNIRA,
            Logic.UFBV,
            Logic.UFBVDT,
            Logic.UFBVFP,
            Logic.UFBVLIA,
            Logic.UFFPDTNIRA,
        },
        Division.Equality_NonLinearArith: {
            Logic.ANIA,
            Logic.AUFDTNIRA,
            Logic.AUFNIA,
            Logic.AUFNIRA,
            Logic.UFDTNIA,
            Logic.UFDTNIRA,
            Logic.UFNIA,
            Logic.UFNIRA,
        },
        Division.Arith: {
            Logic.LIA,
            Logic.LRA,
            Logic.NIA,
            Logic.NRA,
        },
        Division.Bitvec: {
            Logic.BV,
        },
        Division.FPArith: {
            Logic.BVFP,
            Logic.BVFPLRA,
            Logic.FP,
            Logic.FPLRA,
        },
    },
}
