"""near_dup: ndd's near-duplicate detection from Python.

Batch entry points over the Rust pipeline (``sketch``, ``dedup``, ``DedupIndex``,
``explain``), the stages as plain values for a distributed job
(``exact_digests``, ``band_keys``, ``verify``) and datasketch-shaped classes (``MinHash``, ``MinHashLSH``). See the
package README for where values and behaviour differ from datasketch's.
"""

from ._native import (
    DedupIndex,
    Error,
    MinHash,
    MinHashLSH,
    MinHashLSHForest,
    Outcome,
    __version__,
    band_keys,
    dedup,
    exact_digests,
    explain,
    sketch,
    verify,
)

__all__ = [
    "DedupIndex",
    "Error",
    "MinHash",
    "MinHashLSH",
    "MinHashLSHForest",
    "Outcome",
    "__version__",
    "band_keys",
    "dedup",
    "exact_digests",
    "explain",
    "sketch",
    "verify",
]
