//! Correctness of ndd-ncd against independent oracles: compressors round-trip, NCD's
//! near-metric properties on real text, the fallback rule, and the pruned searches
//! against a brute-force loop written here (not the search code).
#![allow(clippy::unwrap_used)] // tests unwrap to fail loudly

use ndd_core::ErrorKind;
use ndd_eval::{SynthConfig, SyntheticCorpus, generate_corpus};
use ndd_ncd::{
    Compressor, CompressorKind, Corpus, Deflate, DeflateFormat, Lz4, Ncd, Pruning, SearchConfig,
    SigNcd, Snappy,
};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::corpus::bundled;

fn all_compressors() -> Vec<Box<dyn Compressor>> {
    let mut out: Vec<Box<dyn Compressor>> = vec![Box::new(Snappy::new()), Box::new(Lz4::new())];
    for f in [DeflateFormat::Raw, DeflateFormat::Zlib, DeflateFormat::Gzip] {
        for level in [0, 1, 6, 9] {
            out.push(Box::new(Deflate::new(f, level).unwrap()));
        }
    }
    out
}

#[test]
fn every_compressor_round_trips_and_measures_its_own_output() {
    let docs = bundled();
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let random: Vec<u8> = (0..100_000).map(|_| rng.random()).collect();
    let big = docs[..60].join("\n").into_bytes(); // ~300 KB, several blocks/windows
    let inputs: Vec<&[u8]> = vec![
        b"",
        b"a",
        docs[0].as_bytes(),
        docs[1].as_bytes(),
        &random,
        &big,
    ];
    let (mut z, mut back) = (Vec::new(), Vec::new());
    for mut c in all_compressors() {
        for x in &inputs {
            c.compress_into(x, &mut z).unwrap();
            assert_eq!(
                z.len(),
                c.compressed_len(x).unwrap(),
                "{} len {}",
                c.name(),
                x.len()
            );
            c.decompress_into(&z, &mut back).unwrap();
            assert_eq!(&back[..], *x, "{} round trip, len {}", c.name(), x.len());
            // A clone measures the same.
            assert_eq!(c.box_clone().compressed_len(x).unwrap(), z.len());
        }
        // Gzip is also readable by a standard decoder (flate2's GzDecoder checks the
        // CRC and length); corrupt or truncated streams are errors, not panics.
        c.compress_into(docs[2].as_bytes(), &mut z).unwrap();
        for cut in [0, 1, z.len() / 2, z.len() - 1] {
            let r = c.decompress_into(&z[..cut], &mut back);
            if let Err(e) = r {
                assert_eq!(e.kind(), ErrorKind::CorruptData, "{}", c.name());
            } else {
                assert_ne!(
                    back,
                    docs[2].as_bytes(),
                    "{} decoded a truncated stream",
                    c.name()
                );
            }
        }
        let mut flipped = z.clone();
        for b in flipped.iter_mut().take(8) {
            *b ^= 0xA5;
        }
        let _ = c.decompress_into(&flipped, &mut back); // must not panic
    }
}

#[test]
fn compressed_lengths_match_independent_encoders() {
    // Snappy raw and LZ4 (size-prepended) as their crates' one-shot functions encode.
    let doc = bundled().swap_remove(3);
    let x = doc.as_bytes();
    assert_eq!(
        Snappy::new().compressed_len(x).unwrap(),
        snap::raw::Encoder::new().compress_vec(x).unwrap().len()
    );
    assert_eq!(
        Lz4::new().compressed_len(x).unwrap(),
        lz4_flex::block::compress_prepend_size(x).len()
    );
    // gzip = raw deflate + 18 bytes, zlib = raw deflate + 6, at the same level.
    for level in [1, 6, 9] {
        let raw = Deflate::raw(level).unwrap().compressed_len(x).unwrap();
        assert_eq!(
            Deflate::zlib(level).unwrap().compressed_len(x).unwrap(),
            raw + 6
        );
        assert_eq!(
            Deflate::gzip(level).unwrap().compressed_len(x).unwrap(),
            raw + 18
        );
    }
}

#[test]
fn ncd_is_near_zero_on_itself_and_near_symmetric_on_real_text() {
    let docs = bundled();
    let s = SigNcd::new();
    for kind in [
        CompressorKind::Snappy,
        CompressorKind::Lz4,
        CompressorKind::Deflate(DeflateFormat::Zlib, 6),
    ] {
        let mut ncd = Ncd::new(kind.build().unwrap());
        let items: Vec<Vec<u8>> = docs[..80]
            .iter()
            .map(|d| s.signature(d).0.into_bytes())
            .filter(|x| x.len() >= 300)
            .collect();
        assert!(items.len() >= 30, "{}", items.len());
        let (mut self_sum, mut asym_sum, mut pairs) = (0.0, 0.0, 0);
        for (i, x) in items.iter().enumerate() {
            let d = ncd.distance(x, x).unwrap();
            assert!(
                (0.0..0.25).contains(&d),
                "{kind:?} NCD(x,x) = {d}, |x| = {}",
                x.len()
            );
            self_sum += d;
            // Full texts too: NCD(x, x) small below the compressor's window.
            let full = docs[i].as_bytes();
            if full.len() < 8_000 {
                let d = ncd.distance(full, full).unwrap();
                assert!(d < 0.25, "{kind:?} full-text NCD(x,x) = {d}");
            }
            for y in &items[i + 1..] {
                let a = (ncd.distance(x, y).unwrap() - ncd.distance(y, x).unwrap()).abs();
                assert!(a < 0.15, "{kind:?} asymmetry {a}");
                asym_sum += a;
                pairs += 1;
            }
        }
        assert!(
            self_sum / (items.len() as f64) < 0.15,
            "{kind:?} mean NCD(x,x)"
        );
        assert!(
            asym_sum / f64::from(pairs) < 0.03,
            "{kind:?} mean asymmetry"
        );
    }
}

#[test]
fn fallback_rule_uses_the_full_prepared_text_below_three_spots() {
    let s = SigNcd::new();
    let two = "Alpha beta, gamma delta, epsilon.";
    let three = "Alpha beta, gamma delta, epsilon zeta, eta.";
    let (sig, o) = s.signature(two);
    assert!(o.fallback);
    assert_eq!(sig, "alpha beta gamma delta epsilon"); // all words, case-folded
    let (sig, o) = s.signature(three);
    assert!(!o.fallback);
    assert_eq!(sig, "beta delta zeta");
    let corpus = s.corpus(&[two, three, "", "no spots at all"]).unwrap();
    assert_eq!(corpus.fallback_count(), 3);
    assert_eq!(corpus.get(2), b""); // empty document: empty signature, no panic
    assert_eq!(corpus.get(3), b"no spots at all");
    // The distance between two fallback documents is the NCD of their word strings.
    let mut ncd = Ncd::new(Snappy::new());
    let want = ncd
        .distance(b"alpha beta gamma delta epsilon", b"no spots at all")
        .unwrap();
    assert_eq!(corpus.distance(0, 3).unwrap(), want);
    // min_spots is a parameter.
    let s5 = SigNcd::builder().min_spots(4).build().unwrap();
    assert!(s5.signature(three).1.fallback);
}

/// Every pair's distance by a plain double loop (the oracle): equation 2 with
/// `C(xy)` raised to `max{C(x), C(y)}` (the monotone form the search uses).
fn brute(corpus: &Corpus) -> Vec<(usize, usize, f64)> {
    let mut ncd = Ncd::new(corpus.new_compressor());
    let mut out = Vec::new();
    for i in 0..corpus.len() {
        for j in i + 1..corpus.len() {
            let (cx, cy) = (corpus.compressed_len(i), corpus.compressed_len(j));
            let cxy = ncd.concat_len(corpus.get(i), corpus.get(j)).unwrap();
            let cxy = cxy.max(cx).max(cy);
            let d = (cxy as f64 - cx.min(cy) as f64) / cx.max(cy) as f64;
            out.push((i, j, d));
        }
    }
    out
}

fn check_exact(corpus: &Corpus, label: &str) {
    let all = brute(corpus);
    for t in 1..=9 {
        let tau = f64::from(t) / 10.0;
        let want: Vec<(usize, usize, f64)> = all.iter().copied().filter(|p| p.2 <= tau).collect();
        // P1 and P1+P2 at every τ; brute force through the search API, 64 pivots and
        // the parallel search at a few (they cost a full scan each).
        let mut configs = vec![
            SearchConfig::builder(tau)
                .pruning(Pruning::P1)
                .build()
                .unwrap(),
            SearchConfig::builder(tau)
                .pruning(Pruning::P1P2)
                .build()
                .unwrap(),
        ];
        if t == 5 {
            configs.push(
                SearchConfig::builder(tau)
                    .pruning(Pruning::None)
                    .build()
                    .unwrap(),
            );
        }
        if t % 3 == 0 {
            configs.push(
                SearchConfig::builder(tau)
                    .pruning(Pruning::P1P2)
                    .pivots(64)
                    .build()
                    .unwrap(),
            );
        }
        if cfg!(feature = "rayon") && t % 4 == 1 {
            configs.push(
                SearchConfig::builder(tau)
                    .pruning(Pruning::P1P2)
                    .parallel(true)
                    .build()
                    .unwrap(),
            );
        }
        for c in configs {
            let out = c.search(corpus).unwrap();
            // The search scores 1 − NCD; the same subtraction on the oracle's NCD.
            let got: Vec<(usize, usize, f64)> =
                out.pairs.iter().map(|p| (p.a, p.b, p.score)).collect();
            let want: Vec<(usize, usize, f64)> =
                want.iter().map(|&(a, b, d)| (a, b, 1.0 - d)).collect();
            let missing: Vec<_> = want.iter().filter(|p| !got.contains(p)).collect();
            let extra: Vec<_> = got.iter().filter(|p| !want.contains(p)).collect();
            assert!(
                missing.is_empty() && extra.is_empty(),
                "{label} tau {tau} {:?} {}: missing {missing:?} extra {extra:?}",
                c.pruning(),
                c.pivots()
            );
            assert_eq!(got, want);
            let r = out.report;
            assert_eq!(
                r.compared + r.pruned_p1 + r.pruned_p2 + r.skipped_checked,
                r.total_pairs
            );
            if c.pruning() == Pruning::None {
                assert_eq!(r.compared, r.total_pairs);
            }
        }
    }
}

#[test]
fn p1_and_p2_find_every_pair_brute_force_finds_on_the_bundled_corpus() {
    let docs = bundled();
    let corpus = SigNcd::new().corpus(&docs[..300]).unwrap();
    check_exact(&corpus, "debian-copyright");
}

/// Labeled near-duplicates of 50 bundled base texts (every 11th), 5 variants each,
/// generated with `seed`.
fn synthetic(seed: u64) -> SyntheticCorpus {
    let docs = bundled();
    let bases: Vec<&str> = docs
        .iter()
        .step_by(11)
        .take(50)
        .map(String::as_str)
        .collect();
    generate_corpus(&bases, &SynthConfig::new(seed)).unwrap()
}

#[test]
fn p1_and_p2_find_every_pair_brute_force_finds_on_labeled_near_duplicates() {
    // 50 base texts (every 11th), 5 variants each: exact copies, minor changes, block
    // edits, reorderings, repeats, misspellings, appended paragraphs.
    let synth = synthetic(3);
    let corpus = SigNcd::new().corpus(&synth.texts()).unwrap();
    assert_eq!(corpus.len(), 300);
    check_exact(&corpus, "synthetic");
    // And with LZ4 and a Sig-2 signature on commas and full stops (4x longer
    // signatures; the first 20 clusters).
    let s = SigNcd::builder()
        .variant(ndd_shingle::spots::PunctSpotVariant::Sig2)
        .punctuation([',', '.'])
        .compressor(CompressorKind::Lz4)
        .build()
        .unwrap();
    check_exact(
        &s.corpus(&synth.texts()[..120]).unwrap(),
        "synthetic sig-2 lz4",
    );
}

#[test]
fn pruning_prunes_and_checked_mode_may_miss_pairs() {
    let synth = synthetic(5);
    let corpus = SigNcd::new().corpus(&synth.texts()).unwrap();
    let exact = SearchConfig::new(0.5).unwrap().search(&corpus).unwrap();
    assert!(exact.report.pruned_p1 > 0);
    let p2 = SearchConfig::builder(0.5)
        .pruning(Pruning::P1P2)
        .build()
        .unwrap()
        .search(&corpus)
        .unwrap();
    assert!(
        p2.report.compared < exact.report.compared,
        "{:?}",
        p2.report
    );
    let checked = SearchConfig::builder(0.5)
        .checked(true)
        .build()
        .unwrap()
        .search(&corpus)
        .unwrap();
    assert!(checked.report.compared < exact.report.compared);
    assert!(checked.report.skipped_checked > 0);
    // Every pair it reports is a true pair, but groups of 6 lose pairs.
    assert!(checked.pairs.iter().all(|p| exact.pairs.contains(p)));
    assert!(checked.pairs.len() < exact.pairs.len());
    let r = checked.report;
    assert_eq!(
        r.compared + r.pruned_p1 + r.pruned_p2 + r.skipped_checked,
        r.total_pairs
    );
}

#[test]
fn invalid_parameters_are_errors() {
    for tau in [f64::NAN, -0.1, 1.01, f64::INFINITY] {
        let e = SearchConfig::new(tau).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidParameter);
    }
    assert!(
        SearchConfig::builder(0.5)
            .p2_slack(f64::NAN)
            .build()
            .is_err()
    );
    assert!(SearchConfig::builder(0.5).p2_slack(-0.01).build().is_err());
    assert!(SearchConfig::builder(0.5).pivots(0).build().is_err());
    assert!(
        SearchConfig::builder(0.5)
            .checked(true)
            .pruning(Pruning::P1P2)
            .build()
            .is_err()
    );
    assert!(Deflate::raw(10).is_err());
    for bad in [
        "", "snappy-1", "lz4-3", "gzip-", "gzip-x", "zlib-10", "zstd",
    ] {
        let e = bad.parse::<CompressorKind>().unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidParameter, "{bad}");
    }
    assert!(
        SigNcd::builder()
            .punctuation(Vec::<char>::new())
            .build()
            .is_err()
    );
    assert!(
        SigNcd::builder()
            .compressor(CompressorKind::Deflate(DeflateFormat::Gzip, 10))
            .build()
            .is_err()
    );
}

#[test]
fn edge_cases_do_not_panic() {
    let s = SigNcd::new();
    let empty: [&str; 0] = [];
    let c = s.corpus(&empty).unwrap();
    let out = SearchConfig::new(0.5).unwrap().search(&c).unwrap();
    assert!(out.pairs.is_empty());
    assert_eq!(out.report.total_pairs, 0);
    let c = s.corpus(&["only one"]).unwrap();
    assert!(
        SearchConfig::new(0.5)
            .unwrap()
            .search(&c)
            .unwrap()
            .pairs
            .is_empty()
    );
    // Empty documents: both signatures empty; NCD is defined (C("") = 1 for Snappy).
    let c = s.corpus(&["", "", "words, words, words, words"]).unwrap();
    for pruning in [Pruning::None, Pruning::P1, Pruning::P1P2] {
        for tau in [0.0, 0.5, 1.0] {
            let out = SearchConfig::builder(tau)
                .pruning(pruning)
                .build()
                .unwrap()
                .search(&c)
                .unwrap();
            assert!(out.pairs.iter().all(|p| p.score.is_finite()));
        }
    }
    assert_eq!(ndd_ncd::ncd_from_lengths(0, 0, 0), 0.0);
    // τ = 0 keeps only pairs at distance <= 0; τ = 1 prunes nothing by P1.
    let docs = bundled();
    let c = s.corpus(&docs[..50]).unwrap();
    let r = SearchConfig::new(1.0).unwrap().search(&c).unwrap().report;
    assert_eq!(r.pruned_p1, 0);
}

#[test]
fn figure_1_shape_full_text_drifts_past_the_window_signature_does_not() {
    // The bundled texts joined: NCD(x, x) of the first n bytes (examples/figure1.rs).
    let doc = bundled().join("\n");
    let s = SigNcd::new();
    for kind in [
        CompressorKind::Snappy,
        CompressorKind::Deflate(DeflateFormat::Gzip, 6),
    ] {
        let mut ncd = Ncd::new(kind.build().unwrap());
        let at = |n: usize, ncd: &mut Ncd| {
            let x = &doc.as_bytes()[..n];
            let full = ncd.distance(x, x).unwrap();
            let sig = s.signature(std::str::from_utf8(x).unwrap()).0;
            (full, ncd.distance(sig.as_bytes(), sig.as_bytes()).unwrap())
        };
        let small = at(16 * 1024, &mut ncd);
        let large = at(128 * 1024, &mut ncd);
        assert!(
            small.0 < 0.25 && small.1 < 0.25,
            "{kind:?} 16 KB: {small:?}"
        );
        // Past Snappy's 64 KB block / deflate's 32 KB window the copy is not found.
        assert!(large.0 > 0.8, "{kind:?} 128 KB full text: {large:?}");
        assert!(large.1 < 0.25, "{kind:?} 128 KB signature: {large:?}");
    }
}

/// A test double: `C(x)` = the number of distinct bytes of `x`. Monotone and
/// idempotent, so lengths (and distances) are exactly controlled.
#[derive(Debug, Clone)]
struct DistinctBytes;

impl Compressor for DistinctBytes {
    fn name(&self) -> String {
        "distinct-bytes".into()
    }
    fn compressed_len(&mut self, data: &[u8]) -> Result<usize, ndd_core::Error> {
        let mut seen = [false; 256];
        data.iter().for_each(|&b| seen[usize::from(b)] = true);
        Ok(seen.iter().filter(|s| **s).count())
    }
    fn compress_into(&mut self, data: &[u8], out: &mut Vec<u8>) -> Result<(), ndd_core::Error> {
        let n = self.compressed_len(data)?;
        out.clear();
        out.resize(n, 0);
        Ok(())
    }
    fn decompress_into(&mut self, _: &[u8], _: &mut Vec<u8>) -> Result<(), ndd_core::Error> {
        Err(ndd_core::Error::invalid_input("not invertible"))
    }
    fn box_clone(&self) -> Box<dyn Compressor> {
        Box::new(self.clone())
    }
}

#[test]
fn p1_keeps_a_pair_whose_distance_equals_tau_exactly() {
    // C = 3, 10, C(xy) = 10: NCD = 7/10 = 0.7 exactly, on Lemma 3's bound.
    let mut c = Corpus::new(Box::new(DistinctBytes));
    c.push(b"abc").unwrap();
    c.push(b"abcdefghij").unwrap();
    c.push(b"").unwrap(); // C = 0 with C = 0 partners: distance 0, never pruned
    c.push(b"").unwrap();
    assert_eq!(c.distance(0, 1).unwrap(), 0.7);
    for t in 0..=10 {
        let tau = f64::from(t) / 10.0;
        let want = SearchConfig::builder(tau)
            .pruning(Pruning::None)
            .build()
            .unwrap()
            .search(&c)
            .unwrap();
        for pruning in [Pruning::P1, Pruning::P1P2] {
            let got = SearchConfig::builder(tau)
                .pruning(pruning)
                .build()
                .unwrap()
                .search(&c)
                .unwrap();
            assert_eq!(got.pairs, want.pairs, "tau {tau} {pruning:?}");
        }
    }
    let at = SearchConfig::new(0.7).unwrap().search(&c).unwrap();
    assert!(at.pairs.iter().any(|p| (p.a, p.b) == (0, 1)));
    assert!(at.pairs.iter().any(|p| (p.a, p.b, p.score) == (2, 3, 1.0)));
}

/// The public per-pair `SigNcd::distance`, computed from the raw texts (signatures and
/// compressed lengths made afresh for every pair, nothing shared with `Corpus`), agrees
/// with the search: the search reports exactly the pairs it puts at most τ.
#[test]
fn search_agrees_with_the_per_pair_distance_of_the_public_api() {
    // 300 documents: enough that Snappy is non-monotone on some pairs near τ = 0.7,
    // where plain equation 4 and the search's distance part.
    let docs: Vec<String> = bundled().into_iter().take(300).collect();
    let signcd = SigNcd::new();
    let corpus = signcd.corpus(&docs).unwrap();
    let mut slow = Vec::new();
    for i in 0..docs.len() {
        for j in i + 1..docs.len() {
            slow.push((i, j, signcd.distance(&docs[i], &docs[j]).unwrap()));
        }
    }
    for tau in [0.3, 0.5, 0.7, 0.9] {
        let want: std::collections::HashSet<(usize, usize)> = slow
            .iter()
            .filter(|p| p.2 <= tau)
            .map(|p| (p.0, p.1))
            .collect();
        let got: std::collections::HashSet<(usize, usize)> = SearchConfig::new(tau)
            .unwrap()
            .search(&corpus)
            .unwrap()
            .pairs
            .iter()
            .map(|p| (p.a, p.b))
            .collect();
        assert!(
            !want.is_empty(),
            "no pair at tau {tau}: the fixture proves nothing"
        );
        let missing: Vec<_> = want.difference(&got).collect();
        let extra: Vec<_> = got.difference(&want).collect();
        assert!(
            missing.is_empty() && extra.is_empty(),
            "tau {tau}: missing {missing:?}, extra {extra:?}"
        );
    }
}

/// `search_with_progress` reports one row per document in every mode (sequential,
/// parallel, pivots, checked) and finds what `search` finds.
#[test]
fn progress_counts_every_row_once_and_changes_nothing() {
    use std::sync::atomic::{AtomicU64, Ordering};
    let texts = bundled();
    let docs: Vec<&str> = texts.iter().take(150).map(String::as_str).collect();
    let corpus = SigNcd::new().corpus(&docs).unwrap();
    // (pruning, parallel, checked); P1, sequential and unchecked are the defaults.
    let configs = [
        (Pruning::None, false, false),
        (Pruning::P1, false, false),
        (Pruning::P1P2, false, false),
        (Pruning::P1P2, true, false),
        (Pruning::P1, false, true),
    ]
    .map(|(pruning, parallel, checked)| {
        SearchConfig::builder(0.4)
            .pruning(pruning)
            .parallel(parallel)
            .checked(checked)
            .build()
            .unwrap()
    });
    for c in configs {
        let rows = AtomicU64::new(0);
        let out = c
            .search_with_progress(&corpus, &|r| {
                rows.fetch_add(r, Ordering::Relaxed);
            })
            .unwrap();
        assert_eq!(rows.into_inner(), docs.len() as u64, "{c:?}");
        assert_eq!(out.pairs, c.search(&corpus).unwrap().pairs, "{c:?}");
    }
}

/// 150 bundled documents with copies of some of them spread through (identical
/// signatures, every other copy placed before its original so that both
/// concatenation orders occur), and one document copied eight times (a large group
/// of identical rows).
fn bundled_with_copies() -> Vec<String> {
    let texts = bundled();
    let mut docs: Vec<String> = texts.iter().take(150).cloned().collect();
    for (n, i) in (0..150).step_by(9).enumerate() {
        let copy = docs[i].clone();
        if n % 2 == 0 {
            docs.push(copy);
        } else {
            docs.insert(i.saturating_sub(5), copy);
        }
    }
    for _ in 0..8 {
        docs.push(texts[200].clone());
    }
    docs
}

/// Sharing the compressions of identical signatures changes nothing: against brute
/// force at every τ, and against the search that compresses every pair (with and
/// without pivots, capped, parallel) on a corpus with copies.
#[test]
fn identical_signatures_share_compressions_and_change_no_result() {
    let docs = bundled_with_copies();
    let corpus = SigNcd::new().corpus(&docs).unwrap();
    check_exact(&corpus, "bundled with copies");
    for (pruning, parallel, cap) in [
        (Pruning::P1, false, None),
        (Pruning::P1, true, None),
        (Pruning::P1P2, false, None),
        (Pruning::None, false, None),
        (Pruning::P1, false, Some(3)),
        (Pruning::P1, true, Some(1)),
    ] {
        for tau in [0.3, 0.7] {
            let b = SearchConfig::builder(tau)
                .pruning(pruning)
                .parallel(parallel)
                .max_partners(cap);
            let each = b.clone().share_identical(false).build().unwrap();
            let shared = b.build().unwrap();
            assert!(shared.shares_identical() && !each.shares_identical());
            let (e, s) = (
                each.search(&corpus).unwrap(),
                shared.search(&corpus).unwrap(),
            );
            let label = format!("{pruning:?} parallel {parallel} cap {cap:?} tau {tau}");
            assert_eq!(s.pairs, e.pairs, "{label}");
            assert_eq!(e.report.reused, 0, "{label}");
            // Everything but `reused` is as without sharing.
            let mut r = s.report;
            assert!(r.reused > 0 && r.reused < r.compared, "{label}: {r:?}");
            r.reused = 0;
            assert_eq!(r, e.report, "{label}");
        }
    }
}
