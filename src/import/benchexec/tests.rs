//! BenchExec import on a small result file with its log folder.

use super::*;
use crate::campaign::verdict::pair::Verdict;
use crate::import::BenchmarkInfo;

const XML: &str = r#"<?xml version="1.0"?>
<!DOCTYPE result PUBLIC "+//IDN sosy-lab.org//DTD BenchExec result 3.0//EN" "https://www.sosy-lab.org/benchexec/result-3.0.dtd">
<result benchmarkname="uc" date="2024-05-01 10:00:00 CEST" name="uc.z3" tool="Z3" version="4.13.0">
  <run files="[QF_UF/f/a.smt2]" name="QF_UF/f/a.smt2">
    <column title="status" value="unsat"/>
    <column title="cputime" value="1.25s"/>
    <column title="walltime" value="1.5s"/>
    <column title="memory" value="19820544B"/>
  </run>
  <run files="[QF_UF/f/b.smt2]" name="QF_UF/f/b.smt2">
    <column title="status" value="TIMEOUT"/>
    <column title="cputime" value="60.1s"/>
    <column title="walltime" value="60.2s"/>
    <column hidden="true" title="terminationreason" value="cputime"/>
  </run>
  <run files="[QF_UF/f/c.smt2]" name="QF_UF/f/c.smt2">
    <column title="status" value="unsat"/>
    <column title="walltime" value="2s"/>
  </run>
  <run files="[QF_UF/f/zz.smt2]" name="QF_UF/f/zz.smt2">
    <column title="status" value="sat"/>
    <column title="cputime" value="1s"/>
    <column title="walltime" value="1s"/>
  </run>
</result>
"#;

fn header(out: &str) -> String {
    format!("z3 -smt2 a.smt2\n\n\n{}\n\n\n{out}", "-".repeat(80))
}

#[test]
fn runs_logs_and_issues() {
    let dir = tempfile::tempdir().unwrap();
    let xml = dir.path().join("uc.2024-05-01_10-00-00.results.z3.xml");
    std::fs::write(&xml, XML).unwrap();
    let logs = default_log_dir(&xml);
    assert_eq!(logs.file_name().unwrap(), "uc.2024-05-01_10-00-00.logfiles");
    std::fs::create_dir(&logs).unwrap();
    std::fs::write(
        logs.join("z3.a.smt2.log"),
        header("success\nunsat\n(n1 n3)\n"),
    )
    .unwrap();
    std::fs::write(logs.join("z3.b.smt2.log"), header("")).unwrap();
    std::fs::write(logs.join("z3.c.smt2.log"), header("unsat\n")).unwrap();
    let lookup = |b: &str| {
        (b != "QF_UF/f/zz.smt2").then(|| BenchmarkInfo {
            division: "QF_UF".into(),
            assertions: 5,
        })
    };
    let opts = BenchExecOptions {
        solver: None,
        logs: None,
        lookup: &lookup,
    };
    let imp = import_file(&xml, &opts).unwrap();
    assert_eq!(imp.pairs.len(), 2);
    let a = &imp.pairs[0];
    assert_eq!(
        (a.solver.as_ref(), a.benchmark.as_ref()),
        ("Z3.z3", "QF_UF/f/a.smt2")
    );
    assert_eq!(
        (a.verdict.clone(), a.core_size, a.cpu, a.wall),
        (Verdict::Unchecked, Some(2), 1.25, 1.5)
    );
    assert_eq!(a.memory, 19_820_544);
    assert_eq!(a.core.as_deref(), Some(&["n1".into(), "n3".into()][..]));
    let b = &imp.pairs[1];
    assert_eq!(
        (b.verdict.clone(), b.status),
        (Verdict::NoAnswer, RunStatus::Timeout)
    );
    let msgs: Vec<String> = imp.issues.iter().map(|i| i.to_string()).collect();
    assert_eq!(msgs.len(), 2, "{msgs:?}");
    assert!(
        msgs[0].ends_with(":16: run has no `cputime` column"),
        "{msgs:?}"
    );
    assert!(
        msgs[1].contains(":20: benchmark `QF_UF/f/zz.smt2` is not known"),
        "{msgs:?}"
    );
}

/// BenchExec 3.35 names a result after its run definition and tasks block
/// (`name="z3.t" block="t"`) and zips its logs in a folder:
/// `uc.DATE.logfiles/z3.a.smt2.log`.
#[test]
fn benchexec_3_35_names_and_zipped_logs() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let xml = dir.path().join("uc.2026-12-03_08-39-40.results.z3.t.xml");
    let text = r#"<?xml version="1.0" encoding="utf-8"?>
<result benchmarkname="uc" tool="Z3" version="5.4.0" toolmodule="benchexec.tools.z3" generator="BenchExec 3.35" options="smt.core.minimize=true" block="t" name="z3.t">
  <run name="a.smt2" files="[a.smt2]">
    <column title="status" value="unsat"/>
    <column title="cputime" value="0.01s"/>
    <column title="walltime" value="0.02s"/>
  </run>
</result>
"#;
    std::fs::write(&xml, text).unwrap();
    let zip_path = dir.path().join("uc.2026-12-03_08-39-40.logfiles.zip");
    let mut zip = zip::ZipWriter::new(std::fs::File::create(&zip_path).unwrap());
    zip.start_file::<_, ()>(
        "uc.2026-12-03_08-39-40.logfiles/z3.a.smt2.log",
        Default::default(),
    )
    .unwrap();
    zip.write_all(header("unsat\n(smtcomp1 smtcomp3)\n").as_bytes())
        .unwrap();
    zip.finish().unwrap();
    let lookup = |_: &str| {
        Some(BenchmarkInfo {
            division: "QF_UF".into(),
            assertions: 3,
        })
    };
    let opts = BenchExecOptions {
        solver: None,
        logs: None,
        lookup: &lookup,
    };
    let imp = import_file(&xml, &opts).unwrap();
    assert!(imp.issues.is_empty(), "{:?}", imp.issues);
    let a = &imp.pairs[0];
    assert_eq!(a.solver.as_ref(), "Z3.z3");
    assert_eq!(a.core_size, Some(2));
}

#[test]
fn malformed_xml_is_an_error_with_line() {
    let lookup = |_: &str| None;
    let opts = BenchExecOptions {
        solver: Some("s".into()),
        logs: None,
        lookup: &lookup,
    };
    let e = import_str(
        "<result>\n<run name=\"a\">\n</result>",
        Path::new("r.xml"),
        &opts,
    )
    .unwrap_err();
    assert!(
        e.to_string().starts_with("r.xml:3: not well-formed XML"),
        "{e}"
    );
    let e = import_str("<html/>", Path::new("r.xml"), &opts).unwrap_err();
    assert!(e.to_string().contains("not a BenchExec result file"), "{e}");
}

#[test]
fn header_is_stripped() {
    assert_eq!(strip_log_header(header("unsat\n").as_bytes()), b"unsat\n");
    assert_eq!(strip_log_header(b"unsat\n"), b"unsat\n");
}
