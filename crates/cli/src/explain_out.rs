//! `--explain-out`: what differs in each pair found, as JSON lines.

use std::io::{self, Write};

use ndd_align::{Aligner, Block, BlockKind, BlockReport, TokenOptions};
use ndd_pipeline::ScoredPair;
use serde_json::{Value, json};

use crate::dedup::Found;
use crate::write::round6;

/// One JSON line per pair of this batch: the ids and score, the category of `b`
/// relative to `a` (Yang and Callan's categories), the token counts, the LCS and
/// word-set Jaccard, and both documents' blocks (kind and byte range; the text of
/// every block that is not shared) so a reader sees exactly what differs.
pub(crate) fn write(out: &mut impl Write, f: &Found<'_>, nfkc: bool) -> io::Result<()> {
    let options = TokenOptions::default().nfkc(nfkc);
    // Chunks of pairs: reports built in parallel, lines written in pair order.
    for chunk in f.outcome.pairs.chunks(1024) {
        #[cfg(feature = "rayon")]
        let lines: Vec<Option<Vec<u8>>> = {
            use rayon::prelude::*;
            chunk
                .par_iter()
                .map_init(Aligner::new, |al, p| line(al, f, &options, p))
                .collect::<io::Result<_>>()?
        };
        #[cfg(not(feature = "rayon"))]
        let lines: Vec<Option<Vec<u8>>> = {
            let mut al = Aligner::new();
            chunk
                .iter()
                .map(|p| line(&mut al, f, &options, p))
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
    let text = |pos: usize| {
        pos.checked_sub(f.base)
            .and_then(|i| f.docs.get(i))
            .map(|d| d.text.as_str())
    };
    let (Some(ta), Some(tb)) = (text(p.a), text(p.b)) else {
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
