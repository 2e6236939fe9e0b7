//! The JSON report: `ScoreReport` serialised as it is (see `src/score/result.rs` for
//! every field), pretty-printed, with a final newline.

use super::{Exporter, ScoreReport};
use anyhow::Result;

/// JSON exporter.
pub struct Json;

impl Exporter for Json {
    fn write_to(&self, report: &ScoreReport, out: &mut dyn std::io::Write) -> Result<()> {
        serde_json::to_writer_pretty(&mut *out, report)?;
        out.write_all(b"\n")?;
        Ok(())
    }
}
