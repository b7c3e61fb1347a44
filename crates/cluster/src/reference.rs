//! Redundancy-based reference copies (Yang and Callan 2006, Section 4.3): a text
//! submitted more than `m` times is a form letter, and its earliest copy is the
//! reference copy the others were made from.

/// DURIAN's `m`: a group of exact copies larger than 5 marks a form letter
/// ("any comment that has more than 5 exact duplicates"; Section 4.4.5).
///
/// # Example
///
/// ```
/// assert_eq!(near_dup::cluster::DEFAULT_MIN_COPIES, 5);
/// ```
pub const DEFAULT_MIN_COPIES: usize = 5;

/// A form letter's reference copy: the earliest document of a group of exact copies
/// larger than `m`, with the size of its group.
///
/// # Example
///
/// ```
/// use near_dup::cluster::{reference_copies, ReferenceCopy};
/// let groups = vec![vec![4, 1, 7, 2, 9, 3], vec![5, 6]];
/// let time = [0, 30, 10, 50, 40, 0, 0, 20, 0, 60];
/// let refs = reference_copies(&groups, 5, |d| time[d]);
/// assert_eq!(refs, vec![ReferenceCopy { document: 2, copies: 6 }]);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ReferenceCopy {
    /// The document chosen: the earliest of its group.
    pub document: usize,
    /// How many exact copies its group has, itself included (the annotation DURIAN
    /// keeps "for further study").
    pub copies: usize,
}

/// The reference copies of `groups` (each a group of exact copies, as the pipeline's
/// exact pass finds them): one per group of more than `m` documents, the document with
/// the smallest `order` (a timestamp, a position), the smallest index on ties. In the
/// order of the groups; groups of `m` or fewer documents have none.
///
/// Cost: O(total documents in the groups).
///
/// # Example
///
/// ```
/// use near_dup::cluster::{reference_copies, DEFAULT_MIN_COPIES};
/// let groups = vec![(0..6).collect::<Vec<usize>>(), vec![6, 7]];
/// let refs = reference_copies(&groups, DEFAULT_MIN_COPIES, |d| d);
/// assert_eq!(refs.len(), 1);
/// assert_eq!((refs[0].document, refs[0].copies), (0, 6));
/// ```
pub fn reference_copies<K: Ord>(
    groups: &[Vec<usize>],
    m: usize,
    order: impl Fn(usize) -> K,
) -> Vec<ReferenceCopy> {
    groups
        .iter()
        .filter(|g| g.len() > m)
        .filter_map(|g| {
            g.iter()
                .copied()
                .min_by(|&x, &y| order(x).cmp(&order(y)).then(x.cmp(&y)))
                .map(|document| ReferenceCopy {
                    document,
                    copies: g.len(),
                })
        })
        .collect()
}
