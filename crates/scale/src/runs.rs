//! External sorting of records: [`ExternalSort`] takes records in any order with a
//! bounded number in memory, spills sorted runs to record files, and
//! [`SortedRuns::merge`] streams them back in order (a k-way merge, in several passes
//! when there are more runs than [`MAX_FAN_IN`]).
//!
//! This is how the out-of-core stages group band keys by bucket and edges by pair
//! without holding either in memory: memory is `max_in_memory × size_of::<T>()` while
//! pushing, and about 64 KiB per open run while merging.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::collections::binary_heap::PeekMut;
use std::fs::File;
use std::io::BufReader;
use std::path::{Path, PathBuf};
use std::thread::JoinHandle;

use crate::records::{Record, RecordError, RecordReader, RecordWriter};

/// Most runs merged at once: 64 readers with 64 KiB buffers each, 4 MiB. More runs
/// are merged in passes (each pass reads and writes every record once more).
///
/// # Example
///
/// ```
/// assert_eq!(near_dup::scale::MAX_FAN_IN, 64);
/// ```
pub const MAX_FAN_IN: usize = 64;

/// Records pushed in any order, sorted by `key` with at most `max_in_memory` of them in
/// memory; the rest spilled to sorted run files `{prefix}-{n}.bin` in a directory.
///
/// # Example
///
/// ```
/// use near_dup::scale::{Edge, ExternalSort};
/// let dir = std::env::temp_dir().join("ndd-doc-scale-runs-35");
/// # let _ = std::fs::remove_dir_all(&dir); // a previous run's leftovers
/// std::fs::create_dir_all(&dir)?;
/// // Two records in memory at most: five records make three runs.
/// let mut sort = ExternalSort::new(&dir, "edges", |e: &Edge| (e.a, e.b), 2, 0)?;
/// for (a, b) in [(5, 6), (1, 2), (3, 4), (1, 2), (0, 9)] {
///     sort.push(Edge { a, b })?;
/// }
/// let runs = sort.finish()?;
/// assert_eq!(runs.paths().len(), 3);
/// let sorted: Vec<Edge> = runs.merge()?.collect::<Result<_, _>>()?;
/// let pairs: Vec<(u64, u64)> = sorted.into_iter().map(Into::into).collect();
/// assert_eq!(pairs, [(0, 9), (1, 2), (1, 2), (3, 4), (5, 6)]);
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct ExternalSort<T: Record, K: Ord> {
    dir: PathBuf,
    prefix: String,
    key: fn(&T) -> K,
    radix: Option<fn(&T) -> Option<u128>>,
    buffer: Vec<T>,
    max_in_memory: usize,
    fingerprint: u64,
    runs: Vec<PathBuf>,
    next_run: usize,
    pushed: u64,
    /// Set by [`overlapped`](Self::overlapped): starts a full buffer's sort and write
    /// on a thread of its own.
    spawn: Option<Spawn<T, K>>,
    /// The run being sorted and written on its own thread, if any.
    writing: Option<Writing<T>>,
}

/// A run sorted and written on a thread of its own: its buffer comes back, emptied.
type Writing<T> = JoinHandle<Result<Vec<T>, RecordError>>;

/// Starts a spill on a thread of its own ([`spawn_spill`], for records that may go
/// to another thread).
type Spawn<T, K> = fn(Spill<T, K>) -> Writing<T>;

/// What a spill needs: the records held, where they go and how they are ordered.
struct Spill<T: Record, K: Ord> {
    buffer: Vec<T>,
    path: PathBuf,
    key: fn(&T) -> K,
    radix: Option<fn(&T) -> Option<u128>>,
    fingerprint: u64,
}

impl<T: Record, K: Ord> Spill<T, K> {
    /// Sorts the records and writes them as the run at `path`.
    fn write(&mut self) -> Result<(), RecordError> {
        sort_run(&mut self.buffer, self.key, self.radix);
        let mut w = RecordWriter::create(&self.path, self.fingerprint)?;
        for r in &self.buffer {
            w.write(r)?;
        }
        w.finish()?;
        self.buffer.clear();
        Ok(())
    }
}

/// Starts `spill` on a thread of its own.
fn spawn_spill<T: Record + 'static, K: Ord + 'static>(mut spill: Spill<T, K>) -> Writing<T> {
    std::thread::spawn(move || spill.write().map(|()| spill.buffer))
}

impl<T: Record, K: Ord> ExternalSort<T, K> {
    /// A sort spilling to `dir` (created if missing), holding at most `max_in_memory`
    /// records (at least 1) before it writes a run. Every run carries `fingerprint`.
    ///
    /// # Errors
    ///
    /// [`RecordError::Io`] when `dir` cannot be created.
    ///
    /// # Example
    ///
    /// ```
    /// let dir = std::env::temp_dir().join("ndd-doc-scale-runs-71");
    /// # let _ = std::fs::remove_dir_all(&dir); // a previous run's leftovers
    /// std::fs::create_dir_all(&dir)?;
    /// let sort = near_dup::scale::ExternalSort::new(&dir, "x", |e: &near_dup::scale::Edge| e.a, 1 << 20, 0)?;
    /// assert_eq!(sort.len(), 0);
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn new(
        dir: impl AsRef<Path>,
        prefix: &str,
        key: fn(&T) -> K,
        max_in_memory: usize,
        fingerprint: u64,
    ) -> Result<Self, RecordError> {
        std::fs::create_dir_all(dir.as_ref())?;
        let max_in_memory = max_in_memory.max(1);
        Ok(ExternalSort {
            dir: dir.as_ref().to_path_buf(),
            prefix: prefix.to_owned(),
            key,
            radix: None,
            // Grows as records come: a large bound costs nothing for a small input.
            buffer: Vec::new(),
            max_in_memory,
            fingerprint,
            runs: Vec::new(),
            next_run: 0,
            pushed: 0,
            spawn: None,
            writing: None,
        })
    }

    /// Sorts and writes each run on a thread of its own while the next one fills, so
    /// that a spill does not hold up the thread that pushes: two buffers of half of
    /// `max_in_memory` records each (memory stays within `max_in_memory` records;
    /// twice as many runs, each half as long). The merged records are the same.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::scale::{Edge, ExternalSort};
    /// let dir = std::env::temp_dir().join("ndd-doc-scale-runs-overlapped");
    /// # let _ = std::fs::remove_dir_all(&dir); // a previous run's leftovers
    /// std::fs::create_dir_all(&dir)?;
    /// let mut sort = ExternalSort::new(&dir, "e", |e: &Edge| (e.a, e.b), 4, 0)?.overlapped();
    /// for (a, b) in [(5, 6), (1, 2), (3, 4), (1, 1), (0, 9)] {
    ///     sort.push(Edge { a, b })?;
    /// }
    /// let runs = sort.finish()?;
    /// assert_eq!(runs.paths().len(), 3); // runs of at most 2 records
    /// let sorted: Vec<(u64, u64)> =
    ///     runs.merge()?.map(|e| e.map(Into::into)).collect::<Result<_, _>>()?;
    /// assert_eq!(sorted, [(0, 9), (1, 1), (1, 2), (3, 4), (5, 6)]);
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn overlapped(mut self) -> Self
    where
        T: 'static,
        K: 'static,
    {
        self.spawn = Some(spawn_spill::<T, K>);
        self.max_in_memory = (self.max_in_memory / 2).max(1);
        self
    }

    /// Sorts each run by `radix` (an in-place radix sort, a byte at a time) instead of
    /// comparing `key`s, when every record of the run has one: `radix` must order
    /// records as `key` does (`radix(x) < radix(y)` exactly when `key(x) < key(y)`),
    /// and may return `None` for a record that has no such `u128` (that run is then
    /// sorted by `key`). The runs, and the merge, are the same either way when
    /// records of equal keys are equal.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::scale::{Edge, ExternalSort};
    /// let dir = std::env::temp_dir().join("ndd-doc-scale-runs-radix");
    /// # let _ = std::fs::remove_dir_all(&dir); // a previous run's leftovers
    /// std::fs::create_dir_all(&dir)?;
    /// let radix = |e: &Edge| Some(u128::from(e.a) << 64 | u128::from(e.b));
    /// let mut sort = ExternalSort::new(&dir, "e", |e: &Edge| (e.a, e.b), 3, 0)?.radix(radix);
    /// for (a, b) in [(5, 6), (1, 2), (3, 4), (1, 1), (0, 9)] {
    ///     sort.push(Edge { a, b })?;
    /// }
    /// let runs = sort.finish()?;
    /// let sorted: Vec<(u64, u64)> =
    ///     runs.merge()?.map(|e| e.map(Into::into)).collect::<Result<_, _>>()?;
    /// assert_eq!(sorted, [(0, 9), (1, 1), (1, 2), (3, 4), (5, 6)]);
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn radix(mut self, radix: fn(&T) -> Option<u128>) -> Self {
        self.radix = Some(radix);
        self
    }

    /// Adds a record; writes a sorted run when `max_in_memory` records are held.
    ///
    /// # Errors
    ///
    /// [`RecordError::Io`] when a run cannot be written.
    ///
    /// # Example
    ///
    /// ```
    /// let dir = std::env::temp_dir().join("ndd-doc-scale-runs-108");
    /// # let _ = std::fs::remove_dir_all(&dir); // a previous run's leftovers
    /// std::fs::create_dir_all(&dir)?;
    /// let mut sort = near_dup::scale::ExternalSort::new(&dir, "x", |e: &near_dup::scale::Edge| e.a, 8, 0)?;
    /// sort.push(near_dup::scale::Edge { a: 2, b: 0 })?;
    /// assert_eq!(sort.len(), 1);
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn push(&mut self, record: T) -> Result<(), RecordError> {
        self.buffer.push(record);
        self.pushed += 1;
        if self.buffer.len() >= self.max_in_memory {
            self.spill()?;
        }
        Ok(())
    }

    /// Records pushed so far.
    ///
    /// # Example
    ///
    /// ```
    /// let dir = std::env::temp_dir().join("ndd-doc-scale-runs-128");
    /// # let _ = std::fs::remove_dir_all(&dir); // a previous run's leftovers
    /// std::fs::create_dir_all(&dir)?;
    /// let mut sort = near_dup::scale::ExternalSort::new(&dir, "x", |e: &near_dup::scale::Edge| e.a, 1, 0)?;
    /// for a in 0..3 {
    ///     sort.push(near_dup::scale::Edge { a, b: a })?;
    /// }
    /// assert_eq!(sort.len(), 3); // spilled or not
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
    /// let dir = std::env::temp_dir().join("ndd-doc-scale-runs-146");
    /// # let _ = std::fs::remove_dir_all(&dir); // a previous run's leftovers
    /// std::fs::create_dir_all(&dir)?;
    /// let sort = near_dup::scale::ExternalSort::new(&dir, "x", |e: &near_dup::scale::Edge| e.a, 8, 0)?;
    /// assert!(sort.is_empty());
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.pushed == 0
    }

    fn spill(&mut self) -> Result<(), RecordError> {
        if self.buffer.is_empty() {
            return Ok(());
        }
        let path = self.run_path();
        self.runs.push(path.clone());
        let spare = match self.spawn {
            // The run before this one finished: its buffer fills next.
            Some(_) => self.wait()?,
            None => Vec::new(),
        };
        let mut spill = Spill {
            buffer: std::mem::replace(&mut self.buffer, spare),
            path,
            key: self.key,
            radix: self.radix,
            fingerprint: self.fingerprint,
        };
        match self.spawn {
            Some(spawn) => self.writing = Some(spawn(spill)),
            None => {
                spill.write()?;
                self.buffer = spill.buffer;
            }
        }
        Ok(())
    }

    /// Waits for the run being written on its own thread, if any, and gives back its
    /// (empty) buffer. A panic there goes on here.
    fn wait(&mut self) -> Result<Vec<T>, RecordError> {
        join_spill(self.writing.take())
    }

    fn run_path(&mut self) -> PathBuf {
        let p = self
            .dir
            .join(format!("{}-{}.bin", self.prefix, self.next_run));
        self.next_run += 1;
        p
    }

    /// Writes what is held as the last run and merges runs in passes until at most
    /// [`MAX_FAN_IN`] remain.
    ///
    /// # Errors
    ///
    /// [`RecordError`] when a run cannot be written or read back.
    ///
    /// # Example
    ///
    /// ```
    /// let dir = std::env::temp_dir().join("ndd-doc-scale-runs-191");
    /// # let _ = std::fs::remove_dir_all(&dir); // a previous run's leftovers
    /// std::fs::create_dir_all(&dir)?;
    /// let sort = near_dup::scale::ExternalSort::new(&dir, "x", |e: &near_dup::scale::Edge| e.a, 8, 0)?;
    /// let runs = sort.finish()?; // nothing pushed: no run
    /// assert!(runs.paths().is_empty());
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn finish(mut self) -> Result<SortedRuns<T, K>, RecordError> {
        self.spill()?;
        self.wait()?;
        self.buffer = Vec::new();
        let runs = std::mem::take(&mut self.runs);
        let (key, fingerprint) = (self.key, self.fingerprint);
        fan_in(runs, key, fingerprint, || self.run_path())
    }
}

/// Waits for a spill on its own thread, if any, and gives back its buffer (empty
/// when there was none). A panic there goes on here.
pub(crate) fn join_spill<B: Default>(
    writing: Option<JoinHandle<Result<B, RecordError>>>,
) -> Result<B, RecordError> {
    match writing {
        Some(writing) => writing
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
        None => Ok(B::default()),
    }
}

/// The runs at `runs` (each sorted by `key`) merged in passes, [`MAX_FAN_IN`] at a
/// time into runs at `next_path()`, until at most [`MAX_FAN_IN`] remain.
pub(crate) fn fan_in<T: Record, K: Ord>(
    mut runs: Vec<PathBuf>,
    key: fn(&T) -> K,
    fingerprint: u64,
    mut next_path: impl FnMut() -> PathBuf,
) -> Result<SortedRuns<T, K>, RecordError> {
    while runs.len() > MAX_FAN_IN {
        let older = std::mem::take(&mut runs);
        for group in older.chunks(MAX_FAN_IN) {
            let path = next_path();
            let mut w = RecordWriter::create(&path, fingerprint)?;
            for r in merge_paths(group, key, fingerprint, true)? {
                w.write(&r?)?;
            }
            w.finish()?;
            for p in group {
                std::fs::remove_file(p)?;
            }
            runs.push(path);
        }
    }
    Ok(SortedRuns {
        paths: runs,
        key,
        fingerprint,
    })
}

/// Sorts a run by `key`: on rayon's pool under the `rayon` feature (in place, as the
/// sequential sort), so that a spill does not hold up the thread that pushes. Records
/// of equal keys come in an unspecified order either way; for a key that is the whole
/// record (every sort of ndd's stages) the run is the same.
///
/// With a `radix` key that every record has, an in-place radix sort (on rayon's pool
/// for its large buckets), a byte at a time.
fn sort_run<T: Record, K: Ord>(
    run: &mut [T],
    key: fn(&T) -> K,
    radix: Option<fn(&T) -> Option<u128>>,
) {
    if radix.is_some_and(|radix| crate::radix::sort_by_u128(run, &radix)) {
        debug_assert!(run.is_sorted_by_key(key), "radix and key orders differ");
        return;
    }
    #[cfg(feature = "rayon")]
    {
        use rayon::slice::ParallelSliceMut;
        run.par_sort_unstable_by_key(key);
    }
    #[cfg(not(feature = "rayon"))]
    run.sort_unstable_by_key(key);
}

impl<T: Record, K: Ord> Drop for ExternalSort<T, K> {
    /// Waits for a run still being written (a sort dropped unfinished, after an
    /// error), so that no thread writes in its directory afterwards.
    fn drop(&mut self) {
        if let Some(writing) = self.writing.take() {
            let _ = writing.join();
        }
    }
}

impl<T: Record, K: Ord> std::fmt::Debug for ExternalSort<T, K> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ExternalSort")
            .field("dir", &self.dir)
            .field("prefix", &self.prefix)
            .field("held", &self.buffer.len())
            .field("max_in_memory", &self.max_in_memory)
            .field("runs", &self.runs.len())
            .finish_non_exhaustive()
    }
}

/// The sorted run files an [`ExternalSort`] wrote, at most [`MAX_FAN_IN`] of them.
///
/// # Example
///
/// ```
/// use near_dup::scale::{Edge, ExternalSort};
/// let dir = std::env::temp_dir().join("ndd-doc-scale-runs-241");
/// # let _ = std::fs::remove_dir_all(&dir); // a previous run's leftovers
/// std::fs::create_dir_all(&dir)?;
/// let mut sort = ExternalSort::new(&dir, "e", |e: &Edge| e.b, 1, 0)?;
/// sort.push(Edge { a: 0, b: 9 })?;
/// sort.push(Edge { a: 1, b: 3 })?;
/// let runs = sort.finish()?;
/// assert_eq!(runs.paths().len(), 2);
/// let merged: Vec<u64> = runs.merge()?.map(|e| e.map(|e| e.b)).collect::<Result<_, _>>()?;
/// assert_eq!(merged, [3, 9]);
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct SortedRuns<T: Record, K: Ord> {
    paths: Vec<PathBuf>,
    key: fn(&T) -> K,
    fingerprint: u64,
}

impl<T: Record, K: Ord> SortedRuns<T, K> {
    /// Runs already on disk (each sorted by `key`), for example those a finished stage
    /// wrote before the process was stopped.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::scale::{Edge, SortedRuns};
    /// let runs = SortedRuns::from_paths(Vec::new(), |e: &Edge| e.a, 0);
    /// assert_eq!(runs.merge()?.count(), 0);
    /// # Ok::<(), near_dup::scale::RecordError>(())
    /// ```
    #[must_use]
    pub fn from_paths(paths: Vec<PathBuf>, key: fn(&T) -> K, fingerprint: u64) -> Self {
        SortedRuns {
            paths,
            key,
            fingerprint,
        }
    }

    /// The run files.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::scale::{Edge, ExternalSort};
    /// let dir = std::env::temp_dir().join("ndd-doc-scale-runs-284");
    /// # let _ = std::fs::remove_dir_all(&dir); // a previous run's leftovers
    /// std::fs::create_dir_all(&dir)?;
    /// let mut sort = ExternalSort::new(&dir, "e", |e: &Edge| e.b, 1, 0)?;
    /// sort.push(Edge { a: 0, b: 9 })?;
    /// sort.push(Edge { a: 1, b: 3 })?;
    /// let runs = sort.finish()?;
    /// assert_eq!(runs.paths().len(), 2);
    /// let merged: Vec<u64> = runs.merge()?.map(|e| e.map(|e| e.b)).collect::<Result<_, _>>()?;
    /// assert_eq!(merged, [3, 9]);
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn paths(&self) -> &[PathBuf] {
        &self.paths
    }

    /// Every record of every run, in `key` order (records of equal keys in run order).
    ///
    /// # Errors
    ///
    /// [`RecordError`] when a run is missing, incomplete, corrupt or of another
    /// fingerprint; a checksum mismatch found while streaming comes as an `Err` item.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::scale::{Edge, ExternalSort};
    /// let dir = std::env::temp_dir().join("ndd-doc-scale-runs-310");
    /// # let _ = std::fs::remove_dir_all(&dir); // a previous run's leftovers
    /// std::fs::create_dir_all(&dir)?;
    /// let mut sort = ExternalSort::new(&dir, "e", |e: &Edge| e.b, 1, 0)?;
    /// sort.push(Edge { a: 0, b: 9 })?;
    /// sort.push(Edge { a: 1, b: 3 })?;
    /// let runs = sort.finish()?;
    /// assert_eq!(runs.paths().len(), 2);
    /// let merged: Vec<u64> = runs.merge()?.map(|e| e.map(|e| e.b)).collect::<Result<_, _>>()?;
    /// assert_eq!(merged, [3, 9]);
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn merge(&self) -> Result<Merge<T, K>, RecordError> {
        merge_paths(&self.paths, self.key, self.fingerprint, false)
    }

    /// As [`merge`](Self::merge), for a consumer that reads every record and trusts
    /// nothing it made of them before the last: each run is read once, its checksum
    /// checked at its end (a mismatch comes as an `Err` item), instead of once more
    /// before its first record.
    ///
    /// # Errors
    ///
    /// As [`merge`](Self::merge), but a checksum mismatch only ever comes as an item.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::scale::{Edge, ExternalSort};
    /// let dir = std::env::temp_dir().join("ndd-doc-scale-runs-to-end");
    /// # let _ = std::fs::remove_dir_all(&dir); // a previous run's leftovers
    /// std::fs::create_dir_all(&dir)?;
    /// let mut sort = ExternalSort::new(&dir, "e", |e: &Edge| e.b, 1, 0)?;
    /// sort.push(Edge { a: 0, b: 9 })?;
    /// sort.push(Edge { a: 1, b: 3 })?;
    /// let runs = sort.finish()?;
    /// let merged: Vec<u64> =
    ///     runs.merge_to_end()?.map(|e| e.map(|e| e.b)).collect::<Result<_, _>>()?;
    /// assert_eq!(merged, [3, 9]);
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn merge_to_end(&self) -> Result<Merge<T, K>, RecordError> {
        merge_paths(&self.paths, self.key, self.fingerprint, true)
    }

    /// The records of every run whose keys lie in `range`, in `key` order (records of
    /// equal keys in run order): [`merge`](Self::merge) of only that section of each
    /// run. Each run being sorted by `key`, its section is one range of its records,
    /// found by a binary search ([`RecordReader::partition_point`]) and read alone
    /// ([`RecordReader::restrict`]), so that merges of disjoint key ranges read the
    /// runs in parallel, each byte once.
    ///
    /// The runs' headers, trailers and fingerprints are checked, **not their
    /// checksums**, which cover whole files: a caller that trusts the records checks
    /// them once with [`check`](Self::check) (on another thread, say).
    ///
    /// # Errors
    ///
    /// [`RecordError`] when a run is missing, incomplete, corrupt or of another
    /// fingerprint.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::scale::{Edge, ExternalSort};
    /// let dir = std::env::temp_dir().join("ndd-doc-scale-runs-merge-range");
    /// # let _ = std::fs::remove_dir_all(&dir); // a previous run's leftovers
    /// std::fs::create_dir_all(&dir)?;
    /// let mut sort = ExternalSort::new(&dir, "e", |e: &Edge| e.a, 3, 0)?;
    /// for a in [7, 1, 4, 9, 3, 4, 0, 8] {
    ///     sort.push(Edge { a, b: 0 })?;
    /// }
    /// let runs = sort.finish()?;
    /// runs.check()?; // every run's checksum, once
    /// let part = |r: std::ops::Range<u64>| -> Result<Vec<u64>, near_dup::scale::RecordError> {
    ///     runs.merge_range(r)?.map(|e| e.map(|e| e.a)).collect()
    /// };
    /// assert_eq!(part(0..4)?, [0, 1, 3]);
    /// assert_eq!(part(4..8)?, [4, 4, 7]);
    /// assert_eq!(runs.merge_range(8..)?.count(), 2);
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn merge_range(
        &self,
        range: impl std::ops::RangeBounds<K>,
    ) -> Result<Merge<T, K>, RecordError> {
        use std::ops::Bound;
        let key = self.key;
        let mut readers = Vec::with_capacity(self.paths.len());
        for p in &self.paths {
            let mut reader =
                RecordReader::open_unchecked(p)?.expect_fingerprint(self.fingerprint)?;
            let start = match range.start_bound() {
                Bound::Unbounded => 0,
                Bound::Included(s) => reader.partition_point(|r| key(r) < *s)?,
                Bound::Excluded(s) => reader.partition_point(|r| key(r) <= *s)?,
            };
            let end = match range.end_bound() {
                Bound::Unbounded => reader.len(),
                Bound::Included(e) => reader.partition_point(|r| key(r) <= *e)?,
                Bound::Excluded(e) => reader.partition_point(|r| key(r) < *e)?,
            };
            // An empty range (or a run not sorted, which `check` refuses) reads nothing.
            reader.restrict(start..end.max(start))?;
            readers.push(reader);
        }
        Merge::of(readers, key)
    }

    /// Checks every run whole, in one sequential reading of each: its header,
    /// trailer, fingerprint and the checksum of all its bytes (what
    /// [`merge_range`](Self::merge_range) leaves out).
    ///
    /// # Errors
    ///
    /// [`RecordError`] for the first run that is missing, incomplete, corrupt (a
    /// [`RecordError::ChecksumMismatch`] when a byte changed) or of another
    /// fingerprint.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::scale::{Edge, ExternalSort, RecordError};
    /// let dir = std::env::temp_dir().join("ndd-doc-scale-runs-check");
    /// # let _ = std::fs::remove_dir_all(&dir); // a previous run's leftovers
    /// std::fs::create_dir_all(&dir)?;
    /// let mut sort = ExternalSort::new(&dir, "e", |e: &Edge| e.a, 8, 0)?;
    /// sort.push(Edge { a: 1, b: 2 })?;
    /// let runs = sort.finish()?;
    /// runs.check()?;
    /// let path = &runs.paths()[0];
    /// let mut bytes = std::fs::read(path)?;
    /// bytes[32] ^= 1; // the first record's first byte
    /// std::fs::write(path, bytes)?;
    /// assert!(matches!(runs.check(), Err(RecordError::ChecksumMismatch { .. })));
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn check(&self) -> Result<(), RecordError> {
        for p in &self.paths {
            RecordReader::<T, _>::open(p)?.expect_fingerprint(self.fingerprint)?;
        }
        Ok(())
    }

    /// Deletes the run files.
    ///
    /// # Errors
    ///
    /// [`RecordError::Io`] when a file cannot be removed.
    ///
    /// # Example
    ///
    /// ```
    /// let dir = std::env::temp_dir().join("ndd-doc-scale-runs-333");
    /// # let _ = std::fs::remove_dir_all(&dir); // a previous run's leftovers
    /// std::fs::create_dir_all(&dir)?;
    /// let mut sort = near_dup::scale::ExternalSort::new(&dir, "x", |e: &near_dup::scale::Edge| e.a, 8, 0)?;
    /// sort.push(near_dup::scale::Edge { a: 1, b: 2 })?;
    /// sort.finish()?.remove()?;
    /// assert_eq!(std::fs::read_dir(&dir)?.count(), 0);
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn remove(self) -> Result<(), RecordError> {
        for p in &self.paths {
            std::fs::remove_file(p)?;
        }
        Ok(())
    }
}

impl<T: Record, K: Ord> std::fmt::Debug for SortedRuns<T, K> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SortedRuns")
            .field("paths", &self.paths)
            .finish_non_exhaustive()
    }
}

fn merge_paths<T: Record, K: Ord>(
    paths: &[PathBuf],
    key: fn(&T) -> K,
    fingerprint: u64,
    to_end: bool,
) -> Result<Merge<T, K>, RecordError> {
    let mut readers = Vec::with_capacity(paths.len());
    for p in paths {
        let reader = match to_end {
            // Every record is read: the checksum is checked at each run's end.
            true => RecordReader::open_streaming(p)?,
            false => RecordReader::open(p)?,
        };
        readers.push(reader.expect_fingerprint(fingerprint)?);
    }
    Merge::of(readers, key)
}

/// One head of a run in the merge: ordered by key, then by run (stable).
struct Head<T, K> {
    key: K,
    run: usize,
    record: T,
}

impl<T, K: Ord> PartialEq for Head<T, K> {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key && self.run == other.run
    }
}
impl<T, K: Ord> Eq for Head<T, K> {}
impl<T, K: Ord> PartialOrd for Head<T, K> {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl<T, K: Ord> Ord for Head<T, K> {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (&self.key, self.run).cmp(&(&other.key, other.run))
    }
}

/// The k-way merge of sorted runs: an iterator of records in key order.
///
/// # Example
///
/// ```
/// use near_dup::scale::{Edge, ExternalSort};
/// let dir = std::env::temp_dir().join("ndd-doc-scale-runs-407");
/// # let _ = std::fs::remove_dir_all(&dir); // a previous run's leftovers
/// std::fs::create_dir_all(&dir)?;
/// let mut sort = ExternalSort::new(&dir, "e", |e: &Edge| e.b, 1, 0)?;
/// sort.push(Edge { a: 0, b: 9 })?;
/// sort.push(Edge { a: 1, b: 3 })?;
/// let runs = sort.finish()?;
/// assert_eq!(runs.paths().len(), 2);
/// let merged: Vec<u64> = runs.merge()?.map(|e| e.map(|e| e.b)).collect::<Result<_, _>>()?;
/// assert_eq!(merged, [3, 9]);
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Merge<T: Record, K: Ord> {
    readers: Vec<RecordReader<T, BufReader<File>>>,
    heap: BinaryHeap<Reverse<Head<T, K>>>,
    key: fn(&T) -> K,
    failed: bool,
}

impl<T: Record, K: Ord> std::fmt::Debug for Merge<T, K> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Merge")
            .field("runs", &self.readers.len())
            .field("heads", &self.heap.len())
            .finish_non_exhaustive()
    }
}

impl<T: Record, K: Ord> Merge<T, K> {
    /// The merge of `readers`, each sorted by `key`.
    fn of(
        readers: Vec<RecordReader<T, BufReader<File>>>,
        key: fn(&T) -> K,
    ) -> Result<Self, RecordError> {
        let mut merge = Merge {
            readers,
            heap: BinaryHeap::new(),
            key,
            failed: false,
        };
        for i in 0..merge.readers.len() {
            merge.refill(i)?;
        }
        Ok(merge)
    }

    fn refill(&mut self, run: usize) -> Result<(), RecordError> {
        if let Some(next) = self.readers.get_mut(run).and_then(Iterator::next) {
            let record = next?;
            self.heap.push(Reverse(Head {
                key: (self.key)(&record),
                run,
                record,
            }));
        }
        Ok(())
    }
}

impl<T: Record, K: Ord> Iterator for Merge<T, K> {
    type Item = Result<T, RecordError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        // The smallest head is replaced in place by its run's next record (one sift
        // down), or popped when its run is done.
        let mut top = self.heap.peek_mut()?;
        let run = top.0.run;
        match self.readers.get_mut(run).and_then(Iterator::next) {
            Some(Ok(record)) => {
                let next = Head {
                    key: (self.key)(&record),
                    run,
                    record,
                };
                Some(Ok(std::mem::replace(&mut top.0, next).record))
            }
            Some(Err(e)) => {
                drop(top);
                self.failed = true;
                Some(Err(e))
            }
            None => Some(Ok(PeekMut::pop(top).0.record)),
        }
    }
}
