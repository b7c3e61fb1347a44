"""Type stubs of near_dup (the Rust extension near_dup._native, re-exported)."""

from os import PathLike
from types import TracebackType
from typing import (
    Any,
    Dict,
    Hashable,
    Iterable,
    Iterator,
    List,
    Literal,
    Optional,
    Tuple,
    Type,
    TypedDict,
    Union,
    final,
)

from typing_extensions import Unpack, disjoint_base

import numpy as np
import numpy.typing as npt

__all__ = [
    "DedupIndex",
    "Error",
    "MinHash",
    "MinHashLSH",
    "MinHashLSHEnsemble",
    "MinHashLSHForest",
    "MinHashLSHSession",
    "Outcome",
    "SimHash",
    "SimHashIndex",
    "WeightedMinHash",
    "WeightedMinHashGenerator",
    "__version__",
    "band_keys",
    "dedup",
    "exact_digests",
    "explain",
    "sketch",
    "verify",
]

__version__: str

_Texts = Union[Iterable[str], Iterable[Tuple[Any, str]], Any]
"""A list or iterable of str, an iterable of (id, text) pairs, a pandas Series or a
pyarrow string array."""

_Method = Literal["minhash", "simhash", "imatch", "signcd", "exact"]
_Verify = Literal[
    "jaccard", "exact", "method", "estimate", "containment",
    "align", "align-combined", "align-dice", "align-containment", "align-max",
]
_Group = Literal["components", "center", "durian"]
_RepresentativeName = Literal["first", "first-seen", "smallest-id", "longest", "order"]

class Error(Exception):
    """An ndd error that is neither a bad parameter or input (ValueError) nor a file
    error (OSError): corrupt or truncated bytes, among others."""

def sketch(
    texts: _Texts,
    num_perm: int = 128,
    seed: int = 0,
    k: Optional[int] = None,
    char_k: Optional[int] = None,
    nfkc: bool = False,
) -> npt.NDArray[np.uint64]:
    """MinHash signatures of `texts`, shape (n, num_perm): the sketches ndd's MinHash
    method computes with the same settings (word 3-grams by default), on all cores."""

class _Settings(TypedDict, total=False):
    """The `ndd dedup` options that dedup and DedupIndex share, keyword-only; absent
    ones take ndd's defaults: threshold 0.8, the method's verifier (exact Jaccard for
    MinHash), group "components", representative "first", word 3-grams, 128 values,
    seed 0, the exact pass on, NFKC off."""

    threshold: Optional[float]
    verify: Optional[_Verify]
    group: _Group
    representative: _RepresentativeName
    k: Optional[int]
    char_k: Optional[int]
    num_perm: Optional[int]
    seed: Optional[int]
    exact_pass: bool
    nfkc: bool

def dedup(
    texts: _Texts, *, method: _Method = "minhash", **settings: Unpack[_Settings]
) -> Outcome:
    """Deduplicates `texts` with ndd's pipeline (the groups of `ndd dedup` with the
    same options)."""

def explain(
    threshold: float = 0.8,
    num_perm: int = 128,
    k: Optional[int] = None,
    char_k: Optional[int] = None,
) -> Dict[str, Any]:
    """bands, rows, probability_at_threshold and standard_error of a MinHash banding."""

def exact_digests(texts: _Texts, nfkc: bool = False) -> List[bytes]:
    """The exact pass's 20-byte digest of each text (SHA-1 of the normalized word
    string): equal digests are the exact copies dedup pairs first."""

def band_keys(
    signatures: npt.NDArray[np.uint64], threshold: float = 0.8
) -> npt.NDArray[np.uint64]:
    """The LSH band keys of sketch() rows with dedup's banding at `threshold`: an
    (n, bands) array; documents sharing a key in a column are candidates."""

def verify(
    texts: _Texts,
    pairs: Iterable[Tuple[int, int]],
    threshold: float = 0.8,
    verify: _Verify = "jaccard",
    k: Optional[int] = None,
    char_k: Optional[int] = None,
    nfkc: bool = False,
) -> Tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]:
    """The candidate pairs (index pairs into `texts`) whose score reaches
    `threshold`, as dedup verifies them: an (m, 2) array and the scores."""

@final
class Outcome:
    """What a dedup run found; indices refer to the documents as given."""

    @property
    def groups(self) -> List[List[int]]: ...
    @property
    def group_ids(self) -> List[List[str]]: ...
    @property
    def representatives(self) -> npt.NDArray[np.int64]: ...
    @property
    def kept(self) -> npt.NDArray[np.int64]: ...
    @property
    def dropped(self) -> npt.NDArray[np.int64]: ...
    @property
    def labels(self) -> npt.NDArray[np.int64]: ...
    @property
    def pairs(self) -> npt.NDArray[np.int64]:
        """An (m, 2) array of document indices a < b, sorted."""
    @property
    def scores(self) -> npt.NDArray[np.float64]: ...
    @property
    def report(self) -> Dict[str, Any]: ...

@final
class DedupIndex:
    """ndd's saved MinHash index: batches deduplicated against everything before."""

    def __new__(cls, **settings: Unpack[_Settings]) -> DedupIndex: ...
    def add(self, texts: _Texts) -> Outcome: ...
    def query(self, text: str, k: int = 10) -> List[Tuple[str, float]]: ...
    def ids(self) -> List[str]: ...
    def save(self, path: Union[str, PathLike[str]]) -> None: ...
    @staticmethod
    def load(path: Union[str, PathLike[str]]) -> DedupIndex: ...
    def to_bytes(self) -> bytes: ...
    @staticmethod
    def from_bytes(bytes: bytes) -> DedupIndex: ...
    def __len__(self) -> int: ...

@final
class MinHash:
    """datasketch's MinHash: num_perm hash functions (ndd-minhash's classic scheme)
    over values hashed by XXH3-64 (not datasketch's SHA-1: digests differ, estimates
    agree within statistics)."""

    def __new__(
        cls,
        num_perm: int = 128,
        seed: int = 1,
        hashvalues: Optional[npt.NDArray[np.uint64]] = None,
    ) -> MinHash: ...
    @property
    def num_perm(self) -> int: ...
    @property
    def seed(self) -> int: ...
    def update(self, value: Union[bytes, str]) -> None: ...
    def update_batch(self, values: Iterable[Union[bytes, str]]) -> None: ...
    def jaccard(self, other: MinHash) -> float: ...
    def jaccard_std_error(self, other: MinHash) -> float: ...
    def merge(self, other: MinHash) -> None: ...
    def digest(self) -> npt.NDArray[np.uint64]: ...
    def copy(self) -> MinHash: ...
    def is_empty(self) -> bool: ...
    def clear(self) -> None: ...
    def to_bytes(self) -> bytes: ...
    @staticmethod
    def from_bytes(data: bytes, num_perm: int = 128, seed: int = 1) -> MinHash: ...
    def count(self) -> float:
        """The estimated number of distinct values given (datasketch's count)."""
    @staticmethod
    def union(*mhs: MinHash) -> MinHash:
        """A new sketch of the union of two or more sketches' sets."""
    @staticmethod
    def bulk(
        b: Iterable[Iterable[Union[bytes, str]]], *, num_perm: int = 128, seed: int = 1
    ) -> List[MinHash]: ...
    @staticmethod
    def generator(
        b: Iterable[Iterable[Union[bytes, str]]], *, num_perm: int = 128, seed: int = 1
    ) -> Iterator[MinHash]: ...
    def __len__(self) -> int: ...

@disjoint_base
class _KeyedIndex:
    """What MinHashLSH, MinHashLSHForest and MinHashLSHEnsemble share: MinHash
    sketches under keys."""

    def remove(self, key: Hashable) -> None:
        """Removes `key`; a key not present raises ValueError."""
    def keys(self) -> List[Any]: ...
    def is_empty(self) -> bool: ...
    def __contains__(self, key: Hashable, /) -> bool: ...
    def __len__(self) -> int: ...

@final
class MinHashLSH(_KeyedIndex):
    """datasketch's MinHashLSH over ndd-lsh's banded index (the same b and r)."""

    def __new__(
        cls,
        threshold: float = 0.9,
        num_perm: int = 128,
        weights: Tuple[float, float] = (0.5, 0.5),
        params: Optional[Tuple[int, int]] = None,
    ) -> MinHashLSH: ...
    def insert(self, key: Hashable, minhash: MinHash, check_duplication: bool = True) -> None: ...
    def query(self, minhash: MinHash) -> List[Any]: ...
    def insertion_session(self, buffer_size: int = 50000) -> MinHashLSHSession: ...
    def deletion_session(self, buffer_size: int = 50000) -> MinHashLSHSession: ...
    def get_counts(self) -> List[Dict[int, int]]:
        """Per band, the number of keys under each band key (an int, not
        datasketch's bytes)."""
    def get_subset_counts(self, *keys: Hashable) -> List[Dict[int, int]]: ...
    def add_to_query_buffer(self, minhash: MinHash) -> None: ...
    def collect_query_buffer(self) -> List[Any]:
        """The keys every buffered query finds; empties the buffer."""
    @property
    def params(self) -> Tuple[int, int]: ...
    @property
    def b(self) -> int: ...
    @property
    def r(self) -> int: ...
    @property
    def threshold(self) -> float: ...

@final
class MinHashLSHSession:
    """A context manager over a MinHashLSH (insertion_session, deletion_session):
    inserts and removals apply at once."""

    def __enter__(self) -> MinHashLSHSession: ...
    def __exit__(
        self,
        exc_type: Optional[Type[BaseException]],
        exc_value: Optional[BaseException],
        traceback: Optional[TracebackType],
        /,
    ) -> bool: ...
    def close(self) -> None: ...
    def insert(self, key: Hashable, minhash: MinHash, check_duplication: bool = True) -> None: ...
    def remove(self, key: Hashable) -> None: ...

@final
class MinHashLSHForest(_KeyedIndex):
    """datasketch's MinHashLSHForest over ndd-lsh's LshForest: `l` trees of
    num_perm // l slots; query(mh, k) gives the k most similar keys, best first."""

    def __new__(cls, num_perm: int = 128, l: int = 8) -> MinHashLSHForest: ...
    def add(self, key: Hashable, minhash: MinHash) -> None: ...
    def index(self) -> None: ...
    def query(self, minhash: MinHash, k: int) -> List[Any]: ...

@final
class MinHashLSHEnsemble(_KeyedIndex):
    """datasketch's MinHashLSHEnsemble over ndd-lsh's LshEnsemble: containment search,
    the keys of indexed sets X with |Q ∩ X| / |Q| >= threshold for a query set Q
    (candidates, unverified). Partitions are fixed size classes (two per doubling of
    the set size) instead of datasketch's num_part equi-depth ones, so index() may be
    called again and keys removed; num_part is checked and kept for datasketch
    programs. threshold lies strictly between 0 and 1."""

    def __new__(
        cls,
        threshold: float = 0.9,
        num_perm: int = 128,
        num_part: int = 16,
        m: int = 8,
        weights: Tuple[float, float] = (0.5, 0.5),
    ) -> MinHashLSHEnsemble: ...
    def index(self, entries: Iterable[Tuple[Hashable, MinHash, int]]) -> None:
        """Indexes (key, minhash, size) entries, size the set's number of distinct
        values; bad entries raise ValueError and leave the index unchanged."""
    def query(self, minhash: MinHash, size: int) -> List[Any]:
        """The keys whose sets may contain `threshold` of the query set."""
    @property
    def threshold(self) -> float: ...
    @property
    def h(self) -> int:
        """num_perm, datasketch's h."""
    @property
    def m(self) -> int:
        """The longest band, datasketch's memory factor m."""
    @property
    def partitions(self) -> int:
        """The number of occupied size partitions."""

@final
class WeightedMinHash:
    """datasketch's WeightedMinHash: sample_size consistent weighted samples (ICWS) of
    a vector; digest() holds one uint64 hash of datasketch's (k, t) pair each."""

    def __new__(cls, seed: int, hashvalues: npt.NDArray[np.uint64]) -> WeightedMinHash: ...
    def jaccard(self, other: WeightedMinHash) -> float:
        """The estimated weighted Jaccard similarity sum(min) / sum(max)."""
    def digest(self) -> npt.NDArray[np.uint64]: ...
    @property
    def hashvalues(self) -> npt.NDArray[np.uint64]: ...
    @property
    def seed(self) -> int: ...
    def copy(self) -> WeightedMinHash: ...
    def to_bytes(self) -> bytes: ...
    @staticmethod
    def from_bytes(data: bytes, seed: int = 1) -> WeightedMinHash: ...
    def __len__(self) -> int: ...

@final
class WeightedMinHashGenerator:
    """datasketch's WeightedMinHashGenerator over ndd-minhash's IcwsMinHasher (Ioffe's
    ICWS with its own random numbers: samples differ from datasketch's, estimates
    agree in distribution)."""

    def __new__(cls, dim: int, sample_size: int = 128, seed: int = 1) -> WeightedMinHashGenerator: ...
    def minhash(self, v: Union[npt.ArrayLike, Iterable[float]]) -> WeightedMinHash:
        """The sketch of `dim` non-negative finite weights; a wrong length, a negative,
        NaN or infinite weight or an all-zero vector raise ValueError."""
    def minhash_many(self, X: Any) -> List[Optional[WeightedMinHash]]:
        """The sketch of each row of a 2-D array or scipy sparse matrix, None for an
        all-zero row."""
    @property
    def dim(self) -> int: ...
    @property
    def sample_size(self) -> int: ...
    @property
    def seed(self) -> int: ...

_Token = Union[str, bytes]

@final
class SimHash:
    """The simhash package's Simhash over ndd-simhash: the f-bit fingerprint of a text
    (word 3-grams, as the ndd tool's simhash method), of a list of tokens or (token,
    weight) pairs (XXH3-64 of each token's bytes), or an integer fingerprint itself.
    f is a positive multiple of 64."""

    def __new__(
        cls, value: Union[str, int, Iterable[Union[_Token, Tuple[_Token, float]]]], f: int = 64
    ) -> SimHash: ...
    @property
    def value(self) -> int: ...
    @property
    def f(self) -> int: ...
    def distance(self, another: SimHash) -> int:
        """The number of bits that differ."""
    def to_bytes(self) -> bytes: ...
    @staticmethod
    def from_bytes(data: bytes) -> SimHash: ...

@final
class SimHashIndex:
    """The simhash package's SimhashIndex over ndd-index's HammingIndex: 64-bit
    fingerprints under keys; get_near_dups gives every key within k bits, nearest
    first."""

    def __new__(
        cls, objs: Optional[Iterable[Tuple[Hashable, SimHash]]] = None, f: int = 64, k: int = 2
    ) -> SimHashIndex: ...
    def add(self, obj_id: Hashable, simhash: SimHash) -> None: ...
    def delete(self, obj_id: Hashable, simhash: Optional[SimHash] = None) -> None: ...
    def get_near_dups(self, simhash: SimHash) -> List[Any]: ...
    @property
    def k(self) -> int: ...
    @property
    def f(self) -> int: ...
    def __contains__(self, obj_id: Hashable, /) -> bool: ...
    def __len__(self) -> int: ...
