//! Draws the user guide's figures into `docs/guide/src/img/`:
//!
//! * `s-curve.svg`: the probability that a pair becomes a MinHash + LSH candidate
//!   against its Jaccard similarity, for the default banding (99% recall at the
//!   threshold, 128 values) at thresholds 0.5, 0.7, 0.8 and 0.9.
//! * `precision-recall.svg`: pairwise precision and recall of the groups that
//!   `ndd_pipeline::Dedup` forms, against the threshold, on a labeled set generated
//!   from the bundled real corpus (near-duplicate variants of real documents, and
//!   sibling documents that differ in one clause, name, number or short paragraph as
//!   hard negatives), for the default MinHash method and for exact Jaccard.
//!
//! ```text
//! cargo run --release -p guide-plots      # from the repository root
//! ```
//!
//! It prints the numbers it plots, which the guide quotes.

use std::error::Error;
use std::path::{Path, PathBuf};

use ndd_eval::{
    Labels, SiblingConfig, SynthConfig, cluster_pairwise, generate_corpus, generate_siblings,
};
use ndd_pipeline::{Dedup, Document, Method, MinHashConfig};
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;

type Res<T> = Result<T, Box<dyn Error>>;

/// Points `(threshold, value)` of one curve.
type Curve = Vec<(f64, f64)>;

/// The repository root: the nearest ancestor of this crate with `data/`.
fn root() -> Res<PathBuf> {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .find(|d| d.join("data/debian-copyright.jsonl").is_file())
        .map(Path::to_path_buf)
        .ok_or_else(|| "no data/debian-copyright.jsonl above the crate".into())
}

/// The bundled corpus's texts that share less than half of their word 3-grams with
/// an earlier one (real documents that are not already near-duplicates), at most `n`.
fn bases(root: &Path, n: usize) -> Res<Vec<String>> {
    let text = std::fs::read_to_string(root.join("data/debian-copyright.jsonl"))?;
    let pool: Vec<String> = text
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter_map(|v| v.get("text").and_then(|t| t.as_str()).map(str::to_owned))
        .filter(|t| t.split_whitespace().count() >= 40)
        .collect();
    Ok(ndd_eval::distinct_texts(
        &pool,
        &*ndd_shingle_word3()?,
        0.5,
        n,
    )?)
}

/// Word 3-grams, the pipeline's default shingles.
fn ndd_shingle_word3() -> Res<Box<dyn ndd_core::DynFeatureExtractor + Send + Sync>> {
    Ok(ndd_pipeline::Shingles::Words(3).extractor_with(false)?)
}

/// A labeled set: documents and their true groups; with `siblings`, half of the
/// bases also get a sibling (a hard negative) with variants of its own.
fn labeled_set(root: &Path, siblings: bool) -> Res<(Vec<Document>, Labels)> {
    let bases = bases(root, 160)?;
    let mut texts = bases.clone();
    if siblings {
        let sibs = generate_siblings(&bases[..bases.len() / 2], &SiblingConfig::new(0x5151))?;
        texts.extend(sibs.into_iter().map(|s| s.text));
    }
    let corpus = generate_corpus(
        &texts,
        &SynthConfig {
            variants_per_base: 4,
            ..SynthConfig::new(7)
        },
    )?;
    let docs = corpus
        .docs
        .iter()
        .enumerate()
        .map(|(i, d)| Document::new(i.to_string(), d.text.clone()))
        .collect();
    Ok((docs, corpus.labels))
}

/// The frame every plot of the guide shares: a 720 × 440 SVG with a caption, the axes
/// (range and description) and the legend's corner.
struct Chart {
    caption: &'static str,
    x: (std::ops::Range<f64>, &'static str),
    y: (std::ops::Range<f64>, &'static str),
    legend: SeriesLabelPosition,
}

impl Chart {
    /// Draws the frame into `path`, the series through `draw`, then the legend.
    fn plot(
        self,
        path: &Path,
        draw: impl FnOnce(
            &mut ChartContext<'_, SVGBackend<'_>, Cartesian2d<RangedCoordf64, RangedCoordf64>>,
        ) -> Res<()>,
    ) -> Res<()> {
        let root = SVGBackend::new(path, (720, 440)).into_drawing_area();
        root.fill(&WHITE)?;
        let mut chart = ChartBuilder::on(&root)
            .caption(self.caption, ("sans-serif", 17))
            .margin(12)
            .x_label_area_size(44)
            .y_label_area_size(56)
            .build_cartesian_2d(self.x.0, self.y.0)?;
        chart
            .configure_mesh()
            .x_desc(self.x.1)
            .y_desc(self.y.1)
            .draw()?;
        draw(&mut chart)?;
        chart
            .configure_series_labels()
            .position(self.legend)
            .background_style(WHITE.mix(0.9))
            .border_style(BLACK)
            .draw()?;
        root.present()?;
        Ok(())
    }
}

fn s_curve(path: &Path) -> Res<()> {
    let chart = Chart {
        caption: "Probability that a pair becomes a candidate (128 MinHash values, default banding)",
        x: (
            0f64..1f64,
            "Jaccard similarity of the two documents' word 3-gram sets",
        ),
        y: (0f64..1f64, "P(candidate)"),
        legend: SeriesLabelPosition::UpperLeft,
    };
    chart.plot(path, |chart| {
        let colors = [BLUE, GREEN, RED, MAGENTA];
        println!("S-curve (128 values, recall banding):");
        for (t, color) in [0.5, 0.7, 0.8, 0.9].into_iter().zip(colors) {
            let p = MinHashConfig::default().lsh_params(t)?;
            println!(
                "  threshold {t}: {} bands x {} rows; P at 0.3 = {:.4}, at t = {:.4}",
                p.bands(),
                p.rows(),
                p.probability(0.3),
                p.probability(t)
            );
            let label = format!("threshold {t}: {} bands × {} rows", p.bands(), p.rows());
            chart
                .draw_series(LineSeries::new(
                    (0..=200).map(|i| {
                        let s = f64::from(i) / 200.0;
                        (s, p.probability(s))
                    }),
                    color.stroke_width(2),
                ))?
                .label(label)
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
                });
            chart.draw_series(std::iter::once(PathElement::new(
                vec![(t, 0.0), (t, 1.0)],
                color.mix(0.35),
            )))?;
        }
        Ok(())
    })
}

/// Pairwise precision and recall of the groups `method` forms at each threshold.
fn sweep(
    name: &str,
    method: &Method,
    docs: &[Document],
    truth: &Labels,
    thresholds: &[f64],
) -> Res<(Curve, Curve)> {
    let mut p = Vec::new();
    let mut r = Vec::new();
    for &t in thresholds {
        let out = Dedup::new().method(method.clone()).threshold(t).run(docs)?;
        let c = cluster_pairwise(truth, &Labels::new(&out.labels()))?;
        println!(
            "  {name}, threshold {t:.2}: precision {:.3}, recall {:.3}, F1 {:.3}",
            c.precision(),
            c.recall(),
            c.f1()
        );
        p.push((t, c.precision()));
        r.push((t, c.recall()));
    }
    Ok((p, r))
}

fn precision_recall(path: &Path, root_dir: &Path) -> Res<()> {
    let thresholds: Vec<f64> = (10..=19).map(|i| f64::from(i) * 0.05).collect();
    let minhash = Method::MinHash(MinHashConfig::default());
    let mut curves = Vec::new();
    for (name, siblings) in [("with hard negatives", true), ("variants only", false)] {
        let (docs, truth) = labeled_set(root_dir, siblings)?;
        println!(
            "{name}: {} documents, {} true pairs",
            docs.len(),
            truth.true_pairs()
        );
        let (p, r) = sweep(
            &format!("minhash, {name}"),
            &minhash,
            &docs,
            &truth,
            &thresholds,
        )?;
        if siblings {
            // The reference: exact Jaccard over all pairs, for the same labeled set.
            sweep(
                "exact Jaccard, with hard negatives",
                &Method::ExactJaccard,
                &docs,
                &truth,
                &thresholds,
            )?;
        }
        curves.push((name, p, r));
    }
    let chart = Chart {
        caption: "Groups against a labeled set from the bundled corpus (hard negatives included)",
        x: (0.48f64..0.97f64, "--threshold"),
        y: (0f64..1.02f64, "pairwise precision / recall"),
        legend: SeriesLabelPosition::LowerLeft,
    };
    chart.plot(path, |chart| {
        let styles = [(BLUE.mix(1.0), RED.mix(1.0)), (BLUE.mix(0.4), RED.mix(0.4))];
        for ((name, p, r), (pc, rc)) in curves.into_iter().zip(styles) {
            let name = format!("minhash, {name}");
            for (series, color, what) in [(p, pc, "precision"), (r, rc, "recall")] {
                chart
                    .draw_series(LineSeries::new(series.clone(), color.stroke_width(2)))?
                    .label(format!("{what}: {name}"))
                    .legend(move |(x, y)| {
                        PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
                    });
                chart.draw_series(
                    series
                        .into_iter()
                        .map(|pt| Circle::new(pt, 3, color.filled())),
                )?;
            }
        }
        Ok(())
    })
}

fn main() -> Res<()> {
    let root = root()?;
    let img = root.join("docs/guide/src/img");
    std::fs::create_dir_all(&img)?;
    s_curve(&img.join("s-curve.svg"))?;
    precision_recall(&img.join("precision-recall.svg"), &root)?;
    println!("wrote {}", img.display());
    Ok(())
}
