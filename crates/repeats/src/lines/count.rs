//! The first pass: every unit of every document counted by normalized hash, in memory
//! or out of core.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use ahash::{AHashMap, AHashSet};
use ndd_scale::{Edge, ExternalSort};

use super::config::{Config, Policy};
use super::error::Error;
use super::plan::{Agg, Decide, Repeated, Stats};
use super::units::{Normalizer, units};

/// The fingerprint in the headers of the out-of-core runs ("lines" in ASCII).
const RUN_FINGERPRINT: u64 = 0x006c_696e_6573;

/// Work folders made by this process, numbered.
static FOLDERS: AtomicU64 = AtomicU64::new(0);

/// Where the counts are kept.
enum Engine {
    /// A hash table of every distinct unit, optionally bounded.
    Memory {
        counts: AHashMap<u64, Agg>,
        budget: Option<usize>,
    },
    /// One record per occurrence, `(hash, position << 1 | first in its document)`,
    /// sorted under a bound on those in memory.
    OutOfCore {
        sort: ExternalSort<Edge, (u64, u64)>,
        dir: PathBuf,
        max_in_memory: usize,
    },
}

/// The first pass: give it every document with [`add`](Self::add), then
/// [`finish`](Self::finish) for the [`Repeated`] units, which edits the same documents
/// in a second pass.
///
/// In memory ([`new`](Self::new)), the count holds one entry per distinct unit (about
/// 40 bytes); [`with_budget`](Self::with_budget) bounds it. Out of core
/// ([`out_of_core`](Self::out_of_core)), it writes one 16-byte record per occurrence
/// to sorted runs (`ndd-scale`'s [`ExternalSort`]) with a bounded number in memory,
/// merges them by hash to decide, and sorts the positions to remove: the same edits
/// and summary as in memory.
///
/// # Example
///
/// ```
/// use near_dup::repeats::lines::{Config, Counter, Policy};
/// let mut counter = Counter::new(Config::new(Policy::AtLeast(2)))?;
/// counter.add("Skip to content\nHello")?;
/// counter.add("Skip to content\nWorld")?;
/// let repeated = counter.finish()?;
/// assert_eq!(repeated.stats().removable, 1);
/// # Ok::<(), near_dup::repeats::lines::Error>(())
/// ```
pub struct Counter {
    config: Config,
    engine: Engine,
    normalizer: Normalizer,
    /// The hashes seen in the current document.
    in_document: AHashSet<u64>,
    units: u64,
    documents: u64,
}

impl std::fmt::Debug for Counter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Counter")
            .field("config", &self.config)
            .field("units", &self.units)
            .field("documents", &self.documents)
            .finish_non_exhaustive()
    }
}

impl Counter {
    /// A count in memory, unbounded.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] when `config` is invalid ([`Config::validate`]).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::repeats::lines::{Config, Counter, Policy};
    /// assert!(Counter::new(Config::new(Policy::KeepFirst)).is_ok());
    /// ```
    pub fn new(config: Config) -> Result<Self, Error> {
        Self::with_engine(
            config,
            Engine::Memory {
                counts: AHashMap::new(),
                budget: None,
            },
        )
    }

    /// A count in memory of at most `max_distinct` distinct units: [`add`](Self::add)
    /// fails with [`Error::OverBudget`] beyond, and the caller counts out of core.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] when `config` is invalid.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::repeats::lines::{Config, Counter, Error, Policy};
    /// let mut c = Counter::with_budget(Config::new(Policy::KeepFirst), 2)?;
    /// c.add("a\nb\na")?;
    /// assert!(matches!(c.add("c"), Err(Error::OverBudget { budget: 2 })));
    /// # Ok::<(), Error>(())
    /// ```
    pub fn with_budget(config: Config, max_distinct: usize) -> Result<Self, Error> {
        Self::with_engine(
            config,
            Engine::Memory {
                counts: AHashMap::new(),
                budget: Some(max_distinct),
            },
        )
    }

    /// A count out of core: sorted runs in a new folder under `dir` (created, and
    /// removed by [`Repeated::finish`]; left behind when the run fails), at most
    /// `max_in_memory` 16-byte records in memory at once (at least 1). While the runs
    /// are merged, the positions of one unit are held until its count reaches the
    /// bound of [`Policy::AtLeast`]: at most n − 1 by occurrence, more by document
    /// when a unit repeats within fewer than n documents.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] when `config` is invalid; [`Error::Records`] when
    /// the folder cannot be created.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::repeats::lines::{run_with, Config, Counter, Policy};
    /// let dir = std::env::temp_dir().join("ndd-doc-lines-ooc");
    /// let config = Config::new(Policy::AtLeast(2));
    /// let docs = ["nav\none", "nav\ntwo", "three"];
    /// let (edits, summary) = run_with(Counter::out_of_core(config.clone(), &dir, 2)?, &docs)?;
    /// let (in_memory, _) = run_with(Counter::new(config)?, &docs)?;
    /// assert_eq!(edits, in_memory);
    /// assert_eq!(summary.removed_units, 2);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn out_of_core(
        config: Config,
        dir: impl AsRef<Path>,
        max_in_memory: usize,
    ) -> Result<Self, Error> {
        config.validate()?;
        let n = FOLDERS.fetch_add(1, Ordering::Relaxed);
        let dir = dir
            .as_ref()
            .join(format!("ndd-lines-{}-{n}", std::process::id()));
        let sort = ExternalSort::new(
            &dir,
            "units",
            |e: &Edge| (e.a, e.b),
            max_in_memory,
            RUN_FINGERPRINT,
        )?;
        Self::with_engine(
            config,
            Engine::OutOfCore {
                sort,
                dir,
                max_in_memory,
            },
        )
    }

    fn with_engine(config: Config, engine: Engine) -> Result<Self, Error> {
        config.validate()?;
        Ok(Counter {
            normalizer: Normalizer::new(config.normalization),
            config,
            engine,
            in_document: AHashSet::new(),
            units: 0,
            documents: 0,
        })
    }

    /// Counts the units of the next document.
    ///
    /// # Errors
    ///
    /// [`Error::OverBudget`] past the budget of [`with_budget`](Self::with_budget);
    /// [`Error::Records`] when a run cannot be written.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::repeats::lines::{Config, Counter, Policy};
    /// let mut c = Counter::new(Config::new(Policy::KeepFirst).with_min_chars(3))?;
    /// c.add("ab\nabc\n\n")?; // "ab" is too short, the blank line is no unit
    /// assert_eq!(c.finish()?.stats().units, 1);
    /// # Ok::<(), near_dup::repeats::lines::Error>(())
    /// ```
    pub fn add(&mut self, text: &str) -> Result<(), Error> {
        self.documents += 1;
        self.in_document.clear();
        for span in units(text, self.config.unit) {
            let Some((hash, chars)) = self.normalizer.hash(&text[span.text]) else {
                continue;
            };
            if chars < self.config.min_chars {
                continue;
            }
            let seq = self.units;
            self.units += 1;
            let first_here = self.in_document.insert(hash);
            match &mut self.engine {
                Engine::Memory { counts, budget } => {
                    let agg = counts.entry(hash).or_insert(Agg {
                        occurrences: 0,
                        documents: 0,
                        first: seq,
                    });
                    agg.occurrences += 1;
                    agg.documents += u64::from(first_here);
                    if let Some(budget) = *budget
                        && counts.len() > budget
                    {
                        return Err(Error::OverBudget { budget });
                    }
                }
                Engine::OutOfCore { sort, .. } => sort.push(Edge {
                    a: hash,
                    b: seq << 1 | u64::from(first_here),
                })?,
            }
        }
        Ok(())
    }

    /// Decides what goes: the [`Repeated`] units, which edit the same documents.
    ///
    /// # Errors
    ///
    /// [`Error::Records`] when the out-of-core runs cannot be written or read.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::repeats::lines::{Config, Counter, Policy};
    /// let mut c = Counter::new(Config::new(Policy::AtLeast(2)))?;
    /// c.add("a\nb")?;
    /// c.add("a")?;
    /// let r = c.finish()?;
    /// assert_eq!((r.stats().distinct, r.stats().repeated), (2, 1));
    /// # Ok::<(), near_dup::repeats::lines::Error>(())
    /// ```
    pub fn finish(self) -> Result<Repeated, Error> {
        let config = self.config;
        let mut stats = Stats {
            documents: self.documents,
            units: self.units,
            ..Stats::default()
        };
        let mut top = Top::new(&config);
        let decide = match self.engine {
            Engine::Memory { counts, .. } => {
                for (&hash, agg) in &counts {
                    tally(&config, &mut stats, &mut top, hash, agg);
                }
                Decide::Memory(counts)
            }
            Engine::OutOfCore {
                sort,
                dir,
                max_in_memory,
            } => decide_out_of_core(&config, &mut stats, &mut top, sort, dir, max_in_memory)?,
        };
        Ok(Repeated::new(config, decide, stats, top.finish()))
    }
}

/// Counts a distinct unit into the stats and the top list.
fn tally(config: &Config, stats: &mut Stats, top: &mut Top, hash: u64, agg: &Agg) {
    stats.distinct += 1;
    if agg.occurrences >= 2 {
        stats.repeated += 1;
        top.push(hash, *agg);
    }
    let removable = match config.policy {
        Policy::AtLeast(n) => agg.count(config.count_by) >= n,
        Policy::KeepFirst => agg.occurrences >= 2,
    };
    stats.removable += u64::from(removable);
}

/// The out-of-core decision: the occurrence records merged by hash; the positions of
/// the occurrences to remove sorted into a second set of runs.
fn decide_out_of_core(
    config: &Config,
    stats: &mut Stats,
    top: &mut Top,
    sort: ExternalSort<Edge, (u64, u64)>,
    dir: PathBuf,
    max_in_memory: usize,
) -> Result<Decide, Error> {
    let runs = sort.finish()?;
    let mut removed = ExternalSort::new(
        &dir,
        "removed",
        |e: &Edge| e.a,
        max_in_memory,
        RUN_FINGERPRINT,
    )?;
    // The group of one hash: its counts, and (for `AtLeast`) its positions until the
    // count reaches the policy's bound.
    let mut current: Option<(u64, Agg)> = None;
    let mut pending: Vec<u64> = Vec::new();
    let mut releasing = false;
    for record in runs.merge()? {
        let Edge { a: hash, b } = record?;
        let (seq, first_here) = (b >> 1, b & 1);
        if current.is_some_and(|(h, _)| h != hash) {
            if let Some((h, agg)) = current.take() {
                tally(config, stats, top, h, &agg);
            }
            pending.clear();
            releasing = false;
        }
        let (_, agg) = current.get_or_insert((
            hash,
            Agg {
                occurrences: 0,
                documents: 0,
                first: seq,
            },
        ));
        agg.occurrences += 1;
        agg.documents += first_here;
        match config.policy {
            Policy::KeepFirst if agg.occurrences > 1 => removed.push(Edge { a: seq, b: hash })?,
            Policy::KeepFirst => {}
            Policy::AtLeast(n) => {
                if releasing || agg.count(config.count_by) >= n {
                    for p in pending.drain(..) {
                        removed.push(Edge { a: p, b: hash })?;
                    }
                    releasing = true;
                    removed.push(Edge { a: seq, b: hash })?;
                } else {
                    pending.push(seq);
                }
            }
        }
    }
    if let Some((h, agg)) = current {
        tally(config, stats, top, h, &agg);
    }
    runs.remove()?;
    let removed = removed.finish()?;
    let mut merge = removed.merge()?;
    let next = merge.next().transpose()?.map(|e| e.a);
    Ok(Decide::OutOfCore {
        removed: merge,
        next,
        runs: Some(removed),
        dir,
    })
}

/// The most repeated units: ranked by count (most first), then by first occurrence.
struct Top {
    k: usize,
    by: super::config::CountBy,
    held: Vec<(u64, Agg)>,
}

impl Top {
    fn new(config: &Config) -> Self {
        Top {
            k: config.top,
            by: config.count_by,
            held: Vec::new(),
        }
    }

    fn push(&mut self, hash: u64, agg: Agg) {
        if self.k == 0 {
            return;
        }
        self.held.push((hash, agg));
        if self.held.len() >= self.k.saturating_mul(2).max(64) {
            self.trim();
        }
    }

    fn trim(&mut self) {
        let by = self.by;
        self.held
            .sort_unstable_by_key(|(_, a)| (std::cmp::Reverse(a.count(by)), a.first));
        self.held.truncate(self.k);
    }

    fn finish(mut self) -> Vec<(u64, Agg)> {
        self.trim();
        self.held
    }
}
