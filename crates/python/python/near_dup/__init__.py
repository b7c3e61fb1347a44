"""near_dup: ndd's near-duplicate detection from Python.

Batch entry points over the Rust pipeline (``sketch``, ``dedup``, ``DedupIndex``,
``explain``) and datasketch-shaped classes (``MinHash``, ``MinHashLSH``). See the
package README for where values and behaviour differ from datasketch's.
"""

from ._native import (
    DedupIndex,
    Error,
    MinHash,
    MinHashLSH,
    Outcome,
    __version__,
    dedup,
    explain,
    sketch,
)

__all__ = [
    "DedupIndex",
    "Error",
    "MinHash",
    "MinHashLSH",
    "Outcome",
    "__version__",
    "dedup",
    "explain",
    "sketch",
]
