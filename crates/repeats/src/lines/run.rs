//! Both passes over documents held in memory.

use super::config::Config;
use super::count::Counter;
use super::error::Error;
use super::plan::{Edits, Summary};

/// Both passes over `documents` with an in-memory count: each document's edits, in
/// order, and the summary.
///
/// # Errors
///
/// [`Error::InvalidParameter`] when `config` is invalid.
///
/// # Example
///
/// ```
/// use near_dup::repeats::lines::{run, Config, Policy, Unit};
/// let docs = ["Cookie notice.\nWe use cookies.\n\nStory one.", "Cookie notice.\nWe use cookies.\n\nStory two."];
/// let config = Config::new(Policy::AtLeast(2)).with_unit(Unit::Paragraph);
/// let (edits, _) = run(&docs, &config)?;
/// assert_eq!(edits[1].apply(docs[1]), "Story two.");
/// # Ok::<(), near_dup::repeats::lines::Error>(())
/// ```
pub fn run<S: AsRef<str>>(
    documents: &[S],
    config: &Config,
) -> Result<(Vec<Edits>, Summary), Error> {
    run_with(Counter::new(config.clone())?, documents)
}

/// Both passes over `documents` with `counter` (in memory, under a budget or out of
/// core).
///
/// # Errors
///
/// What [`Counter::add`], [`Counter::finish`] and the edit pass return.
///
/// # Example
///
/// ```
/// use near_dup::repeats::lines::{run_with, Config, Counter, Policy};
/// let counter = Counter::new(Config::new(Policy::KeepFirst))?;
/// let (edits, summary) = run_with(counter, &["a\nb", "b\nc"])?;
/// assert_eq!(edits[1].apply("b\nc"), "c");
/// assert_eq!(summary.removed_bytes, 2);
/// # Ok::<(), near_dup::repeats::lines::Error>(())
/// ```
pub fn run_with<S: AsRef<str>>(
    mut counter: Counter,
    documents: &[S],
) -> Result<(Vec<Edits>, Summary), Error> {
    for d in documents {
        counter.add(d.as_ref())?;
    }
    let mut repeated = counter.finish()?;
    let edits = documents
        .iter()
        .map(|d| repeated.edits(d.as_ref()))
        .collect::<Result<Vec<_>, _>>()?;
    Ok((edits, repeated.finish()?))
}
