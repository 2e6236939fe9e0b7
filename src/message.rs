//! What the stages have to say while they work: a [`Message`] (note,
//! warning or error, and its text) handed to a [`Say`]. The pipeline builds
//! the `Say` from its observer (`pipeline::Observer::message`), so a library
//! caller hears every message of every stage — from worker threads too,
//! as they happen — and the CLI prints them on stderr exactly as before
//! (`warning: TEXT`), with the progress bar out of the way
//! ([`Message::print`]). Outside a pipeline (a lone `coreval name`, a
//! journal read while loading) [`Say::stderr`] prints them.
//!
//! A leaf module: every stage may import it, and it imports only the
//! progress bar.

use indicatif::ProgressBar;
use std::fmt;
use std::sync::Mutex;

/// How bad a message is; its prefix on stderr.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    Note,
    Warning,
    Error,
}

impl Severity {
    /// `note`, `warning` or `error`.
    pub fn prefix(self) -> &'static str {
        match self {
            Severity::Note => "note",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

/// One message of a stage.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Message {
    pub severity: Severity,
    /// The message without its prefix.
    pub text: String,
}

impl fmt::Display for Message {
    /// `warning: TEXT`, as printed on stderr.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.severity.prefix(), self.text)
    }
}

impl Message {
    /// Print the message on stderr, the progress bar (if one is drawn)
    /// suspended meanwhile so that the line does not tear it.
    pub fn print(&self) {
        crate::progress::suspend(|| eprintln!("{self}"));
    }
}

/// Where the messages of a stage go: a shared function, callable from any
/// thread. Cheap to copy into worker closures.
#[derive(Clone, Copy)]
pub struct Say<'a> {
    hear: &'a (dyn Fn(&Message) + Sync),
    bar: &'a (dyn Fn(&str, u64) -> ProgressBar + Sync),
}

fn print(m: &Message) {
    m.print()
}

/// The terminal's bar ([`crate::progress::bar`]).
fn terminal_bar(stage: &str, total: u64) -> ProgressBar {
    crate::progress::bar(stage, total)
}

impl Default for Say<'_> {
    /// [`Say::stderr`].
    fn default() -> Self {
        Say::stderr()
    }
}

impl<'a> Say<'a> {
    /// Hand every message to `to`; progress on the terminal's bar.
    pub fn to(to: &'a (dyn Fn(&Message) + Sync)) -> Say<'a> {
        Say {
            hear: to,
            bar: &terminal_bar,
        }
    }

    /// Hand every message to `to`, and ask `bar` for each stage's progress
    /// bar (the pipeline's observer, `pipeline::Observer::progress`).
    pub fn with_progress(
        to: &'a (dyn Fn(&Message) + Sync),
        bar: &'a (dyn Fn(&str, u64) -> ProgressBar + Sync),
    ) -> Say<'a> {
        Say { hear: to, bar }
    }

    /// Print every message on stderr ([`Message::print`]).
    pub fn stderr() -> Say<'static> {
        Say::to(&print)
    }

    /// The progress bar of a stage's `total` jobs, as the listener draws it.
    pub fn bar(&self, stage: &str, total: u64) -> ProgressBar {
        (self.bar)(stage, total)
    }

    /// Say a message.
    pub fn say(&self, severity: Severity, text: impl Into<String>) {
        (self.hear)(&Message {
            severity,
            text: text.into(),
        })
    }

    pub fn note(&self, text: impl Into<String>) {
        self.say(Severity::Note, text)
    }

    pub fn warning(&self, text: impl Into<String>) {
        self.say(Severity::Warning, text)
    }

    pub fn error(&self, text: impl Into<String>) {
        self.say(Severity::Error, text)
    }

    /// A warning, unless this process already said the same one: a
    /// journal is read by several stages of one run, and its problems are
    /// said once (whoever hears them).
    pub fn warning_once(&self, text: String) {
        static SAID: Mutex<Option<std::collections::HashSet<String>>> = Mutex::new(None);
        let new = SAID
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get_or_insert_with(Default::default)
            .insert(text.clone());
        if new {
            self.warning(text)
        }
    }
}

impl fmt::Debug for Say<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Say")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_read_as_on_stderr_and_once_means_once() {
        let heard = Mutex::new(Vec::new());
        let hear = |m: &Message| heard.lock().unwrap().push(m.to_string());
        let say = Say::to(&hear);
        say.note("n");
        say.warning("w");
        say.error(String::from("e"));
        let once = "message::tests: said once".to_string();
        say.warning_once(once.clone());
        say.warning_once(once);
        assert_eq!(
            heard.into_inner().unwrap(),
            [
                "note: n",
                "warning: w",
                "error: e",
                "warning: message::tests: said once"
            ]
        );
    }
}
