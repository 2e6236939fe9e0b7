//! Throughput of `answer::parse_output` on large real-shaped outputs: a core
//! of 78 251 names (the size of the largest real pb2010 QF_LIA benchmark) on one
//! line (z3, bitwuzla), one name per line (cvc5, cvc4), and a 10 MB
//! stream of garbage lines with unbalanced parentheses (the recovery bound).
//! Run: `cargo bench --bench answer_parse`.

use coreval::answer::parse_output;
use std::time::Instant;

fn measure(label: &str, input: &[u8], check: impl Fn(&coreval::answer::ParsedOutput)) {
    let rounds = 5;
    let mut best = f64::MAX;
    for _ in 0..rounds {
        let t = Instant::now();
        let p = parse_output(input);
        best = best.min(t.elapsed().as_secs_f64());
        check(&p);
    }
    let mb = input.len() as f64 / 1e6;
    println!(
        "{label:<28} {mb:>7.2} MB  best of {rounds}: {:>8.2} ms  {:>7.1} MB/s",
        best * 1e3,
        mb / best
    );
}

fn main() {
    let names: Vec<String> = (0..78_251).map(|i| format!("coreval_a{i}")).collect();
    let one_line = format!("unsat\n({})\n", names.join(" "));
    let per_line = format!("unsat\n(\n{}\n)\n", names.join("\n"));
    let quoted = format!(
        "unsat\n({})\n",
        names
            .iter()
            .map(|n| format!("|{n} x|"))
            .collect::<Vec<_>>()
            .join(" ")
    );
    let n = names.len();
    measure("core, one line", one_line.as_bytes(), |p| {
        assert_eq!(p.core.as_ref().unwrap().len(), n)
    });
    measure("core, one name per line", per_line.as_bytes(), |p| {
        assert_eq!(p.core.as_ref().unwrap().len(), n)
    });
    measure("core, quoted names", quoted.as_bytes(), |p| {
        assert_eq!(p.core.as_ref().unwrap().len(), n)
    });
    let garbage = "(debug x < (y \"half\n".repeat(500_000);
    measure("garbage, unbalanced", garbage.as_bytes(), |p| {
        assert!(p.core.is_none())
    });
}
