//! Word shingles hashed as Rabin fingerprints of their text (`ShingleHash::Rabin`).

use std::collections::VecDeque;
use std::sync::OnceLock;

use ndd_core::Tokenizer;

use crate::WordShingler;
use crate::token::{WordTokenizer, fold_case_into};

// PLACEHOLDER until rabin.rs lands.
struct Tmp;
impl Tmp {
    fn fingerprint(&self, b: &[u8]) -> u64 {
        ndd_core::hash::stable_hash64(b, 0)
    }
}
fn fingerprinter() -> &'static Tmp {
    static FP: OnceLock<Tmp> = OnceLock::new();
    FP.get_or_init(|| Tmp)
}

/// Calls `emit` with the Rabin fingerprint of each k-gram's text: the (case-folded)
/// tokens joined by single spaces. One text buffer per document, reused per shingle.
pub(crate) fn for_each_rabin_shingle<F: FnMut(u64)>(s: &WordShingler, doc: &str, emit: &mut F) {
    let (k, fold, filter, whole_short) = s.rabin_params();
    let fp = fingerprinter();
    let mut window: VecDeque<(usize, usize)> = VecDeque::with_capacity(k);
    let mut buf = String::new();
    let render = |window: &VecDeque<(usize, usize)>, buf: &mut String| {
        buf.clear();
        for (i, &(a, b)) in window.iter().enumerate() {
            if i > 0 {
                buf.push(' ');
            }
            if fold {
                fold_case_into(&doc[a..b], buf);
            } else {
                buf.push_str(&doc[a..b]);
            }
        }
        fp.fingerprint(buf.as_bytes())
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
            emit(render(&window, &mut buf));
        }
    });
    if whole_short && !window.is_empty() && window.len() < k {
        emit(render(&window, &mut buf));
    }
}
