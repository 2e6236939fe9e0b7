//! The JSON report: `ScoreReport` serialised as it is (see `schema.rs` for
//! every field), pretty-printed, with a final newline.

use super::{Exporter, ScoreReport};
use anyhow::Result;

/// JSON exporter.
pub struct Json;

impl Exporter for Json {
    fn render(&self, report: &ScoreReport) -> Result<Vec<u8>> {
        let mut out = serde_json::to_vec_pretty(report)?;
        out.push(b'\n');
        Ok(out)
    }
}
