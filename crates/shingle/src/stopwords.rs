//! The built-in English stopword list of [`crate::spots::SpotSigExtractor`].

/// Very frequent English function words: articles, auxiliaries and copulas,
/// demonstratives, pronouns, prepositions and conjunctions, plus `said` (common in news
/// text, the domain SpotSigs was designed for). Lowercase; matched case-insensitively.
///
/// The SpotSigs paper (M. Theobald, J. Siddharth, A. Paepcke, "SpotSigs: Robust and
/// Efficient Near Duplicate Detection in Large Web Collections", SIGIR 2008) uses a
/// small set of such words as antecedents; this list is our choice in that spirit.
pub(crate) const ENGLISH: &[&str] = &[
    "a", "an", "the", // articles
    "is", "are", "was", "were", "be", "been", "being", // copulas
    "has", "have", "had", "can", "could", "will", "would", "should", "said", // verbs
    "there", "this", "that", "these", "those", "it", "its", // demonstratives
    "he", "she", "they", "we", "his", "her", "their", "which", "who", // pronouns
    "of", "to", "for", "on", "in", "at", "by", "with", "from", // prepositions
    "and", "or", "but", "as", "not", "no", // conjunctions, negation
];
