//! Reports of a [`ScoreReport`]: one file per format, all rendering the same
//! value (`score::result`, which is also the JSON schema). `write_all` writes
//! every requested format; each format is an [`Exporter`] that turns the
//! report into bytes, so tests can render without touching the disk.

mod pair_views;
pub use pair_views::MAX_PASSING_DETAILS;
mod facts;
pub mod html;
mod incremental;
pub mod json;
pub mod markdown;
pub mod pairs_csv;
pub mod pairs_jsonl;
pub mod stamp;
mod svg;
mod table;
mod validators;

use crate::campaign::verdict::pair::PairEvidence;
pub use crate::score::result::ScoreReport;
use anyhow::Result;
use std::path::PathBuf;

/// Turns a report into the bytes of one format.
pub trait Exporter {
    /// Write the whole report to `out` (streamed where a format grows with
    /// the pairs: at a million pairs `scores.json` and `pairs.csv` are
    /// hundreds of megabytes, never held whole).
    fn write_to(&self, report: &ScoreReport, out: &mut dyn std::io::Write) -> Result<()>;

    /// The whole report as bytes.
    fn render(&self, report: &ScoreReport) -> Result<Vec<u8>> {
        let mut out = Vec::new();
        self.write_to(report, &mut out)?;
        Ok(out)
    }
}

/// Where to write each format; `None` skips it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Outputs {
    /// JSON (the schema in `score::result`).
    pub json: Option<PathBuf>,
    /// One CSV row per pair with every flag.
    pub csv: Option<PathBuf>,
    /// Markdown tables per division.
    pub markdown: Option<PathBuf>,
    /// One self-contained HTML page with sortable tables and SVG plots.
    pub html: Option<PathBuf>,
}

impl Outputs {
    /// True when no format was requested.
    pub fn is_empty(&self) -> bool {
        self.json.is_none() && self.csv.is_none() && self.markdown.is_none() && self.html.is_none()
    }

    /// The HTML report alone, and every other format.
    pub fn split_html(&self) -> (Outputs, Outputs) {
        let html = Outputs {
            html: self.html.clone(),
            ..Outputs::default()
        };
        let others = Outputs {
            html: None,
            ..self.clone()
        };
        (html, others)
    }

    /// The files requested.
    pub fn paths(&self) -> impl Iterator<Item = &std::path::Path> {
        [&self.json, &self.csv, &self.markdown, &self.html]
            .into_iter()
            .flatten()
            .map(|p| p.as_path())
    }
}

/// Write every requested format.
pub fn write_all(report: &ScoreReport, outputs: &Outputs) -> Result<()> {
    write_all_with_evidence(report, &[], outputs)
}

/// Write every requested format; the HTML report opens with the evidence
/// of the pairs that did not pass.
pub fn write_all_with_evidence(
    report: &ScoreReport,
    evidence: &[PairEvidence],
    outputs: &Outputs,
) -> Result<()> {
    let html = html::Html { evidence };
    let formats: [(&Option<PathBuf>, &(dyn Exporter + Sync)); 4] = [
        (&outputs.json, &json::Json),
        (&outputs.csv, &pairs_csv::PairsCsv),
        (&outputs.markdown, &markdown::Markdown),
        (&outputs.html, &html),
    ];
    // Each file on its own thread where there are several: at a million
    // pairs `scores.json` and `pairs.csv` take seconds each.
    use rayon::prelude::*;
    formats.par_iter().try_for_each(|(path, exporter)| {
        let Some(path) = path else {
            return Ok(());
        };
        // Atomically: a reader (or a killed run) never sees half a report.
        crate::store::journal::write_atomic_with(path, |w| {
            exporter.write_to(report, w).map_err(|e| {
                std::io::Error::other(Box::<dyn std::error::Error + Send + Sync>::from(e))
            })
        })
    })
}

/// A score for tables: integers without decimals, others with three.
pub fn fmt_num(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{x:.0}")
    } else {
        format!("{x:.3}")
    }
}
