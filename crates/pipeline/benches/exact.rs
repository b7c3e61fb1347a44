//! The exact pass (`ExactPass`, `ExactDuplicates`) against its code before issue 31's
//! cuts (commit `cf12f0a`), kept here as the baselines, in the same run.
//!
//! * `exact_digest/*`: the digest of every corpus document with the default pass
//!   (case folded, no NFKC). `before` is `cf12f0a`'s `digest_with`: the whole document
//!   string built in a reused `Vec` (grown and cleared per document), then hashed;
//!   `previous (byte table)` is `fdbe0e5`'s `digest`, the ASCII text one byte at a
//!   time through a byte table (today's goes two bytes at a time through a table of
//!   byte pairs);
//!   `digest_with` is today's, which still builds the string (through the same pieces
//!   as `digest`); `digest` streams each piece of the string into SHA-1 and never
//!   holds it. Throughput in bytes of text.
//! * `exact_group/*`: `ExactDuplicates::from_digests` against `cf12f0a`'s grouping
//!   (`before`), which sorted the document indices by their 20-byte digests, and
//!   against `eeb21b6`'s (`previous`), which sorted (first 8 bytes, index) pairs as
//!   today's does but then compared whole digests of neighbours for every document
//!   (today's reads whole digests only where prefixes repeat); on the corpus's digests
//!   and on a million synthetic ones (one in eight a copy of an earlier one).
//!
//! * `read_and_digest/*`: the corpus file read whole and every document's digest, as
//!   `ndd dedup` gets them: `separate` reads it (`read_corpus`) and then digests the
//!   texts in a pass of its own (`ExactPass::digests`, on the pool under `rayon`), as
//!   before `b6bb60a`; `hooked` reads it with the pass's hook
//!   (`read_corpus_with_hook`), the JSONL reader digesting each document on the pool
//!   right after decoding it. Throughput in bytes of text.
//!
//! Before measuring, the baselines are checked to give what today's code gives (every
//! digest, every group and every first copy), so the two sides do the same work.
//!
//! Corpus: `data/debian-copyright.jsonl` (bundled), or the JSONL file named by
//! `NDD_BENCH_CORPUS` (`bench`: `bench/data/corpus.jsonl`, the 66,855 documents of the
//! issue's measurements).
//!
//! Run: `NDD_BENCH_CORPUS=bench cargo bench -p ndd-pipeline --bench exact --features rayon -- --warm-up-time 1 --measurement-time 3`
#![allow(missing_docs, clippy::unwrap_used)] // criterion_group! generates an undocumented function

use std::hint::black_box;

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use ndd_pipeline::corpus::{ReadOptions, read_corpus, read_corpus_with_hook};
use ndd_pipeline::{DocDigest, ExactDuplicates, ExactPass};
use sha1::{Digest, Sha1};

#[path = "common/corpus.rs"]
mod corpus;

/// `cf12f0a`'s table: an ASCII letter (lower-cased) or digit maps to itself, any other
/// byte to 0.
fn folded_table() -> [u8; 256] {
    std::array::from_fn(|i| {
        let b = u8::try_from(i).unwrap();
        if b.is_ascii_alphanumeric() {
            b.to_ascii_lowercase()
        } else {
            0
        }
    })
}

/// `cf12f0a`'s `push_ascii`: appends the non-zero `table` entries of `bytes` to `buf`,
/// the vector first grown (and zeroed) by the length of `bytes`, then cut back.
#[inline]
fn push_ascii(table: &[u8; 256], bytes: &[u8], buf: &mut Vec<u8>) {
    let start = buf.len();
    buf.resize(start + bytes.len(), 0);
    let mut n = 0;
    if let Some(out) = buf.get_mut(start..) {
        for &b in bytes {
            let c = table[usize::from(b)];
            if let Some(slot) = out.get_mut(n) {
                *slot = c;
            }
            n += usize::from(c != 0);
        }
    }
    buf.truncate(start + n);
}

/// The baseline: `cf12f0a`'s `ExactPass::digest_with` for the default pass (case
/// folded, no NFKC): the document string built whole in `buf`, then hashed. (For a
/// non-ASCII document: each run of ASCII bytes found byte by byte and pushed through
/// the table, each other character pushed lower-cased when it is a word character.)
fn digest_before(table: &[u8; 256], doc: &str, buf: &mut Vec<u8>) -> DocDigest {
    buf.clear();
    if doc.is_ascii() {
        push_ascii(table, doc.as_bytes(), buf);
    } else {
        let mut utf8 = [0u8; 4];
        let mut rest = doc;
        loop {
            let run = rest
                .bytes()
                .position(|b| !b.is_ascii())
                .unwrap_or(rest.len());
            let (ascii, tail) = rest.split_at(run);
            push_ascii(table, ascii.as_bytes(), buf);
            let mut chars = tail.chars();
            match chars.next() {
                None => break,
                Some(c) if ndd_shingle::is_word_char(c) => c
                    .to_lowercase()
                    .for_each(|l| buf.extend_from_slice(l.encode_utf8(&mut utf8).as_bytes())),
                Some(_) => {}
            }
            rest = chars.as_str();
        }
    }
    Sha1::digest(buf.as_slice()).into()
}

/// The previous ASCII kernel (`fdbe0e5`'s `ascii_pieces`, before the table of byte
/// pairs): one byte at a time through the byte table, compacted in pieces of 256 bytes
/// on the stack, each piece streamed into SHA-1.
fn ascii_pieces_previous(table: &[u8; 256], bytes: &[u8], sha: &mut Sha1) {
    let mut out = [0u8; 256];
    for chunk in bytes.chunks(256) {
        let mut n = 0;
        for &b in chunk {
            let c = table[usize::from(b)];
            out[n % 256] = c;
            n += usize::from(c != 0);
        }
        sha.update(&out[..n]);
    }
}

/// The previous version: `fdbe0e5`'s `ExactPass::digest` for an ASCII document
/// (the previous kernel streamed into SHA-1); a document with non-ASCII bytes
/// (whose ASCII runs go through the same kernel) through [`digest_before`].
fn digest_previous(table: &[u8; 256], doc: &str, buf: &mut Vec<u8>) -> DocDigest {
    if doc.is_ascii() {
        let mut sha = Sha1::new();
        ascii_pieces_previous(table, doc.as_bytes(), &mut sha);
        sha.finalize().into()
    } else {
        digest_before(table, doc, buf)
    }
}

/// The baseline: `cf12f0a`'s `ExactDuplicates::from_digests`, the indices sorted by
/// `(digest, index)` comparing whole digests, then cut into runs of equal digests.
/// Returns each document's first copy and the groups of two or more, ordered by their
/// first member (what `first_of` and `groups` give today).
fn group_before(digests: Vec<DocDigest>) -> (Vec<usize>, Vec<Vec<usize>>, Vec<DocDigest>) {
    let mut order: Vec<usize> = (0..digests.len()).collect();
    order.sort_unstable_by(|&a, &b| digests[a].cmp(&digests[b]).then(a.cmp(&b)));
    let mut first: Vec<usize> = (0..digests.len()).collect();
    let mut groups: Vec<Vec<usize>> = order
        .chunk_by(|&a, &b| digests[a] == digests[b])
        .filter(|run| run.len() > 1)
        .map(<[usize]>::to_vec)
        .collect();
    for g in &groups {
        g.iter().for_each(|&m| first[m] = g[0]);
    }
    groups.sort_unstable_by_key(|g| g[0]);
    (first, groups, digests)
}

/// The previous version: `eeb21b6`'s `ExactDuplicates::from_digests`, the indices
/// sorted by (first 8 bytes, index) pairs, then every run of equal prefixes checked and
/// every neighbour compared by whole digest (two random digest reads per document).
/// Returns the same as [`group_before`].
fn group_previous(digests: Vec<DocDigest>) -> (Vec<usize>, Vec<Vec<usize>>, Vec<DocDigest>) {
    let prefix = |d: &DocDigest| u64::from_be_bytes(d[..8].try_into().unwrap());
    let mut keyed: Vec<(u64, usize)> = (0..digests.len())
        .map(|i| (prefix(&digests[i]), i))
        .collect();
    sort_keys(&mut keyed);
    let mut order: Vec<usize> = keyed.iter().map(|&(_, i)| i).collect();
    let mut start = 0;
    while start < keyed.len() {
        let mut end = start + 1;
        while end < keyed.len() && keyed[end].0 == keyed[start].0 {
            end += 1;
        }
        let run = &mut order[start..end];
        if run.iter().any(|&i| digests[i] != digests[run[0]]) {
            run.sort_unstable_by(|&a, &b| digests[a].cmp(&digests[b]).then(a.cmp(&b)));
        }
        start = end;
    }
    // Runs of equal whole digests (`eeb21b6` compared each to the run's first).
    let mut first: Vec<usize> = (0..digests.len()).collect();
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for run in order.chunk_by(|&a, &b| digests[a] == digests[b]) {
        if run.len() > 1 {
            run.iter().for_each(|&m| first[m] = run[0]);
            groups.push(run.to_vec());
        }
    }
    groups.sort_unstable_by_key(|g| g[0]);
    (first, groups, digests)
}

/// Sorts `(prefix, index)` keys as `eeb21b6` did: on the pool under `rayon`.
fn sort_keys(keys: &mut [(u64, usize)]) {
    #[cfg(feature = "rayon")]
    rayon::slice::ParallelSliceMut::par_sort_unstable(keys);
    #[cfg(not(feature = "rayon"))]
    keys.sort_unstable();
}

/// A million digests, one in eight (every eighth) equal to the first of its eight.
fn synthetic_digests() -> Vec<DocDigest> {
    let mut digests: Vec<DocDigest> = Vec::with_capacity(1 << 20);
    for i in 0..1u32 << 20 {
        let d = if i % 8 == 7 {
            digests[digests.len() - 7]
        } else {
            Sha1::digest(i.to_le_bytes()).into()
        };
        digests.push(d);
    }
    digests
}

fn bench(c: &mut Criterion) {
    let docs = corpus::load();
    let bytes: usize = docs.iter().map(String::len).sum();
    let pass = ExactPass::new();
    let table = folded_table();

    // The baseline is the same function: every digest equal.
    let mut buf = Vec::new();
    let digests: Vec<DocDigest> = docs.iter().map(|d| pass.digest(d)).collect();
    for (doc, d) in docs.iter().zip(&digests) {
        assert_eq!(&digest_before(&table, doc, &mut buf), d, "{doc:?}");
        assert_eq!(&digest_previous(&table, doc, &mut buf), d, "{doc:?}");
        assert_eq!(&pass.digest_with(doc, &mut buf), d, "{doc:?}");
    }

    let mut group = c.benchmark_group("exact_digest");
    group.throughput(Throughput::Bytes(bytes as u64));
    group.sample_size(10);
    // One indirect call per document for each of the four, so the comparison is fair.
    type Pass<'a> = &'a dyn Fn(&str, &mut Vec<u8>) -> DocDigest;
    let passes: [(&str, Pass<'_>); 4] = [
        ("before", &|d, buf| digest_before(&table, d, buf)),
        ("previous (byte table)", &|d, buf| {
            digest_previous(&table, d, buf)
        }),
        ("digest_with", &|d, buf| pass.digest_with(d, buf)),
        ("digest", &|d, _| pass.digest(d)),
    ];
    for (name, f) in passes {
        group.bench_function(name, |b| {
            let mut buf = Vec::new();
            b.iter(|| {
                for d in &docs {
                    black_box(f(black_box(d), &mut buf));
                }
            });
        });
    }
    group.finish();

    // Reading and digesting: the same digests both ways.
    let file = corpus::path();
    let opts = ReadOptions::default();
    let separate = || {
        let corpus = read_corpus(&file, &opts).unwrap();
        let texts: Vec<&str> = corpus.documents.iter().map(|d| d.text.as_str()).collect();
        let digests = pass.digests(&texts);
        (corpus, digests)
    };
    let hooked = || read_corpus_with_hook(&file, &opts, |_| {}, pass.hook()).unwrap();
    let (read, expected) = separate();
    assert_eq!(hooked().1, expected);
    let mut group = c.benchmark_group("read_and_digest");
    let text_bytes: usize = read.documents.iter().map(|d| d.text.len()).sum();
    group.throughput(Throughput::Bytes(text_bytes as u64));
    group.sample_size(10);
    group.bench_function("separate", |b| b.iter(|| black_box(separate())));
    group.bench_function("hooked", |b| b.iter(|| black_box(hooked())));
    group.finish();

    let mut group = c.benchmark_group("exact_group");
    for (name, input) in [("corpus", digests), ("1M", synthetic_digests())] {
        // The baseline groups as today's code does.
        let found = ExactDuplicates::from_digests(input.clone());
        for baseline in [group_before, group_previous] {
            let (first, groups, _) = baseline(input.clone());
            assert_eq!(found.groups(), groups.as_slice(), "{name}");
            assert!(
                (0..input.len()).all(|i| found.first_of(i) == first[i]),
                "{name}"
            );
        }
        group.throughput(Throughput::Elements(input.len() as u64));
        group.bench_function(format!("before/{name}"), |b| {
            b.iter_batched(
                || input.clone(),
                |d| black_box(group_before(d)),
                BatchSize::LargeInput,
            );
        });
        group.bench_function(format!("previous/{name}"), |b| {
            b.iter_batched(
                || input.clone(),
                |d| black_box(group_previous(d)),
                BatchSize::LargeInput,
            );
        });
        group.bench_function(format!("from_digests/{name}"), |b| {
            b.iter_batched(
                || input.clone(),
                |d| black_box(ExactDuplicates::from_digests(d)),
                BatchSize::LargeInput,
            );
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
