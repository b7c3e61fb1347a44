//! [`candidate_pairs`]: the all-pairs candidate join of a whole collection, by sorting
//! band keys (the same grouping a distributed shuffle does).

use ndd_core::{Error, PairSink, ScoredPair, SlotSignature};

use crate::LshParams;

/// Every candidate pair of a collection: `(i, j)` with `i < j` indices into
/// `signatures` such that the two agree on all slots of at least one band, each pair
/// once, sorted.
///
/// No loop over all pairs of documents: the `n × b` band keys are computed once, each
/// band's `(key, index)` list is sorted, and pairs are formed inside groups of equal
/// keys, which is what a distributed job does by shuffling on `(band, key)`. A pair
/// sharing several bands is emitted at its first shared band only (the earlier bands'
/// keys are compared), so no deduplication set is needed. Time
/// `O(n·b·log n + pairs)`, memory `O(n·b + pairs)`.
///
/// # Errors
///
/// [`Error::Incompatible`] when the signatures do not all share the first one's scheme;
/// [`Error::InvalidParameter`] when one has fewer than `bands × rows` slots.
///
/// # Example
///
/// ```
/// use near_dup::SchemeId;
/// use near_dup::lsh::{candidate_pairs, LshParams, PlainSlots};
/// let s = SchemeId::new("d").finish();
/// let sigs = [[1, 2, 3, 4], [1, 2, 0, 0], [9, 9, 3, 4], [5, 6, 7, 8]]
///     .map(|v| PlainSlots::new(s, v.to_vec()))
///     .into_iter()
///     .collect::<Result<Vec<_>, _>>()?;
/// assert_eq!(candidate_pairs(&sigs, LshParams::new(2, 2)?)?, vec![(0, 1), (0, 2)]);
/// # Ok::<(), near_dup::Error>(())
/// ```
pub fn candidate_pairs<S: SlotSignature>(
    signatures: &[S],
    params: LshParams,
) -> Result<Vec<(usize, usize)>, Error> {
    let mut pairs = Vec::new();
    for_each_candidate(signatures, params, |x, y| pairs.push((x, y)))?;
    pairs.sort_unstable();
    Ok(pairs)
}

/// Pushes every candidate pair of a collection into `sink` once, unscored
/// ([`ScoredPair::candidate`]: a shared band only proposes the pair), as `(i, j)` with
/// `i < j` indices into `signatures`, band by band in no particular order: the
/// streaming form of [`candidate_pairs`], with no pair list unless the sink is one.
///
/// # Errors
///
/// As [`candidate_pairs`]; nothing is pushed on error.
///
/// # Example
///
/// ```
/// use near_dup::{SchemeId, ScoredPair};
/// use near_dup::lsh::{candidate_pairs_into, LshParams, PlainSlots};
/// let s = SchemeId::new("d").finish();
/// let sigs = [[1, 2, 3, 4], [1, 2, 0, 0], [5, 6, 7, 8]]
///     .map(|v| PlainSlots::new(s, v.to_vec()))
///     .into_iter()
///     .collect::<Result<Vec<_>, _>>()?;
/// let mut pairs: Vec<ScoredPair> = Vec::new();
/// candidate_pairs_into(&sigs, LshParams::new(2, 2)?, &mut pairs)?;
/// assert_eq!((pairs.len(), pairs[0].a, pairs[0].b, pairs[0].is_scored()), (1, 0, 1, false));
/// # Ok::<(), near_dup::Error>(())
/// ```
pub fn candidate_pairs_into<S: SlotSignature, P: PairSink + ?Sized>(
    signatures: &[S],
    params: LshParams,
    sink: &mut P,
) -> Result<(), Error> {
    for_each_candidate(signatures, params, |x, y| {
        sink.push_pair(ScoredPair::candidate(x, y));
    })
}

/// Calls `f(i, j)`, `i < j`, on every candidate pair once, after checking every
/// signature.
fn for_each_candidate<S: SlotSignature>(
    signatures: &[S],
    params: LshParams,
    mut f: impl FnMut(usize, usize),
) -> Result<(), Error> {
    let Some(first) = signatures.first() else {
        return Ok(());
    };
    let scheme = first.scheme();
    for s in signatures {
        Error::check_schemes(scheme, s.scheme())?;
        params.check_signature_len(s.slots().len())?;
    }
    let b = params.bands();
    let n = signatures.len();
    let mut keys = vec![0u64; n * b];
    for (s, out) in signatures.iter().zip(keys.chunks_exact_mut(b)) {
        params.write_band_keys(s.slots(), out);
    }

    let mut column: Vec<(u64, usize)> = Vec::with_capacity(n);
    for i in 0..b {
        column.clear();
        column.extend((0..n).map(|d| (keys[d * b + i], d)));
        column.sort_unstable();
        for group in column.chunk_by(|a, c| a.0 == c.0) {
            for (m, &(_, x)) in group.iter().enumerate() {
                for &(_, y) in &group[m + 1..] {
                    let earlier = (0..i).any(|j| keys[x * b + j] == keys[y * b + j]);
                    if !earlier {
                        f(x, y);
                    }
                }
            }
        }
    }
    Ok(())
}
