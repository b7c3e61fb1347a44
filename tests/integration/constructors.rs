//! Every constructor's parameter space (issue "bounded work"): any value is refused
//! with an error or gives an object whose first use finishes within its documented
//! cost (counted here through what the API reports: accepted sizes, table counts,
//! memory and work reports; no clock), never a panic, an abort or a hang.
#![allow(clippy::unwrap_used)]

use near_dup::align::{Aligner, BlockReport, Measure, TokenOptions};
use near_dup::imatch::{IMatcher, Lexicon, Randomization, unigram_extractor};
use near_dup::index::{HammingIndex, HammingParams};
use near_dup::lsh::{LshIndex, LshParams, PlainSlots};
use near_dup::ncd::{Pruning, SearchConfig, SigNcd};
use near_dup::pipeline::{
    Dedup, DurianGrouping, GroupMethod, Method, MinHashConfig, Shingles, SimHashConfig,
};
use near_dup::prelude::*;
use near_dup::simhash::SimHasher;
use proptest::prelude::*;

/// Any float, the special ones often.
fn float() -> impl Strategy<Value = f64> {
    prop_oneof![
        Just(f64::NAN),
        Just(f64::INFINITY),
        Just(-0.0),
        Just(1.0),
        -2.0f64..3.0,
        any::<f64>()
    ]
}

/// A fraction: valid values half the time, any float otherwise.
fn fraction() -> impl Strategy<Value = f64> {
    prop_oneof![0.0f64..1.0, float()]
}

/// A small real-looking corpus for the collection-statistics constructors.
fn corpus() -> Vec<String> {
    (0..60)
        .map(|i| {
            format!(
                "report{} market{} growth{} quarter{} with the news of week {i}",
                i % 4,
                i % 6,
                i % 9,
                i % 15
            )
        })
        .collect()
}

/// Small values, values around the limits, and anything.
fn size() -> impl Strategy<Value = usize> {
    prop_oneof![0usize..=70, 1000usize..=70_000, any::<usize>()]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn lsh_parameters(bands in size(), rows in size(), scan in proptest::option::of(size())) {
        // Bounded work without a clock: accepted parameters band at most
        // `MAX_BANDED_SLOTS` values, and the index built for them holds what its
        // documented layout says: per band an empty table of about 90 bytes (2x
        // allowed here) and, for the one document, 8 bytes of band key and two 4-byte
        // chain links.
        let built = LshParams::new(bands, rows);
        prop_assert_eq!(
            built.is_ok(),
            bands >= 1 && rows >= 1 && bands.checked_mul(rows).is_some_and(|s| s <= near_dup::lsh::MAX_BANDED_SLOTS)
        );
        if let Ok(p) = built {
            let mut index: LshIndex<u32, PlainSlots> =
                LshIndex::builder(p).max_bucket_scan(scan).build();
            let scheme = near_dup::SchemeId::new("c").finish();
            let slots = PlainSlots::new(scheme, vec![1; p.slots_used()]).unwrap();
            index.insert(1, &slots).unwrap();
            let want = if scan == Some(0) { vec![] } else { vec![1] };
            prop_assert_eq!(index.query(&slots).unwrap(), want);
            let bytes = index.memory().index_bytes();
            prop_assert!(bytes <= p.bands() * (2 * 90 + 8 + 2 * 4), "{} bytes for {} bands", bytes, p.bands());
        }
    }

    #[test]
    fn hamming_parameters(max_distance in any::<u32>(), blocks in any::<u32>()) {
        // Bounded work without a clock: an insert or a query touches one entry per
        // table, and accepted parameters have the documented `C(blocks, max_distance)`
        // tables, never more than `MAX_HAMMING_TABLES`.
        let (k, b) = (max_distance % 80, blocks % 80);
        if let Ok(p) = HammingParams::new(k, b) {
            let tables = (0..u128::from(k)).fold(1u128, |c, i| c * (u128::from(b) - i) / (i + 1));
            prop_assert_eq!(u128::try_from(p.tables()).unwrap(), tables);
            prop_assert!(p.tables() <= near_dup::index::MAX_HAMMING_TABLES);
            let mut index: HammingIndex<u32> = HammingIndex::new(p);
            index.insert(1, 0xF0F0).unwrap();
            prop_assert_eq!(index.query(0xF0F0), vec![(1, 0)]);
        }
    }

    #[test]
    fn simhash_lengths(bits in size()) {
        // Bounded work without a clock: exactly the documented sizes are accepted, and
        // a sketch's work is its `bits.div_ceil(64)` words (counted here), so no
        // accepted size can cost more than `MAX_BITS / 64` words.
        let built = SimHasher::new(bits);
        prop_assert_eq!(built.is_ok(), (1..=near_dup::simhash::MAX_BITS).contains(&bits));
        if let Ok(h) = built {
            let words = h.sketch("a short document of seven words").words().len();
            prop_assert_eq!(words, bits.div_ceil(64));
            prop_assert!(words <= near_dup::simhash::MAX_BITS / 64);
        }
    }

    #[test]
    fn pipeline_settings(
        k in size(),
        chars in any::<bool>(),
        num_perm in size(),
        threshold in prop_oneof![Just(0.0), Just(1.0), Just(f64::NAN), -1.0f64..2.0],
        simhash in any::<bool>(),
        bits in size(),
        max_bucket_scan in proptest::option::of(size()),
        durian in proptest::option::of((float(), float(), float(), fraction(), size())),
    ) {
        let method = if simhash {
            Method::SimHash(SimHashConfig { bits, ..SimHashConfig::default() })
        } else {
            Method::MinHash(MinHashConfig { num_perm, max_bucket_scan, ..MinHashConfig::default() })
        };
        let group = match durian {
            None => GroupMethod::Components,
            Some((theta, alpha, mu, overlap, m)) => GroupMethod::Durian(
                DurianGrouping::new()
                    .theta(theta)
                    .family_alpha(alpha)
                    .mu(mu)
                    .must_overlap(overlap)
                    .min_copies(m),
            ),
        };
        let dedup = Dedup::new()
            .method(method)
            .shingles(if chars { Shingles::Chars(k) } else { Shingles::Words(k) })
            .threshold(threshold)
            .group(group);
        if dedup.validate().is_ok() {
            // Bounded work without a clock: what sizes the work of a run (the shingle
            // length, the signature size) is within the documented limits whenever
            // the settings are accepted.
            prop_assert!((1..=near_dup::pipeline::MAX_SHINGLE_LEN).contains(&k));
            if simhash {
                prop_assert!((1..=near_dup::simhash::MAX_BITS).contains(&bits));
            } else {
                prop_assert!((1..=near_dup::pipeline::MAX_NUM_PERM).contains(&num_perm));
            }
            let out = dedup.run_texts(&["one two three four five", "one two three four five!", "six"]);
            prop_assert!(out.is_ok());
        }
    }

    #[test]
    fn imatch_parameters(
        window in prop_oneof![(0.0f64..0.5, 0.5f64..1.0), (float(), float())],
        cap in size(),
        extra in size(),
        remove in prop::option::of(fraction()),
        seed in any::<u64>(),
        min_unique in size(),
        min_terms in size(),
        coverage in fraction(),
    ) {
        let docs = corpus();
        let stats = near_dup::stats::DocumentFrequencies::from_documents(
            &unigram_extractor(),
            docs.iter().map(String::as_str),
        );
        let lexicon = Lexicon::builder()
            .nidf_window(window.0, window.1)
            .secondary_cap(cap)
            .build(&stats);
        if let Ok(lexicon) = lexicon {
            let randomization = remove.map_or(Randomization::Bootstrap, |fraction| {
                Randomization::Remove { fraction }
            });
            let built = IMatcher::builder(lexicon)
                .extra_lexicons(extra)
                .randomization(randomization)
                .seed(seed)
                .min_unique_terms(min_unique)
                .min_terms(min_terms)
                .min_coverage(coverage)
                .build();
            if let Ok(matcher) = built {
                // Bounded work without a clock: an accepted matcher hashes a document
                // once per lexicon, at most `1 + MAX_EXTRA_LEXICONS` times, and a
                // signature (if the document has enough terms) has that many
                // coordinates. Signing is an error (too few terms) or a signature;
                // never a panic.
                prop_assert!(extra <= near_dup::imatch::MAX_EXTRA_LEXICONS);
                if let Ok(sig) = matcher.sign(&docs[3]) {
                    prop_assert_eq!(sig.coordinates().len(), extra + 1);
                }
            }
        }
    }

    #[test]
    fn signcd_search_parameters(
        threshold in fraction(),
        pivots in size(),
        slack in fraction(),
        pruning in 0usize..3,
        checked in any::<bool>(),
        min_spots in size(),
    ) {
        let pruning = [Pruning::None, Pruning::P1, Pruning::P1P2][pruning];
        let config = SearchConfig::builder(threshold)
            .pivots(pivots)
            .p2_slack(slack)
            .pruning(pruning)
            .checked(checked)
            .build();
        if let (Ok(config), Ok(sig)) = (config, SigNcd::builder().min_spots(min_spots).build()) {
            let corpus = sig.corpus(&corpus()).unwrap();
            // Bounded work without a clock: the search's own counts. One row per
            // document (the progress calls), at most every pair compared (one
            // compression each), and at most one pivot row per document however many
            // pivots were asked for.
            let rows = std::sync::atomic::AtomicU64::new(0);
            let out = config.search_with_progress(&corpus, &|r| {
                rows.fetch_add(r, std::sync::atomic::Ordering::Relaxed);
            });
            prop_assert!(out.is_ok());
            let n = corpus.len();
            let pairs = u64::try_from(n * (n - 1) / 2).unwrap();
            prop_assert_eq!(rows.into_inner(), u64::try_from(n).unwrap());
            let report = out.unwrap().report;
            prop_assert!(report.compared <= pairs);
            prop_assert!(report.pivots <= n);
        }
    }

    #[test]
    fn alignment_thresholds_and_measures(threshold in fraction(), measure in 0usize..3) {
        let o = TokenOptions::default();
        let docs = corpus();
        let (a, b) = (o.tokens(&docs[1]), o.tokens(&docs[2]));
        let mut al = Aligner::new();
        let r = al.verify(a.hashes(), b.hashes(), Measure::ALL[measure], threshold);
        prop_assert_eq!(r.is_ok(), (0.0..=1.0).contains(&threshold));
        let report = BlockReport::new(&mut al, &a, &b);
        let rebuilt: String = report.b_blocks().iter().map(|x| report.b_text(x)).collect();
        prop_assert_eq!(rebuilt, docs[2].clone());
        // Bounded work without a clock: the report has at most one block per token
        // (plus the text around them).
        prop_assert!(report.b_blocks().len() <= 2 * b.hashes().len() + 1);
    }
}
