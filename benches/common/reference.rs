//! The reference pass of `shared/bench` (`rust-peers/src/lib.rs`, the source of its
//! "tokenize + xxh3_64 of each 5-gram string" ceiling, the "plain tokenize-and-hash
//! pass" of the issues): ASCII-lowercase, tokens are runs of `[a-z0-9]` copied into one
//! normalized buffer joined by single spaces, each word 5-gram (one shingle for 1–4
//! tokens) hashed as a byte string with XXH3. Shared by the criterion benches that
//! compare against it in the same run (included with
//! `#[path = ".../benches/common/reference.rs"] mod reference;`).

use xxhash_rust::xxh3::xxh3_64;

/// The pass's buffers, reused across documents.
#[derive(Default)]
pub(crate) struct Reference {
    norm: Vec<u8>,
    toks: Vec<(usize, usize)>,
}

impl Reference {
    /// Calls `emit` with the hash of every word 5-gram of `text`.
    pub(crate) fn shingle_hashes(&mut self, text: &str, mut emit: impl FnMut(u64)) {
        self.norm.clear();
        self.toks.clear();
        let b = text.as_bytes();
        let (mut i, n) = (0, b.len());
        while i < n {
            while i < n && !b[i].is_ascii_alphanumeric() {
                i += 1;
            }
            if i >= n {
                break;
            }
            if !self.norm.is_empty() {
                self.norm.push(b' ');
            }
            let s = self.norm.len();
            while i < n && b[i].is_ascii_alphanumeric() {
                self.norm.push(b[i].to_ascii_lowercase());
                i += 1;
            }
            self.toks.push((s, self.norm.len()));
        }
        let t = &self.toks;
        match t.len() {
            0 => {}
            n if n < 5 => emit(xxh3_64(&self.norm[t[0].0..t[n - 1].1])),
            n => {
                for j in 0..=n - 5 {
                    emit(xxh3_64(&self.norm[t[j].0..t[j + 4].1]));
                }
            }
        }
    }
}
