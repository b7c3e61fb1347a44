//! The traits every pipeline stage implements (see the crate docs for how they fit).

use crate::{Error, Estimate, SchemeId, Weighted};

/// A token: a slice of the input text with its byte offsets.
///
/// `text` is the original slice (`&input[start..end]`), before case folding; folding
/// happens when the token is hashed, so offsets always point into the caller's text.
///
/// # Example
///
/// ```
/// use near_dup::Token;
/// let input = "héllo world";
/// let t = Token { text: &input[7..12], start: 7, end: 12 };
/// assert_eq!(t.text, "world");
/// assert_eq!(&input[t.start..t.end], t.text);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Token<'a> {
    /// The token's text, a slice of the input.
    pub text: &'a str,
    /// Byte offset of the first byte in the input.
    pub start: usize,
    /// Byte offset one past the last byte in the input.
    pub end: usize,
}

/// Splits text into [`Token`]s with byte offsets, pushing each to a callback
/// (internal iteration: no `Vec` per document, and the tokenizer's state stays on the
/// stack).
///
/// Generic over the callback so the per-token call is inlined; use [`DynTokenizer`]
/// for runtime choice.
///
/// # Example
///
/// ```
/// use near_dup::{Token, Tokenizer};
/// /// Splits on ASCII spaces only.
/// struct Spaces;
/// impl Tokenizer for Spaces {
///     fn for_each_token<F: FnMut(Token<'_>)>(&self, text: &str, mut f: F) {
///         let mut start = 0;
///         for part in text.split(' ') {
///             if !part.is_empty() {
///                 f(Token { text: part, start, end: start + part.len() });
///             }
///             start += part.len() + 1;
///         }
///     }
/// }
/// let tokens: Vec<&str> = Spaces.tokens("a  bc d").iter().map(|t| t.text).collect();
/// assert_eq!(tokens, ["a", "bc", "d"]);
/// ```
pub trait Tokenizer {
    /// Calls `f` on every token of `text`, in order.
    fn for_each_token<F: FnMut(Token<'_>)>(&self, text: &str, f: F);

    /// All tokens of `text` (allocates; for tests and small inputs).
    fn tokens<'a>(&self, text: &'a str) -> Vec<Token<'a>> {
        let mut out = Vec::new();
        self.for_each_token(text, |t| {
            out.push(Token {
                text: &text[t.start..t.end],
                start: t.start,
                end: t.end,
            });
        });
        out
    }
}

impl<T: Tokenizer + ?Sized> Tokenizer for &T {
    #[inline]
    fn for_each_token<F: FnMut(Token<'_>)>(&self, text: &str, f: F) {
        (**self).for_each_token(text, f);
    }
}

/// Object-safe twin of [`Tokenizer`], blanket-implemented for every tokenizer: choose a
/// tokenizer at run time as `Box<dyn DynTokenizer>` (one virtual call per token).
///
/// # Example
///
/// ```
/// use near_dup::{DynTokenizer, Token, Tokenizer};
/// struct Chars;
/// impl Tokenizer for Chars {
///     fn for_each_token<F: FnMut(Token<'_>)>(&self, text: &str, mut f: F) {
///         for (i, c) in text.char_indices() {
///             f(Token { text: &text[i..i + c.len_utf8()], start: i, end: i + c.len_utf8() });
///         }
///     }
/// }
/// let boxed: Box<dyn DynTokenizer> = Box::new(Chars);
/// let mut n = 0;
/// boxed.for_each_token_dyn("abc", &mut |_| n += 1);
/// assert_eq!(n, 3);
/// ```
pub trait DynTokenizer {
    /// Calls `f` on every token of `text`, in order.
    fn for_each_token_dyn(&self, text: &str, f: &mut dyn FnMut(Token<'_>));
}

impl<T: Tokenizer> DynTokenizer for T {
    fn for_each_token_dyn(&self, text: &str, f: &mut dyn FnMut(Token<'_>)) {
        self.for_each_token(text, f);
    }
}

/// Receives the features of a document as they are produced (the push model: an
/// extractor never builds a `Vec` unless its sink is one).
///
/// Object-safe. Implemented for `Vec<u64>` (collects hashes), `Vec<Weighted>`
/// (collects weighted features; unweighted pushes get weight 1), closures through
/// [`FnSink`], and `&mut S`.
///
/// # Example
///
/// ```
/// use near_dup::{FeatureSink, Weighted};
/// let mut plain: Vec<u64> = Vec::new();
/// plain.push_weighted(2, 0.5); // unweighted sinks ignore the weight
/// let mut weighted: Vec<Weighted> = Vec::new();
/// weighted.push_weighted(2, 0.5);
/// FeatureSink::push(&mut weighted, 3);
/// assert_eq!(plain, vec![2]);
/// assert_eq!(weighted[0].weight, 0.5);
/// assert_eq!(weighted[1].weight, 1.0);
/// ```
pub trait FeatureSink {
    /// Receives one feature hash.
    fn push(&mut self, feature: u64);

    /// Receives one feature with a weight. Sinks that only count or sketch sets
    /// ignore the weight (the default forwards to [`push`](Self::push)).
    #[inline]
    fn push_weighted(&mut self, feature: u64, weight: f64) {
        let _ = weight;
        self.push(feature);
    }
}

impl<S: FeatureSink + ?Sized> FeatureSink for &mut S {
    #[inline]
    fn push(&mut self, feature: u64) {
        (**self).push(feature);
    }
    #[inline]
    fn push_weighted(&mut self, feature: u64, weight: f64) {
        (**self).push_weighted(feature, weight);
    }
}

impl FeatureSink for Vec<u64> {
    #[inline]
    fn push(&mut self, feature: u64) {
        Vec::push(self, feature);
    }
}

impl FeatureSink for Vec<Weighted> {
    #[inline]
    fn push(&mut self, feature: u64) {
        Vec::push(
            self,
            Weighted {
                feature,
                weight: 1.0,
            },
        );
    }
    #[inline]
    fn push_weighted(&mut self, feature: u64, weight: f64) {
        Vec::push(self, Weighted { feature, weight });
    }
}

/// Adapts a closure into a [`FeatureSink`] (unweighted pushes).
///
/// # Example
///
/// ```
/// use near_dup::{FeatureSink, FnSink};
/// let mut sum = 0u64;
/// let mut sink = FnSink(|f: u64| sum += f);
/// sink.push(2);
/// sink.push(3);
/// drop(sink);
/// assert_eq!(sum, 5);
/// ```
#[derive(Debug, Clone, Copy)]
pub struct FnSink<F>(pub F);

impl<F: FnMut(u64)> FeatureSink for FnSink<F> {
    #[inline]
    fn push(&mut self, feature: u64) {
        (self.0)(feature);
    }
}

/// Turns a document into 64-bit feature hashes (shingles, spot signatures, terms),
/// pushed into a [`FeatureSink`] as they are found.
///
/// Implementors: `ndd_shingle::WordShingler`, `CharShingler`, `SpotSigExtractor`,
/// `PunctSpotExtractor`. The features of a document form a multiset; sketches and
/// [`FeatureSet`](crate::FeatureSet) treat them as a set.
///
/// # Example
///
/// ```
/// use near_dup::{FeatureExtractor, FeatureSink, SchemeId, hash::stable_hash64};
/// /// One feature per whitespace-separated word.
/// struct Words;
/// impl FeatureExtractor for Words {
///     fn extract<S: FeatureSink + ?Sized>(&self, doc: &str, sink: &mut S) {
///         for w in doc.split_whitespace() {
///             sink.push(stable_hash64(w.as_bytes(), 0));
///         }
///     }
///     fn scheme(&self) -> SchemeId {
///         SchemeId::new("doc-example-words").finish()
///     }
/// }
/// assert_eq!(Words.features("a b a").len(), 3);
/// assert_eq!(Words.feature_set("a b a").len(), 2);
/// assert!(Words.extract_bytes(b"\xff", &mut Vec::<u64>::new()).is_err());
/// ```
pub trait FeatureExtractor {
    /// Pushes every feature of `doc` into `sink`, in document order.
    fn extract<S: FeatureSink + ?Sized>(&self, doc: &str, sink: &mut S);

    /// A fingerprint of this extractor's parameters, folded into the scheme of every
    /// signature built from its features.
    fn scheme(&self) -> SchemeId;

    /// Like [`extract`](Self::extract) on bytes that must be UTF-8.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidInput`] naming the byte offset of the first invalid UTF-8
    /// sequence; nothing is pushed in that case. (Decode with
    /// `String::from_utf8_lossy` first to replace invalid sequences instead.)
    fn extract_bytes<S: FeatureSink + ?Sized>(
        &self,
        doc: &[u8],
        sink: &mut S,
    ) -> Result<(), Error> {
        let text = std::str::from_utf8(doc).map_err(|e| {
            Error::invalid_input(format!("invalid UTF-8 at byte {}", e.valid_up_to()))
        })?;
        self.extract(text, sink);
        Ok(())
    }

    /// All features of `doc` in document order, repeats included (allocates).
    fn features(&self, doc: &str) -> Vec<u64> {
        let mut out = Vec::new();
        self.extract(doc, &mut out);
        out
    }

    /// The set of distinct features of `doc` (allocates).
    fn feature_set(&self, doc: &str) -> crate::FeatureSet {
        crate::FeatureSet::from_unsorted(self.features(doc))
    }
}

/// Forwards [`FeatureExtractor`] through pointer types to the extractor they point at.
macro_rules! forward_extractor {
    ($($pointer:ty),+) => {$(
        impl<E: FeatureExtractor + ?Sized> FeatureExtractor for $pointer {
            #[inline]
            fn extract<S: FeatureSink + ?Sized>(&self, doc: &str, sink: &mut S) {
                (**self).extract(doc, sink);
            }
            #[inline]
            fn scheme(&self) -> SchemeId {
                (**self).scheme()
            }
        }
    )+};
}

forward_extractor!(&E, Box<E>);

/// Object-safe twin of [`FeatureExtractor`], blanket-implemented for every extractor,
/// for choosing the feature scheme from configuration at run time.
///
/// # Example
///
/// ```
/// use near_dup::{DynFeatureExtractor, FeatureExtractor, FeatureSink, SchemeId};
/// struct Bytes;
/// impl FeatureExtractor for Bytes {
///     fn extract<S: FeatureSink + ?Sized>(&self, doc: &str, sink: &mut S) {
///         doc.bytes().for_each(|b| sink.push(u64::from(b)));
///     }
///     fn scheme(&self) -> SchemeId { SchemeId::new("bytes").finish() }
/// }
/// let chosen: Box<dyn DynFeatureExtractor> = Box::new(Bytes);
/// let mut out: Vec<u64> = Vec::new();
/// chosen.extract_dyn("hi", &mut out);
/// assert_eq!(out, vec![104, 105]);
/// ```
pub trait DynFeatureExtractor {
    /// See [`FeatureExtractor::extract`].
    fn extract_dyn(&self, doc: &str, sink: &mut dyn FeatureSink);
    /// See [`FeatureExtractor::scheme`].
    fn scheme_dyn(&self) -> SchemeId;
}

impl<E: FeatureExtractor> DynFeatureExtractor for E {
    fn extract_dyn(&self, doc: &str, sink: &mut dyn FeatureSink) {
        self.extract(doc, sink);
    }
    fn scheme_dyn(&self) -> SchemeId {
        self.scheme()
    }
}

/// A boxed extractor shows as its scheme id, so that types holding one (a
/// `MinHasher<Box<dyn DynFeatureExtractor + Send + Sync>>`, say) derive `Debug`.
///
/// # Example
///
/// ```
/// use near_dup::DynFeatureExtractor;
/// let e: Box<dyn DynFeatureExtractor + Send + Sync> = Box::new(near_dup::shingle::WordShingler::new(3)?);
/// assert!(format!("{e:?}").starts_with("DynFeatureExtractor("));
/// # Ok::<(), near_dup::Error>(())
/// ```
impl std::fmt::Debug for dyn DynFeatureExtractor + Send + Sync + '_ {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("DynFeatureExtractor")
            .field(&self.scheme_dyn())
            .finish()
    }
}

/// A signature: a compact summary of a document that estimates its similarity to
/// another signature built with the same parameters.
///
/// Signatures carry their [`SchemeId`]; comparing signatures of different schemes is an
/// [`Error::Incompatible`], never a silently wrong number.
///
/// # Example
///
/// ```
/// use near_dup::{ExactSetSketcher, Signature, Sketcher, SchemeId};
/// let s = ExactSetSketcher::new(SchemeId::new("my-features").finish());
/// let a = s.sketch_features([1, 2, 3]);
/// let b = s.sketch_features([2, 3, 4]);
/// assert_eq!(a.similarity(&b)?.value(), 0.5);
///
/// let other = ExactSetSketcher::new(SchemeId::new("other-features").finish());
/// assert!(a.similarity(&other.sketch_features([1])).is_err());
/// # Ok::<(), near_dup::Error>(())
/// ```
pub trait Signature: Clone + std::fmt::Debug {
    /// The scheme (algorithm and parameters) this signature was built with.
    fn scheme(&self) -> SchemeId;

    /// Estimates the similarity to `other`, with its standard error.
    ///
    /// # Errors
    ///
    /// [`Error::Incompatible`] when the schemes differ.
    fn similarity(&self, other: &Self) -> Result<Estimate, Error>;

    /// `Ok` when `other` was built with the same scheme.
    ///
    /// # Errors
    ///
    /// [`Error::Incompatible`] naming both schemes.
    #[inline]
    fn check_compatible(&self, other: &Self) -> Result<(), Error> {
        Error::check_schemes(self.scheme(), other.scheme())
    }
}

/// A signature made of `k` slot values where, for two documents sketched with the same
/// scheme, slot `i` agrees with probability equal to their similarity (MinHash and its
/// one-permutation and weighted variants).
///
/// This is what banded LSH needs: it groups the slots into bands and hashes each band.
/// Indexes consume this trait instead of naming a concrete sketch type.
///
/// # Example
///
/// ```
/// use near_dup::{Error, Estimate, SchemeId, Signature, SlotSignature};
/// #[derive(Clone, Debug)]
/// struct Slots(Vec<u64>);
/// impl Signature for Slots {
///     fn scheme(&self) -> SchemeId { SchemeId::new("demo-slots").finish() }
///     fn similarity(&self, other: &Self) -> Result<Estimate, Error> {
///         let agree = self.0.iter().zip(&other.0).filter(|(a, b)| a == b).count();
///         Ok(Estimate::exact(agree as f64 / self.0.len() as f64))
///     }
/// }
/// impl SlotSignature for Slots {
///     fn slots(&self) -> &[u64] { &self.0 }
/// }
/// assert_eq!(Slots(vec![1, 2, 3, 4]).slots().len(), 4);
/// ```
pub trait SlotSignature: Signature {
    /// The slot values, in slot order.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::{Error, Estimate, SchemeId, Signature, SlotSignature};
    /// #[derive(Clone, Debug)]
    /// struct Two([u64; 2]);
    /// impl Signature for Two {
    ///     fn scheme(&self) -> SchemeId { SchemeId::new("two").finish() }
    ///     fn similarity(&self, o: &Self) -> Result<Estimate, Error> {
    ///         Ok(Estimate::exact(f64::from(u8::from(self.0 == o.0))))
    ///     }
    /// }
    /// impl SlotSignature for Two {
    ///     fn slots(&self) -> &[u64] { &self.0 }
    /// }
    /// assert_eq!(Two([4, 5]).slots(), &[4, 5]);
    /// ```
    fn slots(&self) -> &[u64];
}

/// A signature made of `m` bits where, for two documents sketched with the same scheme,
/// each bit agrees with a probability that grows with their similarity (SimHash:
/// `1 − θ/π` for the angle `θ` between the feature vectors).
///
/// What Hamming search and bit-sampling LSH need: the bits, packed little-endian into
/// 64-bit words (bit `i` is bit `i % 64` of word `i / 64`; bits past `num_bits` are 0).
///
/// # Example
///
/// ```
/// use near_dup::{BitSignature, Error, Estimate, SchemeId, Signature};
/// #[derive(Clone, Debug)]
/// struct Fingerprint(u64);
/// impl Signature for Fingerprint {
///     fn scheme(&self) -> SchemeId { SchemeId::new("demo-bits").finish() }
///     fn similarity(&self, o: &Self) -> Result<Estimate, Error> {
///         Ok(Estimate::exact(1.0 - f64::from((self.0 ^ o.0).count_ones()) / 64.0))
///     }
/// }
/// impl BitSignature for Fingerprint {
///     fn words(&self) -> &[u64] { std::slice::from_ref(&self.0) }
///     fn num_bits(&self) -> usize { 64 }
/// }
/// assert_eq!(Fingerprint(0b1011).words(), &[0b1011]);
/// ```
pub trait BitSignature: Signature {
    /// The bits, packed into little-endian 64-bit words.
    ///
    /// # Example
    ///
    /// ```
    /// # use near_dup::{BitSignature, Error, Estimate, SchemeId, Signature};
    /// # #[derive(Clone, Debug)]
    /// # struct F(u64);
    /// # impl Signature for F {
    /// #     fn scheme(&self) -> SchemeId { SchemeId::new("f").finish() }
    /// #     fn similarity(&self, _: &Self) -> Result<Estimate, Error> { Ok(Estimate::exact(1.0)) }
    /// # }
    /// # impl BitSignature for F {
    /// #     fn words(&self) -> &[u64] { std::slice::from_ref(&self.0) }
    /// #     fn num_bits(&self) -> usize { 64 }
    /// # }
    /// assert_eq!(F(7).words()[0].count_ones(), 3);
    /// ```
    fn words(&self) -> &[u64];

    /// The number of bits `m`.
    ///
    /// # Example
    ///
    /// ```
    /// # use near_dup::{BitSignature, Error, Estimate, SchemeId, Signature};
    /// # #[derive(Clone, Debug)]
    /// # struct F(u64);
    /// # impl Signature for F {
    /// #     fn scheme(&self) -> SchemeId { SchemeId::new("f").finish() }
    /// #     fn similarity(&self, _: &Self) -> Result<Estimate, Error> { Ok(Estimate::exact(1.0)) }
    /// # }
    /// # impl BitSignature for F {
    /// #     fn words(&self) -> &[u64] { std::slice::from_ref(&self.0) }
    /// #     fn num_bits(&self) -> usize { 64 }
    /// # }
    /// assert_eq!(F(7).num_bits(), 64);
    /// ```
    fn num_bits(&self) -> usize;
}

/// A signature made of a fixed number of coordinates, each an exact fingerprint or
/// absent; two signatures match when some coordinate `i` holds equal values in both.
///
/// What exact-signature indexes need (`ndd_index::ExactIndex`): one hash table per
/// coordinate. Implemented by `ndd-imatch`'s `IMatchSignature` (one SHA-1 digest per
/// lexicon, a coordinate absent when that lexicon rejected the document) and by
/// `ndd_lsh::PlainSlots` (every slot a `u64` coordinate).
///
/// # Example
///
/// ```
/// use near_dup::{Error, Estimate, ExactSignature, SchemeId, Signature};
/// /// Two optional 64-bit digests.
/// #[derive(Clone, Debug)]
/// struct Digests([Option<u64>; 2]);
/// impl Signature for Digests {
///     fn scheme(&self) -> SchemeId { SchemeId::new("demo-digests").finish() }
///     fn similarity(&self, o: &Self) -> Result<Estimate, Error> {
///         let shared = (0..2).filter(|&i| self.0[i].is_some() && self.0[i] == o.0[i]).count();
///         Ok(Estimate::exact(shared as f64 / 2.0))
///     }
/// }
/// impl ExactSignature for Digests {
///     type Coordinate = u64;
///     fn num_coordinates(&self) -> usize { 2 }
///     fn coordinate(&self, i: usize) -> Option<&u64> { self.0.get(i)?.as_ref() }
/// }
/// let sig = Digests([Some(7), None]);
/// assert_eq!(sig.num_coordinates(), 2);
/// assert_eq!((sig.coordinate(0), sig.coordinate(1), sig.coordinate(2)), (Some(&7), None, None));
/// ```
pub trait ExactSignature: Signature {
    /// The value of one coordinate (a digest, a 64-bit hash).
    type Coordinate: Clone + Eq + std::hash::Hash;

    /// The number of coordinates, the same for every signature of a scheme.
    ///
    /// # Example
    ///
    /// ```
    /// # use near_dup::{Error, Estimate, ExactSignature, SchemeId, Signature};
    /// # #[derive(Clone, Debug)]
    /// # struct One(u64);
    /// # impl Signature for One {
    /// #     fn scheme(&self) -> SchemeId { SchemeId::new("one").finish() }
    /// #     fn similarity(&self, o: &Self) -> Result<Estimate, Error> {
    /// #         Ok(Estimate::exact(f64::from(u8::from(self.0 == o.0))))
    /// #     }
    /// # }
    /// # impl ExactSignature for One {
    /// #     type Coordinate = u64;
    /// #     fn num_coordinates(&self) -> usize { 1 }
    /// #     fn coordinate(&self, i: usize) -> Option<&u64> { (i == 0).then_some(&self.0) }
    /// # }
    /// assert_eq!(One(3).num_coordinates(), 1);
    /// ```
    fn num_coordinates(&self) -> usize;

    /// Coordinate `i`, or `None` when it is absent (rejected) or `i` is out of range.
    ///
    /// # Example
    ///
    /// ```
    /// # use near_dup::{Error, Estimate, ExactSignature, SchemeId, Signature};
    /// # #[derive(Clone, Debug)]
    /// # struct One(u64);
    /// # impl Signature for One {
    /// #     fn scheme(&self) -> SchemeId { SchemeId::new("one").finish() }
    /// #     fn similarity(&self, o: &Self) -> Result<Estimate, Error> {
    /// #         Ok(Estimate::exact(f64::from(u8::from(self.0 == o.0))))
    /// #     }
    /// # }
    /// # impl ExactSignature for One {
    /// #     type Coordinate = u64;
    /// #     fn num_coordinates(&self) -> usize { 1 }
    /// #     fn coordinate(&self, i: usize) -> Option<&u64> { (i == 0).then_some(&self.0) }
    /// # }
    /// assert_eq!((One(5).coordinate(0), One(5).coordinate(1)), (Some(&5), None));
    /// ```
    fn coordinate(&self, i: usize) -> Option<&Self::Coordinate>;
}

/// Turns a stream of features into a signature.
///
/// Configured once (validated at construction, immutable afterwards, shareable
/// between threads); per-document work happens in a [`State`](Self::State), a
/// [`FeatureSink`] that the caller may reuse across documents so that steady-state
/// sketching allocates nothing.
///
/// # Example
///
/// ```
/// use near_dup::{ExactSetSketcher, FeatureSink, SchemeId, Sketcher};
/// let sketcher = ExactSetSketcher::new(SchemeId::new("f").finish());
/// let mut state = sketcher.new_state();
/// let mut sig = sketcher.new_signature();
/// for doc in [[3u64, 1, 3], [7, 7, 7]] {
///     doc.iter().for_each(|&f| state.push(f));
///     sketcher.finish_into(&mut state, &mut sig); // resets `state`, reuses `sig`
/// }
/// assert_eq!(sig.set().as_slice(), &[7]);
/// ```
pub trait Sketcher {
    /// The signature type produced.
    type Signature: Signature;
    /// Per-document accumulator.
    type State: FeatureSink;

    /// The scheme stamped on every signature this sketcher produces.
    fn scheme(&self) -> SchemeId;

    /// A fresh, empty per-document state.
    fn new_state(&self) -> Self::State;

    /// A signature to be overwritten by [`finish_into`](Self::finish_into).
    fn new_signature(&self) -> Self::Signature;

    /// Writes the signature of everything pushed into `state` to `out`, then resets
    /// `state` for the next document.
    fn finish_into(&self, state: &mut Self::State, out: &mut Self::Signature);

    /// The signature of a set of pre-extracted features (allocates a state).
    fn sketch_features<I: IntoIterator<Item = u64>>(&self, features: I) -> Self::Signature {
        let mut state = self.new_state();
        for f in features {
            state.push(f);
        }
        let mut out = self.new_signature();
        self.finish_into(&mut state, &mut out);
        out
    }
}

impl<S: Sketcher + ?Sized> Sketcher for &S {
    type Signature = S::Signature;
    type State = S::State;
    #[inline]
    fn scheme(&self) -> SchemeId {
        (**self).scheme()
    }
    #[inline]
    fn new_state(&self) -> Self::State {
        (**self).new_state()
    }
    #[inline]
    fn new_signature(&self) -> Self::Signature {
        (**self).new_signature()
    }
    #[inline]
    fn finish_into(&self, state: &mut Self::State, out: &mut Self::Signature) {
        (**self).finish_into(state, out);
    }
}

/// A [`Sketcher`] that also knows how to extract features from text: the level users
/// call (`MinHasher::sketch(&doc)`).
///
/// Implementors write one method, [`extract_into`](Self::extract_into); the sketching
/// methods are provided.
///
/// # Example
///
/// ```
/// use near_dup::{DocSketcher, ExactSetSketcher, FeatureExtractor, FeatureSink, SchemeId, Signature};
/// struct Words;
/// impl FeatureExtractor for Words {
///     fn extract<S: FeatureSink + ?Sized>(&self, doc: &str, sink: &mut S) {
///         doc.split_whitespace().for_each(|w| sink.push(near_dup::hash::stable_hash64(w.as_bytes(), 0)));
///     }
///     fn scheme(&self) -> SchemeId { SchemeId::new("words").finish() }
/// }
/// let sketcher = ExactSetSketcher::builder().build_with(Words);
/// let a = sketcher.sketch("the cat sat");
/// let b = sketcher.sketch("the cat sat down");
/// assert_eq!(a.similarity(&b)?.value(), 0.75);
/// let batch = sketcher.sketch_batch(&["x", "y"]);
/// assert_eq!(batch.len(), 2);
/// # Ok::<(), near_dup::Error>(())
/// ```
pub trait DocSketcher: Sketcher {
    /// Pushes the features of `doc` into `state`.
    fn extract_into(&self, doc: &str, state: &mut Self::State);

    /// The signature of `doc` (allocates a state and a signature).
    fn sketch(&self, doc: &str) -> Self::Signature {
        let mut out = self.new_signature();
        self.sketch_into(doc, &mut out);
        out
    }

    /// Writes the signature of `doc` into `out` (allocates a state).
    fn sketch_into(&self, doc: &str, out: &mut Self::Signature) {
        let mut state = self.new_state();
        self.sketch_with(&mut state, doc, out);
    }

    /// Writes the signature of `doc` into `out` using the caller's `state`: nothing is
    /// allocated in steady state.
    fn sketch_with(&self, state: &mut Self::State, doc: &str, out: &mut Self::Signature) {
        self.extract_into(doc, state);
        self.finish_into(state, out);
    }

    /// The signatures of many documents, one state reused across them.
    fn sketch_batch<D: AsRef<str>>(&self, docs: &[D]) -> Vec<Self::Signature> {
        let mut state = self.new_state();
        docs.iter()
            .map(|d| {
                let mut out = self.new_signature();
                self.sketch_with(&mut state, d.as_ref(), &mut out);
                out
            })
            .collect()
    }

    /// Writes the signatures of `docs` into `out`, one state reused across them.
    ///
    /// # Errors
    ///
    /// [`Error::LengthMismatch`] when `out.len() != docs.len()`; nothing is written.
    fn sketch_batch_into<D: AsRef<str>>(
        &self,
        docs: &[D],
        out: &mut [Self::Signature],
    ) -> Result<(), Error> {
        Error::check_lengths(docs.len(), out.len())?;
        let mut state = self.new_state();
        for (d, o) in docs.iter().zip(out.iter_mut()) {
            self.sketch_with(&mut state, d.as_ref(), o);
        }
        Ok(())
    }
}

impl<S: DocSketcher + ?Sized> DocSketcher for &S {
    #[inline]
    fn extract_into(&self, doc: &str, state: &mut Self::State) {
        (**self).extract_into(doc, state);
    }
}

/// An index of signatures that answers "which stored documents may be similar to
/// this one?" (LSH band tables, Hamming tables, exact-signature tables, inverted
/// indexes).
///
/// Candidates are a superset or subset of the true neighbours depending on the index;
/// verification against a measure is a separate step.
///
/// # Example
///
/// ```
/// use near_dup::{
///     CandidateIndex, Error, ExactSet, ExactSetSketcher, PairSink, SchemeId, ScoredPair,
///     Sketcher, intersection_len, jaccard,
/// };
///
/// /// The simplest index: a scan. Candidates share at least one feature with the query
/// /// (`ndd-index`'s `InvertedIndex` answers the same from posting lists; its scheme
/// /// checks are left out here).
/// #[derive(Default)]
/// struct Scan(Vec<(&'static str, ExactSet)>);
///
/// fn shares(x: &ExactSet, y: &ExactSet) -> bool {
///     intersection_len(x.set().as_slice(), y.set().as_slice()) > 0
/// }
///
/// impl CandidateIndex for Scan {
///     type Key = &'static str;
///     type Signature = ExactSet;
///     fn insert(&mut self, key: &'static str, sig: &ExactSet) -> Result<(), Error> {
///         self.remove(&key);
///         self.0.push((key, sig.clone()));
///         Ok(())
///     }
///     fn remove(&mut self, key: &&'static str) -> bool {
///         let before = self.0.len();
///         self.0.retain(|(k, _)| k != key);
///         self.0.len() != before
///     }
///     fn query_into(&self, sig: &ExactSet, out: &mut Vec<&'static str>) -> Result<(), Error> {
///         out.extend(self.0.iter().filter(|(_, s)| shares(s, sig)).map(|(k, _)| *k));
///         Ok(())
///     }
///     fn len(&self) -> usize {
///         self.0.len()
///     }
///     fn query_then_insert(
///         &mut self,
///         key: &'static str,
///         sig: &ExactSet,
///         out: &mut Vec<&'static str>,
///     ) -> Result<(), Error> {
///         self.remove(&key);
///         self.query_into(sig, out)?;
///         self.insert(key, sig)
///     }
///     fn all_pairs_into(&self, sink: &mut dyn PairSink<&'static str>) {
///         for (i, (a, x)) in self.0.iter().enumerate() {
///             for (b, y) in &self.0[i + 1..] {
///                 if shares(x, y) {
///                     let score = jaccard(x.set().as_slice(), y.set().as_slice());
///                     sink.push_pair(ScoredPair::new(*a, *b, score));
///                 }
///             }
///         }
///     }
/// }
///
/// let sk = ExactSetSketcher::new(SchemeId::new("f").finish());
/// let mut index = Scan::default();
/// index.insert("a", &sk.sketch_features([1, 2, 3]))?;
/// index.insert("b", &sk.sketch_features([9]))?;
/// assert_eq!(index.query(&sk.sketch_features([3, 4]))?, vec!["a"]);
///
/// // Streaming: the earlier documents that are candidates, then insert.
/// let mut found = Vec::new();
/// index.query_then_insert("c", &sk.sketch_features([1, 2]), &mut found)?;
/// assert_eq!(found, vec!["a"]);
///
/// // Every candidate pair once, scored by this index's exact Jaccard.
/// let mut pairs: Vec<ScoredPair<&str>> = Vec::new();
/// index.all_pairs_into(&mut pairs);
/// assert_eq!(pairs.len(), 1);
/// assert_eq!(pairs[0].score, 2.0 / 3.0);
/// # Ok::<(), near_dup::Error>(())
/// ```
pub trait CandidateIndex {
    /// The user's document key.
    type Key;
    /// The signature type indexed.
    type Signature: Signature;

    /// Adds a document. Re-inserting a key replaces its previous entry.
    ///
    /// # Errors
    ///
    /// [`Error::Incompatible`] when `signature`'s scheme differs from the index's.
    fn insert(&mut self, key: Self::Key, signature: &Self::Signature) -> Result<(), Error>;

    /// Removes a document; returns whether it was present.
    fn remove(&mut self, key: &Self::Key) -> bool;

    /// Appends the keys of candidate documents for `signature` to `out` (each once).
    ///
    /// # Errors
    ///
    /// [`Error::Incompatible`] when `signature`'s scheme differs from the index's.
    fn query_into(
        &self,
        signature: &Self::Signature,
        out: &mut Vec<Self::Key>,
    ) -> Result<(), Error>;

    /// The number of documents indexed.
    fn len(&self) -> usize;

    /// The streaming deduplication step: appends to `out` the keys of the documents
    /// already indexed that are candidates for `signature` (each once), then inserts
    /// `signature` under `key`. Equals [`query_into`](Self::query_into) followed by
    /// [`insert`](Self::insert), except that a `key` already indexed has its previous
    /// entry removed first, so it is never its own candidate.
    ///
    /// # Errors
    ///
    /// As [`insert`](Self::insert); nothing is appended and the index is unchanged on
    /// error.
    fn query_then_insert(
        &mut self,
        key: Self::Key,
        signature: &Self::Signature,
        out: &mut Vec<Self::Key>,
    ) -> Result<(), Error>;

    /// Pushes every candidate pair of indexed documents into `sink` once, as
    /// [`ScoredPair`](crate::ScoredPair)s (in no particular order; either key may come
    /// first). The all-pairs join straight from the index's tables, no loop over all
    /// pairs of documents.
    ///
    /// The score is the index's own measure when it holds one exactly, and
    /// [`ScoredPair::UNSCORED`](crate::ScoredPair::UNSCORED) (`NaN`) when the pair is
    /// only a candidate: each implementation documents which. (An inverted index
    /// scores the exact Jaccard coefficient, an exact-signature index the fraction of
    /// coordinates shared, a Hamming index `1 − h/64`; a banded LSH index pushes
    /// unscored candidates for a verifier to score.) Takes a `dyn` sink so the trait
    /// stays object-safe; indexes offer a generic inherent form as well.
    fn all_pairs_into(&self, sink: &mut dyn crate::PairSink<Self::Key>);

    /// The candidates for `signature` (allocates).
    ///
    /// # Errors
    ///
    /// As [`query_into`](Self::query_into).
    fn query(&self, signature: &Self::Signature) -> Result<Vec<Self::Key>, Error> {
        let mut out = Vec::new();
        self.query_into(signature, &mut out)?;
        Ok(out)
    }

    /// Whether the index is empty.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
