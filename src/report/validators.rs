//! The validators of each division (`[check] validators_from`): the
//! section's title, naming the single-query results file; the table itself
//! is [`super::table::validators`], rendered by Markdown and HTML.

use crate::score::result::ScoreReport;

/// The title, naming the results file.
pub fn title(report: &ScoreReport) -> String {
    format!(
        "Validators by soundness (single-query results {})",
        report.validators_from.as_deref().unwrap_or("-")
    )
}
