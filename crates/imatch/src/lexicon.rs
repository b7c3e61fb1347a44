//! [`Lexicon`]: the primary I-Match lexicon `L` (terms whose normalized IDF lies in a
//! window) and the secondary lexicon `B` (rarer terms, ranked by increasing IDF), built
//! from collection statistics and stored in a compact versioned byte form.

use ahash::AHashSet;
use std::path::Path;

use ndd_core::codec::{ByteReader, ByteWriter};
use ndd_core::file::{FileError, load_bounded};
use ndd_core::hash::stable_hash64;
use ndd_core::stats::DocumentFrequencies;
use ndd_core::{Error, SchemeId};

const MAGIC: [u8; 4] = *b"IMLX";
const VERSION: u16 = 1;
/// The largest lexicon file [`Lexicon::load`] reads.
const MAX_FILE_BYTES: u64 = 1 << 30;

/// The default normalized-IDF window for web text, `[0.2, 0.8]` (Kołcz and Chowdhury, The Journal of Supercomputing 2008, §6.5.1 and
/// §6.5.2, for the WT10G and the news-derived SGML lexicons).
///
/// # Example
///
/// ```
/// assert_eq!(near_dup::imatch::Lexicon::builder().window(), near_dup::imatch::WEB_NIDF_WINDOW);
/// ```
pub const WEB_NIDF_WINDOW: (f64, f64) = (0.2, 0.8);

/// The window that cross-validation picked for email in Kołcz and Chowdhury (The Journal of Supercomputing 2008, §6.5.2), `[0.2, 0.3]`
/// (the SGML news lexicon applied to spam and legitimate email).
///
/// # Example
///
/// ```
/// let (lo, hi) = near_dup::imatch::EMAIL_NIDF_WINDOW;
/// assert_eq!(near_dup::imatch::Lexicon::builder().nidf_window(lo, hi).window(), (0.2, 0.3));
/// ```
pub const EMAIL_NIDF_WINDOW: (f64, f64) = (0.2, 0.3);

/// The default cap on the secondary lexicon `B`: 100,000 terms (800 KB in the byte
/// form). Kołcz and Chowdhury (The Journal of Supercomputing 2008, §3) leaves the size to the memory available.
///
/// # Example
///
/// ```
/// assert_eq!(near_dup::imatch::Lexicon::builder().cap(), near_dup::imatch::DEFAULT_SECONDARY_CAP);
/// ```
pub const DEFAULT_SECONDARY_CAP: usize = 100_000;

/// An I-Match lexicon pair: the primary lexicon `L` and the secondary lexicon `B` of
/// A. Kołcz and A. Chowdhury, "Lexicon randomization for near-duplicate detection with
/// I-Match", Journal of Supercomputing 45(3), 2008, §3.
///
/// * `L` holds the terms whose normalized IDF `nidf = ln(N/df) / ln N` lies in a window
///   `[min, max]` (Zipfian filtering: very frequent terms carry no content, very rare
///   ones are often misspellings and noise; §3, and A. Chowdhury, O. Frieder,
///   D. Grossman, M. C. McCabe, "Collection statistics for fast duplicate document
///   detection", ACM TOIS 20(2), 2002). Defaults: [`WEB_NIDF_WINDOW`] `[0.2, 0.8]` for
///   web text (§6.5); [`EMAIL_NIDF_WINDOW`] `[0.2, 0.3]` was better for email (§6.5.2).
/// * `B` holds the terms with `nidf > max`, ranked by increasing IDF (more frequent
///   first; ties by term hash), at most [`secondary_cap`](LexiconBuilder::secondary_cap)
///   of them: the supply of extra terms for long documents whose intersection with `L`
///   is too small (§3, steps 1–5).
///
/// Terms are the 64-bit feature hashes of the extractor the statistics were counted
/// with (by default word unigrams after the §6.3 preparation, see
/// [`crate::unigram_extractor`]); the lexicon remembers that extractor's [`SchemeId`],
/// so a lexicon is refused by a signer that extracts terms differently. Lexicons built
/// on one collection are meant to be applied to another (§6.5, §7.4: a large clean
/// collection may even be preferable), hence [`to_bytes`](Self::to_bytes) /
/// [`from_bytes`](Self::from_bytes): 8 bytes per term plus 62 bytes.
///
/// # Example
///
/// ```
/// use near_dup::{stats::DocumentFrequencies, FeatureExtractor};
/// use near_dup::imatch::{unigram_extractor, Lexicon};
///
/// let words = unigram_extractor();
/// let corpus: Vec<String> = (0..100)
///     .map(|i| format!("common words appear everywhere topic{} flavor{}", i % 10, i % 50))
///     .collect();
/// let stats = DocumentFrequencies::from_documents(&words, corpus.iter().map(String::as_str));
/// let lexicon = Lexicon::builder().nidf_window(0.2, 0.8).build(&stats)?;
/// // "topic3" is in a tenth of the documents: nidf = ln 10 / ln 100 = 0.5.
/// assert!(lexicon.contains(words.features("topic3")[0]));
/// // "common" is everywhere (nidf 0); "flavor7" in 2 of 100 (nidf 0.85): rarer than L.
/// assert!(!lexicon.contains(words.features("common")[0]));
/// assert!(lexicon.secondary_rank(words.features("flavor7")[0]).is_some());
/// let copy = Lexicon::from_bytes(&lexicon.to_bytes())?;
/// assert_eq!(copy, lexicon);
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Clone, PartialEq)]
pub struct Lexicon {
    scheme: SchemeId,
    num_docs: u64,
    window: (f64, f64),
    /// `L`, sorted ascending.
    primary: Box<[u64]>,
    /// `B`, by rank (increasing IDF).
    secondary: Box<[u64]>,
}

impl std::fmt::Debug for Lexicon {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Lexicon")
            .field("scheme", &self.scheme)
            .field("num_docs", &self.num_docs)
            .field("window", &self.window)
            .field("primary", &self.primary.len())
            .field("secondary", &self.secondary.len())
            .finish()
    }
}

/// Configures how a [`Lexicon`] is cut from collection statistics; made by
/// [`Lexicon::builder`].
///
/// # Example
///
/// ```
/// use near_dup::imatch::{Lexicon, EMAIL_NIDF_WINDOW};
/// let b = Lexicon::builder()
///     .nidf_window(EMAIL_NIDF_WINDOW.0, EMAIL_NIDF_WINDOW.1)
///     .secondary_cap(10_000);
/// assert_eq!(b.window(), (0.2, 0.3));
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
#[must_use]
pub struct LexiconBuilder {
    window: (f64, f64),
    secondary_cap: usize,
}

impl Default for LexiconBuilder {
    fn default() -> Self {
        LexiconBuilder {
            window: WEB_NIDF_WINDOW,
            secondary_cap: DEFAULT_SECONDARY_CAP,
        }
    }
}

fn check_window(min: f64, max: f64) -> Result<(), Error> {
    if !(min.is_finite()
        && max.is_finite()
        && (0.0..=1.0).contains(&min)
        && min <= max
        && max <= 1.0)
    {
        return Err(Error::invalid_parameter(
            "nidf_window",
            format!("needs 0 <= min <= max <= 1, got [{min}, {max}]"),
        ));
    }
    Ok(())
}

impl LexiconBuilder {
    /// The normalized-IDF window `[min, max]` of the primary lexicon, bounds included
    /// (default [`WEB_NIDF_WINDOW`]). Checked in [`build`](Self::build).
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::imatch::Lexicon::builder().nidf_window(0.1, 0.9).window(), (0.1, 0.9));
    /// ```
    pub fn nidf_window(mut self, min: f64, max: f64) -> Self {
        self.window = (min, max);
        self
    }

    /// The largest number of terms kept in the secondary lexicon `B` (default
    /// [`DEFAULT_SECONDARY_CAP`]; 0 disables the long-document extension's supply).
    ///
    /// # Example
    ///
    /// ```
    /// let b = near_dup::imatch::Lexicon::builder().secondary_cap(0);
    /// assert_eq!(b.cap(), 0);
    /// ```
    pub fn secondary_cap(mut self, cap: usize) -> Self {
        self.secondary_cap = cap;
        self
    }

    /// The configured window.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::imatch::Lexicon::builder().window(), near_dup::imatch::WEB_NIDF_WINDOW);
    /// ```
    #[must_use]
    pub fn window(&self) -> (f64, f64) {
        self.window
    }

    /// The configured secondary-lexicon cap.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::imatch::Lexicon::builder().cap(), near_dup::imatch::DEFAULT_SECONDARY_CAP);
    /// ```
    #[must_use]
    pub fn cap(&self) -> usize {
        self.secondary_cap
    }

    /// Cuts the lexicons from `stats`: `L` = every counted term with `min <= nidf <= max`,
    /// `B` = the `cap` terms with `nidf > max` of lowest IDF (highest `df`; ties by term
    /// hash, so the result is a pure function of the statistics).
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] for a window outside `0 <= min <= max <= 1`;
    /// [`Error::InvalidInput`] when `stats` counted fewer than two documents (normalized
    /// IDF is undefined) or no term falls in the window.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::{stats::DocumentFrequencies, SchemeId};
    /// let mut stats = DocumentFrequencies::new(SchemeId::new("terms").finish());
    /// for i in 0..100u64 {
    ///     stats.add_document(&[0, 1 + i % 10, 100 + i]); // nidf 0, 0.5, 1
    /// }
    /// let lex = near_dup::imatch::Lexicon::builder().build(&stats)?;
    /// assert_eq!(lex.primary(), &[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    /// assert_eq!(lex.secondary().len(), 100);
    /// assert!(near_dup::imatch::Lexicon::builder().nidf_window(0.9, 0.1).build(&stats).is_err());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn build(&self, stats: &DocumentFrequencies) -> Result<Lexicon, Error> {
        let (min, max) = self.window;
        check_window(min, max)?;
        let n = stats.num_docs();
        if n < 2 {
            return Err(Error::invalid_input(format!(
                "collection statistics of {n} documents: normalized IDF needs at least 2"
            )));
        }
        let mut primary = Vec::new();
        let mut secondary: Vec<(u64, u64)> = Vec::new(); // (df, term)
        for (term, _) in stats.iter() {
            let nidf = stats.nidf(term);
            if nidf < min {
                continue;
            }
            if nidf <= max {
                primary.push(term);
            } else {
                secondary.push((stats.df(term), term));
            }
        }
        if primary.is_empty() {
            return Err(Error::invalid_input(format!(
                "no term of the {} counted has a normalized IDF in [{min}, {max}]",
                stats.len()
            )));
        }
        primary.sort_unstable();
        // Increasing IDF = decreasing df; ties by term.
        secondary.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        secondary.truncate(self.secondary_cap);
        Ok(Lexicon {
            scheme: stats.scheme(),
            num_docs: n,
            window: (min, max),
            primary: primary.into_boxed_slice(),
            secondary: secondary.into_iter().map(|(_, t)| t).collect(),
        })
    }
}

impl Lexicon {
    /// A builder with the defaults ([`WEB_NIDF_WINDOW`], [`DEFAULT_SECONDARY_CAP`]).
    ///
    /// # Example
    ///
    /// ```
    /// let b = near_dup::imatch::Lexicon::builder();
    /// assert_eq!(b.window(), (0.2, 0.8));
    /// ```
    pub fn builder() -> LexiconBuilder {
        LexiconBuilder::default()
    }

    /// A lexicon from explicit term lists (terms chosen by another rule, or read from
    /// elsewhere): `primary` in any order, `secondary` by rank (best first). The window
    /// is recorded as given for reference and `num_docs` as 0.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidInput`] when `primary` is empty, either list repeats a term, or
    /// a term is in both.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::SchemeId;
    /// let s = SchemeId::new("my-terms").finish();
    /// let lex = near_dup::imatch::Lexicon::from_terms(s, vec![30, 10, 20], vec![99, 98])?;
    /// assert_eq!(lex.primary(), &[10, 20, 30]);
    /// assert_eq!(lex.secondary_rank(98), Some(1));
    /// assert!(near_dup::imatch::Lexicon::from_terms(s, vec![1], vec![1]).is_err());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn from_terms(
        scheme: SchemeId,
        mut primary: Vec<u64>,
        secondary: Vec<u64>,
    ) -> Result<Lexicon, Error> {
        primary.sort_unstable();
        let lex = Lexicon {
            scheme,
            num_docs: 0,
            window: (0.0, 1.0),
            primary: primary.into_boxed_slice(),
            secondary: secondary.into_boxed_slice(),
        };
        lex.validate().map_err(|e| match e {
            Error::CorruptData { reason } => Error::invalid_input(reason),
            other => other,
        })?;
        Ok(lex)
    }

    fn validate(&self) -> Result<(), Error> {
        if self.primary.is_empty() {
            return Err(Error::corrupt_data("the primary lexicon is empty"));
        }
        if self.primary.windows(2).any(|w| w[0] >= w[1]) {
            return Err(Error::corrupt_data("the primary lexicon repeats a term"));
        }
        let mut seen = AHashSet::with_capacity(self.secondary.len());
        for &t in self.secondary.iter() {
            if !seen.insert(t) || self.primary.binary_search(&t).is_ok() {
                return Err(Error::corrupt_data(
                    "a secondary term is repeated or also in the primary lexicon",
                ));
            }
        }
        Ok(())
    }

    /// The scheme of the feature extractor whose terms these are.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::SchemeId;
    /// let s = SchemeId::new("t").finish();
    /// assert_eq!(near_dup::imatch::Lexicon::from_terms(s, vec![1], vec![])?.scheme(), s);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn scheme(&self) -> SchemeId {
        self.scheme
    }

    /// `N`, the number of documents of the statistics the lexicon was cut from (0 for
    /// [`from_terms`](Self::from_terms)).
    ///
    /// # Example
    ///
    /// ```
    /// let lex = near_dup::imatch::Lexicon::from_terms(near_dup::SchemeId::new("t").finish(), vec![1], vec![])?;
    /// assert_eq!(lex.num_docs(), 0);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn num_docs(&self) -> u64 {
        self.num_docs
    }

    /// The normalized-IDF window `[min, max]` of the primary lexicon.
    ///
    /// # Example
    ///
    /// ```
    /// let lex = near_dup::imatch::Lexicon::from_terms(near_dup::SchemeId::new("t").finish(), vec![1], vec![])?;
    /// assert_eq!(lex.window(), (0.0, 1.0));
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn window(&self) -> (f64, f64) {
        self.window
    }

    /// The primary lexicon `L`, sorted ascending.
    ///
    /// # Example
    ///
    /// ```
    /// let lex = near_dup::imatch::Lexicon::from_terms(near_dup::SchemeId::new("t").finish(), vec![2, 1], vec![])?;
    /// assert_eq!(lex.primary(), &[1, 2]);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn primary(&self) -> &[u64] {
        &self.primary
    }

    /// The secondary lexicon `B`, by rank: increasing IDF, best first.
    ///
    /// # Example
    ///
    /// ```
    /// let lex = near_dup::imatch::Lexicon::from_terms(near_dup::SchemeId::new("t").finish(), vec![1], vec![7, 5])?;
    /// assert_eq!(lex.secondary(), &[7, 5]);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn secondary(&self) -> &[u64] {
        &self.secondary
    }

    /// `|L|`, the number of primary terms.
    ///
    /// # Example
    ///
    /// ```
    /// let lex = near_dup::imatch::Lexicon::from_terms(near_dup::SchemeId::new("t").finish(), vec![1, 2], vec![3])?;
    /// assert_eq!(lex.len(), 2);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn len(&self) -> usize {
        self.primary.len()
    }

    /// Always `false`: a lexicon has at least one primary term.
    ///
    /// # Example
    ///
    /// ```
    /// let lex = near_dup::imatch::Lexicon::from_terms(near_dup::SchemeId::new("t").finish(), vec![1], vec![])?;
    /// assert!(!lex.is_empty());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.primary.is_empty()
    }

    /// Whether `term` is in the primary lexicon (binary search).
    ///
    /// # Example
    ///
    /// ```
    /// let lex = near_dup::imatch::Lexicon::from_terms(near_dup::SchemeId::new("t").finish(), vec![4], vec![5])?;
    /// assert!(lex.contains(4) && !lex.contains(5));
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn contains(&self, term: u64) -> bool {
        self.primary.binary_search(&term).is_ok()
    }

    /// The rank of `term` in the secondary lexicon (0 = first choice), if it is there
    /// (linear scan; signers keep their own table).
    ///
    /// # Example
    ///
    /// ```
    /// let lex = near_dup::imatch::Lexicon::from_terms(near_dup::SchemeId::new("t").finish(), vec![4], vec![9, 5])?;
    /// assert_eq!((lex.secondary_rank(5), lex.secondary_rank(4)), (Some(1), None));
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn secondary_rank(&self, term: u64) -> Option<usize> {
        self.secondary.iter().position(|&t| t == term)
    }

    /// A stable 64-bit fingerprint of the lexicon's contents (scheme, window and both
    /// term lists), folded into the scheme of every signature built with it.
    ///
    /// # Example
    ///
    /// ```
    /// let s = near_dup::SchemeId::new("t").finish();
    /// let a = near_dup::imatch::Lexicon::from_terms(s, vec![1, 2], vec![])?;
    /// let b = near_dup::imatch::Lexicon::from_terms(s, vec![1, 3], vec![])?;
    /// assert_ne!(a.fingerprint(), b.fingerprint());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn fingerprint(&self) -> u64 {
        let bytes = self.to_bytes();
        // The body without the trailing checksum.
        stable_hash64(&bytes[..bytes.len() - 8], 0x1A7C_4E11)
    }

    /// Bytes of memory the term lists take here (8 per term); a signer's lookup table
    /// is reported by [`IMatcher::memory`](crate::IMatcher::memory).
    ///
    /// # Example
    ///
    /// ```
    /// let lex = near_dup::imatch::Lexicon::from_terms(near_dup::SchemeId::new("t").finish(), vec![1, 2], vec![3])?;
    /// assert_eq!(lex.memory_bytes(), 24);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn memory_bytes(&self) -> usize {
        (self.primary.len() + self.secondary.len()) * 8
    }

    /// The versioned byte form (see [`ndd_core::codec`]): scheme, `N`, the window,
    /// `L` (sorted) and `B` (by rank), 8 bytes per term plus 62.
    ///
    /// # Example
    ///
    /// ```
    /// let lex = near_dup::imatch::Lexicon::from_terms(near_dup::SchemeId::new("t").finish(), vec![1, 2], vec![3])?;
    /// assert_eq!(lex.to_bytes().len(), 62 + 3 * 8);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = ByteWriter::new(MAGIC, VERSION);
        w.u64(self.scheme.as_u64());
        w.u64(self.num_docs);
        w.f64(self.window.0);
        w.f64(self.window.1);
        w.u64_slice(&self.primary);
        w.u64_slice(&self.secondary);
        w.finish()
    }

    /// Reads a lexicon written by [`to_bytes`](Self::to_bytes).
    ///
    /// # Errors
    ///
    /// [`Error::CorruptData`] for truncated, altered or foreign bytes, and for contents
    /// no builder could produce (an invalid window, an empty, unsorted or repeating
    /// primary lexicon, a secondary term repeated or also primary).
    ///
    /// # Example
    ///
    /// ```
    /// let lex = near_dup::imatch::Lexicon::from_terms(near_dup::SchemeId::new("t").finish(), vec![1], vec![])?;
    /// let mut bytes = lex.to_bytes();
    /// assert_eq!(near_dup::imatch::Lexicon::from_bytes(&bytes)?, lex);
    /// bytes[10] ^= 1;
    /// assert!(near_dup::imatch::Lexicon::from_bytes(&bytes).is_err());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn from_bytes(bytes: &[u8]) -> Result<Lexicon, Error> {
        let (mut r, _) = ByteReader::new(bytes, MAGIC, VERSION)?;
        let scheme = SchemeId::from_u64(r.u64()?);
        let num_docs = r.u64()?;
        let min = r.f64()?;
        let max = r.f64()?;
        let primary = r.u64_vec()?;
        let secondary = r.u64_vec()?;
        r.finish()?;
        check_window(min, max).map_err(|e| Error::corrupt_data(e.to_string()))?;
        let lex = Lexicon {
            scheme,
            num_docs,
            window: (min, max),
            primary: primary.into_boxed_slice(),
            secondary: secondary.into_boxed_slice(),
        };
        lex.validate()?;
        Ok(lex)
    }

    /// Reads a lexicon saved with [`to_bytes`](Self::to_bytes) from the file at
    /// `path`. A file of more than 1 GiB is refused unread: far above any real lexicon
    /// (a 2-million-word lexicon is about 40 MB), so that a wrong path does not read a
    /// disk image.
    ///
    /// # Errors
    ///
    /// [`FileError`] naming `path`: the file cannot be read, is a device or is too
    /// large, or its bytes are refused as by [`from_bytes`](Self::from_bytes)
    /// ([`FileError::Decode`]).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::imatch::Lexicon;
    /// let lex = Lexicon::from_terms(near_dup::SchemeId::new("t").finish(), vec![1, 2], vec![])?;
    /// let path = std::env::temp_dir().join(format!("ndd-lexicon-{}", std::process::id()));
    /// std::fs::write(&path, lex.to_bytes())?;
    /// assert_eq!(Lexicon::load(&path)?, lex);
    /// std::fs::write(&path, b"not a lexicon")?;
    /// assert!(Lexicon::load(&path).is_err());
    /// std::fs::remove_file(&path)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn load(path: &Path) -> Result<Lexicon, FileError> {
        load_bounded(path, MAX_FILE_BYTES, Some(&MAGIC), Self::from_bytes)
    }
}
