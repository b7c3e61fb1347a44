//! Precision, recall and F1 of a clustering per category of document, in the layout of
//! Yang and Callan's Table 2 (SIGIR 2006, Section 6.3).

use std::collections::HashMap;

use ndd_core::Error;

use crate::Labels;

/// One category's averaged scores: the mean over its documents of each document's
/// precision, recall and F1 (see [`category_scores`]).
///
/// # Example
///
/// ```
/// use near_dup::eval::{category_scores, Labels};
/// let truth = Labels::new(&[0, 0, 1]);
/// let predicted = Labels::new(&[0, 0, 0]);
/// let scores = category_scores(&truth, &predicted, &["exact", "exact", "singleton"])?;
/// let singleton = &scores[1];
/// assert_eq!((singleton.category, singleton.documents), ("singleton", 1));
/// assert_eq!((singleton.precision, singleton.recall), (1.0 / 3.0, 1.0));
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CategoryScores<C> {
    /// The category.
    pub category: C,
    /// How many documents have it.
    pub documents: usize,
    /// Mean over those documents of `|P ∩ T| / |P|`, for `P` the predicted group
    /// and `T` the true group of the document.
    pub precision: f64,
    /// Mean of `|P ∩ T| / |T|`.
    pub recall: f64,
    /// Mean of each document's F1, `2pr / (p + r)`.
    pub f1: f64,
}

/// Per-category precision, recall and F1 of `predicted` against `truth`, for
/// documents labeled with `categories` (how each was made: exact copy, minor change,
/// block added, singleton...), in the order categories first appear.
///
/// Yang and Callan report "average precision, average recall and average F1 for each
/// subcategory" without a formula; the one chosen is per document (the B-cubed
/// measures of Bagga and Baldwin, 1998): a document's precision is the share of its
/// predicted group that truly belongs with it, its recall the share of its true group
/// that the prediction put with it (both count the document itself), and a
/// category's scores are the means over its documents. A true singleton has recall 1
/// and precision `1 / |P|`; a document left alone has precision 1 and recall `1 / |T|`.
///
/// Cost: O(n) expected time.
///
/// # Errors
///
/// [`Error::LengthMismatch`] when the three do not have one entry per document.
///
/// # Example
///
/// Two copies of a letter and an edited copy the clustering missed:
///
/// ```
/// use near_dup::eval::{category_scores, Labels};
/// let truth = Labels::new(&[0, 0, 0]);
/// let predicted = Labels::new(&[0, 0, 1]);
/// let s = category_scores(&truth, &predicted, &["exact", "exact", "block-added"])?;
/// assert_eq!(s[0].category, "exact");
/// assert_eq!((s[0].precision, s[0].recall), (1.0, 2.0 / 3.0));
/// assert_eq!((s[1].precision, s[1].recall), (1.0, 1.0 / 3.0));
/// assert_eq!(s[1].f1, 0.5);
/// # Ok::<(), near_dup::Error>(())
/// ```
pub fn category_scores<C: Clone + Eq + std::hash::Hash>(
    truth: &Labels,
    predicted: &Labels,
    categories: &[C],
) -> Result<Vec<CategoryScores<C>>, Error> {
    let n = truth.len();
    for len in [predicted.len(), categories.len()] {
        Error::check_lengths(n, len)?;
    }
    let mut cells: HashMap<(usize, usize), usize> = HashMap::with_capacity(n);
    for (&t, &p) in truth.cluster_ids().iter().zip(predicted.cluster_ids()) {
        *cells.entry((t, p)).or_insert(0) += 1;
    }
    let mut order: HashMap<&C, usize> = HashMap::new();
    let mut out: Vec<CategoryScores<C>> = Vec::new();
    for (d, c) in categories.iter().enumerate() {
        let (t, p) = (truth.cluster_ids()[d], predicted.cluster_ids()[d]);
        let both = cells[&(t, p)] as f64;
        let precision = both / predicted.cluster_sizes()[p] as f64;
        let recall = both / truth.cluster_sizes()[t] as f64;
        let f1 = 2.0 * precision * recall / (precision + recall);
        let i = *order.entry(c).or_insert_with(|| {
            out.push(CategoryScores {
                category: c.clone(),
                documents: 0,
                precision: 0.0,
                recall: 0.0,
                f1: 0.0,
            });
            out.len() - 1
        });
        let s = &mut out[i];
        s.documents += 1;
        s.precision += precision;
        s.recall += recall;
        s.f1 += f1;
    }
    for s in &mut out {
        let k = s.documents as f64;
        s.precision /= k;
        s.recall /= k;
        s.f1 /= k;
    }
    Ok(out)
}
