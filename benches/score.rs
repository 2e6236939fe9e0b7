//! Measures `coreval score`'s stages on the real 2016 QF_LIA archive
//! (11 360 pairs, 2 840 benchmarks, 50 families): StarExec import, scoring
//! under smtcomp-2016 and smtcomp-2019, and rendering every report format.
//! Run with `cargo bench --bench score`; prints the median of a few runs.

use coreval::import::starexec;
use coreval::report::{html::Html, json::Json, markdown::Markdown, pairs_csv::PairsCsv, Exporter};
use coreval::score::rules::Edition;
use coreval::score::{score_pairs, ScoreOptions};
use std::path::Path;
use std::time::Instant;

const RUNS: usize = 5;

fn median_ms(mut f: impl FnMut()) -> f64 {
    let mut t: Vec<f64> = (0..RUNS)
        .map(|_| {
            let s = Instant::now();
            f();
            s.elapsed().as_secs_f64() * 1000.0
        })
        .collect();
    t.sort_by(f64::total_cmp);
    t[RUNS / 2]
}

fn main() {
    let csv = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/results/smtcomp2016-unsat-core-QF_LIA.csv");
    let import = starexec::import_file(&csv).expect("the 2016 archive");
    println!("pairs: {}", import.pairs.len());
    println!(
        "import:            {:8.1} ms",
        median_ms(|| {
            starexec::import_file(&csv).unwrap();
        })
    );
    let opts = ScoreOptions::default();
    for e in [Edition::Smtcomp2016, Edition::Smtcomp2019] {
        let rules = e.rules();
        println!(
            "score {}:     {:8.1} ms",
            e.name(),
            median_ms(|| {
                score_pairs(&import.pairs, &rules, &opts);
            })
        );
    }
    let report = score_pairs(&import.pairs, &Edition::Smtcomp2016.rules(), &opts);
    let formats: [(&str, &dyn Exporter); 4] = [
        ("json", &Json),
        ("csv", &PairsCsv),
        ("markdown", &Markdown),
        ("html", &Html::default()),
    ];
    for (name, ex) in formats {
        let mut size = 0;
        let ms = median_ms(|| size = ex.render(&report).unwrap().len());
        println!("render {name:<9}  {ms:8.1} ms  ({size} bytes)");
    }
}
