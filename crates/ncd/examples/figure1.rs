//! The shape of Figure 1 of Zhang et al. (2016): NCD of the first `n` bytes of a
//! document with itself, against `n`, for the full text and for its punctuation-spot
//! signature (SigNCD). An ideal compressor gives 0 at every `n`; real ones drift once
//! `xx` no longer fits their window or block (Snappy: 64 KB blocks, so the second copy
//! of `x` stops finding the first above 32 KB; deflate: a 32 KB window, so above
//! ~32 KB as well). The signature is ~10-20x shorter, so SigNCD stays near 0 far
//! longer.
//!
//! The "document" is the bundled `data/debian-copyright.jsonl` texts joined (or the
//! JSONL file named by `NDD_BENCH_CORPUS`).
//!
//! Run: `cargo run --release -p ndd-ncd --example figure1 [-- compressor]`

use ndd_ncd::{CompressorKind, Ncd, SigNcd};

#[path = "../benches/common/corpus.rs"]
mod corpus;

fn main() -> Result<(), ndd_core::Error> {
    let kind: CompressorKind = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "snappy".into())
        .parse()?;
    let doc: String = corpus::load()
        .into_iter()
        .take_while({
            let mut total = 0;
            move |t: &String| {
                total += t.len();
                total < 300_000
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    let s = SigNcd::builder().compressor(kind).build()?;
    let mut ncd = Ncd::new(kind.build()?);
    println!("compressor {}", kind.build()?.name());
    println!(
        "{:>8} {:>10} {:>10} {:>10}",
        "n (KB)", "NCD(x,x)", "sig bytes", "SigNCD(x,x)"
    );
    for kb in [
        1, 2, 4, 8, 12, 16, 20, 24, 28, 32, 36, 40, 48, 56, 64, 80, 96, 128, 192, 256,
    ] {
        let mut n = (kb * 1024).min(doc.len());
        while !doc.is_char_boundary(n) {
            n -= 1;
        }
        let x = &doc[..n];
        let full = ncd.distance(x.as_bytes(), x.as_bytes())?;
        let (sig, _) = s.signature(x);
        let signcd = ncd.distance(sig.as_bytes(), sig.as_bytes())?;
        println!("{kb:>8} {full:>10.3} {:>10} {signcd:>10.3}", sig.len());
    }
    Ok(())
}
