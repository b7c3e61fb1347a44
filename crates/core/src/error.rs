//! The one error type shared by every ndd crate.

use crate::SchemeId;

/// Everything that can go wrong in ndd, as a value.
///
/// No ndd function panics on user input: invalid parameters, mismatched signatures,
/// invalid UTF-8 and corrupt serialized bytes all come back as an `Error`. The enum is
/// `#[non_exhaustive]`: new variants may be added in minor releases, so match with a
/// wildcard arm or use [`Error::kind`].
///
/// # Example
///
/// ```
/// use near_dup::{Error, ErrorKind};
///
/// let err = Error::invalid_parameter("k", "must be at least 1");
/// assert_eq!(err.kind(), ErrorKind::InvalidParameter);
/// assert_eq!(err.to_string(), "invalid parameter `k`: must be at least 1");
/// ```
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A constructor or builder got a parameter outside its domain.
    #[error("invalid parameter `{name}`: {reason}")]
    InvalidParameter {
        /// The parameter's name as it appears in the API.
        name: &'static str,
        /// What the parameter must satisfy.
        reason: String,
    },
    /// Two signatures (or a signature and an index) were built with different parameters.
    #[error("incompatible schemes: {left} vs {right} (built with different parameters)")]
    Incompatible {
        /// The scheme of the left operand.
        left: SchemeId,
        /// The scheme of the right operand.
        right: SchemeId,
    },
    /// Input that is not what the function accepts (for example invalid UTF-8 or a
    /// non-finite weight), with the position where known.
    #[error("invalid input: {reason}")]
    InvalidInput {
        /// What is wrong, including a byte offset or index where known.
        reason: String,
    },
    /// Serialized bytes that are truncated, of an unknown version, or inconsistent.
    #[error("corrupt data: {reason}")]
    CorruptData {
        /// What failed to decode.
        reason: String,
    },
    /// Two buffers that must have the same length do not.
    #[error("length mismatch: expected {expected}, got {actual}")]
    LengthMismatch {
        /// The length that was required.
        expected: usize,
        /// The length that was given.
        actual: usize,
    },
}

/// The category of an [`Error`], stable across releases for matching.
///
/// # Example
///
/// ```
/// use near_dup::{Error, ErrorKind};
/// assert_eq!(Error::corrupt_data("truncated").kind(), ErrorKind::CorruptData);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// See [`Error::InvalidParameter`].
    InvalidParameter,
    /// See [`Error::Incompatible`].
    Incompatible,
    /// See [`Error::InvalidInput`].
    InvalidInput,
    /// See [`Error::CorruptData`].
    CorruptData,
    /// See [`Error::LengthMismatch`].
    LengthMismatch,
}

impl Error {
    /// The category of this error.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::{Error, ErrorKind};
    /// let e = Error::LengthMismatch { expected: 2, actual: 3 };
    /// assert_eq!(e.kind(), ErrorKind::LengthMismatch);
    /// ```
    #[must_use]
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::InvalidParameter { .. } => ErrorKind::InvalidParameter,
            Error::Incompatible { .. } => ErrorKind::Incompatible,
            Error::InvalidInput { .. } => ErrorKind::InvalidInput,
            Error::CorruptData { .. } => ErrorKind::CorruptData,
            Error::LengthMismatch { .. } => ErrorKind::LengthMismatch,
        }
    }

    /// An [`Error::InvalidParameter`] naming the parameter and its domain.
    ///
    /// # Example
    ///
    /// ```
    /// let e = near_dup::Error::invalid_parameter("threshold", "must lie in (0, 1)");
    /// assert!(e.to_string().contains("threshold"));
    /// ```
    #[must_use]
    pub fn invalid_parameter(name: &'static str, reason: impl Into<String>) -> Self {
        Error::InvalidParameter {
            name,
            reason: reason.into(),
        }
    }

    /// An [`Error::InvalidInput`] with a description.
    ///
    /// # Example
    ///
    /// ```
    /// let e = near_dup::Error::invalid_input("weight is NaN at index 3");
    /// assert_eq!(e.kind(), near_dup::ErrorKind::InvalidInput);
    /// ```
    #[must_use]
    pub fn invalid_input(reason: impl Into<String>) -> Self {
        Error::InvalidInput {
            reason: reason.into(),
        }
    }

    /// An [`Error::CorruptData`] with a description.
    ///
    /// # Example
    ///
    /// ```
    /// let e = near_dup::Error::corrupt_data("bad magic");
    /// assert_eq!(e.to_string(), "corrupt data: bad magic");
    /// ```
    #[must_use]
    pub fn corrupt_data(reason: impl Into<String>) -> Self {
        Error::CorruptData {
            reason: reason.into(),
        }
    }

    /// Checks that two schemes are equal, else an [`Error::Incompatible`].
    ///
    /// # Errors
    ///
    /// [`Error::Incompatible`] when `left != right`.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::{Error, SchemeId};
    /// let a = SchemeId::new("minhash").with(128).with(7).finish();
    /// let b = SchemeId::new("minhash").with(128).with(8).finish();
    /// assert!(Error::check_schemes(a, a).is_ok());
    /// assert!(Error::check_schemes(a, b).is_err());
    /// ```
    pub fn check_schemes(left: SchemeId, right: SchemeId) -> Result<(), Error> {
        if left == right {
            Ok(())
        } else {
            Err(Error::Incompatible { left, right })
        }
    }

    /// Checks that a length is the one required, else an [`Error::LengthMismatch`].
    ///
    /// # Errors
    ///
    /// [`Error::LengthMismatch`] when `expected != actual`.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::Error;
    /// assert!(Error::check_lengths(3, 3).is_ok());
    /// assert!(matches!(
    ///     Error::check_lengths(3, 2),
    ///     Err(Error::LengthMismatch { expected: 3, actual: 2 })
    /// ));
    /// ```
    pub fn check_lengths(expected: usize, actual: usize) -> Result<(), Error> {
        if expected == actual {
            Ok(())
        } else {
            Err(Error::LengthMismatch { expected, actual })
        }
    }
}
