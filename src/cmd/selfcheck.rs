//! `coreval selfcheck --solver '<command with {file}>' <BENCH…>`: check a
//! solver's cores on an author's own benchmarks in one command; one line per
//! benchmark and a summary on stdout, warnings on stderr, optional JUnit XML,
//! exit code 0 (no failure), 1 (some failure), 2 (usage or tool error), 3
//! (nothing could be judged: no benchmark passed or failed) or 130
//! (interrupted).

use crate::campaign::verdict::policy::Policy;
use crate::cmd::exit;
use crate::selfcheck::outcome::{BenchResult, Outcome};
use crate::selfcheck::{self, junit, printable, Options, Report, Setup};
use anyhow::Result;
use clap::Args;
use std::io::Write;
use std::path::{Path, PathBuf};

#[derive(Args, Debug)]
pub struct SelfcheckArgs {
    /// The solver command; `{file}` stands for the benchmark. Split into
    /// words like a POSIX shell would (quotes, backslashes), but no shell
    /// runs it: no variables, globs or pipes.
    #[arg(long)]
    pub solver: String,
    /// Benchmark files, or folders searched recursively for .smt2 files.
    #[arg(required = true)]
    pub benchmarks: Vec<PathBuf>,
    /// Wall-clock seconds per solver run.
    #[arg(long, default_value_t = 60.0)]
    pub timeout: f64,
    /// Wall-clock seconds per checker run.
    #[arg(long, default_value_t = 60.0)]
    pub checker_timeout: f64,
    /// Parallel jobs (0 = number of cores).
    #[arg(long, short, default_value_t = 0)]
    pub jobs: usize,
    /// Checkers to validate cores with (comma-separated definition names;
    /// default: every installed one).
    #[arg(long, value_delimiter = ',')]
    pub checkers: Vec<String>,
    /// Decision policy preset: smtcomp-2016, -2017, -2018, -2025, unanimous, quorum:K.
    #[arg(long, default_value = "smtcomp-2025", value_parser = parse_policy)]
    pub policy: Policy,
    /// The solver's team: checkers of the same team do not check its cores.
    /// Added to it: the team of every checker whose program, wrapper script
    /// or name the command runs (`cvc5 …` is team cvc). Default: that team,
    /// else the program's file name.
    #[arg(long)]
    pub team: Option<String>,
    /// Write JUnit XML here (one testcase per benchmark).
    #[arg(long)]
    pub junit: Option<PathBuf>,
    /// Do not run the core-producing checkers as reference solvers (no
    /// "best" column, and a `sat` answer on a benchmark without `:status`
    /// cannot be confirmed).
    #[arg(long)]
    pub no_references: bool,
    /// Every benchmark without a validated core fails (timeouts, unknown,
    /// undecided cores included).
    #[arg(long)]
    pub strict: bool,
    /// Keep the campaign (named benchmarks, runs, core-only benchmarks) in
    /// this new or empty folder instead of a temporary one.
    #[arg(long)]
    pub workdir: Option<PathBuf>,
    /// Keep the benchmarks and cores of every FAIL and SKIP that had a run
    /// (the named benchmark the solver ran on, the core-only benchmark the
    /// checkers decided on) in this folder; default `coreval-selfcheck-kept`
    /// in the current folder. Files of earlier runs are overwritten.
    #[arg(long, value_name = "DIR")]
    pub keep: Option<PathBuf>,
    /// MB of the solver's stdout (and stderr) kept per run; a core line
    /// beyond it is cut (default 16).
    #[arg(long, value_name = "MB", value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    pub output_cap: Option<u64>,
    /// Where the solver prints its answers: stdout (default), stderr, or
    /// both (read one after the other).
    #[arg(long, value_parser = parse_stream)]
    pub answer_stream: Option<crate::answer::AnswerStream>,
    /// Folder of solver/checker definitions (default: $COREVAL_CHECKERS or checkers/).
    #[arg(long)]
    pub checkers_dir: Option<PathBuf>,
    /// Also test each validated core for subset-minimality: `minimal`,
    /// `redundant` (naming the members proven removable) or `unknown`.
    #[arg(long)]
    pub minimality: bool,
    /// Seconds of checker time per core for `--minimality`.
    #[arg(long, value_name = "SECONDS", default_value_t = 60.0)]
    pub minimality_budget: f64,
    /// Competition rehearsal: run each benchmark as K scrambled variants
    /// (seeds from the --rules edition's formula) and map each core back.
    #[arg(long, value_name = "K", conflicts_with = "scramble_seeds")]
    pub scrambles: Option<u32>,
    /// The edition whose seed formula gives the --scrambles seeds
    /// (default smtcomp-2025).
    #[arg(long, value_name = "PRESET", requires = "scrambles")]
    pub rules: Option<crate::score::rules::Edition>,
    /// The entrant number the --scrambles seeds are computed from (default 0).
    #[arg(long, value_name = "N", requires = "scrambles")]
    pub scramble_base: Option<u32>,
    /// Rehearse with these seeds (to repeat a failure), comma-separated.
    #[arg(long, value_name = "SEEDS", value_delimiter = ',')]
    pub scramble_seeds: Vec<u32>,
    #[command(flatten)]
    pub after: crate::cmd::diff::AfterSelfcheck,
}

fn parse_policy(s: &str) -> Result<Policy, String> {
    s.parse()
}

fn parse_stream(s: &str) -> Result<crate::answer::AnswerStream, String> {
    serde_json::from_value(serde_json::Value::String(s.into()))
        .map_err(|_| format!("'{s}': expected stdout, stderr or both"))
}

pub fn run(args: SelfcheckArgs) -> Result<u8> {
    check_outputs(&args)?;
    let opts = Options {
        solver: selfcheck::split_command(&args.solver)?,
        team: args.team.clone(),
        benchmarks: args.benchmarks.clone(),
        timeout: args.timeout,
        checker_timeout: args.checker_timeout,
        jobs: args.jobs,
        checkers: args.checkers.clone(),
        policy: args.policy,
        references: !args.no_references,
        strict: args.strict,
        checkers_dir: args.checkers_dir.clone(),
        workdir: args.workdir.clone(),
        answer_stream: args.answer_stream,
        minimality: args.minimality,
        minimality_budget: args.minimality_budget,
        scramble_seed: None,
        keep: args.keep.clone(),
        output_cap_mb: args.output_cap,
        tell: crate::progress::shown(),
    };
    crate::cmd::interrupt::install();
    if args.scrambles.is_some() || !args.scramble_seeds.is_empty() {
        return rehearse(&args, &opts);
    }
    let mut report = selfcheck::run(
        &opts,
        crate::cmd::interrupt::flag(),
        &mut |s| header(s),
        &mut |w| eprintln!("warning: {}", printable(&w)),
        &mut tell,
    )?;
    args.after.shrink(&mut report, &opts)?;
    finish(&args, &report, None)
}

/// Every output path checked before any solver starts ([`crate::cmd::writable`]):
/// `--junit`, `--json`, `--baseline`, and the keep folder when it is
/// given or `--shrink` writes to it (the default folder is only made when
/// something fails, so an unwritable current folder is no reason to refuse).
fn check_outputs(args: &SelfcheckArgs) -> Result<()> {
    use crate::cmd::writable;
    let keep = crate::selfcheck::repro::keep_dir(args.keep.as_deref());
    let mut checks = Vec::new();
    if args.keep.is_some() || args.after.shrink {
        checks.push(("--keep", keep.as_path(), writable::folder(&keep)));
    }
    if let Some(p) = &args.junit {
        checks.push(("--junit", p.as_path(), writable::file(p)));
    }
    if let Some(p) = &args.after.json {
        checks.push(("--json", p.as_path(), writable::file(p)));
    }
    if let Some(p) = &args.after.baseline {
        checks.push(("--baseline", p.as_path(), crate::diff::load(p).map(|_| ())));
    }
    writable::all(&checks)
}

/// The header line: the solver, its team and how it was decided, the
/// checkers, those left out as its team, the references.
fn header(s: &Setup) {
    let runs: Vec<String> = s
        .runs
        .iter()
        .map(|(k, why)| format!("{why} (checker {k})"))
        .collect();
    let none = |v: &[String]| {
        if v.is_empty() {
            "none".into()
        } else {
            v.join(", ")
        }
    };
    eprintln!(
        "selfcheck: {} benchmark(s); solver `{}` (team {}{}); checkers {} of {} ({}); left out as the solver's team: {}; references {}",
        s.benchmarks,
        s.solver,
        s.team,
        match (&s.team_how, runs.is_empty()) {
            (Some(how), true) => format!("; {how}"),
            (Some(how), false) => format!("; {how}; {}", runs.join(", ")),
            (None, _) => format!("; {}", runs.join(", ")),
        },
        s.checkers.join(", "),
        s.checkers_dir.display(),
        s.policy,
        none(&s.excluded),
        none(&s.references),
    );
    if let Some(b) = s.minimality_budget {
        eprintln!(
            "selfcheck: minimality of validated cores tested ({b} s of checker time per core)"
        );
    }
}

/// Print the report (and JUnit), say what was kept, and the exit code.
fn finish(args: &SelfcheckArgs, report: &Report, variants: Option<&Path>) -> Result<u8> {
    if report.interrupted {
        eprintln!("interrupted: nothing reported");
        return Ok(exit::INTERRUPTED);
    }
    print_report(report)?;
    if junit::under_github_actions() {
        let mut out = crate::cmd::out::stdout();
        for line in junit::github_annotations(&report.results) {
            writeln!(out, "{line}")?;
        }
    }
    // A write that fails now loses nothing else: the verdicts are printed,
    // every other output is written, then the exit code says it.
    let mut failed = Vec::new();
    if let Some(path) = &args.junit {
        match junit::write(
            path,
            &report.results,
            &report.setup.properties(),
            report.elapsed,
        ) {
            Ok(()) => eprintln!("JUnit XML: {}", path.display()),
            Err(e) => failed.push(e),
        }
    }
    if let Some(d) = &report.workdir {
        eprintln!("campaign kept in {}", d.display());
    }
    if let Some(d) = variants {
        eprintln!("scrambled variants kept in {}", d.display());
    }
    if let Some(d) = &report.kept {
        eprintln!(
            "benchmarks and cores of the FAILs and SKIPs kept in {}",
            d.display()
        );
    }
    let code = exit_code(report);
    let compared = args.after.compare(report).unwrap_or_else(|e| {
        failed.push(e);
        None
    });
    if !failed.is_empty() {
        for e in &failed {
            eprintln!("Error: {e:#}");
        }
        return Ok(exit::TOOL_ERROR);
    }
    Ok(compared.unwrap_or(code))
}

/// 1 when a benchmark failed, 3 when none passed or failed, else 0.
fn exit_code(report: &Report) -> u8 {
    if report.count(Outcome::Failed) > 0 {
        exit::FAILURES
    } else if report.count(Outcome::Passed) == 0 {
        eprintln!("selfcheck: nothing could be judged (no benchmark passed or failed)");
        exit::NOTHING_JUDGED
    } else {
        exit::OK
    }
}

/// `--scrambles K` / `--scramble-seeds`: the competition rehearsal.
fn rehearse(args: &SelfcheckArgs, opts: &Options) -> Result<u8> {
    use crate::selfcheck::rehearsal::{self, Seeds};
    let seeds = match args.scrambles {
        Some(count) => Seeds::Formula {
            count,
            edition: args
                .rules
                .unwrap_or(crate::score::rules::Edition::Smtcomp2025),
            base: args.scramble_base.unwrap_or(0),
        },
        None => Seeds::Given(args.scramble_seeds.clone()),
    };
    let done = rehearsal::run(
        opts,
        &seeds,
        crate::cmd::interrupt::flag(),
        &mut |s, seeds, how| {
            header(s);
            let shown: Vec<String> = seeds.iter().map(|s| s.to_string()).collect();
            eprintln!(
                "selfcheck: rehearsal over {} scrambled variant(s), seeds {} ({how})",
                seeds.len(),
                shown.join(", ")
            );
        },
        &mut |w| eprintln!("warning: {}", printable(&w)),
        &mut tell,
    )?;
    finish(args, &done.report, done.kept.as_deref())
}

/// One line per benchmark (details indented below failures and skips), then
/// the summary.
fn print_report(report: &Report) -> std::io::Result<()> {
    let mut out = crate::cmd::out::stdout();
    let width = Widths::of(&report.results);
    for r in &report.results {
        for l in block(r, width) {
            writeln!(out, "{l}")?;
        }
    }
    writeln!(out, "{}", summary(report))?;
    out.flush()
}

/// [`decided`]'s line on a terminal (the progress bar's), nothing elsewhere.
fn tell(r: &BenchResult) {
    if crate::progress::shown() {
        crate::progress::suspend(|| eprintln!("{}", decided(r)));
    }
}

/// A result as soon as it is final, on a terminal's stderr (like the
/// progress bar): `decided: PASS validated  path`. The ordered list on
/// stdout follows at the end; these lines have no columns to align.
pub fn decided(r: &BenchResult) -> String {
    printable(&format!(
        "decided: {} {}  {}",
        tag(r.outcome),
        r.verdict,
        r.path
    ))
}

/// The best-known core and the minimality of a line, each followed by
/// two spaces (empty when it has neither).
fn beyond(r: &BenchResult) -> String {
    let mut beyond = String::new();
    if let Some(b) = &r.best_known {
        beyond.push_str(&format!(
            "best-known {}/{} ({})  ",
            b.size, r.assertions, b.origin
        ));
    }
    if let Some(m) = &r.minimality {
        beyond.push_str(&crate::selfcheck::outcome::minimality_text(m));
        beyond.push_str("  ");
    }
    beyond
}

/// One benchmark as printed: its line and, unless it passed, its detail
/// lines (the FAIL or SKIP block), control characters escaped. Everything
/// a result prints goes through here.
pub fn block(r: &BenchResult, width: Widths) -> Vec<String> {
    let mut out = vec![printable(&line(r, width))];
    if r.outcome != Outcome::Passed {
        out.extend(r.details.iter().map(|d| format!("     {}", printable(d))));
    }
    out
}

/// `FAIL refuted  core 4/8  reduction -  best 3 (z3)  0.031 s  path`.
pub fn line(r: &BenchResult, width: Widths) -> String {
    let tag = tag(r.outcome);
    let core = match (r.core_size, r.time) {
        (Some(k), _) => format!("{k}/{}", r.assertions),
        (None, Some(_)) => format!("-/{}", r.assertions),
        (None, None) => "-".into(),
    };
    let reduction = r
        .reduction
        .map(|n| n.to_string())
        .unwrap_or_else(|| "-".into());
    let best = r
        .best
        .as_ref()
        .map(|b| match b.checked {
            true => format!("{} ({})", b.reduction, b.solver),
            false => "≤ yours".into(),
        })
        .unwrap_or_else(|| "-".into());
    let time = r
        .time
        .map(|t| format!("{t:.3} s"))
        .unwrap_or_else(|| "-".into());
    let beyond = beyond(r);
    // What not every line has is padded to the widest: the time and the
    // path stay in their columns.
    let beyond_width = width.beyond;
    let width = width.verdict;
    format!(
        "{tag} {:<width$}  core {core:<7}  reduction {reduction:<4}  best {best:<14}  {beyond:<beyond_width$}{time:>9}  {}",
        r.verdict, r.path
    )
}

/// `PASS`, `FAIL` or `SKIP`.
fn tag(o: Outcome) -> &'static str {
    match o {
        Outcome::Passed => "PASS",
        Outcome::Failed => "FAIL",
        Outcome::Skipped => "SKIP",
    }
}

/// The widths of a report's variable columns.
#[derive(Clone, Copy, Debug, Default)]
pub struct Widths {
    /// The longest verdict.
    pub verdict: usize,
    /// The longest best-known and minimality text (with its two spaces).
    pub beyond: usize,
}

impl Widths {
    pub fn of(results: &[BenchResult]) -> Widths {
        let mut w = Widths::default();
        for r in results {
            w.verdict = w.verdict.max(r.verdict.chars().count());
            w.beyond = w.beyond.max(beyond(r).chars().count());
        }
        w
    }
}

/// `selfcheck: 6 benchmarks: 3 passed, 2 failed, 1 skipped; …`.
pub fn summary(report: &Report) -> String {
    let mut s = format!(
        "selfcheck: {} benchmark(s): {} passed, {} failed, {} skipped",
        report.results.len(),
        report.count(Outcome::Passed),
        report.count(Outcome::Failed),
        report.count(Outcome::Skipped)
    );
    let validated_with = |checked: bool| -> Vec<(u64, u64)> {
        report
            .results
            .iter()
            .filter_map(|r| {
                let b = r.best.as_ref().filter(|b| b.checked == checked)?;
                Some((
                    r.reduction.filter(|_| r.verdict == "validated")?,
                    b.reduction,
                ))
            })
            .collect()
    };
    let (compared, no_smaller) = (validated_with(true), validated_with(false).len());
    let validated = report
        .results
        .iter()
        .filter(|r| r.verdict == "validated")
        .count();
    if !compared.is_empty() {
        let (mine, best): (u64, u64) = compared
            .iter()
            .fold((0, 0), |(a, b), (m, x)| (a + m, b + x));
        let reached = compared.iter().filter(|(m, x)| m >= x).count();
        // Of the passes, the validated cores; of those, the ones a
        // reference also has a validated core of: each count says what it is of.
        s.push_str(&format!(
            "; on the {} of {validated} validated core(s) a reference also solved: reduction {mine} vs best reference {best}, best reached on {reached}",
            compared.len()
        ));
    }
    if no_smaller > 0 {
        s.push_str(&format!(
            "; on {no_smaller} of {validated} validated core(s) no reference's core was smaller than yours (so not checked)"
        ));
    }
    let tested: Vec<&crate::campaign::verdict::minimality::Minimality> = report
        .results
        .iter()
        .filter_map(|r| r.minimality.as_ref())
        .collect();
    if !tested.is_empty() {
        use crate::campaign::verdict::minimality::Status;
        let n = |st: Status| tested.iter().filter(|m| m.status == st).count();
        s.push_str(&format!(
            "; minimality: {} minimal, {} redundant, {} unknown",
            n(Status::Minimal),
            n(Status::Redundant),
            n(Status::Unknown)
        ));
    }
    s.push_str(&format!(" ({:.1} s)", report.elapsed));
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_core_without_a_size_shows_a_dash() {
        let r = BenchResult {
            path: "b.smt2".into(),
            logic: None,
            declared: None,
            assertions: 3,
            outcome: Outcome::Failed,
            verdict: "ill-formed:unknown-name".into(),
            details: Vec::new(),
            core_size: None,
            core: None,
            reduction: None,
            best: None,
            time: Some(0.1),
            checkers: Default::default(),
            minimality: None,
            best_known: None,
        };
        let line = super::line(
            &r,
            Widths {
                verdict: 24,
                beyond: 0,
            },
        );
        assert!(line.contains("core -/3 "), "{line}");
    }

    #[test]
    fn columns_stay_aligned_and_control_bytes_are_escaped() {
        let plain = BenchResult {
            path: "b.smt2".into(),
            logic: None,
            declared: None,
            assertions: 3,
            outcome: Outcome::Passed,
            verdict: "validated".into(),
            details: Vec::new(),
            core_size: Some(2),
            core: None,
            reduction: Some(1),
            best: None,
            time: Some(0.1),
            checkers: Default::default(),
            minimality: None,
            best_known: None,
        };
        let mut known = plain.clone();
        known.best_known = Some(crate::campaign::verdict::minimality::Reference {
            size: 1,
            reduction: 2,
            origin: "ref-cvc5 (this selfcheck)".into(),
            gap: Some(1),
        });
        let w = Widths::of(&[plain.clone(), known.clone()]);
        let (a, b) = (super::line(&plain, w), super::line(&known, w));
        assert_eq!(a.find("0.100 s"), b.find("0.100 s"), "{a}\n{b}");
        assert!(
            b.contains("best-known 1/3 (ref-cvc5 (this selfcheck))"),
            "{b}"
        );
        assert!(
            a.ends_with("  b.smt2") && b.ends_with("  b.smt2"),
            "{a}\n{b}"
        );
        assert_eq!(printable("a\u{1b}[31mb\u{7}\0\tc"), "a\\e[31mb\\a\\0\tc");
    }
}
