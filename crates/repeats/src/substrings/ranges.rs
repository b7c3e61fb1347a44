//! Byte ranges of a document: merged into their canonical form, widened to character
//! boundaries, removed from the text, and counted by content.

use std::ops::Range;

/// Sorts `ranges` and merges those that overlap or touch: the canonical form, sorted,
/// disjoint and with a gap between neighbours. Empty ranges are dropped.
///
/// # Example
///
/// ```
/// use near_dup::repeats::substrings::merge_ranges;
/// let merged = merge_ranges(vec![5..9, 0..2, 2..3, 7..12, 4..4]);
/// assert_eq!(merged, [0..3, 5..12]);
/// ```
pub fn merge_ranges(mut ranges: Vec<Range<usize>>) -> Vec<Range<usize>> {
    ranges.retain(|r| r.start < r.end);
    ranges.sort_unstable_by_key(|r| (r.start, r.end));
    let mut out: Vec<Range<usize>> = Vec::with_capacity(ranges.len());
    for r in ranges {
        match out.last_mut() {
            Some(last) if r.start <= last.end => last.end = last.end.max(r.end),
            _ => out.push(r),
        }
    }
    out
}

/// `ranges` (byte ranges of `text`) widened to character boundaries, merged: a
/// character partly inside a range is wholly inside the result, so that removing the
/// result leaves valid UTF-8 and removes every byte of `ranges`. Ends past the text
/// are cut to its length.
///
/// # Example
///
/// ```
/// use near_dup::repeats::substrings::char_ranges;
/// let text = "café crème"; // 'é' is bytes 3..5 and 8..10
/// assert_eq!(char_ranges(text, &[4..6, 9..9]), [3..6]);
/// assert_eq!(char_ranges(text, &[0..100]), [0..text.len()]);
/// ```
pub fn char_ranges(text: &str, ranges: &[Range<usize>]) -> Vec<Range<usize>> {
    let widened = ranges
        .iter()
        .filter(|r| r.start < r.end)
        .map(|r| {
            let mut start = r.start.min(text.len());
            while !text.is_char_boundary(start) {
                start -= 1;
            }
            let mut end = r.end.min(text.len());
            while !text.is_char_boundary(end) {
                end += 1;
            }
            start..end
        })
        .collect();
    merge_ranges(widened)
}

/// `text` without the bytes of `ranges`, which are first widened to character
/// boundaries ([`char_ranges`]).
///
/// # Example
///
/// ```
/// use near_dup::repeats::substrings::remove_ranges;
/// assert_eq!(remove_ranges("keep THIS out", &[5..10]), "keep out");
/// assert_eq!(remove_ranges("naïve", &[2..3]), "nave"); // the whole 'ï' goes
/// ```
pub fn remove_ranges(text: &str, ranges: &[Range<usize>]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for r in char_ranges(text, ranges) {
        out.push_str(&text[at..r.start]);
        at = r.end;
    }
    out.push_str(&text[at..]);
    out
}

/// A span's content and how many times it was found.
///
/// # Example
///
/// ```
/// use near_dup::repeats::substrings::{most_repeated, RepeatedSpan};
/// let docs = ["aXXb", "cXXd"];
/// let top = most_repeated(&docs, &[vec![1..3], vec![1..3]], 1);
/// assert_eq!(top, [RepeatedSpan { bytes: b"XX".to_vec(), count: 2 }]);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RepeatedSpan {
    /// The span's bytes.
    pub bytes: Vec<u8>,
    /// How many ranges, over all documents, hold exactly these bytes.
    pub count: usize,
}

/// The `top` most frequent contents among the ranges of all documents
/// (`ranges[i]` are byte ranges of `docs[i]`): the spans a removal takes out most
/// often, most frequent first, then longest, then by bytes.
///
/// # Example
///
/// ```
/// use near_dup::repeats::substrings::most_repeated;
/// let docs = ["aXXb", "cXXd", "YYe"];
/// let ranges = vec![vec![1..3], vec![1..3], vec![0..2]];
/// let top = most_repeated(&docs, &ranges, 5);
/// assert_eq!(top[0].bytes, b"XX");
/// assert_eq!(top[0].count, 2);
/// assert_eq!(top.len(), 2);
/// ```
pub fn most_repeated<D: AsRef<[u8]>>(
    docs: &[D],
    ranges: &[Vec<Range<usize>>],
    top: usize,
) -> Vec<RepeatedSpan> {
    let mut counts: std::collections::HashMap<&[u8], usize> = std::collections::HashMap::new();
    for (doc, doc_ranges) in docs.iter().zip(ranges) {
        let doc = doc.as_ref();
        for r in doc_ranges {
            if let Some(span) = doc.get(r.clone()) {
                *counts.entry(span).or_default() += 1;
            }
        }
    }
    let mut spans: Vec<(&[u8], usize)> = counts.into_iter().collect();
    spans.sort_unstable_by(|a, b| {
        b.1.cmp(&a.1)
            .then(b.0.len().cmp(&a.0.len()))
            .then(a.0.cmp(b.0))
    });
    spans
        .into_iter()
        .take(top)
        .map(|(bytes, count)| RepeatedSpan {
            bytes: bytes.to_vec(),
            count,
        })
        .collect()
}

#[cfg(test)]
#[allow(clippy::single_range_in_vec_init)] // lists of ranges, one range long on purpose
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Removal leaves valid UTF-8 (a `String`), and the bytes kept are exactly
        /// those outside the widened ranges, which cover every byte asked for.
        #[test]
        fn removal_keeps_exactly_the_bytes_outside(
            text in "[aé€😀 ]{0,30}",
            raw in proptest::collection::vec((0usize..130, 0usize..130), 0..5),
        ) {
            let ranges: Vec<Range<usize>> = raw.iter().map(|&(a, b)| a.min(b)..a.max(b)).collect();
            let wide = char_ranges(&text, &ranges);
            let inside = |i: usize| wide.iter().any(|r| r.contains(&i));
            for r in &ranges {
                for i in r.start..r.end.min(text.len()) {
                    prop_assert!(inside(i));
                }
            }
            for r in &wide {
                prop_assert!(text.is_char_boundary(r.start) && text.is_char_boundary(r.end));
            }
            let kept: Vec<u8> = text.bytes().enumerate().filter(|&(i, _)| !inside(i)).map(|(_, b)| b).collect();
            prop_assert_eq!(remove_ranges(&text, &ranges).into_bytes(), kept);
        }
    }

    #[test]
    fn merge_is_canonical() {
        assert_eq!(merge_ranges(vec![]), Vec::<Range<usize>>::new());
        assert_eq!(merge_ranges(vec![3..4, 0..1, 1..2]), [0..2, 3..4]);
        assert_eq!(merge_ranges(vec![0..10, 2..3]), [0..10]);
    }

    #[test]
    fn ties_rank_longer_then_bytes() {
        let docs = ["ab", "abc", "b"];
        let ranges = vec![vec![0..1, 1..2], vec![0..3], vec![0..1]];
        let top = most_repeated(&docs, &ranges, 10);
        let got: Vec<(&[u8], usize)> = top.iter().map(|s| (&s.bytes[..], s.count)).collect();
        assert_eq!(got, [(&b"b"[..], 2), (b"abc", 1), (b"a", 1)]);
    }
}
