//! Progress bars on stderr: one per stage, drawn only when stderr is a terminal and
//! `--quiet` is not given (indicatif hides them otherwise).

use std::io::IsTerminal;
use std::sync::Mutex;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use ndd_pipeline::{Progress, Stage};

/// Makes the bars of a run.
#[derive(Debug)]
pub(crate) struct Bars {
    visible: bool,
    current: Mutex<Option<ProgressBar>>,
}

impl Bars {
    /// Bars that draw on stderr unless `quiet` or stderr is not a terminal.
    pub(crate) fn new(quiet: bool) -> Self {
        Bars {
            visible: !quiet && std::io::stderr().is_terminal(),
            current: Mutex::new(None),
        }
    }

    fn bar(&self, len: Option<u64>, template: &str, prefix: String) -> ProgressBar {
        let bar = ProgressBar::with_draw_target(len, self.target());
        let style = ProgressStyle::with_template(template)
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> ");
        bar.set_style(style);
        bar.set_prefix(prefix);
        bar.enable_steady_tick(Duration::from_millis(200));
        bar
    }

    fn target(&self) -> ProgressDrawTarget {
        if self.visible {
            ProgressDrawTarget::stderr()
        } else {
            ProgressDrawTarget::hidden()
        }
    }

    /// The spinner of `ndd train`: loss evaluations and the current loss.
    pub(crate) fn training(&self) -> ProgressBar {
        self.bar(
            None,
            "{prefix:>10} {spinner} {pos} evaluations, loss {msg} [{elapsed_precise}]",
            "train".to_owned(),
        )
    }

    /// The spinner of one pass over the documents (`ndd lines`: count, edit).
    pub(crate) fn pass(&self, name: &str) -> ProgressBar {
        self.bar(
            None,
            "{prefix:>10} {spinner} {human_pos} documents [{elapsed_precise}]",
            name.to_owned(),
        )
    }

    /// The bar of `ndd substrings`'s passes (one suffix array each).
    pub(crate) fn passes(&self) -> ProgressBar {
        self.bar(
            Some(1),
            "{prefix:>10} [{bar:30}] {pos}/{len} passes [{elapsed_precise}]",
            "substrings".to_owned(),
        )
    }

    /// The bar of the read stage.
    pub(crate) fn reading(&self) -> ReadBar {
        ReadBar {
            bar: self.bar(
                None,
                "{prefix:>10} {spinner} {msg} [{elapsed_precise}]",
                "read".to_owned(),
            ),
            sized: std::cell::Cell::new(false),
            seen: std::cell::Cell::new(0),
        }
    }
}

/// The bar of the read stage: bytes, or documents when the size is unknown.
#[derive(Debug)]
pub(crate) struct ReadBar {
    bar: ProgressBar,
    sized: std::cell::Cell<bool>,
    /// Reports seen; the bar is updated on every 256th only (an update costs a lock
    /// and a clock read, more than decoding a short line).
    seen: std::cell::Cell<u64>,
}

impl ReadBar {
    /// Shows where reading stands.
    pub(crate) fn update(&self, p: ndd_pipeline::corpus::Progress) {
        let seen = self.seen.get();
        self.seen.set(seen + 1);
        if seen % 256 != 0 {
            return;
        }
        if let (false, Some(total)) = (self.sized.get(), p.total_bytes) {
            self.sized.set(true);
            // The first report with a size turns the spinner into a bar.
            self.bar.set_length(total);
            self.bar.set_style(
                ProgressStyle::with_template(
                    "{prefix:>10} [{bar:30}] {bytes}/{total_bytes} {bytes_per_sec} eta {eta} {msg}",
                )
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("=> "),
            );
        }
        self.bar.set_position(p.bytes_read);
        self.bar.set_message(if p.rejected == 0 {
            format!("{} documents", p.documents)
        } else {
            format!("{} documents, {} rejected", p.documents, p.rejected)
        });
    }

    /// Removes the bar.
    pub(crate) fn finish(self) {
        self.bar.finish_and_clear();
    }
}

impl Progress for Bars {
    fn start(&self, stage: Stage, total: Option<u64>) {
        let template = match total {
            Some(_) => "{prefix:>10} [{bar:30}] {human_pos}/{human_len} eta {eta}",
            None => "{prefix:>10} {spinner} {human_pos} [{elapsed_precise}]",
        };
        let bar = self.bar(total, template, stage.name().to_owned());
        if let Ok(mut current) = self.current.lock() {
            if let Some(old) = current.replace(bar) {
                old.finish_and_clear();
            }
        }
    }

    fn advance(&self, _stage: Stage, done: u64) {
        if let Ok(current) = self.current.lock() {
            if let Some(bar) = current.as_ref() {
                bar.inc(done);
            }
        }
    }

    fn finish(&self, _stage: Stage) {
        if let Ok(mut current) = self.current.lock() {
            if let Some(bar) = current.take() {
                bar.finish_and_clear();
            }
        }
    }
}
