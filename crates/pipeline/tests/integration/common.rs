//! What several test files share: the bundled corpora read as documents or texts, and
//! the saved index's byte form written field by field.

#![allow(clippy::unwrap_used, dead_code)]

use ndd_pipeline::Document;

/// Every line of the JSONL file at `path` (relative to this crate), parsed.
fn lines(path: &str) -> Vec<serde_json::Value> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The documents of the JSONL file at `path` (relative to this crate), with their ids.
pub(crate) fn documents(path: &str) -> Vec<Document> {
    lines(path)
        .iter()
        .map(|v| Document::new(v["id"].as_str().unwrap(), v["text"].as_str().unwrap()))
        .collect()
}

/// The texts of the JSONL file at `path` (relative to this crate), in file order.
pub(crate) fn texts(path: &str) -> Vec<String> {
    lines(path)
        .iter()
        .map(|v| v["text"].as_str().unwrap().to_owned())
        .collect()
}

/// The bundled corpus of the repository (562 Debian copyright files).
pub(crate) const DEBIAN: &str = "../../data/debian-copyright.jsonl";

/// The 4,000 real package descriptions of `data/labeled`.
pub(crate) const DESCRIPTIONS: &str = "../../data/labeled/debian-descriptions.jsonl";

/// The documents of the bundled corpus (562 Debian copyright files).
pub(crate) fn debian() -> Vec<Document> {
    documents(DEBIAN)
}

/// Saved-index bytes of byte form `version`, written field by field (the layout of
/// `DedupIndex::to_bytes`): 128-slot MinHash of word 3-grams, seed 0, threshold 0.8, no
/// exact pass, no NFKC; the documents `ids`, each its own group; an LSH index (16 bands
/// of 6 rows) whose documents are `keys`, each sketched from "text number {k} with a
/// few words"; the set sizes `sizes`; then whatever `tail` writes.
#[cfg(feature = "minhash")]
pub(crate) fn index_bytes(
    version: u16,
    ids: &[&str],
    keys: &[u32],
    sizes: Option<&[u64]>,
    tail: impl FnOnce(&mut ndd_core::codec::ByteWriter),
) -> Vec<u8> {
    use ndd_core::DocSketcher;
    use ndd_core::codec::ByteWriter;
    let hasher = ndd_minhash::MinHasher::builder()
        .num_hashes(128)
        .seed(0)
        .build_with(ndd_shingle::WordShingler::new(3).unwrap())
        .unwrap();
    let mut lsh: ndd_lsh::LshIndex<u32, ndd_minhash::MinHashSignature> =
        ndd_lsh::LshIndex::builder(ndd_lsh::LshParams::new(16, 6).unwrap())
            .keep_signatures(true)
            .build();
    for &k in keys {
        lsh.insert(
            k,
            &hasher.sketch(&format!("text number {k} with a few words")),
        )
        .unwrap();
    }
    let mut w = ByteWriter::new(*b"NDDX", version);
    w.u64(128); // num_perm
    w.u64(0); // seed
    w.u8(0); // word shingles
    w.u64(3); // of 3 words
    w.f64(0.8); // threshold
    w.u8(0); // no exact pass
    w.u8(0); // no NFKC
    w.u64(ids.len() as u64);
    for id in ids {
        w.bytes(id.as_bytes());
    }
    w.u64_slice(&(0..ids.len() as u64).collect::<Vec<_>>()); // each its own group
    w.u64(0); // no digests
    w.bytes(&lsh.to_bytes());
    match sizes {
        Some(s) => {
            w.u8(1);
            w.u64_slice(s);
        }
        None => w.u8(0),
    }
    tail(&mut w);
    w.finish()
}
