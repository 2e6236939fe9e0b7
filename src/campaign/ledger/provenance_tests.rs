//! Tests of [`super`]: records against what the configuration runs now,
//! compact and inline, and the cache keys.

use super::*;

fn limits(t: f64) -> Limits {
    Limits {
        time: Some(t),
        checker_time: None,
        memory_mb: None,
        grace: 2.0,
        output_cap: 16,
    }
}

fn expected_with(time: f64) -> Expected {
    let template = vec!["/bin/z3".into(), "-T:10".into(), "{file}".into()];
    let program = Program {
        executable: Some(FileId {
            path: "/bin/z3".into(),
            blake3: "aa".into(),
        }),
        script: None,
        version: Some("4.13".into()),
    };
    Expected {
        id: crate::campaign::ledger::configs::id_of(&template, &limits(time), &program),
        template,
        limits: limits(time),
        program,
        unverified: false,
    }
}

fn expected() -> Expected {
    expected_with(10.0)
}

#[test]
fn a_record_matches_only_what_would_run_now() {
    let x = expected();
    let none = Table::default();
    let p = x.provenance(&none, "named/a.smt2", true, Some("b1"));
    assert_eq!(p.command[2], "named/a.smt2", "no table: inline");
    let differs = |q: &Provenance, b| x.differs(Some(q), Some(b), &none);
    assert_eq!(differs(&p, "b1"), None);
    assert_eq!(differs(&p, "b2"), Some("benchmark changed"));
    assert!(x
        .differs(None, Some("b1"), &none)
        .unwrap()
        .contains("without provenance"));
    let mut q = p.clone();
    q.limits = limits(5.0).into();
    assert_eq!(differs(&q, "b1"), Some("limits changed"));
    let mut q = p.clone();
    q.command.push("-v".into());
    assert_eq!(differs(&q, "b1"), Some("command changed"));
    let mut q = p.clone();
    q.program.executable.as_mut().unwrap().blake3 = "bb".into();
    assert_eq!(differs(&q, "b1"), Some("program changed"));
    let mut q = p.clone();
    q.program.executable.as_mut().unwrap().path = "/elsewhere/z3".into();
    assert_eq!(differs(&q, "b1"), None, "paths are not compared");
    let mut q = p.clone();
    q.command[0] = "/links/z3".into();
    assert_eq!(
        differs(&q, "b1"),
        None,
        "the program's path in the command is not compared"
    );
    let mut q = p;
    q.program.version = Some("4.14".into());
    assert_eq!(differs(&q, "b1"), Some("version changed"));
}

#[test]
fn a_script_given_to_an_interpreter_is_compared_by_hash_not_path() {
    let mut x = expected();
    x.template = vec![
        "/k/venv/bin/python".into(),
        "/k/wrappers/w.py".into(),
        "--seed=0".into(),
        "{file}".into(),
    ];
    x.program.script = Some(FileId {
        path: "/k/wrappers/w.py".into(),
        blake3: "cc".into(),
    });
    x.id = crate::campaign::ledger::configs::id_of(&x.template, &x.limits, &x.program);
    let none = Table::default();
    let p = x.provenance(&none, "cores/h.smt2", true, None);
    let mut q = p.clone();
    q.of = None;
    q.command[0] = "/links/venv/bin/python".into();
    q.command[1] = "/links/wrappers/w.py".into();
    assert_eq!(x.differs(Some(&q), None, &none), None);
    assert_eq!(x.key(), key_parts(&q.template(), &q.limits, &q.program));
    q.command[2] = "--seed=1".into();
    assert_eq!(x.differs(Some(&q), None, &none), Some("command changed"));
    let mut q = p;
    q.program.script.as_mut().unwrap().blake3 = "dd".into();
    assert_eq!(x.differs(Some(&q), None, &none), Some("program changed"));
}

#[test]
fn compact_records_refer_to_the_table_and_compare_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let table = Table::at(dir.path().join("provenance.jsonl"));
    let (x, y) = (expected(), expected_with(5.0));
    let (h1, h2) = ("1".repeat(64), "2".repeat(64));
    let p = x.provenance(&table, "named/a.smt2", true, Some(&h1));
    assert_eq!(p.of.as_deref(), Some(x.id.as_str()));
    assert!(p.command.is_empty() && p.file.is_empty());
    assert_eq!(p.benchmark.as_deref(), Some(&h1[..16]));
    let line = serde_json::to_string(&p).unwrap();
    assert!(line.len() < 60, "{line}");
    assert_eq!(x.differs(Some(&p), Some(&h1), &table), None);
    assert_eq!(
        x.differs(Some(&p), Some(&h2), &table),
        Some("benchmark changed")
    );
    // Another configuration's record: the reason, from its table line.
    assert_eq!(
        y.differs(Some(&p), Some(&h1), &table),
        Some("limits changed")
    );
    let mut q = p.clone();
    q.of = Some("0123456789abcdef".into());
    assert!(x
        .differs(Some(&q), Some(&h1), &table)
        .unwrap()
        .contains("not in provenance.jsonl"));
    // An inline record of the same configuration still counts.
    let inline = x.config().inline("named/a.smt2", Some(h1.clone()));
    assert_eq!(x.differs(Some(&inline), Some(&h1), &table), None);
    // Read back from the file, in a fresh table.
    let again = Table::at(dir.path().join("provenance.jsonl"));
    assert!(again.has(&x.id));
}

#[test]
fn cache_keys_change_with_the_program_and_need_a_version() {
    let x = expected();
    let mut y = expected();
    y.program.script = Some(FileId {
        path: "/w.py".into(),
        blake3: "cc".into(),
    });
    assert!(x.key().is_some());
    assert_ne!(x.key(), y.key());
    y.program.version = None;
    assert_eq!(y.key(), None);
    assert_eq!(
        core_source(Some("h"), &["b".into(), "a".into()]),
        core_source(Some("h"), &["a".into(), "b".into(), "a".into()])
    );
    assert_ne!(
        core_source(Some("h"), &["a".into()]),
        core_source(Some("g"), &["a".into()])
    );
    // The comparison without text agrees with the text it compares to.
    let cases: [(Option<&str>, Vec<String>); 4] = [
        (Some("h"), vec!["b".into(), "a".into(), "b".into()]),
        (None, vec![]),
        (Some(""), vec!["x y".into()]),
        (Some("ab"), vec!["c".into()]),
    ];
    for (i, (bench, core)) in cases.iter().enumerate() {
        let source = core_source(*bench, core);
        assert!(is_core_source(&source, *bench, core));
        for (j, (other, other_core)) in cases.iter().enumerate() {
            assert_eq!(is_core_source(&source, *other, other_core), i == j);
        }
    }
    assert!(!is_core_source("not hex", Some("h"), &[]));
}

#[test]
fn scripts_and_interpreters_are_identified() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("wrap.sh");
    std::fs::write(&script, "#!/bin/sh\nexec z3 \"$@\"\n").unwrap();
    let interp = interpreter(&script).unwrap().unwrap();
    assert!(interp.ends_with("sh"));
    assert!(interpreter(Path::new("/nonexistent")).is_none());
    assert_eq!(
        hash_file(&script).unwrap(),
        blake3::hash(b"#!/bin/sh\nexec z3 \"$@\"\n")
            .to_hex()
            .to_string()
    );
}
