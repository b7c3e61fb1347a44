//! Hard negatives: seeded "sibling" documents that share almost all of a real base
//! text but differ in one clause, one name, one number, or one short added paragraph,
//! and are therefore *different* documents, not near-duplicates.
//!
//! Real collections are full of them: the same license with another copyright holder,
//! the same package description for another version, the same contract with one
//! clause changed. A detector tuned only on the positive edits of
//! [`generate_variants`](crate::generate_variants) is never punished for calling them
//! duplicates; mixing siblings into a labeled set (as new base texts, each its own
//! cluster) is what makes a threshold sweep pay for it.

use std::collections::BTreeSet;

use ndd_core::Error;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::kinds::{check_weights, name_traits, pick_kind};
use crate::synth::{core_of, split_blocks, word_units};

/// How a sibling differs from its base text.
///
/// Words are runs of non-whitespace characters, as in
/// [`generate_variants`](crate::generate_variants); edits replace a word's alphanumeric
/// core and keep the punctuation around it, so the sibling has the same whitespace
/// layout as its base except for [`SiblingKind::ParagraphAdded`].
///
/// # Example
///
/// ```
/// use near_dup::eval::SiblingKind;
/// let kind: SiblingKind = "number-changed".parse()?;
/// assert_eq!(kind, SiblingKind::NumberChanged);
/// assert_eq!(kind.to_string(), "number-changed");
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SiblingKind {
    /// A run of consecutive words inside one clause (words between clause punctuation
    /// `, ; : . ! ?`) replaced by as many other words of the corpus vocabulary: the
    /// whole clause when it has at most [`SiblingConfig::max_clause_words`] words,
    /// otherwise a window of that many words of it.
    ClauseChanged,
    /// Every occurrence of one name (a capitalized word, preferably not the first word
    /// of a sentence) replaced by another capitalized word of the corpus vocabulary.
    NameChanged,
    /// One number changed: the last digit of one word containing digits is replaced by
    /// another digit (a year, a version, an amount).
    NumberChanged,
    /// One new paragraph of 3 to [`SiblingConfig::max_paragraph_words`] vocabulary words
    /// inserted between two blocks (paragraphs; sentences for a single-paragraph text).
    ParagraphAdded,
}

impl SiblingKind {
    /// Every kind.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::eval::SiblingKind;
    /// for kind in SiblingKind::ALL {
    ///     assert_eq!(kind.name().parse::<SiblingKind>()?, kind);
    /// }
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub const ALL: [SiblingKind; 4] = [
        SiblingKind::ClauseChanged,
        SiblingKind::NameChanged,
        SiblingKind::NumberChanged,
        SiblingKind::ParagraphAdded,
    ];

    /// The kebab-case name, also accepted by [`FromStr`](std::str::FromStr) and used by
    /// [`Display`](std::fmt::Display).
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::eval::SiblingKind::NameChanged.name(), "name-changed");
    /// ```
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            SiblingKind::ClauseChanged => "clause-changed",
            SiblingKind::NameChanged => "name-changed",
            SiblingKind::NumberChanged => "number-changed",
            SiblingKind::ParagraphAdded => "paragraph-added",
        }
    }
}

name_traits!(SiblingKind, "sibling");

/// Settings of the sibling (hard-negative) generator. Build with [`SiblingConfig::new`]
/// or [`Default`] and adjust the public fields; [`SiblingConfig::validate`] states the
/// allowed ranges.
///
/// # Example
///
/// ```
/// use near_dup::eval::{SiblingConfig, SiblingKind};
/// let config = SiblingConfig {
///     kinds: vec![(SiblingKind::NameChanged, 1.0), (SiblingKind::NumberChanged, 1.0)],
///     ..SiblingConfig::new(3)
/// };
/// assert!(config.validate().is_ok());
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct SiblingConfig {
    /// Seed of the random generator: the same seed, base texts and settings always give
    /// the same siblings. Default `0`.
    pub seed: u64,
    /// How many siblings to make of every base text. `0` is allowed. Default `1`.
    pub siblings_per_base: usize,
    /// Which differences to make, with relative weights (finite, `>= 0`, summing to
    /// more than `0` when siblings are requested). Default: every kind with weight `1`.
    pub kinds: Vec<(SiblingKind, f64)>,
    /// Most words a [`SiblingKind::ClauseChanged`] replaces; at least `1`. Default `12`.
    pub max_clause_words: usize,
    /// Most words of a [`SiblingKind::ParagraphAdded`] paragraph (each picks uniformly
    /// from `3..=max_paragraph_words`); at least `3`. Default `8`.
    pub max_paragraph_words: usize,
}

impl Default for SiblingConfig {
    fn default() -> Self {
        SiblingConfig {
            seed: 0,
            siblings_per_base: 1,
            kinds: SiblingKind::ALL.iter().map(|&k| (k, 1.0)).collect(),
            max_clause_words: 12,
            max_paragraph_words: 8,
        }
    }
}

impl SiblingConfig {
    /// The default settings with the given seed.
    ///
    /// # Example
    ///
    /// ```
    /// let config = near_dup::eval::SiblingConfig::new(7);
    /// assert_eq!((config.seed, config.siblings_per_base), (7, 1));
    /// ```
    #[must_use]
    pub fn new(seed: u64) -> Self {
        SiblingConfig {
            seed,
            ..SiblingConfig::default()
        }
    }

    /// The settings with only one kind (weight `1`).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::eval::{SiblingConfig, SiblingKind};
    /// let config = SiblingConfig::new(1).only(SiblingKind::ParagraphAdded);
    /// assert_eq!(config.kinds, vec![(SiblingKind::ParagraphAdded, 1.0)]);
    /// ```
    #[must_use]
    pub fn only(mut self, kind: SiblingKind) -> Self {
        self.kinds = vec![(kind, 1.0)];
        self
    }

    /// Checks every field's range.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] naming the field when a weight of `kinds` is negative
    /// or not finite, or the weights sum to `0` while `siblings_per_base > 0`; when
    /// `max_clause_words` is `0`; when `max_paragraph_words` is below `3`.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::eval::SiblingConfig;
    /// assert!(SiblingConfig::new(0).validate().is_ok());
    /// let bad = SiblingConfig { max_paragraph_words: 2, ..SiblingConfig::new(0) };
    /// assert!(bad.validate().is_err());
    /// ```
    pub fn validate(&self) -> Result<(), Error> {
        check_weights(&self.kinds, self.siblings_per_base, "sibling", |_| Ok(()))?;
        if self.max_clause_words == 0 {
            return Err(Error::invalid_parameter(
                "max_clause_words",
                "must be at least 1",
            ));
        }
        if self.max_paragraph_words < 3 {
            return Err(Error::invalid_parameter(
                "max_paragraph_words",
                "must be at least 3",
            ));
        }
        Ok(())
    }
}

/// A hard negative: a document made from base text [`base`](Self::base) that differs
/// from it by [`kind`](Self::kind) and is *not* its near-duplicate.
///
/// # Example
///
/// ```
/// use near_dup::eval::{generate_siblings, SiblingConfig, SiblingKind};
/// let bases = ["Released in 2019 under the MIT license."];
/// let sibs = generate_siblings(&bases, &SiblingConfig::new(1).only(SiblingKind::NumberChanged))?;
/// assert_eq!((sibs[0].base, sibs[0].kind), (0, SiblingKind::NumberChanged));
/// assert!(sibs[0].text.starts_with("Released in 201"));
/// assert_ne!(sibs[0].text, bases[0]);
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Sibling {
    /// The sibling's text.
    pub text: String,
    /// Index of the base text it was made from.
    pub base: usize,
    /// The difference actually made. It is the requested kind unless the base text
    /// offers nothing to edit for it: a text without digits falls back from
    /// [`SiblingKind::NumberChanged`] to [`SiblingKind::NameChanged`], a text without
    /// capitalized words from `NameChanged` to [`SiblingKind::ClauseChanged`] (the
    /// `NumberChanged` fallback continues the same way).
    pub kind: SiblingKind,
}

/// Generates [`SiblingConfig::siblings_per_base`] hard-negative siblings of every base
/// text (base 0's first). Every sibling differs from its base text.
///
/// To build a labeled set with hard negatives, append the siblings' texts to the base
/// texts and hand the lot to [`generate_corpus`](crate::generate_corpus): each sibling
/// is then a base of its own, with its own cluster and its own near-duplicate
/// variants, so every pair between a base's cluster and its sibling's cluster is a
/// labeled non-duplicate that shares most of its text.
///
/// # Errors
///
/// * [`Error::InvalidParameter`] when `config` is invalid (see
///   [`SiblingConfig::validate`]).
/// * [`Error::InvalidInput`] when a base text has no word with a letter or digit.
///
/// # Example
///
/// ```
/// use near_dup::eval::{generate_corpus, generate_siblings, SiblingConfig, SynthConfig};
/// let bases = vec![
///     "Copyright 2004 Alice Smith.\n\nPermission is granted to copy, modify and share this file.".to_string(),
///     "A fast, small image viewer.\n\nIt shows PNG and JPEG files and reads folders.".to_string(),
/// ];
/// let siblings = generate_siblings(&bases, &SiblingConfig::new(5))?;
/// let mut texts = bases.clone();
/// texts.extend(siblings.iter().map(|s| s.text.clone()));
/// let corpus = generate_corpus(&texts, &SynthConfig { variants_per_base: 2, ..SynthConfig::new(5) })?;
/// // Four clusters of three documents: two bases and two siblings, each with 2 variants.
/// assert_eq!(corpus.labels.num_clusters(), 4);
/// assert_eq!(corpus.labels.true_pairs(), 4 * 3);
/// # Ok::<(), near_dup::Error>(())
/// ```
pub fn generate_siblings<S: AsRef<str>>(
    bases: &[S],
    config: &SiblingConfig,
) -> Result<Vec<Sibling>, Error> {
    config.validate()?;
    let texts: Vec<&str> = bases.iter().map(AsRef::as_ref).collect();
    let cores: Vec<Vec<(usize, usize)>> = texts.iter().map(|t| core_ranges(t)).collect();
    for (i, c) in cores.iter().enumerate() {
        if c.is_empty() {
            return Err(Error::invalid_input(format!(
                "base text {i} has no word with a letter or digit"
            )));
        }
    }
    if config.siblings_per_base == 0 {
        return Ok(Vec::new());
    }
    let mut vocab = BTreeSet::new();
    for (t, c) in texts.iter().zip(&cores) {
        vocab.extend(c.iter().map(|&(s, e)| &t[s..e]));
    }
    let vocab: Vec<&str> = vocab.into_iter().collect();
    let names: Vec<&str> = vocab.iter().copied().filter(|w| is_name(w)).collect();
    let mut rng = ChaCha8Rng::seed_from_u64(config.seed);
    let mut out = Vec::with_capacity(texts.len().saturating_mul(config.siblings_per_base));
    for (base, (&text, cores)) in texts.iter().zip(&cores).enumerate() {
        for _ in 0..config.siblings_per_base {
            let wanted = pick_kind(&config.kinds, &mut rng, SiblingKind::ClauseChanged);
            let edit = Edit {
                text,
                cores,
                vocab: &vocab,
                names: &names,
                config,
            };
            let (text, kind) = edit.apply(wanted, &mut rng);
            out.push(Sibling { text, base, kind });
        }
    }
    Ok(out)
}

/// Byte ranges of the alphanumeric cores of the words of `text`.
fn core_ranges(text: &str) -> Vec<(usize, usize)> {
    word_units(text)
        .into_iter()
        .filter_map(|(s, e)| {
            let tok = &text[s..e];
            let core = core_of(tok);
            if core.is_empty() {
                None
            } else {
                let lead = tok.len() - tok.trim_start_matches(|c: char| !c.is_alphanumeric()).len();
                Some((s + lead, s + lead + core.len()))
            }
        })
        .collect()
}

/// A name: at least two characters, all alphabetic, the first uppercase.
fn is_name(word: &str) -> bool {
    let mut chars = word.chars();
    chars.next().is_some_and(char::is_uppercase)
        && word.chars().count() >= 2
        && word.chars().all(char::is_alphabetic)
}

/// One base text and what the edits draw from.
struct Edit<'a> {
    text: &'a str,
    cores: &'a [(usize, usize)],
    vocab: &'a [&'a str],
    names: &'a [&'a str],
    config: &'a SiblingConfig,
}

impl Edit<'_> {
    fn apply(&self, kind: SiblingKind, rng: &mut ChaCha8Rng) -> (String, SiblingKind) {
        match kind {
            SiblingKind::NumberChanged => match self.number_changed(rng) {
                Some(t) => (t, kind),
                None => self.apply(SiblingKind::NameChanged, rng),
            },
            SiblingKind::NameChanged => match self.name_changed(rng) {
                Some(t) => (t, kind),
                None => self.apply(SiblingKind::ClauseChanged, rng),
            },
            SiblingKind::ClauseChanged => (self.clause_changed(rng), kind),
            SiblingKind::ParagraphAdded => (self.paragraph_added(rng), kind),
        }
    }

    /// The text with the given core ranges (sorted, disjoint) replaced.
    fn replace(&self, edits: &[((usize, usize), String)]) -> String {
        let mut out = String::with_capacity(self.text.len() + 16);
        let mut prev = 0;
        for ((s, e), w) in edits {
            out.push_str(&self.text[prev..*s]);
            out.push_str(w);
            prev = *e;
        }
        out.push_str(&self.text[prev..]);
        out
    }

    fn number_changed(&self, rng: &mut ChaCha8Rng) -> Option<String> {
        let with_digit: Vec<(usize, usize)> = self
            .cores
            .iter()
            .copied()
            .filter(|&(s, e)| self.text[s..e].bytes().any(|b| b.is_ascii_digit()))
            .collect();
        if with_digit.is_empty() {
            return None;
        }
        let (s, e) = with_digit[rng.random_range(0..with_digit.len())];
        let word = &self.text[s..e];
        // The last ASCII digit of the word becomes another digit.
        let pos = word.bytes().rposition(|b| b.is_ascii_digit())?;
        let old = word.as_bytes()[pos] - b'0';
        let new = (old + rng.random_range(1..=9u8)) % 10;
        let mut changed = word.to_string();
        changed.replace_range(pos..=pos, &char::from(b'0' + new).to_string());
        Some(self.replace(&[((s, e), changed)]))
    }

    fn name_changed(&self, rng: &mut ChaCha8Rng) -> Option<String> {
        // Names not at a sentence start first; any capitalized word otherwise.
        let mut mid = BTreeSet::new();
        let mut any = BTreeSet::new();
        for (i, &(s, e)) in self.cores.iter().enumerate() {
            let w = &self.text[s..e];
            if !is_name(w) {
                continue;
            }
            any.insert(w);
            let sentence_start = i == 0 || {
                let before = self.text[..s].trim_end();
                before.ends_with(['.', '!', '?', ':']) || self.text[..s].ends_with("\n\n")
            };
            if !sentence_start {
                mid.insert(w);
            }
        }
        let pool: Vec<&str> = if mid.is_empty() { any } else { mid }.into_iter().collect();
        if pool.is_empty() {
            return None;
        }
        let old = pool[rng.random_range(0..pool.len())];
        let new = if self.names.len() >= 2 {
            let i = rng.random_range(0..self.names.len());
            if self.names[i] == old {
                self.names[(i + 1) % self.names.len()].to_string()
            } else {
                self.names[i].to_string()
            }
        } else {
            // No other name in the corpus: a made-up one.
            format!("{old}son")
        };
        let edits: Vec<((usize, usize), String)> = self
            .cores
            .iter()
            .filter(|&&(s, e)| &self.text[s..e] == old)
            .map(|&r| (r, new.clone()))
            .collect();
        Some(self.replace(&edits))
    }

    fn clause_changed(&self, rng: &mut ChaCha8Rng) -> String {
        // Clauses: runs of words, a word whose token ends in clause punctuation ending one.
        let units = word_units(self.text);
        let mut clauses: Vec<(usize, usize)> = Vec::new(); // index ranges into cores
        let mut start = 0;
        let mut ci = 0;
        for &(_, ue) in &units {
            // Advance over the cores inside this unit.
            while ci < self.cores.len() && self.cores[ci].1 <= ue {
                ci += 1;
            }
            let ends_clause = self.text[..ue].ends_with([',', ';', ':', '.', '!', '?']);
            if ends_clause && ci > start {
                clauses.push((start, ci));
                start = ci;
            }
        }
        if self.cores.len() > start {
            clauses.push((start, self.cores.len()));
        }
        let multi: Vec<(usize, usize)> = clauses
            .iter()
            .copied()
            .filter(|&(a, b)| b - a >= 2)
            .collect();
        let pool = if multi.is_empty() { &clauses } else { &multi };
        let (a, b) = pool[rng.random_range(0..pool.len())];
        let len = (b - a).min(self.config.max_clause_words);
        let from = a + rng.random_range(0..=(b - a - len));
        let mut edits = Vec::with_capacity(len);
        for (j, &(s, e)) in self.cores[from..from + len].iter().enumerate() {
            let old = &self.text[s..e];
            let i = rng.random_range(0..self.vocab.len());
            let w = if j > 0 || self.vocab[i] != old {
                self.vocab[i].to_string()
            } else if self.vocab.len() >= 2 {
                // The first word always changes, so the sibling differs from its base.
                self.vocab[(i + 1) % self.vocab.len()].to_string()
            } else {
                format!("{old}x")
            };
            edits.push(((s, e), w));
        }
        self.replace(&edits)
    }

    fn paragraph_added(&self, rng: &mut ChaCha8Rng) -> String {
        let blocks = split_blocks(self.text);
        let len = rng.random_range(3..=self.config.max_paragraph_words);
        let words: Vec<&str> = (0..len)
            .map(|_| self.vocab[rng.random_range(0..self.vocab.len())])
            .collect();
        let mut para = words.join(" ");
        para.push('.');
        let mut parts = blocks.parts;
        let at = rng.random_range(0..=parts.len());
        parts.insert(at, para);
        parts.join(blocks.sep)
    }
}
