//! The per-k-gram features of ANDD (Hajishirzi, Yih and Kołcz 2010, Table 1) and the
//! documents and collection statistics they are read from.

use ahash::{AHashMap, AHashSet};
use ndd_core::hash::kgram_hash;
use ndd_core::stats::DocumentFrequencies;
use ndd_core::{Error, FeatureExtractor, FeatureSink, SchemeId, Tokenizer};
use ndd_shingle::{WordTokenizer, hash_token};

/// The features of a k-gram in a document (Table 1), in the order of
/// [`Feature::ALL`]: the index of each in a [`FeatureRow`].
///
/// # Example
///
/// ```
/// use near_dup::learn::Feature;
/// assert_eq!(Feature::ALL.len(), 11);
/// assert_eq!(Feature::Df.name(), "df");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Feature {
    /// 1 for every k-gram.
    Bias,
    /// `ln(1 + tf)`: how often the k-gram occurs in the document.
    Tf,
    /// `ln(1 + df)`: in how many documents of the collection it occurs.
    Df,
    /// `ln(1 + mean df)` of its terms (k > 1; for k = 1, the term's own).
    DfAvg,
    /// `ln(1 + median df)` of its terms (k > 1; for k = 1, the term's own).
    DfMed,
    /// `ln(1 + qf)`: its frequency in the user's query log (0 without one).
    Qf,
    /// Where it first occurs: its first token's position divided by the number of
    /// tokens, in `[0, 1)`.
    Loc,
    /// `ln(1 + tokens)` of the document.
    Len,
    /// 1 when its first term starts with an upper-case letter.
    Cap,
    /// 1 when it also occurs in the document's title (or e-mail subject).
    InTitle,
    /// 1 when each of its terms occurs in the document's URL.
    InUrl,
}

/// The number of features.
///
/// # Example
///
/// ```
/// assert_eq!(near_dup::learn::NUM_FEATURES, near_dup::learn::Feature::ALL.len());
/// ```
pub const NUM_FEATURES: usize = 11;

/// A k-gram's feature values, indexed by [`Feature`] (raw, before the model's
/// scaling).
///
/// # Example
///
/// ```
/// let row: near_dup::learn::FeatureRow = [0.0; near_dup::learn::NUM_FEATURES];
/// assert_eq!(row[near_dup::learn::Feature::Bias.index()], 0.0);
/// ```
pub type FeatureRow = [f64; NUM_FEATURES];

impl Feature {
    /// Every feature, in row order.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::learn::Feature;
    /// assert!(Feature::ALL.iter().enumerate().all(|(i, f)| f.index() == i));
    /// ```
    pub const ALL: [Feature; NUM_FEATURES] = [
        Feature::Bias,
        Feature::Tf,
        Feature::Df,
        Feature::DfAvg,
        Feature::DfMed,
        Feature::Qf,
        Feature::Loc,
        Feature::Len,
        Feature::Cap,
        Feature::InTitle,
        Feature::InUrl,
    ];

    /// The feature's name: `bias`, `tf`, `df`, `df-avg`, `df-med`, `qf`, `loc`, `len`,
    /// `cap`, `in-title`, `in-url`.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::learn::Feature::InTitle.name(), "in-title");
    /// ```
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Feature::Bias => "bias",
            Feature::Tf => "tf",
            Feature::Df => "df",
            Feature::DfAvg => "df-avg",
            Feature::DfMed => "df-med",
            Feature::Qf => "qf",
            Feature::Loc => "loc",
            Feature::Len => "len",
            Feature::Cap => "cap",
            Feature::InTitle => "in-title",
            Feature::InUrl => "in-url",
        }
    }

    /// The feature's position in a [`FeatureRow`].
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::learn::Feature::Bias.index(), 0);
    /// ```
    #[must_use]
    pub fn index(self) -> usize {
        self as usize
    }
}

/// A document as ANDD sees it: its body, and the title (or e-mail subject) and URL
/// when it has them (the `InTitle` and `InUrl` features read them).
///
/// # Example
///
/// ```
/// use near_dup::learn::Document;
/// let d = Document::new("Stocks fell sharply on Monday.").with_title("Stocks fall").with_url("https://news.example/stocks-fall");
/// assert_eq!(d.title.as_deref(), Some("Stocks fall"));
/// let plain: Document = "just a body".into();
/// assert!(plain.url.is_none());
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Document {
    /// The text.
    pub body: String,
    /// The title or e-mail subject, if any.
    pub title: Option<String>,
    /// The URL, if any.
    pub url: Option<String>,
}

impl Document {
    /// A document with a body only.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::learn::Document::new("x").body, "x");
    /// ```
    #[must_use]
    pub fn new(body: impl Into<String>) -> Self {
        Document {
            body: body.into(),
            title: None,
            url: None,
        }
    }

    /// The same document with a title.
    ///
    /// # Example
    ///
    /// ```
    /// assert!(near_dup::learn::Document::new("x").with_title("T").title.is_some());
    /// ```
    #[must_use]
    pub fn with_title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// The same document with a URL.
    ///
    /// # Example
    ///
    /// ```
    /// assert!(near_dup::learn::Document::new("x").with_url("http://a.b/c").url.is_some());
    /// ```
    #[must_use]
    pub fn with_url(mut self, url: impl Into<String>) -> Self {
        self.url = Some(url.into());
        self
    }
}

impl From<&str> for Document {
    fn from(body: &str) -> Self {
        Document::new(body)
    }
}

/// Word k-grams as ANDD keys them: tokens of [`WordTokenizer`], each hashed with
/// [`hash_token`] (case folded, seed 0), a k-gram keyed by
/// [`kgram_hash`] of its token hashes. A [`FeatureExtractor`], so collection
/// statistics are built with [`DocumentFrequencies::from_documents`].
///
/// # Example
///
/// ```
/// use near_dup::FeatureExtractor;
/// use near_dup::learn::Kgrams;
/// let bigrams = Kgrams::new(2)?;
/// assert_eq!(bigrams.features("a b c").len(), 2);
/// let df = near_dup::stats::DocumentFrequencies::from_documents(&bigrams, ["a b c", "a b d"]);
/// assert_eq!(df.df(bigrams.features("a b")[0]), 2);
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Kgrams {
    k: usize,
}

/// The longest k-gram ANDD builds: 16 words.
///
/// # Example
///
/// ```
/// assert!(near_dup::learn::Kgrams::new(near_dup::learn::MAX_K + 1).is_err());
/// ```
pub const MAX_K: usize = 16;

impl Kgrams {
    /// Word k-grams of `k` words.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] unless `1 ≤ k ≤` [`MAX_K`].
    ///
    /// # Example
    ///
    /// ```
    /// assert!(near_dup::learn::Kgrams::new(0).is_err());
    /// assert!(near_dup::learn::Kgrams::new(3).is_ok());
    /// ```
    pub fn new(k: usize) -> Result<Self, Error> {
        if k == 0 || k > MAX_K {
            return Err(Error::invalid_parameter(
                "k",
                format!("must lie in 1..={MAX_K}, got {k}"),
            ));
        }
        Ok(Kgrams { k })
    }

    /// The k-gram length.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::learn::Kgrams::new(2)?.k(), 2);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn k(&self) -> usize {
        self.k
    }

    /// The token hashes of `text`, and with `caps`, whether each starts with an
    /// upper-case letter.
    fn tokens(text: &str, mut caps: Option<&mut Vec<bool>>) -> Vec<u64> {
        let mut out = Vec::new();
        WordTokenizer::new().for_each_token(text, |t| {
            if let Some(c) = caps.as_deref_mut() {
                c.push(t.text.chars().next().is_some_and(char::is_uppercase));
            }
            out.push(hash_token(t.text, true, 0));
        });
        out
    }
}

impl FeatureExtractor for Kgrams {
    fn extract<S: FeatureSink + ?Sized>(&self, doc: &str, sink: &mut S) {
        for w in Kgrams::tokens(doc, None).windows(self.k) {
            sink.push(kgram_hash(w));
        }
    }

    fn scheme(&self) -> SchemeId {
        SchemeId::new("ndd-learn-kgrams")
            .with(self.k as u64)
            .finish()
    }
}

/// What the DF and QF features are read from: the document frequencies of k-grams and
/// of single terms over a collection (build them with
/// [`DocumentFrequencies::from_documents`] and [`Kgrams`], or load them), and an
/// optional query-log table (k-gram key → frequency).
///
/// # Example
///
/// ```
/// use near_dup::learn::{CollectionStats, Kgrams};
/// let docs = ["the cat sat", "the dog sat"];
/// let stats = CollectionStats::from_documents(Kgrams::new(2)?, docs.iter().copied());
/// assert_eq!(stats.documents(), 2);
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct CollectionStats {
    kgrams: Kgrams,
    kgram_df: DocumentFrequencies,
    term_df: DocumentFrequencies,
    queries: Option<AHashMap<u64, f64>>,
}

impl CollectionStats {
    /// Counts k-gram and term document frequencies over `docs` (their bodies).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::learn::{CollectionStats, Kgrams};
    /// let s = CollectionStats::from_documents(Kgrams::new(1)?, ["a b", "a"]);
    /// assert_eq!(s.documents(), 2);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn from_documents<'a>(
        kgrams: Kgrams,
        docs: impl IntoIterator<Item = &'a str> + Clone,
    ) -> Self {
        let unigrams = Kgrams { k: 1 };
        CollectionStats {
            kgrams,
            kgram_df: DocumentFrequencies::from_documents(&kgrams, docs.clone()),
            term_df: DocumentFrequencies::from_documents(&unigrams, docs),
            queries: None,
        }
    }

    /// Statistics built elsewhere (or loaded): k-gram and term document frequencies
    /// that must come from `kgrams` and from 1-grams of the same kind.
    ///
    /// # Errors
    ///
    /// [`Error::Incompatible`] when either table was counted with other features.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::stats::DocumentFrequencies;
    /// use near_dup::learn::{CollectionStats, Kgrams};
    /// let k2 = Kgrams::new(2)?;
    /// let docs = ["a b c"];
    /// let kg = DocumentFrequencies::from_documents(&k2, docs);
    /// let terms = DocumentFrequencies::from_documents(&Kgrams::new(1)?, docs);
    /// assert!(CollectionStats::new(k2, kg.clone(), terms.clone()).is_ok());
    /// assert!(CollectionStats::new(k2, terms, kg).is_err());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn new(
        kgrams: Kgrams,
        kgram_df: DocumentFrequencies,
        term_df: DocumentFrequencies,
    ) -> Result<Self, Error> {
        for (table, ext) in [(&kgram_df, kgrams), (&term_df, Kgrams { k: 1 })] {
            let want = ext.scheme();
            if table.scheme() != want {
                return Err(Error::Incompatible {
                    left: table.scheme(),
                    right: want,
                });
            }
        }
        Ok(CollectionStats {
            kgrams,
            kgram_df,
            term_df,
            queries: None,
        })
    }

    /// Adds a query-log table: the frequency of each k-gram (by its [`Kgrams`] key) in
    /// the user's queries, for the QF feature. Negative or non-finite values count as
    /// 0.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::FeatureExtractor;
    /// use near_dup::learn::{CollectionStats, Kgrams};
    /// let k1 = Kgrams::new(1)?;
    /// let stats = CollectionStats::from_documents(k1, ["stocks fell"])
    ///     .with_query_frequencies([(k1.features("stocks")[0], 120.0)]);
    /// assert!(stats.has_queries());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn with_query_frequencies(mut self, table: impl IntoIterator<Item = (u64, f64)>) -> Self {
        let map = table
            .into_iter()
            .map(|(k, f)| (k, if f.is_finite() && f > 0.0 { f } else { 0.0 }))
            .collect();
        self.queries = Some(map);
        self
    }

    /// Whether a query-log table was given.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::learn::{CollectionStats, Kgrams};
    /// assert!(!CollectionStats::from_documents(Kgrams::new(1)?, ["a"]).has_queries());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn has_queries(&self) -> bool {
        self.queries.is_some()
    }

    /// Documents counted.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::learn::{CollectionStats, Kgrams};
    /// assert_eq!(CollectionStats::from_documents(Kgrams::new(1)?, ["a", "b", "c"]).documents(), 3);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn documents(&self) -> u64 {
        self.kgram_df.num_docs()
    }

    /// A fingerprint of the statistics (every k-gram and term document frequency and
    /// the query table), for signature schemes.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::learn::{CollectionStats, Kgrams};
    /// let k = Kgrams::new(1)?;
    /// let a = CollectionStats::from_documents(k, ["a b", "b"]);
    /// let b = CollectionStats::from_documents(k, ["a b", "c"]);
    /// assert_ne!(a.fingerprint(), b.fingerprint());
    /// assert_eq!(a.fingerprint(), CollectionStats::from_documents(k, ["a b", "b"]).fingerprint());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn fingerprint(&self) -> u64 {
        let mut values: Vec<u64> = vec![self.kgrams.k as u64, self.kgram_df.num_docs()];
        for table in [&self.kgram_df, &self.term_df] {
            let mut entries: Vec<(u64, u64)> = table.iter().collect();
            entries.sort_unstable();
            values.push(entries.len() as u64);
            values.extend(entries.into_iter().flat_map(|(f, d)| [f, d]));
        }
        if let Some(q) = &self.queries {
            let mut entries: Vec<(u64, u64)> = q.iter().map(|(&k, &v)| (k, v.to_bits())).collect();
            entries.sort_unstable();
            values.extend(entries.into_iter().flat_map(|(f, d)| [f, d]));
        }
        ndd_core::hash::hash_u64s(&values, 0x4c45_4152)
    }

    /// The k-grams these statistics are for.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::learn::{CollectionStats, Kgrams};
    /// assert_eq!(CollectionStats::from_documents(Kgrams::new(3)?, ["a b c"]).kgrams().k(), 3);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn kgrams(&self) -> Kgrams {
        self.kgrams
    }

    /// The k-grams of `doc` with their raw features (Table 1), sorted by k-gram key,
    /// each k-gram once. Cost: O(n log n) for n tokens.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::learn::{CollectionStats, Document, Feature, Kgrams};
    /// let stats = CollectionStats::from_documents(Kgrams::new(1)?, ["Stocks fell", "bonds fell"]);
    /// let rows = stats.rows(&Document::new("Stocks fell, stocks rose").with_title("Stocks"));
    /// assert_eq!(rows.len(), 3); // stocks, fell, rose
    /// let stocks = rows.iter().find(|r| r.1[Feature::InTitle.index()] == 1.0).unwrap();
    /// assert_eq!(stocks.1[Feature::Tf.index()], 2f64.ln_1p()); // twice: ln(1 + 2)
    /// assert_eq!(stocks.1[Feature::Cap.index()], 1.0);
    /// assert_eq!(stocks.1[Feature::Loc.index()], 0.0);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn rows(&self, doc: &Document) -> Vec<(u64, FeatureRow)> {
        self.rows_of(&doc.body, doc.title.as_deref(), doc.url.as_deref())
    }

    /// [`rows`](Self::rows) of a body, title and URL given apart.
    pub(crate) fn rows_of(
        &self,
        body: &str,
        title: Option<&str>,
        url: Option<&str>,
    ) -> Vec<(u64, FeatureRow)> {
        let k = self.kgrams.k;
        let mut caps = Vec::new();
        let hashes = Kgrams::tokens(body, Some(&mut caps));
        let n = hashes.len();
        if n < k {
            return Vec::new();
        }
        let title: AHashSet<u64> = title
            .map(|t| self.kgrams.features(t).into_iter().collect())
            .unwrap_or_default();
        let url: AHashSet<u64> = url
            .map(|u| Kgrams::tokens(u, None).into_iter().collect())
            .unwrap_or_default();
        // First position and count of each k-gram.
        let mut seen: AHashMap<u64, (usize, u32)> = AHashMap::new();
        for (i, w) in hashes.windows(k).enumerate() {
            let e = seen.entry(kgram_hash(w)).or_insert((i, 0));
            e.1 += 1;
        }
        let len = ((n as f64) + 1.0).ln();
        let mut out: Vec<(u64, FeatureRow)> = seen
            .into_iter()
            .map(|(g, (first, tf))| {
                let terms = &hashes[first..first + k];
                // k ≤ MAX_K: the terms' document frequencies on the stack.
                let mut df_buf = [0u64; MAX_K];
                let dfs = &mut df_buf[..k];
                for (d, &t) in dfs.iter_mut().zip(terms) {
                    *d = self.term_df.df(kgram_hash(&[t]));
                }
                dfs.sort_unstable();
                let mean = dfs.iter().map(|&d| d as f64).sum::<f64>() / k as f64;
                let median = if k % 2 == 1 {
                    dfs[k / 2] as f64
                } else {
                    (dfs[k / 2 - 1] as f64 + dfs[k / 2] as f64) / 2.0
                };
                let qf = self
                    .queries
                    .as_ref()
                    .and_then(|q| q.get(&g).copied())
                    .unwrap_or(0.0);
                let mut row = [0.0; NUM_FEATURES];
                row[Feature::Bias.index()] = 1.0;
                row[Feature::Tf.index()] = f64::from(tf).ln_1p();
                row[Feature::Df.index()] = (self.kgram_df.df(g) as f64).ln_1p();
                row[Feature::DfAvg.index()] = mean.ln_1p();
                row[Feature::DfMed.index()] = median.ln_1p();
                row[Feature::Qf.index()] = qf.ln_1p();
                row[Feature::Loc.index()] = first as f64 / n as f64;
                row[Feature::Len.index()] = len;
                row[Feature::Cap.index()] = f64::from(u8::from(caps[first]));
                row[Feature::InTitle.index()] = f64::from(u8::from(title.contains(&g)));
                row[Feature::InUrl.index()] =
                    f64::from(u8::from(terms.iter().all(|t| url.contains(t))));
                (g, row)
            })
            .collect();
        out.sort_unstable_by_key(|r| r.0);
        out
    }
}
