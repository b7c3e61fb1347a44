//! Stage 1: the exact-duplicate pass of DURIAN (Yang and Callan 2006, section 4.3).

use std::sync::LazyLock;

use sha1::{Digest, Sha1};

/// ASCII letters and digits as they are, every other byte 0.
const ALNUM: [u8; 256] = alnum_table(false);
/// ASCII letters lower-cased and digits, every other byte 0.
const ALNUM_FOLDED: [u8; 256] = alnum_table(true);

const fn alnum_table(fold: bool) -> [u8; 256] {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        #[allow(clippy::cast_possible_truncation)] // i < 256
        let b = i as u8;
        if b.is_ascii_alphanumeric() {
            t[i] = if fold { b.to_ascii_lowercase() } else { b };
        }
        i += 1;
    }
    t
}

/// Entries of a [`PairTable`]: every pair of bytes.
const PAIRS: usize = 1 << 16;

/// For every pair of bytes `(a, b)`, at index `a | b << 8` (the pair read as a
/// little-endian `u16`): the pair's kept bytes (their entries in a byte table such as
/// [`ALNUM_FOLDED`], the 0 entries removed) in the low two bytes of the entry, and how
/// many there are (0, 1 or 2) in its top byte. 256 KiB; the pairs of ordinary text
/// use a small part of it.
type PairTable = [u32; PAIRS];

fn pair_table(single: &[u8; 256]) -> Box<PairTable> {
    let mut t = Box::new([0u32; PAIRS]);
    for (x, e) in (0..=u16::MAX).zip(t.iter_mut()) {
        let [a, b] = x.to_le_bytes();
        let (a, b) = (single[usize::from(a)], single[usize::from(b)]);
        *e = match (a, b) {
            (0, 0) => 0,
            (c, 0) | (0, c) => u32::from(c) | 1 << 24,
            (a, b) => u32::from(a) | u32::from(b) << 8 | 2 << 24,
        };
    }
    t
}

/// [`ALNUM`] by pairs, built on first use.
static PAIRS_PLAIN: LazyLock<Box<PairTable>> = LazyLock::new(|| pair_table(&ALNUM));
/// [`ALNUM_FOLDED`] by pairs, built on first use.
static PAIRS_FOLDED: LazyLock<Box<PairTable>> = LazyLock::new(|| pair_table(&ALNUM_FOLDED));

/// The SHA-1 digest of a document string.
///
/// # Example
///
/// ```
/// let d: near_dup::pipeline::DocDigest = near_dup::pipeline::ExactPass::new().digest("");
/// // SHA-1 of the empty document string.
/// assert_eq!(d[..4], [0xda, 0x39, 0xa3, 0xee]);
/// ```
pub type DocDigest = [u8; 20];

/// Finds exact duplicates the way DURIAN does: every word of a document (Unicode
/// words, case-folded unless told otherwise) concatenated into one *document string*
/// with white space and punctuation removed, hashed with SHA-1; documents with equal
/// digests are exact duplicates, found by sorting `(digest, document)` tuples.
///
/// When to use it: always, before a costlier stage. Exact copies are common in real
/// collections (form letters, mirrored pages, re-uploads) and cost one hash each
/// here, against a sketch, index entries and verification per copy later. The
/// pipeline runs this pass first and passes one document per exact group on.
///
/// Cost: one pass over each document's bytes (SHA-1, about 1 GB/s), a sort of
/// `n` indices by digest, 28 bytes per document. Documents with no word at all (only
/// punctuation or white space) all share the digest of the empty string, and so are
/// exact duplicates of each other, as the definition says.
///
/// Note the definition: removing the spaces makes `"note book"` and `"notebook"` the
/// same document string. That is the paper's choice (lexical variation in spacing is
/// an edit people do not notice); it can merge two documents that differ only in
/// where one space falls.
///
/// # References
///
/// Hui Yang and Jamie Callan, *Near-Duplicate Detection by Instance-level Constrained
/// Clustering*, SIGIR 2006, section 4.3 (redundancy-based reference copy detection).
///
/// # Example
///
/// ```
/// use near_dup::pipeline::ExactPass;
/// let docs = [
///     "Dear Administrator: I oppose the rule.",
///     "dear administrator -- i OPPOSE the rule!!",
///     "Dear Administrator: I support the rule.",
/// ];
/// let found = ExactPass::new().run(&docs);
/// assert_eq!(found.groups(), &[vec![0, 1]]);
/// assert_eq!(found.copies(), 1); // one document is a copy of an earlier one
/// assert_eq!(found.first_of(1), 0);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExactPass {
    fold_case: bool,
    nfkc: bool,
}

impl Default for ExactPass {
    fn default() -> Self {
        ExactPass {
            fold_case: true,
            nfkc: false,
        }
    }
}

impl ExactPass {
    /// The pass with case folding on (the default).
    ///
    /// # Example
    ///
    /// ```
    /// assert!(near_dup::pipeline::ExactPass::new().folds_case());
    /// ```
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Whether words are case-folded before hashing (`true` by default: `The` and
    /// `the` are the same word).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::ExactPass;
    /// let strict = ExactPass::new().fold_case(false);
    /// assert_eq!(strict.run(&["The end", "the end"]).groups().len(), 0);
    /// ```
    #[must_use]
    pub fn fold_case(mut self, fold: bool) -> Self {
        self.fold_case = fold;
        self
    }

    /// Whether the text is normalized to Unicode NFKC before the document string is
    /// built (off by default): full-width letters, ligatures and other compatibility
    /// forms then count as their plain forms. Text already in NFKC (all ASCII text)
    /// costs one quick check.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::ExactPass;
    /// let docs = ["ｆｕｌｌ ｗｉｄｔｈ ﬁle", "full width file"];
    /// assert!(ExactPass::new().run(&docs).groups().is_empty());
    /// assert_eq!(ExactPass::new().nfkc(true).run(&docs).groups(), &[vec![0, 1]]);
    /// ```
    #[must_use]
    pub fn nfkc(mut self, nfkc: bool) -> Self {
        self.nfkc = nfkc;
        self
    }

    /// Whether this pass normalizes to NFKC.
    ///
    /// # Example
    ///
    /// ```
    /// assert!(near_dup::pipeline::ExactPass::new().nfkc(true).normalizes_nfkc());
    /// ```
    #[must_use]
    pub fn normalizes_nfkc(&self) -> bool {
        self.nfkc
    }

    /// Whether this pass folds case.
    ///
    /// # Example
    ///
    /// ```
    /// assert!(!near_dup::pipeline::ExactPass::new().fold_case(false).folds_case());
    /// ```
    #[must_use]
    pub fn folds_case(&self) -> bool {
        self.fold_case
    }

    /// The SHA-1 digest of `doc`'s document string, hashed as it is built (the
    /// string is never held).
    ///
    /// # Example
    ///
    /// ```
    /// let pass = near_dup::pipeline::ExactPass::new();
    /// assert_eq!(pass.digest("A, b. C!"), pass.digest("abc"));
    /// ```
    #[must_use]
    pub fn digest(&self, doc: &str) -> DocDigest {
        let mut sha = Sha1::new();
        self.document_string(doc, |piece| sha.update(piece));
        sha.finalize().into()
    }

    /// [`digest`](Self::digest) building the document string in the caller's buffer
    /// (reused across documents, nothing else is allocated). [`digest`](Self::digest)
    /// gives the same digest without holding the string.
    ///
    /// # Example
    ///
    /// ```
    /// let pass = near_dup::pipeline::ExactPass::new();
    /// let mut buf = Vec::new();
    /// assert_eq!(pass.digest_with("a b", &mut buf), pass.digest("ab"));
    /// assert_eq!(buf, b"ab");
    /// ```
    pub fn digest_with(&self, doc: &str, buf: &mut Vec<u8>) -> DocDigest {
        buf.clear();
        self.document_string(doc, |piece| buf.extend_from_slice(piece));
        Sha1::digest(buf.as_slice()).into()
    }

    /// Passes `doc`'s document string to `sink` in consecutive pieces (their
    /// concatenation is the string; how it is cut is of no meaning).
    fn document_string(&self, doc: &str, mut sink: impl FnMut(&[u8])) {
        use unicode_normalization::{IsNormalized, UnicodeNormalization, is_nfkc_quick};
        let normalized: String;
        let doc = if self.nfkc && is_nfkc_quick(doc.chars()) != IsNormalized::Yes {
            normalized = doc.nfkc().collect();
            normalized.as_str()
        } else {
            doc
        };
        let fold = self.fold_case;
        let table: &PairTable = if fold { &PAIRS_FOLDED } else { &PAIRS_PLAIN };
        if doc.is_ascii() {
            // In ASCII text the words are the runs of letters and digits, so the
            // document string is every letter and digit in order: one branch-free
            // pass over the bytes, two at a time through a table of byte pairs,
            // instead of one call per token.
            ascii_pieces(table, doc.as_bytes(), &mut sink);
        } else {
            // The concatenation of the tokens is every word character in order, so
            // no token boundary is needed: the ASCII runs through the table as above,
            // each other character classified on its own.
            let mut utf8 = [0u8; 4];
            let mut rest = doc;
            while !rest.is_empty() {
                let run = ascii_prefix_len(rest.as_bytes());
                // An ASCII byte is a whole character: `run` is a boundary.
                let Some((ascii, tail)) = rest.split_at_checked(run) else {
                    break;
                };
                ascii_pieces(table, ascii.as_bytes(), &mut sink);
                let mut chars = tail.chars();
                let Some(c) = chars.next() else { break };
                rest = chars.as_str();
                if ndd_shingle::is_word_char(c) {
                    if fold {
                        for l in c.to_lowercase() {
                            sink(l.encode_utf8(&mut utf8).as_bytes());
                        }
                    } else {
                        sink(c.encode_utf8(&mut utf8).as_bytes());
                    }
                }
            }
        }
    }

    /// [`digest`](Self::digest) of a document's text as a reader's per-document hook
    /// ([`read_corpus_with_hook`](crate::corpus::read_corpus_with_hook)): the corpus's
    /// JSON Lines reader then digests each text on the pool right after decoding it,
    /// and [`Plan::run_digested`](crate::Plan::run_digested) groups the digests
    /// without a pass of its own over the texts.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{Document, ExactPass};
    /// let pass = ExactPass::new();
    /// let hook = pass.hook();
    /// assert_eq!(hook(&Document::new("a", "A, b. C!")), pass.digest("abc"));
    /// ```
    #[must_use]
    pub fn hook(self) -> crate::corpus::DocHook<DocDigest> {
        std::sync::Arc::new(move |d: &crate::Document| self.digest(&d.text))
    }

    /// The digests of many documents (in parallel under the `rayon` feature; the
    /// same values either way).
    ///
    /// # Example
    ///
    /// ```
    /// let pass = near_dup::pipeline::ExactPass::new();
    /// let d = pass.digests(&["a b", "ab"]);
    /// assert_eq!(d[0], d[1]);
    /// ```
    #[must_use]
    pub fn digests<D: AsRef<str> + Sync>(&self, docs: &[D]) -> Vec<DocDigest> {
        #[cfg(feature = "rayon")]
        {
            use rayon::prelude::*;
            docs.par_iter()
                .with_min_len(64)
                .map(|d| self.digest(d.as_ref()))
                .collect()
        }
        #[cfg(not(feature = "rayon"))]
        {
            docs.iter().map(|d| self.digest(d.as_ref())).collect()
        }
    }

    /// Groups `docs` by digest.
    ///
    /// # Example
    ///
    /// ```
    /// let found = near_dup::pipeline::ExactPass::new().run(&["x y", "z", "X Y", "xy"]);
    /// assert_eq!(found.groups(), &[vec![0, 2, 3]]);
    /// ```
    #[must_use]
    pub fn run<D: AsRef<str> + Sync>(&self, docs: &[D]) -> ExactDuplicates {
        ExactDuplicates::from_digests(self.digests(docs))
    }
}

/// The length of the run of ASCII bytes that starts `bytes`, read eight bytes at a
/// time (a byte is ASCII when its high bit is clear).
fn ascii_prefix_len(bytes: &[u8]) -> usize {
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let mut n = 0;
    for chunk in bytes.chunks_exact(8) {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        let high = u64::from_le_bytes(word) & HIGH;
        if high != 0 {
            // The lowest set bit is in the first non-ASCII byte (little-endian).
            return n + usize::try_from(high.trailing_zeros() / 8).unwrap_or(0);
        }
        n += 8;
    }
    let tail = bytes.get(n..).unwrap_or_default();
    n + tail
        .iter()
        .position(|b| !b.is_ascii())
        .unwrap_or(tail.len())
}

/// Input bytes compacted per piece by [`ascii_pieces`]: a piece fits a stack buffer
/// of this size (and the bytes a pair's 4-byte store writes past its kept bytes).
const PIECE: usize = 256;

/// Stores a pair's table entry `e` (its kept bytes first) at `out[n..]` and returns the
/// position after its kept bytes. `n % PIECE` keeps the store in bounds without a
/// check (and is `n`: the caller's `n` never passes the bytes of its piece before
/// this pair).
#[inline(always)]
fn put_pair(out: &mut [u8; PIECE + 4], n: usize, e: u32) -> usize {
    let at = n % PIECE;
    out[at..at + 4].copy_from_slice(&e.to_le_bytes());
    n + usize::from(e.to_le_bytes()[3])
}

/// Passes every byte of `bytes` whose entry in the byte table behind `table` is not 0
/// (the letters and digits of ASCII text, folded or not), as that entry, to `sink`,
/// in pieces of at most [`PIECE`] bytes compacted in a stack buffer. Two bytes at a
/// time, without a branch: the pair's entry (its kept bytes and their number) is
/// stored whole, 4 bytes at the write position, which then moves on by the number
/// (the bytes past it are overwritten by the next store or cut off). Per pair a table
/// load, a store, a shift and an add (the text read 8 bytes at a time), where the byte
/// table took a load, a table load, a store and a compare-and-add per byte.
#[inline]
fn ascii_pieces(table: &PairTable, bytes: &[u8], sink: &mut impl FnMut(&[u8])) {
    let mut out = [0u8; PIECE + 4];
    for chunk in bytes.chunks(PIECE) {
        let mut n = 0;
        let mut words = chunk.chunks_exact(8);
        for w in &mut words {
            let mut le = [0u8; 8];
            le.copy_from_slice(w);
            let x = u64::from_le_bytes(le);
            for k in 0..4 {
                #[allow(clippy::cast_possible_truncation)] // the pair `k`, on purpose
                let pair = (x >> (16 * k)) as u16;
                n = put_pair(&mut out, n, table[usize::from(pair)]);
            }
        }
        let mut pairs = words.remainder().chunks_exact(2);
        for p in &mut pairs {
            n = put_pair(
                &mut out,
                n,
                table[usize::from(u16::from_le_bytes([p[0], p[1]]))],
            );
        }
        if let [b] = pairs.remainder() {
            // A byte alone is the pair `(b, 0)`: the 0 byte is never kept.
            n = put_pair(&mut out, n, table[usize::from(*b)]);
        }
        match out.get(..n) {
            Some(piece) if n > 0 => sink(piece),
            _ => {}
        }
    }
}

/// The document indices sorted by `(digest, index)`, so that equal digests are
/// neighbours in input order, each with its digest's first 8 bytes: sorted first by
/// that prefix and the index (two integers, cheaper to compare than 20 bytes); a run
/// of equal prefixes whose digests differ (a 64-bit collision, practically never) is
/// then sorted by the whole digest. Only the documents of runs of equal prefixes (the
/// exact copies, and such collisions) have their whole digests read again (a random
/// read each); a document alone in its prefix, most of a corpus, is never read again.
fn by_digest(digests: &[DocDigest]) -> Vec<(u64, usize)> {
    let mut keyed: Vec<(u64, usize)> = digests
        .iter()
        .enumerate()
        .map(|(i, d)| (prefix(d), i))
        .collect();
    // Under rayon on every core: this sort is the exact pass's only serial step
    // otherwise (the keys are distinct, so the order is the same either way).
    #[cfg(feature = "rayon")]
    rayon::slice::ParallelSliceMut::par_sort_unstable(&mut keyed[..]);
    #[cfg(not(feature = "rayon"))]
    keyed.sort_unstable();
    for run in keyed.chunk_by_mut(|a, b| a.0 == b.0) {
        if run.len() > 1 && run.iter().any(|&(_, i)| digests[i] != digests[run[0].1]) {
            run.sort_unstable_by(|&(_, a), &(_, b)| digests[a].cmp(&digests[b]).then(a.cmp(&b)));
        }
    }
    keyed
}

/// The first 8 bytes of a digest, as a number (big-endian: the numbers sort as the
/// digests do).
fn prefix(d: &DocDigest) -> u64 {
    let mut p = [0u8; 8];
    p.copy_from_slice(&d[..8]);
    u64::from_be_bytes(p)
}

/// What the exact pass found: a digest per document and the groups of documents
/// sharing one.
///
/// # Example
///
/// ```
/// let found = near_dup::pipeline::ExactPass::new().run(&["a", "b", "a", "a"]);
/// assert_eq!(found.groups(), &[vec![0, 2, 3]]);
/// assert_eq!(found.unique(), vec![0, 1]);
/// assert!(found.is_copy(3) && !found.is_copy(0));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExactDuplicates {
    digests: Vec<DocDigest>,
    first: Vec<usize>,
    groups: Vec<Vec<usize>>,
}

impl ExactDuplicates {
    /// Groups documents by their digests (index `i` is document `i`).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::ExactDuplicates;
    /// let found = ExactDuplicates::from_digests(vec![[1; 20], [2; 20], [1; 20]]);
    /// assert_eq!(found.groups(), &[vec![0, 2]]);
    /// ```
    #[must_use]
    pub fn from_digests(digests: Vec<DocDigest>) -> Self {
        let n = digests.len();
        let order = by_digest(&digests);
        let mut first: Vec<usize> = (0..n).collect();
        let mut groups = Vec::new();
        // Equal digests have equal prefixes: only a run of equal prefixes (sorted by
        // whole digest within) holds groups, split where the whole digest changes.
        for run in order.chunk_by(|a, b| a.0 == b.0).filter(|r| r.len() > 1) {
            for same in run.chunk_by(|&(_, a), &(_, b)| digests[a] == digests[b]) {
                if same.len() > 1 {
                    let members: Vec<usize> = same.iter().map(|&(_, i)| i).collect();
                    for &m in &members {
                        first[m] = members[0];
                    }
                    groups.push(members);
                }
            }
        }
        groups.sort_unstable_by_key(|g| g[0]);
        ExactDuplicates {
            digests,
            first,
            groups,
        }
    }

    /// The number of documents.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::pipeline::ExactPass::new().run(&["a", "a"]).len(), 2);
    /// ```
    #[must_use]
    pub fn len(&self) -> usize {
        self.digests.len()
    }

    /// Whether there are no documents.
    ///
    /// # Example
    ///
    /// ```
    /// assert!(near_dup::pipeline::ExactPass::new().run::<&str>(&[]).is_empty());
    /// ```
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.digests.is_empty()
    }

    /// The groups of two or more documents with equal digests, each in input order,
    /// ordered by their first member.
    ///
    /// # Example
    ///
    /// ```
    /// let found = near_dup::pipeline::ExactPass::new().run(&["b", "a", "b", "a"]);
    /// assert_eq!(found.groups(), &[vec![0, 2], vec![1, 3]]);
    /// ```
    #[must_use]
    pub fn groups(&self) -> &[Vec<usize>] {
        &self.groups
    }

    /// The digest of document `i`, if there is one.
    ///
    /// # Example
    ///
    /// ```
    /// let pass = near_dup::pipeline::ExactPass::new();
    /// assert_eq!(pass.run(&["q"]).digest(0), Some(&pass.digest("q")));
    /// ```
    #[must_use]
    pub fn digest(&self, i: usize) -> Option<&DocDigest> {
        self.digests.get(i)
    }

    /// All digests, by document.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::pipeline::ExactPass::new().run(&["a", "b"]).digests().len(), 2);
    /// ```
    #[must_use]
    pub fn digests(&self) -> &[DocDigest] {
        &self.digests
    }

    /// The first document (in input order) with the same digest as `i`; `i` itself
    /// when it has no earlier copy or is out of range.
    ///
    /// # Example
    ///
    /// ```
    /// let found = near_dup::pipeline::ExactPass::new().run(&["a", "b", "a"]);
    /// assert_eq!((found.first_of(2), found.first_of(1), found.first_of(9)), (0, 1, 9));
    /// ```
    #[must_use]
    pub fn first_of(&self, i: usize) -> usize {
        self.first.get(i).copied().unwrap_or(i)
    }

    /// Whether document `i` is a copy of an earlier document.
    ///
    /// # Example
    ///
    /// ```
    /// let found = near_dup::pipeline::ExactPass::new().run(&["a", "a"]);
    /// assert!(found.is_copy(1) && !found.is_copy(0));
    /// ```
    #[must_use]
    pub fn is_copy(&self, i: usize) -> bool {
        self.first_of(i) != i
    }

    /// The number of documents that are copies of an earlier one (what the pass
    /// removes before the costlier stages).
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::pipeline::ExactPass::new().run(&["a", "a", "a", "b"]).copies(), 2);
    /// ```
    #[must_use]
    pub fn copies(&self) -> usize {
        self.groups.iter().map(|g| g.len() - 1).sum()
    }

    /// The documents that are not copies of an earlier one, in input order: the ones
    /// later stages need to see.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::pipeline::ExactPass::new().run(&["a", "b", "a"]).unique(), vec![0, 1]);
    /// ```
    #[must_use]
    pub fn unique(&self) -> Vec<usize> {
        (0..self.len()).filter(|&i| !self.is_copy(i)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn ascii_prefix_len_finds_the_first_non_ascii_byte_at_every_position() {
        for len in 0..40 {
            for at in 0..=len {
                let mut bytes = vec![b'a'; len];
                if let Some(b) = bytes.get_mut(at) {
                    *b = 0xC3;
                }
                assert_eq!(ascii_prefix_len(&bytes), at, "len {len}, non-ASCII at {at}");
            }
        }
    }

    /// The document string by its definition, one character at a time: every word
    /// character (`ndd_shingle::is_word_char`, the tokenizer's), lower-cased when
    /// folding, of the text (NFKC-normalized first when asked).
    fn by_definition(doc: &str, fold: bool, nfkc: bool) -> DocDigest {
        use unicode_normalization::UnicodeNormalization;
        let text: String = if nfkc {
            doc.nfkc().collect()
        } else {
            doc.to_owned()
        };
        let mut string = String::new();
        for c in text.chars().filter(|&c| ndd_shingle::is_word_char(c)) {
            if fold {
                string.extend(c.to_lowercase());
            } else {
                string.push(c);
            }
        }
        Sha1::digest(string.as_bytes()).into()
    }

    /// Characters drawn for the property tests: ASCII of every class (letters of both
    /// cases, digits, punctuation, white space, control bytes), Latin letters with
    /// accents, a full-width letter and a ligature (changed by NFKC), an uppercase
    /// letter that lower-cases to two characters (`İ`), a CJK ideograph and an emoji.
    fn text_strategy() -> impl Strategy<Value = String> {
        let ascii = (0u8..128).prop_map(char::from);
        let other = prop::sample::select(vec!['é', 'Ä', 'ß', 'Ｆ', 'ﬁ', 'İ', '漢', '😀', '\u{a0}']);
        let c = prop_oneof![8 => ascii, 1 => other];
        prop::collection::vec(c, 0..700).prop_map(|cs| cs.into_iter().collect())
    }

    proptest! {
        #[test]
        fn digests_equal_the_document_string_by_definition(
            doc in text_strategy(),
            fold in any::<bool>(),
            nfkc in any::<bool>(),
        ) {
            let pass = ExactPass::new().fold_case(fold).nfkc(nfkc);
            let expected = by_definition(&doc, fold, nfkc);
            prop_assert_eq!(pass.digest(&doc), expected);
            let mut buf = Vec::new();
            prop_assert_eq!(pass.digest_with(&doc, &mut buf), expected);
        }

        #[test]
        fn ascii_digests_equal_the_definition_at_every_length(
            doc in prop::collection::vec(0u8..128, 0..1100),
            fold in any::<bool>(),
        ) {
            // Lengths around the pieces of 256 bytes, odd and even (the lone last byte).
            let doc: String = doc.into_iter().map(char::from).collect();
            let pass = ExactPass::new().fold_case(fold);
            prop_assert_eq!(pass.digest(&doc), by_definition(&doc, fold, false));
        }
    }

    #[test]
    fn pair_tables_keep_each_byte_of_a_pair_as_the_byte_table_does() {
        for (pairs, single) in [(&*PAIRS_PLAIN, &ALNUM), (&*PAIRS_FOLDED, &ALNUM_FOLDED)] {
            for a in 0..=255u8 {
                for b in 0..=255u8 {
                    let e = pairs[usize::from(a) | usize::from(b) << 8].to_le_bytes();
                    let kept: Vec<u8> = [single[usize::from(a)], single[usize::from(b)]]
                        .into_iter()
                        .filter(|&c| c != 0)
                        .collect();
                    assert_eq!(usize::from(e[3]), kept.len(), "{a} {b}");
                    assert_eq!(&e[..kept.len()], &kept[..], "{a} {b}");
                }
            }
        }
    }

    /// `n` digests, the `i`-th zeros set by `set(i, digest)`.
    fn made(n: u32, set: impl Fn(u32, &mut DocDigest)) -> Vec<DocDigest> {
        (0..n)
            .map(|i| {
                let mut d = [0u8; 20];
                set(i, &mut d);
                d
            })
            .collect()
    }

    /// `x` as a byte (`x` is below 256 in these tests).
    fn byte(x: u32) -> u8 {
        u8::try_from(x).unwrap_or(0)
    }

    #[test]
    fn by_digest_is_the_sort_by_digest_and_index_even_when_prefixes_collide() {
        // Digests from a few values: many equal, many sharing the first 8 bytes
        // (a prefix collision) but differing later, and in the first byte only.
        let digests = made(500, |i, d| {
            d[0] = byte(i % 3);
            d[19] = byte(i * 7 % 5);
            d[10] = byte(i % 2);
        });
        let mut expected: Vec<usize> = (0..digests.len()).collect();
        expected.sort_unstable_by(|&a, &b| digests[a].cmp(&digests[b]).then(a.cmp(&b)));
        let order: Vec<usize> = by_digest(&digests).iter().map(|&(_, i)| i).collect();
        assert_eq!(order, expected);
        assert!(by_digest(&[]).is_empty());
    }

    /// Groups by whole digest where prefixes collide: the same groups, firsts and
    /// copies as a map from each digest to its documents.
    #[test]
    fn from_digests_groups_by_the_whole_digest_when_prefixes_collide() {
        let digests = made(600, |i, d| {
            d[0] = byte(i % 4);
            d[12] = byte(i % 3);
            // Every seventh document has a digest of its own.
            if i % 7 == 0 {
                d[19] = 1;
                d[18] = byte(i % 256);
                d[17] = byte(i / 256);
            }
        });
        let mut by_value: std::collections::BTreeMap<DocDigest, Vec<usize>> =
            std::collections::BTreeMap::new();
        for (i, d) in digests.iter().enumerate() {
            by_value.entry(*d).or_default().push(i);
        }
        let mut expected: Vec<Vec<usize>> =
            by_value.into_values().filter(|g| g.len() > 1).collect();
        expected.sort_unstable_by_key(|g| g[0]);
        let found = ExactDuplicates::from_digests(digests);
        assert_eq!(found.groups(), expected.as_slice());
        assert_eq!(expected.len(), 12);
        for g in &expected {
            for &m in g {
                assert_eq!(found.first_of(m), g[0]);
            }
        }
        assert_eq!(
            found.copies(),
            expected.iter().map(|g| g.len() - 1).sum::<usize>()
        );
        assert!(!found.is_copy(7) && found.first_of(7) == 7);
    }
}
