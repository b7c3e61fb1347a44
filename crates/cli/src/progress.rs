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
        let bar = match len {
            Some(n) => ProgressBar::with_draw_target(Some(n), self.target()),
            None => ProgressBar::with_draw_target(None, self.target()),
        };
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

    /// The bar of reading `name`.
    pub(crate) fn reading(&self, name: &str) -> ReadBar {
        ReadBar {
            bar: self.bar(
                None,
                "{prefix:>10} {spinner} {msg} [{elapsed_precise}]",
                "read".to_owned(),
            ),
            sized: false,
            name: name.to_owned(),
        }
    }
}

/// The bar of the read stage: bytes, or documents when the size is unknown.
#[derive(Debug)]
pub(crate) struct ReadBar {
    bar: ProgressBar,
    sized: bool,
    name: String,
}

impl ReadBar {
    /// Shows where reading stands.
    pub(crate) fn update(&self, p: ndd_pipeline::corpus::Progress) {
        if let (false, Some(total)) = (self.sized, p.total_bytes) {
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
        // Formatting a message costs more than reading a short line: not every time.
        if p.documents % 1024 == 0 {
            self.bar.set_message(format!(
                "{}: {} documents, {} rejected",
                self.name, p.documents, p.rejected
            ));
        }
    }

    /// Removes the bar.
    pub(crate) fn finish(self) {
        self.bar.finish_and_clear();
    }
}

impl Progress for Bars {
    fn start(&self, stage: Stage, total: Option<u64>) {
        let bar = self.bar(
            total,
            "{prefix:>10} [{bar:30}] {human_pos}/{human_len} {per_sec} eta {eta}",
            stage.name().to_owned(),
        );
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
