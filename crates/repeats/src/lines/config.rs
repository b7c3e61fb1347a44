//! What a run counts and removes: the unit, its normalization, the shortest unit
//! considered, the policy and how occurrences are counted.

use super::error::Error;

/// The unit of text that is counted and removed.
///
/// # Example
///
/// ```
/// use near_dup::repeats::lines::Unit;
/// assert_eq!(Unit::default(), Unit::Line);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Unit {
    /// A line: the text up to a line feed (a carriage return before it is part of the
    /// line end). Removing a line removes its line end. CCNet's "paragraphs" are these
    /// newline-separated lines.
    #[default]
    Line,
    /// A paragraph: consecutive lines that are not blank (whitespace only). Removing
    /// a paragraph removes its line ends and the blank lines after it.
    Paragraph,
}

/// How a unit is normalized before it is hashed: whitespace is always collapsed (a
/// unit is compared as its sequence of whitespace-separated words); the rest is
/// optional, all on by default (as CCNet: lowercase, digits to 0; NFKC in place of
/// its accent stripping).
///
/// # Example
///
/// ```
/// use near_dup::repeats::lines::Normalization;
/// let n = Normalization::default();
/// assert!(n.fold_case && n.nfkc && n.digits);
/// assert!(!Normalization::NONE.fold_case);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Normalization {
    /// Unicode lowercasing (`ndd-shingle`'s case folding).
    pub fold_case: bool,
    /// NFKC (compatibility forms: `ﬁ` is `fi`, full-width letters are ASCII).
    pub nfkc: bool,
    /// Every numeric character (`char::is_numeric`) read as `0`, so that "© 2019"
    /// and "© 2024" are the same unit.
    pub digits: bool,
}

impl Normalization {
    /// Whitespace collapsed, nothing else.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::repeats::lines::Normalization;
    /// assert!(!Normalization::NONE.nfkc && !Normalization::NONE.digits);
    /// ```
    pub const NONE: Normalization = Normalization {
        fold_case: false,
        nfkc: false,
        digits: false,
    };
}

impl Default for Normalization {
    fn default() -> Self {
        Normalization {
            fold_case: true,
            nfkc: true,
            digits: true,
        }
    }
}

/// Which occurrences of a repeated unit are removed.
///
/// # Example
///
/// ```
/// use near_dup::repeats::lines::Policy;
/// assert_ne!(Policy::AtLeast(3), Policy::KeepFirst);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Policy {
    /// Every occurrence of a unit counted at least this many times (at least 2):
    /// boilerplate goes from every document, including the first that has it.
    AtLeast(u64),
    /// Every occurrence after the first, in input order (CCNet: a paragraph is kept
    /// where it is first seen).
    KeepFirst,
}

/// How a unit's count is taken for [`Policy::AtLeast`] and the report's ranking.
///
/// # Example
///
/// ```
/// use near_dup::repeats::lines::CountBy;
/// assert_eq!(CountBy::default(), CountBy::Occurrence);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CountBy {
    /// Every occurrence counts, also several in one document (CCNet's count).
    #[default]
    Occurrence,
    /// A document counts once however often the unit appears in it (datatrove's line
    /// deduplication counts documents).
    Document,
}

/// The parameters of a run.
///
/// # Example
///
/// ```
/// use near_dup::repeats::lines::{Config, CountBy, Policy, Unit};
/// let config = Config::new(Policy::AtLeast(3))
///     .with_unit(Unit::Paragraph)
///     .with_min_chars(20)
///     .with_count_by(CountBy::Document);
/// assert_eq!(config.min_chars, 20);
/// assert!(config.validate().is_ok());
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    /// Lines or paragraphs.
    pub unit: Unit,
    /// How units are normalized before they are compared.
    pub normalization: Normalization,
    /// Units shorter than this many characters (whitespace collapsed, before the
    /// normalization) are never counted nor removed. 0 by default.
    pub min_chars: usize,
    /// Which occurrences are removed.
    pub policy: Policy,
    /// How occurrences are counted.
    pub count_by: CountBy,
    /// How many of the most repeated units the summary lists (10 by default).
    pub top: usize,
}

impl Config {
    /// Lines, the default normalization, no minimum length, counts by occurrence,
    /// the 10 most repeated units reported, and `policy`.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::repeats::lines::{Config, Policy, Unit};
    /// assert_eq!(Config::new(Policy::KeepFirst).unit, Unit::Line);
    /// ```
    #[must_use]
    pub fn new(policy: Policy) -> Self {
        Config {
            unit: Unit::Line,
            normalization: Normalization::default(),
            min_chars: 0,
            policy,
            count_by: CountBy::Occurrence,
            top: 10,
        }
    }

    /// The same with `unit`.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::repeats::lines::{Config, Policy, Unit};
    /// let c = Config::new(Policy::KeepFirst).with_unit(Unit::Paragraph);
    /// assert_eq!(c.unit, Unit::Paragraph);
    /// ```
    #[must_use]
    pub fn with_unit(mut self, unit: Unit) -> Self {
        self.unit = unit;
        self
    }

    /// The same with `normalization`.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::repeats::lines::{Config, Normalization, Policy};
    /// let c = Config::new(Policy::KeepFirst).with_normalization(Normalization::NONE);
    /// assert!(!c.normalization.fold_case);
    /// ```
    #[must_use]
    pub fn with_normalization(mut self, normalization: Normalization) -> Self {
        self.normalization = normalization;
        self
    }

    /// The same with `min_chars`.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::repeats::lines::{Config, Policy};
    /// assert_eq!(Config::new(Policy::KeepFirst).with_min_chars(5).min_chars, 5);
    /// ```
    #[must_use]
    pub fn with_min_chars(mut self, min_chars: usize) -> Self {
        self.min_chars = min_chars;
        self
    }

    /// The same with `count_by`.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::repeats::lines::{Config, CountBy, Policy};
    /// let c = Config::new(Policy::AtLeast(2)).with_count_by(CountBy::Document);
    /// assert_eq!(c.count_by, CountBy::Document);
    /// ```
    #[must_use]
    pub fn with_count_by(mut self, count_by: CountBy) -> Self {
        self.count_by = count_by;
        self
    }

    /// The same with `top`.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::repeats::lines::{Config, Policy};
    /// assert_eq!(Config::new(Policy::KeepFirst).with_top(3).top, 3);
    /// ```
    #[must_use]
    pub fn with_top(mut self, top: usize) -> Self {
        self.top = top;
        self
    }

    /// Checks the parameters.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] for [`Policy::AtLeast`] below 2 (1 would remove
    /// every unit).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::repeats::lines::{Config, Policy};
    /// assert!(Config::new(Policy::AtLeast(2)).validate().is_ok());
    /// assert!(Config::new(Policy::AtLeast(0)).validate().is_err());
    /// ```
    pub fn validate(&self) -> Result<(), Error> {
        match self.policy {
            Policy::AtLeast(n) if n < 2 => Err(Error::InvalidParameter {
                name: "policy",
                message: format!(
                    "a unit must be seen at least 2 times to be removed, not {n} (every unit \
                     is seen once)"
                ),
            }),
            _ => Ok(()),
        }
    }
}
