//! The shape of Yang and Callan's experiment (SIGIR 2006, Section 6) on form-letter
//! collections generated from real text: DURIAN's constrained clustering against its
//! unsupervised baseline (the same loop without constraints) and single-link grouping
//! (connected components of the candidate pairs under the same distance threshold).
//!
//! A collection: `--campaigns` form letters (real base texts, docket `EPA` or `DOT`),
//! each submitted as 6 to 12 exact copies and 10 edited copies (the edit kinds of
//! Section 2: minor change, block added, block deleted, key block, minor change with
//! block edit, block reordering, repeated); for half of the letters a sibling letter
//! (the same text with a clause, a name or a number changed) runs its own campaign on
//! the other docket, a hard negative; and unique comments (singletons). Attributes:
//! the docket the comment cites (80% cite one, 2% of those the wrong one) and the
//! relay it came through (each campaign its own, 10% none, 3% another campaign's),
//! and the footer its mail service appended (one of three, or none, whatever the
//! campaign: a family-link that is mostly noise).
//!
//! Candidates come from MinHash LSH (128 values over word 2-grams, 64 bands of 2
//! rows); the distance is the Dirichlet-smoothed KL divergence over words (μ = 1);
//! reference copies are the earliest of each group of more than 5 exact copies.
//! Constraints: between each reference copy and its candidates (the pairs Figure 3
//! asks about), must-links where the candidate contains the reference copy's
//! paragraphs or shares more than 95% of its words, and family-links within a relay
//! or a footer;
//! between every candidate pair, cannot-links between different cited dockets;
//! groups of exact copies are must-linked. A cannot-link that contradicts a must-link (a copy citing the wrong
//! docket) is dropped: must is the stronger condition.
//!
//! Reported: cluster F1 (pairwise), macro and micro AC1 for each method at each θ;
//! F1 against the number of constraints of each type (Figure 4's shape); per-category
//! precision, recall and F1 (Table 2's layout).
//!
//! ```text
//! cargo run --release --example durian -- [--bench PATH] [--campaigns N] [--seed S] [--no-siblings]
//! ```
//!
//! Base texts come from the bundled `data/debian-copyright.jsonl`, or from the package
//! descriptions of the `../shared/bench` corpus with `--bench`; `--no-siblings` leaves
//! out the sibling letters.

mod labeled;

use std::collections::HashMap;
use std::path::PathBuf;
use std::time::Instant;

use labeled::{Res, pick_bases, read_jsonl};
use near_dup::align::TokenOptions;
use near_dup::cluster::{
    Background, Closure, ClusterOptions, Conflicts, Constraints, DEFAULT_MIN_COPIES,
    DEFAULT_MUST_OVERLAP, KlDivergence, Link, Neighbours, cluster, is_must_link, reference_copies,
};
use near_dup::eval::{
    EditKind, Labels, SiblingConfig, SynthConfig, ac1, category_scores, cluster_pairwise,
    generate_siblings, generate_variants, macro_ac1,
};
use near_dup::lsh::{LshIndex, LshParams};
use near_dup::minhash::{MinHashSignature, MinHasher};
use near_dup::shingle::WordShingler;
use near_dup::{DocSketcher, ScoredPair, SparseVector, UnionFind};
use rand::seq::{IndexedRandom, SliceRandom};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The edit kinds of Yang and Callan's Section 2: `EditKind::EDITS` from minor change
/// to repeated (without exact copies, made apart, and the spam obfuscations).
fn edits() -> &'static [EditKind] {
    &EditKind::EDITS[1..8]
}

/// One generated comment.
struct Doc {
    text: String,
    /// True group: the campaign, or a fresh label for a singleton.
    label: usize,
    category: &'static str,
    docket: Option<String>,
    relay: Option<String>,
    footer: Option<&'static str>,
    /// Submission time (the campaign's letter first).
    time: u64,
}

struct Options {
    bench: Option<PathBuf>,
    campaigns: usize,
    seed: u64,
    siblings: bool,
}

fn parse() -> Res<Options> {
    let mut o = Options {
        bench: None,
        campaigns: 40,
        seed: 1,
        siblings: true,
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut val = || args.next().ok_or(format!("{a} needs a value"));
        match a.as_str() {
            "--bench" => o.bench = Some(PathBuf::from(val()?)),
            "--campaigns" => o.campaigns = val()?.parse()?,
            "--seed" => o.seed = val()?.parse()?,
            "--no-siblings" => o.siblings = false,
            _ => return Err(format!("unknown argument {a}").into()),
        }
    }
    Ok(o)
}

/// The collection, shuffled into submission order (times are kept separately).
fn collection(o: &Options) -> Res<Vec<Doc>> {
    let (path, prefix) = match &o.bench {
        Some(p) => (p.clone(), "deb:"),
        None => (
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("data/debian-copyright.jsonl"),
            "",
        ),
    };
    let source = read_jsonl(&path)?;
    let singletons = o.campaigns * 3 / 2;
    let bases = pick_bases(&source, prefix, (40, 600), o.campaigns + singletons, o.seed)?;
    if bases.len() < o.campaigns + singletons {
        return Err(format!("only {} base texts in {}", bases.len(), path.display()).into());
    }
    let (letters, unique) = bases.split_at(o.campaigns);
    let with_sibling = if o.siblings { o.campaigns / 2 } else { 0 };
    let siblings = generate_siblings(&letters[..with_sibling], &SiblingConfig::new(o.seed))?;
    let mut rng = ChaCha8Rng::seed_from_u64(o.seed ^ 0xD0C);
    let dockets = ["EPA-OAR-2002-0056", "DOT-2003-16128"];
    // Campaign c: its letter, docket and relay.
    let mut campaigns: Vec<(String, usize)> = letters
        .iter()
        .enumerate()
        .map(|(i, t)| (t.clone(), i % 2))
        .collect();
    for s in &siblings {
        campaigns.push((s.text.clone(), 1 - s.base % 2));
    }
    let edits = SynthConfig {
        variants_per_base: 10,
        kinds: edits().iter().map(|&k| (k, 1.0)).collect(),
        ..SynthConfig::new(o.seed)
    };
    let texts: Vec<&str> = campaigns.iter().map(|c| c.0.as_str()).collect();
    let variants = generate_variants(&texts, &edits)?;
    let mut docs = Vec::new();
    let mut time = 0u64;
    let relay_of = |c: usize, rng: &mut ChaCha8Rng| -> Option<String> {
        let r: f64 = rng.random();
        if r < 0.10 {
            None
        } else if r < 0.13 {
            Some(format!("relay-{}", rng.random_range(0..campaigns.len())))
        } else {
            Some(format!("relay-{c}"))
        }
    };
    let footer_of = |rng: &mut ChaCha8Rng| -> Option<&'static str> {
        [
            None,
            None,
            Some("Sent from my iPhone"),
            Some("Yahoo! Mail"),
            Some("Get Outlook"),
        ]
        .choose(rng)
        .copied()
        .flatten()
    };
    let docket_of = |d: usize, rng: &mut ChaCha8Rng| -> Option<String> {
        if rng.random::<f64>() < 0.2 {
            return None;
        }
        let d = if rng.random::<f64>() < 0.02 { 1 - d } else { d };
        Some(dockets[d].to_string())
    };
    for (c, (letter, docket)) in campaigns.iter().enumerate() {
        let copies = rng.random_range(6..=12);
        for i in 0..=copies {
            time += 1;
            docs.push(Doc {
                text: letter.clone(),
                label: c,
                category: if i == 0 { "original" } else { "exact" },
                docket: docket_of(*docket, &mut rng),
                relay: relay_of(c, &mut rng),
                footer: footer_of(&mut rng),
                time: if i == 0 { 0 } else { time },
            });
        }
    }
    for v in variants {
        time += 1;
        let docket = campaigns[v.source].1;
        docs.push(Doc {
            text: v.text,
            label: v.source,
            category: v.kind.name(),
            docket: docket_of(docket, &mut rng),
            relay: relay_of(v.source, &mut rng),
            footer: footer_of(&mut rng),
            time,
        });
    }
    for (i, t) in unique.iter().enumerate() {
        time += 1;
        docs.push(Doc {
            text: t.clone(),
            label: campaigns.len() + i,
            category: "singleton",
            docket: Some(dockets[rng.random_range(0..2)].to_string()),
            relay: None,
            footer: footer_of(&mut rng),
            time,
        });
    }
    docs.shuffle(&mut rng);
    Ok(docs)
}

/// Candidate pairs from MinHash LSH over word 2-grams.
fn candidates(docs: &[Doc]) -> Res<Vec<ScoredPair>> {
    let hasher = MinHasher::builder()
        .num_hashes(128)
        .build_with(WordShingler::new(2)?)?;
    let texts: Vec<&str> = docs.iter().map(|d| d.text.as_str()).collect();
    let sigs: Vec<MinHashSignature> = hasher.sketch_batch(&texts);
    let mut index: LshIndex<usize, MinHashSignature> = LshIndex::new(LshParams::new(64, 2)?);
    let (mut found, mut pairs) = (Vec::new(), Vec::new());
    for (i, s) in sigs.iter().enumerate() {
        found.clear();
        index.query_then_insert(i, s, &mut found)?;
        pairs.extend(found.iter().map(|&j| ScoredPair::candidate(j, i)));
    }
    Ok(pairs)
}

/// Groups of exact copies (same token sequence).
fn exact_groups(docs: &[Doc], tokens: &TokenOptions) -> Vec<Vec<usize>> {
    let mut by_text: HashMap<Vec<u64>, Vec<usize>> = HashMap::new();
    for (i, d) in docs.iter().enumerate() {
        by_text.entry(tokens.hashes(&d.text)).or_default().push(i);
    }
    let mut groups: Vec<Vec<usize>> = by_text.into_values().filter(|g| g.len() > 1).collect();
    groups.sort();
    groups
}

/// All constraints over the candidate pairs, by type (exact-copy must-links apart).
struct AllLinks {
    must: Vec<(usize, usize)>,
    cannot: Vec<(usize, usize)>,
    /// From the relay.
    family: Vec<(usize, usize)>,
    /// From the mail footer (kept apart: shared across campaigns).
    footer: Vec<(usize, usize)>,
    exact: Vec<(usize, usize)>,
}

fn all_links(
    docs: &[Doc],
    nb: &Neighbours,
    refs: &[usize],
    groups: &[Vec<usize>],
    tokens: &TokenOptions,
) -> Res<AllLinks> {
    let n = docs.len();
    let mut c = Constraints::new(n);
    // The pairs Figure 3 consults: a reference copy and each of its candidates.
    let pairs: Vec<(usize, usize)> = refs
        .iter()
        .flat_map(|&r| nb.of(r).iter().map(move |&s| (r, s)))
        .collect();
    let toks: Vec<_> = docs.iter().map(|d| tokens.tokens(&d.text)).collect();
    let dockets: Vec<Option<&str>> = docs.iter().map(|d| d.docket.as_deref()).collect();
    // Not across dockets: the same letter sent on two dockets is two campaigns.
    let other_docket =
        |a: usize, b: usize| matches!((dockets[a], dockets[b]), (Some(x), Some(y)) if x != y);
    c.add_where(Link::Must, pairs.iter().copied(), |r, s| {
        !other_docket(r, s) && is_must_link(&toks[r], &toks[s], DEFAULT_MUST_OVERLAP)
    })?;
    let relays: Vec<Option<&str>> = docs.iter().map(|d| d.relay.as_deref()).collect();
    // Cannot-links are a comparison of two values: cheap on every candidate pair.
    c.cannot_if_different(
        (0..n).flat_map(|a| {
            nb.of(a)
                .iter()
                .filter(move |&&b| a < b)
                .map(move |&b| (a, b))
        }),
        &dockets,
    )?;
    c.family_if_same(pairs.iter().copied(), &relays)?;
    let footers: Vec<Option<&str>> = docs.iter().map(|d| d.footer).collect();
    let mut by_footer = Constraints::new(n);
    by_footer.family_if_same(pairs.iter().copied(), &footers)?;
    let of = |l: Link| -> Vec<(usize, usize)> {
        c.links()
            .iter()
            .filter(|x| x.0 == l)
            .map(|x| (x.1, x.2))
            .collect()
    };
    let mut exact = Vec::new();
    for g in groups {
        exact.extend(g[1..].iter().map(|&d| (g[0], d)));
    }
    Ok(AllLinks {
        must: of(Link::Must),
        cannot: of(Link::Cannot),
        family: of(Link::Family),
        footer: by_footer.links().iter().map(|x| (x.1, x.2)).collect(),
        exact,
    })
}

/// Connected components of the candidate pairs closer than `theta`.
fn single_link(n: usize, pairs: &[ScoredPair], dist: &[f64], theta: f64) -> Labels {
    let mut uf = UnionFind::new(n);
    for (p, &d) in pairs.iter().zip(dist) {
        if d < theta {
            uf.union(p.a, p.b);
        }
    }
    Labels::new(&uf.labels())
}

struct Scores {
    f1: f64,
    macro_ac1: f64,
    micro_ac1: f64,
}

fn scores(truth: &Labels, predicted: &Labels) -> Res<Scores> {
    Ok(Scores {
        f1: cluster_pairwise(truth, predicted)?.f1(),
        macro_ac1: macro_ac1(truth, predicted)?,
        micro_ac1: ac1(truth, predicted)?,
    })
}

fn main() -> Res<()> {
    let o = parse()?;
    let t0 = Instant::now();
    let docs = collection(&o)?;
    let n = docs.len();
    let truth = Labels::new(&docs.iter().map(|d| d.label).collect::<Vec<_>>());
    let tokens = TokenOptions::default();
    let words = WordShingler::new(1)?;
    let counts: Vec<SparseVector> = docs.iter().map(|d| words.counts(&d.text)).collect();
    let background = Background::from_documents(&counts);
    let kl = KlDivergence::new(&background, 1.0)?;
    let pairs = candidates(&docs)?;
    let nb = Neighbours::from_pairs(n, pairs.iter().copied())?;
    let dist: Vec<f64> = pairs
        .iter()
        .map(|p| kl.distance(&counts[p.a], &counts[p.b]))
        .collect();
    let groups = exact_groups(&docs, &tokens);
    let refs: Vec<usize> = reference_copies(&groups, DEFAULT_MIN_COPIES, |d| (docs[d].time, d))
        .iter()
        .map(|r| r.document)
        .collect();
    let links = all_links(&docs, &nb, &refs, &groups, &tokens)?;
    let closure_with = |must: &[(usize, usize)],
                        cannot: &[(usize, usize)],
                        family: &[(usize, usize)],
                        policy: Conflicts|
     -> Res<Closure> {
        let mut c = Constraints::new(n);
        // Exact copies first: with must-links dropped on conflict, the order given is
        // the order of trust.
        for (l, list) in [
            (Link::Must, &links.exact[..]),
            (Link::Must, must),
            (Link::Cannot, cannot),
            (Link::Family, family),
        ] {
            for &(a, b) in list {
                c.add(l, a, b)?;
            }
        }
        Ok(c.close_with(policy)?.0)
    };
    let closure_of =
        |must: &[(usize, usize)], cannot: &[(usize, usize)], family: &[(usize, usize)]| {
            closure_with(must, cannot, family, Conflicts::DropMust)
        };
    let all = closure_of(&links.must, &links.cannot, &links.family)?;
    let distance = |a: usize, b: usize| kl.distance(&counts[a], &counts[b]);
    let run = |closure: &Closure, theta: f64| -> Res<Labels> {
        let c = cluster(&refs, &nb, closure, &ClusterOptions::new(theta)?, distance)?;
        Ok(Labels::new(c.assignments()))
    };

    println!("# durian (seed {}, {} campaigns)\n", o.seed, o.campaigns);
    println!(
        "{n} documents in {} true groups ({} true pairs); {} candidate pairs; {} reference \
         copies; constraints over candidate pairs: {} must, {} cannot, {} family, plus {} \
         exact-copy must-links ({} footer family-links kept apart); the closure holds {} must classes and {} cannot-linked \
         class pairs; candidates hold {:.3} of the true pairs.\n",
        truth.num_clusters(),
        truth.true_pairs(),
        pairs.len(),
        refs.len(),
        links.must.len(),
        links.cannot.len(),
        links.family.len(),
        links.exact.len(),
        links.footer.len(),
        all.num_classes(),
        all.num_cannot_pairs(),
        pairs
            .iter()
            .filter(|p| truth.same_cluster(p.a, p.b) == Some(true))
            .count() as f64
            / truth.true_pairs().max(1) as f64,
    );

    println!("## Cluster F1, macro AC1, micro AC1 by threshold θ\n");
    println!("| θ | single-link | baseline (no constraints) | constrained (all) |");
    println!("| ---: | --- | --- | --- |");
    let none = Closure::none(n);
    let mut best = [(0.0f64, 0.0f64); 3];
    for theta in [0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 2.0, 2.5, 3.0, 4.0] {
        let methods = [
            single_link(n, &pairs, &dist, theta),
            run(&none, theta)?,
            run(&all, theta)?,
        ];
        let mut cells = Vec::new();
        for (i, m) in methods.iter().enumerate() {
            let s = scores(&truth, m)?;
            if s.f1 > best[i].0 {
                best[i] = (s.f1, theta);
            }
            cells.push(format!(
                "{:.3} / {:.3} / {:.3}",
                s.f1, s.macro_ac1, s.micro_ac1
            ));
        }
        println!("| {theta} | {} |", cells.join(" | "));
    }
    println!(
        "\nBest F1: single-link {:.3} at θ {}, baseline {:.3} at θ {}, constrained {:.3} at θ {}.\n",
        best[0].0, best[0].1, best[1].0, best[1].1, best[2].0, best[2].1
    );

    let theta = ClusterOptions::default().theta();
    println!("## Constraint sets and conflict policies (θ = {theta})\n");
    println!("| constraints | F1 | macro AC1 | micro AC1 |");
    println!("| --- | ---: | ---: | ---: |");
    let with_footer: Vec<(usize, usize)> =
        links.family.iter().chain(&links.footer).copied().collect();
    for (name, family, policy) in [
        (
            "all (relay family-links), drop the must-link on conflict",
            &links.family,
            Conflicts::DropMust,
        ),
        (
            "all, drop the cannot-link on conflict",
            &links.family,
            Conflicts::DropCannot,
        ),
        (
            "all, plus footer family-links",
            &with_footer,
            Conflicts::DropMust,
        ),
    ] {
        let cl = closure_with(&links.must, &links.cannot, family, policy)?;
        let s = scores(&truth, &run(&cl, theta)?)?;
        println!(
            "| {name} | {:.3} | {:.3} | {:.3} |",
            s.f1, s.macro_ac1, s.micro_ac1
        );
    }
    println!();
    println!("## F1 against the number of constraints (θ = {theta}; Figure 4's shape)\n");
    println!(
        "Each row draws the same share of each type's constraints at random (counts: must / \
         cannot / family); the exact-copy must-links are always in.\n"
    );
    println!("| constraints drawn | must | cannot | family | all three |");
    println!("| ---: | ---: | ---: | ---: | ---: |");
    let mut rng = ChaCha8Rng::seed_from_u64(o.seed ^ 0xF16);
    let sample = |list: &[(usize, usize)], k: usize, rng: &mut ChaCha8Rng| -> Vec<(usize, usize)> {
        list.choose_multiple(rng, k.min(list.len()))
            .copied()
            .collect()
    };
    for per_mille in [0usize, 10, 20, 50, 100, 250, 500, 1000] {
        let k = |list: &[(usize, usize)]| (list.len() * per_mille).div_ceil(1000);
        let m = sample(&links.must, k(&links.must), &mut rng);
        let c = sample(&links.cannot, k(&links.cannot), &mut rng);
        let f = sample(&links.family, k(&links.family), &mut rng);
        let cells = [
            closure_of(&m, &[], &[])?,
            closure_of(&[], &c, &[])?,
            closure_of(&[], &[], &f)?,
            closure_of(&m, &c, &f)?,
        ]
        .iter()
        .map(|cl| Ok(format!("{:.3}", scores(&truth, &run(cl, theta)?)?.f1)))
        .collect::<Res<Vec<_>>>()?;
        println!(
            "| {}% ({} / {} / {}) | {} |",
            per_mille as f64 / 10.0,
            m.len(),
            c.len(),
            f.len(),
            cells.join(" | ")
        );
    }

    println!("\n## Per category at θ = {theta} (Table 2's layout: precision / recall / F1)\n");
    let methods = [
        ("single-link", single_link(n, &pairs, &dist, theta)),
        ("baseline", run(&none, theta)?),
        ("constrained", run(&all, theta)?),
    ];
    let categories: Vec<&str> = docs.iter().map(|d| d.category).collect();
    println!(
        "| category | documents | {} |",
        methods.each_ref().map(|m| m.0).join(" | ")
    );
    println!("| --- | ---: | --- | --- | --- |");
    let per: Vec<_> = methods
        .iter()
        .map(|(_, l)| category_scores(&truth, l, &categories))
        .collect::<Result<_, _>>()?;
    for (i, s) in per[0].iter().enumerate() {
        let cells: Vec<String> = per
            .iter()
            .map(|p| {
                let x = &p[i];
                format!("{:.2} / {:.2} / {:.2}", x.precision, x.recall, x.f1)
            })
            .collect();
        println!(
            "| {} | {} | {} |",
            s.category,
            s.documents,
            cells.join(" | ")
        );
    }
    println!("\n(total {:.1?})", t0.elapsed());
    Ok(())
}
