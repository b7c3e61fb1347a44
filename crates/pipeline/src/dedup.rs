//! [`Dedup`]: the one-call pipeline, documents in, groups out.

use std::sync::Arc;
use std::time::Instant;

use ndd_core::ScoredPair;

use ndd_core::Threshold;

use crate::candidates::Ctx;
use crate::progress::{NoProgress, Progress, Stage};
use crate::report::{Outcome, Report};
use crate::{
    DEFAULT_THRESHOLD, DocDigest, Document, Error, ExactDuplicates, ExactPass, Features,
    GroupMethod, Grouping, Method, Plan, Representative, Shingles, Verifier,
};

/// The whole pipeline in one call: the exact-duplicate pass, candidate generation
/// with a [`Method`], verification, grouping with a [`Representative`] policy.
///
/// Each stage is also a type of its own ([`ExactPass`], [`CandidateGenerator`](crate::CandidateGenerator),
/// [`Verification`](crate::Verification), [`Grouping`]) for callers who compose them differently.
///
/// Defaults: exact copies removed first; MinHash with 128 values over word 3-grams,
/// banding chosen for 99% recall at the threshold 0.8, candidates verified by exact
/// Jaccard; the first-seen document of each group kept. Each default and the
/// measurement behind it is in `docs/decisions.md`.
///
/// Cost: linear in the corpus for sketching and the exact pass; candidate generation
/// and verification grow with the number of near-duplicate pairs, which the threshold
/// bounds. Memory: the documents, plus per document one signature while the method
/// runs (1 KiB for 128 MinHash values) and its index entries (about 200 bytes).
///
/// # Example
///
/// ```
/// use near_dup::pipeline::{Dedup, Document};
/// let docs = vec![
///     Document::new("a", "Permission is hereby granted, free of charge, to any person obtaining a copy of this software"),
///     Document::new("b", "Permission is hereby granted, free of charge, to any person obtaining a copy of this software."),
///     Document::new("c", "This program is free software; you can redistribute it and/or modify it"),
/// ];
/// let out = Dedup::new().threshold(0.8).run(&docs)?;
/// assert_eq!(out.groups.len(), 1);
/// assert_eq!(out.groups[0].members, vec![0, 1]);
/// assert_eq!(out.kept(), vec![0, 2]);
/// # Ok::<(), near_dup::pipeline::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Dedup {
    method: Method,
    threshold: f64,
    features: Features,
    exact: Option<ExactPass>,
    verifier: Option<Verifier>,
    representative: Representative,
    group: GroupMethod,
    progress: Arc<dyn Progress>,
}

impl Default for Dedup {
    fn default() -> Self {
        Dedup {
            method: Method::default(),
            threshold: DEFAULT_THRESHOLD,
            features: Features::default(),
            exact: Some(ExactPass::new()),
            verifier: None,
            representative: Representative::default(),
            group: GroupMethod::default(),
            progress: Arc::new(NoProgress),
        }
    }
}

impl Dedup {
    /// The pipeline with its defaults.
    ///
    /// # Example
    ///
    /// ```
    /// let out = near_dup::pipeline::Dedup::new().run_texts(&["a b c d", "a b c d"])?;
    /// assert_eq!(out.groups.len(), 1);
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// The method that proposes and scores pairs.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{Dedup, Method};
    /// let d = Dedup::new().method(Method::ExactJaccard);
    /// assert_eq!(d.method_config().name(), "exact");
    /// ```
    #[must_use]
    pub fn method(mut self, method: Method) -> Self {
        self.method = method;
        self
    }

    /// The similarity threshold `T` in `(0, 1]` (0.8 by default): a pair counts when
    /// its score reaches it. For Jaccard, 0.8 means 80% of the two documents'
    /// distinct shingles are shared. SimHash and I-Match decide by their own rule and
    /// use `T` only through an exact verifier.
    ///
    /// # Example
    ///
    /// ```
    /// let d = near_dup::pipeline::Dedup::new().threshold(0.9);
    /// assert_eq!(d.threshold_value(), 0.9);
    /// assert!(near_dup::pipeline::Dedup::new().threshold(0.0).run_texts(&["x"]).is_err());
    /// ```
    #[must_use]
    pub fn threshold(mut self, threshold: f64) -> Self {
        self.threshold = threshold;
        self
    }

    /// The features sketched and verified.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{Dedup, Shingles};
    /// let d = Dedup::new().shingles(Shingles::Chars(5));
    /// assert_eq!(d.shingles_config(), Shingles::Chars(5));
    /// ```
    #[must_use]
    pub fn shingles(mut self, shingles: Shingles) -> Self {
        self.features = self.features.with_shingles(shingles);
        self
    }

    /// The features sketched and verified, with their normalization, as one value
    /// (what [`shingles`](Self::shingles) and [`nfkc`](Self::nfkc) set).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{Dedup, Features, Shingles};
    /// let d = Dedup::new().features(Features::new(Shingles::Words(5)).nfkc(true));
    /// assert_eq!(d.shingles_config(), Shingles::Words(5));
    /// assert!(d.normalizes_nfkc());
    /// ```
    #[must_use]
    pub fn features(mut self, features: Features) -> Self {
        self.features = features;
        self
    }

    /// Whether the exact-duplicate pass runs first (on by default; off reproduces
    /// every pair between exact copies instead of one per copy).
    ///
    /// # Example
    ///
    /// ```
    /// let texts = ["one two three four", "One two three four!"];
    /// let with = near_dup::pipeline::Dedup::new().run_texts(&texts)?;
    /// let without = near_dup::pipeline::Dedup::new().exact_pass(false).run_texts(&texts)?;
    /// assert_eq!((with.report.exact_copies, without.report.exact_copies), (1, 0));
    /// assert_eq!(with.groups, without.groups);
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    #[must_use]
    pub fn exact_pass(mut self, on: bool) -> Self {
        self.exact = on.then(ExactPass::new);
        self
    }

    /// The exact-duplicate pass to run first, configured.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{Dedup, ExactPass};
    /// let d = Dedup::new().exact_pass_with(ExactPass::new().fold_case(false));
    /// assert_eq!(d.exact_config(), Some(ExactPass::new().fold_case(false)));
    /// ```
    #[must_use]
    pub fn exact_pass_with(mut self, pass: ExactPass) -> Self {
        self.exact = Some(pass);
        self
    }

    /// How candidates are verified. By default: exact Jaccard of the shingle sets for
    /// MinHash (its banding proposes the pairs of similarity `T` with 99%
    /// probability, and exact verification keeps that recall: 0.996 to 0.999 of the
    /// exact pairs against 0.83 to 0.96 when the estimate decides, measured in
    /// `docs/decisions.md`), the method's own rule for the others (the exact join and
    /// SigNCD are exact already; SimHash and I-Match decide by a bound or a shared
    /// signature).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{Dedup, Verifier};
    /// let d = Dedup::new().verifier(Verifier::Containment);
    /// assert_eq!(d.verifier_config().name(), "containment");
    /// ```
    #[must_use]
    pub fn verifier(mut self, verifier: Verifier) -> Self {
        self.verifier = Some(verifier);
        self
    }

    /// Which document of a group is kept.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{Dedup, Representative};
    /// let out = Dedup::new()
    ///     .representative(Representative::Longest)
    ///     .run_texts(&["a b c d e", "a b c d e."])?;
    /// assert_eq!(out.groups[0].representative, 1);
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    #[must_use]
    pub fn representative(mut self, representative: Representative) -> Self {
        self.representative = representative;
        self
    }

    /// How pairs become groups ([`GroupMethod::Components`] by default: connected
    /// components of the verified pairs). [`GroupMethod::Center`] never chains: every
    /// member is verified similar to the document kept. [`GroupMethod::Linkage`]
    /// chains only through pairs at least 0.9 similar and joins groups by weaker
    /// pairs by average linkage. [`GroupMethod::Durian`]
    /// clusters over every candidate pair instead, and a member stays in its group
    /// only when verified similar to the kept document at the threshold
    /// ([`DurianGrouping::honour_threshold`](crate::DurianGrouping::honour_threshold)).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{Dedup, DurianGrouping, GroupMethod};
    /// let letter = "Please protect the river from mercury. Our families fish there every summer.";
    /// let texts = [letter, letter, letter, letter, letter, letter, "Please protect the river from mercury. Our families fish there every summer, and swim."];
    /// let out = Dedup::new().group(GroupMethod::Durian(DurianGrouping::new())).run_texts(&texts)?;
    /// assert_eq!(out.groups[0].members, (0..7).collect::<Vec<_>>());
    /// assert_eq!(out.groups[0].copies, Some(6));
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    #[must_use]
    pub fn group(mut self, group: GroupMethod) -> Self {
        self.group = group;
        self
    }

    /// The grouping configured.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::pipeline::Dedup::new().group_config().name(), "components");
    /// ```
    #[must_use]
    pub fn group_config(&self) -> &GroupMethod {
        &self.group
    }

    /// Whether text is normalized to Unicode NFKC in every stage (the exact pass's
    /// document string, the shingles sketched and verified); off by default. Turn it
    /// on for text with full-width letters, ligatures or other compatibility forms
    /// (common in Chinese, Japanese and Korean text and in PDF extractions), which
    /// otherwise split true duplicates. ASCII text costs one quick check per token.
    ///
    /// # Example
    ///
    /// ```
    /// let texts = ["Ｔｈｅ ｆｉｎａｌ ｒｅｐｏｒｔ ｏｆ ｔｈｅ ｂｏａｒｄ", "The final report of the board"];
    /// let plain = near_dup::pipeline::Dedup::new().run_texts(&texts)?;
    /// let folded = near_dup::pipeline::Dedup::new().nfkc(true).run_texts(&texts)?;
    /// assert_eq!((plain.groups.len(), folded.groups.len()), (0, 1));
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    #[must_use]
    pub fn nfkc(mut self, nfkc: bool) -> Self {
        self.features = self.features.nfkc(nfkc);
        self
    }

    /// Whether NFKC normalization is on.
    ///
    /// # Example
    ///
    /// ```
    /// assert!(!near_dup::pipeline::Dedup::new().normalizes_nfkc());
    /// ```
    #[must_use]
    pub fn normalizes_nfkc(&self) -> bool {
        self.features.normalizes_nfkc()
    }

    /// Where progress goes (nowhere by default).
    ///
    /// # Example
    ///
    /// ```
    /// use std::sync::Arc;
    /// use near_dup::pipeline::{Dedup, NoProgress};
    /// let d = Dedup::new().progress(Arc::new(NoProgress));
    /// assert!(d.run_texts(&["x y"]).is_ok());
    /// ```
    #[must_use]
    pub fn progress(mut self, progress: Arc<dyn Progress>) -> Self {
        self.progress = progress;
        self
    }

    /// The method configured.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::pipeline::Dedup::new().method_config().name(), "minhash");
    /// ```
    #[must_use]
    pub fn method_config(&self) -> &Method {
        &self.method
    }

    /// The threshold configured.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::pipeline::Dedup::new().threshold_value(), near_dup::pipeline::DEFAULT_THRESHOLD);
    /// ```
    #[must_use]
    pub fn threshold_value(&self) -> f64 {
        self.threshold
    }

    /// Whether documents are compared in NFKC form.
    ///
    /// # Example
    ///
    /// ```
    /// assert!(near_dup::pipeline::Dedup::new().nfkc(true).nfkc_value());
    /// ```
    #[must_use]
    pub fn nfkc_value(&self) -> bool {
        self.features.normalizes_nfkc()
    }

    /// The shingles configured.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::pipeline::Dedup::new().shingles_config(), near_dup::pipeline::Shingles::Words(3));
    /// ```
    #[must_use]
    pub fn shingles_config(&self) -> Shingles {
        self.features.shingles()
    }

    /// The exact pass configured, if on.
    ///
    /// # Example
    ///
    /// ```
    /// assert!(near_dup::pipeline::Dedup::new().exact_config().is_some());
    /// assert!(near_dup::pipeline::Dedup::new().exact_pass(false).exact_config().is_none());
    /// ```
    #[must_use]
    pub fn exact_config(&self) -> Option<ExactPass> {
        self.exact.map(|p| p.nfkc(self.features.normalizes_nfkc()))
    }

    /// The verifier in force: the one set, or the method's default.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{Dedup, Method, Verifier};
    /// assert_eq!(Dedup::new().verifier_config().name(), "jaccard"); // MinHash's default
    /// let simhash = Dedup::new().method("simhash".parse()?);
    /// assert_eq!(simhash.verifier_config().name(), "method");
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn verifier_config(&self) -> Verifier {
        self.verifier.clone().unwrap_or_else(|| match &self.method {
            #[cfg(feature = "minhash")]
            // Set Jaccard would ignore learned weights: their estimate verifies.
            Method::MinHash(c) if !c.weighting.is_learned() => Verifier::ExactJaccard,
            _ => Verifier::MethodScore,
        })
    }

    /// The verifier set with [`verifier`](Self::verifier), if any.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{Dedup, Verifier};
    /// assert!(Dedup::new().explicit_verifier().is_none());
    /// assert!(Dedup::new().verifier(Verifier::MethodScore).explicit_verifier().is_some());
    /// ```
    #[must_use]
    pub fn explicit_verifier(&self) -> Option<&Verifier> {
        self.verifier.as_ref()
    }

    /// The representative policy configured.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{Dedup, Representative};
    /// assert_eq!(*Dedup::new().representative_config(), Representative::FirstSeen);
    /// ```
    #[must_use]
    pub fn representative_config(&self) -> &Representative {
        &self.representative
    }

    /// The run described once and checked once: what [`run`](Self::run) and every
    /// other engine ([`DedupIndex`](crate::DedupIndex), [`BloomDedup`](crate::BloomDedup),
    /// [`OutOfCore`](crate::OutOfCore)) work from. A program that checks its settings
    /// before it reads its input keeps the plan and runs it ([`Plan::run`]).
    ///
    /// # Errors
    ///
    /// As [`run`](Self::run) for invalid parameters.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{Dedup, Method};
    /// let plan = Dedup::new().method(Method::ExactJaccard).threshold(0.7).plan()?;
    /// assert_eq!((plan.method().name(), plan.threshold().get()), ("exact", 0.7));
    /// assert!(Dedup::new().threshold(1.5).plan().is_err());
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    pub fn plan(&self) -> Result<Plan, Error> {
        let threshold = Threshold::new(self.threshold)?;
        match &self.group {
            GroupMethod::Durian(d) => d.validate()?,
            GroupMethod::Center if matches!(self.representative, Representative::Custom(_)) => {
                return Err(Error::Core(ndd_core::Error::invalid_parameter(
                    "representative",
                    "center grouping ranks documents by first, smallest-id, longest or order; \
                     a custom function chooses within a group and ranks none",
                )));
            }
            GroupMethod::Linkage(l) => l.validate()?,
            GroupMethod::Components | GroupMethod::Center => {}
        }
        let banding = crate::candidates::validate_method(&self.method, self.features, threshold)?;
        Ok(Plan {
            features: self.features,
            threshold,
            banding,
            method: Plan::resolve_bucket_scan(self.method.clone()),
            verifier: self.verifier_config(),
            verifier_set: self.verifier.is_some(),
            exact: self.exact_config(),
            group: self.group.clone(),
            representative: self.representative.clone(),
        })
    }

    /// Checks every parameter without reading any document (what [`run`](Self::run)
    /// checks first), so a program can refuse bad settings before it loads a corpus.
    ///
    /// # Errors
    ///
    /// As [`run`](Self::run) for invalid parameters.
    ///
    /// # Example
    ///
    /// ```
    /// assert!(near_dup::pipeline::Dedup::new().validate().is_ok());
    /// assert!(near_dup::pipeline::Dedup::new().threshold(2.0).validate().is_err());
    /// ```
    pub fn validate(&self) -> Result<(), Error> {
        self.plan().map(drop)
    }

    /// Runs the pipeline on texts alone (ids are their positions).
    ///
    /// # Errors
    ///
    /// As [`run`](Self::run).
    ///
    /// # Example
    ///
    /// ```
    /// let out = near_dup::pipeline::Dedup::new().run_texts(&["a b c d e f", "a b c d e f", "x"])?;
    /// assert_eq!(out.dropped(), vec![1]);
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    pub fn run_texts<D: AsRef<str>>(&self, texts: &[D]) -> Result<Outcome, Error> {
        let docs: Vec<Document> = texts
            .iter()
            .enumerate()
            .map(|(i, t)| Document::new(i.to_string(), t.as_ref()))
            .collect();
        self.run(&docs)
    }

    /// Runs every stage over `docs`.
    ///
    /// An empty input gives an empty outcome.
    ///
    /// # Errors
    ///
    /// [`Error::Core`] for invalid parameters (threshold outside `(0, 1]`, shingle
    /// length 0 or above 1024, bands × rows above the sketch, ...), more than 2^32
    /// documents, or a custom representative function that returns a position
    /// outside its group.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{Dedup, Document};
    /// let docs = vec![
    ///     Document::new("a", "the rule applies to every plant in the state from next year"),
    ///     Document::new("b", "The rule applies to every plant in the state from next year."),
    /// ];
    /// let out = Dedup::new().run(&docs)?;
    /// assert_eq!(out.dropped(), vec![1]);
    /// assert!(Dedup::new().run(&[])?.groups.is_empty());
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    pub fn run(&self, docs: &[Document]) -> Result<Outcome, Error> {
        self.plan()?.run(docs, &*self.progress)
    }
}

impl Plan {
    /// The in-memory engine: every stage over `docs`, state in memory, progress
    /// reported to `progress`. What [`Dedup::run`] does with the plan it builds; a
    /// program that checked its settings with [`Dedup::plan`] before reading its input
    /// runs the plan it holds, so that nothing is checked or searched (the MinHash
    /// banding) twice.
    ///
    /// # Errors
    ///
    /// As [`Dedup::run`], parameters aside (the plan checked them).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{Dedup, Document, NoProgress};
    /// let plan = Dedup::new().threshold(0.8).plan()?; // every setting checked here
    /// let docs = vec![
    ///     Document::new("a", "the rule applies to every plant in the state from next year"),
    ///     Document::new("b", "The rule applies to every plant in the state from next year."),
    ///     Document::new("c", "a different text about something else entirely"),
    /// ];
    /// let out = plan.run(&docs, &NoProgress)?;
    /// assert_eq!(out.dropped(), vec![1]);
    /// assert_eq!(out.kept(), vec![0, 2]);
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    pub fn run(&self, docs: &[Document], progress: &dyn Progress) -> Result<Outcome, Error> {
        self.run_with(docs, None, progress)
    }

    /// [`run`](Self::run) with the exact pass's digests computed already, one per
    /// document in order: the values of [`exact_pass`](Self::exact_pass)'s
    /// [`hook`](ExactPass::hook), which a corpus reader computes as it decodes
    /// ([`read_corpus_with_hook`](crate::corpus::read_corpus_with_hook)), so that the
    /// exact stage only groups them. Digests of another pass (folding case otherwise,
    /// or of other texts) give other exact groups: the plan cannot tell. Without an
    /// exact pass in the plan, the digests are not read.
    ///
    /// # Errors
    ///
    /// As [`run`](Self::run), and [`Error::Core`] when there are not as many digests
    /// as documents.
    ///
    /// # Example
    ///
    /// ```
    /// use std::sync::Arc;
    /// use near_dup::pipeline::corpus::{read_corpus_with_hook, ReadOptions};
    /// use near_dup::pipeline::{Dedup, NoProgress};
    /// let path = std::env::temp_dir().join(format!("ndd-doc-digested-{}.jsonl", std::process::id()));
    /// std::fs::write(&path, concat!(
    ///     "{\"id\": \"a\", \"text\": \"the rule applies to every plant in the state from next year\"}\n",
    ///     "{\"id\": \"b\", \"text\": \"The rule applies to every plant in the state from next year.\"}\n",
    /// ))?;
    /// let plan = Dedup::new().plan()?;
    /// let pass = plan.exact_pass().expect("on by default");
    /// let (corpus, digests) = read_corpus_with_hook(&path, &ReadOptions::default(), |_| {}, pass.hook())?;
    /// let out = plan.run_digested(&corpus.documents, digests, &NoProgress)?;
    /// let whole = plan.run(&corpus.documents, &NoProgress)?;
    /// assert_eq!((&out.groups, &out.pairs), (&whole.groups, &whole.pairs));
    /// assert_eq!(out.report.exact_copies, 1);
    /// assert!(plan.run_digested(&corpus.documents, Vec::new(), &NoProgress).is_err());
    /// std::fs::remove_file(&path)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn run_digested(
        &self,
        docs: &[Document],
        digests: Vec<DocDigest>,
        progress: &dyn Progress,
    ) -> Result<Outcome, Error> {
        if digests.len() != docs.len() {
            return Err(Error::Core(ndd_core::Error::invalid_parameter(
                "digests",
                format!(
                    "{} exact-pass digests for {} documents: one per document is needed",
                    digests.len(),
                    docs.len()
                ),
            )));
        }
        self.run_with(docs, Some(digests), progress)
    }

    /// [`run`](Self::run), the exact pass's digests given or computed here.
    fn run_with(
        &self,
        docs: &[Document],
        digests: Option<Vec<DocDigest>>,
        progress: &dyn Progress,
    ) -> Result<Outcome, Error> {
        let mut report = Report {
            documents: docs.len(),
            bytes: docs.iter().map(|d| d.text.len() as u64).sum(),
            ..Report::default()
        };
        let texts: Vec<&str> = docs.iter().map(|d| d.text.as_str()).collect();

        // 1. Exact copies out first.
        let exact = match self.exact {
            Some(pass) => {
                progress.start(Stage::Exact, Some(docs.len() as u64));
                let t = Instant::now();
                let found = match digests {
                    Some(digests) => ExactDuplicates::from_digests(digests),
                    None => pass.run(&texts),
                };
                report.timings.push((Stage::Exact, t.elapsed()));
                progress.advance(Stage::Exact, docs.len() as u64);
                progress.finish(Stage::Exact);
                report.exact_groups = found.groups().len();
                report.exact_copies = found.copies();
                Some(found)
            }
            None => None,
        };
        let unique: Vec<usize> = match &exact {
            Some(e) => e.unique(),
            None => (0..docs.len()).collect(),
        };
        let unique_texts: Vec<&str> = unique.iter().map(|&i| texts[i]).collect();

        // 2. Candidates among the remaining documents.
        let durian = match &self.group {
            GroupMethod::Durian(d) => Some(d),
            GroupMethod::Components | GroupMethod::Center | GroupMethod::Linkage(_) => None,
        };
        let mut candidates: Vec<ScoredPair> = Vec::new();
        let found = crate::candidates::generate(
            &self.method,
            &Ctx::for_plan(self, progress),
            &unique_texts,
            &mut candidates,
        )?;
        report.timings.push((Stage::Sketch, found.sketch_time));
        report.timings.push((Stage::Candidates, found.search_time));
        report.method = found.description;
        report.candidates = found.candidates;
        report.index_bytes_per_document = found.index_bytes_per_document;
        report.signature_bytes_per_document = found.signature_bytes_per_document;
        report.bucket_scan = found.bucket_scan;

        // DURIAN groups over the candidate graph, in document indices.
        let candidate_graph: Vec<ScoredPair> = match durian {
            Some(_) => candidates
                .iter()
                .map(|p| p.map_keys(|k| unique[k]))
                .collect(),
            None => Vec::new(),
        };

        // 3. Verification.
        let (verified, verify) = crate::verify::verify(
            &self.verifier,
            self.threshold,
            self.features,
            &unique_texts,
            candidates,
            progress,
        )?;
        report.timings.push((Stage::Verify, verify.time));
        report.verify = verify;

        // 4. Back to document indices, exact copies paired with their first copy.
        let mut pairs: Vec<ScoredPair> = verified
            .into_iter()
            .map(|p| p.map_keys(|k| unique[k]).normalized())
            .collect();
        if let Some(e) = &exact {
            for g in e.groups() {
                pairs.extend(g[1..].iter().map(|&m| ScoredPair::new(g[0], m, 1.0)));
            }
        }
        // Each pair is named once (the index proposes a document once per query; an
        // exact copy is in no candidate pair), so the keys are distinct and the
        // order is the same on any number of threads.
        #[cfg(feature = "rayon")]
        rayon::slice::ParallelSliceMut::par_sort_unstable_by_key(&mut pairs[..], |p| (p.a, p.b));
        #[cfg(not(feature = "rayon"))]
        pairs.sort_unstable_by_key(|p| (p.a, p.b));
        debug_assert!(
            pairs
                .windows(2)
                .all(|w| (w[0].a, w[0].b) < (w[1].a, w[1].b))
        );

        // 5. Groups and representatives.
        progress.start(Stage::Group, Some(pairs.len() as u64));
        let t = Instant::now();
        let groups = match &self.group {
            GroupMethod::Durian(d) => {
                let exact_groups = exact.as_ref().map_or(&[][..], |e| e.groups());
                d.run(
                    docs,
                    &candidate_graph,
                    exact_groups,
                    &self.representative,
                    &pairs,
                    self.threshold.get(),
                )?
            }
            GroupMethod::Components => {
                Grouping::new(self.representative.clone()).run(docs, &pairs)?
            }
            GroupMethod::Center | GroupMethod::Linkage(_) => {
                let first: Vec<usize> = (0..docs.len())
                    .map(|i| exact.as_ref().map_or(i, |e| e.first_of(i)))
                    .collect();
                let grouping = match &self.group {
                    GroupMethod::Linkage(l) => Grouping::linkage(self.representative.clone(), *l),
                    _ => Grouping::center(self.representative.clone()),
                };
                grouping.run_with_copies(docs, &pairs, &first)?
            }
        };
        report.timings.push((Stage::Group, t.elapsed()));
        progress.finish(Stage::Group);
        report.pairs = pairs.len();
        report.groups = groups.len();
        report.grouped_documents = groups.iter().map(|g| g.members.len()).sum();
        report.dropped = report.grouped_documents - report.groups;
        let out = Outcome::new(docs.len(), pairs, groups, report);
        Ok(match &exact {
            Some(e) => out.with_copies(
                (0..docs.len())
                    .map(|i| u32::try_from(e.first_of(i)).unwrap_or(u32::MAX))
                    .collect(),
            ),
            None => out,
        })
    }
}
