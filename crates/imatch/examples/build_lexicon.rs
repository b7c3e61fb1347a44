//! Builds an I-Match lexicon from a corpus and writes its byte form, to apply to
//! another collection (Kołcz and Chowdhury, The Journal of Supercomputing 2008, §6.5: a lexicon from a large, clean collection may
//! serve better than one from the target itself).
//!
//! ```text
//! cargo run --release -p ndd-imatch --example build_lexicon -- CORPUS.jsonl OUT.lex \
//!     [--nidf MIN,MAX] [--secondary-cap N]
//! cargo run --release -p ndd-cli -- dedup --method imatch --lexicon OUT.lex
//! ```
//!
//! `CORPUS.jsonl` holds one `{"text": ...}` object per line. The statistics are
//! streamed (document frequencies only), the lexicon cut from the nidf window (default
//! 0.2,0.8; 0.2,0.3 for email) with the secondary lexicon capped at N terms (default
//! 100,000).

use std::process::ExitCode;

use ndd_core::FeatureExtractor;
use ndd_imatch::{DocumentFrequencies, Lexicon, unigram_extractor};

fn run() -> Result<(), String> {
    let mut args = std::env::args().skip(1);
    let mut positional = Vec::new();
    let mut builder = Lexicon::builder();
    while let Some(a) = args.next() {
        match a.as_str() {
            "--nidf" => {
                let v = args.next().ok_or("--nidf needs MIN,MAX")?;
                let (lo, hi) = v
                    .split_once(',')
                    .and_then(|(a, b)| Some((a.parse().ok()?, b.parse().ok()?)))
                    .ok_or_else(|| format!("--nidf MIN,MAX: got {v}"))?;
                builder = builder.nidf_window(lo, hi);
            }
            "--secondary-cap" => {
                let v = args.next().ok_or("--secondary-cap needs a count")?;
                builder =
                    builder.secondary_cap(v.parse().map_err(|_| format!("not a count: {v}"))?);
            }
            "-h" | "--help" => {
                println!(
                    "usage: build_lexicon CORPUS.jsonl OUT.lex [--nidf MIN,MAX] [--secondary-cap N]"
                );
                return Ok(());
            }
            _ => positional.push(a),
        }
    }
    let [input, output] = positional.as_slice() else {
        return Err(
            "usage: build_lexicon CORPUS.jsonl OUT.lex [--nidf MIN,MAX] [--secondary-cap N]".into(),
        );
    };
    let text = std::fs::read_to_string(input).map_err(|e| format!("{input}: {e}"))?;
    let words = unigram_extractor();
    let mut stats = DocumentFrequencies::new(words.scheme());
    let mut terms = Vec::new();
    let mut skipped = 0usize;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let Some(doc) = serde_json::from_str::<serde_json::Value>(line)
            .ok()
            .and_then(|v| v.get("text").and_then(|t| t.as_str()).map(str::to_owned))
        else {
            skipped += 1;
            continue;
        };
        terms.clear();
        words.extract(&doc, &mut terms);
        stats.add_document(&terms);
    }
    let lexicon = builder.build(&stats).map_err(|e| e.to_string())?;
    let bytes = lexicon.to_bytes();
    std::fs::write(output, &bytes).map_err(|e| format!("{output}: {e}"))?;
    println!(
        "{input}: {} documents ({skipped} lines skipped), {} distinct terms\n\
         {output}: {} primary terms (nidf in [{}, {}]), {} secondary, {} bytes",
        stats.num_docs(),
        stats.len(),
        lexicon.len(),
        lexicon.window().0,
        lexicon.window().1,
        lexicon.secondary().len(),
        bytes.len()
    );
    Ok(())
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
