//! How far real compressors are from the metric axioms NCD's pruning relies on.
//!
//! For the first `N` documents (default 300) of a JSONL corpus (default: the bundled
//! `data/debian-copyright.jsonl`; or the file named by `NDD_BENCH_CORPUS`), computes
//! the SigNCD matrix in both concatenation orders and reports:
//!
//! * idempotency: `NCD(x, x)`;
//! * symmetry: `|NCD(x, y) − NCD(y, x)|`;
//! * monotonicity (what P1 needs): pairs with `C(xy) < max{C(x), C(y)}`;
//! * the triangle inequality (what P2 needs): over all ordered triples,
//!   `NCD(x, y) − NCD(x, z) − NCD(z, y)`, how often it is positive and how large.
//!
//! Run: `cargo run --release -p ndd-ncd --example metric [-- N [compressor [sig]]]`
//! (compressor: snappy, lz4, deflate-6, zlib-9, gzip-6, ...; `sig`: signatures only,
//! skip the slow full-text matrix).

use ndd_ncd::{Compressor, CompressorKind, Ncd, SigNcd};

#[path = "../benches/common/corpus.rs"]
mod corpus;

fn main() -> Result<(), ndd_core::Error> {
    let mut args = std::env::args().skip(1);
    let n: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(300);
    let kind: CompressorKind = args.next().unwrap_or_else(|| "snappy".into()).parse()?;
    let sig_only = args.next().is_some_and(|a| a == "sig");
    let docs: Vec<String> = corpus::load().into_iter().take(n).collect();
    let n = docs.len();
    for (label, sig) in [("SigNCD (Sig-1L)", true), ("NCD (full text)", false)] {
        if sig_only && !sig {
            continue;
        }
        let s = SigNcd::builder().compressor(kind).build()?;
        let items: Vec<Vec<u8>> = docs
            .iter()
            .map(|d| {
                if sig {
                    s.signature(d).0.into_bytes()
                } else {
                    d.as_bytes().to_vec()
                }
            })
            .collect();
        let mut ncd = Ncd::new(kind.build()?);
        let c: Vec<usize> = items
            .iter()
            .map(|x| ncd.compressed_len(x))
            .collect::<Result<_, _>>()?;
        // d[i][j]: item i first in the concatenation.
        let mut d = vec![vec![0.0f64; n]; n];
        let (mut mono, mut asym_max, mut asym_sum, mut self_max, mut self_sum) =
            (0u64, 0.0f64, 0.0f64, 0.0f64, 0.0f64);
        for i in 0..n {
            for j in 0..n {
                let cxy = ncd.concat_len(&items[i], &items[j])?;
                if cxy < c[i].max(c[j]) {
                    mono += 1;
                }
                d[i][j] = ndd_ncd::monotone_ncd_from_lengths(c[i], c[j], cxy);
            }
            self_max = self_max.max(d[i][i]);
            self_sum += d[i][i];
        }
        #[allow(clippy::needless_range_loop)] // d[i][j] against d[j][i]
        for i in 0..n {
            for j in i + 1..n {
                let a = (d[i][j] - d[j][i]).abs();
                asym_max = asym_max.max(a);
                asym_sum += a;
            }
        }
        // Triangle over unordered pairs {x, y} (lower-index-first distances, as the
        // search uses) and every third z.
        let sym = |i: usize, j: usize| if i <= j { d[i][j] } else { d[j][i] };
        let (mut triples, mut viol, mut viol01, mut viol05, mut viol10, mut worst) =
            (0u64, 0u64, 0u64, 0u64, 0u64, 0.0f64);
        for x in 0..n {
            for y in x + 1..n {
                let dxy = sym(x, y);
                for z in 0..n {
                    if z == x || z == y {
                        continue;
                    }
                    triples += 1;
                    // The P2 form: |d(x,z) − d(y,z)| ≤ d(x,y).
                    let excess = (sym(x, z) - sym(y, z)).abs() - dxy;
                    if excess > 0.0 {
                        viol += 1;
                        worst = worst.max(excess);
                        if excess > 0.01 {
                            viol01 += 1;
                        }
                        if excess > 0.05 {
                            viol05 += 1;
                        }
                        if excess > 0.10 {
                            viol10 += 1;
                        }
                    }
                }
            }
        }
        let pairs = (n * (n - 1) / 2) as f64;
        let avg_len = items.iter().map(Vec::len).sum::<usize>() as f64 / n as f64;
        println!(
            "{label}, {}, {n} documents, mean item {avg_len:.0} bytes",
            kind.build()?.name()
        );
        println!(
            "  NCD(x,x): mean {:.4}, max {self_max:.4}",
            self_sum / n as f64
        );
        println!(
            "  |NCD(x,y) - NCD(y,x)|: mean {:.4}, max {asym_max:.4}",
            asym_sum / pairs
        );
        println!(
            "  monotonicity C(xy) < max(C(x),C(y)): {mono} of {} ordered pairs",
            n * n
        );
        println!(
            "  triangle |d(x,z)-d(y,z)| > d(x,y): {viol} of {triples} triples ({:.3}%); by > 0.01: {:.4}%, > 0.05: {:.5}%, > 0.10: {:.5}%; worst excess {worst:.4}",
            100.0 * viol as f64 / triples as f64,
            100.0 * viol01 as f64 / triples as f64,
            100.0 * viol05 as f64 / triples as f64,
            100.0 * viol10 as f64 / triples as f64,
        );
    }
    Ok(())
}
