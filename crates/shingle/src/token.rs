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
pub(crate) const ASCII_WORD: [bool; 128] = ascii_word_table();

/// Whether a non-ASCII character separates words: whitespace, controls, and the
/// punctuation and symbol blocks (Latin-1 punctuation, U+2000–U+2BFF from General
/// Punctuation through currency, arrows, mathematical operators, box drawing and
/// miscellaneous symbols, CJK punctuation, full-width ASCII punctuation, emoji).
/// Everything else outside ASCII (letters, digits and combining marks of every script)
/// is part of a word, so accents and vowel signs stay attached.
#[inline]
pub(crate) fn is_separator(c: char) -> bool {
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

/// Whether `c` belongs to a word as [`WordTokenizer`] splits text: ASCII letters and
/// digits, and every non-ASCII character that is not whitespace, a control, or in a
/// punctuation or symbol block (ideographs included: each is a word of its own).
/// The concatenation of a text's tokens is exactly its word characters in order.
///
/// # Example
///
/// ```
/// use near_dup::shingle::is_word_char;
/// assert!(is_word_char('a') && is_word_char('é') && is_word_char('東'));
/// assert!(!is_word_char('-') && !is_word_char('—') && !is_word_char('\u{3000}'));
/// ```
#[must_use]
pub fn is_word_char(c: char) -> bool {
    if c.is_ascii() {
        c.is_ascii_alphanumeric()
    } else {
        !is_separator(c)
    }
}

/// Whether a character is written without spaces between words and becomes a token
/// on its own: Han ideographs, Hiragana, Katakana (as in Unicode's word-boundary
/// rules, UAX #29, for ideographs).
#[inline]
pub(crate) fn is_ideographic(c: char) -> bool {
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
/// use near_dup::shingle::{Tokenizer, WordTokenizer};
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
    /// use near_dup::shingle::{Tokenizer, WordTokenizer};
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
        let mut scanner = WordScanner::new(text);
        while let Some(t) = scanner.next_token() {
            f(Token {
                text: &text[t.start..t.end],
                start: t.start,
                end: t.end,
            });
        }
    }
}

/// One token found by [`WordScanner`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct ScannedToken {
    /// Byte offset of the first byte.
    pub(crate) start: usize,
    /// Byte offset one past the last byte.
    pub(crate) end: usize,
    /// Whether the token is ASCII and at most 16 bytes long, with its bytes in
    /// [`lo`](Self::lo) and [`hi`](Self::hi).
    pub(crate) short_ascii: bool,
    /// With `short_ascii`, bytes 0–7 of the token, little-endian; the bytes past the
    /// token's end are unspecified.
    pub(crate) lo: u64,
    /// With `short_ascii`, bytes 8–15 of the token, little-endian; the bytes past the
    /// token's end are unspecified.
    pub(crate) hi: u64,
}

/// The word scanner behind [`WordTokenizer`] and the word shingler.
///
/// The text is classified 64 bytes at a time into two bitmasks, ASCII letters and
/// digits and non-ASCII bytes (SWAR on `u64` words, no per-byte branches); tokens are
/// then read off the masks with bit scans: in ASCII text, every word of the block at
/// once from the masks of the runs' first and last bytes
/// ([`take_words`](Self::take_words)), elsewhere one token at a time, separator runs
/// skipped and a word's length found with one `trailing_zeros` each
/// ([`next_one`](Self::next_one)). Words of at most 16 ASCII bytes come
/// back with their bytes in two registers, ready for the hash. Any byte >= 0x80 goes
/// through the char-by-char Unicode rules ([`is_separator`], [`is_ideographic`]), so
/// the tokens are those of the byte-by-byte definition for every input (the tests
/// compare with the previous byte-by-byte scanner); runs of non-ASCII text are scanned
/// char by char without classifying blocks for them.
#[derive(Debug, Clone)]
pub(crate) struct WordScanner<'a> {
    text: &'a str,
    /// Where the search for the next token starts: a char boundary, or past the end.
    pos: usize,
    /// Offset of the classified block; `base <= pos`.
    base: usize,
    /// Bit `j`: byte `base + j` is an ASCII letter or digit (0 past the text).
    alnum: u64,
    /// Bit `j`: byte `base + j` is >= 0x80 (0 past the text).
    high: u64,
    /// Words taken but not yet handed out: bit `j` marks the first byte of a word at
    /// `words_base + j`.
    starts: u64,
    /// Bit `j` marks the last byte of a word at `words_base + j` (one per bit of
    /// `starts`, in the same order).
    ends: u64,
    /// The offset of the block the words were taken from.
    words_base: usize,
}

const HIGH: u64 = 0x8080_8080_8080_8080;

/// `b` in every byte of a `u64`.
const fn splat(b: u8) -> u64 {
    b as u64 * 0x0101_0101_0101_0101
}

/// The high bit of every byte of `x` that is an ASCII letter or digit, `[A-Za-z0-9]`,
/// for `x` without bytes >= 0x80 (per-byte range checks that cannot carry into the
/// next byte).
#[inline(always)]
fn alnum_bytes_ascii(x: u64) -> u64 {
    let digit = x.wrapping_add(splat(0x80 - b'0')) & !x.wrapping_add(splat(0x80 - b'9' - 1));
    let folded = x | splat(0x20);
    let letter =
        folded.wrapping_add(splat(0x80 - b'a')) & !folded.wrapping_add(splat(0x80 - b'z' - 1));
    (digit | letter) & HIGH
}

/// [`alnum_bytes_ascii`] for any `x`: bytes >= 0x80 are classified on their low seven
/// bits (so nothing carries) and then cleared.
#[inline(always)]
fn alnum_bytes(x: u64) -> u64 {
    alnum_bytes_ascii(x & !HIGH) & !x
}

/// Bit `j` of the result is the high bit of byte `j` of `m`, for `m` with no bits but
/// the bytes' high bits (the product gathers them into the top byte without carries).
#[inline(always)]
fn gather_high_bits(m: u64) -> u64 {
    (m >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56
}

/// The letter-and-digit and non-ASCII bitmasks of 64 bytes.
#[inline(always)]
fn classify64(chunk: &[u8; 64]) -> (u64, u64) {
    let mut words = [0u64; 8];
    for (w, b) in words.iter_mut().zip(chunk.chunks_exact(8)) {
        let mut le = [0u8; 8];
        le.copy_from_slice(b);
        *w = u64::from_le_bytes(le);
    }
    let any_high = words.iter().fold(0, |acc, w| acc | w) & HIGH;
    let mut alnum = 0u64;
    if any_high == 0 {
        for (j, &w) in words.iter().enumerate() {
            alnum |= gather_high_bits(alnum_bytes_ascii(w)) << (8 * j);
        }
        (alnum, 0)
    } else {
        let mut high = 0u64;
        for (j, &w) in words.iter().enumerate() {
            alnum |= gather_high_bits(alnum_bytes(w)) << (8 * j);
            high |= gather_high_bits(w & HIGH) << (8 * j);
        }
        (alnum, high)
    }
}

/// [`classify64`] of the 64 bytes of `bytes` from `base`, zero-padded past the end.
#[inline(always)]
fn classify_at(bytes: &[u8], base: usize) -> (u64, u64) {
    match bytes.get(base..).and_then(<[u8]>::first_chunk::<64>) {
        Some(chunk) => classify64(chunk),
        None => classify_tail(bytes, base),
    }
}

#[cold]
#[inline(never)]
fn classify_tail(bytes: &[u8], base: usize) -> (u64, u64) {
    classify64(&padded_chunk(bytes, base))
}

/// The 16 bytes of `bytes` from `i` as two little-endian words, zero-padded past the
/// end.
#[inline(always)]
fn load16(bytes: &[u8], i: usize) -> (u64, u64) {
    match bytes.get(i..).and_then(<[u8]>::first_chunk::<16>) {
        Some(chunk) => halves(u128::from_le_bytes(*chunk)),
        None => load16_tail(bytes, i),
    }
}

#[cold]
#[inline(never)]
fn load16_tail(bytes: &[u8], i: usize) -> (u64, u64) {
    halves(u128::from_le_bytes(padded_chunk(bytes, i)))
}

/// The `N` bytes of `bytes` from `i`, zero-padded past the end (the slow path of
/// [`classify_at`] and [`load16`] near the end of a text).
#[inline(always)]
fn padded_chunk<const N: usize>(bytes: &[u8], i: usize) -> [u8; N] {
    let mut chunk = [0u8; N];
    let rest = bytes.get(i..).unwrap_or_default();
    let n = rest.len().min(N);
    chunk[..n].copy_from_slice(&rest[..n]);
    chunk
}

/// The mask of bits `0..n`, for `n <= 64`.
#[inline(always)]
#[allow(clippy::cast_possible_truncation)] // the low 64 bits, on purpose
fn low_bits(n: usize) -> u64 {
    ((1u128 << n) - 1) as u64
}

/// The low and the high 64 bits.
#[inline(always)]
#[allow(clippy::cast_possible_truncation)] // the two halves, on purpose
fn halves(v: u128) -> (u64, u64) {
    (v as u64, (v >> 64) as u64)
}

/// `x` with every ASCII uppercase letter lowercased, for `x` holding an ASCII
/// letter-and-digit token: among `[A-Za-z0-9]` the letters are exactly the bytes with
/// bit 0x40 set, and setting their bit 0x20 lowercases them (bytes past the token may
/// change, which does not matter: they are ignored).
#[inline(always)]
pub(crate) fn ascii_lowercase_word(x: u64) -> u64 {
    x | ((x >> 1) & splat(0x20))
}

impl<'a> WordScanner<'a> {
    #[inline]
    pub(crate) fn new(text: &'a str) -> Self {
        let (alnum, high) = classify_at(text.as_bytes(), 0);
        WordScanner {
            text,
            pos: 0,
            base: 0,
            alnum,
            high,
            starts: 0,
            ends: 0,
            words_base: 0,
        }
    }

    #[inline(always)]
    fn refill(&mut self, base: usize) {
        (self.alnum, self.high) = classify_at(self.text.as_bytes(), base);
        self.base = base;
    }

    /// The next token, or `None` at the end of the text.
    ///
    /// Where the rest of the classified block is ASCII up to some point (the block's
    /// end or its first non-ASCII byte), every word that lies wholly before that point
    /// is taken off the letter-and-digit mask at once ([`take_words`](Self::take_words))
    /// and handed out from two masks; everything else goes through the token-at-a-time
    /// scan ([`next_one`](Self::next_one)).
    #[inline(always)]
    pub(crate) fn next_token(&mut self) -> Option<ScannedToken> {
        loop {
            if self.starts != 0 {
                let first = self.starts.trailing_zeros() as usize;
                let last = self.ends.trailing_zeros() as usize;
                self.starts &= self.starts - 1;
                self.ends &= self.ends - 1;
                let start = self.words_base + first;
                let end = self.words_base + last + 1;
                if last - first < 16 {
                    let (lo, hi) = load16(self.text.as_bytes(), start);
                    return Some(ScannedToken {
                        start,
                        end,
                        short_ascii: true,
                        lo,
                        hi,
                    });
                }
                return Some(ScannedToken::long(start, end));
            }
            if !self.take_words() {
                return self.next_one();
            }
        }
    }

    /// Takes the words that lie wholly in the ASCII stretch of the block from `pos`
    /// (up to the block's end or its first non-ASCII byte) into `starts` and `ends`:
    /// `starts = m & !(m << 1)` and `ends = m & !(m >> 1)` mark each run's first and
    /// last byte, and the `i`-th set bits of the two pair up. The run that touches the
    /// stretch's end may go on past it (into the next block, or into a non-ASCII
    /// letter), so it is left out: at the block's end the block is classified again
    /// from the run's start; before a non-ASCII byte the run, and the byte, are left to
    /// [`next_one`](Self::next_one), as are words of 64 bytes or more.
    /// Returns whether it moved on; `false` leaves the next token to `next_one`.
    #[inline(always)]
    fn take_words(&mut self) -> bool {
        let rel = self.pos - self.base;
        if rel >= 64 {
            return false;
        }
        // Bytes `rel..limit` of the block are ASCII.
        let above = u64::MAX << rel;
        let high = self.high & above;
        let limit = if high == 0 {
            64
        } else {
            high.trailing_zeros() as usize
        };
        if limit == rel {
            return false;
        }
        let run = self.alnum & above & low_bits(limit);
        // The start of the run that touches `limit` (`limit` if none).
        let tail = limit - (run << (64 - limit)).leading_ones() as usize;
        let words = run & low_bits(tail);
        self.starts = words & !(words << 1);
        self.ends = words & !(words >> 1);
        self.words_base = self.base;
        let next = self.base + tail;
        if limit == 64 && tail > 0 {
            // The next block: from the start of the word that runs into it, or from
            // the block's end.
            self.pos = next;
            if next < self.text.len() {
                self.refill(next);
            }
            return true;
        }
        self.pos = next;
        tail > rel
    }

    /// The next token by the token-at-a-time scan, or `None` at the end of the text:
    /// what [`next_token`](Self::next_token) falls back on, and the whole scan before
    /// words were taken a block at a time.
    #[inline(always)]
    pub(crate) fn next_one(&mut self) -> Option<ScannedToken> {
        loop {
            let rel = self.pos - self.base;
            let start = if rel >= 64 {
                // Past the classified block.
                let b = *self.text.as_bytes().get(self.pos)?;
                if b < 0x80 {
                    self.refill(self.pos);
                    continue;
                }
                // Non-ASCII text goes char by char below; classifying a block for it
                // would not pay.
                self.pos
            } else {
                // Skip ASCII separators: the next letter, digit or non-ASCII byte.
                let candidates = (self.alnum | self.high) >> rel;
                if candidates == 0 {
                    self.pos = self.base + 64;
                    continue;
                }
                let mut r = rel + candidates.trailing_zeros() as usize;
                let start = self.base + r;
                if (self.high >> r) & 1 == 0 {
                    // An ASCII letter or digit starts a word; its run of letters and
                    // digits:
                    let mut run = (!(self.alnum >> r)).trailing_zeros() as usize;
                    if r + run == 64 && r != 0 {
                        // The run reaches the end of the block: classify from the
                        // word's start.
                        self.refill(start);
                        r = 0;
                        run = (!self.alnum).trailing_zeros() as usize;
                    }
                    let run_end = start + run;
                    // The run ends the word unless the byte after it is not ASCII (a
                    // non-ASCII letter or mark may continue the word). Runs of 16 bytes
                    // or more (which may reach past the block) are not short tokens
                    // either way.
                    if run >= 16 || (self.high >> (r + run)) & 1 != 0 {
                        let end = word_end(self.text, run_end);
                        self.pos = end;
                        return Some(ScannedToken::long(start, end));
                    }
                    self.pos = run_end;
                    let (lo, hi) = load16(self.text.as_bytes(), start);
                    return Some(ScannedToken {
                        start,
                        end: run_end,
                        short_ascii: true,
                        lo,
                        hi,
                    });
                }
                start
            };
            // A non-ASCII char at `start`.
            match non_ascii_at(self.text, start) {
                NonAscii::Separator(next) => self.pos = next,
                NonAscii::Token(end) => {
                    self.pos = end;
                    return Some(ScannedToken::long(start, end));
                }
            }
        }
    }
}

impl ScannedToken {
    /// A token that is not a short ASCII word.
    #[inline(always)]
    fn long(start: usize, end: usize) -> Self {
        ScannedToken {
            start,
            end,
            short_ascii: false,
            lo: 0,
            hi: 0,
        }
    }
}

/// What a non-ASCII char at a token boundary is.
enum NonAscii {
    /// A separator; the scan goes on at the given offset.
    Separator(usize),
    /// A token starts at the char and ends at the given offset.
    Token(usize),
}

/// Classifies the non-ASCII char at byte `i` (a char boundary of `text`) where a token
/// may start: a separator, an ideograph (a token on its own), or the first char of a
/// word.
#[inline]
fn non_ascii_at(text: &str, i: usize) -> NonAscii {
    let c = decode_at(text, i);
    let next = i + c.len_utf8();
    if is_separator(c) {
        NonAscii::Separator(next)
    } else if is_ideographic(c) {
        NonAscii::Token(next)
    } else {
        NonAscii::Token(word_end(text, next))
    }
}

/// The end of the word that goes on at byte `i` (a char boundary of `text`): the word
/// runs over ASCII letters and digits and over non-ASCII chars that are neither
/// separators nor ideographs.
#[inline(never)]
fn word_end(text: &str, mut i: usize) -> usize {
    let bytes = text.as_bytes();
    while let Some(&b) = bytes.get(i) {
        if b < 0x80 {
            if !ASCII_WORD[b as usize] {
                break;
            }
            i += 1;
        } else {
            let c = decode_at(text, i);
            if is_separator(c) || is_ideographic(c) {
                break;
            }
            i += c.len_utf8();
        }
    }
    i
}

/// The char starting at byte `i`, which must be a char boundary of `text`.
#[inline]
pub(crate) fn decode_at(text: &str, i: usize) -> char {
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
/// use near_dup::shingle::TokenFilter;
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
    /// assert!(near_dup::shingle::TokenFilter::none().is_none());
    /// ```
    #[must_use]
    pub const fn none() -> Self {
        TokenFilter {
            min_chars: 0,
            max_digits: None,
        }
    }

    /// The I-Match preprocessing (Kołcz and Chowdhury, The Journal of Supercomputing 2008, section 6.3): at least four characters and
    /// at most one digit.
    ///
    /// # Example
    ///
    /// ```
    /// let f = near_dup::shingle::TokenFilter::imatch();
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
    /// assert!(!near_dup::shingle::TokenFilter::imatch().is_none());
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
    /// let f = near_dup::shingle::TokenFilter { min_chars: 2, max_digits: Some(0) };
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
/// use near_dup::hash::stable_hash64;
/// use near_dup::shingle::hash_token;
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
    hash_chars(token.chars(), true, seed)
}

/// XXH3-64 of the UTF-8 bytes of `chars` (each lowercased when `fold`), streamed
/// through a stack buffer: the same value as hashing the collected string.
fn hash_chars(chars: impl Iterator<Item = char>, fold: bool, seed: u64) -> u64 {
    let mut buf = [0u8; CHUNK + 16];
    let mut len = 0;
    let mut hasher: Option<StableHasher> = None;
    let mut push = |c: char| {
        if len + 4 > buf.len() {
            hasher
                .get_or_insert_with(|| StableHasher::new(seed))
                .update(&buf[..len]);
            len = 0;
        }
        len += c.encode_utf8(&mut buf[len..]).len();
    };
    for c in chars {
        if fold {
            c.to_lowercase().for_each(&mut push);
        } else {
            push(c);
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

/// Whether `text` is certainly in NFKC already, by the quick check of UAX #15 (no
/// allocation; `false` also when the check cannot tell, which is rare).
#[cfg(feature = "nfkc")]
#[inline]
pub(crate) fn is_nfkc(text: &str) -> bool {
    text.is_ascii()
        || unicode_normalization::is_nfkc_quick(text.chars())
            == unicode_normalization::IsNormalized::Yes
}

/// [`hash_token`] of the NFKC form of `token` when `nfkc` is set: the hash of
/// `fold(NFKC(token))`. Tokens already in NFKC (every ASCII token) take the plain
/// path; the others are normalized as a stream of characters, without a heap
/// allocation unless a run of combining marks is very long.
#[inline]
pub(crate) fn hash_token_nfkc(token: &str, fold_case: bool, nfkc: bool, seed: u64) -> u64 {
    #[cfg(feature = "nfkc")]
    if nfkc && !is_nfkc(token) {
        use unicode_normalization::UnicodeNormalization;
        return hash_chars(token.nfkc(), fold_case, seed);
    }
    let _ = nfkc;
    hash_token(token, fold_case, seed)
}

/// The token hash of [`hash_token`] taken over the NFKC form of `token`: what a
/// shingler built with `nfkc(true)` hashes for each token, so that tools that keep
/// tokens in order (alignment) agree with the shingles on every token.
///
/// # Example
///
/// ```
/// use near_dup::shingle::{hash_token, hash_token_nfkc_form};
/// assert_eq!(hash_token_nfkc_form("ﬁle", true, 0), hash_token("file", true, 0));
/// assert_eq!(hash_token_nfkc_form("Ｔｏｋｙｏ", true, 0), hash_token("tokyo", true, 0));
/// ```
#[cfg(feature = "nfkc")]
#[must_use]
pub fn hash_token_nfkc_form(token: &str, fold_case: bool, seed: u64) -> u64 {
    hash_token_nfkc(token, fold_case, true, seed)
}

/// Writes the case-folded form of `token` to `out` (the bytes [`hash_token`] hashes).
///
/// # Example
///
/// ```
/// let mut s = String::new();
/// near_dup::shingle::fold_case_into("ÉCOLE Normale", &mut s);
/// assert_eq!(s, "école normale");
/// ```
pub fn fold_case_into(token: &str, out: &mut String) {
    if token.is_ascii() {
        // One copy, then lower-casing in place: several times fewer instructions than
        // pushing char by char (same result).
        let start = out.len();
        out.push_str(token);
        out[start..].make_ascii_lowercase();
    } else {
        out.extend(token.chars().flat_map(char::to_lowercase));
    }
}
