"""near_dup: ndd's near-duplicate detection from Python.

Batch entry points over the Rust pipeline (``sketch``, ``dedup``, ``DedupIndex``,
``explain``), the stages as plain values for a distributed job (``exact_digests``,
``band_keys``, ``verify``), datasketch-shaped classes (``MinHash``, ``MinHashLSH``,
``MinHashLSHForest``, ``MinHashLSHEnsemble``, ``WeightedMinHashGenerator``,
``WeightedMinHash``) and ``SimHash`` / ``SimHashIndex`` shaped like the ``simhash``
package. See the package README for where values and behaviour differ from theirs. Everything public is the Rust extension's (``near_dup._native``).
"""

from . import _native
from ._native import *  # noqa: F401,F403 - the extension's names are the package's
from ._native import __version__

__all__ = sorted(n for n in dir(_native) if not n.startswith("_")) + ["__version__"]
