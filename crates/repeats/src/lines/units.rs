//! Units in a text (lines or paragraphs, with the bytes their removal takes) and
//! their normalized hash.

use std::ops::Range;

use ndd_core::hash::StableHasher;
use ndd_shingle::{hash_token, hash_token_nfkc_form};

use super::config::{Normalization, Unit};

/// The seed of the unit hash (XXH3-64, the workspace's specified hash).
const SEED: u64 = 0;

/// One unit of a text: its own bytes, and the bytes its removal takes (its line end,
/// and for a paragraph the blank lines after it).
///
/// # Example
///
/// ```
/// use near_dup::repeats::lines::{units, Unit};
/// let spans: Vec<_> = units("menu\r\nbody", Unit::Line).collect();
/// assert_eq!((spans[0].text.clone(), spans[0].removal.clone()), (0..4, 0..6));
/// assert_eq!((spans[1].text.clone(), spans[1].removal.clone()), (6..10, 6..10));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnitSpan {
    /// The unit's text, without its line end.
    pub text: Range<usize>,
    /// What removing the unit cuts from the document.
    pub removal: Range<usize>,
}

/// The units of `text` in order. Every line is a unit of [`Unit::Line`], blank ones
/// too (they have no hash: [`Normalizer::hash`] is `None`); a paragraph starts at a
/// line that is not blank, and blank lines before the first paragraph belong to no
/// unit.
///
/// # Example
///
/// ```
/// use near_dup::repeats::lines::{units, Unit};
/// let text = "\nHome | About\nContact\n\n\nThe article.\n";
/// let paragraphs: Vec<&str> = units(text, Unit::Paragraph).map(|u| &text[u.text]).collect();
/// assert_eq!(paragraphs, ["Home | About\nContact", "The article."]);
/// assert_eq!(units(text, Unit::Line).count(), 6);
/// ```
pub fn units(text: &str, unit: Unit) -> Units<'_> {
    Units { text, pos: 0, unit }
}

/// The iterator of [`units`].
///
/// # Example
///
/// ```
/// let mut it = near_dup::repeats::lines::units("a\nb", Default::default());
/// assert_eq!(it.next().map(|u| u.removal), Some(0..2));
/// ```
#[derive(Debug, Clone)]
pub struct Units<'a> {
    text: &'a str,
    pos: usize,
    unit: Unit,
}

impl Units<'_> {
    /// The line at `start`: its content's end and the end of its line end.
    fn line_at(&self, start: usize) -> (usize, usize) {
        let rest = &self.text.as_bytes()[start..];
        let end = rest
            .iter()
            .position(|&b| b == b'\n')
            .map_or(self.text.len(), |i| start + i + 1);
        let mut content = end;
        while content > start && matches!(self.text.as_bytes()[content - 1], b'\n' | b'\r') {
            content -= 1;
        }
        (content, end)
    }

    fn blank(&self, start: usize, content: usize) -> bool {
        self.text[start..content].trim().is_empty()
    }
}

impl Iterator for Units<'_> {
    type Item = UnitSpan;

    fn next(&mut self) -> Option<UnitSpan> {
        let len = self.text.len();
        if self.unit == Unit::Line {
            if self.pos >= len {
                return None;
            }
            let start = self.pos;
            let (content, end) = self.line_at(start);
            self.pos = end;
            return Some(UnitSpan {
                text: start..content,
                removal: start..end,
            });
        }
        // Blank lines before the paragraph belong to no unit.
        while self.pos < len {
            let (content, end) = self.line_at(self.pos);
            if !self.blank(self.pos, content) {
                break;
            }
            self.pos = end;
        }
        if self.pos >= len {
            return None;
        }
        let start = self.pos;
        let mut text_end = start;
        while self.pos < len {
            let (content, end) = self.line_at(self.pos);
            if self.blank(self.pos, content) {
                break;
            }
            text_end = content;
            self.pos = end;
        }
        // The blank lines after it go with it.
        while self.pos < len {
            let (content, end) = self.line_at(self.pos);
            if !self.blank(self.pos, content) {
                break;
            }
            self.pos = end;
        }
        Some(UnitSpan {
            text: start..text_end,
            removal: start..self.pos,
        })
    }
}

/// The normalized hash of units: XXH3-64 of the little-endian token hashes of the
/// unit's whitespace-separated words, each word hashed as `ndd-shingle` hashes a
/// token (`hash_token`, or `hash_token_nfkc_form` with NFKC) after its numeric
/// characters became `0` (when [`Normalization::digits`]). A pure function of the
/// unit's text and the normalization, the same on every platform (persisted in the
/// out-of-core runs). Allocates only for a word with digits, in a reused buffer.
///
/// # Example
///
/// ```
/// use near_dup::repeats::lines::{Normalization, Normalizer};
/// let mut n = Normalizer::new(Normalization::default());
/// assert_eq!(n.hash("Copyright  2019 ACME"), n.hash("copyright 2024 acme"));
/// assert_ne!(n.hash("Copyright 2019 ACME"), n.hash("Copyright ACME"));
/// assert_eq!(n.hash(" \t"), None);
/// assert_eq!(n.hash("a  b").map(|(_, chars)| chars), Some(3));
/// ```
#[derive(Debug, Clone)]
pub struct Normalizer {
    normalization: Normalization,
    scratch: String,
}

impl Normalizer {
    /// A normalizer applying `normalization`.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::repeats::lines::{Normalization, Normalizer};
    /// let mut exact = Normalizer::new(Normalization::NONE);
    /// assert_ne!(exact.hash("A"), exact.hash("a"));
    /// ```
    #[must_use]
    pub fn new(normalization: Normalization) -> Self {
        Normalizer {
            normalization,
            scratch: String::new(),
        }
    }

    /// The hash of `unit` and its length in characters with whitespace collapsed
    /// (words joined by one space, before normalization), or `None` when it is blank.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::repeats::lines::{Normalization, Normalizer};
    /// let mut n = Normalizer::new(Normalization::default());
    /// let hash = |n: &mut Normalizer, s| n.hash(s).map(|(h, _)| h);
    /// assert_eq!(hash(&mut n, "ﬁle"), hash(&mut n, "FILE")); // NFKC, then case folding
    /// ```
    pub fn hash(&mut self, unit: &str) -> Option<(u64, usize)> {
        let Normalization {
            fold_case,
            nfkc,
            digits,
        } = self.normalization;
        let mut hasher = StableHasher::new(SEED);
        let (mut words, mut chars) = (0usize, 0usize);
        for word in unit.split_whitespace() {
            words += 1;
            chars += word.chars().count();
            let word = if digits && word.chars().any(char::is_numeric) {
                self.scratch.clear();
                self.scratch
                    .extend(word.chars().map(|c| if c.is_numeric() { '0' } else { c }));
                self.scratch.as_str()
            } else {
                word
            };
            let h = if nfkc {
                hash_token_nfkc_form(word, fold_case, SEED)
            } else {
                hash_token(word, fold_case, SEED)
            };
            hasher.update(&h.to_le_bytes());
        }
        (words > 0).then(|| (hasher.finish(), chars + words - 1))
    }
}
