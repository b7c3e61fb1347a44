//! `BloomDedup` against an `LshIndex` with the same bands over independently
//! computed signatures (flags ⊇ candidates, extras within the false-positive rate),
//! a stream saved and continued equal to one stream, bad bytes refused.
#![allow(clippy::unwrap_used)] // tests unwrap to fail loudly

use ndd_core::DocSketcher;
use ndd_lsh::LshIndex;
use ndd_minhash::MinHasher;
use ndd_pipeline::{BloomDedup, Dedup};
use ndd_shingle::WordShingler;

use crate::common::{DEBIAN, DESCRIPTIONS, texts};

#[test]
fn flags_every_banding_candidate_and_few_others() {
    let texts = texts(DEBIAN);
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    // A small capacity, so that false positives happen and can be counted.
    let mut bloom = BloomDedup::new(&Dedup::new(), 100, 0.05).unwrap();
    let flags = bloom.check_then_insert_batch(&refs).unwrap();
    // The oracle: an LshIndex of the same bands over signatures computed here.
    let hasher = MinHasher::builder()
        .num_hashes(128)
        .seed(0)
        .build_with(WordShingler::new(3).unwrap())
        .unwrap();
    let mut index = LshIndex::new(bloom.filter().params());
    let mut fresh = 0usize;
    let mut fresh_flagged = 0usize;
    let mut expected_fp = 0.0;
    let filter_at = |n: usize| {
        // The overall rate after n documents, from the filter's shape.
        let f = bloom.filter();
        let h = f64::from(f.hashes());
        let band = (-(-h * n as f64 / f.bits_per_band() as f64).exp_m1()).powf(h);
        1.0 - (1.0 - band).powf(f.params().bands() as f64)
    };
    let mut found = Vec::new();
    for (i, t) in refs.iter().enumerate() {
        found.clear();
        index
            .query_then_insert(i, &hasher.sketch(t), &mut found)
            .unwrap();
        if found.is_empty() {
            fresh += 1;
            expected_fp += filter_at(i);
            fresh_flagged += usize::from(flags[i]);
        } else {
            assert!(
                flags[i],
                "document {i} has a banding candidate but was not flagged"
            );
        }
    }
    eprintln!("{fresh_flagged} of {fresh} fresh documents flagged, expected {expected_fp:.1}");
    // False positives: within 4 standard deviations of their expected count. The rate
    // counts every insert, while near-duplicates repeat band keys and set no new
    // bits, so it is an upper bound here; a capacity of 100 for 562 documents makes
    // them frequent enough to see.
    assert!(fresh_flagged > 0);
    let sd = expected_fp.sqrt();
    assert!(
        (fresh_flagged as f64) <= expected_fp + 4.0 * sd + 1.0,
        "{fresh_flagged} of {fresh} flagged, expected {expected_fp:.1}"
    );
    assert_eq!(bloom.len(), refs.len() as u64);
    assert!((bloom.false_positive_rate() - filter_at(refs.len())).abs() < 1e-9);
}

#[test]
fn a_saved_and_continued_stream_equals_one_stream() {
    let texts = texts(DEBIAN);
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let mut one = BloomDedup::new(&Dedup::new().threshold(0.7), 10_000, 0.001).unwrap();
    let all = one.check_then_insert_batch(&refs).unwrap();
    let mut first = BloomDedup::new(&Dedup::new().threshold(0.7), 10_000, 0.001).unwrap();
    let mut flags = first.check_then_insert_batch(&refs[..200]).unwrap();
    let mut second = BloomDedup::from_bytes(&first.to_bytes()).unwrap();
    for t in &refs[200..] {
        flags.push(second.check_then_insert(t).unwrap());
    }
    assert_eq!(flags, all);
    assert_eq!(second.to_bytes(), one.to_bytes());
    assert!(all.iter().filter(|&&f| f).count() > 20);
    assert_eq!(second.settings().threshold_value(), 0.7);
}

#[test]
fn bad_bytes_and_settings_are_refused() {
    let mut b = BloomDedup::new(&Dedup::new(), 100, 0.01).unwrap();
    b.check_then_insert("some words to set a few bits in the filters")
        .unwrap();
    let bytes = b.to_bytes();
    for cut in 0..bytes.len() {
        assert!(BloomDedup::from_bytes(&bytes[..cut]).is_err(), "cut {cut}");
    }
    for at in 0..bytes.len() {
        let mut c = bytes.clone();
        c[at] ^= 0x04;
        assert!(BloomDedup::from_bytes(&c).is_err(), "flip at {at}");
    }
    assert!(BloomDedup::from_bytes(&[0xff; 64]).is_err());
    assert!(
        BloomDedup::new(
            &Dedup::new().group(ndd_pipeline::GroupMethod::Durian(
                ndd_pipeline::DurianGrouping::new()
            )),
            100,
            0.01
        )
        .is_err()
    );
    assert!(
        BloomDedup::new(
            &Dedup::new().verifier(ndd_pipeline::Verifier::ExactJaccard),
            100,
            0.01
        )
        .is_err()
    );
    assert!(BloomDedup::new(&Dedup::new(), 100, 0.0).is_err());
}

/// (flagged by the filters, flagged verifying, dropped by the verified in-memory run,
/// flagged verifying and dropped).
fn flagged_and_dropped(texts: &[String]) -> (usize, usize, usize, usize) {
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let docs: Vec<ndd_pipeline::Document> = texts
        .iter()
        .enumerate()
        .map(|(i, t)| ndd_pipeline::Document::new(i.to_string(), t.clone()))
        .collect();
    let dropped = Dedup::new().run(&docs).unwrap().dropped();
    let mut plain = BloomDedup::new(&Dedup::new(), 100_000, 0.001).unwrap();
    let plain = plain.check_then_insert_batch(&refs).unwrap();
    let mut verifying = BloomDedup::new(&Dedup::new(), 100_000, 0.001)
        .unwrap()
        .verifying()
        .unwrap();
    let flags = verifying.check_then_insert_batch(&refs).unwrap();
    // A verified flag is a flag of the filters too.
    assert!(flags.iter().zip(&plain).all(|(v, p)| !v || *p));
    let both = dropped.iter().filter(|&&i| flags[i]).count();
    (
        plain.iter().filter(|&&f| f).count(),
        flags.iter().filter(|&&f| f).count(),
        dropped.len(),
        both,
    )
}

#[test]
fn the_verifying_mode_flags_about_what_the_verified_run_drops() {
    // Issue 29: the filters flag 339 documents of the bundled corpus where the verified
    // run (exact Jaccard) drops 239; verifying by the estimate must come within 5%.
    let (plain, verified, dropped, both) = flagged_and_dropped(&texts(DEBIAN));
    eprintln!(
        "bundled: filters {plain}, verifying {verified} ({both} of them dropped), run drops {dropped}"
    );
    assert_eq!(dropped, 239);
    assert!(plain > dropped + 50, "{plain}");
    assert!(
        verified.abs_diff(dropped) * 20 <= dropped,
        "{verified} vs {dropped}"
    );
    assert!(both * 20 >= dropped * 19, "{both} of {dropped}");
    // The real descriptions: many pairs sit just above the threshold (489 of the run's
    // 1,116 pairs in [0.8, 0.85)), where the estimate's noise loses more than it
    // gains; docs/decisions.md has the figures. Within 7% of the exact run here.
    let (plain, verified, dropped, both) = flagged_and_dropped(&texts(DESCRIPTIONS));
    eprintln!(
        "descriptions: filters {plain}, verifying {verified} ({both} of them dropped), run drops {dropped}"
    );
    assert!(plain > 2 * dropped, "{plain}");
    assert!(
        verified.abs_diff(dropped) * 100 <= dropped * 7,
        "{verified} vs {dropped}"
    );
    // Against the run that verifies by the same estimate (full 64-bit values), within 5%.
    let docs: Vec<ndd_pipeline::Document> = texts(DESCRIPTIONS)
        .into_iter()
        .enumerate()
        .map(|(i, t)| ndd_pipeline::Document::new(i.to_string(), t))
        .collect();
    let by_estimate = Dedup::new()
        .verifier(ndd_pipeline::Verifier::MethodScore)
        .run(&docs)
        .unwrap()
        .dropped()
        .len();
    eprintln!("descriptions: the run verifying by the estimate drops {by_estimate}");
    assert!(
        verified.abs_diff(by_estimate) * 20 <= by_estimate,
        "{verified} vs {by_estimate}"
    );
}

#[test]
fn a_verifying_stream_saved_and_continued_equals_one_stream() {
    let texts = texts(DEBIAN);
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let new = || {
        BloomDedup::new(&Dedup::new(), 10_000, 0.001)
            .unwrap()
            .verifying()
            .unwrap()
    };
    let mut one = new();
    let all = one.check_then_insert_batch(&refs).unwrap();
    let mut first = new();
    let mut flags = first.check_then_insert_batch(&refs[..300]).unwrap();
    let bytes = first.to_bytes();
    let mut second = BloomDedup::from_bytes(&bytes).unwrap();
    assert!(second.is_verifying());
    flags.extend(second.check_then_insert_batch(&refs[300..]).unwrap());
    assert_eq!(flags, all);
    assert_eq!(second.to_bytes(), one.to_bytes());
    // The store costs its bytes per document: 128 values and a key and link per band.
    let per_doc = one.verify_bytes_per_document();
    let bands = one.filter().params().bands() as f64;
    assert!(per_doc >= 128.0 + 8.0 * bands, "{per_doc}");
    // Not on filters that already hold documents; truncated stores refused.
    let mut full = BloomDedup::new(&Dedup::new(), 100, 0.01).unwrap();
    full.check_then_insert("one two three four").unwrap();
    assert!(full.verifying().is_err());
    assert!(BloomDedup::from_bytes(&bytes[..bytes.len() - 20]).is_err());
    // Filters without a store keep byte-form version 1.
    let plain = BloomDedup::new(&Dedup::new(), 100, 0.01)
        .unwrap()
        .to_bytes();
    assert_eq!(&plain[4..6], &1u16.to_le_bytes());
}
