"""What a ranking method needs and takes: the graph level and word vectors it reads, and the
settings of a ``CageConfig`` it ignores (logged once when a reranker is built with it)."""

from __future__ import annotations

from cage_core.config import CageConfig, quiet_warnings, warn_once
from cage_core.config.kinds import changed_settings, leaf_settings, with_setting
from cage_core.graphs.passage_graph import GraphLevel
from cage_core.methods import get_method
from cage_core.methods.base import RankingMethod

__all__ = [
    "ignored_by_method",
    "method_graph_level",
    "needs_vectors",
    "required_graph_level",
    "warn_ignored_by_method",
]

_READ_BY_THE_RERANKER = ("max_parse_chars", "graph_cache_size", "encoder.vector_dim")
"""Settings the reranker reads itself (parsing and caches), whatever the method."""


def ignored_by_method(config: CageConfig, method: str) -> tuple[str, ...]:
    """The settings changed in ``config`` that the method called ``method`` does not take:
    :func:`~cage_core.methods.get_method` builds the same method with each of them back at
    its default (``"paper"`` sets its own α and reads no bridge setting, ``"hybrid"`` its own
    α and chain; GraphER takes ``entity_weight`` and ``title_links`` only). Settings the
    reranker reads itself (:data:`_READ_BY_THE_RERANKER`) are not counted."""
    changed = [n for n in changed_settings(config) if n not in _READ_BY_THE_RERANKER]
    if not changed:
        return ()
    built = get_method(method, config)
    defaults = leaf_settings(CageConfig())
    with quiet_warnings():  # the configs compared with are the caller's, one setting reset
        return tuple(
            n for n in changed if get_method(method, with_setting(config, n, defaults[n])) == built
        )


def warn_ignored_by_method(config: CageConfig, method: str) -> None:
    """Log each of :func:`ignored_by_method` once per process, method and setting."""
    values = leaf_settings(config)
    for name in ignored_by_method(config, method):
        warn_once(
            f"CageReranker: {name}={values[name]!r} has no effect with method={method!r}, "
            f"which sets its own or reads none; it acts with method='cage'",
            key=f"method {method}:{name}",
        )


def needs_vectors(config: CageConfig, method: RankingMethod | None = None) -> bool:
    """Whether ranking with ``method`` (``None``: CAGE under ``config``) runs the R-GCN, which
    reads node word vectors and full graphs."""
    if method is not None:
        return bool(getattr(method, "needs_vectors", False))
    return config.uses_rgcn


def required_graph_level(config: CageConfig, method: RankingMethod | None = None) -> GraphLevel:
    """The graph level ranking with ``method`` (``None``: CAGE under ``config``) needs:
    ``"full"`` for the R-GCN, else ``"light"`` (named entities; what every other method
    reads, see :mod:`cage_core.graphs.passage_graph`)."""
    return "full" if needs_vectors(config, method) else "light"


def method_graph_level(config: CageConfig, method: str = "cage") -> GraphLevel:
    """:func:`required_graph_level` of a method given by name (``"cage"``: CAGE itself)."""
    return required_graph_level(config, get_method(method, config))
