//! The input's fingerprint as a run of the stages has it: given
//! ([`OutOfCore::input_fingerprint`]), or computed by a function
//! ([`OutOfCore::input_fingerprint_with`]) first or on a thread of its own beside the
//! sketch stage. It goes into every stage's fingerprint, which the stage markers
//! (`manifest.rs`) carry: a marker is saved only once it is known.
//!
//! [`OutOfCore::input_fingerprint`]: super::OutOfCore::input_fingerprint
//! [`OutOfCore::input_fingerprint_with`]: super::OutOfCore::input_fingerprint_with

use std::path::Path;
use std::sync::Arc;
use std::thread::JoinHandle;

use super::manifest::Marker;
use crate::Error;

/// A function computing the input's fingerprint
/// ([`OutOfCore::input_fingerprint_with`](super::OutOfCore::input_fingerprint_with)).
#[derive(Clone)]
pub(super) struct InputFingerprintFn(pub(super) Arc<dyn Fn() -> Result<u64, Error> + Send + Sync>);

impl std::fmt::Debug for InputFingerprintFn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("InputFingerprintFn(..)")
    }
}

/// The input's fingerprint during a run: known, or being computed beside the sketch
/// stage.
pub(super) enum Input {
    Known(u64),
    /// On a thread of its own: nothing can be reused, and only the markers, saved
    /// after it is known, carry it.
    Pending(JoinHandle<Result<u64, Error>>),
}

impl Input {
    /// `known` when no function computes the fingerprint; else `by`'s value, computed
    /// now when `dir` holds a marker of the sketch stage `sketch` (whether it is
    /// reused depends on the value), else on a thread of its own.
    pub(super) fn start(
        known: u64,
        by: Option<&InputFingerprintFn>,
        dir: &Path,
        sketch: &str,
    ) -> Result<Self, Error> {
        match by {
            None => Ok(Input::Known(known)),
            Some(f) if Marker::exists(dir, sketch) => (f.0)().map(Input::Known),
            Some(f) => {
                let f = Arc::clone(&f.0);
                std::thread::Builder::new()
                    .name("ndd-input-fingerprint".to_owned())
                    .spawn(move || f())
                    .map(Input::Pending)
                    .map_err(|e| Error::io(dir, e))
            }
        }
    }

    /// The fingerprint, 0 standing in while it is computed (the stages' markers are
    /// not saved meanwhile, and none can be reused).
    pub(super) fn now(&self) -> u64 {
        match self {
            Input::Known(v) => *v,
            Input::Pending(_) => 0,
        }
    }

    /// The fingerprint, waited for: the computing thread's error is the run's.
    pub(super) fn wait(&mut self) -> Result<u64, Error> {
        let value = match std::mem::replace(self, Input::Known(0)) {
            Input::Known(v) => v,
            Input::Pending(thread) => thread
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic))?,
        };
        *self = Input::Known(value);
        Ok(value)
    }
}
