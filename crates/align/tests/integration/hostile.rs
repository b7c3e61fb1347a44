//! Hostile inputs of the block report (issue "bounded work"), shared by the test that
//! checks their reports against what the construction implies (`lcs.rs`) and the
//! `report_hostile` bench that measures them (`benches/align.rs` includes this file).

/// 40,000 one-word paragraphs against a copy with every odd word changed: 20,000
/// edits among 40,000 paragraphs (a paragraph lookup per edit was quadratic).
pub(crate) fn edited_paragraphs() -> (String, String) {
    let a: String = (0..40_000).map(|i| format!("w{i}\n\n")).collect();
    let b: String = (0..40_000)
        .map(|i| {
            let letter = if i % 2 == 0 { 'w' } else { 'x' };
            format!("{letter}{i}\n\n")
        })
        .collect();
    (a, b)
}

/// One word repeated 40,000 times against the same text after one other word: every
/// 4-gram everywhere.
pub(crate) fn repeated_word() -> (String, String) {
    let same = "the ".repeat(40_000);
    let shifted = format!("a {same}");
    (same, shifted)
}
