//! A seeded generator of labeled near-duplicate variants of real base texts.
//!
//! The edit types follow the near-duplicate subcategories of Yang and Callan,
//! *Near-Duplicate Detection by Instance-level Constrained Clustering*, SIGIR 2006,
//! Section 2 (block added, block deleted, key block, minor change, minor change & block
//! edit, block reordering, repeated, exact), plus the spam-campaign obfuscations of
//! Hajishirzi, Yih and Kołcz, *Adaptive Near-Duplicate Detection via Similarity
//! Learning*, SIGIR 2010, Section 4.2 (misspelled words, appended unrelated
//! paragraphs).

use std::collections::BTreeSet;

use ndd_core::Error;
use rand::seq::SliceRandom;
use rand::seq::index::sample;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::Labels;
use crate::kinds::{check_weights, name_traits, pick_kind};

/// How a generated document was derived from its base text.
///
/// Blocks are paragraphs (separated by blank lines); a base text with a single
/// paragraph is cut into sentences instead, and a single sentence into up to four word
/// spans.
///
/// # Example
///
/// ```
/// use near_dup::eval::EditKind;
/// let kind: EditKind = "block-added".parse()?;
/// assert_eq!(kind, EditKind::BlockAdded);
/// assert_eq!(kind.to_string(), "block-added");
/// assert_eq!(EditKind::EDITS.len() + 1, EditKind::ALL.len());
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum EditKind {
    /// The base text itself, unmodified. Produced only by [`generate_corpus`]; it cannot
    /// be requested in [`SynthConfig::kinds`].
    Original,
    /// An identical copy ("100% word overlap", Yang and Callan 2006, Section 2).
    Exact,
    /// A few words replaced by other words of the corpus: the fraction
    /// [`SynthConfig::minor_change_fraction`] of the words, at least one ("a few words
    /// altered, <5%", Yang and Callan 2006, Section 2).
    MinorChange,
    /// One to [`SynthConfig::max_blocks`] new blocks of 8–40 words (drawn from the
    /// corpus vocabulary, standing in for text the sender wrote) inserted at random
    /// positions.
    BlockAdded,
    /// One to [`SynthConfig::max_blocks`] blocks removed; at least one block is kept.
    BlockDeleted,
    /// Only a contiguous run of the base's blocks (at most half of them, at least one)
    /// is kept, surrounded by new text: the document "contains at least one paragraph"
    /// of the base (Yang and Callan 2006, Section 2).
    KeyBlock,
    /// A block edit (block added or block deleted) followed by a minor change.
    MinorChangeAndBlockEdit,
    /// The same blocks in a different order.
    BlockReordering,
    /// The whole base text repeated 2 to [`SynthConfig::max_repeats`] times.
    Repeated,
    /// The fraction [`SynthConfig::misspell_fraction`] of the words (at least one)
    /// misspelled by swapping, substituting, doubling or dropping a character, as spam
    /// campaigns obfuscate words (Hajishirzi et al. 2010, Section 4.2, Figure 3).
    Misspelled,
    /// One to [`SynthConfig::max_blocks`] consecutive blocks of a *different* base text
    /// appended at the end, as spammers append unrelated paragraphs (Hajishirzi et al.
    /// 2010, Section 4.2). Needs at least two base texts.
    AppendedUnrelated,
}

impl EditKind {
    /// Every edit that [`SynthConfig::kinds`] may request (all kinds but
    /// [`EditKind::Original`]).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::eval::EditKind;
    /// assert!(!EditKind::EDITS.contains(&EditKind::Original));
    /// ```
    pub const EDITS: [EditKind; 10] = {
        // `ALL` without its first kind, `Original`: the list is written once.
        let mut edits = [EditKind::Exact; 10];
        let mut i = 0;
        while i < edits.len() {
            edits[i] = EditKind::ALL[i + 1];
            i += 1;
        }
        edits
    };

    /// Every kind, [`EditKind::Original`] first.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::eval::EditKind;
    /// for kind in EditKind::ALL {
    ///     assert_eq!(kind.name().parse::<EditKind>()?, kind);
    /// }
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub const ALL: [EditKind; 11] = [
        EditKind::Original,
        EditKind::Exact,
        EditKind::MinorChange,
        EditKind::BlockAdded,
        EditKind::BlockDeleted,
        EditKind::KeyBlock,
        EditKind::MinorChangeAndBlockEdit,
        EditKind::BlockReordering,
        EditKind::Repeated,
        EditKind::Misspelled,
        EditKind::AppendedUnrelated,
    ];

    /// The kebab-case name, also accepted by [`FromStr`](std::str::FromStr) and used by
    /// [`Display`](std::fmt::Display).
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::eval::EditKind::KeyBlock.name(), "key-block");
    /// ```
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            EditKind::Original => "original",
            EditKind::Exact => "exact",
            EditKind::MinorChange => "minor-change",
            EditKind::BlockAdded => "block-added",
            EditKind::BlockDeleted => "block-deleted",
            EditKind::KeyBlock => "key-block",
            EditKind::MinorChangeAndBlockEdit => "minor-change-block-edit",
            EditKind::BlockReordering => "block-reordering",
            EditKind::Repeated => "repeated",
            EditKind::Misspelled => "misspelled",
            EditKind::AppendedUnrelated => "appended-unrelated",
        }
    }
}

name_traits!(EditKind, "edit");

/// Settings of the near-duplicate generator. Build with [`SynthConfig::new`] or
/// [`Default`] and adjust the public fields; [`SynthConfig::validate`] states the
/// allowed ranges.
///
/// # Example
///
/// ```
/// use near_dup::eval::{EditKind, SynthConfig};
/// let config = SynthConfig {
///     variants_per_base: 3,
///     kinds: vec![(EditKind::MinorChange, 2.0), (EditKind::BlockAdded, 1.0)],
///     ..SynthConfig::new(42)
/// };
/// assert!(config.validate().is_ok());
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct SynthConfig {
    /// Seed of the random generator: the same seed, base texts and settings always give
    /// the same documents. Default `0`.
    pub seed: u64,
    /// How many variants to make of every base text. `0` is allowed (no variants).
    /// Default `5`.
    pub variants_per_base: usize,
    /// Which edits to apply, with relative weights: each variant picks one kind with
    /// probability proportional to its weight. Weights must be finite and `>= 0` and
    /// (when variants are requested) sum to more than `0`; [`EditKind::Original`] is not
    /// allowed. Default: every kind of [`EditKind::EDITS`] with weight `1`.
    pub kinds: Vec<(EditKind, f64)>,
    /// Fraction of a text's words that a [`EditKind::MinorChange`] replaces, in
    /// `[0, 1]`; at least one word is always changed. Default `0.05` (Yang and Callan's
    /// "<5%").
    pub minor_change_fraction: f64,
    /// Fraction of a text's words that [`EditKind::Misspelled`] misspells, in `[0, 1]`;
    /// at least one word is always misspelled. Default `0.15`.
    pub misspell_fraction: f64,
    /// Upper bound on the number of blocks added, deleted or appended by one edit
    /// (each edit picks uniformly from `1..=max_blocks`); at least `1`. Default `2`.
    pub max_blocks: usize,
    /// Upper bound on the number of copies in an [`EditKind::Repeated`] variant (each
    /// picks uniformly from `2..=max_repeats`); at least `2`. Default `3`.
    pub max_repeats: usize,
}

impl Default for SynthConfig {
    fn default() -> Self {
        SynthConfig {
            seed: 0,
            variants_per_base: 5,
            kinds: EditKind::EDITS.iter().map(|&k| (k, 1.0)).collect(),
            minor_change_fraction: 0.05,
            misspell_fraction: 0.15,
            max_blocks: 2,
            max_repeats: 3,
        }
    }
}

impl SynthConfig {
    /// The most blocks one edit adds, removes or borrows: 64 (a block is 8 to 40
    /// words, so an edited document grows by at most about 2,600 words).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::eval::SynthConfig;
    /// let c = SynthConfig { max_blocks: SynthConfig::MAX_BLOCKS + 1, ..SynthConfig::new(0) };
    /// assert!(c.validate().is_err());
    /// ```
    pub const MAX_BLOCKS: usize = 64;
    /// The most copies of a text the `repeated` edit makes: 64.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::eval::SynthConfig;
    /// let c = SynthConfig { max_repeats: usize::MAX, ..SynthConfig::new(0) };
    /// assert!(c.validate().is_err());
    /// ```
    pub const MAX_REPEATS: usize = 64;
    /// The most variants generated per base text: 1,000.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::eval::SynthConfig;
    /// let c = SynthConfig { variants_per_base: usize::MAX, ..SynthConfig::new(0) };
    /// assert!(c.validate().is_err());
    /// ```
    pub const MAX_VARIANTS: usize = 1000;

    /// The default settings with the given seed.
    ///
    /// # Example
    ///
    /// ```
    /// let config = near_dup::eval::SynthConfig::new(7);
    /// assert_eq!(config.seed, 7);
    /// assert_eq!(config.variants_per_base, 5);
    /// ```
    #[must_use]
    pub fn new(seed: u64) -> Self {
        SynthConfig {
            seed,
            ..SynthConfig::default()
        }
    }

    /// The settings with only one edit kind (weight `1`).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::eval::{EditKind, SynthConfig};
    /// let config = SynthConfig::new(1).only(EditKind::Misspelled);
    /// assert_eq!(config.kinds, vec![(EditKind::Misspelled, 1.0)]);
    /// ```
    #[must_use]
    pub fn only(mut self, kind: EditKind) -> Self {
        self.kinds = vec![(kind, 1.0)];
        self
    }

    /// Checks every field's range.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] naming the field when:
    /// * `kinds` contains [`EditKind::Original`] or a weight that is negative or not
    ///   finite, or its weights sum to `0` while `variants_per_base > 0`;
    /// * `minor_change_fraction` or `misspell_fraction` is outside `[0, 1]`;
    /// * `max_blocks` is `0` or above [`SynthConfig::MAX_BLOCKS`], `max_repeats` is
    ///   below `2` or above [`SynthConfig::MAX_REPEATS`], or `variants_per_base` is
    ///   above [`SynthConfig::MAX_VARIANTS`] (each bounds the size or the number of
    ///   generated documents; huge values used to abort or hang).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::eval::SynthConfig;
    /// assert!(SynthConfig::new(0).validate().is_ok());
    /// let bad = SynthConfig { minor_change_fraction: 1.5, ..SynthConfig::new(0) };
    /// assert!(bad.validate().is_err());
    /// ```
    pub fn validate(&self) -> Result<(), Error> {
        check_weights(&self.kinds, self.variants_per_base, "edit", |kind| {
            if kind == EditKind::Original {
                return Err(Error::invalid_parameter(
                    "kinds",
                    "`original` is not an edit; generate_corpus adds the originals",
                ));
            }
            Ok(())
        })?;
        for (name, f) in [
            ("minor_change_fraction", self.minor_change_fraction),
            ("misspell_fraction", self.misspell_fraction),
        ] {
            if !(0.0..=1.0).contains(&f) {
                return Err(Error::invalid_parameter(
                    name,
                    format!("must lie in [0, 1], got {f}"),
                ));
            }
        }
        for (name, value, range) in [
            ("max_blocks", self.max_blocks, 1..=Self::MAX_BLOCKS),
            ("max_repeats", self.max_repeats, 2..=Self::MAX_REPEATS),
        ] {
            if !range.contains(&value) {
                return Err(Error::invalid_parameter(
                    name,
                    format!("must lie in {range:?}, got {value}"),
                ));
            }
        }
        if self.variants_per_base > Self::MAX_VARIANTS {
            return Err(Error::invalid_parameter(
                "variants_per_base",
                format!(
                    "must be at most {}, got {}",
                    Self::MAX_VARIANTS,
                    self.variants_per_base
                ),
            ));
        }
        Ok(())
    }
}

/// A generated document with its ground truth: which base text it came from and how.
///
/// # Example
///
/// ```
/// use near_dup::eval::{generate_variants, EditKind, SynthConfig};
/// let docs = generate_variants(&["One two three."], &SynthConfig::new(3).only(EditKind::Exact))?;
/// assert_eq!(docs[0].text, "One two three.");
/// assert_eq!((docs[0].source, docs[0].kind), (0, EditKind::Exact));
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct LabeledDoc {
    /// The document's text.
    pub text: String,
    /// Index of the base text it derives from; also its true cluster label.
    pub source: usize,
    /// The edit that produced it.
    pub kind: EditKind,
}

/// Base texts together with their generated variants and the true clustering (one
/// cluster per base text). Made by [`generate_corpus`].
///
/// # Example
///
/// ```
/// use near_dup::eval::{generate_corpus, SynthConfig};
/// let bases = ["A first letter. It asks for cleaner air.", "A second, unrelated note. Thanks."];
/// let corpus = generate_corpus(&bases, &SynthConfig { variants_per_base: 2, ..SynthConfig::new(9) })?;
/// assert_eq!(corpus.len(), 6);
/// assert_eq!(corpus.labels.num_clusters(), 2);
/// assert_eq!(corpus.texts()[0], bases[0]);
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct SyntheticCorpus {
    /// The documents: base 0's original followed by its variants, then base 1's, and
    /// so on.
    pub docs: Vec<LabeledDoc>,
    /// The true clustering of `docs` (label = source base index).
    pub labels: Labels,
}

impl SyntheticCorpus {
    /// The documents' texts, in order.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::eval::{generate_corpus, SynthConfig};
    /// let corpus = generate_corpus(&["Hi there."], &SynthConfig { variants_per_base: 0, ..SynthConfig::new(0) })?;
    /// assert_eq!(corpus.texts(), vec!["Hi there."]);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn texts(&self) -> Vec<&str> {
        self.docs.iter().map(|d| d.text.as_str()).collect()
    }

    /// Number of documents.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::eval::{generate_corpus, SynthConfig};
    /// let empty: [&str; 0] = [];
    /// assert_eq!(generate_corpus(&empty, &SynthConfig::new(0))?.len(), 0);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn len(&self) -> usize {
        self.docs.len()
    }

    /// Whether there are no documents.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::eval::{generate_corpus, SynthConfig};
    /// let empty: [&str; 0] = [];
    /// assert!(generate_corpus(&empty, &SynthConfig::new(0))?.is_empty());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.docs.is_empty()
    }
}

/// The true clustering of generated documents: documents with the same
/// [`LabeledDoc::source`] form one cluster.
///
/// # Example
///
/// ```
/// use near_dup::eval::{generate_variants, labels_of, SynthConfig};
/// let docs = generate_variants(&["Alpha beta.", "Gamma delta."], &SynthConfig::new(5))?;
/// let labels = labels_of(&docs);
/// assert_eq!(labels.len(), 10);
/// assert_eq!(labels.num_clusters(), 2);
/// # Ok::<(), near_dup::Error>(())
/// ```
#[must_use]
pub fn labels_of(docs: &[LabeledDoc]) -> Labels {
    let sources: Vec<usize> = docs.iter().map(|d| d.source).collect();
    Labels::new(&sources)
}

/// Generates [`SynthConfig::variants_per_base`] near-duplicate variants of every base
/// text (base 0's variants first), each labeled with its base index and edit kind. The
/// base texts themselves are not included; see [`generate_corpus`] for that.
///
/// Every variant of a kind other than [`EditKind::Exact`] differs from its base: when an
/// edit cannot change a text (for example reordering a text with a single block, or
/// deleting from it), one word is changed as in [`EditKind::MinorChange`] instead.
/// Words are runs of non-whitespace characters (punctuation around them is kept as
/// is); in scripts written without spaces (Chinese, Japanese, Thai) every character
/// counts as a word. Texts are handled as Unicode characters, so any UTF-8 text is
/// safe. An empty list of
/// base texts gives an empty result.
///
/// # Errors
///
/// * [`Error::InvalidParameter`] when `config` is invalid (see
///   [`SynthConfig::validate`]), or when [`EditKind::AppendedUnrelated`] has a positive
///   weight but there are fewer than two base texts (it needs another base to borrow
///   paragraphs from).
/// * [`Error::InvalidInput`] when a base text has no words (is empty or whitespace).
///
/// # Example
///
/// ```
/// use near_dup::eval::{generate_variants, EditKind, SynthConfig};
/// let bases = [
///     "We urge the agency to adopt the strict mercury standard.\n\nOur children deserve clean air.",
///     "Fuel economy rules should be raised.\n\nPlease consider the consumers.",
/// ];
/// let config = SynthConfig { seed: 11, variants_per_base: 4, ..SynthConfig::default() };
/// let docs = generate_variants(&bases, &config)?;
/// assert_eq!(docs.len(), 8);
/// assert!(docs.iter().all(|d| d.kind == EditKind::Exact || d.text != bases[d.source]));
/// assert_eq!(docs, generate_variants(&bases, &config)?); // deterministic
/// # Ok::<(), near_dup::Error>(())
/// ```
pub fn generate_variants<S: AsRef<str>>(
    bases: &[S],
    config: &SynthConfig,
) -> Result<Vec<LabeledDoc>, Error> {
    config.validate()?;
    if bases.is_empty() || config.variants_per_base == 0 {
        return Ok(Vec::new());
    }
    let texts: Vec<&str> = bases.iter().map(AsRef::as_ref).collect();
    for (i, t) in texts.iter().enumerate() {
        if t.trim().is_empty() {
            return Err(Error::invalid_input(format!("base text {i} has no words")));
        }
    }
    let appended = config
        .kinds
        .iter()
        .any(|&(k, w)| k == EditKind::AppendedUnrelated && w > 0.0);
    if appended && texts.len() < 2 {
        return Err(Error::invalid_parameter(
            "kinds",
            "`appended-unrelated` needs at least two base texts",
        ));
    }
    let blocks: Vec<Blocks> = texts.iter().map(|t| split_blocks(t)).collect();
    let vocab: Vec<&str> = texts
        .iter()
        .flat_map(|t| word_units(t).into_iter().map(|(s, e)| core_of(&t[s..e])))
        .filter(|c| !c.is_empty())
        .collect::<BTreeSet<&str>>()
        .into_iter()
        .collect();
    let ctx = Ctx {
        config,
        texts: &texts,
        blocks: &blocks,
        vocab: &vocab,
    };
    let mut rng = ChaCha8Rng::seed_from_u64(config.seed);
    let mut out = Vec::with_capacity(texts.len().saturating_mul(config.variants_per_base));
    for (source, &base) in texts.iter().enumerate() {
        for _ in 0..config.variants_per_base {
            let kind = pick_kind(&config.kinds, &mut rng, EditKind::Exact);
            let mut text = ctx.apply(kind, source, &mut rng);
            if kind != EditKind::Exact && text == base {
                text = ctx.change_words(&text, 0.0, &mut rng, false);
            }
            out.push(LabeledDoc { text, source, kind });
        }
    }
    Ok(out)
}

/// Generates a labeled corpus: every base text (as [`EditKind::Original`]) followed by
/// its variants from [`generate_variants`] (the same variants for the same config),
/// with the true clustering.
///
/// # Errors
///
/// As [`generate_variants`]; additionally [`Error::InvalidInput`] for a base text with
/// no words even when no variants are requested.
///
/// # Example
///
/// ```
/// use near_dup::eval::{generate_corpus, EditKind, SynthConfig};
/// let bases = ["Save the wetlands. They shelter birds.", "Lower the speed limit. Streets are unsafe."];
/// let corpus = generate_corpus(&bases, &SynthConfig { variants_per_base: 3, ..SynthConfig::new(1) })?;
/// assert_eq!(corpus.docs[0].kind, EditKind::Original);
/// assert_eq!(corpus.docs[4].text, bases[1]);
/// assert_eq!(corpus.labels.true_pairs(), 2 * 6); // two clusters of 4
/// # Ok::<(), near_dup::Error>(())
/// ```
pub fn generate_corpus<S: AsRef<str>>(
    bases: &[S],
    config: &SynthConfig,
) -> Result<SyntheticCorpus, Error> {
    for (i, t) in bases.iter().enumerate() {
        if t.as_ref().trim().is_empty() {
            return Err(Error::invalid_input(format!("base text {i} has no words")));
        }
    }
    let variants = generate_variants(bases, config)?;
    let per = config.variants_per_base;
    let mut variants = variants.into_iter();
    let mut docs = Vec::with_capacity(bases.len().saturating_mul(per.saturating_add(1)));
    for (source, base) in bases.iter().enumerate() {
        docs.push(LabeledDoc {
            text: base.as_ref().to_string(),
            source,
            kind: EditKind::Original,
        });
        docs.extend(variants.by_ref().take(per));
    }
    let labels = labels_of(&docs);
    Ok(SyntheticCorpus { docs, labels })
}

/// A text cut into blocks, with the separator used to join them again.
#[derive(Debug)]
pub(crate) struct Blocks {
    pub(crate) parts: Vec<String>,
    pub(crate) sep: &'static str,
}

/// Paragraphs (split on blank lines); for a single paragraph, sentences; for a single
/// sentence, up to four word spans.
pub(crate) fn split_blocks(text: &str) -> Blocks {
    let mut paragraphs = Vec::new();
    let mut current: Vec<&str> = Vec::new();
    for line in text.lines() {
        if line.trim().is_empty() {
            if !current.is_empty() {
                paragraphs.push(current.join("\n").trim().to_string());
                current.clear();
            }
        } else {
            current.push(line);
        }
    }
    if !current.is_empty() {
        paragraphs.push(current.join("\n").trim().to_string());
    }
    if paragraphs.len() >= 2 {
        return Blocks {
            parts: paragraphs,
            sep: "\n\n",
        };
    }
    let trimmed = text.trim();
    let sentences = split_sentences(trimmed);
    if sentences.len() >= 2 {
        return Blocks {
            parts: sentences,
            sep: " ",
        };
    }
    let words: Vec<&str> = trimmed.split_whitespace().collect();
    let chunks = words.len().clamp(1, 4);
    let per = words.len().div_ceil(chunks).max(1);
    Blocks {
        parts: words.chunks(per).map(|c| c.join(" ")).collect(),
        sep: " ",
    }
}

/// Sentences end after `.`, `!` or `?` followed by whitespace or the end of the text,
/// and after the CJK full-width forms `。`, `！`, `？`.
fn split_sentences(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let full_width = matches!(c, '。' | '！' | '？');
        if full_width || matches!(c, '.' | '!' | '?') {
            let next_is_break = full_width || chars.peek().is_none_or(|&(_, n)| n.is_whitespace());
            if next_is_break {
                let end = i + c.len_utf8();
                let s = text[start..end].trim();
                if !s.is_empty() {
                    out.push(s.to_string());
                }
                start = end;
            }
        }
    }
    let rest = text[start..].trim();
    if !rest.is_empty() {
        out.push(rest.to_string());
    }
    out
}

/// Scripts written without spaces between words (Chinese, Japanese, Thai): each of
/// their characters counts as one word.
fn is_unspaced_script(c: char) -> bool {
    matches!(c,
        '\u{0E00}'..='\u{0E7F}'   // Thai
        | '\u{3040}'..='\u{30FF}' // Hiragana, Katakana
        | '\u{3400}'..='\u{4DBF}' // CJK extension A
        | '\u{4E00}'..='\u{9FFF}' // CJK unified ideographs
        | '\u{F900}'..='\u{FAFF}' // CJK compatibility ideographs
        | '\u{20000}'..='\u{2FFFF}')
}

/// Byte ranges of the "words" of `text`: maximal runs of non-whitespace characters,
/// except that every character of a script written without spaces is its own word.
pub(crate) fn word_units(text: &str) -> Vec<(usize, usize)> {
    let mut units = Vec::new();
    let mut start = None;
    for (i, c) in text.char_indices() {
        let single = is_unspaced_script(c);
        if c.is_whitespace() || single {
            if let Some(s) = start.take() {
                units.push((s, i));
            }
            if single {
                units.push((i, i + c.len_utf8()));
            }
        } else if start.is_none() {
            start = Some(i);
        }
    }
    if let Some(s) = start {
        units.push((s, text.len()));
    }
    units
}

/// The alphanumeric core of a whitespace-delimited token (leading and trailing
/// punctuation removed).
pub(crate) fn core_of(token: &str) -> &str {
    token.trim_matches(|c: char| !c.is_alphanumeric())
}

/// Everything the edits need to know about the corpus.
struct Ctx<'a> {
    config: &'a SynthConfig,
    texts: &'a [&'a str],
    blocks: &'a [Blocks],
    vocab: &'a [&'a str],
}

impl Ctx<'_> {
    fn apply(&self, kind: EditKind, source: usize, rng: &mut ChaCha8Rng) -> String {
        let base = self.texts[source];
        let blocks = &self.blocks[source];
        match kind {
            EditKind::Original | EditKind::Exact => base.to_string(),
            EditKind::MinorChange => {
                self.change_words(base, self.config.minor_change_fraction, rng, false)
            }
            EditKind::Misspelled => {
                self.change_words(base, self.config.misspell_fraction, rng, true)
            }
            EditKind::BlockAdded => self.block_added(blocks, rng),
            EditKind::BlockDeleted => block_deleted(blocks, self.config.max_blocks, rng)
                .unwrap_or_else(|| base.to_string()),
            EditKind::KeyBlock => self.key_block(blocks, rng),
            EditKind::MinorChangeAndBlockEdit => {
                let edited = if rng.random_bool(0.5) {
                    block_deleted(blocks, self.config.max_blocks, rng)
                } else {
                    None
                };
                let edited = edited.unwrap_or_else(|| self.block_added(blocks, rng));
                self.change_words(&edited, self.config.minor_change_fraction, rng, false)
            }
            EditKind::BlockReordering => reordered(blocks, rng).unwrap_or_else(|| base.to_string()),
            EditKind::Repeated => {
                let copies = rng.random_range(2..=self.config.max_repeats);
                vec![base.trim(); copies].join("\n\n")
            }
            EditKind::AppendedUnrelated => self.appended(source, rng),
        }
    }

    /// A new block of 8–40 words drawn from the corpus vocabulary.
    fn new_block(&self, rng: &mut ChaCha8Rng) -> String {
        let len = rng.random_range(8..=40usize);
        let mut words = Vec::with_capacity(len);
        for _ in 0..len {
            let w = self.vocab.get(rng.random_range(0..self.vocab.len().max(1)));
            words.push(w.copied().unwrap_or("text"));
        }
        let mut block = words.join(" ");
        block.push('.');
        block
    }

    fn block_added(&self, blocks: &Blocks, rng: &mut ChaCha8Rng) -> String {
        let mut parts = blocks.parts.clone();
        let k = rng.random_range(1..=self.config.max_blocks);
        for _ in 0..k {
            let at = rng.random_range(0..=parts.len());
            parts.insert(at, self.new_block(rng));
        }
        parts.join(blocks.sep)
    }

    fn key_block(&self, blocks: &Blocks, rng: &mut ChaCha8Rng) -> String {
        let n = blocks.parts.len();
        let run = rng.random_range(1..=(n / 2).max(1));
        let start = rng.random_range(0..=n - run);
        let mut before = rng.random_range(0..=self.config.max_blocks);
        let after = rng.random_range(0..=self.config.max_blocks);
        if before + after == 0 {
            before = 1;
        }
        let mut parts = Vec::with_capacity(before + run + after);
        for _ in 0..before {
            parts.push(self.new_block(rng));
        }
        parts.extend(blocks.parts[start..start + run].iter().cloned());
        for _ in 0..after {
            parts.push(self.new_block(rng));
        }
        parts.join(blocks.sep)
    }

    fn appended(&self, source: usize, rng: &mut ChaCha8Rng) -> String {
        let n = self.texts.len();
        let base = self.texts[source];
        if n < 2 {
            return base.to_string();
        }
        let mut other = rng.random_range(0..n - 1);
        if other >= source {
            other += 1;
        }
        let parts = &self.blocks[other].parts;
        let k = rng.random_range(1..=self.config.max_blocks.min(parts.len()).max(1));
        let k = k.min(parts.len());
        let start = rng.random_range(0..=parts.len() - k);
        let mut text = base.trim_end().to_string();
        for p in &parts[start..start + k] {
            text.push_str("\n\n");
            text.push_str(p);
        }
        text
    }

    /// Changes `fraction` of the words of `text` (at least one): replaced by another
    /// vocabulary word, or misspelled when `misspell` is set. Whitespace and the
    /// punctuation around words are kept.
    fn change_words(
        &self,
        text: &str,
        fraction: f64,
        rng: &mut ChaCha8Rng,
        misspell: bool,
    ) -> String {
        let tokens = word_units(text);
        // Core byte range of each token: alphanumeric core, or the whole token when it
        // has none and no token has one.
        let cores: Vec<(usize, usize)> = tokens
            .iter()
            .filter_map(|&(s, e)| {
                let tok = &text[s..e];
                let core = core_of(tok);
                if core.is_empty() {
                    None
                } else {
                    let lead =
                        tok.len() - tok.trim_start_matches(|c: char| !c.is_alphanumeric()).len();
                    Some((s + lead, s + lead + core.len()))
                }
            })
            .collect();
        let cores = if cores.is_empty() { tokens } else { cores };
        if cores.is_empty() {
            return text.to_string();
        }
        let n = cores.len();
        let want = (fraction * n as f64).round();
        // `want` is in [0, n] because fraction is in [0, 1]; clamp anyway.
        let k = if want >= n as f64 {
            n
        } else if want >= 1.0 {
            // Truncation impossible: 1 <= want < n.
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
            let k = want as usize;
            k
        } else {
            1
        };
        let mut chosen: Vec<usize> = sample(rng, n, k).into_vec();
        chosen.sort_unstable();
        let mut out = String::with_capacity(text.len() + 8 * k);
        let mut prev = 0;
        for idx in chosen {
            let (s, e) = cores[idx];
            out.push_str(&text[prev..s]);
            let word = &text[s..e];
            if misspell {
                out.push_str(&misspelled(word, rng));
            } else {
                out.push_str(&self.replacement(word, rng));
            }
            prev = e;
        }
        out.push_str(&text[prev..]);
        out
    }

    /// A vocabulary word different from `word` (or a misspelling when there is none).
    fn replacement(&self, word: &str, rng: &mut ChaCha8Rng) -> String {
        if self.vocab.len() >= 2 {
            let i = rng.random_range(0..self.vocab.len());
            let w = self.vocab[i];
            if w != word {
                return w.to_string();
            }
            return self.vocab[(i + 1) % self.vocab.len()].to_string();
        }
        misspelled(word, rng)
    }
}

/// A misspelling of a non-empty `word` that always differs from it: two adjacent
/// characters swapped, one substituted by another character of the word, one doubled, or
/// one dropped.
fn misspelled(word: &str, rng: &mut ChaCha8Rng) -> String {
    let mut chars: Vec<char> = word.chars().collect();
    let n = chars.len();
    if n == 0 {
        return "x".to_string();
    }
    match rng.random_range(0..4u8) {
        0 => {
            let swaps: Vec<usize> = (0..n - 1).filter(|&j| chars[j] != chars[j + 1]).collect();
            if !swaps.is_empty() {
                let j = swaps[rng.random_range(0..swaps.len())];
                chars.swap(j, j + 1);
                return chars.into_iter().collect();
            }
        }
        1 => {
            let j = rng.random_range(0..n);
            let others: Vec<char> = chars.iter().copied().filter(|&c| c != chars[j]).collect();
            if !others.is_empty() {
                chars[j] = others[rng.random_range(0..others.len())];
                return chars.into_iter().collect();
            }
        }
        2 if n >= 2 => {
            chars.remove(rng.random_range(0..n));
            return chars.into_iter().collect();
        }
        _ => {}
    }
    let j = rng.random_range(0..n);
    chars.insert(j, chars[j]);
    chars.into_iter().collect()
}

/// Removes 1..=max_blocks blocks, keeping at least one; `None` with fewer than 2 blocks.
fn block_deleted(blocks: &Blocks, max_blocks: usize, rng: &mut ChaCha8Rng) -> Option<String> {
    let n = blocks.parts.len();
    if n < 2 {
        return None;
    }
    let k = rng.random_range(1..=max_blocks.min(n - 1));
    let mut drop = vec![false; n];
    for i in sample(rng, n, k) {
        drop[i] = true;
    }
    let kept: Vec<&str> = blocks
        .parts
        .iter()
        .zip(&drop)
        .filter(|&(_, &d)| !d)
        .map(|(p, _)| p.as_str())
        .collect();
    Some(kept.join(blocks.sep))
}

/// The blocks in a different order; `None` when no order differs.
fn reordered(blocks: &Blocks, rng: &mut ChaCha8Rng) -> Option<String> {
    let n = blocks.parts.len();
    if n < 2 {
        return None;
    }
    let mut parts: Vec<&str> = blocks.parts.iter().map(String::as_str).collect();
    parts.shuffle(rng);
    if parts
        .iter()
        .zip(&blocks.parts)
        .all(|(a, b)| *a == b.as_str())
    {
        parts.rotate_left(1);
        if parts
            .iter()
            .zip(&blocks.parts)
            .all(|(a, b)| *a == b.as_str())
        {
            return None;
        }
    }
    Some(parts.join(blocks.sep))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_fall_back_to_sentences_and_word_spans() {
        let b = split_blocks("One. Two! Three?");
        assert_eq!(b.parts, vec!["One.", "Two!", "Three?"]);
        let b = split_blocks("a b c d e f g h i");
        assert_eq!(b.parts.len(), 3); // spans of 3 words
        let b = split_blocks("p1 line\nmore\n\n  \n\np2");
        assert_eq!(b.parts, vec!["p1 line\nmore", "p2"]);
        let b = split_blocks("単語。次の文。");
        assert_eq!(b.parts, vec!["単語。", "次の文。"]);
    }

    #[test]
    fn word_units_split_unspaced_scripts() {
        let text = "ab  c。漢字 x";
        let units: Vec<&str> = word_units(text).iter().map(|&(s, e)| &text[s..e]).collect();
        assert_eq!(units, vec!["ab", "c。", "漢", "字", "x"]);
    }

    #[test]
    fn misspelling_always_differs() {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        for w in ["a", "aa", "ab", "word", "ééé", "日本語"] {
            for _ in 0..50 {
                assert_ne!(misspelled(w, &mut rng), w);
            }
        }
    }
}
