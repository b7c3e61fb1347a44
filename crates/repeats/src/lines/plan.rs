//! The second pass: what the count decided, applied to each document as edits.

use std::ops::Range;
use std::path::PathBuf;

use ahash::AHashMap;
use ndd_scale::{Edge, Merge, SortedRuns};

use super::config::{Config, CountBy, Policy};
use super::error::Error;
use super::units::{Normalizer, units};

/// Longest sample text a [`TopUnit`] keeps, in bytes (cut at a character boundary).
///
/// # Example
///
/// ```
/// assert_eq!(near_dup::repeats::lines::SAMPLE_BYTES, 1000);
/// ```
pub const SAMPLE_BYTES: usize = 1000;

/// What the count knows of one distinct unit.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Agg {
    /// Occurrences in the corpus.
    pub(crate) occurrences: u64,
    /// Documents with at least one occurrence.
    pub(crate) documents: u64,
    /// Position of the first occurrence among all units counted.
    pub(crate) first: u64,
}

impl Agg {
    /// The count that [`Policy::AtLeast`] and the report rank by.
    pub(crate) fn count(&self, by: CountBy) -> u64 {
        match by {
            CountBy::Occurrence => self.occurrences,
            CountBy::Document => self.documents,
        }
    }
}

/// The counts of a corpus's units.
///
/// # Example
///
/// ```
/// use near_dup::repeats::lines::{run, Config, Policy};
/// let (_, summary) = run(&["nav\nA", "nav\nB", "nav\nA"], &Config::new(Policy::AtLeast(3)))?;
/// let s = summary.stats;
/// assert_eq!((s.documents, s.units, s.distinct, s.repeated, s.removable), (3, 6, 3, 2, 1));
/// # Ok::<(), near_dup::repeats::lines::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Stats {
    /// Documents counted.
    pub documents: u64,
    /// Units counted (not blank, at least the minimum length).
    pub units: u64,
    /// Distinct units (by normalized hash).
    pub distinct: u64,
    /// Distinct units seen at least twice (by occurrence).
    pub repeated: u64,
    /// Distinct units the policy removes at least one occurrence of.
    pub removable: u64,
}

/// One of the most repeated units.
///
/// # Example
///
/// ```
/// use near_dup::repeats::lines::{run, Config, Policy};
/// let (_, summary) = run(&["Menu\nx", "menu\ny\nmenu"], &Config::new(Policy::KeepFirst))?;
/// let top = &summary.top[0];
/// assert_eq!((top.occurrences, top.documents, top.sample.as_str()), (3, 2, "Menu"));
/// # Ok::<(), near_dup::repeats::lines::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TopUnit {
    /// The unit's normalized hash ([`Normalizer::hash`]).
    pub hash: u64,
    /// Its occurrences.
    pub occurrences: u64,
    /// The documents that have it.
    pub documents: u64,
    /// Its text where it first occurs (at most [`SAMPLE_BYTES`]), filled in by the
    /// edit pass.
    pub sample: String,
    /// Position of the first occurrence among the units counted.
    first: u64,
}

/// What a run removed, and the most repeated units.
///
/// # Example
///
/// ```
/// use near_dup::repeats::lines::{run, Config, Policy};
/// let (_, summary) = run(&["nav\nA\n", "nav\nB\n"], &Config::new(Policy::AtLeast(2)))?;
/// assert_eq!((summary.removed_units, summary.removed_bytes, summary.emptied), (2, 8, 0));
/// # Ok::<(), near_dup::repeats::lines::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Summary {
    /// The counts.
    pub stats: Stats,
    /// Occurrences removed.
    pub removed_units: u64,
    /// Bytes removed (units with their line ends).
    pub removed_bytes: u64,
    /// Documents left with nothing but whitespace.
    pub emptied: u64,
    /// The most repeated units, most first (by the count of [`CountBy`], then by
    /// first occurrence), at most [`Config::top`]; only units seen at least twice.
    pub top: Vec<TopUnit>,
}

/// The byte ranges to remove from one document, in order and disjoint.
///
/// # Example
///
/// ```
/// use near_dup::repeats::lines::{run, Config, Policy};
/// let (edits, _) = run(&["nav\nA\n", "nav\nB\n"], &Config::new(Policy::AtLeast(2)))?;
/// assert_eq!(edits[1].ranges(), [0..4]);
/// assert_eq!(edits[1].apply("nav\nB\n"), "B\n");
/// # Ok::<(), near_dup::repeats::lines::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Edits {
    ranges: Vec<Range<usize>>,
}

impl Edits {
    /// The removed byte ranges, one per unit removed, in order.
    ///
    /// # Example
    ///
    /// ```
    /// assert!(near_dup::repeats::lines::Edits::default().ranges().is_empty());
    /// ```
    #[must_use]
    pub fn ranges(&self) -> &[Range<usize>] {
        &self.ranges
    }

    /// Whether nothing is removed.
    ///
    /// # Example
    ///
    /// ```
    /// assert!(near_dup::repeats::lines::Edits::default().is_empty());
    /// ```
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    /// Bytes removed.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::repeats::lines::Edits::default().removed_bytes(), 0);
    /// ```
    #[must_use]
    pub fn removed_bytes(&self) -> usize {
        self.ranges.iter().map(ExactSizeIterator::len).sum()
    }

    /// `text` (the document these edits were made for) without the removed ranges.
    ///
    /// # Panics
    ///
    /// Never for the document the edits were made for; for another text whose length
    /// or character boundaries differ, slicing it panics.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::repeats::lines::{run, Config, Policy};
    /// let (edits, _) = run(&["a\nx\n", "a\ny"], &Config::new(Policy::KeepFirst))?;
    /// assert_eq!(edits[0].apply("a\nx\n"), "a\nx\n");
    /// assert_eq!(edits[1].apply("a\ny"), "y");
    /// # Ok::<(), near_dup::repeats::lines::Error>(())
    /// ```
    #[must_use]
    pub fn apply(&self, text: &str) -> String {
        let mut out = String::with_capacity(text.len() - self.removed_bytes().min(text.len()));
        let mut at = 0;
        for r in &self.ranges {
            out.push_str(&text[at..r.start]);
            at = r.end;
        }
        out.push_str(&text[at..]);
        out
    }

    /// Whether `text` (the document these edits were made for) keeps nothing but
    /// whitespace once they are applied.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::repeats::lines::{run, Config, Policy};
    /// let (edits, summary) = run(&["a\n", "a\n"], &Config::new(Policy::KeepFirst))?;
    /// assert!(!edits[0].empties("a\n") && edits[1].empties("a\n"));
    /// assert_eq!(summary.emptied, 1);
    /// # Ok::<(), near_dup::repeats::lines::Error>(())
    /// ```
    #[must_use]
    pub fn empties(&self, text: &str) -> bool {
        let mut at = 0;
        for r in &self.ranges {
            if !text[at..r.start].trim().is_empty() {
                return false;
            }
            at = r.end;
        }
        text[at..].trim().is_empty()
    }
}

/// How the edit pass decides, by engine.
pub(crate) enum Decide {
    /// The counts of every distinct unit, by hash.
    Memory(AHashMap<u64, Agg>),
    /// The positions of the units to remove, sorted, from the out-of-core count.
    OutOfCore {
        removed: Merge<Edge, u64>,
        /// The next position to remove, read ahead.
        next: Option<u64>,
        runs: Option<SortedRuns<Edge, u64>>,
        dir: PathBuf,
    },
}

/// The counts of a corpus, ready to edit its documents: give [`edits`](Self::edits)
/// the documents the [`Counter`](crate::lines::Counter) saw, in the same order, then
/// [`finish`](Self::finish) for the [`Summary`].
///
/// # Example
///
/// ```
/// use near_dup::repeats::lines::{Config, Counter, Policy};
/// let docs = ["Accept cookies\nFirst story", "Accept cookies\nSecond story"];
/// let mut counter = Counter::new(Config::new(Policy::AtLeast(2)))?;
/// for d in docs {
///     counter.add(d)?;
/// }
/// let mut repeated = counter.finish()?;
/// let cleaned: Vec<String> = docs
///     .iter()
///     .map(|d| repeated.edits(d).map(|e| e.apply(d)))
///     .collect::<Result<_, _>>()?;
/// assert_eq!(cleaned, ["First story", "Second story"]);
/// let summary = repeated.finish()?;
/// assert_eq!(summary.top[0].sample, "Accept cookies");
/// # Ok::<(), near_dup::repeats::lines::Error>(())
/// ```
pub struct Repeated {
    config: Config,
    decide: Decide,
    normalizer: Normalizer,
    summary: Summary,
    /// Position of the next unit among those counted.
    seq: u64,
    documents: u64,
    /// Top units by the position of their first occurrence.
    top_at: AHashMap<u64, usize>,
}

impl std::fmt::Debug for Repeated {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Repeated")
            .field("config", &self.config)
            .field("stats", &self.summary.stats)
            .field("seq", &self.seq)
            .finish_non_exhaustive()
    }
}

impl Repeated {
    /// Made by a counter's `finish`: the top units without their samples yet.
    pub(crate) fn new(config: Config, decide: Decide, stats: Stats, top: Vec<(u64, Agg)>) -> Self {
        let top: Vec<TopUnit> = top
            .into_iter()
            .map(|(hash, a)| TopUnit {
                hash,
                occurrences: a.occurrences,
                documents: a.documents,
                sample: String::new(),
                first: a.first,
            })
            .collect();
        let top_at = top.iter().enumerate().map(|(i, t)| (t.first, i)).collect();
        Repeated {
            normalizer: Normalizer::new(config.normalization),
            config,
            decide,
            summary: Summary {
                stats,
                top,
                ..Summary::default()
            },
            seq: 0,
            documents: 0,
            top_at,
        }
    }

    /// The counts.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::repeats::lines::{Config, Counter, Policy};
    /// let mut c = Counter::new(Config::new(Policy::KeepFirst))?;
    /// c.add("x\nx\ny")?;
    /// assert_eq!(c.finish()?.stats().repeated, 1);
    /// # Ok::<(), near_dup::repeats::lines::Error>(())
    /// ```
    #[must_use]
    pub fn stats(&self) -> &Stats {
        &self.summary.stats
    }

    /// The edits of the next document.
    ///
    /// # Errors
    ///
    /// [`Error::Mismatch`] when the documents are not those the count saw (more
    /// units or documents than it counted); [`Error::Records`] when the out-of-core
    /// positions cannot be read.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::repeats::lines::{Config, Counter, Error, Policy};
    /// let mut c = Counter::new(Config::new(Policy::KeepFirst))?;
    /// c.add("x\nx")?;
    /// let mut r = c.finish()?;
    /// assert_eq!(r.edits("x\nx")?.ranges(), [2..3]);
    /// assert!(matches!(r.edits("x"), Err(Error::Mismatch { .. })));
    /// # Ok::<(), near_dup::repeats::lines::Error>(())
    /// ```
    pub fn edits(&mut self, text: &str) -> Result<Edits, Error> {
        if self.documents >= self.summary.stats.documents {
            return Err(Error::Mismatch {
                what: format!(
                    "more documents than the {} counted",
                    self.summary.stats.documents
                ),
            });
        }
        self.documents += 1;
        let mut edits = Edits::default();
        for span in units(text, self.config.unit) {
            let unit = &text[span.text.clone()];
            let Some((hash, chars)) = self.normalizer.hash(unit) else {
                continue;
            };
            if chars < self.config.min_chars {
                continue;
            }
            let seq = self.seq;
            if seq >= self.summary.stats.units {
                return Err(Error::Mismatch {
                    what: format!("more units than the {} counted", self.summary.stats.units),
                });
            }
            self.seq += 1;
            if let Some(&i) = self.top_at.get(&seq) {
                self.summary.top[i].sample = sample(unit);
            }
            if self.removes(hash, seq)? {
                self.summary.removed_units += 1;
                self.summary.removed_bytes += span.removal.len() as u64;
                edits.ranges.push(span.removal);
            }
        }
        if !edits.is_empty() && edits.empties(text) {
            self.summary.emptied += 1;
        }
        Ok(edits)
    }

    /// Whether the unit with `hash` at position `seq` goes.
    fn removes(&mut self, hash: u64, seq: u64) -> Result<bool, Error> {
        match &mut self.decide {
            Decide::Memory(counts) => {
                let Some(agg) = counts.get(&hash) else {
                    return Err(Error::Mismatch {
                        what: "a unit the count did not see".to_owned(),
                    });
                };
                Ok(match self.config.policy {
                    Policy::AtLeast(n) => agg.count(self.config.count_by) >= n,
                    Policy::KeepFirst => agg.first != seq,
                })
            }
            Decide::OutOfCore { removed, next, .. } => {
                if *next != Some(seq) {
                    return Ok(false);
                }
                *next = removed.next().transpose()?.map(|e| e.a);
                Ok(true)
            }
        }
    }

    /// The summary, once every document was edited; deletes the out-of-core files.
    ///
    /// # Errors
    ///
    /// [`Error::Mismatch`] when fewer documents or units were edited than counted;
    /// [`Error::Records`] when a run file cannot be deleted.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::repeats::lines::{Config, Counter, Error, Policy};
    /// let mut c = Counter::new(Config::new(Policy::KeepFirst))?;
    /// c.add("x")?;
    /// assert!(matches!(c.finish()?.finish(), Err(Error::Mismatch { .. })));
    /// # Ok::<(), near_dup::repeats::lines::Error>(())
    /// ```
    pub fn finish(self) -> Result<Summary, Error> {
        if let Decide::OutOfCore { runs, dir, .. } = self.decide {
            if let Some(runs) = runs {
                runs.remove()?;
            }
            // The folder is the counter's own (created by it): removed when empty.
            let _ = std::fs::remove_dir(&dir);
        }
        if self.documents != self.summary.stats.documents || self.seq != self.summary.stats.units {
            return Err(Error::Mismatch {
                what: format!(
                    "{} documents and {} units where {} and {} were counted",
                    self.documents,
                    self.seq,
                    self.summary.stats.documents,
                    self.summary.stats.units
                ),
            });
        }
        Ok(self.summary)
    }
}

/// `unit` cut to [`SAMPLE_BYTES`] at a character boundary.
fn sample(unit: &str) -> String {
    let mut end = unit.len().min(SAMPLE_BYTES);
    while !unit.is_char_boundary(end) {
        end -= 1;
    }
    unit[..end].to_owned()
}
