//! [`BandKeySort`]: the band keys of documents, sorted by bucket `(band, key, doc)`
//! with a bounded number in memory, as [`ExternalSort`](crate::ExternalSort) sorts
//! [`BandKeyRecord`]s but typed for them: each document's keys arrive together, one
//! per band, so a run is held band by band (no pass that partitions by band) as
//! `u128`s `key << 64 | doc` (16 bytes a record, not the 24 of a `BandKeyRecord` in
//! memory), and each band is sorted on its own, all bands in parallel on rayon's pool
//! (feature `rayon`). The runs are ordinary [`BandKeyRecord`] record files, the same
//! records in the same order as `ExternalSort`'s of the same records by
//! [`BandKeySort::order`].

use std::path::{Path, PathBuf};
use std::thread::JoinHandle;

use crate::records::{BandKeyRecord, RecordError, RecordWriter};
use crate::runs::{SortedRuns, fan_in, join_spill};

/// A run being sorted and written on a thread of its own: its buffer comes back.
type Writing = JoinHandle<Result<Vec<u128>, RecordError>>;

/// Band keys pushed a document at a time, sorted by [`BandKeySort::order`] with at most
/// `max_in_memory` of them (16 bytes each) in memory; the rest spilled to sorted run
/// files `{prefix}-{n}.bin` of [`BandKeyRecord`]s in a directory. A run is sorted and
/// written on a thread of its own while the next one fills (two buffers of half of
/// `max_in_memory` records each).
///
/// # Example
///
/// ```
/// use near_dup::scale::{BandKeyRecord, BandKeySort};
/// let dir = std::env::temp_dir().join("ndd-doc-scale-bandkeys-sort");
/// # let _ = std::fs::remove_dir_all(&dir); // a previous run's leftovers
/// std::fs::create_dir_all(&dir)?;
/// // Four records in memory at most: two runs of one document's two bands each.
/// let mut sort = BandKeySort::new(&dir, "keys", 4, 0)?;
/// for (doc, keys) in [(0, [7, 5]), (1, [3, 5]), (2, [7, 1])] {
///     sort.push_document(doc, &keys)?;
/// }
/// assert_eq!(sort.len(), 6);
/// let runs = sort.finish()?;
/// assert_eq!(runs.paths().len(), 3);
/// let merged: Vec<(u16, u64, u64)> = runs
///     .merge()?
///     .map(|r| r.map(|r| BandKeySort::order(&r)))
///     .collect::<Result<_, _>>()?;
/// assert_eq!(
///     merged,
///     [(0, 3, 1), (0, 7, 0), (0, 7, 2), (1, 1, 2), (1, 5, 0), (1, 5, 1)]
/// );
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct BandKeySort {
    dir: PathBuf,
    prefix: String,
    fingerprint: u64,
    /// Records held in memory at most, over both buffers.
    max_in_memory: usize,
    /// The number of bands, set by the first document.
    bands: Option<usize>,
    /// Documents a run holds at most: each band's section of `buffer` is this long.
    per_run: usize,
    /// Band `b`'s keys of the run being filled, as `key << 64 | doc`, at
    /// `b * per_run..b * per_run + held`.
    buffer: Vec<u128>,
    /// Documents in `buffer`.
    held: usize,
    runs: Vec<PathBuf>,
    next_run: usize,
    pushed: u64,
    /// The run being sorted and written on its own thread, if any.
    writing: Option<Writing>,
}

impl BandKeySort {
    /// A sort spilling to `dir` (created if missing), holding at most `max_in_memory`
    /// records (16 bytes each; at least one document's) before it writes a run. Every
    /// run carries `fingerprint`.
    ///
    /// # Errors
    ///
    /// [`RecordError::Io`] when `dir` cannot be created.
    ///
    /// # Example
    ///
    /// ```
    /// let dir = std::env::temp_dir().join("ndd-doc-scale-bandkeys-new");
    /// # let _ = std::fs::remove_dir_all(&dir); // a previous run's leftovers
    /// let sort = near_dup::scale::BandKeySort::new(&dir, "keys", 1 << 20, 0)?;
    /// assert!(sort.is_empty());
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn new(
        dir: impl AsRef<Path>,
        prefix: &str,
        max_in_memory: usize,
        fingerprint: u64,
    ) -> Result<Self, RecordError> {
        std::fs::create_dir_all(dir.as_ref())?;
        Ok(BandKeySort {
            dir: dir.as_ref().to_path_buf(),
            prefix: prefix.to_owned(),
            fingerprint,
            max_in_memory,
            bands: None,
            per_run: 0,
            buffer: Vec::new(),
            held: 0,
            runs: Vec::new(),
            next_run: 0,
            pushed: 0,
            writing: None,
        })
    }

    /// The order of the runs and of their merge: by bucket (band, then key), then by
    /// document.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::scale::{BandKeyRecord, BandKeySort};
    /// let r = BandKeyRecord { doc: 4, band: 1, key: 9 };
    /// assert_eq!(BandKeySort::order(&r), (1, 9, 4));
    /// ```
    #[must_use]
    pub fn order(r: &BandKeyRecord) -> (u16, u64, u64) {
        (r.band, r.key, r.doc)
    }

    /// Adds document `doc`'s band keys, band `i`'s key being `keys[i]`; writes a sorted
    /// run when the run's half of `max_in_memory` records is held. Every document has
    /// as many keys as the first one.
    ///
    /// # Errors
    ///
    /// [`RecordError::Io`] when a run cannot be written, or (of kind `InvalidInput`)
    /// when `keys` has another length than the first document's, or more than 65,536
    /// keys.
    ///
    /// # Example
    ///
    /// ```
    /// let dir = std::env::temp_dir().join("ndd-doc-scale-bandkeys-push");
    /// # let _ = std::fs::remove_dir_all(&dir); // a previous run's leftovers
    /// let mut sort = near_dup::scale::BandKeySort::new(&dir, "keys", 8, 0)?;
    /// sort.push_document(0, &[1, 2, 3])?;
    /// assert!(sort.push_document(1, &[1, 2]).is_err()); // another number of bands
    /// assert_eq!(sort.len(), 3);
    /// # drop(sort);
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn push_document(&mut self, doc: u64, keys: &[u64]) -> Result<(), RecordError> {
        let bands = match self.bands {
            Some(bands) if bands == keys.len() => bands,
            Some(bands) => {
                return Err(invalid(format!(
                    "a document has {} band keys, the first one {bands}",
                    keys.len()
                )));
            }
            None => {
                if keys.len() > usize::from(u16::MAX) + 1 {
                    return Err(invalid(
                        "at most 65,536 bands are written to band-key files".to_owned(),
                    ));
                }
                self.bands = Some(keys.len());
                self.per_run = (self.max_in_memory / 2 / keys.len().max(1)).max(1);
                keys.len()
            }
        };
        if bands == 0 {
            return Ok(());
        }
        if self.buffer.is_empty() {
            // Zeroed pages cost nothing until written: a large bound, a small input.
            self.buffer = vec![0; bands * self.per_run];
        }
        let doc = u128::from(doc);
        for (band, &key) in keys.iter().enumerate() {
            self.buffer[band * self.per_run + self.held] = u128::from(key) << 64 | doc;
        }
        self.held += 1;
        self.pushed += bands as u64;
        if self.held == self.per_run {
            self.spill()?;
        }
        Ok(())
    }

    /// Records (band keys) pushed so far.
    ///
    /// # Example
    ///
    /// ```
    /// let dir = std::env::temp_dir().join("ndd-doc-scale-bandkeys-len");
    /// # let _ = std::fs::remove_dir_all(&dir); // a previous run's leftovers
    /// let mut sort = near_dup::scale::BandKeySort::new(&dir, "keys", 2, 0)?;
    /// for doc in 0..3 {
    ///     sort.push_document(doc, &[doc, 9])?;
    /// }
    /// assert_eq!(sort.len(), 6); // spilled or not
    /// # drop(sort);
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn len(&self) -> u64 {
        self.pushed
    }

    /// Whether no record was pushed.
    ///
    /// # Example
    ///
    /// ```
    /// let dir = std::env::temp_dir().join("ndd-doc-scale-bandkeys-empty");
    /// # let _ = std::fs::remove_dir_all(&dir); // a previous run's leftovers
    /// let sort = near_dup::scale::BandKeySort::new(&dir, "keys", 8, 0)?;
    /// assert!(sort.is_empty());
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.pushed == 0
    }

    /// Starts sorting and writing the run held, on a thread of its own, once the run
    /// before it is written (whose buffer the next run fills).
    fn spill(&mut self) -> Result<(), RecordError> {
        if self.held == 0 {
            return Ok(());
        }
        let path = self
            .dir
            .join(format!("{}-{}.bin", self.prefix, self.next_run));
        self.next_run += 1;
        self.runs.push(path.clone());
        let spare = self.wait()?;
        let mut buffer = std::mem::replace(&mut self.buffer, spare);
        let (per_run, held) = (self.per_run, std::mem::take(&mut self.held));
        let fingerprint = self.fingerprint;
        self.writing = Some(std::thread::spawn(move || {
            write_run(&mut buffer, per_run, held, &path, fingerprint).map(|()| buffer)
        }));
        Ok(())
    }

    /// Waits for the run being written on its own thread, if any, and gives back its
    /// buffer (empty when there was none). A panic there goes on here.
    fn wait(&mut self) -> Result<Vec<u128>, RecordError> {
        join_spill(self.writing.take())
    }

    /// Writes what is held as the last run and merges runs in passes until at most
    /// [`MAX_FAN_IN`](crate::MAX_FAN_IN) remain.
    ///
    /// # Errors
    ///
    /// [`RecordError`] when a run cannot be written or read back.
    ///
    /// # Example
    ///
    /// ```
    /// let dir = std::env::temp_dir().join("ndd-doc-scale-bandkeys-finish");
    /// # let _ = std::fs::remove_dir_all(&dir); // a previous run's leftovers
    /// let sort = near_dup::scale::BandKeySort::new(&dir, "keys", 8, 0)?;
    /// let runs = sort.finish()?; // nothing pushed: no run
    /// assert!(runs.paths().is_empty());
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn finish(mut self) -> Result<SortedRuns<BandKeyRecord, (u16, u64, u64)>, RecordError> {
        self.spill()?;
        self.wait()?;
        self.buffer = Vec::new();
        let runs = std::mem::take(&mut self.runs);
        let (dir, prefix) = (&self.dir, &self.prefix);
        let mut next_run = self.next_run;
        fan_in(runs, Self::order, self.fingerprint, || {
            next_run += 1;
            dir.join(format!("{prefix}-{}.bin", next_run - 1))
        })
    }
}

impl Drop for BandKeySort {
    /// Waits for a run still being written (a sort dropped unfinished, after an
    /// error), so that no thread writes in its directory afterwards.
    fn drop(&mut self) {
        if let Some(writing) = self.writing.take() {
            let _ = writing.join();
        }
    }
}

impl std::fmt::Debug for BandKeySort {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BandKeySort")
            .field("dir", &self.dir)
            .field("prefix", &self.prefix)
            .field("bands", &self.bands)
            .field("held", &self.held)
            .field("max_in_memory", &self.max_in_memory)
            .field("runs", &self.runs.len())
            .finish_non_exhaustive()
    }
}

fn invalid(reason: String) -> RecordError {
    RecordError::Io(std::io::Error::new(
        std::io::ErrorKind::InvalidInput,
        reason,
    ))
}

/// Sorts each band's `held` keys of `buffer` (band `b`'s at `b * per_run`) and writes
/// them, band by band, as the run at `path`.
fn write_run(
    buffer: &mut [u128],
    per_run: usize,
    held: usize,
    path: &Path,
    fingerprint: u64,
) -> Result<(), RecordError> {
    let sections = buffer.chunks_mut(per_run);
    #[cfg(feature = "rayon")]
    {
        use rayon::prelude::*;
        let sections: Vec<&mut [u128]> = sections.collect();
        sections
            .into_par_iter()
            .for_each(|s| sort_band(&mut s[..held]));
    }
    #[cfg(not(feature = "rayon"))]
    for s in sections {
        sort_band(&mut s[..held]);
    }
    let mut w = RecordWriter::create(path, fingerprint)?;
    for (band, section) in (0u16..).zip(buffer.chunks(per_run)) {
        for &k in &section[..held] {
            // Both halves fit: the checks are free.
            let (key, doc) = (k >> 64, k & u128::from(u64::MAX));
            w.write(&BandKeyRecord {
                doc: u64::try_from(doc).unwrap_or(u64::MAX),
                band,
                key: u64::try_from(key).unwrap_or(u64::MAX),
            })?;
        }
    }
    w.finish()?;
    Ok(())
}

/// Sorts one band's `key << 64 | doc`s.
pub(crate) fn sort_band(keys: &mut [u128]) {
    crate::radix::sort_by_u128(keys, &|&k| Some(k));
}

#[cfg(test)]
mod tests {
    use super::{BandKeySort, sort_band};
    use crate::BandKeyRecord;

    /// A small deterministic generator (xorshift).
    fn words(n: usize, seed: u64) -> Vec<u64> {
        let mut s = seed | 1;
        (0..n)
            .map(|_| {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                s
            })
            .collect()
    }

    #[test]
    fn a_band_sorts_as_the_standard_sort_does() {
        for (n, mask) in [
            (0, u64::MAX),
            (1, u64::MAX),
            (1000, u64::MAX),
            (60_000, 0xFF),
        ] {
            let mut v: Vec<u128> = (0u64..)
                .zip(words(n, n as u64 + 3))
                .map(|(doc, w)| u128::from(w & mask) << 64 | u128::from(doc))
                .collect();
            let mut expected = v.clone();
            expected.sort_unstable();
            sort_band(&mut v);
            assert_eq!(v, expected);
        }
    }

    /// The merged runs are every record pushed, in `sort_unstable` order of
    /// `(band, key, doc)`, for budgets of one document to all of them, hot keys (few
    /// distinct) and documents pushed out of order.
    #[test]
    fn runs_merge_to_the_sorted_records() {
        let dir = tempfile::tempdir().expect("a folder");
        let bands = 5usize;
        let docs: Vec<u64> = words(700, 11).iter().map(|w| w % 100_000).collect();
        for (budget, modulus) in [(1, u64::MAX), (5, 3), (64, 7), (999, u64::MAX), (10_000, 2)] {
            let mut sort = BandKeySort::new(dir.path(), "k", budget, 9).expect("a folder");
            let mut expected = Vec::new();
            let keys = words(docs.len() * bands, budget as u64);
            for (&doc, keys) in docs.iter().zip(keys.chunks(bands)) {
                let keys: Vec<u64> = keys.iter().map(|k| k % modulus).collect();
                sort.push_document(doc, &keys).expect("pushed");
                for (band, &key) in (0u16..).zip(&keys) {
                    expected.push(BandKeyRecord { doc, band, key });
                }
            }
            assert_eq!(sort.len(), expected.len() as u64);
            expected.sort_unstable_by_key(BandKeySort::order);
            let runs = sort.finish().expect("written");
            assert!(runs.paths().len() <= crate::MAX_FAN_IN);
            let merged: Vec<BandKeyRecord> = runs
                .merge()
                .expect("read")
                .collect::<Result<_, _>>()
                .expect("read");
            assert_eq!(merged, expected, "budget {budget}, keys mod {modulus}");
            // Each run is sorted on its own too.
            for p in runs.paths() {
                let run: Vec<BandKeyRecord> = crate::read_all(p, Some(9)).expect("a run");
                assert!(run.is_sorted_by_key(BandKeySort::order));
            }
            runs.remove().expect("removed");
        }
    }

    #[test]
    fn another_number_of_bands_is_refused() {
        let dir = tempfile::tempdir().expect("a folder");
        let mut sort = BandKeySort::new(dir.path(), "k", 100, 0).expect("a folder");
        sort.push_document(0, &[1, 2]).expect("pushed");
        assert!(sort.push_document(1, &[1, 2, 3]).is_err());
        assert!(sort.push_document(1, &[]).is_err());
        sort.push_document(1, &[3, 4]).expect("pushed");
        assert_eq!(sort.len(), 4);
        let mut none = BandKeySort::new(dir.path(), "z", 100, 0).expect("a folder");
        none.push_document(0, &[]).expect("no bands: nothing held");
        assert!(none.is_empty());
        assert!(none.finish().expect("no run").paths().is_empty());
    }
}
