//! The core traits compose, forward through references, and are usable as `dyn`.

#![allow(clippy::unwrap_used)] // tests unwrap to fail loudly

use ndd_core::{
    DocSketcher, DynFeatureExtractor, DynTokenizer, Error, ErrorKind, ExactSetSketcher,
    FeatureExtractor, FeatureSink, SchemeId, Signature, Sketcher, Token, Tokenizer, UnionFind,
};

struct Spaces;
impl Tokenizer for Spaces {
    fn for_each_token<F: FnMut(Token<'_>)>(&self, text: &str, mut f: F) {
        let mut start = 0;
        for part in text.split(' ') {
            if !part.is_empty() {
                f(Token {
                    text: part,
                    start,
                    end: start + part.len(),
                });
            }
            start += part.len() + 1;
        }
    }
}

struct Words;
impl FeatureExtractor for Words {
    fn extract<S: FeatureSink + ?Sized>(&self, doc: &str, sink: &mut S) {
        Spaces.for_each_token(doc, |t| {
            sink.push(ndd_core::hash::stable_hash64(t.text.as_bytes(), 0))
        });
    }
    fn scheme(&self) -> SchemeId {
        SchemeId::new("test-words").finish()
    }
}

#[test]
fn object_safe_twins() {
    let tokenizers: Vec<Box<dyn DynTokenizer>> = vec![Box::new(Spaces)];
    let mut n = 0;
    tokenizers[0].for_each_token_dyn("a b c", &mut |_| n += 1);
    assert_eq!(n, 3);
    let extractors: Vec<Box<dyn DynFeatureExtractor>> = vec![Box::new(Words)];
    let mut out: Vec<u64> = Vec::new();
    extractors[0].extract_dyn("x y", &mut out);
    assert_eq!(out.len(), 2);
    assert_eq!(extractors[0].scheme_dyn(), Words.scheme());
}

#[test]
fn references_forward() {
    let by_ref = &Words;
    assert_eq!(by_ref.features("a b"), Words.features("a b"));
    let sk = ExactSetSketcher::builder().build_with(Words);
    let r = &sk;
    assert_eq!(r.sketch("a b"), sk.sketch("a b"));
}

#[test]
fn sketch_with_reuses_state_and_batch_checks_lengths() {
    let sk = ExactSetSketcher::builder().build_with(Words);
    let mut state = sk.new_state();
    let mut sig = sk.new_signature();
    sk.sketch_with(&mut state, "a b c", &mut sig);
    assert_eq!(sig.set().len(), 3);
    sk.sketch_with(&mut state, "d", &mut sig);
    assert_eq!(sig.set().len(), 1, "state must be reset between documents");
    let mut out = vec![sk.new_signature(); 1];
    let err = sk.sketch_batch_into(&["a", "b"], &mut out).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::LengthMismatch);
    let mut out = vec![sk.new_signature(); 2];
    sk.sketch_batch_into(&["a", "b c"], &mut out).unwrap();
    assert_eq!(out[1].set().len(), 2);
}

#[test]
fn mismatched_schemes_are_errors() {
    let a = ExactSetSketcher::new(SchemeId::new("f").with(1).finish());
    let b = ExactSetSketcher::new(SchemeId::new("f").with(2).finish());
    let (sa, sb) = (a.sketch_features([1, 2]), b.sketch_features([1, 2]));
    assert!(matches!(
        sa.similarity(&sb),
        Err(Error::Incompatible { .. })
    ));
}

#[test]
fn union_find_groups_transitively() {
    let mut uf = UnionFind::new(6);
    for (a, b) in [(0, 1), (1, 2), (4, 5)] {
        uf.union(a, b);
    }
    assert_eq!(uf.groups(), vec![vec![0, 1, 2], vec![3], vec![4, 5]]);
    assert_eq!(uf.labels(), vec![0, 0, 0, 3, 4, 4]);
}
