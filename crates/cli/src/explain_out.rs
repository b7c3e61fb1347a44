//! `--explain-out` and `--members-out`: what differs in each pair found, and each
//! group member against the document kept, as JSON lines.

use std::io::{self, Write};

use ndd_pipeline::ScoredPair;
use ndd_pipeline::align::{Aligner, Block, BlockKind, BlockReport, TokenOptions};
use serde_json::{Value, json};

use crate::found::Found;
use crate::output::round6;

/// The most pairs of one group `--explain-out` writes (the first found): a group of
/// 20,000 near-identical lines made 11.8 GB of explanations in 4 minutes; at this
/// bound, at most about 2 KB × 1,000 per group.
pub(crate) const EXPLAIN_PAIRS_PER_GROUP: usize = 1_000;

/// One JSON line per pair of this batch, at most [`EXPLAIN_PAIRS_PER_GROUP`] of each
/// group: the ids and score, the category of `b` relative to `a` (Yang and Callan's
/// categories), the token counts, the LCS and word-set Jaccard, and both documents'
/// blocks (kind and byte range; the text of every block that is not shared) so a
/// reader sees exactly what differs.
pub(crate) fn write(out: &mut dyn Write, f: &Found<'_>, nfkc: bool) -> io::Result<()> {
    let options = TokenOptions::default().nfkc(nfkc);
    let mut per_group: std::collections::HashMap<usize, usize> = std::collections::HashMap::new();
    let pairs: Vec<ScoredPair> = f
        .outcome
        .pairs
        .iter()
        .filter(|p| {
            let n = per_group.entry(f.label(p.a)).or_insert(0);
            *n += 1;
            *n <= EXPLAIN_PAIRS_PER_GROUP
        })
        .copied()
        .collect();
    write_lines(out, &pairs, |al, p| line(al, f, &options, p))
}

/// One JSON line per member of every group of this batch: the group (the id of the
/// document kept), the member's id, and its category relative to the kept document
/// with its unique text; the kept document's own line says `"category": "kept"` and,
/// for a form letter's reference copy, how many exact copies it has. Members from a
/// saved index (no text) are left out.
pub(crate) fn members(out: &mut dyn Write, f: &Found<'_>, nfkc: bool) -> io::Result<()> {
    let options = TokenOptions::default().nfkc(nfkc);
    let items: Vec<(usize, usize)> = f
        .outcome
        .groups
        .iter()
        .enumerate()
        .flat_map(|(g, group)| group.members.iter().map(move |&m| (g, m)))
        .collect();
    write_lines(out, &items, |al, &(g, m)| {
        let group = &f.outcome.groups[g];
        let rep = group.representative;
        let (Some(tr), Some(tm)) = (f.text(rep), f.text(m)) else {
            return Ok(None);
        };
        let mut value = json!({
            "group": f.ids[rep],
            "id": f.ids[m],
        });
        if m == rep {
            value["category"] = Value::from("kept");
            if let Some(c) = group.copies {
                value["reference_copy_of"] = Value::from(c);
            }
        } else {
            let (r, d) = (options.tokens(tr), options.tokens(tm));
            let report = BlockReport::new(al, &r, &d);
            value["category"] = Value::from(report.classify().category.name());
            value["unique_text"] = Value::from(report.unique_b_text());
        }
        let mut bytes = serde_json::to_vec(&value)?;
        bytes.push(b'\n');
        Ok(Some(bytes))
    })
}

/// Writes the lines `line` makes of `items`, in order: chunks built in parallel (with
/// the `rayon` feature), each with its own aligner; `None` writes nothing.
fn write_lines<T: Sync>(
    out: &mut dyn Write,
    items: &[T],
    line: impl Fn(&mut Aligner, &T) -> io::Result<Option<Vec<u8>>> + Sync,
) -> io::Result<()> {
    for chunk in items.chunks(1024) {
        #[cfg(feature = "rayon")]
        let lines: Vec<Option<Vec<u8>>> = {
            use rayon::prelude::*;
            chunk
                .par_iter()
                .map_init(Aligner::new, |al, item| line(al, item))
                .collect::<io::Result<_>>()?
        };
        #[cfg(not(feature = "rayon"))]
        let lines: Vec<Option<Vec<u8>>> = {
            let mut al = Aligner::new();
            chunk
                .iter()
                .map(|item| line(&mut al, item))
                .collect::<io::Result<_>>()?
        };
        for l in lines.into_iter().flatten() {
            out.write_all(&l)?;
        }
    }
    Ok(())
}

/// The JSON line of one pair; `None` for a pair with a document of a saved index
/// (no text to compare).
fn line(
    aligner: &mut Aligner,
    f: &Found<'_>,
    options: &TokenOptions,
    p: &ScoredPair,
) -> io::Result<Option<Vec<u8>>> {
    let (Some(ta), Some(tb)) = (f.text(p.a), f.text(p.b)) else {
        return Ok(None);
    };
    let (a, b) = (options.tokens(ta), options.tokens(tb));
    let report = BlockReport::new(aligner, &a, &b);
    let class = report.classify();
    let value = json!({
        "id_a": f.ids[p.a],
        "id_b": f.ids[p.b],
        "score": round6(p.score),
        "category": class.category.name(),
        "tokens_a": report.len_a(),
        "tokens_b": report.len_b(),
        "lcs": report.alignment().matched(),
        "word_jaccard": round6(report.word_jaccard()),
        "unique_a": report.unique_a_text(),
        "unique_b": report.unique_b_text(),
        "blocks_a": blocks_json(report.a_blocks(), ta),
        "blocks_b": blocks_json(report.b_blocks(), tb),
    });
    let mut bytes = serde_json::to_vec(&value)?;
    bytes.push(b'\n');
    Ok(Some(bytes))
}

/// A side's blocks: kind and byte range, with the text of every block not shared.
fn blocks_json(blocks: &[Block], text: &str) -> Vec<Value> {
    blocks
        .iter()
        .map(|bl| {
            let mut v = json!({
                "kind": bl.kind.name(),
                "start": bl.bytes.start,
                "end": bl.bytes.end,
            });
            if bl.kind != BlockKind::Shared {
                v["text"] = Value::from(text.get(bl.bytes.clone()).unwrap_or(""));
            }
            v
        })
        .collect()
}
