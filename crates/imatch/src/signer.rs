//! [`IMatcher`]: I-Match signatures with the long-document rule and randomized
//! lexicons; [`IMatchSignature`], the extended `(K + 1)`-coordinate signature; and
//! [`Rejection`], why a document got none.

use std::fmt;

use ahash::AHashMap;
use ndd_core::codec::{ByteReader, ByteWriter};
use ndd_core::{Error, Estimate, ExactSignature, FeatureExtractor, SchemeId, Signature};
use ndd_shingle::WordShingler;
use sha1::{Digest as _, Sha1};

use crate::randomize::{MAX_EXTRA_LEXICONS, membership_masks};
use crate::{Lexicon, Randomization, unigram_extractor};

/// A SHA-1 digest: the value of one I-Match signature coordinate.
///
/// # Example
///
/// ```
/// let d: ndd_imatch::Digest = [0; 20];
/// let s = ndd_imatch::IMatchSignature::from_parts(ndd_core::SchemeId::new("d").finish(), vec![Some(d)]);
/// assert_eq!(s.primary(), Some(&d));
/// ```
pub type Digest = [u8; 20];

/// Why a document got no I-Match signature (a documented outcome, not an error).
///
/// # Example
///
/// ```
/// use ndd_imatch::Rejection;
/// let r = Rejection::TooShort { unique_terms: 3, min: 5 };
/// assert_eq!(r.to_string(), "3 unique terms, fewer than the 5 required");
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub enum Rejection {
    /// Fewer unique terms than [`min_unique_terms`](IMatcherBuilder::min_unique_terms)
    /// after preparation (paper 003 §6.3: messages with fewer than five unique words
    /// are too short).
    TooShort {
        /// `|U|`, the document's unique terms.
        unique_terms: usize,
        /// The minimum required.
        min: usize,
    },
    /// `|S|` (the terms shared with the lexicon, after any extension from the
    /// secondary lexicon) is below [`min_terms`](IMatcherBuilder::min_terms) (§3, step 3).
    TooFewLexiconTerms {
        /// `|S|`.
        found: usize,
        /// The minimum required.
        min: usize,
    },
    /// `|S| / |U|` stays below [`min_coverage`](IMatcherBuilder::min_coverage) even
    /// after adding every secondary-lexicon term the document has (§3, step 5).
    LowCoverage {
        /// `|S|` after the extension.
        found: usize,
        /// `|U|`.
        unique_terms: usize,
        /// The required `|S| / |U|`.
        min_coverage: f64,
    },
}

impl fmt::Display for Rejection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Rejection::TooShort { unique_terms, min } => {
                write!(
                    f,
                    "{unique_terms} unique terms, fewer than the {min} required"
                )
            }
            Rejection::TooFewLexiconTerms { found, min } => {
                write!(f, "{found} lexicon terms, fewer than the {min} required")
            }
            Rejection::LowCoverage {
                found,
                unique_terms,
                min_coverage,
            } => write!(
                f,
                "{found} of {unique_terms} unique terms in the lexicons, below the required \
                 fraction {min_coverage}"
            ),
        }
    }
}

impl std::error::Error for Rejection {}

/// An extended I-Match signature: one SHA-1 digest per lexicon (the primary lexicon
/// first, then the `K` randomized ones), a coordinate absent when that lexicon rejected
/// the document. Two documents are near duplicates when some coordinate is present and
/// equal in both (paper 003 §4); [`similarity`](Signature::similarity) is the fraction
/// of the `K + 1` coordinates that match.
///
/// # Example
///
/// ```
/// use ndd_core::{SchemeId, Signature};
/// use ndd_imatch::IMatchSignature;
/// let s = SchemeId::new("demo").finish();
/// let a = IMatchSignature::from_parts(s, vec![Some([1; 20]), Some([2; 20]), None]);
/// let b = IMatchSignature::from_parts(s, vec![Some([9; 20]), Some([2; 20]), None]);
/// assert!(a.matches(&b)?);
/// assert_eq!(a.matching_coordinates(&b)?, 1);
/// assert_eq!(a.similarity(&b)?.value(), 1.0 / 3.0);
/// # Ok::<(), ndd_core::Error>(())
/// ```
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct IMatchSignature {
    scheme: SchemeId,
    coords: Box<[Option<Digest>]>,
}

impl fmt::Debug for IMatchSignature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let hex: Vec<String> = self
            .coords
            .iter()
            .map(|c| match c {
                Some(d) => d.iter().map(|b| format!("{b:02x}")).collect(),
                None => "-".to_string(),
            })
            .collect();
        f.debug_struct("IMatchSignature")
            .field("scheme", &self.scheme)
            .field("coordinates", &hex)
            .finish()
    }
}

const SIG_MAGIC: [u8; 4] = *b"IMSG";
const SIG_VERSION: u16 = 1;

impl IMatchSignature {
    /// A signature from its parts (digests stored elsewhere).
    ///
    /// # Example
    ///
    /// ```
    /// let s = ndd_imatch::IMatchSignature::from_parts(ndd_core::SchemeId::new("d").finish(), vec![None]);
    /// assert_eq!(s.coordinates(), &[None]);
    /// ```
    #[must_use]
    pub fn from_parts(scheme: SchemeId, coordinates: Vec<Option<Digest>>) -> Self {
        IMatchSignature {
            scheme,
            coords: coordinates.into_boxed_slice(),
        }
    }

    /// The `K + 1` coordinates: the primary lexicon's digest, then one per extra lexicon.
    ///
    /// # Example
    ///
    /// ```
    /// let s = ndd_imatch::IMatchSignature::from_parts(ndd_core::SchemeId::new("d").finish(), vec![Some([0; 20])]);
    /// assert_eq!(s.coordinates().len(), 1);
    /// ```
    #[must_use]
    pub fn coordinates(&self) -> &[Option<Digest>] {
        &self.coords
    }

    /// The classic I-Match signature: the primary lexicon's digest.
    ///
    /// # Example
    ///
    /// ```
    /// let s = ndd_imatch::IMatchSignature::from_parts(ndd_core::SchemeId::new("d").finish(), vec![Some([7; 20]), None]);
    /// assert_eq!(s.primary(), Some(&[7; 20]));
    /// ```
    #[must_use]
    pub fn primary(&self) -> Option<&Digest> {
        self.coords.first().and_then(Option::as_ref)
    }

    /// The number of coordinates whose digests are present and equal in both.
    ///
    /// # Errors
    ///
    /// [`Error::Incompatible`] when the schemes differ.
    ///
    /// # Example
    ///
    /// ```
    /// use ndd_core::SchemeId;
    /// use ndd_imatch::IMatchSignature;
    /// let a = IMatchSignature::from_parts(SchemeId::new("x").finish(), vec![Some([1; 20])]);
    /// let b = IMatchSignature::from_parts(SchemeId::new("y").finish(), vec![Some([1; 20])]);
    /// assert!(a.matching_coordinates(&b).is_err());
    /// assert_eq!(a.matching_coordinates(&a)?, 1);
    /// # Ok::<(), ndd_core::Error>(())
    /// ```
    pub fn matching_coordinates(&self, other: &Self) -> Result<usize, Error> {
        self.check_compatible(other)?;
        Ok(self
            .coords
            .iter()
            .zip(other.coords.iter())
            .filter(|(a, b)| a.is_some() && a == b)
            .count())
    }

    /// Whether the two agree on at least one coordinate (the near-duplicate rule of
    /// paper 003 §4).
    ///
    /// # Errors
    ///
    /// [`Error::Incompatible`] when the schemes differ.
    ///
    /// # Example
    ///
    /// ```
    /// use ndd_core::SchemeId;
    /// use ndd_imatch::IMatchSignature;
    /// let s = SchemeId::new("x").finish();
    /// let a = IMatchSignature::from_parts(s, vec![None, Some([3; 20])]);
    /// let b = IMatchSignature::from_parts(s, vec![None, Some([4; 20])]);
    /// assert!(!a.matches(&b)?); // absent coordinates never match
    /// # Ok::<(), ndd_core::Error>(())
    /// ```
    pub fn matches(&self, other: &Self) -> Result<bool, Error> {
        Ok(self.matching_coordinates(other)? > 0)
    }

    /// The versioned byte form: scheme, coordinate count, then per coordinate a
    /// presence byte and the 20-byte digest when present.
    ///
    /// # Example
    ///
    /// ```
    /// let s = ndd_imatch::IMatchSignature::from_parts(ndd_core::SchemeId::new("d").finish(), vec![Some([5; 20]), None]);
    /// let bytes = s.to_bytes();
    /// assert_eq!(bytes.len(), 6 + 8 + 4 + 21 + 1 + 8);
    /// assert_eq!(ndd_imatch::IMatchSignature::from_bytes(&bytes)?, s);
    /// # Ok::<(), ndd_core::Error>(())
    /// ```
    #[must_use]
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = ByteWriter::new(SIG_MAGIC, SIG_VERSION);
        w.u64(self.scheme.as_u64());
        w.u32(u32::try_from(self.coords.len()).unwrap_or(u32::MAX));
        for c in self.coords.iter() {
            match c {
                Some(d) => {
                    w.u8(1);
                    for &b in d {
                        w.u8(b);
                    }
                }
                None => w.u8(0),
            }
        }
        w.finish()
    }

    /// Reads a signature written by [`to_bytes`](Self::to_bytes).
    ///
    /// # Errors
    ///
    /// [`Error::CorruptData`] for truncated, altered or foreign bytes, a presence byte
    /// other than 0 or 1, or more than 31 coordinates.
    ///
    /// # Example
    ///
    /// ```
    /// let s = ndd_imatch::IMatchSignature::from_parts(ndd_core::SchemeId::new("d").finish(), vec![None]);
    /// let bytes = s.to_bytes();
    /// assert!(ndd_imatch::IMatchSignature::from_bytes(&bytes[..bytes.len() - 1]).is_err());
    /// ```
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        let (mut r, _) = ByteReader::new(bytes, SIG_MAGIC, SIG_VERSION)?;
        let scheme = SchemeId::from_u64(r.u64()?);
        let n = r.u32()? as usize;
        if n > MAX_EXTRA_LEXICONS + 1 {
            return Err(Error::corrupt_data(format!(
                "{n} coordinates, more than the {} supported",
                MAX_EXTRA_LEXICONS + 1
            )));
        }
        let mut coords = Vec::with_capacity(n);
        for _ in 0..n {
            match r.u8()? {
                0 => coords.push(None),
                1 => {
                    let mut d = [0u8; 20];
                    for b in &mut d {
                        *b = r.u8()?;
                    }
                    coords.push(Some(d));
                }
                other => {
                    return Err(Error::corrupt_data(format!(
                        "coordinate presence byte {other}"
                    )));
                }
            }
        }
        r.finish()?;
        Ok(IMatchSignature {
            scheme,
            coords: coords.into_boxed_slice(),
        })
    }
}

impl Signature for IMatchSignature {
    fn scheme(&self) -> SchemeId {
        self.scheme
    }

    /// The fraction of the `K + 1` coordinates present and equal in both (exact: no
    /// estimation error). Any value above 0 is a near-duplicate match.
    fn similarity(&self, other: &Self) -> Result<Estimate, Error> {
        let m = self.matching_coordinates(other)?;
        let n = self.coords.len().max(1);
        Ok(Estimate::exact(m as f64 / n as f64))
    }
}

impl ExactSignature for IMatchSignature {
    type Coordinate = Digest;

    fn num_coordinates(&self) -> usize {
        self.coords.len()
    }

    fn coordinate(&self, i: usize) -> Option<&Digest> {
        self.coords.get(i).and_then(Option::as_ref)
    }
}

impl ndd_core::codec::ByteForm for IMatchSignature {
    fn to_bytes(&self) -> Vec<u8> {
        IMatchSignature::to_bytes(self)
    }
    fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        IMatchSignature::from_bytes(bytes)
    }
}

/// Reusable buffers for [`IMatcher::sign_with`]: steady-state signing allocates only
/// the signature.
///
/// # Example
///
/// ```
/// use ndd_core::FeatureExtractor;
/// use ndd_imatch::{IMatcher, Lexicon, Scratch};
/// let words = ndd_imatch::unigram_extractor();
/// let lex = Lexicon::from_terms(words.scheme(), words.features("alpha bravo charlie delta echo"), vec![])?;
/// let m = IMatcher::builder(lex).build()?;
/// let mut scratch = Scratch::default();
/// let sigs: Vec<_> = ["alpha bravo charlie delta echo", "echo delta charlie bravo alpha"]
///     .iter()
///     .map(|d| m.sign_with(&mut scratch, d))
///     .collect::<Result<_, _>>()?;
/// assert_eq!(sigs[0], sigs[1]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct Scratch {
    terms: Vec<u64>,
    hits: Vec<(u64, u32)>,
    extra: Vec<(u32, u64, u32)>,
    set: Vec<u64>,
    bytes: Vec<u8>,
}

/// Memory of a signer's lexicon table, from [`IMatcher::memory`].
///
/// # Example
///
/// ```
/// let m = ndd_imatch::LexiconMemory { terms: 10, bytes: 400 };
/// assert_eq!(m.bytes_per_term(), 40.0);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LexiconMemory {
    /// Terms in the table: the primary lexicon plus the secondary one.
    pub terms: usize,
    /// Bytes allocated for the table (hash-table buckets × (12-byte entry padded to
    /// 16 + 1 control byte)); the `K` randomized lexicons add nothing: membership in
    /// all `K + 1` lexicons is one 32-bit mask per term.
    pub bytes: usize,
}

impl LexiconMemory {
    /// `bytes / terms` (0 for an empty table).
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(ndd_imatch::LexiconMemory { terms: 0, bytes: 0 }.bytes_per_term(), 0.0);
    /// ```
    #[must_use]
    pub fn bytes_per_term(&self) -> f64 {
        if self.terms == 0 {
            0.0
        } else {
            self.bytes as f64 / self.terms as f64
        }
    }
}

/// Computes extended I-Match signatures (A. Kołcz and A. Chowdhury, "Lexicon
/// randomization for near-duplicate detection with I-Match", Journal of
/// Supercomputing 45(3), 2008: paper 003; after A. Chowdhury, O. Frieder, D. Grossman,
/// M. C. McCabe, "Collection statistics for fast duplicate document detection", ACM
/// TOIS 20(2), 2002; summarized in H. Hajishirzi, W. Yih, A. Kołcz, "Adaptive
/// near-duplicate detection via similarity learning", SIGIR 2010, §2.2: paper 000).
///
/// For a document with unique terms `U` (after the §6.3 preparation of the
/// extractor) and each lexicon `L_i` (the primary lexicon, `i = 0`, then `K`
/// randomized copies):
///
/// 1. `|U|` below [`min_unique_terms`](IMatcherBuilder::min_unique_terms) →
///    [`Rejection::TooShort`] (§6.3).
/// 2. `S_i = L_i ∩ U` (§3, steps 2–3).
/// 3. If `|S_i| / |U|` is below [`min_coverage`](IMatcherBuilder::min_coverage), add
///    the fewest top-ranked secondary-lexicon terms of `U` that reach it (§3, step 4;
///    the paper's text says "top-ranking terms (L ∩ U)", which from the surrounding
///    text means the secondary lexicon's terms, `B ∩ U`).
/// 4. Coordinate `i` is rejected when `|S_i| / |U|` still falls short or `|S_i|` is
///    below [`min_terms`](IMatcherBuilder::min_terms) (step 5); otherwise it is
///    SHA-1 of the terms of `S_i` (their 64-bit hashes) in increasing order, each as 8
///    little-endian bytes.
///
/// The document is rejected when coordinate 0 is; since every `L_i ⊆ L`, a rejected
/// primary coordinate implies rejected extra ones. The signature is unchanged by word
/// order, repeats, and edits to terms outside every lexicon that keep the number of
/// unique terms (which the coverage rule counts: with `min_coverage` above 0, a
/// document that grows may need more terms from `B`, or be rejected); any edit inside `L`
/// changes coordinate 0, and coordinate `i` survives it with probability `p` (the
/// fraction of `L` left out of `L_i`), so at least one of `K` survives `n` such edits
/// with probability about `1 − (1 − p^n)^K` ([`crate::analysis::stability`], eq. 1).
///
/// # Example
///
/// ```
/// use ndd_core::{stats::DocumentFrequencies, Signature};
/// use ndd_imatch::{unigram_extractor, IMatcher, Lexicon, Rejection};
///
/// // Collection statistics from a (tiny, synthetic) training corpus.
/// let corpus: Vec<String> = (0..200)
///     .map(|i| format!("alpha{} bravo{} charlie{} delta{} the and", i % 5, i % 7, i % 11, i % 13))
///     .collect();
/// let stats = DocumentFrequencies::from_documents(&unigram_extractor(), corpus.iter().map(String::as_str));
/// let lexicon = Lexicon::builder().build(&stats)?;
/// let imatch = IMatcher::builder(lexicon).extra_lexicons(3).seed(7).min_terms(2).build()?;
///
/// let a = imatch.sign("alpha1 bravo2 charlie3 delta4 unknownword")?;
/// let b = imatch.sign("delta4 charlie3 bravo2 alpha1 otherunknown")?; // reordered, edited outside L
/// assert_eq!(a, b);
/// assert_eq!(a.coordinates().len(), 4);
/// let c = imatch.sign("alpha1 bravo2 charlie3 delta5 unknownword")?; // edited inside L
/// assert_ne!(a.primary(), c.primary());
/// assert!(a.similarity(&c)?.value() < 1.0);
/// assert!(matches!(imatch.sign("too short"), Err(Rejection::TooShort { .. })));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone)]
pub struct IMatcher<E = WordShingler> {
    extractor: E,
    /// Term → (mask, rank): the bit mask of the lexicons holding it (bit 0 = `L` or
    /// `B`, bit `i` = extra lexicon `i`), and [`PRIMARY`] for a primary-lexicon term or
    /// its rank in the secondary lexicon `B`.
    table: AHashMap<u64, (u32, u32)>,
    width: usize,
    primary_len: usize,
    secondary_len: usize,
    randomization: Randomization,
    min_unique_terms: usize,
    min_terms: usize,
    min_coverage: f64,
    scheme: SchemeId,
}

impl<E> fmt::Debug for IMatcher<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("IMatcher")
            .field("scheme", &self.scheme)
            .field("extra_lexicons", &(self.width - 1))
            .field("randomization", &self.randomization)
            .field("primary_terms", &self.primary_len)
            .field("secondary_terms", &self.secondary_len)
            .field("min_unique_terms", &self.min_unique_terms)
            .field("min_terms", &self.min_terms)
            .field("min_coverage", &self.min_coverage)
            .finish_non_exhaustive()
    }
}

/// The default [`min_unique_terms`](IMatcherBuilder::min_unique_terms): 5 (paper 003 §6.3).
///
/// # Example
///
/// ```
/// use ndd_imatch::{IMatcher, Lexicon, Rejection, DEFAULT_MIN_UNIQUE_TERMS};
/// let lex = Lexicon::from_terms(ndd_imatch::unigram_extractor_scheme(), vec![1], vec![])?;
/// let m = IMatcher::builder(lex).build()?;
/// assert_eq!(m.sign("four words only here"), Err(Rejection::TooShort { unique_terms: 4, min: DEFAULT_MIN_UNIQUE_TERMS }));
/// # Ok::<(), ndd_core::Error>(())
/// ```
pub const DEFAULT_MIN_UNIQUE_TERMS: usize = 5;
/// The default [`min_terms`](IMatcherBuilder::min_terms): 3 (see `docs/decisions.md`).
///
/// # Example
///
/// ```
/// use ndd_imatch::{IMatcher, Lexicon, Rejection, DEFAULT_MIN_TERMS};
/// let lex = Lexicon::from_terms(ndd_imatch::unigram_extractor_scheme(), vec![1, 2], vec![])?;
/// let m = IMatcher::builder(lex).min_coverage(0.0).build()?;
/// assert_eq!(m.sign_terms(&[1, 2, 7, 8, 9]), Err(Rejection::TooFewLexiconTerms { found: 2, min: DEFAULT_MIN_TERMS }));
/// # Ok::<(), ndd_core::Error>(())
/// ```
pub const DEFAULT_MIN_TERMS: usize = 3;
/// The default [`min_coverage`](IMatcherBuilder::min_coverage): 0.1 (see
/// `docs/decisions.md`).
///
/// # Example
///
/// ```
/// use ndd_imatch::{IMatcher, Lexicon, Rejection, DEFAULT_MIN_COVERAGE};
/// let lex = Lexicon::from_terms(ndd_imatch::unigram_extractor_scheme(), vec![1, 2, 3], vec![])?;
/// let m = IMatcher::builder(lex).build()?;
/// // 3 lexicon terms among 40 unique terms: 0.075 < 0.1, and no secondary lexicon to add from.
/// let doc: Vec<u64> = (1..=3).chain(100..137).collect();
/// assert!(matches!(m.sign_terms(&doc), Err(Rejection::LowCoverage { found: 3, unique_terms: 40, .. })));
/// assert_eq!(DEFAULT_MIN_COVERAGE, 0.1);
/// # Ok::<(), ndd_core::Error>(())
/// ```
pub const DEFAULT_MIN_COVERAGE: f64 = 0.1;

/// Configures an [`IMatcher`]; made by [`IMatcher::builder`].
///
/// # Example
///
/// ```
/// use ndd_imatch::{IMatcher, Lexicon, Randomization};
/// let lexicon = Lexicon::from_terms(ndd_imatch::unigram_extractor_scheme(), vec![1, 2, 3], vec![])?;
/// let imatch = IMatcher::builder(lexicon)
///     .extra_lexicons(5)
///     .randomization(Randomization::Remove { fraction: 0.33 })
///     .seed(42)
///     .min_unique_terms(5)
///     .min_terms(3)
///     .min_coverage(0.0)
///     .build()?;
/// assert_eq!(imatch.extra_lexicons(), 5);
/// # Ok::<(), ndd_core::Error>(())
/// ```
#[derive(Debug, Clone)]
#[must_use]
pub struct IMatcherBuilder<E = WordShingler> {
    lexicon: Lexicon,
    extractor: E,
    extra: usize,
    randomization: Randomization,
    seed: u64,
    min_unique_terms: usize,
    min_terms: usize,
    min_coverage: f64,
}

impl IMatcher<WordShingler> {
    /// A builder over `lexicon` with the defaults: the [`unigram_extractor`], no extra
    /// lexicons (`K = 0`, classic I-Match), [`Randomization::Bootstrap`], seed 0,
    /// [`DEFAULT_MIN_UNIQUE_TERMS`], [`DEFAULT_MIN_TERMS`], [`DEFAULT_MIN_COVERAGE`].
    ///
    /// # Example
    ///
    /// ```
    /// use ndd_imatch::{IMatcher, Lexicon};
    /// let lex = Lexicon::from_terms(ndd_imatch::unigram_extractor_scheme(), vec![1], vec![])?;
    /// assert_eq!(IMatcher::builder(lex).build()?.extra_lexicons(), 0);
    /// # Ok::<(), ndd_core::Error>(())
    /// ```
    pub fn builder(lexicon: Lexicon) -> IMatcherBuilder<WordShingler> {
        IMatcherBuilder {
            lexicon,
            extractor: unigram_extractor(),
            extra: 0,
            randomization: Randomization::Bootstrap,
            seed: 0,
            min_unique_terms: DEFAULT_MIN_UNIQUE_TERMS,
            min_terms: DEFAULT_MIN_TERMS,
            min_coverage: DEFAULT_MIN_COVERAGE,
        }
    }
}

impl<E: FeatureExtractor> IMatcherBuilder<E> {
    /// The feature extractor whose terms the lexicon holds (default
    /// [`unigram_extractor`]); its scheme must equal the lexicon's.
    ///
    /// # Example
    ///
    /// ```
    /// use ndd_imatch::{IMatcher, Lexicon};
    /// use ndd_shingle::WordShingler;
    /// use ndd_core::FeatureExtractor;
    /// let bigrams = WordShingler::new(2)?;
    /// let lex = Lexicon::from_terms(bigrams.scheme(), vec![1], vec![])?;
    /// assert!(IMatcher::builder(lex.clone()).build().is_err()); // unigram extractor: mismatch
    /// assert!(IMatcher::builder(lex).extractor(bigrams).build().is_ok());
    /// # Ok::<(), ndd_core::Error>(())
    /// ```
    pub fn extractor<E2: FeatureExtractor>(self, extractor: E2) -> IMatcherBuilder<E2> {
        IMatcherBuilder {
            lexicon: self.lexicon,
            extractor,
            extra: self.extra,
            randomization: self.randomization,
            seed: self.seed,
            min_unique_terms: self.min_unique_terms,
            min_terms: self.min_terms,
            min_coverage: self.min_coverage,
        }
    }

    /// `K`, the number of randomized extra lexicons (default 0; at most
    /// [`MAX_EXTRA_LEXICONS`](crate::MAX_EXTRA_LEXICONS)).
    ///
    /// # Example
    ///
    /// ```
    /// use ndd_imatch::{IMatcher, Lexicon};
    /// let lex = Lexicon::from_terms(ndd_imatch::unigram_extractor_scheme(), vec![1], vec![])?;
    /// assert!(IMatcher::builder(lex).extra_lexicons(31).build().is_err());
    /// # Ok::<(), ndd_core::Error>(())
    /// ```
    pub fn extra_lexicons(mut self, k: usize) -> Self {
        self.extra = k;
        self
    }

    /// How the extra lexicons are drawn (default [`Randomization::Bootstrap`]).
    ///
    /// # Example
    ///
    /// ```
    /// use ndd_imatch::{IMatcher, Lexicon, Randomization};
    /// let lex = Lexicon::from_terms(ndd_imatch::unigram_extractor_scheme(), vec![1], vec![])?;
    /// let r = Randomization::Remove { fraction: 2.0 };
    /// assert!(IMatcher::builder(lex).randomization(r).build().is_err());
    /// # Ok::<(), ndd_core::Error>(())
    /// ```
    pub fn randomization(mut self, randomization: Randomization) -> Self {
        self.randomization = randomization;
        self
    }

    /// The seed of the randomized lexicons (default 0): the same seed gives the same
    /// lexicons, hence the same signatures, everywhere.
    ///
    /// # Example
    ///
    /// ```
    /// use ndd_imatch::{IMatcher, Lexicon};
    /// let lex = Lexicon::from_terms(ndd_imatch::unigram_extractor_scheme(), (1..100).collect(), vec![])?;
    /// let a = IMatcher::builder(lex.clone()).extra_lexicons(2).seed(1).build()?;
    /// let b = IMatcher::builder(lex).extra_lexicons(2).seed(2).build()?;
    /// assert_ne!(a.scheme(), b.scheme());
    /// # Ok::<(), ndd_core::Error>(())
    /// ```
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// Documents with fewer unique terms get [`Rejection::TooShort`] (default 5, paper
    /// 003 §6.3; at least 1).
    ///
    /// # Example
    ///
    /// ```
    /// use ndd_imatch::{IMatcher, Lexicon};
    /// let lex = Lexicon::from_terms(ndd_imatch::unigram_extractor_scheme(), vec![1], vec![])?;
    /// assert!(IMatcher::builder(lex).min_unique_terms(0).build().is_err());
    /// # Ok::<(), ndd_core::Error>(())
    /// ```
    pub fn min_unique_terms(mut self, n: usize) -> Self {
        self.min_unique_terms = n;
        self
    }

    /// The smallest `|S|` that gives a signature (default [`DEFAULT_MIN_TERMS`]; at
    /// least 1).
    ///
    /// # Example
    ///
    /// ```
    /// use ndd_imatch::{IMatcher, Lexicon};
    /// let lex = Lexicon::from_terms(ndd_imatch::unigram_extractor_scheme(), vec![1], vec![])?;
    /// assert!(IMatcher::builder(lex).min_terms(0).build().is_err());
    /// # Ok::<(), ndd_core::Error>(())
    /// ```
    pub fn min_terms(mut self, n: usize) -> Self {
        self.min_terms = n;
        self
    }

    /// The smallest `|S| / |U|` (the long-document rule of paper 003 §3; default
    /// [`DEFAULT_MIN_COVERAGE`]; 0 turns the rule off; must lie in `[0, 1]`).
    ///
    /// # Example
    ///
    /// ```
    /// use ndd_imatch::{IMatcher, Lexicon};
    /// let lex = Lexicon::from_terms(ndd_imatch::unigram_extractor_scheme(), vec![1], vec![])?;
    /// assert!(IMatcher::builder(lex).min_coverage(f64::NAN).build().is_err());
    /// # Ok::<(), ndd_core::Error>(())
    /// ```
    pub fn min_coverage(mut self, fraction: f64) -> Self {
        self.min_coverage = fraction;
        self
    }

    /// The signer: draws the randomized lexicons and builds the term table.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] for `K` above 30, an invalid randomization, a
    /// minimum of 0, or a coverage outside `[0, 1]`; [`Error::Incompatible`] when the
    /// extractor's scheme differs from the lexicon's; [`Error::InvalidInput`] for a
    /// secondary lexicon of `2^31` terms or more.
    ///
    /// # Example
    ///
    /// ```
    /// use ndd_imatch::{IMatcher, Lexicon};
    /// let lex = Lexicon::from_terms(ndd_imatch::unigram_extractor_scheme(), vec![1, 2], vec![3])?;
    /// let m = IMatcher::builder(lex).extra_lexicons(2).build()?;
    /// assert_eq!(m.memory().terms, 3);
    /// # Ok::<(), ndd_core::Error>(())
    /// ```
    pub fn build(self) -> Result<IMatcher<E>, Error> {
        if self.extra > MAX_EXTRA_LEXICONS {
            return Err(Error::invalid_parameter(
                "extra_lexicons",
                format!("at most {MAX_EXTRA_LEXICONS}, got {}", self.extra),
            ));
        }
        self.randomization.validate()?;
        if self.min_unique_terms == 0 {
            return Err(Error::invalid_parameter(
                "min_unique_terms",
                "must be at least 1",
            ));
        }
        if self.min_terms == 0 {
            return Err(Error::invalid_parameter("min_terms", "must be at least 1"));
        }
        if !(0.0..=1.0).contains(&self.min_coverage) {
            return Err(Error::invalid_parameter(
                "min_coverage",
                format!("must lie in [0, 1], got {}", self.min_coverage),
            ));
        }
        Error::check_schemes(self.lexicon.scheme(), self.extractor.scheme())?;
        let lex = &self.lexicon;
        if lex.secondary().len() >= 1 << 31 {
            return Err(Error::invalid_input(
                "the secondary lexicon has 2^31 terms or more",
            ));
        }
        // Paper 003 §4: with a secondary lexicon, the randomization samples both `L`
        // and `B`; `B`'s draws come from a seed of their own, so `L`'s stay those of a
        // signer without `B`.
        let masks = membership_masks(lex.len(), self.extra, self.randomization, self.seed);
        let secondary_masks = membership_masks(
            lex.secondary().len(),
            self.extra,
            self.randomization,
            self.seed ^ SECONDARY_SEED,
        );
        let mut table = AHashMap::with_capacity(lex.len() + lex.secondary().len());
        for (&t, &m) in lex.primary().iter().zip(&masks) {
            table.insert(t, (m, PRIMARY));
        }
        for (rank, (&t, &m)) in lex.secondary().iter().zip(&secondary_masks).enumerate() {
            // Fewer than 2^31 secondary terms (checked above): the rank fits.
            table.insert(t, (m, u32::try_from(rank).unwrap_or(PRIMARY - 1)));
        }
        let (rk, rp) = self.randomization.scheme_code();
        let scheme = SchemeId::new("imatch")
            .with(1) // signature layout: SHA-1 of sorted LE u64 term hashes
            .with_scheme(self.extractor.scheme())
            .with(lex.fingerprint())
            .with(self.extra as u64)
            .with(if self.extra == 0 { 0 } else { rk })
            .with(if self.extra == 0 { 0 } else { rp })
            .with(if self.extra == 0 { 0 } else { self.seed })
            .with(self.min_unique_terms as u64)
            .with(self.min_terms as u64)
            .with_f64(self.min_coverage)
            .finish();
        Ok(IMatcher {
            extractor: self.extractor,
            table,
            width: self.extra + 1,
            primary_len: lex.len(),
            secondary_len: lex.secondary().len(),
            randomization: self.randomization,
            min_unique_terms: self.min_unique_terms,
            min_terms: self.min_terms,
            min_coverage: self.min_coverage,
            scheme,
        })
    }
}

/// The rank of a primary-lexicon term in the signer's table.
const PRIMARY: u32 = u32::MAX;

/// Mixed into the seed for the draws of the secondary lexicon's samples.
const SECONDARY_SEED: u64 = 0x5345_434F_4E44_4152; // "SECONDAR"

/// SHA-1 of `terms` (ascending), each as 8 little-endian bytes.
fn digest_of(terms: impl Iterator<Item = u64>, bytes: &mut Vec<u8>) -> Digest {
    bytes.clear();
    for t in terms {
        bytes.extend_from_slice(&t.to_le_bytes());
    }
    Sha1::digest(bytes.as_slice()).into()
}

/// The smallest `k` with `k / n >= fraction` (exact in integers where `fraction·n`
/// rounds up by floating-point error).
fn needed(fraction: f64, n: usize) -> usize {
    if fraction <= 0.0 {
        return 0;
    }
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let mut k = (fraction * n as f64).ceil() as usize;
    while k > 0 && (k - 1) as f64 / n as f64 >= fraction {
        k -= 1;
    }
    k
}

impl<E: FeatureExtractor> IMatcher<E> {
    /// The scheme stamped on every signature: the extractor, the lexicon's
    /// [`fingerprint`](Lexicon::fingerprint), `K`, the randomization and seed, and the
    /// three thresholds.
    ///
    /// # Example
    ///
    /// ```
    /// use ndd_imatch::{IMatcher, Lexicon};
    /// let lex = Lexicon::from_terms(ndd_imatch::unigram_extractor_scheme(), vec![1], vec![])?;
    /// let a = IMatcher::builder(lex.clone()).build()?;
    /// let b = IMatcher::builder(lex).min_terms(4).build()?;
    /// assert_ne!(a.scheme(), b.scheme());
    /// # Ok::<(), ndd_core::Error>(())
    /// ```
    #[must_use]
    pub fn scheme(&self) -> SchemeId {
        self.scheme
    }

    /// `K`, the number of randomized extra lexicons.
    ///
    /// # Example
    ///
    /// ```
    /// use ndd_imatch::{IMatcher, Lexicon};
    /// let lex = Lexicon::from_terms(ndd_imatch::unigram_extractor_scheme(), vec![1], vec![])?;
    /// assert_eq!(IMatcher::builder(lex).extra_lexicons(4).build()?.extra_lexicons(), 4);
    /// # Ok::<(), ndd_core::Error>(())
    /// ```
    #[must_use]
    pub fn extra_lexicons(&self) -> usize {
        self.width - 1
    }

    /// The extractor that turns text into terms.
    ///
    /// # Example
    ///
    /// ```
    /// use ndd_core::FeatureExtractor;
    /// use ndd_imatch::{IMatcher, Lexicon};
    /// let lex = Lexicon::from_terms(ndd_imatch::unigram_extractor_scheme(), vec![1], vec![])?;
    /// let m = IMatcher::builder(lex).build()?;
    /// assert_eq!(m.extractor().scheme(), ndd_imatch::unigram_extractor_scheme());
    /// # Ok::<(), ndd_core::Error>(())
    /// ```
    #[must_use]
    pub fn extractor(&self) -> &E {
        &self.extractor
    }

    /// Memory of the term table (primary + secondary terms, one entry each, whatever
    /// `K`).
    ///
    /// # Example
    ///
    /// ```
    /// use ndd_imatch::{IMatcher, Lexicon};
    /// let lex = Lexicon::from_terms(ndd_imatch::unigram_extractor_scheme(), (1..=1000).collect(), vec![])?;
    /// let m = IMatcher::builder(lex).extra_lexicons(10).build()?.memory();
    /// assert_eq!(m.terms, 1000);
    /// assert!(m.bytes_per_term() >= 17.0 && m.bytes_per_term() <= 40.0);
    /// # Ok::<(), ndd_core::Error>(())
    /// ```
    #[must_use]
    pub fn memory(&self) -> LexiconMemory {
        let cap = self.table.capacity();
        let buckets = if cap == 0 {
            0
        } else {
            (cap.saturating_mul(8) / 7).next_power_of_two()
        };
        LexiconMemory {
            terms: self.table.len(),
            bytes: buckets * (size_of::<(u64, (u32, u32))>() + 1),
        }
    }

    /// The extended signature of `doc`, or why there is none.
    ///
    /// # Errors
    ///
    /// A [`Rejection`] (a documented outcome for short or poorly covered documents,
    /// not a failure).
    ///
    /// # Example
    ///
    /// ```
    /// use ndd_imatch::{IMatcher, Lexicon, Rejection};
    /// use ndd_core::FeatureExtractor;
    /// let words = ndd_imatch::unigram_extractor();
    /// let terms = words.features("lexicon terms matter here always");
    /// let lex = Lexicon::from_terms(words.scheme(), terms, vec![])?;
    /// let m = IMatcher::builder(lex).build()?;
    /// assert!(m.sign("Always matter here, lexicon terms!").is_ok());
    /// assert!(matches!(m.sign(""), Err(Rejection::TooShort { unique_terms: 0, min: 5 })));
    /// # Ok::<(), ndd_core::Error>(())
    /// ```
    pub fn sign(&self, doc: &str) -> Result<IMatchSignature, Rejection> {
        self.sign_with(&mut Scratch::default(), doc)
    }

    /// [`sign`](Self::sign) with caller-owned buffers.
    ///
    /// # Errors
    ///
    /// As [`sign`](Self::sign).
    ///
    /// # Example
    ///
    /// ```
    /// use ndd_imatch::{IMatcher, Lexicon, Scratch};
    /// use ndd_core::FeatureExtractor;
    /// let words = ndd_imatch::unigram_extractor();
    /// let lex = Lexicon::from_terms(words.scheme(), words.features("alpha bravo charlie delta echo"), vec![])?;
    /// let m = IMatcher::builder(lex).build()?;
    /// let mut scratch = Scratch::default();
    /// let a = m.sign_with(&mut scratch, "alpha bravo charlie delta echo")?;
    /// let b = m.sign_with(&mut scratch, "echo delta charlie bravo alpha alpha")?;
    /// assert_eq!(a, b);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn sign_with(
        &self,
        scratch: &mut Scratch,
        doc: &str,
    ) -> Result<IMatchSignature, Rejection> {
        scratch.terms.clear();
        self.extractor.extract(doc, &mut scratch.terms);
        self.sign_scratch(scratch)
    }

    /// The signature of a document given as its terms (feature hashes of this
    /// signer's extractor, in any order, repeats allowed).
    ///
    /// # Errors
    ///
    /// As [`sign`](Self::sign).
    ///
    /// # Example
    ///
    /// ```
    /// use ndd_imatch::{IMatcher, Lexicon};
    /// let lex = Lexicon::from_terms(ndd_imatch::unigram_extractor_scheme(), vec![1, 2, 3], vec![])?;
    /// let m = IMatcher::builder(lex).min_unique_terms(3).build()?;
    /// assert_eq!(m.sign_terms(&[3, 2, 1, 1])?, m.sign_terms(&[1, 2, 3])?);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn sign_terms(&self, terms: &[u64]) -> Result<IMatchSignature, Rejection> {
        let mut scratch = Scratch::default();
        scratch.terms.extend_from_slice(terms);
        self.sign_scratch(&mut scratch)
    }

    fn sign_scratch(&self, s: &mut Scratch) -> Result<IMatchSignature, Rejection> {
        s.terms.sort_unstable();
        s.terms.dedup();
        let unique = s.terms.len();
        if unique < self.min_unique_terms {
            return Err(Rejection::TooShort {
                unique_terms: unique,
                min: self.min_unique_terms,
            });
        }
        s.hits.clear();
        s.extra.clear();
        for &t in &s.terms {
            if let Some(&(mask, rank)) = self.table.get(&t) {
                if rank == PRIMARY {
                    s.hits.push((t, mask));
                } else {
                    s.extra.push((rank, t, mask));
                }
            }
        }
        let need = needed(self.min_coverage, unique);
        let mut extra_sorted = false;
        let mut coords = Vec::with_capacity(self.width);
        let mut primary_rejection = None;
        for i in 0..self.width {
            let bit = 1u32 << i;
            let found = s.hits.iter().filter(|h| h.1 & bit != 0).count();
            let outcome = if found >= need {
                if found < self.min_terms {
                    Err(Rejection::TooFewLexiconTerms {
                        found,
                        min: self.min_terms,
                    })
                } else {
                    Ok(digest_of(
                        s.hits.iter().filter(|h| h.1 & bit != 0).map(|h| h.0),
                        &mut s.bytes,
                    ))
                }
            } else {
                // The top-ranked terms of this coordinate's sample of `B`.
                let available = s.extra.iter().filter(|e| e.2 & bit != 0).count();
                let take = (need - found).min(available);
                if found + take < need {
                    Err(Rejection::LowCoverage {
                        found: found + take,
                        unique_terms: unique,
                        min_coverage: self.min_coverage,
                    })
                } else if found + take < self.min_terms {
                    Err(Rejection::TooFewLexiconTerms {
                        found: found + take,
                        min: self.min_terms,
                    })
                } else {
                    if !extra_sorted {
                        s.extra.sort_unstable();
                        extra_sorted = true;
                    }
                    s.set.clear();
                    s.set
                        .extend(s.hits.iter().filter(|h| h.1 & bit != 0).map(|h| h.0));
                    s.set.extend(
                        s.extra
                            .iter()
                            .filter(|e| e.2 & bit != 0)
                            .take(take)
                            .map(|e| e.1),
                    );
                    s.set.sort_unstable();
                    Ok(digest_of(s.set.iter().copied(), &mut s.bytes))
                }
            };
            match outcome {
                Ok(d) => coords.push(Some(d)),
                Err(r) => {
                    if i == 0 {
                        primary_rejection = Some(r);
                        break;
                    }
                    coords.push(None);
                }
            }
        }
        if let Some(r) = primary_rejection {
            return Err(r);
        }
        Ok(IMatchSignature {
            scheme: self.scheme,
            coords: coords.into_boxed_slice(),
        })
    }

    /// The signatures of many documents, buffers reused.
    ///
    /// # Example
    ///
    /// ```
    /// use ndd_imatch::{IMatcher, Lexicon};
    /// use ndd_core::FeatureExtractor;
    /// let words = ndd_imatch::unigram_extractor();
    /// let lex = Lexicon::from_terms(words.scheme(), words.features("alpha bravo charlie delta echo"), vec![])?;
    /// let m = IMatcher::builder(lex).build()?;
    /// let out = m.sign_batch(&["alpha bravo charlie delta echo", "nope"]);
    /// assert!(out[0].is_ok() && out[1].is_err());
    /// # Ok::<(), ndd_core::Error>(())
    /// ```
    pub fn sign_batch<D: AsRef<str>>(&self, docs: &[D]) -> Vec<Result<IMatchSignature, Rejection>> {
        let mut scratch = Scratch::default();
        docs.iter()
            .map(|d| self.sign_with(&mut scratch, d.as_ref()))
            .collect()
    }
}

/// Documents per rayon task at most (as in `MinHasher::par_sketch_batch`: keeps ranges
/// of long documents small enough to be stolen).
#[cfg(feature = "rayon")]
const PAR_MAX_DOCS: usize = 256;

#[cfg(feature = "rayon")]
impl<E: FeatureExtractor + Sync> IMatcher<E> {
    /// The signatures of many documents, signed in parallel on rayon's pool (one
    /// [`Scratch`] per worker thread, reused across its documents). Same results, in
    /// the same order, as [`sign_batch`](Self::sign_batch).
    ///
    /// # Example
    ///
    /// ```
    /// use ndd_imatch::{IMatcher, Lexicon};
    /// use ndd_core::FeatureExtractor;
    /// let words = ndd_imatch::unigram_extractor();
    /// let lex = Lexicon::from_terms(words.scheme(), words.features("alpha bravo charlie delta echo"), vec![])?;
    /// let m = IMatcher::builder(lex).extra_lexicons(2).build()?;
    /// let docs = ["alpha bravo charlie delta echo", "echo delta charlie bravo alpha", "nope"];
    /// assert_eq!(m.par_sign_batch(&docs), m.sign_batch(&docs));
    /// # Ok::<(), ndd_core::Error>(())
    /// ```
    pub fn par_sign_batch<D: AsRef<str> + Sync>(
        &self,
        docs: &[D],
    ) -> Vec<Result<IMatchSignature, Rejection>> {
        use rayon::prelude::*;
        docs.par_iter()
            .with_max_len(PAR_MAX_DOCS)
            .map_init(Scratch::default, |scratch, d| {
                self.sign_with(scratch, d.as_ref())
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn needed_is_the_exact_ceiling() {
        assert_eq!(needed(0.1, 30), 3); // 0.1·30 = 3.0000000000000004 in f64
        assert_eq!(needed(0.2, 10), 2);
        assert_eq!(needed(0.25, 10), 3);
        assert_eq!(needed(0.0, 10), 0);
        assert_eq!(needed(1.0, 7), 7);
        for n in 1..200usize {
            for k in 0..=n {
                let f = k as f64 / n as f64;
                assert_eq!(needed(f, n), k, "{k}/{n}");
            }
        }
    }
}
