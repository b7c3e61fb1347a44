//! [`BloomDedup`]: flag-only deduplication of a stream ("seen something similar
//! before?") over `ndd-lsh`'s `LshBloom`, saved and loaded with the settings that
//! sketch its documents.

use std::path::Path;

use ndd_core::DocSketcher;
use ndd_core::codec::{ByteReader, ByteWriter};
use ndd_lsh::LshBloom;

use crate::sketching::{Head, Sketching, corrupt, read_nfkc};
use crate::{Banding, Dedup, Error, Plan};

mod verify_store;
use verify_store::VerifyStore;

const MAGIC: [u8; 4] = *b"NDDB";
/// Version 1: settings and filters. Version 2 (written only by verifying filters):
/// then the verification store.
const VERSION: u16 = 2;

/// The documents a [`BloomDedup`] is sized for when no capacity is given: one
/// million (about 22 MB of filters at the default rate and 128 values; the rate grows
/// past it, and the summary of `ndd dedup --bloom` reports it).
///
/// # Example
///
/// ```
/// assert_eq!(near_dup::pipeline::DEFAULT_BLOOM_CAPACITY, 1_000_000);
/// ```
pub const DEFAULT_BLOOM_CAPACITY: usize = 1_000_000;

/// The overall false-positive rate a [`BloomDedup`] is sized for by default at its
/// capacity: 0.001, the probability that a document with no earlier near-duplicate in
/// any band is flagged once the filter holds its capacity.
///
/// # Example
///
/// ```
/// assert_eq!(near_dup::pipeline::DEFAULT_BLOOM_FALSE_POSITIVE_RATE, 0.001);
/// ```
pub const DEFAULT_BLOOM_FALSE_POSITIVE_RATE: f64 = 0.001;

/// Flag-only deduplication of a stream: each document is checked against a Bloom
/// filter per LSH band of the documents before it (LSHBloom), flagged when some band
/// was (probably) seen, then added.
///
/// A document is flagged whenever an `LshIndex` with the same bands would have given
/// it a candidate (no false negatives against banding), and otherwise with the
/// filters' false-positive rate ([`false_positive_rate`](Self::false_positive_rate)).
/// Unlike [`Dedup`] and [`DedupIndex`](crate::DedupIndex) there is no pair: the filter
/// cannot say which earlier document was similar, so it flags every banding
/// candidate, pairs below the threshold included (on the bundled corpus 339 flagged
/// where the verified run drops 239; [`expected_below_threshold`](Self::expected_below_threshold)
/// gives the S-curve's share). It costs a few tens of bytes per document of
/// capacity, whatever the documents' lengths, which is what makes it fit streams too
/// large to index. The [`verifying`](Self::verifying) mode keeps a compact signature
/// per document to check each flag by the estimate (239 flagged there, 238 of them
/// dropped by the verified run), at a few hundred bytes per document.
///
/// The MinHash parameters, shingles, NFKC setting and threshold (which chooses the
/// bands and rows, as in [`Dedup`]) come from a `Dedup` and are saved with the filters,
/// so a loaded filter sketches later streams the same way.
///
/// # Example
///
/// ```
/// use near_dup::pipeline::{BloomDedup, Dedup};
/// let mut stream = BloomDedup::new(&Dedup::new(), 10_000, 0.001)?;
/// let flags = stream.check_then_insert_batch(&[
///     "the committee approved the budget for the new library building on monday",
///     "a different story about the weather in the mountains this week",
///     "The committee approved the budget for the new library building on Monday!",
/// ])?;
/// assert_eq!(flags, vec![false, false, true]);
/// let again = BloomDedup::from_bytes(&stream.to_bytes())?;
/// assert_eq!(again.len(), 3);
/// # Ok::<(), near_dup::pipeline::Error>(())
/// ```
pub struct BloomDedup {
    sketching: Sketching,
    bloom: LshBloom,
    /// The compact signatures that verify a flag ([`verifying`](Self::verifying)).
    verify: Option<VerifyStore>,
}

impl std::fmt::Debug for BloomDedup {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BloomDedup")
            .field("sketching", &self.sketching)
            .field("documents", &self.bloom.len())
            .field("verifying", &self.verify.is_some())
            .finish_non_exhaustive()
    }
}

impl BloomDedup {
    /// The first four bytes of the byte form ([`to_bytes`](Self::to_bytes)): a reader
    /// can refuse a file of another kind before reading the rest.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{BloomDedup, Dedup};
    /// let bytes = BloomDedup::new(&Dedup::new(), 1_000, 0.01)?.to_bytes();
    /// assert!(bytes.starts_with(&BloomDedup::MAGIC));
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    pub const MAGIC: [u8; 4] = MAGIC;

    /// Empty filters for `dedup`'s MinHash settings and threshold, sized for
    /// `capacity` documents at an overall false-positive rate `overall_rate` (see
    /// [`DEFAULT_BLOOM_CAPACITY`], [`DEFAULT_BLOOM_FALSE_POSITIVE_RATE`]).
    ///
    /// # Errors
    ///
    /// [`Error::Core`] when `dedup` uses another method than MinHash (or learned
    /// weights), another verifier than the method's score, another representative
    /// than first-seen or a grouping other than components (a filter keeps none of
    /// what they need), or for a capacity of 0, a rate outside `(0, 1)` or filters
    /// too large.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{BloomDedup, Dedup, Method};
    /// let f = BloomDedup::new(&Dedup::new(), 1000, 0.01)?;
    /// assert!(f.is_empty());
    /// assert!(BloomDedup::new(&Dedup::new().method(Method::ExactJaccard), 1000, 0.01).is_err());
    /// assert!(BloomDedup::new(&Dedup::new(), 0, 0.01).is_err());
    /// assert!(BloomDedup::new(&Dedup::new(), 1000, 1.0).is_err());
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    pub fn new(dedup: &Dedup, capacity: usize, overall_rate: f64) -> Result<Self, Error> {
        Self::from_plan(dedup.plan()?, capacity, overall_rate)
    }

    /// [`new`](Self::new) from a plan already made ([`Dedup::plan`]): a program that
    /// checked its settings before reading its input builds the filters from the plan
    /// it holds, and the MinHash banding is not searched again.
    ///
    /// # Errors
    ///
    /// As [`new`](Self::new), parameters aside (the plan checked them).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{BloomDedup, Dedup};
    /// let plan = Dedup::new().threshold(0.8).plan()?; // every setting checked here
    /// assert!(BloomDedup::from_plan(plan, 1000, 0.01)?.is_empty());
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    pub fn from_plan(plan: Plan, capacity: usize, overall_rate: f64) -> Result<Self, Error> {
        let (sketching, plan) = Sketching::for_plan(plan, "a Bloom filter")?;
        let params = plan.minhash_banding()?;
        let bloom = LshBloom::with_overall_rate(params, capacity, overall_rate)?;
        Ok(BloomDedup {
            sketching,
            bloom,
            verify: None,
        })
    }

    /// The verifying mode: besides the filters, every document added keeps a compact
    /// signature (one byte per MinHash value, b-bit MinHash with `b = 8`) and, per
    /// band, its band key cut to 32 bits, so that a document the filters flag is
    /// compared with the earlier documents it shares a band with (at most 1,024, most
    /// recent first) and flagged only when the b-bit estimate of their Jaccard
    /// similarity reaches the threshold. That removes what banding alone flags below
    /// the threshold (the S-curve's tail, [`expected_below_threshold`](Self::expected_below_threshold))
    /// and the filters' false positives, at `num_perm + 8 · bands` bytes per
    /// document plus a map entry per distinct band key
    /// ([`verify_bytes_per_document`](Self::verify_bytes_per_document); measured in
    /// `docs/performance.md`), which grows with the documents instead of being fixed
    /// by the capacity.
    ///
    /// # Errors
    ///
    /// [`Error::Core`] when documents were already added (their signatures are gone).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{BloomDedup, Dedup};
    /// let mut f = BloomDedup::new(&Dedup::new(), 1000, 0.001)?.verifying()?;
    /// assert!(f.is_verifying());
    /// let flags = f.check_then_insert_batch(&[
    ///     "the committee approved the budget for the new library building on monday",
    ///     "the committee approved the budget for the new library building on monday",
    /// ])?;
    /// assert_eq!(flags, vec![false, true]);
    /// assert!(BloomDedup::from_bytes(&f.to_bytes())?.is_verifying());
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    pub fn verifying(mut self) -> Result<Self, Error> {
        if !self.bloom.is_empty() {
            return Err(ndd_core::Error::invalid_parameter(
                "verifying",
                "the filters already hold documents whose signatures were not kept",
            )
            .into());
        }
        let p = self.bloom.params();
        self.verify = Some(VerifyStore::new(self.sketching.config.num_perm, p.bands()));
        Ok(self)
    }

    /// Whether flags are verified ([`verifying`](Self::verifying)).
    ///
    /// # Example
    ///
    /// ```
    /// assert!(!near_dup::pipeline::BloomDedup::new(&near_dup::pipeline::Dedup::new(), 10, 0.01)?.is_verifying());
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    #[must_use]
    pub fn is_verifying(&self) -> bool {
        self.verify.is_some()
    }

    /// Bytes per document added of the verifying mode's store (0 when not
    /// verifying or empty).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{BloomDedup, Dedup};
    /// let mut f = BloomDedup::new(&Dedup::new(), 100, 0.01)?.verifying()?;
    /// f.check_then_insert("one two three four five six")?;
    /// // 128 values of one byte, and a key and a link per band.
    /// assert!(f.verify_bytes_per_document() >= 128.0);
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    #[must_use]
    pub fn verify_bytes_per_document(&self) -> f64 {
        match &self.verify {
            Some(v) if v.len() > 0 => v.memory_bytes() as f64 / v.len() as f64,
            _ => 0.0,
        }
    }

    /// The share of pairs below the threshold `t` that banding makes candidates,
    /// for pairs spread evenly over `[t/2, t)`: `(2/t) ∫_{t/2}^{t} P(s) ds` of the
    /// S-curve `P(s) = 1 − (1 − s^r)^b`. Without [`verifying`](Self::verifying), a
    /// document whose nearest earlier document lies in that range is flagged with
    /// about this probability: the filters flag every banding candidate, not only
    /// the pairs at or above `t`.
    ///
    /// # Example
    ///
    /// ```
    /// let f = near_dup::pipeline::BloomDedup::new(&near_dup::pipeline::Dedup::new(), 100, 0.01)?;
    /// let rate = f.expected_below_threshold(); // T = 0.8: the mean of P over [0.4, 0.8)
    /// let p = f.filter().params();
    /// assert!(p.probability(0.4) < rate && rate < p.probability(0.8));
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    #[must_use]
    pub fn expected_below_threshold(&self) -> f64 {
        let p = self.bloom.params();
        let t = self.sketching.threshold.get();
        let area = p.false_positive_area(t) - p.false_positive_area(t / 2.0);
        (area / (t / 2.0)).clamp(0.0, 1.0)
    }

    /// Checks one document against every document added before, then adds it;
    /// returns whether it was flagged.
    ///
    /// # Errors
    ///
    /// [`Error::Core`] only if the filters were built for another scheme (not for a
    /// filter made by [`new`](Self::new) or loaded by [`from_bytes`](Self::from_bytes)).
    ///
    /// # Example
    ///
    /// ```
    /// let mut f = near_dup::pipeline::BloomDedup::new(&near_dup::pipeline::Dedup::new(), 100, 0.01)?;
    /// assert!(!f.check_then_insert("one two three four five six")?);
    /// assert!(f.check_then_insert("one two three four five six")?);
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    pub fn check_then_insert(&mut self, text: &str) -> Result<bool, Error> {
        self.check_then_insert_batch(&[text]).map(|f| f[0])
    }

    /// [`check_then_insert`](Self::check_then_insert) for each text in order (each is
    /// checked against the earlier ones of the batch too), sketched in parallel under
    /// `rayon`.
    ///
    /// # Errors
    ///
    /// As [`check_then_insert`](Self::check_then_insert).
    ///
    /// # Example
    ///
    /// ```
    /// let mut f = near_dup::pipeline::BloomDedup::new(&near_dup::pipeline::Dedup::new(), 100, 0.01)?;
    /// assert_eq!(f.check_then_insert_batch(&["a b c d", "e f g h", "a b c d"])?, vec![false, false, true]);
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    pub fn check_then_insert_batch(&mut self, texts: &[&str]) -> Result<Vec<bool>, Error> {
        let sigs = self.sketching.sketch_batch(texts);
        let mut out = Vec::with_capacity(sigs.len());
        let params = self.bloom.params();
        let t = self.sketching.threshold.get();
        for s in &sigs {
            let seen = self.bloom.check_then_insert(s)?;
            out.push(match self.verify.as_mut() {
                // Every document enters the store; a flag stands only when verified.
                Some(store) => store.check_then_insert(params, s.values(), t)? && seen,
                None => seen,
            });
        }
        Ok(out)
    }

    /// Whether a document would be flagged by the filters, without adding it (not
    /// verified, in the verifying mode too).
    ///
    /// # Errors
    ///
    /// As [`check_then_insert`](Self::check_then_insert).
    ///
    /// # Example
    ///
    /// ```
    /// let mut f = near_dup::pipeline::BloomDedup::new(&near_dup::pipeline::Dedup::new(), 100, 0.01)?;
    /// f.check_then_insert("one two three four five six")?;
    /// assert!(f.contains("one two three four five six")?);
    /// assert_eq!(f.len(), 1);
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    pub fn contains(&self, text: &str) -> Result<bool, Error> {
        let sig = self.sketching.hasher.sketch(text);
        Ok(self.bloom.contains(&sig)?)
    }

    /// Documents added so far (over every stream the filters continued).
    ///
    /// # Example
    ///
    /// ```
    /// let f = near_dup::pipeline::BloomDedup::new(&near_dup::pipeline::Dedup::new(), 100, 0.01)?;
    /// assert_eq!(f.len(), 0);
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    #[must_use]
    pub fn len(&self) -> u64 {
        self.bloom.len()
    }

    /// Whether no document was added.
    ///
    /// # Example
    ///
    /// ```
    /// assert!(near_dup::pipeline::BloomDedup::new(&near_dup::pipeline::Dedup::new(), 100, 0.01)?.is_empty());
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.bloom.is_empty()
    }

    /// The filters: bands and rows, capacity, the per-band and overall
    /// false-positive rates now and at capacity, memory.
    ///
    /// # Example
    ///
    /// ```
    /// let f = near_dup::pipeline::BloomDedup::new(&near_dup::pipeline::Dedup::new(), 1000, 0.001)?;
    /// assert_eq!(f.filter().capacity(), 1000);
    /// assert!((f.filter().design_false_positive_rate() - 0.001).abs() < 2e-4);
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    #[must_use]
    pub fn filter(&self) -> &LshBloom {
        &self.bloom
    }

    /// The overall false-positive rate after the documents added so far: the
    /// probability that a document with no earlier near-duplicate in any band is
    /// flagged.
    ///
    /// # Example
    ///
    /// ```
    /// let f = near_dup::pipeline::BloomDedup::new(&near_dup::pipeline::Dedup::new(), 1000, 0.001)?;
    /// assert_eq!(f.false_positive_rate(), 0.0);
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    #[must_use]
    pub fn false_positive_rate(&self) -> f64 {
        self.bloom.false_positive_rate()
    }

    /// The settings the filters sketch documents with, as a [`Dedup`] (MinHash
    /// parameters with the banding fixed to the filters' bands and rows, threshold,
    /// shingles, NFKC).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{BloomDedup, Dedup, Shingles};
    /// let f = BloomDedup::new(&Dedup::new().shingles(Shingles::Words(5)), 100, 0.01)?;
    /// let loaded = BloomDedup::from_bytes(&f.to_bytes())?;
    /// assert_eq!(loaded.settings().shingles_config(), Shingles::Words(5));
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    #[must_use]
    pub fn settings(&self) -> Dedup {
        let p = self.bloom.params();
        self.sketching.settings(Banding::Fixed {
            bands: p.bands(),
            rows: p.rows(),
        })
    }

    /// The versioned, checksummed byte form: the settings, then the filters.
    ///
    /// # Example
    ///
    /// ```
    /// let f = near_dup::pipeline::BloomDedup::new(&near_dup::pipeline::Dedup::new(), 100, 0.01)?;
    /// let bytes = f.to_bytes();
    /// assert_eq!(near_dup::pipeline::BloomDedup::from_bytes(&bytes)?.to_bytes(), bytes);
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    #[must_use]
    pub fn to_bytes(&self) -> Vec<u8> {
        let filter = self.bloom.to_bytes();
        // Filters without a store keep version 1's bytes.
        let version = if self.verify.is_some() { VERSION } else { 1 };
        let mut w = ByteWriter::with_capacity(MAGIC, version, filter.len() + 64);
        self.sketching.write_head(&mut w);
        self.sketching.write_nfkc(&mut w);
        w.bytes(&filter);
        if let Some(store) = &self.verify {
            store.write(&mut w);
        }
        w.finish()
    }

    /// Reads the byte form of [`to_bytes`](Self::to_bytes).
    ///
    /// # Errors
    ///
    /// [`Error::Core`] with `CorruptData` for truncated, corrupt or inconsistent bytes
    /// (filters whose bands do not fit the MinHash values, settings out of range).
    ///
    /// # Example
    ///
    /// ```
    /// let bytes = near_dup::pipeline::BloomDedup::new(&near_dup::pipeline::Dedup::new(), 100, 0.01)?.to_bytes();
    /// assert!(near_dup::pipeline::BloomDedup::from_bytes(&bytes[..bytes.len() - 1]).is_err());
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        let (mut r, version) = ByteReader::new(bytes, MAGIC, VERSION)?;
        let head = Head::read(&mut r)?;
        let nfkc = read_nfkc(&mut r)?;
        let bloom = LshBloom::from_bytes(r.bytes()?)?;
        let p = bloom.params();
        let verify = if version >= 2 {
            let store = VerifyStore::read(&mut r)?;
            if store.len() as u64 != bloom.len() || store.bands() != p.bands() {
                return Err(corrupt(
                    "the verification store and the filters hold different documents",
                ));
            }
            Some(store)
        } else {
            None
        };
        r.finish()?;
        let sketching = head.into_sketching(nfkc, p.bands(), p.rows())?;
        p.check_signature_len(sketching.config.num_perm)
            .map_err(|_| corrupt("the filters' bands need more values than the signatures have"))?;
        if let Some(s) = bloom.scheme() {
            if s != ndd_core::Sketcher::scheme(&sketching.hasher) {
                return Err(corrupt(
                    "the filters were built with other MinHash parameters",
                ));
            }
        }
        if let Some(store) = &verify {
            if store.num_perm() != sketching.config.num_perm {
                return Err(corrupt(
                    "the verification store's signatures do not match the settings",
                ));
            }
        }
        Ok(BloomDedup {
            sketching,
            bloom,
            verify,
        })
    }

    /// Writes the byte form to `path` atomically (a temporary file renamed over it).
    ///
    /// # Errors
    ///
    /// [`Error::Io`] when the file cannot be written or renamed.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{BloomDedup, Dedup};
    /// let path = std::env::temp_dir().join(format!("ndd-bloom-{}.ndd", std::process::id()));
    /// BloomDedup::new(&Dedup::new(), 100, 0.01)?.save(&path)?;
    /// assert!(BloomDedup::load(&path)?.is_empty());
    /// std::fs::remove_file(&path).map_err(|e| near_dup::pipeline::Error::io(&path, e))?;
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    pub fn save(&self, path: &Path) -> Result<(), Error> {
        crate::write_atomically(path, &self.to_bytes())
    }

    /// Reads filters saved by [`save`](Self::save).
    ///
    /// # Errors
    ///
    /// [`Error::Io`] when the file cannot be read; as [`from_bytes`](Self::from_bytes)
    /// otherwise.
    ///
    /// # Example
    ///
    /// ```
    /// assert!(near_dup::pipeline::BloomDedup::load(std::path::Path::new("/nonexistent/ndd/bloom")).is_err());
    /// ```
    pub fn load(path: &Path) -> Result<Self, Error> {
        let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
        Self::from_bytes(&bytes)
    }
}
