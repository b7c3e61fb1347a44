//! [`TrySketcher`]: the fallible twin of [`Sketcher`], for sketchers that may refuse a
//! document (I-Match's size rules, bucketized MinHash's expansion cap, SimHash's check
//! for non-finite weights).

use std::convert::Infallible;

use crate::{FeatureSink, SchemeId, Signature, Sketcher};

/// Turns a stream of features into a signature, or refuses the document with an
/// [`Error`](Self::Error).
///
/// Every [`Sketcher`] is a `TrySketcher` whose error is [`Infallible`] (a blanket
/// impl, as `rand_core`'s `TryRngCore` for every `RngCore`), so code generic over
/// `TrySketcher` takes both kinds. Sketchers that may refuse a document implement this
/// trait instead of [`Sketcher`]; a sketcher that has both an infallible and a checked
/// mode exposes the checked one as a wrapper type (SimHash's `Checked`).
///
/// Contract of [`try_finish_into`](Self::try_finish_into): the state is reset whether
/// it succeeds or fails, and `out` is written only on success.
///
/// `scheme`, `new_state` and `new_signature` share their names with [`Sketcher`]'s:
/// with both traits imported, call them on a `Sketcher` type as `Sketcher::new_state(&s)`
/// (or import `TrySketcher` only where code is generic over it).
///
/// # Example
///
/// ```
/// use near_dup::{ExactSetSketcher, FeatureSink, SchemeId, TrySketcher};
/// let s = ExactSetSketcher::new(SchemeId::new("f").finish());
/// let mut state = TrySketcher::new_state(&s);
/// let mut sig = TrySketcher::new_signature(&s);
/// state.push(3);
/// let Ok(()) = s.try_finish_into(&mut state, &mut sig); // Error = Infallible
/// assert_eq!(sig.set().as_slice(), &[3]);
/// ```
pub trait TrySketcher {
    /// The signature type produced.
    type Signature: Signature;
    /// Per-document accumulator.
    type State: FeatureSink;
    /// Why a document is refused ([`Infallible`] for every [`Sketcher`]).
    type Error;

    /// The scheme stamped on every signature this sketcher produces.
    fn scheme(&self) -> SchemeId;

    /// A fresh, empty per-document state.
    fn new_state(&self) -> Self::State;

    /// A signature to be overwritten by [`try_finish_into`](Self::try_finish_into).
    fn new_signature(&self) -> Self::Signature;

    /// Writes the signature of everything pushed into `state` to `out`, or refuses the
    /// document; resets `state` either way, and leaves `out` unchanged on error.
    ///
    /// # Errors
    ///
    /// The implementor's [`Error`](Self::Error), documented on its impl.
    fn try_finish_into(
        &self,
        state: &mut Self::State,
        out: &mut Self::Signature,
    ) -> Result<(), Self::Error>;

    /// The signature of a set of pre-extracted features (allocates a state), or the
    /// refusal.
    ///
    /// # Errors
    ///
    /// As [`try_finish_into`](Self::try_finish_into).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::{ExactSetSketcher, SchemeId, TrySketcher};
    /// let s = ExactSetSketcher::new(SchemeId::new("f").finish());
    /// let Ok(sig) = s.try_sketch_features([2, 1, 2]);
    /// assert_eq!(sig.set().as_slice(), &[1, 2]);
    /// ```
    fn try_sketch_features<I: IntoIterator<Item = u64>>(
        &self,
        features: I,
    ) -> Result<Self::Signature, Self::Error> {
        let mut state = self.new_state();
        for f in features {
            state.push(f);
        }
        let mut out = self.new_signature();
        self.try_finish_into(&mut state, &mut out)?;
        Ok(out)
    }
}

impl<S: Sketcher + ?Sized> TrySketcher for S {
    type Signature = S::Signature;
    type State = S::State;
    type Error = Infallible;

    #[inline]
    fn scheme(&self) -> SchemeId {
        Sketcher::scheme(self)
    }
    #[inline]
    fn new_state(&self) -> Self::State {
        Sketcher::new_state(self)
    }
    #[inline]
    fn new_signature(&self) -> Self::Signature {
        Sketcher::new_signature(self)
    }
    #[inline]
    fn try_finish_into(
        &self,
        state: &mut Self::State,
        out: &mut Self::Signature,
    ) -> Result<(), Infallible> {
        self.finish_into(state, out);
        Ok(())
    }
}
