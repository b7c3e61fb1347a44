//! The out-of-core stages against the in-memory pipeline on real text (the bundled
//! Debian copyright files, with generated near-duplicates and exact copies): the same
//! pairs with the same scores and the same groups, with and without the exact pass,
//! under a budget that forces several sorted runs; finished stages reused; a hot bucket bounded; damaged work
//! files refused.
#![allow(clippy::unwrap_used, clippy::cast_possible_truncation)] // tests unwrap to fail loudly; counts are small

use std::collections::BTreeMap;

use ndd_pipeline::{
    Dedup, Document, MIN_MEMORY_BUDGET, Method, MinHashConfig, OutOfCore, SimHashConfig,
    SimWeighting, Stage, Verifier,
};

use crate::common::{DEBIAN, texts};

/// The bundled corpus, each third document followed by two variants (a few words
/// changed), each seventh by an exact copy: about 930 documents.
fn corpus() -> Vec<Document> {
    let mut x: u64 = 11;
    let mut next = |n: u64| {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (x >> 33) % n.max(1)
    };
    let mut docs = Vec::new();
    for (i, t) in texts(DEBIAN).into_iter().enumerate() {
        docs.push(Document::new(format!("{i}"), t.clone()));
        if i % 3 == 0 {
            for c in 0..2 {
                let mut words: Vec<String> = t.split_whitespace().map(str::to_owned).collect();
                let edits = 1 + words.len() / 40;
                for _ in 0..edits {
                    let at = next(words.len() as u64) as usize;
                    if let Some(w) = words.get_mut(at) {
                        w.push_str("zz");
                    }
                }
                docs.push(Document::new(format!("{i}v{c}"), words.join(" ")));
            }
        }
        if i % 7 == 0 {
            docs.push(Document::new(format!("{i}copy"), t));
        }
    }
    docs
}

fn pairs_of(out: &ndd_pipeline::OutOfCoreOutcome) -> BTreeMap<(usize, usize), f64> {
    out.scored_pairs()
        .unwrap()
        .map(|p| {
            let p = p.unwrap();
            ((p.a, p.b), p.score)
        })
        .collect()
}

#[test]
fn same_pairs_scores_and_groups_as_the_in_memory_run() {
    let docs = corpus();
    assert!(docs.len() > 900);
    for verifier in [
        Verifier::ExactJaccard,
        Verifier::MethodScore,
        Verifier::Containment,
    ] {
        // 64 bands of 2 rows: many band keys and candidates, so that 1 MiB forces
        // several sorted runs of each.
        let config = MinHashConfig {
            banding: ndd_pipeline::Banding::Fixed { bands: 64, rows: 2 },
            ..MinHashConfig::default()
        };
        let dedup = Dedup::new()
            .method(Method::MinHash(config))
            .threshold(0.7)
            .verifier(verifier.clone())
            .exact_pass(false);
        let memory = dedup.run(&docs).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let job = OutOfCore::new(&dedup, dir.path())
            .unwrap()
            .memory_budget(MIN_MEMORY_BUDGET)
            .unwrap();
        let out = job.run(docs.iter().cloned().map(Ok)).unwrap();
        // The budget forced band keys and candidates into several sorted runs.
        let runs = |prefix: &str| {
            std::fs::read_dir(dir.path())
                .unwrap()
                .filter(|e| {
                    let name = e.as_ref().unwrap().file_name();
                    name.to_string_lossy().starts_with(prefix)
                })
                .count()
        };
        assert!(runs("keys-") >= 2, "{} runs", runs("keys-"));
        assert!(runs("candidates-") >= 2, "{} runs", runs("candidates-"));
        // The verify stage scores blocks of 128 pairs at this budget: many blocks.
        assert!(out.checked > 8 * 128, "{} candidates checked", out.checked);
        let want: BTreeMap<(usize, usize), f64> = memory
            .pairs
            .iter()
            .map(|p| ((p.a.min(p.b), p.a.max(p.b)), p.score))
            .collect();
        assert!(want.len() > 300, "{} pairs", want.len());
        assert_eq!(pairs_of(&out), want, "{}", verifier.name());
        assert_eq!(out.pairs as usize, want.len());
        let kept: Vec<u64> = memory.kept().into_iter().map(|k| k as u64).collect();
        assert_eq!(out.kept_positions().unwrap(), kept, "{}", verifier.name());
        assert_eq!(out.groups as usize, memory.report.groups);
        assert_eq!(out.documents as usize, docs.len());
    }
    // With the exact pass (the default): exact copies stay out of the buckets and are
    // paired with their first copy at score 1, as in memory.
    let dedup = Dedup::new().threshold(0.7);
    let memory = dedup.run(&docs).unwrap();
    let (_dir, out) = smallest_budget(&dedup, &docs);
    assert_eq!(out.exact_copies as usize, memory.report.exact_copies);
    let dropped_as_copies = (0..docs.len())
        .filter(|&i| memory.fate(i) == ndd_pipeline::Fate::ExactCopy)
        .count();
    assert_eq!(out.exact_copies_dropped as usize, dropped_as_copies);
    assert!(out.exact_copies > 50, "{} copies", out.exact_copies);
    let want: BTreeMap<(usize, usize), f64> =
        memory.pairs.iter().map(|p| ((p.a, p.b), p.score)).collect();
    assert_eq!(pairs_of(&out), want);
    let kept: Vec<u64> = memory.kept().into_iter().map(|k| k as u64).collect();
    assert_eq!(out.kept_positions().unwrap(), kept);
}

/// `dedup` run out of core over `docs` at the smallest budget, in a new folder (kept
/// while the folder lives).
fn smallest_budget(
    dedup: &Dedup,
    docs: &[Document],
) -> (tempfile::TempDir, ndd_pipeline::OutOfCoreOutcome) {
    run_in_a_folder(dedup, docs, MIN_MEMORY_BUDGET)
}

/// `dedup` run out of core over `docs` within `budget` bytes, in a new folder (kept
/// while the folder lives).
fn run_in_a_folder(
    dedup: &Dedup,
    docs: &[Document],
    budget: u64,
) -> (tempfile::TempDir, ndd_pipeline::OutOfCoreOutcome) {
    let dir = tempfile::tempdir().unwrap();
    let out = OutOfCore::new(dedup, dir.path())
        .unwrap()
        .memory_budget(budget)
        .unwrap()
        .run(docs.iter().cloned().map(Ok))
        .unwrap();
    (dir, out)
}

/// `dedup` run again at the smallest budget in `dir`, with no input (every stage it
/// redoes reads the work files), and which of its stages were reused.
fn rerun_at_smallest_budget(
    dedup: &Dedup,
    dir: &std::path::Path,
) -> (ndd_pipeline::OutOfCoreOutcome, Vec<bool>) {
    let again = rerun_result_at_smallest_budget(dedup, dir).unwrap();
    let reused = again.stages.iter().map(|s| s.reused).collect();
    (again, reused)
}

/// [`rerun_at_smallest_budget`]'s run, its result as it is (for the runs that must fail).
fn rerun_result_at_smallest_budget(
    dedup: &Dedup,
    dir: &std::path::Path,
) -> Result<ndd_pipeline::OutOfCoreOutcome, ndd_pipeline::Error> {
    OutOfCore::new(dedup, dir)
        .unwrap()
        .memory_budget(MIN_MEMORY_BUDGET)
        .unwrap()
        .run(std::iter::empty())
}

/// The in-memory run's pairs, `(a, b)` with `a < b`, and their scores.
fn memory_pairs(memory: &ndd_pipeline::Outcome) -> BTreeMap<(usize, usize), f64> {
    memory
        .pairs
        .iter()
        .map(|p| ((p.a.min(p.b), p.a.max(p.b)), p.score))
        .collect()
}

#[test]
fn simhash_out_of_core_equals_the_in_memory_run() {
    let docs = corpus();
    // (Hamming bound, weighting, verifier, exact pass, threshold). The bound 3 is the
    // default (4 blocks of 16 bits, short runs compared pair by pair); 20 gives 21
    // blocks of 3 bits, runs of about a hundred fingerprints, searched by the
    // permuted-table join.
    let cases = [
        (
            None,
            SimWeighting::Binary,
            Verifier::MethodScore,
            false,
            0.8,
        ),
        (
            None,
            SimWeighting::Binary,
            Verifier::ExactJaccard,
            false,
            0.5,
        ),
        (None, SimWeighting::Binary, Verifier::Containment, true, 0.5),
        (
            Some(20),
            SimWeighting::Binary,
            Verifier::MethodScore,
            true,
            0.99,
        ),
        (
            Some(9),
            SimWeighting::TermFrequency,
            Verifier::ExactJaccard,
            true,
            0.6,
        ),
    ];
    for (hamming, weighting, verifier, exact, threshold) in cases {
        let config = SimHashConfig {
            hamming,
            weighting,
            ..SimHashConfig::default()
        };
        let what = format!("{config:?} {} exact pass {exact}", verifier.name());
        let dedup = Dedup::new()
            .method(Method::SimHash(config))
            .threshold(threshold)
            .verifier(verifier.clone())
            .exact_pass(exact);
        let memory = dedup.run(&docs).unwrap();
        let (_dir, out) = smallest_budget(&dedup, &docs);
        let want = memory_pairs(&memory);
        assert!(want.len() > 100, "{what}: {} pairs", want.len());
        assert_eq!(pairs_of(&out), want, "{what}");
        let kept: Vec<u64> = memory.kept().into_iter().map(|k| k as u64).collect();
        assert_eq!(out.kept_positions().unwrap(), kept, "{what}");
        assert_eq!(out.groups as usize, memory.report.groups, "{what}");
        assert_eq!(
            out.exact_copies as usize, memory.report.exact_copies,
            "{what}"
        );
        // The candidates are the in-memory run's: every pair within the bound.
        assert_eq!(out.candidates, memory.report.candidates, "{what}");
    }
}

#[test]
fn simhash_settings_the_stages_do_not_run_are_refused_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    let refused = |config: SimHashConfig, verifier: Verifier| {
        let dedup = Dedup::new()
            .method(Method::SimHash(config))
            .verifier(verifier);
        OutOfCore::new(&dedup, dir.path()).unwrap_err().to_string()
    };
    let long = SimHashConfig {
        bits: 256,
        ..SimHashConfig::default()
    };
    let err = refused(long, Verifier::MethodScore);
    assert!(err.contains("64-bit") && err.contains("256"), "{err}");
    let tf_idf = SimHashConfig {
        weighting: SimWeighting::TfIdf,
        ..SimHashConfig::default()
    };
    let err = refused(tf_idf, Verifier::MethodScore);
    assert!(err.contains("TF-IDF"), "{err}");
    // A representative other than the first-seen document: refused whatever the
    // method (the alignment verifiers, which read texts, are run).
    let longest = Dedup::new()
        .method(Method::SimHash(SimHashConfig::default()))
        .verifier(Verifier::Align(ndd_pipeline::AlignMeasure::Combined))
        .representative(ndd_pipeline::Representative::Longest);
    let err = OutOfCore::new(&longest, dir.path())
        .unwrap_err()
        .to_string();
    assert!(err.contains("first-seen"), "{err}");
}

/// align-weighted out of core: the weights stage counts the corpus's document
/// frequencies (the exact copies left out) into `weights.bin`, and each block of
/// candidates is verified with the weights of its words: the in-memory pairs, scores
/// and kept documents, whether the weights are read a page at a time (the smallest
/// budget, which the table outgrows) or held whole; with and without the exact pass.
/// A rerun after verification was cut short reuses the weights; a damaged weights
/// file is refused.
#[test]
fn align_weighted_out_of_core_equals_the_in_memory_run() {
    let docs = corpus();
    for exact in [true, false] {
        let dedup = Dedup::new()
            .threshold(0.7)
            .verifier(Verifier::AlignWeighted);
        let dedup = match exact {
            true => dedup,
            false => dedup.exact_pass(false),
        };
        let memory = dedup.run(&docs).unwrap();
        let want = memory_pairs(&memory);
        assert!(want.len() > 300, "{} pairs", want.len());
        let kept: Vec<u64> = memory.kept().into_iter().map(|k| k as u64).collect();
        let (dir, out) = smallest_budget(&dedup, &docs);
        // 16 bytes a word: more than an eighth of the budget, so read by pages.
        let weights = std::fs::metadata(dir.path().join("weights.bin"))
            .unwrap()
            .len();
        assert!(weights > MIN_MEMORY_BUDGET / 8 + 64, "{weights} bytes");
        let kinds: Vec<Stage> = out.stages.iter().map(|s| s.stage).collect();
        let weights_before_verify = [Stage::Candidates, Stage::Weights, Stage::Verify];
        assert_eq!(kinds[2..5], weights_before_verify, "{kinds:?}");
        assert_eq!(kinds.len(), 6);
        assert!(out.stages.iter().all(|s| !s.reused));
        assert!(out.stages[3].bytes_written >= weights);
        assert_eq!(pairs_of(&out), want, "exact pass {exact}");
        assert_eq!(out.kept_positions().unwrap(), kept);
        // Held whole under a larger budget: the same answer.
        if exact {
            let roomy = tempfile::tempdir().unwrap();
            let whole = OutOfCore::new(&dedup, roomy.path())
                .unwrap()
                .memory_budget(64 << 20)
                .unwrap()
                .run(docs.iter().cloned().map(Ok))
                .unwrap();
            assert_eq!(pairs_of(&whole), want);
        }
        // The sorted runs of words are gone once merged.
        let names: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert!(!names.iter().any(|n| n.starts_with("tokens-")), "{names:?}");
        // Verification cut short: a rerun reuses the weights and redoes the rest.
        std::fs::remove_file(dir.path().join("verify.done")).unwrap();
        let (again, reused) = rerun_at_smallest_budget(&dedup, dir.path());
        assert_eq!(reused, [true, true, true, true, false, false]);
        assert_eq!(pairs_of(&again), want);
    }
    // Another verifier in the same folder runs no weights stage.
    let docs: Vec<Document> = docs.into_iter().take(200).collect();
    let dedup = Dedup::new()
        .threshold(0.7)
        .verifier(Verifier::AlignWeighted);
    let (dir, _) = smallest_budget(&dedup, &docs);
    let align = Dedup::new()
        .threshold(0.7)
        .verifier(Verifier::Align(ndd_pipeline::AlignMeasure::Combined));
    let other = OutOfCore::new(&align, dir.path())
        .unwrap()
        .run(docs.iter().cloned().map(Ok))
        .unwrap();
    assert!(other.stages.iter().all(|s| s.stage != Stage::Weights));
    // A flipped byte in the weights (its trailer intact): refused when verification
    // opens it, not a wrong answer.
    let path = dir.path().join("weights.bin");
    let mut bytes = std::fs::read(&path).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0x40;
    std::fs::write(&path, &bytes).unwrap();
    std::fs::remove_file(dir.path().join("verify.done")).unwrap();
    let err = OutOfCore::new(&dedup, dir.path())
        .unwrap()
        .run(std::iter::empty())
        .unwrap_err();
    assert!(
        err.to_string().contains("weights.bin") && err.to_string().contains("damaged"),
        "{err}"
    );
}

/// A user's function out of core: the texts the sketch stage keeps, scored a sorted
/// block at a time by the in-memory verification stage, give the in-memory pairs,
/// scores and kept documents; as the function has no fingerprint, a rerun redoes its
/// verification, and another function in the same folder is not taken for it.
#[test]
fn a_custom_verifier_out_of_core_equals_the_in_memory_run() {
    let docs = corpus();
    // The share of the shorter text's distinct words found in the other: a measure
    // none of the built-in verifiers computes, asymmetric in its arguments' roles.
    let words_within = |a: &str, b: &str| {
        let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
        let long: std::collections::HashSet<&str> = long.split_whitespace().collect();
        let short: std::collections::HashSet<&str> = short.split_whitespace().collect();
        let found = short.iter().filter(|w| long.contains(*w)).count();
        found as f64 / short.len().max(1) as f64
    };
    let dedup = Dedup::new()
        .threshold(0.9)
        .verifier(Verifier::Custom(std::sync::Arc::new(words_within)));
    let memory = dedup.run(&docs).unwrap();
    let (dir, out) = smallest_budget(&dedup, &docs);
    // The texts are many times a block's share of the budget (a 32nd): many blocks.
    let texts = std::fs::metadata(dir.path().join("texts.bin"))
        .unwrap()
        .len();
    assert!(
        texts > 16 * (MIN_MEMORY_BUDGET / 32),
        "{texts} bytes of text"
    );
    let want = memory_pairs(&memory);
    assert!(want.len() > 300, "{} pairs", want.len());
    assert!(want.len() > out.exact_copies as usize + 100);
    assert_eq!(pairs_of(&out), want);
    let kept: Vec<u64> = memory.kept().into_iter().map(|k| k as u64).collect();
    assert_eq!(out.kept_positions().unwrap(), kept);
    // A rerun reuses the stages before verification and redoes the rest.
    let (again, reused) = rerun_at_smallest_budget(&dedup, dir.path());
    assert_eq!(reused, [true, true, true, false, false]);
    assert_eq!(pairs_of(&again), want);
    // Another function in the same folder: its own answer (only the exact copies).
    let never = Dedup::new()
        .threshold(0.9)
        .verifier(Verifier::Custom(std::sync::Arc::new(|_: &str, _: &str| {
            0.0
        })));
    let other = OutOfCore::new(&never, dir.path())
        .unwrap()
        .run(std::iter::empty())
        .unwrap();
    assert_eq!(other.pairs, other.exact_copies);
    assert!(other.exact_copies > 50);
}

#[test]
fn finished_stages_are_reused_and_a_changed_setting_redoes_what_it_affects() {
    let docs: Vec<Document> = corpus().into_iter().take(300).collect();
    let dir = tempfile::tempdir().unwrap();
    let dedup = Dedup::new().threshold(0.7);
    let first = OutOfCore::new(&dedup, dir.path())
        .unwrap()
        .run(docs.iter().cloned().map(Ok))
        .unwrap();
    assert!(first.stages.iter().all(|s| !s.reused));
    // Same settings: nothing redone, the input not even read.
    let again = OutOfCore::new(&dedup, dir.path())
        .unwrap()
        .run(std::iter::once(Err(ndd_pipeline::Error::io(
            "never read",
            std::io::Error::other("the input was read"),
        ))))
        .unwrap();
    assert!(again.stages.iter().all(|s| s.reused));
    assert_eq!(
        again.kept_positions().unwrap(),
        first.kept_positions().unwrap()
    );
    // Another threshold: sketch and candidates reused, verify and group redone.
    let dedup = Dedup::new()
        .threshold(0.9)
        .method(Method::MinHash(MinHashConfig {
            // The banding fixed, so that the candidates do not depend on the threshold.
            banding: ndd_pipeline::Banding::Fixed { bands: 16, rows: 8 },
            ..MinHashConfig::default()
        }));
    let loose = Dedup::new()
        .threshold(0.7)
        .method(dedup.method_config().clone());
    OutOfCore::new(&loose, dir.path())
        .unwrap()
        .run(docs.iter().cloned().map(Ok))
        .unwrap();
    let strict = OutOfCore::new(&dedup, dir.path())
        .unwrap()
        .run(std::iter::empty())
        .unwrap();
    let reused: Vec<(Stage, bool)> = strict.stages.iter().map(|s| (s.stage, s.reused)).collect();
    assert_eq!(
        reused,
        [
            (Stage::Sketch, true),
            (Stage::Exact, true),
            (Stage::Candidates, true),
            (Stage::Verify, false),
            (Stage::Group, false)
        ]
    );
    let memory = dedup.run(&docs).unwrap();
    assert_eq!(strict.pairs as usize, memory.pairs.len());
    // A stage interrupted (its marker and output gone) is redone, with the same result.
    std::fs::remove_file(dir.path().join("group.done")).unwrap();
    std::fs::remove_file(dir.path().join("assignments.bin")).unwrap();
    let resumed = OutOfCore::new(&dedup, dir.path())
        .unwrap()
        .run(std::iter::empty())
        .unwrap();
    assert!(!resumed.stages[4].reused && resumed.stages[3].reused);
    assert_eq!(
        resumed.kept_positions().unwrap(),
        strict.kept_positions().unwrap()
    );
}

#[test]
fn a_hot_bucket_of_identical_documents_is_bounded() {
    // 3,000 identical documents: every band's bucket holds all of them. Each document
    // is paired with at most 256 earlier ones per band (the default scan), so the
    // candidates stay near 3,000 × 256 × bands instead of 3,000² / 2 × bands, and the
    // group is whole.
    let docs: Vec<Document> = (0..3000)
        .map(|i| {
            Document::new(
                format!("{i}"),
                "the same form letter sent by thousands of people",
            )
        })
        .collect();
    // Without the exact pass, which would take all but one out of the buckets.
    let dedup = Dedup::new().exact_pass(false);
    let dir = tempfile::tempdir().unwrap();
    let out = OutOfCore::new(&dedup, dir.path())
        .unwrap()
        .run(docs.into_iter().map(Ok))
        .unwrap();
    let bands = MinHashConfig::default().lsh_params(0.8).unwrap().bands() as u64;
    let bound = bands * (256 * 3000 - 256 * 257 / 2);
    assert!(out.candidates <= bound, "{} > {bound}", out.candidates);
    assert_eq!((out.groups, out.grouped), (1, 3000));
    assert_eq!(out.kept_positions().unwrap(), [0]);
    // The bound was hit: document j (from 0) has j earlier members in every band's
    // bucket, so the 3,000 - 257 documents from 257 on are cut in each band.
    let scan = out.bucket_scan.unwrap();
    assert_eq!(scan.bound, 256);
    assert_eq!(scan.cut_documents, 3000 - 257);
    assert_eq!(scan.cut_reads, bands * (3000 - 257));
}

#[test]
fn out_of_core_counts_the_bucket_cuts_as_in_memory() {
    // Near-identical lines (a different number each): buckets of varied sizes, some
    // above the bound, counted alike by both engines' walks.
    let docs: Vec<Document> = (0..400)
        .map(|i| {
            Document::new(
                format!("{i}"),
                format!(
                    "we urge the agency to adopt the strictest possible limits on mercury \
                     emissions from power plants near our homes comment number {i}"
                ),
            )
        })
        .collect();
    let config = MinHashConfig {
        max_bucket_scan: Some(16),
        ..MinHashConfig::default()
    };
    let dedup = Dedup::new().threshold(0.7).method(Method::MinHash(config));
    let memory = dedup.run(&docs).unwrap().report.bucket_scan.unwrap();
    assert!(memory.hit());
    let dir = tempfile::tempdir().unwrap();
    let out = OutOfCore::new(&dedup, dir.path())
        .unwrap()
        .run(docs.into_iter().map(Ok))
        .unwrap();
    assert_eq!(out.bucket_scan, Some(memory));
}

/// No bound asked (`max_bucket_scan: None`) is the plan's cap of 1,024 in every engine:
/// a bucket of 1,100 identical documents gives the same pairs in memory and out of
/// core (it read whole buckets, 2,850 pairs more, before the cap was resolved once in
/// the plan), and the same cuts.
#[test]
fn no_bucket_scan_asked_is_capped_out_of_core_as_in_memory() {
    let docs: Vec<Document> = (0..1100)
        .map(|i| {
            Document::new(
                format!("{i}"),
                "the same form letter sent by a thousand people and more",
            )
        })
        .collect();
    let config = MinHashConfig {
        max_bucket_scan: None,
        banding: ndd_pipeline::Banding::Fixed { bands: 2, rows: 8 },
        ..MinHashConfig::default()
    };
    let dedup = Dedup::new()
        .exact_pass(false)
        .verifier(Verifier::MethodScore)
        .method(Method::MinHash(config));
    assert_eq!(dedup.plan().unwrap().bucket_scan(), Some(1024));
    let memory = dedup.run(&docs).unwrap();
    let want = memory_pairs(&memory);
    // Document j (from 0) reads min(j, 1,024) earlier members: the 75 from 1,025 on
    // miss 1 + 2 + … + 75 = 2,850 of the 1,100 · 1,099 / 2 pairs.
    assert_eq!(want.len(), 1100 * 1099 / 2 - 2850);
    let dir = tempfile::tempdir().unwrap();
    let out = OutOfCore::new(&dedup, dir.path())
        .unwrap()
        .memory_budget(16 << 20)
        .unwrap()
        .run(docs.into_iter().map(Ok))
        .unwrap();
    assert_eq!(pairs_of(&out), want);
    let scan = out.bucket_scan.unwrap();
    assert_eq!(Some(scan), memory.report.bucket_scan);
    assert_eq!((scan.bound, scan.cut_documents), (1024, 75));
}

/// The files of the work folder `dir` whose names start with `prefix` (the runs of
/// one sort: `candidates-`, `keys-`).
fn runs_of(dir: &std::path::Path, prefix: &str) -> Vec<std::path::PathBuf> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|p| p.file_name().unwrap().to_string_lossy().starts_with(prefix))
        .collect()
}

/// The candidate runs (`candidates-*` files) in the work folder `dir`.
fn candidate_runs(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    runs_of(dir, "candidates-")
}

/// The candidate runs the candidates stage's marker in `dir` lists, each rewritten
/// as a well-formed run of no pair (fingerprint `fp`); every other candidate run
/// removed.
fn listed_candidate_runs(dir: &std::path::Path, fp: u64) -> Vec<std::path::PathBuf> {
    for p in candidate_runs(dir) {
        std::fs::remove_file(&p).unwrap();
    }
    let marker = std::fs::read_to_string(dir.join("candidates.done")).unwrap();
    let listed: Vec<std::path::PathBuf> = marker
        .lines()
        .find_map(|l| l.strip_prefix("runs="))
        .unwrap()
        .split(',')
        .map(|n| dir.join(n))
        .collect();
    for p in &listed {
        ndd_scale::RecordWriter::<ndd_scale::Edge>::create(p, fp)
            .unwrap()
            .finish()
            .unwrap();
    }
    listed
}

#[test]
fn damaged_work_files_are_refused_and_bad_settings_rejected() {
    let docs: Vec<Document> = corpus().into_iter().take(100).collect();
    let dir = tempfile::tempdir().unwrap();
    let dedup = Dedup::new();
    let out = OutOfCore::new(&dedup, dir.path())
        .unwrap()
        .run(docs.iter().cloned().map(Ok))
        .unwrap();
    // A flipped byte in the assignments: refused when read, not a wrong answer.
    let path = out.assignments_path();
    let mut bytes = std::fs::read(&path).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0x40;
    std::fs::write(&path, &bytes).unwrap();
    assert!(out.kept_positions().is_err());
    // Cut short: refused at once.
    std::fs::write(&path, &bytes[..bytes.len() - 5]).unwrap();
    assert!(out.assignments().is_err());
    // A damaged candidate run is refused by the stage that reads it.
    for p in candidate_runs(dir.path()) {
        std::fs::write(&p, b"NDDSCALE but not a run").unwrap();
    }
    std::fs::remove_file(dir.path().join("verify.done")).unwrap();
    let err = OutOfCore::new(&dedup, dir.path())
        .unwrap()
        .run(std::iter::empty())
        .unwrap_err();
    assert!(err.to_string().contains("damaged"), "{err}");

    // A well-formed run (right fingerprint, valid checksum) naming a position no file
    // can hold: an error, not an overflow or a huge read.
    let marker = std::fs::read_to_string(dir.path().join("candidates.done")).unwrap();
    let fp = marker
        .lines()
        .find_map(|l| l.strip_prefix("fingerprint="))
        .map(|h| u64::from_str_radix(h, 16).unwrap())
        .unwrap();
    // (In place of the first run the marker lists; the others, one per group of
    // bands, well-formed and empty.)
    let listed = listed_candidate_runs(dir.path(), fp);
    let mut w = ndd_scale::RecordWriter::create(&listed[0], fp).unwrap();
    w.write(&ndd_scale::Edge { a: 1, b: u64::MAX }).unwrap();
    w.finish().unwrap();
    let err = OutOfCore::new(&dedup, dir.path())
        .unwrap()
        .run(std::iter::empty())
        .unwrap_err();
    assert!(err.to_string().contains("beyond"), "{err}");
    // The same pair after many blocks of valid ones (each of 128 pairs at the smallest
    // budget), so that it is found while an earlier block is scored: still refused.
    let listed = listed_candidate_runs(dir.path(), fp);
    let mut w = ndd_scale::RecordWriter::create(&listed[0], fp).unwrap();
    let mut valid = 0;
    for a in 0..99u64 {
        for b in a + 1..100 {
            w.write(&ndd_scale::Edge { a, b }).unwrap();
            valid += 1;
        }
    }
    assert!(valid > 20 * 128);
    w.write(&ndd_scale::Edge { a: 99, b: u64::MAX }).unwrap();
    w.finish().unwrap();
    let err = rerun_result_at_smallest_budget(&dedup, dir.path()).unwrap_err();
    assert!(err.to_string().contains("beyond"), "{err}");
    assert!(!dir.path().join("verify.done").exists());

    // Settings the stages do not support.
    for bad in [
        Dedup::new().method(Method::ExactJaccard),
        Dedup::new().representative(ndd_pipeline::Representative::Longest),
        Dedup::new().group(ndd_pipeline::GroupMethod::Durian(
            ndd_pipeline::DurianGrouping::new(),
        )),
    ] {
        assert!(OutOfCore::new(&bad, dir.path()).is_err());
    }
    assert!(
        OutOfCore::new(&dedup, dir.path())
            .unwrap()
            .memory_budget(MIN_MEMORY_BUDGET - 1)
            .is_err()
    );
    // An input error stops the run with that error; empty input is an empty outcome.
    let empty = tempfile::tempdir().unwrap();
    let none = OutOfCore::new(&dedup, empty.path())
        .unwrap()
        .run(std::iter::empty())
        .unwrap();
    assert_eq!((none.documents, none.pairs, none.groups), (0, 0, 0));
    assert!(none.kept_positions().unwrap().is_empty());
}

/// The message of `err`, checked to be the work folder's damaged-data error.
fn damaged_data(err: &ndd_pipeline::Error) -> String {
    let ndd_pipeline::Error::Core(core) = err else {
        panic!("not a data error: {err}");
    };
    assert_eq!(core.kind(), ndd_core::ErrorKind::CorruptData, "{err}");
    let text = err.to_string();
    assert!(text.contains("damaged"), "{err}");
    text
}

/// Band-key runs whose `doc` fields were overwritten with a huge position (their
/// checksums no longer match, but the merge yields a run's records before its
/// checksum is checked, and the walk takes them 16,384 at a time, so a run needs more
/// than that): the candidate stage refuses them as damaged data, before a cut bucket
/// read would size its bits by that position (a capacity overflow).
#[test]
fn a_band_key_run_naming_a_huge_document_is_refused_as_damaged() {
    let docs: Vec<Document> = (0..1200)
        .map(|i| {
            Document::new(
                format!("{i}"),
                "the same form letter sent by many people to the agency",
            )
        })
        .collect();
    // A small scan so that every bucket of the identical documents is cut.
    let config = MinHashConfig {
        max_bucket_scan: Some(2),
        ..MinHashConfig::default()
    };
    let dedup = Dedup::new()
        .exact_pass(false)
        .method(Method::MinHash(config));
    let (dir, out) = run_in_a_folder(&dedup, &docs, ndd_pipeline::DEFAULT_MEMORY_BUDGET);
    assert!(out.bucket_scan.unwrap().cut_reads > 0);
    let runs = runs_of(dir.path(), "keys-");
    let size = ndd_scale::RecordKind::BandKeys.record_size();
    let records: usize = runs
        .iter()
        .map(|p| std::fs::metadata(p).unwrap().len() as usize / size)
        .sum();
    assert!(
        records > 16_384 * runs.len(),
        "{records} in {} runs",
        runs.len()
    );
    let header = ndd_scale::HEADER_LEN;
    let trailer = ndd_scale::TRAILER_LEN;
    for p in &runs {
        let mut bytes = std::fs::read(p).unwrap();
        let end = bytes.len() - trailer;
        for at in (header..end).step_by(size) {
            bytes[at..at + 8].copy_from_slice(&(1u64 << 60).to_le_bytes());
        }
        std::fs::write(p, &bytes).unwrap();
    }
    std::fs::remove_file(dir.path().join("candidates.done")).unwrap();
    let err = OutOfCore::new(&dedup, dir.path())
        .unwrap()
        .run(std::iter::empty())
        .unwrap_err();
    let text = damaged_data(&err);
    assert!(
        text.contains(&format!(
            "document {}, beyond the 1200 documents",
            1u64 << 60
        )),
        "{err}"
    );
}

/// Candidate runs whose pairs were overwritten with huge positions (their checksums
/// no longer match; the merge yields a run's records before checking it): refused as
/// damaged candidate runs, not reported as a read past the end of `signatures.bin`.
#[test]
fn a_damaged_candidate_run_is_reported_as_damaged_candidates() {
    let docs: Vec<Document> = corpus();
    let dedup = Dedup::new();
    let (dir, out) = run_in_a_folder(&dedup, &docs, ndd_pipeline::DEFAULT_MEMORY_BUDGET);
    assert!(out.candidates > 1_000, "{}", out.candidates);
    let size = ndd_scale::RecordKind::Edges.record_size();
    for p in candidate_runs(dir.path()) {
        let mut bytes = std::fs::read(&p).unwrap();
        let end = bytes.len() - ndd_scale::TRAILER_LEN;
        // Distinct pairs (repeats are skipped), in order: (2^60, 2^60 + 1), ...
        for (i, at) in (ndd_scale::HEADER_LEN..end).step_by(size).enumerate() {
            let a = (1u64 << 60) + 2 * i as u64;
            bytes[at..at + 8].copy_from_slice(&a.to_le_bytes());
            bytes[at + 8..at + 16].copy_from_slice(&(a + 1).to_le_bytes());
        }
        std::fs::write(&p, &bytes).unwrap();
    }
    std::fs::remove_file(dir.path().join("verify.done")).unwrap();
    // The smallest budget: verification blocks of a few hundred pairs, so a block is
    // read before the merge reaches a run's checksum.
    let err = rerun_result_at_smallest_budget(&dedup, dir.path()).unwrap_err();
    let text = damaged_data(&err);
    assert!(!text.contains("signatures.bin"), "{err}");
    let pair = format!("candidate pair ({}, {})", 1u64 << 60, (1u64 << 60) + 1);
    assert!(text.contains(&pair), "{err}");
    assert!(
        text.contains(&format!("beyond the {} documents", docs.len())),
        "{err}"
    );
}

#[test]
fn a_redone_stage_leaves_no_file_of_the_earlier_run() {
    let docs = corpus();
    let config = MinHashConfig {
        banding: ndd_pipeline::Banding::Fixed { bands: 64, rows: 2 },
        ..MinHashConfig::default()
    };
    let dedup = Dedup::new().method(Method::MinHash(config));
    let dir = tempfile::tempdir().unwrap();
    let runs = || {
        std::fs::read_dir(dir.path())
            .unwrap()
            .filter(|e| {
                let name = e.as_ref().unwrap().file_name();
                name.to_string_lossy().starts_with("keys-")
            })
            .count()
    };
    let job = |budget: u64, input: u64| {
        OutOfCore::new(&dedup, dir.path())
            .unwrap()
            .memory_budget(budget)
            .unwrap()
            .input_fingerprint(input)
    };
    let small = job(MIN_MEMORY_BUDGET, 1)
        .run(docs.iter().cloned().map(Ok))
        .unwrap();
    assert!(runs() >= 2, "{} runs", runs());
    let kept = small.kept_positions().unwrap();
    // Another input: everything redone, in one run of band keys, none of the old left.
    let big = job(1 << 30, 2).run(docs.iter().cloned().map(Ok)).unwrap();
    assert!(big.stages.iter().all(|s| !s.reused));
    assert_eq!(runs(), 1);
    assert_eq!(big.kept_positions().unwrap(), kept);
    // The earlier outcome's files are gone: reading through it is refused, not wrong.
    assert!(small.kept_positions().is_err());
}

#[test]
fn a_folder_of_the_users_files_is_refused_and_left_as_it_was() {
    // Files named like the stages' own (which a redone stage removes by name).
    let dir = tempfile::tempdir().unwrap();
    let mine = [
        "keys-budget.txt",
        "candidates-2024.csv",
        "pairs.bin",
        "notes.md",
    ];
    for name in mine {
        std::fs::write(dir.path().join(name), name).unwrap();
    }
    let docs = [
        Document::new("a", "one two three four five six seven"),
        Document::new("b", "one two three four five six seven"),
    ];
    let err = OutOfCore::new(&Dedup::new(), dir.path())
        .unwrap()
        .run(docs.iter().cloned().map(Ok))
        .unwrap_err();
    assert!(
        err.to_string().contains("no out-of-core run wrote"),
        "{err}"
    );
    for name in mine {
        let kept = std::fs::read_to_string(dir.path().join(name)).unwrap();
        assert_eq!(kept, name, "{name} was changed");
    }
    let files = std::fs::read_dir(dir.path()).unwrap().count();
    assert_eq!(files, mine.len(), "the run wrote into the user's folder");
    // A new folder (or an empty one) is claimed, and a later run reuses it.
    let work = dir.path().join("work");
    let first = OutOfCore::new(&Dedup::new(), &work)
        .unwrap()
        .run(docs.iter().cloned().map(Ok))
        .unwrap();
    assert_eq!(first.pairs, 1);
    let again = OutOfCore::new(&Dedup::new(), &work)
        .unwrap()
        .run(std::iter::empty())
        .unwrap();
    assert!(again.stages.iter().all(|s| s.reused));
}

/// With exact Jaccard (the default), the estimate only filters, so `signatures.bin`
/// keeps each document's 8-bit fields in their checked byte form (`8·⌈128·8/64⌉ + 43`
/// = 171 bytes, against 1,054 for the whole signature): 6× less to write and read
/// back. The method's own score reads the whole signature, and keeps it.
#[test]
fn exact_jaccard_keeps_the_filters_fields_and_the_estimate_the_whole_signature() {
    let docs = corpus();
    let signatures = |verifier: Verifier| {
        let dir = tempfile::tempdir().unwrap();
        let dedup = Dedup::new().verifier(verifier);
        let out = OutOfCore::new(&dedup, dir.path())
            .unwrap()
            .run(docs.iter().cloned().map(Ok))
            .unwrap();
        assert_eq!(out.documents, docs.len() as u64);
        std::fs::metadata(dir.path().join("signatures.bin"))
            .unwrap()
            .len()
            / out.documents
    };
    assert_eq!(signatures(Verifier::ExactJaccard), 171);
    // 128 values of 8 bytes and the byte form's header.
    assert!(signatures(Verifier::MethodScore) > 8 * 128);
}

/// A fingerprint computed beside the sketch stage (a fresh folder) goes into the
/// markers as a known one would: a later run given that value reuses every stage, and
/// one given another value redoes them; a fingerprint that fails stops the run with
/// no marker written, and when a finished sketch stage is there the function is
/// called before any stage runs.
#[test]
fn an_input_fingerprint_computed_beside_the_stages_is_the_one_the_markers_keep() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    let dir = tempfile::tempdir().unwrap();
    let docs = corpus();
    let dedup = Dedup::new().threshold(0.5);
    let job = || OutOfCore::new(&dedup, dir.path()).unwrap();
    let markers = || {
        let mut names: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .filter_map(|e| e.ok()?.file_name().into_string().ok())
            .filter(|n| n.ends_with(".done"))
            .collect();
        names.sort();
        names
    };
    // A failing fingerprint in a fresh folder: the error, and no stage marked done.
    let failed = job()
        .input_fingerprint_with(|| {
            Err(ndd_pipeline::Error::io(
                "in.jsonl",
                std::io::ErrorKind::NotFound.into(),
            ))
        })
        .run(docs.iter().cloned().map(Ok));
    assert!(failed.is_err());
    assert_eq!(markers(), Vec::<String>::new());
    // Computed beside the sketch stage: every stage run, then marked with the value.
    let calls = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&calls);
    let first = job()
        .input_fingerprint_with(move || {
            counted.fetch_add(1, Ordering::SeqCst);
            Ok(7)
        })
        .run(docs.iter().cloned().map(Ok))
        .unwrap();
    assert!(first.stages.iter().all(|s| !s.reused));
    assert_eq!(calls.load(Ordering::SeqCst), 1);
    // Read now: a run that redoes the stages replaces the files `first` reads.
    let first_pairs = pairs_of(&first);
    assert!(!markers().is_empty());
    let same = job()
        .input_fingerprint(7)
        .run(docs.iter().cloned().map(Ok))
        .unwrap();
    assert!(same.stages.iter().all(|s| s.reused), "{:?}", same.stages);
    assert_eq!(pairs_of(&same), first_pairs);
    // Markers there: the function is asked first, and another value redoes the stages
    // (the documents are read: an empty input gives no documents).
    let other = job()
        .input_fingerprint_with(|| Ok(8))
        .run(docs.iter().cloned().map(Ok))
        .unwrap();
    assert!(other.stages.iter().all(|s| !s.reused), "{:?}", other.stages);
    assert_eq!(pairs_of(&other), first_pairs);
    let again = job()
        .input_fingerprint_with(|| Ok(8))
        .run(std::iter::empty())
        .unwrap();
    assert!(again.stages.iter().all(|s| s.reused), "{:?}", again.stages);
    assert_eq!(again.documents, first.documents);
    let redone = job().input_fingerprint(7).run(std::iter::empty()).unwrap();
    assert_eq!(redone.documents, 0);
}

/// The documents the candidate runs of the work folder `dir` name, the slow way:
/// every pair of every run read, both ends kept.
fn named_by_runs(dir: &std::path::Path) -> std::collections::BTreeSet<u64> {
    let mut named = std::collections::BTreeSet::new();
    for p in candidate_runs(dir) {
        for e in ndd_scale::RecordReader::<ndd_scale::Edge, _>::open(&p).unwrap() {
            let e = e.unwrap();
            named.extend([e.a, e.b]);
        }
    }
    named
}

/// The value of `key` in the stage marker `stage` of `dir`.
fn marker_value(dir: &std::path::Path, stage: &str, key: &str) -> Option<u64> {
    std::fs::read_to_string(dir.join(format!("{stage}.done")))
        .unwrap()
        .lines()
        .find_map(|l| l.strip_prefix(&format!("{key}=")).map(str::to_owned))
        .map(|v| v.parse().unwrap())
}

/// The set verifiers keep the texts (no sets) in the sketch stage, mark the documents
/// candidates name (`named.bin`: as many as the candidate runs name, counted the slow
/// way) and shingle only those in verification, whose sets it removes at its end; the
/// pairs are the in-memory run's, at the smallest budget (many chunks of the pass) and
/// at the default. A damaged or missing `named.bin` is refused as damaged when
/// verification is redone; stale sets of an interrupted pass, longer than the new
/// ones, are replaced, not appended to.
#[test]
fn the_set_verifiers_shingle_the_named_documents_only() {
    let docs = corpus();
    for verifier in [Verifier::ExactJaccard, Verifier::Containment] {
        for budget in [MIN_MEMORY_BUDGET, ndd_pipeline::DEFAULT_MEMORY_BUDGET] {
            let what = format!("{} at {budget}", verifier.name());
            // The banding fixed, so that the candidates do not depend on the threshold.
            let config = MinHashConfig {
                banding: ndd_pipeline::Banding::Fixed { bands: 16, rows: 8 },
                ..MinHashConfig::default()
            };
            let at = |t: f64| {
                Dedup::new()
                    .threshold(t)
                    .method(Method::MinHash(config.clone()))
                    .verifier(verifier.clone())
                    .exact_pass(true)
            };
            let (dir, out) = run_in_a_folder(&at(0.7), &docs, budget);
            let d = dir.path();
            let memory = at(0.7).run(&docs).unwrap();
            assert_eq!(pairs_of(&out), memory_pairs(&memory), "{what}");
            for (file, there) in [
                ("texts.bin", true),
                ("named.bin", true),
                ("sets.bin", false),
                ("sets.idx", false),
            ] {
                assert_eq!(d.join(file).exists(), there, "{what}: {file}");
            }
            let named = named_by_runs(d);
            assert!(
                named.len() > 100 && named.len() < docs.len(),
                "{what}: {}",
                named.len()
            );
            assert_eq!(
                marker_value(d, "candidates", "named"),
                Some(named.len() as u64)
            );
            assert_eq!(
                marker_value(d, "verify", "shingled"),
                Some(named.len() as u64)
            );

            // Verification redone (another threshold), the candidates reused: a damaged
            // or missing bitmap is refused as damaged, naming it.
            let rerun = |t: f64| {
                OutOfCore::new(&at(t), d)
                    .unwrap()
                    .memory_budget(budget)
                    .unwrap()
                    .run(std::iter::empty())
            };
            let path = d.join("named.bin");
            let good = std::fs::read(&path).unwrap();
            let mut flipped = good.clone();
            flipped[40] ^= 0x01;
            for damage in [Some(flipped), Some(good[..good.len() - 8].to_vec()), None] {
                match damage {
                    Some(bytes) => std::fs::write(&path, bytes).unwrap(),
                    None => std::fs::remove_file(&path).unwrap(),
                }
                let err = rerun(0.9).unwrap_err();
                let text = damaged_data(&err);
                assert!(text.contains("named.bin"), "{what}: {err}");
                assert!(!d.join("verify.done").exists());
            }
            std::fs::write(&path, &good).unwrap();
            // Stale sets of an interrupted pass, longer than the pass writes: replaced.
            let stale = vec![0xAB; 4 << 20];
            std::fs::write(d.join("sets.bin"), &stale).unwrap();
            std::fs::write(d.join("sets.idx"), &stale).unwrap();
            let again = rerun(0.9).unwrap();
            let reused: Vec<bool> = again.stages.iter().map(|s| s.reused).collect();
            assert_eq!(reused, [true, true, true, false, false], "{what}");
            assert_eq!(
                pairs_of(&again),
                memory_pairs(&at(0.9).run(&docs).unwrap()),
                "{what}"
            );
            assert!(!d.join("sets.bin").exists() && !d.join("sets.idx").exists());
        }
    }
}
