//! Seeded scrambling of SMT-LIB benchmarks, before naming.
//!
//! [`scramble`] streams a script through the top-level scanner and writes a
//! reproducible, satisfiability-preserving variant of it, returning the
//! [`DescrambleMap`] that relates the two. For one seed, the output is the
//! same bytes on every run and thread count. Transformations:
//!
//! - **Shuffling** (`shuffle`): every run of consecutive `assert`s, every run
//!   of consecutive `declare-fun`/`declare-const` and every run of
//!   consecutive `declare-sort` is permuted (Fisher–Yates on glibc's
//!   `random()`, see [`random`]). Such declarations never use one another,
//!   so no declaration moves after a use; definitions (`define-fun`,
//!   `define-sort`, datatypes) keep their order, and any other command ends
//!   a run. An assertion that uses a `:named` name defined by an earlier
//!   assertion of its run starts a new run, so it stays after the
//!   definition. A run is buffered to be shuffled; a run larger than
//!   `window` bytes is shuffled window by window (an assertion never leaves
//!   its window), which bounds memory for files of any length.
//! - **Renaming** (`rename`): every user symbol — sorts, functions and
//!   constants (declared or defined), function and sort parameters, bound
//!   variables of `let`/`forall`/`exists`/`lambda`/`match`, datatypes with
//!   their constructors, selectors and testers (`(_ is C)`, `is-C`), and
//!   `:named` names — becomes `<prefix><n>`, n = 1, 2, … in order of first
//!   output (see [`symtab`] for why these cannot collide with anything).
//!   Not renamed: theory symbols, the logic, keywords, literals, indices,
//!   and values of attributes other than `:named`, `:pattern` and
//!   `:no-pattern` (e.g. `:qid`).
//! - **Commuting** (`commute`): in every term (assertions and definitions),
//!   arguments of commutative theory operators are permuted, and so are the
//!   bindings of a (parallel) `let`; see [`commute`] for the table.
//! - **Metadata**: comments and layout are dropped (one command per line,
//!   tokens separated by one space). `set-info` commands are removed except
//!   `:smt-lib-version` (solvers read string escapes by it): `:status` must
//!   not reach solvers, and `:source`, `:license`, `:category`, `:notes`
//!   identify the benchmark. `echo` is removed too. The status and the text
//!   of every removed command are kept in the map, so coreval can still
//!   read the expected answer and the licence notes travel with the file.
//!
//! Random numbers are drawn from one `srandom(seed)` sequence in output
//! order: a run's shuffle when the run ends, then, while its commands are
//! printed, each commuted argument list in pre-order.
//!
//! Memory: the current run (at most `window` bytes of commands plus a small
//! per-command record), the tree of the command being printed, the symbol
//! table, and 4 bytes per assertion for the map; never the whole script.
//! With two threads, add a copy of the symbol table and the output of one
//! piece printed ahead (or a few batches of trees), and the scanner's
//! batches.
//!
//! Speed (`cargo bench --bench scramble`, 100 MB of small assertions):
//! ~130 MB/s wall on two cores without commuting, ~85 MB/s per CPU second;
//! ~80 MB/s with commuting, where the job-driven tree walk is the limit.
//! Where the time went, and what changed it:
//! - assertions are printed in one pass without a tree
//!   (`render::stream`), the commonest ones tokenized by
//!   bitmaps ([`crate::smtlib::bitlex`]) rather than byte by byte, and a
//!   symbol's hash and inline key are read with overlapping word loads (a
//!   byte copy into a stack buffer stalled on store forwarding: a third of
//!   the time);
//! - the input is scanned on a second thread
//!   ([`crate::smtlib::scanner::prefetch`]), and a long run of assertions
//!   is printed half on each thread when the table shows that is exact
//!   (`parallel`); with commuting, only the trees are built ahead
//!   (`tree_feed`);
//! - a shuffled run is read from random places of its buffer, so the text
//!   of the next commands is prefetched into the cache while one is
//!   printed.
//!
//! Files under 4 MB are scrambled on one thread (`threads` is set to 1 by
//! [`scramble_to`]): the second thread would cost more to start than it
//! saves, and `coreval scramble DIR` already scrambles files in parallel.

pub mod commute;
pub mod map;
mod parallel;
pub mod prefix;
pub mod random;
mod render;
pub mod symtab;
mod tree;
mod tree_feed;

pub use map::{core_positions, map_path, CoreMapError, DescrambleMap, SymbolMap};
pub use prefix::choose_prefix;
pub use random::{competition_seed, seed_from_entrants, GlibcRandom};

use crate::smtlib::lexer::{Lexer, TokenKind};
use crate::smtlib::scanner::prefetch::{with_commands, Commands};
use crate::smtlib::scanner::{Command, Scanner};
use crate::smtlib::SyntaxError;
use parallel::{Item, PrintError};
use prefix::PrefixFinder;
use render::Renderer;
use std::collections::HashSet;
use std::io::{self, Read, Write};
use std::path::Path;
use symtab::SymTab;

/// Prefix of fresh names when the caller does not choose one.
pub const DEFAULT_PREFIX: &str = "x_";

/// Output is written in blocks of about this size.
const OUT_BLOCK: usize = 1 << 20;

/// Default largest buffered run: 16 MiB.
pub const DEFAULT_WINDOW: usize = 16 << 20;

/// Default shortest run printed on two threads: 1 MiB.
pub const DEFAULT_SPLIT_MIN: usize = 1 << 20;

/// Files smaller than this are scrambled on one thread ([`scramble_to`]):
/// a second thread would cost more to start than it saves.
const TWO_THREADS_MIN: u64 = 4 << 20;

/// What to do to a benchmark.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScrambleOptions {
    /// Seed for `srandom`.
    pub seed: u32,
    /// Shuffle runs of assertions and of declarations.
    pub shuffle: bool,
    /// Rename user symbols.
    pub rename: bool,
    /// Permute arguments of commutative operators.
    pub commute: bool,
    /// Prefix of fresh names; `None`: [`DEFAULT_PREFIX`]. Either way the
    /// scrambler fails if the input contains the prefix followed by a
    /// digit ([`scramble_file`] picks a safe prefix with [`choose_prefix`]).
    pub prefix: Option<String>,
    /// Largest run buffered for shuffling, in bytes.
    pub window: usize,
    /// Threads for one file: with 2, the input is scanned on a second
    /// thread and long runs of assertions are printed half on each
    /// (module `parallel`); the output is the same bytes with 1.
    pub threads: usize,
    /// Shortest run of assertions (bytes) printed on two threads.
    pub split_min: usize,
}

impl Default for ScrambleOptions {
    fn default() -> Self {
        ScrambleOptions {
            seed: 0,
            shuffle: true,
            rename: true,
            commute: false,
            prefix: None,
            window: DEFAULT_WINDOW,
            threads: 2,
            split_min: DEFAULT_SPLIT_MIN,
        }
    }
}

/// Why a benchmark could not be scrambled.
#[derive(Debug, thiserror::Error)]
pub enum ScrambleError {
    #[error("{0}")]
    Scan(#[from] SyntaxError),
    #[error("line {line}, column {column}: {message}")]
    Syntax {
        line: u64,
        column: u64,
        message: String,
    },
    #[error("line {line}: the input contains '{prefix}' followed by a digit, which fresh names use; choose another prefix (choose_prefix)")]
    PrefixInInput { prefix: String, line: u64 },
    #[error("writing the output: {0}")]
    Io(#[from] io::Error),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum RunKind {
    Assert,
    DeclareFun,
    DeclareSort,
}

struct Driver<W: Write> {
    out: W,
    opts: ScrambleOptions,
    rng: GlibcRandom,
    renderer: Renderer,
    map: DescrambleMap,
    kind: Option<RunKind>,
    buf: Vec<u8>,
    items: Vec<Item>,
    /// Names defined by `:named` in the current assertion run.
    named: HashSet<Vec<u8>>,
    /// Output not yet written (commands are rendered straight into it).
    pending: Vec<u8>,
    asserts: u64,
    /// The second thread's renderer (see [`parallel`]).
    ahead: parallel::Ahead,
}

/// Scramble the script read from `reader` into `writer`.
pub fn scramble<R: Read + Send, W: Write>(
    reader: R,
    writer: W,
    opts: &ScrambleOptions,
) -> Result<DescrambleMap, ScrambleError> {
    let prefix = opts.prefix.clone().unwrap_or_else(|| DEFAULT_PREFIX.into());
    let mut d = Driver {
        out: writer,
        rng: GlibcRandom::new(opts.seed),
        renderer: Renderer::new(SymTab::new(&prefix), opts.rename, opts.commute),
        map: DescrambleMap {
            format: map::FORMAT.into(),
            seed: opts.seed,
            shuffle: opts.shuffle,
            rename: opts.rename,
            commute: opts.commute,
            window: opts.window as u64,
            prefix: prefix.clone(),
            assertions: Vec::new(),
            symbols: SymbolMap::default(),
            status: None,
            removed: Vec::new(),
        },
        opts: opts.clone(),
        kind: None,
        buf: Vec::new(),
        items: Vec::new(),
        named: HashSet::new(),
        pending: Vec::with_capacity(OUT_BLOCK + (64 << 10)),
        asserts: 0,
        ahead: Default::default(),
    };
    if opts.threads >= 2 && opts.commute {
        d.renderer.trees_ahead_min = Some(opts.split_min);
    }
    let guard = PrefixFinder::new(prefix.as_bytes());
    let rename = d.opts.rename;
    let named_finder = memchr::memmem::Finder::new(b":named");
    with_commands(
        Scanner::new(reader),
        opts.threads >= 2,
        |cmd: &Command| {
            (
                rename && guard.occurs_in(&cmd.text),
                named_finder.find(&cmd.text).is_some(),
            )
        },
        |src: &mut dyn Commands<(bool, bool)>| -> Result<(), ScrambleError> {
            while let Some((cmd, (clash, named))) = src.next_command()? {
                if clash || (rename && guard.occurs_in(src.gap())) {
                    return Err(ScrambleError::PrefixInInput {
                        prefix: prefix.clone(),
                        line: cmd.line,
                    });
                }
                d.command(cmd, named)?;
            }
            if rename && guard.occurs_in(src.gap()) {
                return Err(ScrambleError::PrefixInInput {
                    prefix: prefix.clone(),
                    line: 0,
                });
            }
            Ok(())
        },
    )?;
    d.flush()?;
    d.out.write_all(&d.pending)?;
    d.out.flush()?;
    let mut map = d.map;
    map.symbols = SymbolMap(d.renderer.tab.renaming());
    Ok(map)
}

/// Scramble a file into another and write the map beside the output
/// ([`map_path`]). Without a prefix in `opts`, one is chosen by a first
/// pass over the input ([`choose_prefix`]). A failed output is removed.
pub fn scramble_file(
    input: &Path,
    output: &Path,
    opts: &ScrambleOptions,
) -> anyhow::Result<DescrambleMap> {
    let map = scramble_to(input, output, opts)?;
    map.write(&map_path(output))?;
    Ok(map)
}

/// [`scramble_file`] without writing the map (the caller keeps it, e.g.
/// `coreval name --scramble`, which writes it beside the named file).
pub fn scramble_to(
    input: &Path,
    output: &Path,
    opts: &ScrambleOptions,
) -> anyhow::Result<DescrambleMap> {
    use anyhow::Context;
    let open = || {
        crate::store::regular::open(input).with_context(|| format!("opening {}", input.display()))
    };
    let mut opts = opts.clone();
    if opts.rename && opts.prefix.is_none() {
        let p = choose_prefix(open()?).with_context(|| format!("reading {}", input.display()))?;
        opts.prefix = Some(p);
    }
    let small = std::fs::metadata(input).is_ok_and(|m| m.len() < TWO_THREADS_MIN);
    if small {
        opts.threads = 1;
    }
    let out =
        std::fs::File::create(output).with_context(|| format!("creating {}", output.display()))?;
    let result = scramble(open()?, out, &opts);
    match result {
        Ok(map) => Ok(map),
        Err(e) => {
            let _ = std::fs::remove_file(output);
            let at = input.display();
            Err(match e {
                ScrambleError::Scan(se) => anyhow::anyhow!(se.in_file(input)),
                ScrambleError::Syntax {
                    line,
                    column,
                    message,
                } => anyhow::anyhow!("{at}:{line}:{column}: {message}"),
                ScrambleError::PrefixInInput { line, .. } => {
                    anyhow::anyhow!("{at}:{line}: {e}")
                }
                ScrambleError::Io(_) => {
                    anyhow::Error::new(e).context(format!("{at} → {}", output.display()))
                }
            })
        }
    }
}

impl<W: Write> Driver<W> {
    fn command(&mut self, cmd: Command, named: bool) -> Result<(), ScrambleError> {
        let kind = match cmd.head() {
            "assert" => Some(RunKind::Assert),
            "declare-fun" | "declare-const" => Some(RunKind::DeclareFun),
            "declare-sort" => Some(RunKind::DeclareSort),
            _ => None,
        };
        let Some(kind) = kind else {
            self.flush()?;
            return self.other(cmd);
        };
        let cost = cmd.text.len() + std::mem::size_of::<Item>();
        let split = self.kind != Some(kind)
            || self.buf.len() + self.items.len() * std::mem::size_of::<Item>() + cost
                > self.opts.window
            || (kind == RunKind::Assert && !self.named.is_empty() && self.uses_named(&cmd.text));
        if split {
            self.flush()?;
        }
        self.kind = Some(kind);
        let orig = if kind == RunKind::Assert {
            let p = u32::try_from(self.asserts).map_err(|_| ScrambleError::Syntax {
                line: cmd.line,
                column: cmd.column,
                message: "more than 2^32 assertions".into(),
            })?;
            self.asserts += 1;
            if named {
                self.collect_named(&cmd.text);
            }
            p
        } else {
            0
        };
        let start = self.buf.len();
        self.buf.extend_from_slice(&cmd.text);
        self.items.push(Item {
            start,
            end: self.buf.len(),
            line: cmd.line,
            column: cmd.column,
            orig,
        });
        Ok(())
    }

    /// Whether a symbol of `text` is a name defined earlier in the run.
    fn uses_named(&self, text: &[u8]) -> bool {
        Lexer::new(text)
            .flatten()
            .any(|t| t.is_symbol() && self.named.contains(t.symbol(text)))
    }

    fn collect_named(&mut self, text: &[u8]) {
        let mut after_named = false;
        for t in Lexer::new(text).flatten() {
            if after_named && t.is_symbol() {
                self.named.insert(t.symbol(text).to_vec());
            }
            after_named = t.kind == TokenKind::Keyword && t.bytes(text) == b":named";
        }
    }

    /// Shuffle and print the buffered run.
    fn flush(&mut self) -> Result<(), ScrambleError> {
        if self.items.is_empty() {
            return Ok(());
        }
        if self.opts.shuffle {
            self.rng.shuffle(&mut self.items);
        }
        let mut items = std::mem::take(&mut self.items);
        let mut buf = std::mem::take(&mut self.buf);
        let split = self.kind == Some(RunKind::Assert)
            && self.opts.threads >= 2
            && !self.opts.commute
            && self.named.is_empty();
        let (out, pending, rng) = (&mut self.out, &mut self.pending, &mut self.rng);
        let mut rest = &items[..];
        while !rest.is_empty() {
            // Two pieces of about `split_min` bytes each: the first printed
            // here, the second ahead on another thread when that is valid.
            let (a, b) = match split {
                true => parallel::halves(&self.renderer, rest, self.opts.split_min),
                false => (rest.len(), 0),
            };
            let (first, second) = (&rest[..a], &rest[a..a + b]);
            rest = &rest[a + b..];
            if second.is_empty() {
                print_run(&mut self.renderer, rng, out, pending, &buf, first)?;
                continue;
            }
            let (printed, valid) = self
                .ahead
                .print_split(&mut self.renderer, &buf, second, |r| {
                    print_run(r, rng, out, pending, &buf, first)
                });
            printed?;
            if valid {
                out.write_all(pending)?;
                pending.clear();
                out.write_all(&self.ahead.out)?;
            } else {
                print_run(&mut self.renderer, rng, out, pending, &buf, second)?;
            }
        }
        if self.kind == Some(RunKind::Assert) {
            self.map.assertions.extend(items.iter().map(|it| it.orig));
        }
        items.clear();
        // Keep the allocations for the next run.
        buf.clear();
        self.items = items;
        self.buf = buf;
        self.named.clear();
        self.kind = None;
        Ok(())
    }

    /// A command outside any run: metadata policy, then print.
    fn other(&mut self, cmd: Command) -> Result<(), ScrambleError> {
        match cmd.head() {
            "set-info" => {
                let toks: Vec<_> = Lexer::new(&cmd.text).flatten().collect();
                let key = toks.get(2).map(|t| t.bytes(&cmd.text)).unwrap_or(b"");
                if key == b":smt-lib-version" {
                    return self.emit(&cmd.text, cmd.line, cmd.column);
                }
                if key == b":status" && self.map.status.is_none() {
                    if let Some(v) = toks.get(3).filter(|t| t.kind != TokenKind::Close) {
                        let value = if v.is_symbol() {
                            v.symbol(&cmd.text)
                        } else {
                            v.bytes(&cmd.text)
                        };
                        self.map.status = Some(String::from_utf8_lossy(value).into_owned());
                    }
                }
                self.map
                    .removed
                    .push(String::from_utf8_lossy(&cmd.text).into_owned());
                Ok(())
            }
            "echo" => {
                self.map
                    .removed
                    .push(String::from_utf8_lossy(&cmd.text).into_owned());
                Ok(())
            }
            "set-logic" => {
                let logic = Lexer::new(&cmd.text)
                    .flatten()
                    .nth(2)
                    .map(|t| String::from_utf8_lossy(t.symbol(&cmd.text)).into_owned())
                    .unwrap_or_default();
                self.renderer.difference_logic = commute::is_difference_logic(&logic);
                self.emit(&cmd.text, cmd.line, cmd.column)
            }
            _ => self.emit(&cmd.text, cmd.line, cmd.column),
        }
    }

    /// Render one command and write it on its own line.
    fn emit(&mut self, text: &[u8], line: u64, column: u64) -> Result<(), ScrambleError> {
        let item = Item {
            start: 0,
            end: text.len(),
            line,
            column,
            orig: 0,
        };
        let (out, pending) = (&mut self.out, &mut self.pending);
        print_run(
            &mut self.renderer,
            &mut self.rng,
            out,
            pending,
            text,
            &[item],
        )
    }
}

/// Print `items` of `buf` into `pending`, writing it to `out` by blocks.
fn print_run<W: Write>(
    renderer: &mut Renderer,
    rng: &mut GlibcRandom,
    out: &mut W,
    pending: &mut Vec<u8>,
    buf: &[u8],
    items: &[Item],
) -> Result<(), ScrambleError> {
    let block = |p: &mut Vec<u8>| {
        out.write_all(p)?;
        p.clear();
        Ok(())
    };
    parallel::print_items(renderer, rng, buf, items, pending, OUT_BLOCK, block).map_err(|e| match e
    {
        PrintError::Render(k, e) => {
            let it = &items[k];
            let (line, column) = crate::smtlib::position_in_text(
                &buf[it.start..it.end],
                e.offset,
                it.line,
                it.column,
            );
            ScrambleError::Syntax {
                line,
                column,
                message: e.message,
            }
        }
        PrintError::Write(e) => ScrambleError::Io(e),
    })
}

#[cfg(test)]
mod tests;
