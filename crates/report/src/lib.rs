//! The HTML report of a deduplication run: one self-contained page to look at before
//! dropping anything.
//!
//! [`HtmlReport`] turns a run's [`Outcome`] (and the documents' texts) into one HTML
//! file that works offline from disk: no network, no server, CSS and JavaScript
//! inline, the data embedded as one compact JSON blob. The page shows
//!
//! * a **summary**: documents read, kept, dropped (exact copies and near-duplicates),
//!   groups, the settings, the stage timings, warnings and the page's own size;
//! * three **plots** drawn as inline SVG from the run's numbers: the histogram of
//!   verified pair scores with the threshold marked, the banding's S-curve with the
//!   threshold and the expected recall (MinHash runs), and the group sizes on a log
//!   scale;
//! * the **groups**, largest first, with search by id or text, filters (size, reason,
//!   category, score range) and paging; a group opens to its kept document and each
//!   member with its score to it, its reason and its category (Yang and Callan's, from
//!   [`ndd_align`]), and a **side-by-side diff** of a member against the kept document
//!   with the shared, unique, moved and repeated blocks of the block report
//!   highlighted.
//!
//! Sizes are bounded: each document's text is cut after
//! [`text_bytes`](HtmlReport::text_bytes) bytes (the page marks the cut), and groups
//! are written largest first until [`page_bytes`](HtmlReport::page_bytes) is reached;
//! the page says how many it shows.
//!
//! # Example
//!
//! ```
//! use near_dup::pipeline::{Dedup, Document};
//! use near_dup::report::HtmlReport;
//!
//! let docs = vec![
//!     Document::new("a", "one two three four five six seven eight nine ten"),
//!     Document::new("b", "one two three four five six seven eight nine ten eleven"),
//!     Document::new("c", "something else entirely"),
//! ];
//! let dedup = Dedup::new().threshold(0.7);
//! let outcome = dedup.run(&docs)?;
//! let page = HtmlReport::new(&outcome, &docs).plan(&dedup).render();
//! assert!(page.html.starts_with("<!DOCTYPE html>"));
//! assert_eq!((page.groups_shown, page.groups_total), (1, 1));
//! # Ok::<(), near_dup::pipeline::Error>(())
//! ```

use std::collections::HashMap;
use std::time::Duration;

use ndd_align::{Aligner, Block, BlockKind, BlockReport, TokenOptions, Tokens};
use ndd_pipeline::{Dedup, Document, ExactPass, Fate, Group, Outcome, Report, ScoredPair};
use serde_json::{Value, json};

/// The page around the data: markup with three markers for the style, the script
/// and the data.
const TEMPLATE: &str = include_str!("template.html");
/// The page's style (light and dark).
const CSS: &str = include_str!("report.css");
/// The page's script: plots, the group list, the diff, the keyboard.
const JS: &str = include_str!("report.js");

/// Bytes of each document's text the page shows by default; the rest is cut, with a
/// mark where it was cut.
///
/// # Example
///
/// ```
/// assert_eq!(near_dup::report::DEFAULT_TEXT_BYTES, 16384);
/// ```
pub const DEFAULT_TEXT_BYTES: usize = 16 << 10;

/// The page size (bytes, roughly) after which no further group is written by default:
/// a browser opens a page of this size in a few seconds.
///
/// # Example
///
/// ```
/// assert_eq!(near_dup::report::DEFAULT_PAGE_BYTES, 64 << 20);
/// ```
pub const DEFAULT_PAGE_BYTES: usize = 64 << 20;

/// Members of one group shown by default (the kept document included); a larger
/// group says how many it has.
///
/// # Example
///
/// ```
/// assert_eq!(near_dup::report::DEFAULT_MEMBERS_PER_GROUP, 200);
/// ```
pub const DEFAULT_MEMBERS_PER_GROUP: usize = 200;

/// Bins of the pair-score histogram over `[0, 1]`.
const SCORE_BINS: usize = 50;

/// The HTML report of one run, configured and then [`render`](Self::render)ed.
///
/// Documents are named by their index in the run's input, as in the [`Outcome`].
///
/// # Example
///
/// ```
/// use near_dup::pipeline::{Dedup, Document};
/// use near_dup::report::HtmlReport;
///
/// let docs = vec![Document::new("x", "the same words"), Document::new("y", "The same words!")];
/// let outcome = Dedup::new().run(&docs)?;
/// let page = HtmlReport::new(&outcome, &docs)
///     .title("Two copies")
///     .setting("input", "two strings")
///     .warning("nothing was skipped")
///     .render();
/// assert!(page.html.contains("<title>Two copies</title>"));
/// # Ok::<(), near_dup::pipeline::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct HtmlReport<'a> {
    run: Run<'a>,
    title: String,
    settings: Vec<(String, String)>,
    warnings: Vec<String>,
    timings: Vec<(String, Duration)>,
    threshold: Option<f64>,
    banding: Option<(usize, usize)>,
    nfkc: bool,
    text_bytes: usize,
    page_bytes: usize,
    members_per_group: usize,
}

/// What the run found, by document index.
#[derive(Debug, Clone)]
struct Run<'a> {
    /// Groups of two or more documents.
    groups: &'a [Group],
    /// The pairs found.
    pairs: &'a [ScoredPair],
    /// The run's counts and timings.
    report: Report,
    /// What happened to each document.
    fates: Vec<Fate>,
    /// Each document's id.
    ids: Vec<&'a str>,
    /// Each document's text, when known.
    texts: Vec<Option<&'a str>>,
}

/// A rendered page and what it holds.
///
/// # Example
///
/// ```
/// let outcome = near_dup::pipeline::Dedup::new().run_texts(&["a b c", "a b c"])?;
/// let page = near_dup::report::HtmlReport::from_parts(&outcome, vec!["0", "1"], vec![]).render();
/// assert_eq!(page.groups_total, 1);
/// assert!(!page.cut);
/// # Ok::<(), near_dup::pipeline::Error>(())
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Page {
    /// The whole file.
    pub html: String,
    /// Groups written, the largest first.
    pub groups_shown: usize,
    /// Groups of the run.
    pub groups_total: usize,
    /// Whether anything was left out or cut short: groups, members of a large group,
    /// or text beyond [`HtmlReport::text_bytes`].
    pub cut: bool,
}

impl<'a> HtmlReport<'a> {
    /// The report of `outcome`, a run over `docs`.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{Dedup, Document};
    /// let docs = vec![Document::new("a", "x y z"), Document::new("b", "x y z")];
    /// let outcome = Dedup::new().run(&docs)?;
    /// let page = near_dup::report::HtmlReport::new(&outcome, &docs).render();
    /// assert!(page.html.contains("\"a\""));
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    #[must_use]
    pub fn new(outcome: &'a Outcome, docs: &'a [Document]) -> Self {
        Self::from_parts(
            outcome,
            docs.iter().map(|d| d.id.as_str()).collect(),
            docs.iter().map(|d| Some(d.text.as_str())).collect(),
        )
    }

    /// The report of `outcome` from each document's id and text, by index: a document
    /// without text (beyond the end of `texts`, or `None`: one of a saved index) is
    /// listed by id, without a diff. A document beyond the end of `ids` is named by
    /// its index. When the run's bucket bound was hit
    /// ([`Report::bucket_scan`](ndd_pipeline::Report::bucket_scan)), the page warns
    /// of it with the numbers.
    ///
    /// # Example
    ///
    /// ```
    /// let outcome = near_dup::pipeline::Dedup::new().run_texts(&["p q r s", "p q r s"])?;
    /// let page = near_dup::report::HtmlReport::from_parts(&outcome, vec!["old", "new"], vec![None, Some("p q r s")])
    ///     .render();
    /// assert!(page.html.contains("\"old\""));
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    #[must_use]
    pub fn from_parts(
        outcome: &'a Outcome,
        ids: Vec<&'a str>,
        texts: Vec<Option<&'a str>>,
    ) -> Self {
        let n = outcome.report.documents.max(ids.len());
        let fates = (0..n).map(|i| outcome.fate(i)).collect();
        Self::with(Run {
            groups: &outcome.groups,
            pairs: &outcome.pairs,
            report: outcome.report.clone(),
            fates,
            ids,
            texts,
        })
    }

    /// The report of a finished run known from its outputs only (the groups of
    /// `--clusters-out`, the pairs of `--pairs-out`): groups as [`Group`]s over the
    /// documents' indices (the representative is the document kept), the pairs found,
    /// and each document's id and text as in [`from_parts`](Self::from_parts). Each
    /// member's fate is [`Fate::of_member`]'s, as [`Outcome::fate`] gives it, with
    /// the copies of a text found by their [`ExactPass::new`] digests (the default
    /// exact pass). The run's method,
    /// candidates and timings are not known: give what is known with
    /// [`setting`](Self::setting).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::Group;
    /// use near_dup::report::HtmlReport;
    /// use near_dup::ScoredPair;
    ///
    /// let groups = vec![Group { representative: 0, members: vec![0, 2], copies: None }];
    /// let pairs = vec![ScoredPair { a: 0, b: 2, score: 0.9 }];
    /// let texts = vec![Some("a b c d"), Some("x"), Some("a b c d e")];
    /// let page = HtmlReport::from_groups(&groups, &pairs, vec!["p", "q", "r"], texts).render();
    /// assert_eq!(page.groups_total, 1);
    /// assert!(page.html.contains("\"near\":1"));
    /// ```
    #[must_use]
    pub fn from_groups(
        groups: &'a [Group],
        pairs: &'a [ScoredPair],
        ids: Vec<&'a str>,
        texts: Vec<Option<&'a str>>,
    ) -> Self {
        let exact = ExactPass::new();
        let mut fates = vec![Fate::Unique; ids.len()];
        let mut report = Report::default();
        for g in groups {
            let text = |i: usize| texts.get(i).copied().flatten();
            let digest = |i: usize| text(i).map(|t| exact.digest(t));
            // The first member of each text: identical texts are always in one group.
            let mut first = HashMap::new();
            for &m in &g.members {
                if let Some(d) = digest(m) {
                    first
                        .entry(d)
                        .and_modify(|f: &mut usize| *f = (*f).min(m))
                        .or_insert(m);
                }
            }
            for &m in &g.members {
                if m >= fates.len() {
                    fates.resize(m + 1, Fate::Unique);
                }
                // `Outcome::fate`'s rule, the first copy of each text found by its
                // digest.
                fates[m] =
                    Fate::of_member(g, m, |d| digest(d).and_then(|d| first.get(&d).copied()));
            }
            report.grouped_documents += g.members.len();
        }
        report.documents = fates.len();
        report.bytes = texts.iter().flatten().map(|t| t.len() as u64).sum();
        report.groups = groups.len();
        report.pairs = pairs.len();
        report.dropped = report.grouped_documents.saturating_sub(groups.len());
        Self::with(Run {
            groups,
            pairs,
            report,
            fates,
            ids,
            texts,
        })
    }

    /// The report with every option at its default.
    fn with(run: Run<'a>) -> Self {
        // A bucket bound that was hit is a warning, beside the setting that explains it.
        let warnings = run
            .report
            .bucket_scan
            .and_then(|b| b.warning("--max-bucket-scan (MinHashConfig::max_bucket_scan)"))
            .into_iter()
            .collect();
        HtmlReport {
            run,
            title: "ndd report".to_owned(),
            settings: Vec::new(),
            warnings,
            timings: Vec::new(),
            threshold: None,
            banding: None,
            nfkc: false,
            text_bytes: DEFAULT_TEXT_BYTES,
            page_bytes: DEFAULT_PAGE_BYTES,
            members_per_group: DEFAULT_MEMBERS_PER_GROUP,
        }
    }

    /// Takes from the run's settings what the page shows: the threshold (marked on the
    /// score histogram), the bands and rows of a MinHash run (the S-curve) and its
    /// bound on the members of a bucket read (a hot bucket reports only some of its
    /// pairs), the verifier, the grouping, and whether text was compared in NFKC form (the diff
    /// tokenizes as the run did).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::Dedup;
    /// let dedup = Dedup::new().threshold(0.9);
    /// let outcome = dedup.run_texts(&["a b", "c d"])?;
    /// let page = near_dup::report::HtmlReport::from_parts(&outcome, vec!["1", "2"], vec![])
    ///     .plan(&dedup)
    ///     .render();
    /// assert!(page.html.contains("\"threshold\":0.9"));
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    #[must_use]
    pub fn plan(mut self, dedup: &Dedup) -> Self {
        let method = dedup.method_config();
        if method.uses_threshold() {
            self.threshold = Some(dedup.threshold_value());
            self.settings
                .push(("threshold".into(), dedup.threshold_value().to_string()));
        }
        if let ndd_pipeline::Method::MinHash(c) = method {
            if let Ok(p) = c.lsh_params(dedup.threshold_value()) {
                self.banding = Some((p.bands(), p.rows()));
                self.settings.push((
                    "banding".into(),
                    format!(
                        "{} bands × {} rows of {} hashes",
                        p.bands(),
                        p.rows(),
                        c.num_perm
                    ),
                ));
                if let Some(scan) = c.max_bucket_scan {
                    self.settings.push((
                        "bucket scan".into(),
                        format!(
                            "each document reads at most {scan} members of an LSH bucket: a hot \
                             bucket keeps its groups but reports only some of its pairs"
                        ),
                    ));
                }
            }
        }
        self.settings
            .push(("verifier".into(), dedup.verifier_config().name().to_owned()));
        self.settings
            .push(("grouping".into(), dedup.group_config().name().to_owned()));
        self.nfkc = dedup.nfkc_value();
        if self.nfkc {
            self.settings.push(("nfkc".into(), "on".into()));
        }
        self
    }

    /// The run's threshold, marked on the score histogram and the S-curve (what
    /// [`plan`](Self::plan) takes from the run's settings).
    ///
    /// # Example
    ///
    /// ```
    /// let outcome = near_dup::pipeline::Outcome::default();
    /// let page = near_dup::report::HtmlReport::from_parts(&outcome, vec![], vec![]).threshold(0.75).render();
    /// assert!(page.html.contains("\"threshold\":0.75"));
    /// ```
    #[must_use]
    pub fn threshold(mut self, threshold: f64) -> Self {
        self.threshold = Some(threshold);
        self
    }

    /// The page's title (default "ndd report").
    ///
    /// # Example
    ///
    /// ```
    /// let outcome = near_dup::pipeline::Outcome::default();
    /// let page = near_dup::report::HtmlReport::from_parts(&outcome, vec![], vec![]).title("a < b").render();
    /// assert!(page.html.contains("<title>a &lt; b</title>"));
    /// ```
    #[must_use]
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.title = title.into();
        self
    }

    /// Adds a setting to the summary, in the user's words (`"threshold"`, `"0.8"`;
    /// a command line's option and its value).
    ///
    /// # Example
    ///
    /// ```
    /// let outcome = near_dup::pipeline::Outcome::default();
    /// let page = near_dup::report::HtmlReport::from_parts(&outcome, vec![], vec![])
    ///     .setting("--num-perm", "256")
    ///     .render();
    /// assert!(page.html.contains("[\"--num-perm\",\"256\"]"));
    /// ```
    #[must_use]
    pub fn setting(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.settings.push((name.into(), value.into()));
        self
    }

    /// Adds a warning to the summary (input skipped, buckets bounded, ...).
    ///
    /// # Example
    ///
    /// ```
    /// let outcome = near_dup::pipeline::Outcome::default();
    /// let page = near_dup::report::HtmlReport::from_parts(&outcome, vec![], vec![])
    ///     .warning("3 bad lines skipped")
    ///     .render();
    /// assert!(page.html.contains("3 bad lines skipped"));
    /// ```
    #[must_use]
    pub fn warning(mut self, warning: impl Into<String>) -> Self {
        self.warnings.push(warning.into());
        self
    }

    /// Adds the time of a step outside the outcome's stages (reading the input, say),
    /// shown before the stages.
    ///
    /// # Example
    ///
    /// ```
    /// use std::time::Duration;
    /// let outcome = near_dup::pipeline::Outcome::default();
    /// let page = near_dup::report::HtmlReport::from_parts(&outcome, vec![], vec![])
    ///     .timing("read", Duration::from_millis(1500))
    ///     .render();
    /// assert!(page.html.contains("[\"read\",1.5]"));
    /// ```
    #[must_use]
    pub fn timing(mut self, step: impl Into<String>, time: Duration) -> Self {
        self.timings.push((step.into(), time));
        self
    }

    /// Bytes of each document's text the page shows (at least 1; cut at a character
    /// boundary, with a mark). Default [`DEFAULT_TEXT_BYTES`].
    ///
    /// # Example
    ///
    /// ```
    /// let outcome = near_dup::pipeline::Dedup::new().run_texts(&["a b c d e f", "a b c d e f"])?;
    /// let page = near_dup::report::HtmlReport::from_parts(&outcome, vec!["p", "q"], vec![Some("a b c d e f"); 2])
    ///     .text_bytes(3)
    ///     .render();
    /// assert!(page.cut);
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    #[must_use]
    pub fn text_bytes(mut self, bytes: usize) -> Self {
        self.text_bytes = bytes.max(1);
        self
    }

    /// The page size (bytes) after which no further group is written; the largest
    /// group is always written. Default [`DEFAULT_PAGE_BYTES`].
    ///
    /// # Example
    ///
    /// ```
    /// let outcome = near_dup::pipeline::Dedup::new().run_texts(&["a b", "a b", "c d", "c d"])?;
    /// let page = near_dup::report::HtmlReport::from_parts(&outcome, vec!["1", "2", "3", "4"], vec![])
    ///     .page_bytes(0)
    ///     .render();
    /// assert_eq!((page.groups_shown, page.groups_total, page.cut), (1, 2, true));
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    #[must_use]
    pub fn page_bytes(mut self, bytes: usize) -> Self {
        self.page_bytes = bytes;
        self
    }

    /// Members of one group shown, the kept document included (at least 2). Default
    /// [`DEFAULT_MEMBERS_PER_GROUP`].
    ///
    /// # Example
    ///
    /// ```
    /// let outcome = near_dup::pipeline::Dedup::new().run_texts(&["a b"; 5])?;
    /// let page = near_dup::report::HtmlReport::from_parts(&outcome, vec![], vec![])
    ///     .members_per_group(2)
    ///     .render();
    /// assert!(page.cut);
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    #[must_use]
    pub fn members_per_group(mut self, members: usize) -> Self {
        self.members_per_group = members.max(2);
        self
    }

    /// Builds the page.
    ///
    /// # Example
    ///
    /// ```
    /// let outcome = near_dup::pipeline::Outcome::default();
    /// let page = near_dup::report::HtmlReport::from_parts(&outcome, vec![], vec![]).render();
    /// assert!(page.html.ends_with("</html>\n"));
    /// ```
    #[must_use]
    pub fn render(&self) -> Page {
        let data = self.data();
        let groups_shown = data.groups.len();
        let cut = data.cut;
        let blob = data.into_json();
        let html = fill(&self.title, &blob);
        Page {
            html,
            groups_shown,
            groups_total: self.run.groups.len(),
            cut,
        }
    }

    /// The id of document `i`.
    fn id(&self, i: usize) -> String {
        self.run
            .ids
            .get(i)
            .map_or_else(|| i.to_string(), |s| (*s).to_owned())
    }

    /// The text of document `i`, if known.
    fn text(&self, i: usize) -> Option<&'a str> {
        self.run.texts.get(i).copied().flatten()
    }

    /// What happened to document `i`.
    fn fate(&self, i: usize) -> Fate {
        self.run.fates.get(i).copied().unwrap_or(Fate::Unique)
    }

    /// Everything the page shows, as JSON values.
    fn data(&self) -> Data {
        let r = &self.run.report;
        let n = self.run.fates.len().max(self.run.ids.len());
        let (mut unique, mut kept, mut exact, mut near) = (0u64, 0u64, 0u64, 0u64);
        for i in 0..n {
            match self.fate(i) {
                Fate::Unique => unique += 1,
                Fate::Kept => kept += 1,
                Fate::ExactCopy => exact += 1,
                _ => near += 1,
            }
        }
        let mut scores: HashMap<(usize, usize), f64> = HashMap::with_capacity(self.run.pairs.len());
        let mut bins = vec![0u64; SCORE_BINS];
        let mut exact_pairs = 0u64;
        for p in self.run.pairs {
            scores.insert((p.a.min(p.b), p.a.max(p.b)), p.score);
            let copy = p.score >= 1.0
                && (self.fate(p.b) == Fate::ExactCopy || self.fate(p.a) == Fate::ExactCopy);
            if copy {
                exact_pairs += 1;
            } else if p.score.is_finite() {
                bins[score_bin(p.score)] += 1;
            }
        }
        let mut sizes: std::collections::BTreeMap<usize, u64> = Default::default();
        for g in self.run.groups {
            *sizes.entry(g.members.len()).or_default() += 1;
        }

        // Groups, largest first, until the page is full.
        let mut order: Vec<usize> = (0..self.run.groups.len()).collect();
        order.sort_by(|&a, &b| {
            let (ga, gb) = (&self.run.groups[a], &self.run.groups[b]);
            gb.members
                .len()
                .cmp(&ga.members.len())
                .then(ga.members.first().cmp(&gb.members.first()))
        });
        let mut docs = Docs::default();
        let mut groups = Vec::new();
        let mut cut = false;
        let mut aligner = Aligner::new();
        let options = TokenOptions::default().nfkc(self.nfkc);
        let mut bytes = TEMPLATE.len() + CSS.len() + JS.len();
        for (shown, &g) in order.iter().enumerate() {
            if shown > 0 && bytes > self.page_bytes {
                cut = true;
                break;
            }
            let before = docs.bytes;
            let value = self.group(g, &mut docs, &mut aligner, &options, &scores, &mut cut);
            bytes += value.to_string().len() + (docs.bytes - before);
            groups.push(value);
        }
        cut |= docs.cut;
        let timings: Vec<Value> = self
            .timings
            .iter()
            .map(|(s, d)| (s.clone(), *d))
            .chain(r.timings.iter().map(|(s, d)| (s.to_string(), *d)))
            .map(|(s, d)| json!([s, d.as_secs_f64()]))
            .collect();
        let summary = json!({
            "documents": n,
            "bytes": r.bytes,
            "unique": unique,
            "kept_for_group": kept,
            "kept": unique + kept,
            "exact": exact,
            "near": near,
            "dropped": exact + near,
            "groups": self.run.groups.len(),
            "grouped": r.grouped_documents,
            "pairs": self.run.pairs.len(),
            "candidates": r.candidates,
            "checked": r.verify.checked,
            "method": r.method,
            "threshold": self.threshold,
            "settings": self.settings,
            "timings": timings,
            "warnings": self.warnings,
            "groups_shown": groups.len(),
            "text_bytes": self.text_bytes,
            "members_per_group": self.members_per_group,
        });
        let plots = json!({
            "scores": bins,
            "exact_pairs": exact_pairs,
            "threshold": self.threshold,
            "banding": self.banding.map(|(b, r)| [b, r]),
            "sizes": sizes.into_iter().map(|(s, c)| [s as u64, c]).collect::<Vec<_>>(),
        });
        Data {
            summary,
            plots,
            docs: docs.rows,
            groups,
            cut,
        }
    }

    /// One group: `[kept doc, size, [member rows]]`, each member row
    /// `[doc, score or null, reason, category, word Jaccard, kept-side blocks,
    /// member-side blocks]` (blocks flat: kind, start, end in UTF-16 units of the text
    /// shown). The kept document comes first, with its reason only.
    fn group(
        &self,
        g: usize,
        docs: &mut Docs,
        aligner: &mut Aligner,
        options: &TokenOptions,
        scores: &HashMap<(usize, usize), f64>,
        cut: &mut bool,
    ) -> Value {
        let group = &self.run.groups[g];
        let rep = group.representative;
        let rep_text = self.text(rep);
        let rep_tokens = rep_text.map(|t| options.tokens(t));
        let mut rows = vec![json!([
            docs.slot(self, rep),
            Value::Null,
            self.fate(rep).name(),
            "kept",
            Value::Null,
            [],
            []
        ])];
        let others = group.members.iter().copied().filter(|&m| m != rep);
        for m in others.take(self.members_per_group - 1) {
            let slot = docs.slot(self, m);
            let score = scores.get(&(rep.min(m), rep.max(m))).copied();
            let reason = self.fate(m).name();
            let row = match (&rep_tokens, self.text(m)) {
                (Some(a), Some(tm)) => {
                    let b = options.tokens(tm);
                    let report = BlockReport::new(aligner, a, &b);
                    json!([
                        slot,
                        score.map(round6),
                        reason,
                        report.classify().category.name(),
                        round6(report.word_jaccard()),
                        self.blocks(report.a_blocks(), a),
                        self.blocks(report.b_blocks(), &b),
                    ])
                }
                _ => json!([
                    slot,
                    score.map(round6),
                    reason,
                    Value::Null,
                    Value::Null,
                    [],
                    []
                ]),
            };
            rows.push(row);
        }
        if group.members.len() > self.members_per_group {
            *cut = true;
        }
        json!([rows[0][0].clone(), group.members.len(), rows])
    }

    /// A side's blocks within the text shown, flat: kind (0 shared, 1 unique, 2 moved,
    /// 3 repeated), start, end in UTF-16 code units.
    fn blocks(&self, blocks: &[Block], tokens: &Tokens<'_>) -> Vec<u64> {
        let text = tokens.text();
        let end = shown_len(text, self.text_bytes);
        let mut out = Vec::with_capacity(blocks.len() * 3);
        for bl in blocks {
            if bl.bytes.start >= end {
                break;
            }
            let kind = match bl.kind {
                BlockKind::Shared => 0,
                BlockKind::Unique => 1,
                BlockKind::Moved => 2,
                BlockKind::Repeated => 3,
            };
            let e = bl.bytes.end.min(end);
            out.extend([kind, utf16_at(text, bl.bytes.start), utf16_at(text, e)]);
        }
        out
    }
}

/// The page's data before it becomes JSON.
struct Data {
    summary: Value,
    plots: Value,
    docs: Vec<Value>,
    groups: Vec<Value>,
    cut: bool,
}

impl Data {
    /// The one JSON blob, compact.
    fn into_json(self) -> String {
        let mut summary = self.summary;
        summary["cut"] = Value::from(self.cut);
        json!({
            "version": 1,
            "summary": summary,
            "plots": self.plots,
            "docs": self.docs,
            "groups": self.groups,
        })
        .to_string()
    }
}

/// The documents the page holds: `[id, text shown, bytes of the whole text or null]`,
/// each once, by slot.
#[derive(Default)]
struct Docs {
    slots: HashMap<usize, usize>,
    rows: Vec<Value>,
    bytes: usize,
    cut: bool,
}

impl Docs {
    /// The slot of document `i`, added on first use.
    fn slot(&mut self, report: &HtmlReport<'_>, i: usize) -> usize {
        if let Some(&s) = self.slots.get(&i) {
            return s;
        }
        let id = report.id(i);
        let row = match report.text(i) {
            Some(t) => {
                let end = shown_len(t, report.text_bytes);
                self.cut |= end < t.len();
                self.bytes += id.len() + end;
                json!([id, &t[..end], t.len()])
            }
            None => {
                self.bytes += id.len();
                json!([id, Value::Null, Value::Null])
            }
        };
        let s = self.rows.len();
        self.rows.push(row);
        self.slots.insert(i, s);
        s
    }
}

/// The bytes of `text` shown: at most `cap`, ending at a character boundary.
fn shown_len(text: &str, cap: usize) -> usize {
    if text.len() <= cap {
        return text.len();
    }
    let mut end = cap;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    end
}

/// The UTF-16 offset (what JavaScript strings index) of byte `byte` of `text`.
fn utf16_at(text: &str, byte: usize) -> u64 {
    let head = &text[..byte];
    let units = if head.is_ascii() {
        head.len()
    } else {
        head.encode_utf16().count()
    };
    units as u64
}

/// The histogram bin of a score in `[0, 1]`.
fn score_bin(score: f64) -> usize {
    let b = (score.clamp(0.0, 1.0) * SCORE_BINS as f64).floor();
    // A score of 1 goes to the last bin.
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    // in 0..=SCORE_BINS by the clamp
    let b = b as usize;
    b.min(SCORE_BINS - 1)
}

/// `x` rounded to six decimals.
fn round6(x: f64) -> f64 {
    (x * 1e6).round() / 1e6
}

/// The template with the title, style, script and data in place.
fn fill(title: &str, blob: &str) -> String {
    let data = script_safe(blob);
    let mut html = String::with_capacity(TEMPLATE.len() + CSS.len() + JS.len() + data.len());
    let mut rest = TEMPLATE;
    let mut size_at = None;
    let title = escape_html(title);
    for (marker, value) in [
        ("{{SIZE}}", ""),
        ("{{TITLE}}", title.as_str()),
        ("/*{{CSS}}*/", CSS),
        ("{{TITLE}}", title.as_str()),
        ("{{DATA}}", data.as_str()),
        ("/*{{JS}}*/", JS),
    ] {
        match rest.split_once(marker) {
            Some((head, tail)) => {
                html.push_str(head);
                if marker == "{{SIZE}}" {
                    size_at = Some(html.len());
                }
                html.push_str(value);
                rest = tail;
            }
            None => debug_assert!(false, "marker {marker} missing from the template"),
        }
    }
    html.push_str(rest);
    // The file's own size, digits included: at most two rounds to settle.
    if let Some(at) = size_at {
        let base = html.len();
        let mut size = base;
        while base + size.to_string().len() != size {
            size = base + size.to_string().len();
        }
        html.insert_str(at, &size.to_string());
    }
    html
}

/// JSON made safe inside a `<script>` element: `<`, `>` and `&` only occur inside
/// JSON strings, where their `\u` escapes mean the same, so no `</script>` or `<!--`
/// can end or change the element; U+2028 and U+2029 are escaped too.
fn script_safe(json: &str) -> String {
    replace_chars(json, |c| match c {
        '<' => Some("\\u003c"),
        '>' => Some("\\u003e"),
        '&' => Some("\\u0026"),
        '\u{2028}' => Some("\\u2028"),
        '\u{2029}' => Some("\\u2029"),
        _ => None,
    })
}

/// Text escaped for HTML element content and attribute values (`&` first, so that no
/// escape is escaped again).
fn escape_html(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&#39;")
}

/// `s` with each character `with` has a replacement for replaced.
fn replace_chars(s: &str, with: impl Fn(char) -> Option<&'static str>) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match with(c) {
            Some(r) => out.push_str(r),
            None => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests;
