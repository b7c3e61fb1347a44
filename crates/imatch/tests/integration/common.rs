//! Helpers shared by the integration tests of `ndd-imatch`.
#![allow(clippy::unwrap_used)] // tests unwrap to fail loudly

use sha1::{Digest, Sha1};

/// The SHA-1 of the terms in ascending order, each as its 8 little-endian bytes: an
/// I-Match digest written from the paper's definition.
pub(crate) fn sha1_of_sorted(mut terms: Vec<u64>) -> [u8; 20] {
    terms.sort_unstable();
    let mut h = Sha1::new();
    for t in terms {
        h.update(t.to_le_bytes());
    }
    h.finalize().into()
}

/// `i` spelled in letters (terms must avoid digits to pass the filter freely).
fn to_letters(mut i: usize) -> String {
    let mut s = String::new();
    loop {
        s.push(char::from(b'a' + u8::try_from(i % 26).unwrap()));
        i /= 26;
        if i == 0 {
            return s;
        }
    }
}

/// `n` distinct letters-only words, each `prefix` followed by its index in letters.
pub(crate) fn words(n: usize, prefix: &str) -> Vec<String> {
    (0..n)
        .map(|i| format!("{prefix}{}", to_letters(i)))
        .collect()
}
