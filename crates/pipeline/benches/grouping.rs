//! The serial end of an in-memory run (issue 31, session 10 task H), each against its
//! previous version, in the same run:
//!
//! * `grouping/components`: `Grouping::run` (connected components, the tool's default)
//!   now, which finds and counts only the documents the pairs name (`components_of`),
//!   against the version before `06e7aef`, copied here: every pair unioned, then
//!   every document labelled (`UnionFind::labels`, two finds a document), the groups of
//!   two or more gathered, the first member kept (`Representative::FirstSeen`).
//! * `grouping/largest_groups`: the summary's `--top` largest groups (`ndd-cli`'s
//!   `Found::largest_groups`, default `--top 5`): the version before `b7b7b66` (every
//!   group sorted, stably, then the first `top` kept) against the version now (the
//!   `top` first chosen by `select_nth_unstable_by`, then sorted, the group's position
//!   as the last tie-break). `ndd-cli` is a binary without a library, so both are
//!   copies here; the new one is `found.rs`'s code less the batch filter.
//!
//! Input: the corpus's documents and the pairs verified from its MinHash candidates at
//! 0.8 (`CandidateGenerator`, then `Verification` with exact Jaccard), made once; the
//! groups of `Grouping::run`. Before timing, each pair of versions gives the same
//! answer.
//!
//! Corpus: `data/debian-copyright.jsonl` (bundled), or the JSONL file named by
//! `NDD_BENCH_CORPUS` (`bench`: `bench/data/corpus.jsonl`).
//!
//! Run: `NDD_BENCH_CORPUS=bench cargo bench -p ndd-pipeline --bench grouping -- --warm-up-time 1 --measurement-time 3`
#![allow(missing_docs)] // criterion_group! generates an undocumented function

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use ndd_core::{ScoredPair, UnionFind};
use ndd_pipeline::{
    CandidateGenerator, Document, Group, Grouping, Method, Representative, Verification, Verifier,
};

#[path = "common/corpus.rs"]
mod corpus;

/// Components before `06e7aef`: every document labelled by its set's smallest member,
/// the labels counted, the groups of two or more gathered in order of their smallest
/// member, each kept by its first member (what `FirstSeen` picks).
fn components_before(n: usize, pairs: &[ScoredPair]) -> Vec<Group> {
    assert!(pairs.iter().all(|p| p.a < n && p.b < n), "pairs in range");
    let mut uf = UnionFind::new(n);
    for p in pairs {
        uf.union(p.a, p.b);
    }
    let labels = uf.labels();
    let mut size = vec![0usize; n];
    for &l in &labels {
        size[l] += 1;
    }
    let mut slot = vec![usize::MAX; n];
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for (x, &l) in labels.iter().enumerate() {
        if size[l] < 2 {
            continue;
        }
        if slot[l] == usize::MAX {
            slot[l] = groups.len();
            groups.push(Vec::with_capacity(size[l]));
        }
        groups[slot[l]].push(x);
    }
    groups
        .into_iter()
        .map(|members| Group {
            representative: members[0],
            members,
            copies: None,
        })
        .collect()
}

/// `largest_groups` before `b7b7b66`: every group sorted (stable: ties keep their
/// order), then the first `top`.
fn largest_before(groups: &[Group], top: usize) -> Vec<&Group> {
    let mut out: Vec<&Group> = groups.iter().collect();
    out.sort_by(|a, b| {
        b.members
            .len()
            .cmp(&a.members.len())
            .then(a.members[0].cmp(&b.members[0]))
    });
    out.truncate(top);
    out
}

/// `largest_groups` now: the `top` first chosen, then sorted, each group's position
/// the last tie-break (what the stable sort kept).
fn largest_now(groups: &[Group], top: usize) -> Vec<&Group> {
    let mut out: Vec<(usize, &Group)> = groups.iter().enumerate().collect();
    let order = |(i, a): &(usize, &Group), (j, b): &(usize, &Group)| {
        b.members
            .len()
            .cmp(&a.members.len())
            .then(a.members[0].cmp(&b.members[0]))
            .then(i.cmp(j))
    };
    if top < out.len() {
        out.select_nth_unstable_by(top, order);
        out.truncate(top);
    }
    out.sort_unstable_by(order);
    out.into_iter().map(|(_, g)| g).collect()
}

fn bench(c: &mut Criterion) {
    let texts = corpus::load();
    let mut candidates: Vec<ScoredPair> = Vec::new();
    CandidateGenerator::new(Method::default(), 0.8)
        .run(&texts, &mut candidates)
        .expect("valid");
    let (pairs, _) = Verification::new(Verifier::ExactJaccard, 0.8)
        .run(&texts, candidates)
        .expect("valid");
    let docs: Vec<Document> = texts
        .iter()
        .enumerate()
        .map(|(i, t)| Document::new(i.to_string(), t.as_str()))
        .collect();
    let grouping = Grouping::new(Representative::FirstSeen);
    let groups = grouping.run(&docs, &pairs).expect("valid");
    assert_eq!(components_before(docs.len(), &pairs), groups, "components");
    for top in [0, 1, 5, 100, groups.len(), groups.len() + 1] {
        assert_eq!(
            largest_before(&groups, top),
            largest_now(&groups, top),
            "--top {top}"
        );
    }
    eprintln!(
        "grouping: {} documents, {} pairs, {} groups",
        docs.len(),
        pairs.len(),
        groups.len()
    );
    let n = docs.len();
    let mut g = c.benchmark_group("grouping/components");
    g.bench_function(
        BenchmarkId::new("before_06e7aef_every_document_labelled", n),
        |b| {
            b.iter(|| components_before(n, black_box(&pairs)));
        },
    );
    g.bench_function(BenchmarkId::new("library_named_documents_only", n), |b| {
        b.iter(|| grouping.run(&docs, black_box(&pairs)).expect("valid"));
    });
    g.finish();
    let mut g = c.benchmark_group("grouping/largest_groups");
    let top = 5;
    g.bench_function(BenchmarkId::new("before_b7b7b66_full_sort", top), |b| {
        b.iter(|| largest_before(black_box(&groups), top).len());
    });
    g.bench_function(BenchmarkId::new("now_select_nth_then_sort", top), |b| {
        b.iter(|| largest_now(black_box(&groups), top).len());
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
