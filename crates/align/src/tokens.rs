//! Documents as token sequences: the word tokenizer and case folding of the word
//! shingles, each token as its 64-bit hash, with its byte span in the text.

use ndd_shingle::{Tokenizer, WordTokenizer, hash_token, hash_token_nfkc_form};

/// How text becomes tokens: the same choices as a word shingler's, so that the
/// alignment sees the tokens the shingles were cut from.
///
/// The default folds case (as `WordShingler`'s default does) and does not
/// NFKC-normalize.
///
/// # Example
///
/// ```
/// use near_dup::align::TokenOptions;
/// let plain = TokenOptions::default();
/// let nfkc = TokenOptions::default().nfkc(true);
/// assert_eq!(plain.hashes("Ｔｏｋｙｏ"), plain.hashes("Ｔｏｋｙｏ"));
/// assert_eq!(nfkc.hashes("Ｔｏｋｙｏ"), nfkc.hashes("tokyo"));
/// assert_ne!(plain.hashes("Ｔｏｋｙｏ"), plain.hashes("tokyo"));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TokenOptions {
    fold_case: bool,
    nfkc: bool,
    seed: u64,
}

impl Default for TokenOptions {
    fn default() -> Self {
        TokenOptions {
            fold_case: true,
            nfkc: false,
            seed: 0,
        }
    }
}

impl TokenOptions {
    /// Whether `London` and `london` are the same token (on by default).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::align::TokenOptions;
    /// assert_ne!(TokenOptions::default().fold_case(false).hashes("A"), TokenOptions::default().hashes("A"));
    /// ```
    #[must_use]
    pub fn fold_case(mut self, fold: bool) -> Self {
        self.fold_case = fold;
        self
    }

    /// Whether tokens are compared in NFKC form (`ﬁ` is `fi`, full-width letters are
    /// ASCII); off by default.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::align::TokenOptions;
    /// let o = TokenOptions::default().nfkc(true);
    /// assert_eq!(o.hashes("ﬁne"), o.hashes("fine"));
    /// ```
    #[must_use]
    pub fn nfkc(mut self, nfkc: bool) -> Self {
        self.nfkc = nfkc;
        self
    }

    /// The token hash seed (0 by default, as the shinglers'). Two documents are only
    /// comparable when tokenized with the same options.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::align::TokenOptions;
    /// assert_ne!(TokenOptions::default().seed(1).hashes("a"), TokenOptions::default().hashes("a"));
    /// ```
    #[must_use]
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// The hash of one token under these options.
    fn hash(&self, token: &str) -> u64 {
        if self.nfkc {
            hash_token_nfkc_form(token, self.fold_case, self.seed)
        } else {
            hash_token(token, self.fold_case, self.seed)
        }
    }

    /// The token hashes of `text`, in order (8 bytes per token): what the LCS and
    /// the similarities need.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::align::TokenOptions;
    /// let h = TokenOptions::default().hashes("To be, or not to be");
    /// assert_eq!(h.len(), 6);
    /// assert_eq!(h[0], h[4]); // "To" and "to"
    /// ```
    #[must_use]
    pub fn hashes(&self, text: &str) -> Vec<u64> {
        let mut out = Vec::new();
        self.hashes_into(text, &mut out);
        out
    }

    /// [`hashes`](Self::hashes) into a caller's buffer (cleared first).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::align::TokenOptions;
    /// let mut buf = vec![7];
    /// TokenOptions::default().hashes_into("a b", &mut buf);
    /// assert_eq!(buf.len(), 2);
    /// ```
    pub fn hashes_into(&self, text: &str, out: &mut Vec<u64>) {
        out.clear();
        WordTokenizer::new().for_each_token(text, |t| out.push(self.hash(t.text)));
    }

    /// The tokens of `text` with their byte spans: what block reports need.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::align::TokenOptions;
    /// let t = TokenOptions::default().tokens("Hello, world");
    /// assert_eq!(t.len(), 2);
    /// assert_eq!(t.span(1), 7..12);
    /// ```
    #[must_use]
    pub fn tokens<'t>(&self, text: &'t str) -> Tokens<'t> {
        let mut hashes = Vec::new();
        let mut spans = Vec::new();
        WordTokenizer::new().for_each_token(text, |t| {
            hashes.push(self.hash(t.text));
            spans.push((t.start, t.end));
        });
        Tokens {
            text,
            hashes,
            spans,
        }
    }
}

/// A text's tokens: hashes in order and the byte span of each.
///
/// # Example
///
/// ```
/// use near_dup::align::TokenOptions;
/// let t = TokenOptions::default().tokens("one two");
/// assert_eq!(t.text(), "one two");
/// assert_eq!(t.hashes().len(), 2);
/// assert_eq!(&t.text()[t.span(0)], "one");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tokens<'t> {
    text: &'t str,
    hashes: Vec<u64>,
    spans: Vec<(usize, usize)>,
}

impl<'t> Tokens<'t> {
    /// The text the tokens were read from.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::align::TokenOptions::default().tokens("x").text(), "x");
    /// ```
    #[must_use]
    pub fn text(&self) -> &'t str {
        self.text
    }

    /// The token hashes, in order.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::align::TokenOptions::default().tokens("a a").hashes()[0],
    ///            near_dup::align::TokenOptions::default().tokens("a a").hashes()[1]);
    /// ```
    #[must_use]
    pub fn hashes(&self) -> &[u64] {
        &self.hashes
    }

    /// The number of tokens.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::align::TokenOptions::default().tokens(" , ").len(), 0);
    /// ```
    #[must_use]
    pub fn len(&self) -> usize {
        self.hashes.len()
    }

    /// Whether the text has no token.
    ///
    /// # Example
    ///
    /// ```
    /// assert!(near_dup::align::TokenOptions::default().tokens("").is_empty());
    /// ```
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.hashes.is_empty()
    }

    /// The byte range of token `i` in [`text`](Self::text).
    ///
    /// # Panics
    ///
    /// When `i >= self.len()`.
    ///
    /// # Example
    ///
    /// ```
    /// let t = near_dup::align::TokenOptions::default().tokens("ab cd");
    /// assert_eq!(t.span(1), 3..5);
    /// ```
    #[must_use]
    pub fn span(&self, i: usize) -> std::ops::Range<usize> {
        let (s, e) = self.spans[i];
        s..e
    }

    /// The byte offset where token `i` starts; the text's length for `i == len()`.
    pub(crate) fn start_of(&self, i: usize) -> usize {
        self.spans.get(i).map_or(self.text.len(), |&(s, _)| s)
    }

    /// The text between token `i - 1` and token `i` (before the first token for
    /// `i == 0`, after the last for `i == len()`).
    pub(crate) fn gap_before(&self, i: usize) -> &'t str {
        let start = if i == 0 { 0 } else { self.spans[i - 1].1 };
        &self.text[start..self.start_of(i)]
    }
}
