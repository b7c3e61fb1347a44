//! Unicode-aware word tokenizing with byte offsets, case folding, token filters and
//! the token hash.

use ndd_core::hash::{StableHasher, stable_hash64};
use ndd_core::{Token, Tokenizer};

/// ASCII bytes that belong to words: `[A-Za-z0-9]`.
const fn ascii_word_table() -> [bool; 128] {
    let mut t = [false; 128];
    let mut b: u8 = 0;
    while b < 128 {
        t[b as usize] = b.is_ascii_alphanumeric();
        b += 1;
    }
    t
}
const ASCII_WORD: [bool; 128] = ascii_word_table();

/// Whether a non-ASCII character separates words: whitespace, controls, and the
/// punctuation and symbol blocks (Latin-1 punctuation, U+2000–U+2BFF from General
/// Punctuation through currency, arrows, mathematical operators, box drawing and
/// miscellaneous symbols, CJK punctuation, full-width ASCII punctuation, emoji).
/// Everything else outside ASCII (letters, digits and combining marks of every script)
/// is part of a word, so accents and vowel signs stay attached.
#[inline]
fn is_separator(c: char) -> bool {
    let u = c as u32;
    c.is_whitespace()
        || c.is_control()
        || (0x00A0..=0x00BF).contains(&u)
        || u == 0x00D7
        || u == 0x00F7
        || (0x2000..=0x2BFF).contains(&u)
        || (0x3000..=0x303F).contains(&u)
        || (0xFE10..=0xFE1F).contains(&u)
        || (0xFE30..=0xFE4F).contains(&u)
        || (0xFF00..=0xFF0F).contains(&u)
        || (0xFF1A..=0xFF20).contains(&u)
        || (0xFF3B..=0xFF40).contains(&u)
        || (0xFF5B..=0xFF65).contains(&u)
        || (0x1F000..=0x1FAFF).contains(&u)
        || u == 0xFEFF
        || u == 0xFFFD
}

/// Whether a character is written without spaces between words and becomes a token
/// on its own: Han ideographs, Hiragana, Katakana (as in Unicode's word-boundary
/// rules, UAX #29, for ideographs).
#[inline]
fn is_ideographic(c: char) -> bool {
    let u = c as u32;
    (0x3040..=0x30FF).contains(&u)
        || (0x3400..=0x4DBF).contains(&u)
        || (0x4E00..=0x9FFF).contains(&u)
        || (0xF900..=0xFAFF).contains(&u)
        || (0xFF66..=0xFF9F).contains(&u)
        || (0x20000..=0x3FFFF).contains(&u)
}

/// Splits text into words with byte offsets.
///
/// A word is a maximal run of word characters: ASCII letters and digits, and every
/// non-ASCII character that is not whitespace, a control, or in a punctuation or
/// symbol block (so `café`, `naïve`, `Straße`, `хорошо`, `हिन्दी` are single words with
/// their marks). Ideographic characters (Han, Hiragana, Katakana) are one token each,
/// since those scripts do not separate words by spaces; for them, and for other
/// unspaced scripts such as Thai, character k-grams ([`crate::CharShingler`]) are
/// usually the better feature. Everything else separates words, including `'`, `-`
/// and `_`.
///
/// Offsets are byte offsets into the input; the token text is the original slice
/// (case folding happens when tokens are hashed).
///
/// # Example
///
/// ```
/// use ndd_shingle::{Tokenizer, WordTokenizer};
/// let text = "Café au lait, s'il vous plaît: 東京";
/// let words: Vec<(&str, usize, usize)> = WordTokenizer::new()
///     .tokens(text)
///     .iter()
///     .map(|t| (t.text, t.start, t.end))
///     .collect();
/// assert_eq!(words[0], ("Café", 0, 5));
/// assert_eq!(words[4], ("il", 17, 19));
/// assert_eq!(&words[7..], &[("東", 33, 36), ("京", 36, 39)]);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WordTokenizer {
    _private: (),
}

impl WordTokenizer {
    /// The tokenizer (it has no parameters).
    ///
    /// # Example
    ///
    /// ```
    /// use ndd_shingle::{Tokenizer, WordTokenizer};
    /// assert_eq!(WordTokenizer::new().tokens("a-b").len(), 2);
    /// ```
    #[must_use]
    pub const fn new() -> Self {
        WordTokenizer { _private: () }
    }
}

impl Tokenizer for WordTokenizer {
    #[inline]
    fn for_each_token<F: FnMut(Token<'_>)>(&self, text: &str, mut f: F) {
        scan_words::<false, _>(text, |start, end, _| {
            f(Token {
                text: &text[start..end],
                start,
                end,
            });
        });
    }
}

/// Length of the buffer in which [`scan_words`] lowercases short ASCII tokens.
pub(crate) const FOLD_BUF: usize = 48;

/// The word scanner behind [`WordTokenizer`]: calls `f(start, end, folded)` for every
/// token. With `FOLD`, `folded` is the ASCII-lowercased token when the token is ASCII
/// and at most [`FOLD_BUF`] bytes long (lowercased while scanning, so the shingler
/// hashes it without a second pass), else `None`.
#[inline]
pub(crate) fn scan_words<const FOLD: bool, F: FnMut(usize, usize, Option<&[u8]>)>(
    text: &str,
    mut f: F,
) {
    let bytes = text.as_bytes();
    let n = bytes.len();
    let mut buf = [0u8; FOLD_BUF];
    let mut i = 0;
    while i < n {
        // Skip separators.
        let b = bytes[i];
        if b < 0x80 {
            if !ASCII_WORD[b as usize] {
                i += 1;
                continue;
            }
        } else {
            let c = decode_at(text, i);
            if is_separator(c) {
                i += c.len_utf8();
                continue;
            }
            if is_ideographic(c) {
                let end = i + c.len_utf8();
                f(i, end, None);
                i = end;
                continue;
            }
        }
        // A word starts at i.
        let start = i;
        let mut ascii = true;
        while i < n {
            let b = bytes[i];
            if b < 0x80 {
                if !ASCII_WORD[b as usize] {
                    break;
                }
                if FOLD {
                    if let Some(slot) = buf.get_mut(i - start) {
                        *slot = b.to_ascii_lowercase();
                    }
                }
                i += 1;
            } else {
                let c = decode_at(text, i);
                if is_separator(c) || is_ideographic(c) {
                    break;
                }
                ascii = false;
                i += c.len_utf8();
            }
        }
        let folded = (FOLD && ascii && i - start <= FOLD_BUF).then(|| &buf[..i - start]);
        f(start, i, folded);
    }
}

/// The char starting at byte `i`, which must be a char boundary of `text`.
#[inline]
fn decode_at(text: &str, i: usize) -> char {
    text[i..].chars().next().unwrap_or('\u{FFFD}')
}

/// Which tokens to keep before shingling. The default keeps every token.
///
/// [`TokenFilter::imatch`] is the preprocessing of Chowdhury et al.'s I-Match
/// experiments (A. Kołcz, A. Chowdhury, J. Alspector, "Improved Robustness of
/// Signature-Based Near-Replica Detection via Lexicon Randomization", KDD 2004,
/// section 6.3): drop tokens with more than one digit or fewer than four characters.
///
/// # Example
///
/// ```
/// use ndd_shingle::TokenFilter;
/// let f = TokenFilter::imatch();
/// assert!(f.keeps("lexicon"));
/// assert!(!f.keeps("the"));      // fewer than four characters
/// assert!(!f.keeps("2004a1"));   // more than one digit
/// assert!(f.keeps("mp3s"));      // one digit is fine
/// assert!(TokenFilter::default().keeps("a"));
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TokenFilter {
    /// Tokens with fewer characters (Unicode scalar values) are dropped; 0 keeps all.
    pub min_chars: usize,
    /// Tokens with more decimal digits than this are dropped; `None` keeps all.
    pub max_digits: Option<usize>,
}

impl TokenFilter {
    /// Keeps every token.
    ///
    /// # Example
    ///
    /// ```
    /// assert!(ndd_shingle::TokenFilter::none().is_none());
    /// ```
    #[must_use]
    pub const fn none() -> Self {
        TokenFilter {
            min_chars: 0,
            max_digits: None,
        }
    }

    /// The I-Match preprocessing (paper 003 section 6.3): at least four characters and
    /// at most one digit.
    ///
    /// # Example
    ///
    /// ```
    /// let f = ndd_shingle::TokenFilter::imatch();
    /// assert_eq!((f.min_chars, f.max_digits), (4, Some(1)));
    /// ```
    #[must_use]
    pub const fn imatch() -> Self {
        TokenFilter {
            min_chars: 4,
            max_digits: Some(1),
        }
    }

    /// Whether this filter keeps everything (and can be skipped).
    ///
    /// # Example
    ///
    /// ```
    /// assert!(!ndd_shingle::TokenFilter::imatch().is_none());
    /// ```
    #[must_use]
    pub const fn is_none(&self) -> bool {
        self.min_chars == 0 && self.max_digits.is_none()
    }

    /// Whether `token` passes the filter.
    ///
    /// # Example
    ///
    /// ```
    /// let f = ndd_shingle::TokenFilter { min_chars: 2, max_digits: Some(0) };
    /// assert!(f.keeps("ab") && !f.keeps("a") && !f.keeps("a1"));
    /// ```
    #[must_use]
    pub fn keeps(&self, token: &str) -> bool {
        if self.min_chars > 0 {
            let chars = if token.is_ascii() {
                token.len()
            } else {
                token.chars().count()
            };
            if chars < self.min_chars {
                return false;
            }
        }
        if let Some(max) = self.max_digits {
            let digits = token.bytes().filter(u8::is_ascii_digit).count();
            if digits > max {
                return false;
            }
        }
        true
    }
}

const CHUNK: usize = 64;

/// The token hash: XXH3-64 (with `seed`) of the token's UTF-8 bytes, after full
/// Unicode lowercasing when `fold_case` is set (`char::to_lowercase`, so `Straße`
/// and `STRASSE` stay different but `ÉCOLE` and `école` agree).
///
/// No allocation: short tokens are folded into a stack buffer; long ones stream
/// through [`StableHasher`], which yields the same value.
///
/// # Example
///
/// ```
/// use ndd_core::hash::stable_hash64;
/// use ndd_shingle::hash_token;
/// assert_eq!(hash_token("London", true, 0), stable_hash64(b"london", 0));
/// assert_eq!(hash_token("ÉCOLE", true, 0), hash_token("école", true, 0));
/// assert_ne!(hash_token("London", false, 0), hash_token("london", false, 0));
/// ```
#[inline]
#[must_use]
pub fn hash_token(token: &str, fold_case: bool, seed: u64) -> u64 {
    let bytes = token.as_bytes();
    if !fold_case {
        return stable_hash64(bytes, seed);
    }
    if bytes.len() <= CHUNK && token.is_ascii() {
        let mut buf = [0u8; CHUNK];
        let out = &mut buf[..bytes.len()];
        for (o, &b) in out.iter_mut().zip(bytes) {
            *o = b.to_ascii_lowercase();
        }
        return stable_hash64(out, seed);
    }
    hash_folded_slow(token, seed)
}

fn hash_folded_slow(token: &str, seed: u64) -> u64 {
    let mut buf = [0u8; CHUNK + 16];
    let mut len = 0;
    let mut hasher: Option<StableHasher> = None;
    for c in token.chars() {
        for lc in c.to_lowercase() {
            if len + 4 > buf.len() {
                hasher
                    .get_or_insert_with(|| StableHasher::new(seed))
                    .update(&buf[..len]);
                len = 0;
            }
            len += lc.encode_utf8(&mut buf[len..]).len();
        }
    }
    match hasher {
        None => stable_hash64(&buf[..len], seed),
        Some(mut h) => {
            h.update(&buf[..len]);
            h.finish()
        }
    }
}

/// Writes the case-folded form of `token` to `out` (the bytes [`hash_token`] hashes).
///
/// # Example
///
/// ```
/// let mut s = String::new();
/// ndd_shingle::fold_case_into("ÉCOLE Normale", &mut s);
/// assert_eq!(s, "école normale");
/// ```
pub fn fold_case_into(token: &str, out: &mut String) {
    if token.is_ascii() {
        out.extend(token.bytes().map(|b| char::from(b.to_ascii_lowercase())));
    } else {
        out.extend(token.chars().flat_map(char::to_lowercase));
    }
}
