//! Word shingles hashed as Rabin fingerprints of their text (`ShingleHash::Rabin`).

use std::collections::VecDeque;

use ndd_core::Tokenizer;

use crate::WordShingler;
use crate::rabin::RabinFingerprinter;
use crate::token::WordTokenizer;

/// Extends `fp` with the bytes of `token` (in NFKC when `nfkc`), lowercased per
/// character when `fold`.
fn extend_token(fp: &RabinFingerprinter, mut h: u64, token: &str, fold: bool, nfkc: bool) -> u64 {
    #[cfg(feature = "nfkc")]
    if nfkc && !crate::token::is_nfkc(token) {
        use unicode_normalization::UnicodeNormalization;
        let mut utf8 = [0u8; 4];
        for c in token.nfkc() {
            if fold {
                for lc in c.to_lowercase() {
                    h = fp.extend(h, lc.encode_utf8(&mut utf8).as_bytes());
                }
            } else {
                h = fp.extend(h, c.encode_utf8(&mut utf8).as_bytes());
            }
        }
        return h;
    }
    let _ = nfkc;
    if !fold {
        return fp.extend(h, token.as_bytes());
    }
    if token.is_ascii() {
        for &b in token.as_bytes() {
            h = fp.extend_byte(h, b.to_ascii_lowercase());
        }
        return h;
    }
    let mut utf8 = [0u8; 4];
    for c in token.chars().flat_map(char::to_lowercase) {
        h = fp.extend(h, c.encode_utf8(&mut utf8).as_bytes());
    }
    h
}

/// Calls `emit` with the Rabin fingerprint of each k-gram's text: the (case-folded)
/// tokens joined by single spaces. O(k) per position, no allocation per shingle.
pub(crate) fn for_each_rabin_shingle<F: FnMut(u64)>(s: &WordShingler, doc: &str, emit: &mut F) {
    let (k, fold, nfkc, filter, whole_short) = s.rabin_params();
    let fp = RabinFingerprinter::shared();
    let mut window: VecDeque<(usize, usize)> = VecDeque::with_capacity(k);
    let render = |window: &VecDeque<(usize, usize)>| {
        let mut h = 0u64;
        for (i, &(a, b)) in window.iter().enumerate() {
            if i > 0 {
                h = fp.extend_byte(h, b' ');
            }
            h = extend_token(fp, h, &doc[a..b], fold, nfkc);
        }
        h
    };
    WordTokenizer::new().for_each_token(doc, |t| {
        if !filter.keeps(t.text) {
            return;
        }
        if window.len() == k {
            window.pop_front();
        }
        window.push_back((t.start, t.end));
        if window.len() == k {
            emit(render(&window));
        }
    });
    if whole_short && !window.is_empty() && window.len() < k {
        emit(render(&window));
    }
}
