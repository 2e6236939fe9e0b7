//! `coreval score --benchexec-xml DIR`: one BenchExec result file per
//! solver, `DIR/<solver>.results.<edition>.xml.bz2`, laid out as
//! `benchexec` 3.x writes its own (the `result` root with the run set's
//! attributes, `<columns>`, `<systeminfo>`, one `<run name="ID"
//! files="[ID]">` per pair with its `status`, `cputime`, `walltime`,
//! `memory`, `category` and, when killed, `terminationreason`), so that
//! BenchExec's `table-generator` makes its HTML and CSV tables of them.
//!
//! `status` is the answer as BenchExec writes an SMT-LIB tool's (`unsat`,
//! `sat`, `unknown`, `TIMEOUT`, `OUT OF MEMORY`, `ERROR (no answer)`), an
//! `unsat` whose core did not pass saying why (`unsat (core refuted)`,
//! `unsat (core not validated)`, `unsat (no core)`…); `category` is how
//! the pair counted under the rules edition ([`Outcome`]): `correct`,
//! `wrong`, `error` (killed or no answer) or `unknown` (no points, no
//! error). Visible extra columns: `core` (its size) and `verdict` (coreval's
//! label). A run's exit code is not kept with the scored pairs, so no
//! `returnvalue` is written.

use super::{Outcome, Scored};
use crate::campaign::verdict::pair::{PairRecord, RunStatus, Verdict};
use anyhow::Result;
use quick_xml::escape::escape;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::Write;
use std::path::{Path, PathBuf};

/// BenchExec's `status` of a pair scored by `verdict` that counted as `o`.
pub fn status_of(rec: &PairRecord, verdict: &Verdict, o: Outcome) -> String {
    let plain = match verdict {
        Verdict::Validated => "unsat".to_string(),
        Verdict::Refuted => "unsat (core refuted)".into(),
        Verdict::NotValidated => "unsat (core not validated)".into(),
        Verdict::Unchecked => "unsat (core not checked)".into(),
        Verdict::IllFormed { reason } => format!("unsat (ill-formed core: {})", reason.label()),
        Verdict::UnsatNoCore => "unsat (no core)".into(),
        Verdict::SatAnswer | Verdict::SatUnconfirmed => "sat".into(),
        Verdict::Unknown => "unknown".into(),
        Verdict::NoAnswer => match rec.status {
            RunStatus::Timeout => return "TIMEOUT".into(),
            RunStatus::Memout => return "OUT OF MEMORY".into(),
            RunStatus::Complete => return "ERROR (no answer)".into(),
        },
    };
    match (rec.contradiction, o) {
        (Some(c), _) => format!("{plain} ({})", c.label()),
        (None, Outcome::Timeout) => "TIMEOUT".into(),
        (None, Outcome::Memout) => "OUT OF MEMORY".into(),
        _ => plain,
    }
}

/// BenchExec's `category` of a pair scored by `verdict` that counted as
/// `o`: a run with no answer at all is an `error`, as BenchExec has it.
pub fn category_of(verdict: &Verdict, o: Outcome) -> &'static str {
    match o {
        Outcome::Solved => "correct",
        Outcome::Wrong | Outcome::WrongSat => "wrong",
        Outcome::Timeout | Outcome::Memout => "error",
        Outcome::Nothing if *verdict == Verdict::NoAnswer => "error",
        Outcome::Nothing => "unknown",
    }
}

/// The file of `solver` in `dir` (its name kept to letters, digits, `.`,
/// `_` and `-`).
pub fn path_of(dir: &Path, solver: &str, edition: &str) -> PathBuf {
    let safe: String = solver
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "._-".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    dir.join(format!("{safe}.results.{edition}.xml.bz2"))
}

/// Write one file per solver into `dir` (made if missing), each
/// atomically; the files written, in solver order.
pub fn write(dir: &Path, s: &Scored) -> Result<Vec<PathBuf>> {
    let mut by_solver: BTreeMap<&str, Vec<&PairRecord>> = BTreeMap::new();
    for rec in s.pairs {
        by_solver.entry(&rec.solver).or_default().push(rec);
    }
    let edition = s.rules.edition.name();
    let mut written: Vec<PathBuf> = Vec::new();
    for (solver, pairs) in by_solver {
        let mut path = path_of(dir, solver, edition);
        // Two names made alike by the file name's letters: numbered.
        let mut n = 1;
        while written.contains(&path) {
            n += 1;
            path = path_of(dir, &format!("{solver}-{n}"), edition);
        }
        let text = document(s, solver, &pairs);
        crate::store::journal::write_atomic_with(&path, |w| {
            let mut bz = bzip2::write::BzEncoder::new(w, bzip2::Compression::default());
            bz.write_all(text.as_bytes())?;
            bz.finish()?;
            Ok(())
        })?;
        written.push(path);
    }
    Ok(written)
}

/// The result document of one solver's pairs.
fn document(s: &Scored, solver: &str, pairs: &[&PairRecord]) -> String {
    let e = |t: &str| escape(t).into_owned();
    let facts = s.facts;
    let limits = facts.map(|f| &f.limits);
    let timelimit = limits.and_then(|l| l.time).unwrap_or(s.rules.time_limit);
    let memlimit = limits
        .and_then(|l| l.memory_mb)
        .map(|mb| format!(" memlimit=\"{}B\"", mb * 1024 * 1024))
        .unwrap_or_default();
    let own = facts.and_then(|f| f.solvers.iter().find(|x| x.name == solver));
    let version = own
        .and_then(|x| x.program.version.clone())
        .unwrap_or_default();
    let options = own
        .map(|x| {
            x.command
                .iter()
                .skip(1)
                .cloned()
                .collect::<Vec<_>>()
                .join(" ")
        })
        .unwrap_or_default();
    let date = crate::store::lock::now_utc();
    let iso = iso_of(&date);
    let mut out = String::with_capacity(512 + 400 * pairs.len());
    out.push_str(
        "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<!DOCTYPE result\n  PUBLIC '+//IDN sosy-lab.org//DTD BenchExec result 3.12//EN'\n  'https://www.sosy-lab.org/benchexec/result-3.12.dtd'>\n",
    );
    let _ = writeln!(
        out,
        "<result benchmarkname=\"{name}\" date=\"{date}\" starttime=\"{iso}\" tool=\"{tool}\" version=\"{version}\" toolmodule=\"coreval\" generator=\"coreval {generator}\"{memlimit} timelimit=\"{timelimit}s\" options=\"{options}\" block=\"{edition}\" name=\"{tool}.{edition}\" endtime=\"{iso}\">",
        name = e(s.name),
        tool = e(solver),
        version = e(&version),
        generator = env!("CARGO_PKG_VERSION"),
        options = e(&options),
        edition = s.rules.edition.name(),
    );
    out.push_str("  <columns>\n");
    for c in ["status", "cputime", "walltime", "memory", "core", "verdict"] {
        let _ = writeln!(out, "    <column title=\"{c}\"/>");
    }
    out.push_str("  </columns>\n");
    out.push_str(&systeminfo(facts.is_some()));
    let (mut cpu, mut wall) = (0.0, 0.0);
    for rec in pairs {
        let verdict = s.verdict(rec);
        let o = super::outcome(rec, &verdict, s.rules);
        let id = e(&rec.benchmark);
        let _ = writeln!(out, "  <run name=\"{id}\" files=\"[{id}]\">");
        let mut col = |title: &str, value: &str, hidden: bool| {
            let h = if hidden { " hidden=\"true\"" } else { "" };
            let _ = writeln!(
                out,
                "    <column title=\"{title}\" value=\"{}\"{h}/>",
                e(value)
            );
        };
        col("status", &status_of(rec, &verdict, o), false);
        col("cputime", &format!("{}s", rec.cpu), false);
        col("walltime", &format!("{}s", rec.wall), false);
        if rec.memory > 0 {
            col("memory", &format!("{}B", rec.memory), false);
        }
        if let Some(n) = rec.core_size {
            col("core", &n.to_string(), false);
        }
        col("verdict", &verdict.label(), false);
        col("category", category_of(&verdict, o), true);
        match rec.status {
            RunStatus::Timeout => col("terminationreason", "walltime", true),
            RunStatus::Memout => col("terminationreason", "memory", true),
            RunStatus::Complete => {}
        }
        out.push_str("  </run>\n");
        cpu += rec.cpu;
        wall += rec.wall;
    }
    let _ = writeln!(out, "  <column title=\"cputime\" value=\"{cpu}s\"/>");
    let _ = writeln!(out, "  <column title=\"walltime\" value=\"{wall}s\"/>");
    out.push_str("</result>\n");
    out
}

/// `<systeminfo>` as BenchExec writes it (`os`, `cpu` and `ram`, which
/// `table-generator` requires): of this machine for a campaign (`here`:
/// scored where it ran), else `unknown` throughout (an archive's runs
/// went elsewhere).
fn systeminfo(here: bool) -> String {
    let unknown = || "unknown".to_string();
    let (host, os, cpu, cores, ram) = if here {
        let proc = |path: &str, key: &str| {
            let text = std::fs::read_to_string(path).unwrap_or_default();
            text.lines()
                .find(|l| l.starts_with(key))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_string())
        };
        let ram = proc("/proc/meminfo", "MemTotal")
            .and_then(|kb| kb.trim_end_matches(" kB").parse::<u64>().ok())
            .map_or_else(unknown, |kb| format!("{}B", kb * 1024));
        let cores =
            std::thread::available_parallelism().map_or_else(|_| unknown(), |n| n.to_string());
        (
            crate::store::lock::hostname(),
            os_name().unwrap_or_else(unknown),
            proc("/proc/cpuinfo", "model name").unwrap_or_else(unknown),
            cores,
            ram,
        )
    } else {
        (unknown(), unknown(), unknown(), unknown(), unknown())
    };
    let e = |t: &str| escape(t).into_owned();
    format!(
        "  <systeminfo hostname=\"{}\">\n    <os name=\"{}\"/>\n    <cpu model=\"{}\" cores=\"{}\"/>\n    <ram size=\"{}\"/>\n  </systeminfo>\n",
        e(&host),
        e(&os),
        e(&cpu),
        e(&cores),
        e(&ram)
    )
}

/// `Linux-RELEASE-MACHINE`, as BenchExec names the system (uname).
fn os_name() -> Option<String> {
    // SAFETY: utsname is arrays of C chars, for which all zeros is valid.
    let mut u: libc::utsname = unsafe { std::mem::zeroed() };
    // SAFETY: `u` is a valid, writable utsname that uname fills.
    if unsafe { libc::uname(&mut u) } != 0 {
        return None;
    }
    let text = |f: &[libc::c_char]| {
        let bytes: Vec<u8> = f
            .iter()
            .take_while(|c| **c != 0)
            .map(|c| *c as u8)
            .collect();
        String::from_utf8_lossy(&bytes).into_owned()
    };
    Some(format!(
        "{}-{}-{}",
        text(&u.sysname),
        text(&u.release),
        text(&u.machine)
    ))
}

/// `YYYY-MM-DD HH:MM:SS UTC` as BenchExec's ISO times,
/// `YYYY-MM-DDTHH:MM:SS+00:00`.
fn iso_of(date: &str) -> String {
    format!(
        "{}+00:00",
        date.trim_end_matches(" UTC").replacen(' ', "T", 1)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_say_what_became_of_the_core() {
        let rec = |verdict: Verdict, status: RunStatus| PairRecord {
            assertions: 5,
            core_size: Some(2),
            verdict,
            status,
            ..PairRecord::default()
        };
        let rules = crate::score::rules::Edition::Smtcomp2025.rules();
        let of = |r: PairRecord| {
            let o = super::super::outcome(&r, &r.verdict, &rules);
            (status_of(&r, &r.verdict, o), category_of(&r.verdict, o))
        };
        let t = |a: &str, b: &'static str| (a.to_string(), b);
        use RunStatus::*;
        assert_eq!(of(rec(Verdict::Validated, Complete)), t("unsat", "correct"));
        assert_eq!(
            of(rec(Verdict::Refuted, Complete)),
            t("unsat (core refuted)", "wrong")
        );
        assert_eq!(of(rec(Verdict::NoAnswer, Timeout)), t("TIMEOUT", "error"));
        assert_eq!(
            of(rec(Verdict::NoAnswer, Memout)),
            t("OUT OF MEMORY", "error")
        );
        assert_eq!(
            of(rec(Verdict::NoAnswer, Complete)),
            t("ERROR (no answer)", "error")
        );
        assert_eq!(
            of(rec(Verdict::SatUnconfirmed, Complete)),
            t("sat", "unknown")
        );
        assert_eq!(
            iso_of("2026-01-02 03:04:05 UTC"),
            "2026-01-02T03:04:05+00:00"
        );
        assert!(path_of(Path::new("d"), "a b/c", "smtcomp-2025")
            .ends_with("a_b_c.results.smtcomp-2025.xml.bz2"));
    }
}
