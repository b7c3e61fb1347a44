//! [`DedupIndex`]: the state that deduplicates later batches against earlier ones,
//! saved and loaded through a versioned, checksummed byte form.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Instant;

use ndd_core::codec::{ByteReader, ByteWriter};
use ndd_core::{Error as CoreError, FeatureSet, ScoredPair, UnionFind};
use ndd_lsh::{LshIndex, LshParams};
use ndd_minhash::MinHashSignature;

use crate::exact::DocDigest;
use crate::progress::Stage;
use crate::report::{Outcome, Report};
use crate::sketching::{Head, Sketching, corrupt, read_nfkc};
use crate::{Dedup, Document, Error, ExactPass, GroupMethod, Plan, Verifier};

mod records;
mod search;
mod segmented;
mod segments;

pub use segmented::SegmentedIndex;

const MAGIC: [u8; 4] = *b"NDDX";
/// Version 2 added the documents' set sizes (distinct shingles), which containment
/// search needs; version 3 the verifier and, for the exact ones, every sketched
/// document's shingle set; version 4 the settings as a folder's manifest holds them and
/// the compact record of the documents (`records`: no signature when the sets are
/// kept, loading sketches the sets again). Versions 1 and 2 are still read (without
/// sets: such an index verifies by the estimate), and version 3.
const VERSION: u16 = 4;

/// Everything needed to check new documents against a corpus seen before, and to
/// add them to it: the MinHash parameters, the LSH index with every document's
/// signature, the exact-pass digests, the ids and the groups so far.
///
/// When to use it: corpora that arrive in batches (a crawl per day, a comment period
/// that stays open), or a reference corpus that new documents are checked against.
/// Adding batches one after another gives the same pairs and groups as one run over
/// all of them (earlier documents are kept over later ones).
///
/// Supported: the MinHash method with binary weights, grouped by connected
/// components keeping the first-seen document, verified like the one-shot run:
///
/// * by exact Jaccard, MinHash's default verifier (what `Dedup::new()` gives), or by
///   [`Verifier::Containment`]: the index keeps every
///   sketched document's sorted distinct shingle hashes (what the verification stage
///   compares), so batches give the one-shot run's pairs, scores, groups and kept
///   documents exactly;
/// * by the MinHash estimate ([`Verifier::MethodScore`]
///   set explicitly): signatures only, no sets. What it gives up: a pair is kept when
///   its estimate reaches the threshold, and the estimate's noise is ±0.035 (one
///   standard error at 128 values and J = 0.8), so pairs just above the threshold are
///   lost and pairs just below it are gained against the exact run (on the 66,852
///   package descriptions of docs/performance.md, 5,473 of its 46,390 pairs lost and
///   6,417 gained). Batches still equal one run verified by the estimate.
///
/// Two saved forms: one file ([`save`](Self::save), [`to_bytes`](Self::to_bytes)),
/// rewritten whole on every save, and a folder ([`save_dir`](Self::save_dir),
/// [`load_dir`](Self::load_dir)) holding a manifest and one segment file per save, to
/// which a batch is appended without rewriting the earlier batches' data; a crash
/// during an append leaves the folder as it was before. [`load`](Self::load) reads
/// both, whole into memory; a folder can also be read one segment at a time by
/// [`SegmentedIndex`], which keeps only the ids, labels,
/// digests and set sizes in memory and gives the same batches.
///
/// Alignment and a user's measure need texts, which the index does not keep:
/// [`new`](Self::new) refuses them, as other methods, representatives and grouping.
///
/// Cost: per document its id, 20 bytes of digest, 8 bytes of group label, 8 bytes of
/// set size (its number of distinct shingles, counted when it is added, for
/// containment search: [`ContainmentSearch`](crate::ContainmentSearch)) and the index
/// entry with its signature (about `8 × num_perm + 100` bytes); with an exact
/// verifier, 8 bytes per distinct shingle more (exact copies keep none: they are
/// never verified). Measured (word 3-grams, docs/performance.md): 2.3 KB of sets per
/// document of the bundled corpus (Debian copyright files, 5.3 KB of text each), 0.7
/// KB per package description of the bench corpus (616 bytes of text each).
/// Saved (byte-form version 4, folder segments version 2), a document takes its id and
/// about 23 bytes more (group label, digest, set size) and, with an exact verifier,
/// its set but no signature: loading sketches every stored set again (one pass over
/// it), which gives the signature the document had. Verified by the estimate, it
/// takes its signature, `8 × num_perm` bytes. Measured on the bench corpus: 735 bytes
/// per document with sets (682 of them the sets), 1,031 without.
/// Saving and loading are linear in that. Indexes saved before version 3 of the byte
/// form still load and verify by the estimate ([`settings`](Self::settings) says so);
/// those saved before set sizes were kept (version 1) answer top-k queries
/// ([`NeighbourSearch`](crate::NeighbourSearch)) but not containment
/// ([`set_sizes`](Self::set_sizes) is `None`).
///
/// # Example
///
/// ```
/// use near_dup::pipeline::{Dedup, DedupIndex, Document};
/// let monday = vec![Document::new("m1", "the committee approved the budget for the new library building on monday")];
/// let tuesday = vec![
///     Document::new("t1", "The committee approved the budget for the new library building on Monday!"),
///     Document::new("t2", "a different story about the weather"),
/// ];
/// let mut index = DedupIndex::new(&Dedup::new())?;
/// index.add(&monday)?;
/// let bytes = index.to_bytes();
///
/// let mut index = DedupIndex::from_bytes(&bytes)?;
/// let out = index.add(&tuesday)?;         // indices: 0 = m1, 1 = t1, 2 = t2
/// assert_eq!(out.dropped(), vec![1]);      // t1 repeats m1
/// assert_eq!(index.ids(), ["m1", "t1", "t2"]);
/// # Ok::<(), near_dup::pipeline::Error>(())
/// ```
pub struct DedupIndex {
    sketching: Sketching,
    exact: Option<ExactPass>,
    lsh: LshIndex<u32, MinHashSignature>,
    ids: Vec<String>,
    digests: BTreeMap<DocDigest, u32>,
    labels: Vec<u32>,
    /// Distinct shingles per document; `None` for an index saved without them
    /// (version 1), and then for every batch added to it.
    sizes: Option<Vec<u64>>,
    /// How candidates are verified: the estimate, exact Jaccard or containment.
    verifier: Verifier,
    /// Every document's shingle set when `verifier` is exact (then `sizes` is kept
    /// too), `None` with the estimate.
    sets: Option<SetStore>,
    /// The folder this index was loaded from or last saved to, and what it held then:
    /// the next [`save_dir`](Self::save_dir) there writes only what came since.
    saved: Option<segments::Saved>,
}

/// Every document's sorted distinct shingle hashes in one flat array (no allocation
/// per document); an exact copy has an empty set (it is never verified).
#[derive(Debug, Clone, PartialEq)]
struct SetStore {
    values: Vec<u64>,
    /// `starts[i]..starts[i + 1]` is document `i`'s set in `values`.
    starts: Vec<usize>,
}

impl SetStore {
    fn new() -> Self {
        SetStore {
            values: Vec::new(),
            starts: vec![0],
        }
    }

    /// Document `doc`'s set (empty outside the store).
    fn get(&self, doc: usize) -> &[u64] {
        match (self.starts.get(doc), self.starts.get(doc + 1)) {
            (Some(&a), Some(&b)) => &self.values[a..b],
            _ => &[],
        }
    }

    /// Appends the next document's set.
    fn push(&mut self, set: &[u64]) {
        self.values.extend_from_slice(set);
        self.starts.push(self.values.len());
    }

    /// Appends `count` documents whose sets are not held here (each reads as empty):
    /// the resident part of a segmented index, whose sets are read a segment at a time.
    fn push_dropped(&mut self, count: usize) {
        let end = self.values.len();
        self.starts.extend(std::iter::repeat_n(end, count));
    }
}

/// The byte-form code of the verifiers an index runs.
fn verifier_code(v: &Verifier) -> u8 {
    match v {
        Verifier::ExactJaccard => 1,
        Verifier::Containment => 2,
        _ => 0,
    }
}

impl std::fmt::Debug for DedupIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DedupIndex")
            .field("sketching", &self.sketching)
            .field("verifier", &self.verifier)
            .field("documents", &self.ids.len())
            .finish_non_exhaustive()
    }
}

impl DedupIndex {
    /// The first four bytes of the single-file byte form ([`to_bytes`](Self::to_bytes)):
    /// a reader can refuse a file of another kind before reading the rest.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{Dedup, DedupIndex};
    /// let bytes = DedupIndex::new(&Dedup::new())?.to_bytes();
    /// assert!(bytes.starts_with(&DedupIndex::MAGIC));
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    pub const MAGIC: [u8; 4] = MAGIC;

    /// An empty index for `dedup`'s settings.
    ///
    /// # Errors
    ///
    /// The index verifies as `dedup` does: by exact Jaccard at the defaults (it then
    /// keeps shingle sets), by containment, or by the estimate when
    /// [`Verifier::MethodScore`] is set (signatures only; see the type's docs for
    /// what that gives up).
    ///
    /// # Errors
    ///
    /// [`Error::Core`] when `dedup` uses another method than MinHash, learned weights,
    /// a verifier that needs texts (alignment, a user's function), another
    /// representative than first-seen, DURIAN grouping, or invalid parameters.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{Dedup, DedupIndex, Method, Verifier};
    /// let exact = DedupIndex::new(&Dedup::new())?;
    /// assert_eq!(exact.settings().verifier_config().name(), "jaccard");
    /// let estimate = DedupIndex::new(&Dedup::new().verifier(Verifier::MethodScore))?;
    /// assert_eq!(estimate.settings().verifier_config().name(), "method");
    /// assert!(DedupIndex::new(&Dedup::new().method(Method::ExactJaccard)).is_err());
    /// assert!(DedupIndex::new(&Dedup::new().verifier("align".parse()?)).is_err());
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    pub fn new(dedup: &Dedup) -> Result<Self, Error> {
        Self::from_plan(dedup.plan()?)
    }

    /// [`new`](Self::new) from a plan already made ([`Dedup::plan`]): a program that
    /// checked its settings before reading its input builds the index from the plan it
    /// holds, and the MinHash banding is not searched again.
    ///
    /// # Errors
    ///
    /// As [`new`](Self::new), parameters aside (the plan checked them).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{Dedup, DedupIndex};
    /// let plan = Dedup::new().threshold(0.8).plan()?; // every setting checked here
    /// let index = DedupIndex::from_plan(plan)?;
    /// assert!(index.is_empty());
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    pub fn from_plan(plan: Plan) -> Result<Self, Error> {
        let (sketching, plan) = Sketching::for_plan_with_sets(plan, "an incremental index")?;
        let verifier = plan.verifier.clone();
        let sets = (verifier_code(&verifier) != 0).then(SetStore::new);
        let params = plan.minhash_banding()?;
        let lsh = LshIndex::builder(params)
            .keep_signatures(true)
            .max_bucket_scan(crate::method::bounded_scan(
                sketching.config.max_bucket_scan,
            ))
            .build();
        Ok(DedupIndex {
            sketching,
            exact: plan.exact,
            lsh,
            ids: Vec::new(),
            digests: BTreeMap::new(),
            labels: Vec::new(),
            sizes: Some(Vec::new()),
            verifier,
            sets,
            saved: None,
        })
    }

    /// Sets [`MinHashConfig::max_bucket_scan`](crate::MinHashConfig::max_bucket_scan)
    /// for the batches added from now on (it is not saved: a loaded index has the
    /// default).
    ///
    /// # Example
    ///
    /// ```
    /// let mut index = near_dup::pipeline::DedupIndex::new(&near_dup::pipeline::Dedup::new())?;
    /// index.set_max_bucket_scan(None); // no bound but the hard cap
    /// assert_eq!(index.max_bucket_scan(), Some(near_dup::pipeline::MAX_BUCKET_SCAN));
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    pub fn set_max_bucket_scan(&mut self, members: Option<usize>) {
        self.sketching.config.max_bucket_scan = members;
        self.lsh
            .set_max_bucket_scan(crate::method::bounded_scan(members));
    }

    /// The bound of [`set_max_bucket_scan`](Self::set_max_bucket_scan).
    ///
    /// # Example
    ///
    /// ```
    /// let index = near_dup::pipeline::DedupIndex::new(&near_dup::pipeline::Dedup::new())?;
    /// assert_eq!(index.max_bucket_scan(), Some(near_dup::pipeline::DEFAULT_MAX_BUCKET_SCAN));
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    #[must_use]
    pub fn max_bucket_scan(&self) -> Option<usize> {
        self.lsh.max_bucket_scan()
    }

    /// Documents indexed so far.
    ///
    /// # Example
    ///
    /// ```
    /// let mut index = near_dup::pipeline::DedupIndex::new(&near_dup::pipeline::Dedup::new())?;
    /// index.add(&[near_dup::pipeline::Document::new("a", "text")])?;
    /// assert_eq!(index.len(), 1);
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    #[must_use]
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// Whether no document has been added.
    ///
    /// # Example
    ///
    /// ```
    /// assert!(near_dup::pipeline::DedupIndex::new(&near_dup::pipeline::Dedup::new())?.is_empty());
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// The ids of the documents indexed, in the order they were added.
    ///
    /// # Example
    ///
    /// ```
    /// let mut index = near_dup::pipeline::DedupIndex::new(&near_dup::pipeline::Dedup::new())?;
    /// index.add(&[near_dup::pipeline::Document::new("x", "text")])?;
    /// assert_eq!(index.ids(), ["x"]);
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    #[must_use]
    pub fn ids(&self) -> &[String] {
        &self.ids
    }

    /// Checks `docs` against everything indexed and against each other, then adds
    /// them.
    ///
    /// The outcome's indices cover every document indexed so far: `0..len()` before
    /// the call are the earlier ones, the rest are `docs` in order. Its pairs are the
    /// pairs this batch found (each involves at least one new document), its groups
    /// every group of the whole collection, so [`Outcome::dropped`] lists every
    /// document to drop so far; the new ones are those at or above the earlier
    /// `len()`.
    ///
    /// # Errors
    ///
    /// [`Error::Core`] when the collection would exceed 2^32 documents; the index is
    /// unchanged then.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{Dedup, DedupIndex, Document};
    /// let mut index = DedupIndex::new(&Dedup::new())?;
    /// index.add(&[Document::new("old", "a notice about the new parking rules downtown")])?;
    /// let out = index.add(&[Document::new("new", "A notice about the new parking rules downtown!")])?;
    /// assert_eq!(out.pairs.len(), 1);
    /// assert_eq!((out.pairs[0].a, out.pairs[0].b), (0, 1));
    /// assert_eq!(out.dropped(), vec![1]);
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    pub fn add(&mut self, docs: &[Document]) -> Result<Outcome, Error> {
        self.add_with_progress(docs, &crate::NoProgress)
    }

    /// [`add`](Self::add), reporting each stage to `progress` (exact pass, sketch,
    /// candidates in chunks of documents, group) for a progress bar.
    ///
    /// # Errors
    ///
    /// As [`add`](Self::add).
    ///
    /// # Example
    ///
    /// ```
    /// use std::sync::atomic::{AtomicU64, Ordering};
    /// use near_dup::pipeline::{Dedup, DedupIndex, Document, Progress, Stage};
    /// /// Documents reported done by the sketch and candidate stages.
    /// #[derive(Default)]
    /// struct Count(AtomicU64, AtomicU64);
    /// impl Progress for Count {
    ///     fn advance(&self, stage: Stage, done: u64) {
    ///         match stage {
    ///             Stage::Sketch => self.0.fetch_add(done, Ordering::Relaxed),
    ///             Stage::Candidates => self.1.fetch_add(done, Ordering::Relaxed),
    ///             _ => 0,
    ///         };
    ///     }
    /// }
    /// let mut index = DedupIndex::new(&Dedup::new())?;
    /// let count = Count::default();
    /// index.add_with_progress(&[Document::new("a", "some text here"), Document::new("b", "other words")], &count)?;
    /// assert_eq!(count.0.load(Ordering::Relaxed), 2);
    /// assert_eq!(count.1.load(Ordering::Relaxed), 2);
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    pub fn add_with_progress(
        &mut self,
        docs: &[Document],
        progress: &dyn crate::Progress,
    ) -> Result<Outcome, Error> {
        self.add_batch(docs, progress, false)
    }

    /// [`add_with_progress`](Self::add_with_progress), the earlier documents'
    /// candidates found in this index, or `by_segment` in the committed segments of
    /// the folder it was opened from, one segment at a time
    /// ([`SegmentedIndex`]).
    pub(super) fn add_batch(
        &mut self,
        docs: &[Document],
        progress: &dyn crate::Progress,
        by_segment: bool,
    ) -> Result<Outcome, Error> {
        let base = self.ids.len();
        let total = base + docs.len();
        if u32::try_from(total).is_err() {
            return Err(CoreError::invalid_input("more than 2^32 documents in one index").into());
        }
        let mut report = Report {
            documents: docs.len(),
            bytes: docs.iter().map(|d| d.text.len() as u64).sum(),
            ..Report::default()
        };
        let texts: Vec<&str> = docs.iter().map(|d| d.text.as_str()).collect();

        // Exact copies of earlier documents or of this batch's.
        progress.start(Stage::Exact, Some(docs.len() as u64));
        let t = Instant::now();
        let mut pairs: Vec<ScoredPair> = Vec::new();
        let mut unique: Vec<usize> = Vec::with_capacity(docs.len());
        let mut new_digests: Vec<(DocDigest, u32)> = Vec::new();
        // Earlier documents count as their own first copy (their copies are not kept).
        let mut copy_of: Vec<u32> = (0..total).map(key).collect();
        match &self.exact {
            Some(pass) => {
                let digests = pass.digests(&texts);
                let mut batch: BTreeMap<DocDigest, u32> = BTreeMap::new();
                for (i, d) in digests.into_iter().enumerate() {
                    let g = base + i;
                    match self.digests.get(&d).or_else(|| batch.get(&d)) {
                        Some(&first) => {
                            pairs.push(ScoredPair::new(first as usize, g, 1.0));
                            copy_of[g] = first;
                            report.exact_copies += 1;
                        }
                        None => {
                            batch.insert(d, key(g));
                            new_digests.push((d, key(g)));
                            unique.push(i);
                        }
                    }
                }
            }
            None => unique.extend(0..docs.len()),
        }
        report.timings.push((Stage::Exact, t.elapsed()));
        progress.advance(Stage::Exact, docs.len() as u64);
        progress.finish(Stage::Exact);

        // This batch's shingle sets when the index verifies by them (its set sizes
        // come with them), or only the sizes for containment search. Copies share
        // their first copy's size.
        let unique_texts: Vec<&str> = unique.iter().map(|&i| texts[i]).collect();
        let t = Instant::now();
        let unique_sets: Option<Vec<FeatureSet>> = match &self.sets {
            Some(_) => Some(crate::sets::shingle_sets(
                self.sketching.features,
                &unique_texts,
                None,
                Stage::Verify,
                &crate::NoProgress,
            )?),
            None => None,
        };
        let mut set_time = t.elapsed();
        let new_sizes = match &self.sizes {
            Some(_) => {
                let unique_sizes = match &unique_sets {
                    Some(sets) => sets.iter().map(|s| s.len() as u64).collect(),
                    None => crate::sets::set_sizes(self.sketching.features, &unique_texts)?,
                };
                let mut sizes = vec![0u64; docs.len()];
                for (&i, &n) in unique.iter().zip(&unique_sizes) {
                    sizes[i] = n;
                }
                Some(sizes)
            }
            None => None,
        };

        // The candidate stream of every engine, over this index: sketch the rest,
        // query, pass on the pairs that pass the plan's filter, insert.
        // The only failure inside it would be a scheme mismatch: ruled out before
        // anything changes.
        if let Some(s) = self.lsh.scheme() {
            CoreError::check_schemes(s, ndd_core::Sketcher::scheme(&self.sketching.hasher))?;
        }
        // The emit of the plan `settings()` describes (components, this verifier),
        // without building it again for every batch.
        let emit = crate::plan::emit_for(&GroupMethod::Components, &self.verifier);
        let filter = self.sketching.filter(emit);
        // This batch's document `i` is `batch[slot[i]]` (exact copies have none).
        let mut slot = vec![usize::MAX; docs.len()];
        for (u, &i) in unique.iter().enumerate() {
            slot[i] = u;
        }
        let batch = Batch {
            base,
            slot: &slot,
            sets: unique_sets.as_deref(),
        };
        if by_segment {
            let verified = self.candidates_by_segment(
                &unique_texts,
                &unique,
                &batch,
                &filter,
                progress,
                &mut report,
            )?;
            set_time += report.verify.time;
            if self.sets.is_some() {
                report.timings.push((Stage::Verify, set_time));
            }
            pairs.extend(verified.into_iter().map(ScoredPair::normalized));
        } else {
            let mut candidates: Vec<ScoredPair> = Vec::new();
            let streamed = crate::candidates::minhash::stream(
                &self.sketching.hasher,
                &unique_texts,
                crate::candidates::minhash::Target {
                    index: &mut self.lsh,
                    key_of: &|i| base + unique[i],
                },
                filter,
                progress,
                &mut candidates,
            )?;
            report.candidates = streamed.candidates;
            report.bucket_scan = Some(streamed.bucket_scan);
            report.timings.push((Stage::Sketch, streamed.sketch_time));
            report
                .timings
                .push((Stage::Candidates, streamed.search_time));

            // Verification: the estimate decided already, or the stage every engine
            // runs, over the stored sets of earlier documents and this batch's.
            let store = self.sets.as_ref();
            let verified = match store {
                Some(store) => {
                    let (verified, verify) =
                        self.verify_with_batch(&|k| store.get(k), &batch, candidates, progress)?;
                    set_time += verify.time;
                    report.timings.push((Stage::Verify, set_time));
                    report.verify = verify;
                    verified
                }
                None => candidates,
            };
            pairs.extend(verified.into_iter().map(ScoredPair::normalized));
        }
        pairs.sort_unstable_by_key(|p| (p.a, p.b));

        // Groups of the whole collection, the earliest document representing each.
        let t = Instant::now();
        let mut uf = UnionFind::new(total);
        for (i, &l) in self.labels.iter().enumerate() {
            uf.union(i, l as usize);
        }
        for p in &pairs {
            uf.union(p.a, p.b);
        }
        let groups = crate::group::groups_of(&mut uf, |members| Ok(members[0]))?;
        report.timings.push((Stage::Group, t.elapsed()));

        // Commit the rest of the batch.
        self.digests.extend(new_digests);
        self.ids.extend(docs.iter().map(|d| d.id.clone()));
        self.labels = uf.labels().into_iter().map(key).collect();
        if let (Some(store), Some(batch)) = (self.sets.as_mut(), &unique_sets) {
            // Exact copies keep no set: they are never verified.
            let mut sets: Vec<&[u64]> = vec![&[]; docs.len()];
            for (&i, set) in unique.iter().zip(batch) {
                sets[i] = set.as_slice();
            }
            for set in sets {
                store.push(set);
            }
        }
        if let (Some(sizes), Some(new)) = (self.sizes.as_mut(), new_sizes) {
            // A copy's first copy comes before it: earlier batches or this one.
            for (i, n) in new.into_iter().enumerate() {
                let first = copy_of[base + i] as usize;
                let n = if first == base + i {
                    n
                } else {
                    sizes.get(first).copied().unwrap_or(0)
                };
                sizes.push(n);
            }
        }
        report.method = format!(
            "MinHash ({} values, seed {}) + LSH ({} bands x {} rows) over {}, incremental",
            self.sketching.config.num_perm,
            self.sketching.config.seed,
            self.lsh.params().bands(),
            self.lsh.params().rows(),
            self.sketching.features.shingles()
        );
        report.pairs = pairs.len();
        report.groups = groups.len();
        report.grouped_documents = groups.iter().map(|g| g.members.len()).sum();
        report.dropped = report.grouped_documents - report.groups;
        report.index_bytes_per_document = Some(self.lsh.memory().bytes_per_document());
        report.signature_bytes_per_document = Some(8.0 * self.sketching.config.num_perm as f64);
        Ok(Outcome::new(total, pairs, groups, report).with_copies(copy_of))
    }

    /// The versioned, checksummed byte form.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{Dedup, DedupIndex};
    /// let index = DedupIndex::new(&Dedup::new())?;
    /// let bytes = index.to_bytes();
    /// assert_eq!(DedupIndex::from_bytes(&bytes)?.to_bytes(), bytes);
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    #[must_use]
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = ByteWriter::new(MAGIC, VERSION);
        w.bytes(&segments::settings_bytes(self));
        self.write_documents(0, &mut w);
        w.finish()
    }

    /// Reads the byte form written by [`to_bytes`](Self::to_bytes).
    ///
    /// # Errors
    ///
    /// [`Error::Core`] with `CorruptData` for truncated, corrupt or inconsistent
    /// bytes (a checksum, a count, a label or a digest that does not fit).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{Dedup, DedupIndex};
    /// let bytes = DedupIndex::new(&Dedup::new())?.to_bytes();
    /// assert!(DedupIndex::from_bytes(&bytes).is_ok());
    /// assert!(DedupIndex::from_bytes(&bytes[..bytes.len() - 1]).is_err());
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        let (mut r, version) = ByteReader::new(bytes, MAGIC, VERSION)?;
        if version < 4 {
            return Self::from_bytes_v3(r, version);
        }
        let mut ix = segments::from_settings(r.bytes()?)?;
        ix.read_documents(&mut r, records::ReadInto::Whole)?;
        r.finish()?;
        records::check_labels(&ix.labels)?;
        Ok(ix)
    }

    /// The rest of the byte form of versions 1 to 3: the LSH index's own byte form
    /// with every signature, fixed-width fields.
    fn from_bytes_v3(mut r: ByteReader<'_>, version: u16) -> Result<Self, Error> {
        let (head, exact, nfkc) = read_settings(&mut r)?;
        let n = usize::try_from(r.u64()?).map_err(|_| corrupt("document count"))?;
        // Every id takes at least its 8-byte length: the count cannot exceed that.
        if n > r.remaining() / 8 {
            return Err(corrupt("document count larger than the bytes"));
        }
        let mut ids = Vec::with_capacity(n);
        for _ in 0..n {
            let id = std::str::from_utf8(r.bytes()?).map_err(|_| corrupt("an id is not UTF-8"))?;
            ids.push(id.to_string());
        }
        let labels = r.u64_vec()?;
        if labels.len() != n {
            return Err(corrupt("label count differs from the document count"));
        }
        let labels: Vec<u32> = labels
            .iter()
            .enumerate()
            .map(|(i, &l)| match u32::try_from(l) {
                Ok(l) if (l as usize) <= i && labels[l as usize] == u64::from(l) => Ok(l),
                _ => Err(corrupt("a group label does not name an earlier document")),
            })
            .collect::<Result<_, _>>()?;
        let m = usize::try_from(r.u64()?).map_err(|_| corrupt("digest count"))?;
        if m > n {
            return Err(corrupt("more digests than documents"));
        }
        let mut digests = BTreeMap::new();
        for _ in 0..m {
            let d: DocDigest = r
                .bytes()?
                .try_into()
                .map_err(|_| corrupt("a digest is not 20 bytes"))?;
            let doc = r.u32()?;
            if doc as usize >= n || digests.insert(d, doc).is_some() {
                return Err(corrupt("a digest names no document or repeats"));
            }
        }
        let mut lsh: LshIndex<u32, MinHashSignature> = LshIndex::from_bytes(r.bytes()?)?;
        let sizes = if version >= 2 {
            match r.u8()? {
                0 => None,
                1 => {
                    // `u64_vec` bounds its length by the bytes that remain.
                    let sizes = r.u64_vec()?;
                    if sizes.len() != n {
                        return Err(corrupt("set-size count differs from the document count"));
                    }
                    Some(sizes)
                }
                _ => return Err(corrupt("unknown set-size flag")),
            }
        } else {
            None
        };
        let (verifier, values) = if version >= 3 {
            match r.u8()? {
                0 => (Verifier::MethodScore, None),
                code @ (1 | 2) => {
                    // `u64_vec` bounds its length by the bytes that remain.
                    let values = r.u64_vec()?;
                    let verifier = if code == 1 {
                        Verifier::ExactJaccard
                    } else {
                        Verifier::Containment
                    };
                    (verifier, Some(values))
                }
                _ => return Err(corrupt("unknown verifier")),
            }
        } else {
            // Saved without sets: verified by the estimate.
            (Verifier::MethodScore, None)
        };
        r.finish()?;
        let sketching = head.into_sketching(nfkc, lsh.params().bands(), lsh.params().rows())?;
        lsh.set_max_bucket_scan(crate::method::bounded_scan(
            sketching.config.max_bucket_scan,
        ));
        if !lsh.keeps_signatures()
            || lsh.len() > n
            || lsh.signatures_iter().any(|(&k, _)| k as usize >= n)
        {
            return Err(corrupt("the index does not match the documents"));
        }
        if let Some(s) = lsh.scheme() {
            if s != ndd_core::Sketcher::scheme(&sketching.hasher) {
                return Err(corrupt("the index was built with other MinHash parameters"));
            }
        }
        let sets = match values {
            Some(values) => Some(split_sets(values, sizes.as_deref(), |i| {
                lsh.signature(&key(i)).is_some()
            })?),
            None => None,
        };
        Ok(DedupIndex {
            sketching,
            exact,
            lsh,
            ids,
            digests,
            labels,
            sizes,
            verifier,
            sets,
            saved: None,
        })
    }

    /// Writes the byte form to `path` atomically: to a temporary file beside it, then
    /// renamed over it, so a crash never leaves a half-written index.
    ///
    /// # Errors
    ///
    /// [`Error::Io`] when the file cannot be written or renamed.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{Dedup, DedupIndex};
    /// let path = std::env::temp_dir().join(format!("ndd-save-{}.ndd", std::process::id()));
    /// DedupIndex::new(&Dedup::new())?.save(&path)?;
    /// assert!(DedupIndex::load(&path)?.is_empty());
    /// std::fs::remove_file(&path).map_err(|e| near_dup::pipeline::Error::io(&path, e))?;
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    pub fn save(&self, path: &Path) -> Result<(), Error> {
        crate::write_atomically(path, &self.to_bytes())
    }

    /// Reads an index saved by [`save`](Self::save), or by
    /// [`save_dir`](Self::save_dir) when `path` is a folder
    /// ([`load_dir`](Self::load_dir)).
    ///
    /// # Errors
    ///
    /// [`Error::Io`] when the file cannot be read; as [`from_bytes`](Self::from_bytes)
    /// or [`load_dir`](Self::load_dir) otherwise.
    ///
    /// # Example
    ///
    /// ```
    /// let missing = std::path::Path::new("/nonexistent/ndd/index");
    /// assert!(near_dup::pipeline::DedupIndex::load(missing).is_err());
    /// ```
    pub fn load(path: &Path) -> Result<Self, Error> {
        if path.is_dir() {
            return Self::load_dir(path);
        }
        let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
        Self::from_bytes(&bytes)
    }

    /// Every document's number of distinct shingles (its set size), in the order of
    /// [`ids`](Self::ids), or `None` for an index saved before set sizes were kept
    /// (byte-form version 1) and every batch added to one since. An exact copy has its
    /// first copy's size.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{Dedup, DedupIndex, Document};
    /// let mut index = DedupIndex::new(&Dedup::new())?; // word 3-grams
    /// index.add(&[Document::new("a", "one two three four"), Document::new("b", "one two")])?;
    /// // Two 3-grams; a text shorter than a shingle is one shingle.
    /// assert_eq!(index.set_sizes(), Some(&[2u64, 1][..]));
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    #[must_use]
    pub fn set_sizes(&self) -> Option<&[u64]> {
        self.sizes.as_deref()
    }

    /// Document `doc`'s sorted distinct shingle hashes, `None` when the index keeps no
    /// sets (saved before byte-form version 3, or verifying by the estimate).
    pub(crate) fn stored_set(&self, doc: usize) -> Option<&[u64]> {
        self.sets.as_ref().map(|s| s.get(doc))
    }

    /// The LSH index with every sketched document's signature (keyed by position in
    /// [`ids`](Self::ids); exact copies are not in it).
    pub(crate) fn lsh(&self) -> &LshIndex<u32, MinHashSignature> {
        &self.lsh
    }

    /// MinHash values per signature.
    pub(crate) fn num_perm(&self) -> usize {
        self.sketching.config.num_perm
    }

    /// The hasher documents are sketched with.
    pub(crate) fn hasher(&self) -> &crate::sketching::Hasher {
        &self.sketching.hasher
    }

    /// The LSH parameters in use.
    ///
    /// # Example
    ///
    /// ```
    /// let index = near_dup::pipeline::DedupIndex::new(&near_dup::pipeline::Dedup::new())?;
    /// assert!(index.lsh_params().probability(0.8) >= 0.99);
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    #[must_use]
    pub fn lsh_params(&self) -> LshParams {
        self.lsh.params()
    }

    /// The settings this index was built with, as a [`Dedup`]: method and MinHash
    /// parameters, threshold, shingles, NFKC, the exact pass and the verifier (always
    /// set: exact Jaccard or containment when the index keeps shingle sets, the
    /// method's score otherwise, as for every index saved before byte-form version
    /// 3). Loading a saved index gives them back, so a program can show them or check
    /// that a batch is read the way the index expects. The banding comes back as the bands and rows it
    /// chose ([`Banding::Fixed`](crate::Banding::Fixed)), whatever policy chose them.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{Banding, Dedup, DedupIndex, Method, Shingles};
    /// let dedup = Dedup::new().threshold(0.7).shingles(Shingles::Words(5));
    /// let index = DedupIndex::from_bytes(&DedupIndex::new(&dedup)?.to_bytes())?;
    /// let settings = index.settings();
    /// assert_eq!(settings.threshold_value(), 0.7);
    /// assert_eq!(settings.shingles_config(), Shingles::Words(5));
    /// let (b, r) = (index.lsh_params().bands(), index.lsh_params().rows());
    /// match settings.method_config() {
    ///     Method::MinHash(c) => assert_eq!(c.banding, Banding::Fixed { bands: b, rows: r }),
    ///     other => panic!("{other:?}"),
    /// }
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    #[must_use]
    pub fn settings(&self) -> Dedup {
        let dedup = self
            .sketching
            .settings(self.sketching.config.banding)
            .verifier(self.verifier.clone());
        match self.exact {
            Some(pass) => dedup.exact_pass_with(pass),
            None => dedup.exact_pass(false),
        }
    }
}

/// This batch's shingle sets as verification reads them: document `base + i` of the
/// collection is `sets[slot[i]]` (an exact copy has none).
pub(super) struct Batch<'a> {
    base: usize,
    slot: &'a [usize],
    sets: Option<&'a [FeatureSet]>,
}

impl Batch<'_> {
    /// The set of document `k` of the collection, `earlier(k)` before the batch.
    fn set_of<'s>(&'s self, k: usize, earlier: &dyn Fn(usize) -> &'s [u64]) -> &'s [u64] {
        match k.checked_sub(self.base) {
            None => earlier(k),
            Some(i) => self
                .slot
                .get(i)
                .and_then(|&u| self.sets.and_then(|b| b.get(u)))
                .map_or(&[][..], FeatureSet::as_slice),
        }
    }
}

impl DedupIndex {
    /// The verification stage every engine runs over `candidates`, pairs of an earlier
    /// document (its set `earlier(k)`) or of this batch with one of this batch.
    pub(super) fn verify_with_batch<'s>(
        &self,
        earlier: &(dyn Fn(usize) -> &'s [u64] + Sync),
        batch: &'s Batch<'s>,
        candidates: Vec<ScoredPair>,
        progress: &dyn crate::Progress,
    ) -> Result<(Vec<ScoredPair>, crate::verify::VerifyReport), Error> {
        let set_of = |k: usize| batch.set_of(k, earlier);
        crate::verify::verify_by_sets(
            &self.verifier,
            self.sketching.threshold,
            &set_of,
            candidates,
            progress,
        )
    }
}

/// A document count as an index key.
fn key(i: usize) -> u32 {
    u32::try_from(i).unwrap_or(u32::MAX)
}

/// The set store of `values` read back: document `i`'s set is the next `sizes[i]`
/// values when `sketched(i)`, empty otherwise; every set strictly increasing and no
/// value left over.
fn split_sets(
    values: Vec<u64>,
    sizes: Option<&[u64]>,
    sketched: impl Fn(usize) -> bool,
) -> Result<SetStore, Error> {
    let Some(sizes) = sizes else {
        return Err(corrupt("shingle sets without set sizes"));
    };
    let mut starts = Vec::with_capacity(sizes.len() + 1);
    starts.push(0);
    let mut at = 0usize;
    for (i, &n) in sizes.iter().enumerate() {
        if sketched(i) {
            let n = usize::try_from(n).map_err(|_| corrupt("set size"))?;
            let end = at
                .checked_add(n)
                .filter(|&e| e <= values.len())
                .ok_or_else(|| corrupt("shingle sets shorter than their sizes"))?;
            if values[at..end].windows(2).any(|w| w[0] >= w[1]) {
                return Err(corrupt("a shingle set is not sorted and distinct"));
            }
            at = end;
        }
        starts.push(at);
    }
    if at != values.len() {
        return Err(corrupt("shingle sets longer than their sizes"));
    }
    Ok(SetStore { values, starts })
}

/// Writes the settings both saved forms begin with (the single file and the folder's
/// manifest): the sketching head, the exact-pass setting, NFKC.
fn write_settings(w: &mut ByteWriter, sketching: &Sketching, exact: Option<ExactPass>) {
    sketching.write_head(w);
    w.u8(match exact {
        None => 0,
        Some(p) if p.folds_case() => 1,
        Some(_) => 2,
    });
    sketching.write_nfkc(w);
}

/// Reads what [`write_settings`] wrote: the head, the exact pass (with NFKC applied)
/// and NFKC.
fn read_settings(r: &mut ByteReader<'_>) -> Result<(Head, Option<ExactPass>, bool), Error> {
    let head = Head::read(r)?;
    let exact = match r.u8()? {
        0 => None,
        1 => Some(ExactPass::new()),
        2 => Some(ExactPass::new().fold_case(false)),
        _ => return Err(corrupt("unknown exact-pass setting")),
    };
    let nfkc = read_nfkc(r)?;
    Ok((head, exact.map(|p| p.nfkc(nfkc)), nfkc))
}
