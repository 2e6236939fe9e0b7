//! The share of certified refutations on planted invalid cores: a campaign
//! over every quantifier-free benchmark of the test corpus
//! (`tests/data/benchmarks/QF_*`) whose one solver under test is
//! `tests/fixtures/fake-solvers/planted-minus-one.sh` (cvc5's minimal core
//! minus one member: an invalid core), checked by z3, yices, cvc5, cvc4 and
//! bitwuzla under `smtcomp-2025`. Printed: the refuted cores, how many of
//! the refutations are certified, and for each one that is not, the
//! benchmark and every `sat` vote's certification (why it stayed
//! uncertified). Also the checker CPU of the stage and the part of it that
//! certification took.
//!
//! `cargo bench --bench certify -- [--jobs N] [--dir D] [--logics L1,L2]
//! [--solver minus-one|drop-first]` (defaults: the number of cores, a temp
//! dir, every `QF_*` logic, `minus-one`; with `--dir` the stages resume).
//! `--logics QF_UF,UF` takes those folders only (quantified ones
//! included); `--solver drop-first` is
//! `tests/fixtures/fake-solvers/z3-drop-first.sh`, z3's minimal core with
//! its first name dropped (team z3: z3 does not check it).

use coreval::campaign::setup::Campaign;
use coreval::campaign::verdict::certification::Refutation;
use coreval::campaign::verdict::pair::Verdict;
use coreval::pipeline::{self, Stages};
use std::path::{Path, PathBuf};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn copy(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), &target).unwrap();
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let opt = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1).cloned())
    };
    let jobs: usize = opt("--jobs").map_or_else(
        || std::thread::available_parallelism().map_or(1, |n| n.get()),
        |j| j.parse().unwrap(),
    );
    let tmp = tempfile::tempdir().unwrap();
    let dir = opt("--dir").map_or_else(|| tmp.path().to_path_buf(), PathBuf::from);
    let wanted: Option<Vec<String>> =
        opt("--logics").map(|l| l.split(',').map(str::to_string).collect());
    let solver = match opt("--solver").as_deref() {
        None | Some("minus-one") => format!(
            "name = \"planted\"\ncommand = [\"{ROOT}/tests/fixtures/fake-solvers/planted-minus-one.sh\", \"{{timeout_ms}}\", \"{{file}}\"]\n"
        ),
        Some("drop-first") => format!(
            "name = \"planted\"\nteam = \"z3\"\ncommand = [\"{ROOT}/tests/fixtures/fake-solvers/z3-drop-first.sh\", \"{{file}}\"]\n"
        ),
        Some(other) => panic!("--solver {other}: minus-one or drop-first"),
    };
    let corpus = Path::new(ROOT).join("tests/data/benchmarks");
    let mut logics = 0;
    for e in std::fs::read_dir(&corpus).unwrap() {
        let e = e.unwrap();
        let name = e.file_name().to_string_lossy().into_owned();
        let taken = match &wanted {
            Some(w) => w.contains(&name),
            None => name.starts_with("QF_"),
        };
        if taken && e.file_type().unwrap().is_dir() {
            copy(&e.path(), &dir.join("benchmarks").join(&name));
            logics += 1;
        }
    }
    let config = format!(
        "benchmarks = \"benchmarks\"\njobs = {jobs}\ncache = \".cache\"\n\
         [naming]\nallow_no_status = true\n\
         [limits]\ntime = 10.0\nchecker_time = 10.0\n\
         [check]\npolicy = \"smtcomp-2025\"\ncheckers = [\"z3\", \"yices\", \"cvc5\", \"cvc4\", \"bitwuzla\"]\n\
         [[solver]]\n{solver}"
    );
    std::fs::write(dir.join("campaign.toml"), config).unwrap();
    let c = Campaign::load(&dir).unwrap();
    let all = Stages {
        name: true,
        solve: true,
        check: true,
        score: false,
    };
    let s = pipeline::run_to_end(&c, all).unwrap();
    let pairs = s.pairs.clone().unwrap_or_default();
    let refuted: Vec<_> = pairs
        .iter()
        .filter(|p| p.pair.verdict == Verdict::Refuted)
        .collect();
    let certified = refuted
        .iter()
        .filter(|p| p.details.refutation == Some(Refutation::Certified))
        .count();
    println!("{logics} logics, {} pairs", pairs.len());
    let mut other = std::collections::BTreeMap::new();
    for p in &pairs {
        *other.entry(p.pair.verdict.label()).or_insert(0) += 1;
    }
    println!("verdicts: {other:?}");
    println!(
        "refuted {}, certified {certified} ({:.1} %)",
        refuted.len(),
        100.0 * certified as f64 / refuted.len().max(1) as f64
    );
    for p in refuted
        .iter()
        .filter(|p| p.details.refutation != Some(Refutation::Certified))
    {
        println!("uncertified: {}", p.pair.benchmark);
        for (k, cert) in &p.details.certifications {
            println!("  {k}: {}", cert.describe());
        }
    }
    if let Some(ch) = s.check {
        println!(
            "checker CPU {:.1} s, of which certification {:.1} s ({} sat answers)",
            ch.cpu, ch.certification_cpu, ch.certified_sats
        );
    }
}
