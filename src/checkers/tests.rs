//! Tests of definition loading, validation, command building and logic
//! support, on the shipped `checkers/*.toml` and on broken files.

use super::*;
use std::collections::BTreeSet;

fn shipped_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("checkers")
}

fn shipped() -> Vec<SolverDef> {
    load_dir(&shipped_dir()).expect("shipped definitions load")
}

fn def(name: &str) -> SolverDef {
    shipped().into_iter().find(|d| d.name == name).expect(name)
}

#[test]
fn shipped_definitions_load_with_teams() {
    let defs = shipped();
    let names: Vec<&str> = defs.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "bitwuzla",
            "boolector",
            "cvc4",
            "cvc5-py",
            "cvc5",
            "yices",
            "z3"
        ]
    );
    let team = |n: &str| def(n).team;
    assert_eq!(team("cvc4"), "cvc");
    assert_eq!(team("cvc5"), "cvc");
    assert_eq!(team("cvc5-py"), "cvc");
    assert_eq!(team("boolector"), "bitwuzla");
    assert!(!def("cvc4").independent_of(&def("cvc5")));
    assert!(def("z3").independent_of(&def("cvc5")));
    assert!(!def("boolector").independent_of(&def("bitwuzla")));
    for d in &defs {
        assert!(d.dir.is_absolute(), "{}", d.name);
        assert_eq!(d.source.parent().unwrap(), shipped_dir());
    }
}

#[test]
fn logic_support_follows_solvers_md() {
    let (z3, yices, cvc4, bzla, btor) = (
        def("z3"),
        def("yices"),
        def("cvc4"),
        def("bitwuzla"),
        def("boolector"),
    );
    for logic in ["QF_UF", "QF_BV", "UFLIA", "QF_S", "QF_FP", "QF_NRA"] {
        assert!(z3.supports(logic), "{logic}");
        assert!(
            def("cvc5").supports(logic) && def("cvc5-py").supports(logic),
            "{logic}"
        );
    }
    for (logic, ok) in [
        ("QF_UF", true),
        ("QF_LIA", true),
        ("QF_ABV", true),
        ("QF_NRA", true),
        ("UFLIA", false),
        ("QF_S", false),
        ("QF_SLIA", false),
        ("QF_BVFP", false),
        ("QF_UFDT", false),
    ] {
        assert_eq!(yices.supports(logic), ok, "yices {logic}");
    }
    assert!(yices.supports_cores("QF_LIA"));
    for logic in ["QF_NRA", "QF_NIA", "QF_UFNIA", "QF_NIRA"] {
        assert!(
            yices.supports(logic) && !yices.supports_cores(logic),
            "{logic}"
        );
    }
    assert!(!cvc4.supports("QF_FP") && cvc4.supports("QF_S"));
    assert!(bzla.supports("QF_BV") && bzla.supports("QF_UFBV") && bzla.supports("QF_FP"));
    assert!(!bzla.supports("QF_LIA") && !bzla.supports("QF_AX"));
    assert!(btor.supports("QF_BV") && btor.supports("QF_ABV") && !btor.supports("QF_UFBV"));
    assert!(!btor.supports_cores("QF_BV"));
    assert!(!btor.accepts_named && btor.rejects("set-option") && !z3.rejects("set-option"));
}

#[test]
fn commands_substitute_every_placeholder() {
    let z3 = def("z3");
    let file = Path::new("/tmp/b/x.smt2");
    let (prog, args) = z3.command_for(file, Duration::from_millis(1500), 7);
    assert_eq!(prog, z3.dir.join("venv/bin/z3"));
    assert_eq!(
        args,
        [
            "-smt2",
            "-T:2",
            "smt.random_seed=7",
            "sat.random_seed=7",
            "/tmp/b/x.smt2"
        ]
    );
    let inv = Invocation {
        file,
        timeout: Duration::from_secs(3),
        seed: 1,
        memory_mb: Some(512),
        want_cores: true,
    };
    let (_, args) = z3.command(&inv);
    assert_eq!(
        args,
        [
            "-smt2",
            "-T:3",
            "-memory:512",
            "smt.random_seed=1",
            "sat.random_seed=1",
            "smt.core.minimize=true",
            "sat.core.minimize=true",
            "/tmp/b/x.smt2"
        ]
    );
    let (prog, args) = def("cvc5-py").command_for(file, Duration::from_millis(250), 0);
    assert!(prog.ends_with("venv/bin/python"));
    assert_eq!(
        args[0],
        shipped()[0]
            .dir
            .join("wrappers/cvc5py.py")
            .to_string_lossy()
    );
    assert_eq!(
        &args[1..],
        ["--tlimit-per=250", "--seed=0", "/tmp/b/x.smt2"]
    );
    let (_, args) = def("cvc5").command_for(file, Duration::ZERO, 0);
    assert!(args.contains(&"--tlimit-per=1".to_string()), "{args:?}");
    let (_, args) = def("boolector").command_for(file, Duration::from_millis(10), 0);
    assert_eq!(args, ["--smt2", "-t", "1", "/tmp/b/x.smt2"]);
}

#[test]
fn example_documents_every_key() {
    let example = shipped_dir().join(EXAMPLE_FILE);
    let d = load_file(&example, &shipped_dir()).expect("example.toml is a valid definition");
    let src = std::fs::read_to_string(&example).unwrap();
    for key in KEYS {
        assert!(
            src.lines().any(|l| l.starts_with(&format!("{key} ="))),
            "example.toml lacks {key}"
        );
    }
    // KEYS is exactly the set of serialized fields.
    let json = serde_json::to_value(&d).unwrap();
    let fields: BTreeSet<&str> = json
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(fields, KEYS.iter().copied().collect());
    assert!(
        !shipped().iter().any(|d| d.name == "mysolver"),
        "load_dir skips example.toml"
    );
}

fn load_one(text: &str) -> anyhow::Result<SolverDef> {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("bad.toml"), text).unwrap();
    load_dir(dir.path()).map(|mut v| v.remove(0))
}

const GOOD: &str = r#"name = "s"
team = "t"
command = ["/bin/true", "{file}"]
logics = ["*"]
produces_cores = false
version_command = ["/bin/true"]
install_hint = "none"
"#;

fn error_of(text: &str) -> String {
    format!("{:#}", load_one(text).expect_err("must fail"))
}

#[test]
fn broken_files_are_named_with_line() {
    assert_eq!(load_one(GOOD).unwrap().name, "s");
    let e = error_of(&GOOD.replace("team = \"t\"", "team = \"t\"\ncolour = \"red\""));
    assert!(
        e.contains("bad.toml") && e.contains("line 3") && e.contains("unknown field `colour`"),
        "{e}"
    );
    let e = error_of(&GOOD.replace("produces_cores = false", "produces_cores = \"no\""));
    assert!(
        e.contains("bad.toml") && e.contains("line 5") && e.contains("bool"),
        "{e}"
    );
    let e = error_of(&GOOD.replace("logics = [\"*\"]", "logics = [\"*\""));
    assert!(e.contains("bad.toml") && e.contains("line"), "{e}");
    let e = error_of(&GOOD.replace("team = \"t\"\n", ""));
    assert!(e.contains("missing field `team`"), "{e}");
    let e = error_of(&GOOD.replace("\"{file}\"", "\"{flie}\""));
    assert!(e.contains("bad.toml:3") && e.contains("{flie}"), "{e}");
    let e = error_of(&GOOD.replace(", \"{file}\"", ""));
    assert!(e.contains("bad.toml:3") && e.contains("{file}"), "{e}");
    let e = error_of(&GOOD.replace(
        "version_command = [\"/bin/true\"]",
        "version_command = [\"{seed}\"]",
    ));
    assert!(e.contains("bad.toml:6") && e.contains("{seed}"), "{e}");
    let e = error_of(&format!("{GOOD}version_regex = \"(\"\n"));
    assert!(
        e.contains("bad.toml:8") && e.contains("version_regex"),
        "{e}"
    );
    let e = error_of(&GOOD.replace("logics = [\"*\"]", "logics = [\"QF BV\"]"));
    assert!(
        e.contains("bad.toml:4") && e.contains("logic pattern"),
        "{e}"
    );
    let e = error_of(&format!("{GOOD}core_options = [\"-x\"]\n"));
    assert!(e.contains("produces_cores = false"), "{e}");
    let e = error_of(&GOOD.replace("name = \"s\"", "name = \"a/b\""));
    assert!(e.contains("bad.toml:1"), "{e}");
}

#[test]
fn duplicate_names_and_missing_dir() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.toml"), GOOD).unwrap();
    std::fs::write(dir.path().join("b.toml"), GOOD).unwrap();
    std::fs::write(dir.path().join("notes.txt"), "ignored").unwrap();
    let e = format!("{:#}", load_dir(dir.path()).unwrap_err());
    assert!(
        e.contains("b.toml") && e.contains("a.toml") && e.contains("\"s\""),
        "{e}"
    );
    let e = format!("{:#}", load_dir(&dir.path().join("nope")).unwrap_err());
    assert!(e.contains("nope") && e.contains("COREVAL_CHECKERS"), "{e}");
}

#[test]
fn installed_and_versions_of_shipped_solvers() {
    let want = [
        ("z3", "5.4.0"),
        ("yices", "2.6.5"),
        ("cvc5", "1.0.3"),
        ("cvc4", "1.8"),
        ("boolector", "1.5.118"),
        ("cvc5-py", "1.4.2-modified"),
        ("bitwuzla", "0.9.1"),
    ];
    for (name, version) in want {
        let d = def(name);
        assert!(d.is_installed(), "{name}: {:?}", d.missing());
        assert_eq!(d.probe_version().as_deref(), Some(version), "{name}");
    }
}

#[test]
fn missing_and_broken_solvers_are_reported() {
    let mut d = load_one(GOOD).unwrap();
    d.command[0] = "/nonexistent/solver".into();
    assert!(!d.is_installed());
    assert!(
        matches!(d.probe(), Probe::Missing { ref detail } if detail.contains("/nonexistent/solver"))
    );
    let mut d = load_one(GOOD).unwrap();
    d.command.insert(1, "{checkers}/wrappers/none.py".into());
    assert!(d.missing().is_some_and(|m| m.contains("wrappers/none.py")));
    let mut d = load_one(GOOD).unwrap();
    d.version_command = vec!["/bin/false".into()];
    assert!(matches!(d.probe(), Probe::Broken { .. }));
    let mut d = load_one(GOOD).unwrap();
    d.command[0] = "sh".into();
    d.version_command = vec!["sh".into(), "-c".into(), "echo v9".into()];
    assert_eq!(
        d.probe(),
        Probe::Ok {
            version: "v9".into()
        }
    );
}
