//! DURIAN's clustering on 100,000 documents: documents per second and memory.
//!
//! The collection: 10,000 form letters (80-word windows of the bundled
//! `data/debian-copyright.jsonl`, its words in their order), each sent as 6 exact
//! copies and 4 edited ones (3 words replaced, 10 words added, 10 words deleted, a
//! paragraph of another letter appended). Candidates: every pair among a letter's
//! first exact copy and its edits (the other copies are the exact pass's) plus 2
//! random pairs per document (what an index proposes: true pairs and noise), 300,000
//! pairs. Constraints: the exact copies must-linked, the letters on
//! two dockets (cannot-links across them on every candidate pair), a relay per letter
//! (family-links between the reference copy and its candidates).
//!
//! * `closure`: `Constraints::close_with(Conflicts::DropMust)` of those constraints.
//! * `cluster/single_link`: the baseline in the same run, connected components of the
//!   candidate pairs under the same distance threshold (the KL distances computed the
//!   same way).
//! * `cluster/baseline`: Figure 3 without constraints (`Closure::none`).
//! * `cluster/constrained`: Figure 3 with the closed constraints.
//!
//! Memory (resident set before and at the peak, from `/proc/self/status`) is printed
//! to stderr once.
//!
//! Run: `cargo bench -p ndd-cluster --bench cluster -- --warm-up-time 1 --measurement-time 10`
#![allow(missing_docs, clippy::unwrap_used)] // criterion_group! generates an undocumented function

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use ndd_cluster::{
    Background, Closure, ClusterOptions, Conflicts, Constraints, KlDivergence, Neighbours, cluster,
    reference_copies,
};
use ndd_core::{ScoredPair, SparseVector, UnionFind};
use ndd_shingle::WordShingler;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const LETTERS: usize = 10_000;
const PER_LETTER: usize = 10;
const EXACT: usize = 6;

struct Collection {
    counts: Vec<SparseVector>,
    pairs: Vec<ScoredPair>,
    exact: Vec<Vec<usize>>,
    docket: Vec<Option<u8>>,
    relay: Vec<Option<u32>>,
}

fn words() -> Vec<String> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../data/debian-copyright.jsonl"
    );
    let data = std::fs::read_to_string(path).unwrap();
    let mut out = Vec::new();
    for line in data.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        out.extend(
            v["text"]
                .as_str()
                .unwrap_or("")
                .split_whitespace()
                .map(str::to_owned),
        );
    }
    out
}

fn collection() -> Collection {
    let words = words();
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let window = |rng: &mut ChaCha8Rng, n: usize| -> Vec<String> {
        let start = rng.random_range(0..words.len() - n);
        words[start..start + n].to_vec()
    };
    let shingler = WordShingler::new(1).unwrap();
    let (mut counts, mut exact, mut docket, mut relay) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut pairs = Vec::new();
    for l in 0..LETTERS {
        let letter = window(&mut rng, 80);
        let first = counts.len();
        let mut edits = Vec::new();
        let mut replaced = letter.clone();
        for _ in 0..3 {
            let i = rng.random_range(0..replaced.len());
            replaced[i] = words[rng.random_range(0..words.len())].clone();
        }
        edits.push(replaced);
        let mut added = letter.clone();
        added.extend(window(&mut rng, 10));
        edits.push(added);
        edits.push(letter[10..].to_vec());
        let mut appended = letter.clone();
        appended.extend(window(&mut rng, 40));
        edits.push(appended);
        let letter_counts = shingler.counts(&letter.join(" "));
        for _ in 0..EXACT {
            counts.push(letter_counts.clone());
        }
        for e in &edits {
            counts.push(shingler.counts(&e.join(" ")));
        }
        exact.push((first..first + EXACT).collect());
        for d in first..first + PER_LETTER {
            docket.push(Some(u8::from(l % 2 == 1)));
            relay.push(if rng.random::<f64>() < 0.9 {
                u32::try_from(l).ok()
            } else {
                None
            });
            // The index proposes the first exact copy (the others are removed by the
            // exact pass) with the edits, and some noise.
            if d == first || d >= first + EXACT {
                for e in first + EXACT..first + PER_LETTER {
                    if e > d {
                        pairs.push(ScoredPair::candidate(d, e));
                    }
                }
            }
        }
    }
    let n = counts.len();
    for d in 0..n {
        for _ in 0..2 {
            pairs.push(ScoredPair::candidate(d, rng.random_range(0..n)));
        }
    }
    Collection {
        counts,
        pairs,
        exact,
        docket,
        relay,
    }
}

/// Resident set size now and at its peak, in MiB (Linux), for the printout.
fn memory() -> Option<(f64, f64)> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let kb = |key: &str| -> Option<f64> {
        let line = status.lines().find(|l| l.starts_with(key))?;
        line.split_whitespace().nth(1)?.parse::<f64>().ok()
    };
    Some((kb("VmRSS:")? / 1024.0, kb("VmHWM:")? / 1024.0))
}

fn bench(c: &mut Criterion) {
    let col = collection();
    let n = col.counts.len();
    let background = Background::from_documents(&col.counts);
    let kl = KlDivergence::new(&background, 1.0).unwrap();
    let nb = Neighbours::from_pairs(n, col.pairs.iter().copied()).unwrap();
    let refs: Vec<usize> = reference_copies(&col.exact, 5, |d| d)
        .iter()
        .map(|r| r.document)
        .collect();
    let constraints = || {
        let mut k = Constraints::new(n);
        for g in &col.exact {
            k.must_group(g).unwrap();
        }
        let all = (0..n).flat_map(|a| {
            nb.of(a)
                .iter()
                .filter(move |&&b| a < b)
                .map(move |&b| (a, b))
        });
        k.cannot_if_different(all, &col.docket).unwrap();
        let ref_pairs = refs
            .iter()
            .flat_map(|&r| nb.of(r).iter().map(move |&s| (r, s)));
        k.family_if_same(ref_pairs, &col.relay).unwrap();
        k
    };
    let given = constraints();
    let (closed, _) = given.close_with(Conflicts::DropMust).unwrap();
    let options = ClusterOptions::default();
    let distance = |a: usize, b: usize| kl.distance(&col.counts[a], &col.counts[b]);
    let before = memory();
    let out = cluster(&refs, &nb, &closed, &options, distance).unwrap();
    if let (Some((rss, _)), Some((_, peak))) = (before, memory()) {
        eprintln!(
            "{n} documents, {} candidate pairs, {} links: {} clusters; resident {rss:.0} MiB \
             before clustering (collection, candidates, closure), peak {peak:.0} MiB",
            nb.num_edges(),
            given.len(),
            out.num_clusters()
        );
    }

    let mut g = c.benchmark_group("durian_100k");
    g.sample_size(10);
    g.throughput(Throughput::Elements(n as u64));
    g.bench_function("closure", |b| {
        b.iter(|| black_box(given.close_with(Conflicts::DropMust).unwrap()));
    });
    g.bench_function("cluster/single_link", |b| {
        b.iter(|| {
            let mut uf = UnionFind::new(n);
            for p in &col.pairs {
                if p.a != p.b && distance(p.a, p.b) < options.theta() {
                    uf.union(p.a, p.b);
                }
            }
            black_box(uf.labels())
        });
    });
    let none = Closure::none(n);
    g.bench_function("cluster/baseline", |b| {
        b.iter(|| black_box(cluster(&refs, &nb, &none, &options, distance).unwrap()));
    });
    g.bench_function("cluster/constrained", |b| {
        b.iter(|| black_box(cluster(&refs, &nb, &closed, &options, distance).unwrap()));
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
