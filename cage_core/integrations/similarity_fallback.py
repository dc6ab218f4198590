"""The one warning a framework reranker gives when it must embed what its retriever could score.

The rerank step costs milliseconds when the retriever hands on its own query similarities,
and embedding the query and every retrieved passage again when it does not (0.7–1.8 s a
query for 20 chunks with MiniLM on a CPU, 85–244× the scored step, as measured for issue 27;
``python benchmarks/claims/real_pipelines.py`` measures it as "langchain-plain"). That slow
path is legal (a retriever with no scores) but rarely meant, so each reranker instance says so
once, at WARNING, with what the embedding cost on the call that found it and how to avoid it; a
caller who asks for embedding on purpose (LangChain ``score_key=None``, LlamaIndex
``similarity_source="embed"``) is not warned.
"""

from __future__ import annotations

import logging
import threading
from typing import Protocol

__all__ = ["OnceWarning", "fallback_message", "warn_once"]

_lock = threading.Lock()


class OnceWarning(Protocol):
    """A reranker that remembers whether it has warned (a plain bool attribute, so it pickles
    and deep-copies)."""

    _warned_fallback: bool


def fallback_message(owner: str, reason: str, count: int, seconds: float, fix: str) -> str:
    """The warning's text: what was missing, the measured cost, and the fix."""
    return (
        f"{owner}: {reason}, so the query and {count} passages were embedded to get the "
        f"similarity ({1e3 * seconds:.0f} ms on this call; with the retriever's scores the "
        f"rerank step embeds nothing). {fix} (warned once per {owner})"
    )


def warn_once(
    owner: OnceWarning, logger: logging.Logger, message: str, flag: str = "_warned_fallback"
) -> bool:
    """Log ``message`` at WARNING the first time for ``owner`` (thread-safe); whether it did.
    ``flag``: the owner's bool attribute that remembers it (another warning, another flag)."""
    with _lock:
        if getattr(owner, flag):
            return False
        setattr(owner, flag, True)
    logger.warning("%s", message)
    return True
