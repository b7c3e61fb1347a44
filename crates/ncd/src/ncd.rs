//! NCD (equation 2) and SigNCD (equation 4) of X. Zhang, Y. Yao, Y. Ji, B. Fang,
//! "Effective and Fast Near Duplicate Detection via Signature-Based Compression
//! Metrics", Hindawi research article, 2016, sections 2.1 and 4.1.
//!
//! ```text
//! NCD(x, y)    = (C(xy) − min{C(x), C(y)}) / max{C(x), C(y)}
//! SigNCD(x, y) = NCD(sig(x), sig(y))
//! ```
//!
//! `sig(x)` is the punctuation-spot signature of [`ndd_shingle::spots`]: the words
//! before each comma (Sig-1L) joined by spaces, or, when the document has fewer than
//! three commas, all its words (the fallback of section 4.1, step 2).
//!
//! # Example
//!
//! ```
//! use near_dup::ncd::SigNcd;
//! let s = SigNcd::new();
//! let a = "Permission is hereby granted, free of charge, to any person obtaining a copy, \
//!          to deal in the Software without restriction, including without limitation.";
//! let b = "Permission is hereby granted, free of charge, to any person obtaining a copy, \
//!          to deal in the Software without restriction, including with no limitation.";
//! let c = "The quick brown fox, the lazy dog, a tall tree, and a small house stand here.";
//! assert!(s.distance(a, b)? < s.distance(a, c)?);
//! # Ok::<(), near_dup::Error>(())
//! ```

use ndd_core::Error;
use ndd_shingle::spots::{PunctSpotExtractor, PunctSpotVariant, SpotOutcome};

use crate::compress::{Compressor, CompressorKind};

/// NCD from the three compressed lengths (equation 2): `(C(xy) − min) / max`.
///
/// Both inputs empty (`max = 0`) gives 0. The value is not clamped: a real compressor
/// can give slightly less than 0 or more than 1.
///
/// # Example
///
/// ```
/// use near_dup::ncd::ncd_from_lengths;
/// assert_eq!(ncd_from_lengths(10, 20, 25), 0.75);
/// assert_eq!(ncd_from_lengths(20, 10, 25), 0.75);
/// assert_eq!(ncd_from_lengths(0, 0, 0), 0.0);
/// ```
#[must_use]
pub fn ncd_from_lengths(cx: usize, cy: usize, cxy: usize) -> f64 {
    let (lo, hi) = if cx <= cy { (cx, cy) } else { (cy, cx) };
    if hi == 0 {
        return 0.0;
    }
    (cxy as f64 - lo as f64) / hi as f64
}

/// NCD with the compressor's monotonicity enforced: `C(xy)` is taken as at least
/// `max{C(x), C(y)}` (Definition 1 (ii) of the paper) before equation 2.
///
/// Equal to [`ncd_from_lengths`] whenever the compressor is monotone on the pair, which
/// an ideal ("normal") compressor always is. Real ones are not quite: Snappy's skip
/// heuristic can compress `y` better after a similar `x` than alone, so `C(xy) < C(y)`
/// and plain NCD drops below the lower bound `1 − C(x)/C(y)` of Lemma 3, or below 0.
/// Then P1 would prune a pair that plain NCD puts under τ. With this form the lemma
/// holds for every compressor, so the P1 search is exactly the brute force. Like
/// plain NCD it can exceed 1 for real compressors (values up to about 1.3 are seen on
/// short signatures). [`SigNcd::distance`], [`Corpus::distance`] and the search use it.
///
/// # Example
///
/// ```
/// use near_dup::ncd::{monotone_ncd_from_lengths, ncd_from_lengths};
/// assert_eq!(monotone_ncd_from_lengths(10, 20, 25), ncd_from_lengths(10, 20, 25));
/// // C(xy) = 15 < C(y) = 20: plain NCD 0.25 is below the bound 1 − 10/20.
/// assert_eq!(ncd_from_lengths(10, 20, 15), 0.25);
/// assert_eq!(monotone_ncd_from_lengths(10, 20, 15), 0.5);
/// ```
#[must_use]
pub fn monotone_ncd_from_lengths(cx: usize, cy: usize, cxy: usize) -> f64 {
    ncd_from_lengths(cx, cy, cxy.max(cx).max(cy))
}

/// Computes NCD with a compressor and a reused concatenation buffer: after warm-up,
/// nothing is allocated per pair (except inside [`crate::Lz4`]).
///
/// # Example
///
/// ```
/// use near_dup::ncd::{Ncd, Snappy};
/// let mut ncd = Ncd::new(Snappy::new());
/// let x = b"the quick brown fox jumps over the lazy dog, again and again and again";
/// assert!(ncd.distance(x, x)? < 0.2);
/// assert!(ncd.distance(x, b"lorem ipsum dolor sit amet, consectetur adipiscing elit")? > 0.5);
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Debug)]
pub struct Ncd<C = Box<dyn Compressor>> {
    compressor: C,
    concat: Vec<u8>,
}

impl<C: Compressor> Ncd<C> {
    /// NCD over `compressor`.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::ncd::{Compressor, Lz4, Ncd};
    /// let mut n = Ncd::new(Lz4::new());
    /// assert_eq!(n.compressor().name(), "lz4");
    /// ```
    pub fn new(compressor: C) -> Self {
        Ncd {
            compressor,
            concat: Vec::new(),
        }
    }

    /// The compressor.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::ncd::{Compressor, Ncd, Snappy};
    /// let mut n = Ncd::new(Snappy::new());
    /// assert_eq!(n.compressor().compressed_len(b"")?, 1);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn compressor(&mut self) -> &mut C {
        &mut self.compressor
    }

    /// `C(x)`.
    ///
    /// # Errors
    ///
    /// As [`Compressor::compressed_len`].
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::ncd::{Ncd, Snappy};
    /// assert_eq!(Ncd::new(Snappy::new()).compressed_len(b"abc")?, 5);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn compressed_len(&mut self, x: &[u8]) -> Result<usize, Error> {
        self.compressor.compressed_len(x)
    }

    /// `C(xy)`, the compressed length of the concatenation (copied into the reused
    /// buffer).
    ///
    /// # Errors
    ///
    /// As [`Compressor::compressed_len`].
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::ncd::{Ncd, Snappy};
    /// let mut n = Ncd::new(Snappy::new());
    /// assert_eq!(n.concat_len(b"ab", b"c")?, n.compressed_len(b"abc")?);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn concat_len(&mut self, x: &[u8], y: &[u8]) -> Result<usize, Error> {
        self.concat.clear();
        self.concat.extend_from_slice(x);
        self.concat.extend_from_slice(y);
        self.compressor.compressed_len(&self.concat)
    }

    /// `NCD(x, y)` (equation 2), with `x` first in the concatenation. Compresses three
    /// times; use [`distance_with`](Self::distance_with) when `C(x)` and `C(y)` are
    /// known.
    ///
    /// # Errors
    ///
    /// As [`Compressor::compressed_len`].
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::ncd::{Ncd, Snappy};
    /// let mut n = Ncd::new(Snappy::new());
    /// let d = n.distance(b"hello world, hello world", b"goodbye moon, goodbye moon")?;
    /// assert!(d > 0.3 && d < 1.2);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn distance(&mut self, x: &[u8], y: &[u8]) -> Result<f64, Error> {
        let cx = self.compressed_len(x)?;
        let cy = self.compressed_len(y)?;
        self.distance_with(x, cx, y, cy)
    }

    /// `NCD(x, y)` with the cached `cx = C(x)` and `cy = C(y)`: one compression (of
    /// `xy`).
    ///
    /// # Errors
    ///
    /// As [`Compressor::compressed_len`].
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::ncd::{Ncd, Snappy};
    /// let mut n = Ncd::new(Snappy::new());
    /// let (x, y) = (b"one, two, three".as_slice(), b"one, two, four".as_slice());
    /// let (cx, cy) = (n.compressed_len(x)?, n.compressed_len(y)?);
    /// assert_eq!(n.distance_with(x, cx, y, cy)?, n.distance(x, y)?);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn distance_with(
        &mut self,
        x: &[u8],
        cx: usize,
        y: &[u8],
        cy: usize,
    ) -> Result<f64, Error> {
        let cxy = self.concat_len(x, y)?;
        Ok(ncd_from_lengths(cx, cy, cxy))
    }

    /// [`distance_with`](Self::distance_with) with monotonicity enforced (see
    /// [`monotone_ncd_from_lengths`]).
    ///
    /// # Errors
    ///
    /// As [`Compressor::compressed_len`].
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::ncd::{Ncd, Snappy};
    /// let mut n = Ncd::new(Snappy::new());
    /// let (x, y) = (b"a".as_slice(), b"abcabcabcabc, abcabcabc".as_slice());
    /// let (cx, cy) = (n.compressed_len(x)?, n.compressed_len(y)?);
    /// let d = n.monotone_distance_with(x, cx, y, cy)?;
    /// assert!(d >= 1.0 - cx as f64 / cy as f64);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn monotone_distance_with(
        &mut self,
        x: &[u8],
        cx: usize,
        y: &[u8],
        cy: usize,
    ) -> Result<f64, Error> {
        let cxy = self.concat_len(x, y)?;
        Ok(monotone_ncd_from_lengths(cx, cy, cxy))
    }
}

/// A set of byte strings with their compressed lengths `C(x)` computed once, and the
/// compressor that measured them (the all-pairs search clones it per thread). Build
/// it from documents with [`SigNcd::corpus`] or from any strings with
/// [`Corpus::push`].
///
/// # Example
///
/// ```
/// use near_dup::ncd::{Corpus, CompressorKind};
/// let mut c = Corpus::new(CompressorKind::Snappy.build()?);
/// c.push(b"alpha beta gamma")?;
/// c.push(b"alpha beta delta")?;
/// assert_eq!(c.len(), 2);
/// assert_eq!(c.get(1), b"alpha beta delta");
/// assert!(c.distance(0, 1)? < 1.0);
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Debug)]
pub struct Corpus {
    compressor: Box<dyn Compressor>,
    data: Vec<u8>,
    /// `offsets[i]..offsets[i + 1]` is item `i`.
    offsets: Vec<usize>,
    lens: Vec<usize>,
    fallback: Vec<bool>,
}

impl Corpus {
    /// An empty corpus measured with `compressor`.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::ncd::{Corpus, Lz4};
    /// let c = Corpus::new(Box::new(Lz4::new()));
    /// assert!(c.is_empty());
    /// assert_eq!(c.compressor_name(), "lz4");
    /// ```
    #[must_use]
    pub fn new(compressor: Box<dyn Compressor>) -> Self {
        Corpus {
            compressor,
            data: Vec::new(),
            offsets: vec![0],
            lens: Vec::new(),
            fallback: Vec::new(),
        }
    }

    /// Appends `item`, computing its compressed length; returns its index.
    ///
    /// # Errors
    ///
    /// As [`Compressor::compressed_len`].
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::ncd::{Corpus, Snappy};
    /// let mut c = Corpus::new(Box::new(Snappy::new()));
    /// assert_eq!(c.push(b"abc")?, 0);
    /// assert_eq!(c.compressed_len(0), 5);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn push(&mut self, item: &[u8]) -> Result<usize, Error> {
        let len = self.compressor.compressed_len(item)?;
        self.push_measured(item, len, false);
        Ok(self.lens.len() - 1)
    }

    fn push_measured(&mut self, item: &[u8], len: usize, fallback: bool) {
        self.data.extend_from_slice(item);
        self.offsets.push(self.data.len());
        self.lens.push(len);
        self.fallback.push(fallback);
    }

    /// The number of items.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::ncd::{Corpus, Snappy};
    /// assert_eq!(Corpus::new(Box::new(Snappy::new())).len(), 0);
    /// ```
    #[must_use]
    pub fn len(&self) -> usize {
        self.lens.len()
    }

    /// Whether there are no items.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::ncd::{Corpus, Snappy};
    /// assert!(Corpus::new(Box::new(Snappy::new())).is_empty());
    /// ```
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.lens.is_empty()
    }

    /// Item `i` (the signature string for a [`SigNcd`] corpus).
    ///
    /// # Panics
    ///
    /// When `i >= len()`.
    ///
    /// # Example
    ///
    /// ```
    /// let c = near_dup::ncd::SigNcd::new().corpus(&["Red apples, green pears, ripe plums, and figs."])?;
    /// assert_eq!(c.get(0), b"apples pears plums");
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn get(&self, i: usize) -> &[u8] {
        &self.data[self.offsets[i]..self.offsets[i + 1]]
    }

    /// `C(item i)`, computed once when it was added.
    ///
    /// # Panics
    ///
    /// When `i >= len()`.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::ncd::{Corpus, Snappy};
    /// let mut c = Corpus::new(Box::new(Snappy::new()));
    /// c.push(b"")?;
    /// assert_eq!(c.compressed_len(0), 1);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn compressed_len(&self, i: usize) -> usize {
        self.lens[i]
    }

    /// All compressed lengths, in item order.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::ncd::{Corpus, Snappy};
    /// let mut c = Corpus::new(Box::new(Snappy::new()));
    /// c.push(b"abc")?;
    /// assert_eq!(c.compressed_lens(), &[5]);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn compressed_lens(&self) -> &[usize] {
        &self.lens
    }

    /// Whether item `i` is a document's full text because it had too few spots
    /// (always false for items added with [`push`](Self::push)).
    ///
    /// # Panics
    ///
    /// When `i >= len()`.
    ///
    /// # Example
    ///
    /// ```
    /// let c = near_dup::ncd::SigNcd::new().corpus(&["Just one, comma here.", "a, b, c, d"])?;
    /// assert!(c.is_fallback(0));
    /// assert!(!c.is_fallback(1));
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn is_fallback(&self, i: usize) -> bool {
        self.fallback[i]
    }

    /// The number of fallback items.
    ///
    /// # Example
    ///
    /// ```
    /// let c = near_dup::ncd::SigNcd::new().corpus(&["no commas", "a, b, c, d", "x, y"])?;
    /// assert_eq!(c.fallback_count(), 2);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn fallback_count(&self) -> usize {
        self.fallback.iter().filter(|f| **f).count()
    }

    /// Total bytes of the items.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::ncd::{Corpus, Snappy};
    /// let mut c = Corpus::new(Box::new(Snappy::new()));
    /// c.push(b"abc")?;
    /// c.push(b"de")?;
    /// assert_eq!(c.total_bytes(), 5);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn total_bytes(&self) -> usize {
        self.data.len()
    }

    /// The compressor's name.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::ncd::SigNcd::new().corpus(&["a"])?.compressor_name(), "snappy");
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn compressor_name(&self) -> String {
        self.compressor.name()
    }

    /// A fresh copy of the compressor (for a worker thread).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::ncd::Compressor;
    /// let c = near_dup::ncd::SigNcd::new().corpus(&["a"])?;
    /// assert_eq!(c.new_compressor().name(), "snappy");
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn new_compressor(&self) -> Box<dyn Compressor> {
        self.compressor.box_clone()
    }

    /// `NCD(item i, item j)` with the cached lengths, monotonicity enforced
    /// ([`monotone_ncd_from_lengths`]), the lower index first in the concatenation:
    /// exactly the distance the search computes. Allocates a compressor; in loops use
    /// [`distance_using`](Self::distance_using).
    ///
    /// # Errors
    ///
    /// As [`Compressor::compressed_len`].
    ///
    /// # Panics
    ///
    /// When `i` or `j` is out of range.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::ncd::{Corpus, Snappy};
    /// let mut c = Corpus::new(Box::new(Snappy::new()));
    /// c.push(b"same words, same words")?;
    /// c.push(b"same words, same words")?;
    /// assert_eq!(c.distance(0, 1)?, c.distance(1, 0)?);
    /// assert!(c.distance(0, 1)? < 0.3);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn distance(&self, i: usize, j: usize) -> Result<f64, Error> {
        let mut ncd = Ncd::new(self.new_compressor());
        self.distance_using(&mut ncd, i, j)
    }

    /// [`distance`](Self::distance) with the caller's [`Ncd`] (no allocation once
    /// warm).
    ///
    /// # Errors
    ///
    /// As [`Compressor::compressed_len`].
    ///
    /// # Panics
    ///
    /// When `i` or `j` is out of range.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::ncd::Ncd;
    /// let c = near_dup::ncd::SigNcd::new().corpus(&["a, b, c, d", "a, b, c, e"])?;
    /// let mut ncd = Ncd::new(c.new_compressor());
    /// assert_eq!(c.distance_using(&mut ncd, 0, 1)?, c.distance(0, 1)?);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn distance_using<C: Compressor>(
        &self,
        ncd: &mut Ncd<C>,
        i: usize,
        j: usize,
    ) -> Result<f64, Error> {
        let (a, b) = if i <= j { (i, j) } else { (j, i) };
        ncd.monotone_distance_with(self.get(a), self.lens[a], self.get(b), self.lens[b])
    }
}

/// SigNCD: NCD of punctuation-spot signatures (equation 4), with the full-text
/// fallback for documents with fewer than three spots. Defaults are the paper's:
/// Sig-1L (the word before each comma), comma spots, Snappy.
///
/// # Example
///
/// ```
/// use near_dup::ncd::{CompressorKind, SigNcd};
/// use near_dup::shingle::spots::PunctSpotVariant;
/// let s = SigNcd::builder()
///     .variant(PunctSpotVariant::Sig2)
///     .compressor(CompressorKind::Lz4)
///     .build()?;
/// assert_eq!(s.signature("a b, c d, e f, g").0, "b c d e f g");
/// assert_eq!(s.compressor(), CompressorKind::Lz4);
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SigNcd {
    extractor: PunctSpotExtractor,
    compressor: CompressorKind,
}

impl Default for SigNcd {
    fn default() -> Self {
        SigNcd {
            extractor: PunctSpotExtractor::new(),
            compressor: CompressorKind::Snappy,
        }
    }
}

impl SigNcd {
    /// The paper's defaults: Sig-1L, comma spots, fallback below 3 spots, Snappy.
    ///
    /// # Example
    ///
    /// ```
    /// let s = near_dup::ncd::SigNcd::new();
    /// assert_eq!(s.extractor().min_spots(), 3);
    /// assert_eq!(s.extractor().punctuation(), &[',']);
    /// ```
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// A builder with the defaults.
    ///
    /// # Example
    ///
    /// ```
    /// let s = near_dup::ncd::SigNcd::builder().punctuation([',', '.']).build()?;
    /// assert_eq!(s.extractor().punctuation(), &[',', '.']);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn builder() -> SigNcdBuilder {
        SigNcdBuilder::default()
    }

    /// The signature extractor.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::ncd::SigNcd::new().extractor().words_before(), 1);
    /// ```
    #[must_use]
    pub fn extractor(&self) -> &PunctSpotExtractor {
        &self.extractor
    }

    /// The compressor kind.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::ncd::SigNcd::new().compressor(), near_dup::ncd::CompressorKind::Snappy);
    /// ```
    #[must_use]
    pub fn compressor(&self) -> CompressorKind {
        self.compressor
    }

    /// The signature string of `doc` (see [`PunctSpotExtractor::signature`]).
    ///
    /// # Example
    ///
    /// ```
    /// let (sig, outcome) = near_dup::ncd::SigNcd::new().signature("Oh, well, fine, OK.");
    /// assert_eq!(sig, "oh well fine");
    /// assert!(!outcome.fallback);
    /// ```
    #[must_use]
    pub fn signature(&self, doc: &str) -> (String, SpotOutcome) {
        self.extractor.signature(doc)
    }

    /// `SigNCD(a, b)` (equation 4), `sig(a)` first in the concatenation, with the
    /// compressor's monotonicity enforced ([`monotone_ncd_from_lengths`]): the distance
    /// [`Corpus::distance`] and the search use, so a pair this returns at most `τ` is a
    /// pair the exact search reports. Equal to plain equation 4 except on the rare pairs
    /// where the compressor does better on `sig(a)sig(b)` than on the larger signature
    /// alone; [`Ncd::distance`] gives plain equation 2. Allocates the signatures and a
    /// compressor; for many documents build a [`Corpus`].
    ///
    /// # Errors
    ///
    /// As [`Compressor::compressed_len`].
    ///
    /// # Example
    ///
    /// ```
    /// let s = near_dup::ncd::SigNcd::new();
    /// let doc = "one, two, three, four, five, six, seven, eight";
    /// assert!(s.distance(doc, doc)? < 0.3);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn distance(&self, a: &str, b: &str) -> Result<f64, Error> {
        let mut ncd = Ncd::new(self.compressor.build()?);
        let (sa, _) = self.signature(a);
        let (sb, _) = self.signature(b);
        let (ca, cb) = (
            ncd.compressed_len(sa.as_bytes())?,
            ncd.compressed_len(sb.as_bytes())?,
        );
        ncd.monotone_distance_with(sa.as_bytes(), ca, sb.as_bytes(), cb)
    }

    /// The signatures of `docs` with their compressed lengths, ready for
    /// [`crate::SearchConfig::search`]. Item `i` is document `i`. The signature
    /// string is reused across documents.
    ///
    /// # Errors
    ///
    /// As [`Compressor::compressed_len`] and [`CompressorKind::build`].
    ///
    /// # Example
    ///
    /// ```
    /// let c = near_dup::ncd::SigNcd::new().corpus(&["a, b, c, d", "no spots here"])?;
    /// assert_eq!(c.len(), 2);
    /// assert_eq!((c.get(0), c.get(1)), (b"a b c".as_slice(), b"no spots here".as_slice()));
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn corpus<D: AsRef<str>>(&self, docs: &[D]) -> Result<Corpus, Error> {
        let mut corpus = Corpus::new(self.compressor.build()?);
        let mut compressor = corpus.new_compressor();
        let mut sig = String::new();
        for d in docs {
            let outcome = self.extractor.signature_into(d.as_ref(), &mut sig);
            let len = compressor.compressed_len(sig.as_bytes())?;
            corpus.push_measured(sig.as_bytes(), len, outcome.fallback);
        }
        Ok(corpus)
    }

    /// [`corpus`](Self::corpus) on all cores (feature `rayon`); the same result.
    ///
    /// # Errors
    ///
    /// As [`corpus`](Self::corpus).
    ///
    /// # Example
    ///
    /// ```
    /// let s = near_dup::ncd::SigNcd::new();
    /// let docs = ["a, b, c, d"; 10];
    /// assert_eq!(s.par_corpus(&docs)?.compressed_lens(), s.corpus(&docs)?.compressed_lens());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[cfg(feature = "rayon")]
    pub fn par_corpus<D: AsRef<str> + Sync>(&self, docs: &[D]) -> Result<Corpus, Error> {
        use rayon::prelude::*;
        let proto = self.compressor.build()?;
        let parts: Vec<(String, usize, bool)> = docs
            .par_iter()
            .map_init(
                || proto.box_clone(),
                |c, d| {
                    let (sig, outcome) = self.extractor.signature(d.as_ref());
                    let len = c.compressed_len(sig.as_bytes())?;
                    Ok((sig, len, outcome.fallback))
                },
            )
            .collect::<Result<_, Error>>()?;
        let mut corpus = Corpus::new(proto);
        for (sig, len, fallback) in parts {
            corpus.push_measured(sig.as_bytes(), len, fallback);
        }
        Ok(corpus)
    }
}

/// Builds a [`SigNcd`].
///
/// # Example
///
/// ```
/// use near_dup::ncd::SigNcdBuilder;
/// let s = SigNcdBuilder::default().min_spots(5).build()?;
/// assert!(s.signature("a, b, c, d").1.fallback);
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Debug, Clone)]
#[must_use]
pub struct SigNcdBuilder {
    spots: ndd_shingle::spots::PunctSpotBuilder,
    extractor: Option<PunctSpotExtractor>,
    compressor: CompressorKind,
}

impl Default for SigNcdBuilder {
    fn default() -> Self {
        SigNcdBuilder {
            spots: PunctSpotExtractor::builder(),
            extractor: None,
            compressor: CompressorKind::Snappy,
        }
    }
}

impl SigNcdBuilder {
    /// The signature variant (default Sig-1L).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::shingle::spots::PunctSpotVariant;
    /// let s = near_dup::ncd::SigNcd::builder().variant(PunctSpotVariant::Sig1R).build()?;
    /// assert_eq!(s.signature("a, b, c, d").0, "b c d");
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn variant(mut self, variant: PunctSpotVariant) -> Self {
        self.spots = self.spots.variant(variant);
        self
    }

    /// The spot characters (default: the comma).
    ///
    /// # Example
    ///
    /// ```
    /// let s = near_dup::ncd::SigNcd::builder().punctuation([';']).build()?;
    /// assert_eq!(s.signature("a; b; c; d").0, "a b c");
    /// assert!(near_dup::ncd::SigNcd::builder().punctuation(['x']).build().is_err());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn punctuation<I: IntoIterator<Item = char>>(mut self, chars: I) -> Self {
        self.spots = self.spots.punctuation(chars);
        self
    }

    /// Documents with fewer spots use their full text (default 3).
    ///
    /// # Example
    ///
    /// ```
    /// let s = near_dup::ncd::SigNcd::builder().min_spots(0).build()?;
    /// assert_eq!(s.signature("one two, three").0, "two");
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn min_spots(mut self, min: usize) -> Self {
        self.spots = self.spots.min_spots(min);
        self
    }

    /// A fully configured extractor (overrides the three setters above). Deprecated:
    /// the same as finishing with [`build_with`](Self::build_with)`(extractor)`, the
    /// words of every sketcher's builder.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::shingle::spots::PunctSpotExtractor;
    /// let e = PunctSpotExtractor::builder().fold_case(false).build()?;
    /// #[allow(deprecated)]
    /// let s = near_dup::ncd::SigNcd::builder().extractor(e).build()?;
    /// assert_eq!(s.signature("A, B, C, D").0, "A B C");
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[deprecated(since = "0.1.1", note = "use `build_with(extractor)`")]
    pub fn extractor(mut self, extractor: PunctSpotExtractor) -> Self {
        self.extractor = Some(extractor);
        self
    }

    /// The compressor (default Snappy).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::ncd::{CompressorKind, SigNcd};
    /// let s = SigNcd::builder().compressor("zlib-9".parse()?).build()?;
    /// assert_eq!(s.compressor().build()?.name(), "zlib-9");
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn compressor(mut self, kind: CompressorKind) -> Self {
        self.compressor = kind;
        self
    }

    /// Validates the parameters.
    ///
    /// # Errors
    ///
    /// [`ndd_core::ErrorKind::InvalidParameter`] for invalid spot parameters (see
    /// [`ndd_shingle::spots::PunctSpotBuilder::build`]) or a deflate level above 9.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::ncd::{CompressorKind, DeflateFormat, SigNcd};
    /// assert!(SigNcd::builder().compressor(CompressorKind::Deflate(DeflateFormat::Raw, 11)).build().is_err());
    /// ```
    pub fn build(self) -> Result<SigNcd, Error> {
        self.compressor.build()?;
        let extractor = match self.extractor {
            Some(e) => e,
            None => self.spots.build()?,
        };
        Ok(SigNcd {
            extractor,
            compressor: self.compressor,
        })
    }

    /// The SigNCD over signatures from `extractor`, a fully configured
    /// punctuation-spot extractor (the builder's `variant`, `punctuation` and
    /// `min_spots` are not used).
    ///
    /// # Errors
    ///
    /// [`ndd_core::ErrorKind::InvalidParameter`] for a deflate level above 9.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::shingle::spots::PunctSpotExtractor;
    /// let e = PunctSpotExtractor::builder().fold_case(false).build()?;
    /// let s = near_dup::ncd::SigNcd::builder().build_with(e)?;
    /// assert_eq!(s.signature("A, B, C, D").0, "A B C");
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn build_with(mut self, extractor: PunctSpotExtractor) -> Result<SigNcd, Error> {
        self.extractor = Some(extractor);
        self.build()
    }
}
