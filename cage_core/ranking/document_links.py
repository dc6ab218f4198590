"""Document links: how chunks of one document hang together, and which documents a query is about.

A retriever over split documents returns chunks; after a report's first chunk they say "the
company", not its name, and the chunk that answers is often the neighbour of the one that
scores best. What the chunks carry (:attr:`Passage.doc_id <cage_core.passage.Passage.doc_id>`,
``Passage.position``: LangChain ``source`` / ``start_index``, LlamaIndex ``ref_doc_id``) gives
the links that text alone does not. A pool has *document structure* when two or more of its
passages share a ``doc_id``; only then is it ranked by the *document view* below (a pool of
Wikipedia paragraphs, each its own document or none, never is: the view is inert there by
construction). With the settings of :class:`DocumentConfig`:

* the *names* of document d (:func:`document_names`): the title of its chunks when one has
  a title; else, when its first chunk (position 0) is in the pool, the title that chunk writes
  (:func:`~cage_core.names.documents.document_title`: a ``Title:`` field, front matter, an
  HTML title, a heading, a centered line: the name its link-index record reads too) or the
  subject it opens with, "X is …" (:func:`~cage_core.names.subjects.first_sentence_subject`),
  and the name its
  pool chunks name most often (the non-numeric entities of their graphs that are link names,
  :func:`~cage_core.names.may_link.may_link`, a possessive ``'s`` dropped; ties: first in
  pool order). Its *subject* ``s_d`` is the first of them; every chunk of d inherits them;
* the view's relevance (:func:`document_relevance`) is
  ``r_i = z(sim_i) + w_lex · z(bm25_i)`` (``w_lex`` = ``lexical_weight``), where an untitled
  chunk's BM25 text is its content after its document's subject (``"s_d. text"``,
  :func:`subject_texts`) unless it names one of the document's names itself: the subject is
  inherited for the lexical term too, once, so a chunk that says "the company" matches the
  company the query names as the one that names it does, and no more;
* ``D_q`` = the documents one of whose names the query names (whole words,
  case-insensitive, :func:`~cage_core.names.forms.normal_name` form); ``N_i = 1`` when passage
  i's document is in ``D_q``;
* ``r'_i = r_i + w_d · N_i`` (``w_d`` = ``document_weight``);
* the *leads*: for each document of ``D_q`` its chunk of highest ``r'`` (ties: input order) —
  the set view: each document the question is about anchors the evidence around its best
  chunk, so a comparison of two companies reaches into both reports, not only the top of
  one; with ``anchors = m > 0`` also the ``m`` passages of highest ``r'`` anchor;
* ``f_i = r_i + max(w_d · N_i, w_a · A_i)`` with ``A_i = max_{a ∈ leads ∪ anchors} J_ia``,
  ``J_ia = 1`` when i and a are adjacent chunks of one document (positions differing by one),
  else 0 (``w_a`` = ``adjacent_weight``): evidence that runs on past a chunk boundary is in the
  next chunk. A chunk's document counts once, by its stronger link — the neighbour of a lead
  in a named document is not lifted twice over the document's other chunks (the sum
  ``w_d · N_i + w_a · A_i`` was tried and not chosen: ``docs/history.md``). With
  ``w_a ≤ w_d`` (the defaults) a lead's neighbours, being chunks of a named document, gain
  nothing more: adjacency then lifts the neighbours of the ``m`` anchors in documents the
  query does not name. Why these values: the ``document.*`` rows of ``docs/provenance.md``.

The view's coherence term (:attr:`PoolScores.coherence
<cage_core.ranking.pool_scores.PoolScores.coherence>`) is ``f − r' = max(0, w_a · A_i − w_d ·
N_i)``; the pairwise matrix is ``J`` plus :data:`SIBLING_LINK` (0.5) for other chunks of one
document. What a result reports is the link to an earlier-ranked chunk of its document
(:func:`document_links`), with the matrix's weight as its strength: 1 for the adjacent chunk,
0.5 for another (:mod:`cage_core.ranking.explanation`); it names the document by the name
ingest gave it, else its title or the name its earliest chunk opens with, else its file
(:func:`shown_names`), not by the name its chunks repeat most.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from cage_core.config import DocumentConfig  # defined with the other settings
from cage_core.graphs.passage_graph import PassageGraph
from cage_core.graphs.pronouns import NUMERIC_ENTITY_TYPES
from cage_core.names.documents import document_title
from cage_core.names.forms import normal_name, normal_text
from cage_core.names.may_link import may_link
from cage_core.names.sources import path_name
from cage_core.names.subjects import first_sentence_subject
from cage_core.passage import Passage, Via
from cage_core.ranking.pool_bm25 import pool_bm25
from cage_core.scoring import ranking, standardize

__all__ = [
    "DocumentView",
    "SIBLING_LINK",
    "document_links",
    "document_matrix",
    "document_names",
    "document_relevance",
    "document_subjects",
    "document_vias",
    "document_view",
    "has_document_structure",
    "shown_names",
    "subject_texts",
]

_POSSESSIVE = re.compile(r"['’]s?$")
SIBLING_LINK = 0.5
"""Weight of two non-adjacent chunks of one document in :attr:`DocumentView.matrix`."""


@dataclass(frozen=True, eq=False)
class DocumentView:
    """The document view of one pool (symbols of the module docstring, pool order)."""

    relevance: np.ndarray
    """``[k]`` ``r'``."""
    fused: np.ndarray
    """``[k]`` ``f``."""
    matrix: np.ndarray
    """``[k, k]`` 1 for adjacent chunks of one document, :data:`SIBLING_LINK` for others."""
    subjects: tuple[str, ...]
    """How a via names each passage's document (:func:`shown_names`; "" for none)."""
    named: np.ndarray
    """``[k]`` ``N``: the query names the passage's document."""
    leads: tuple[int, ...]
    """The best chunk of each query-named document, in order of ``r'``."""


def has_document_structure(passages: Sequence[Passage]) -> bool:
    """Whether two or more passages share a ``doc_id``."""
    seen: set[str] = set()
    for p in passages:
        if p.doc_id is not None:
            if p.doc_id in seen:
                return True
            seen.add(p.doc_id)
    return False


def document_subjects(
    passages: Sequence[Passage], graphs: Sequence[PassageGraph]
) -> dict[str, str]:
    """``doc_id → s_d`` of the module docstring for the documents of the pool ("" for none)."""
    return {
        doc: names[0] if names else "" for doc, names in document_names(passages, graphs).items()
    }


def document_names(
    passages: Sequence[Passage], graphs: Sequence[PassageGraph]
) -> dict[str, tuple[str, ...]]:
    """``doc_id →`` the names of each document of the pool (module docstring), subject first."""
    titles: dict[str, str] = {}
    openings: dict[str, list[str]] = {}  # the texts of its first chunk (position 0)
    counts: dict[str, Counter[str]] = {}
    first_seen: dict[str, dict[str, int]] = {}
    for n, (p, g) in enumerate(zip(passages, graphs)):
        if p.doc_id is None:
            continue
        if p.title.strip() and p.doc_id not in titles:
            titles[p.doc_id] = p.title.strip()
        if p.position == 0:
            openings.setdefault(p.doc_id, []).append(p.text)
        names = counts.setdefault(p.doc_id, Counter())
        order = first_seen.setdefault(p.doc_id, {})
        for label, ent in zip(g.labels, g.entity_types):
            label = _POSSESSIVE.sub("", label)
            if ent and ent not in NUMERIC_ENTITY_TYPES and may_link(label) and normal_name(label):
                names[label] += 1
                order.setdefault(label, n * 100_000 + len(order))
    out: dict[str, tuple[str, ...]] = {}
    for doc, names in counts.items():
        if doc in titles:
            out[doc] = (titles[doc],)
            continue
        opener = next(filter(None, map(_opener, openings.get(doc, ()))), "")  # untitled only
        found = [opener] if opener else []
        if names:
            found.append(min(names, key=lambda name: (-names[name], first_seen[doc][name])))
        out[doc] = tuple(dict.fromkeys(found))
    return out


def shown_names(
    passages: Sequence[Passage], names_of: Mapping[str, tuple[str, ...]]
) -> tuple[str, ...]:
    """How a via names each passage's document (:func:`document_links`): the name ingest
    gave it (:attr:`~cage_core.passage.Passage.document_name`, the first of its chunks in the
    pool that has one), so a document is named the same way in every pool; else its subject
    (the first of ``names_of``, :func:`document_names`) when that is its title or the name its
    earliest chunk in the pool opens with, else what its ``doc_id`` names as a path
    (:func:`~cage_core.names.sources.path_name`: ``"docs/Type-Example.html"`` → ``"Type
    Example"``), else its subject: never the name its chunks merely repeat most ("Software"
    of a licence comment) where a file names the document; "" for a passage of no document."""
    sure = {p.doc_id for p in passages if p.title.strip()}
    sure.update(p.doc_id for p in passages if p.position == 0 and _opener(p.text))
    given: dict[str, str] = {}
    for p in passages:
        if p.doc_id is not None and p.document_name:
            given.setdefault(p.doc_id, p.document_name)
    shown: dict[str, str] = {}
    for doc, names in names_of.items():
        subject = names[0] if names else ""
        shown[doc] = given.get(doc) or (subject if doc in sure else path_name(doc) or subject)
    return tuple(shown.get(p.doc_id, "") if p.doc_id is not None else "" for p in passages)


def _opener(text: str) -> str:
    """The name a document's first chunk opens with: the title it writes, else the subject of
    its first sentence; "" when that is no name that may link."""
    opener = document_title(text) or first_sentence_subject(text)
    return opener if opener and may_link(opener) and normal_name(opener) else ""


def subject_texts(
    passages: Sequence[Passage], names_of: Mapping[str, tuple[str, ...]]
) -> list[str]:
    """Each passage's BM25 text for the view: ``"s_d. content"`` for an untitled passage whose
    document has a subject (``names_of``: :func:`document_names`) and whose content names none
    of the document's names (whole words, as the query is matched), else its content — a
    chunk that names its company already has the name once, and inheriting it again would
    rank the chunks that repeat the name above those that answer."""
    out = []
    for p in passages:
        names = names_of.get(p.doc_id, ()) if p.doc_id is not None else ()
        if names and not p.title.strip() and not _names_any(normal_text(p.content), names):
            out.append(f"{names[0]}. {p.content}")
        else:
            out.append(p.content)
    return out


def _names_any(words: str, names: Sequence[str]) -> bool:
    """Whether a text whose :func:`~cage_core.names.forms.normal_text` is ``words`` names one
    of ``names`` (whole words, case-insensitive)."""
    padded = f" {words} "
    return any(f" {name} " in padded for name in map(normal_name, names) if name)


def document_relevance(
    query: str,
    passages: Sequence[Passage],
    similarities: np.ndarray,
    lexical_weight: float,
    names_of: Mapping[str, tuple[str, ...]],
) -> np.ndarray:
    """``[k]`` the view's relevance ``z(sim_i) + lexical_weight · z(bm25_i)`` over
    :func:`subject_texts` (module docstring; ``names_of``: :func:`document_names`)."""
    r = standardize(np.asarray(similarities, dtype=np.float64))
    if not lexical_weight:
        return r
    return r + lexical_weight * standardize(pool_bm25(query, subject_texts(passages, names_of)))


def document_view(
    query: str,
    passages: Sequence[Passage],
    graphs: Sequence[PassageGraph],
    relevance: np.ndarray,
    config: DocumentConfig,
    names_of: Mapping[str, tuple[str, ...]] | None = None,
) -> DocumentView | None:
    """The :class:`DocumentView` of a pool, or ``None`` when the view does not apply (turned
    off, or the pool has no document structure: :func:`has_document_structure`).
    ``names_of``: the pool's :func:`document_names`, when the caller has them already."""
    if not config.enabled or not has_document_structure(passages):
        return None
    k = len(passages)
    r = np.asarray(relevance, dtype=np.float64)
    if names_of is None:
        names_of = document_names(passages, graphs)
    docs = [p.doc_id for p in passages]
    subjects = shown_names(passages, names_of)
    query_words = normal_text(query)
    named_docs = {d for d, names in names_of.items() if _names_any(query_words, names)}
    named = np.array([1.0 if d in named_docs else 0.0 for d in docs])
    r_doc = r + config.document_weight * named
    order = [int(i) for i in ranking(r_doc)]
    leads: list[int] = []
    for i in order:
        if docs[i] in named_docs and all(docs[j] != docs[i] for j in leads):
            leads.append(i)
    anchors = list(dict.fromkeys(leads + order[: config.anchors]))
    matrix = document_matrix(passages)
    fused = r_doc.copy()
    if anchors and config.adjacent_weight:
        adjacent = (matrix[:, anchors] == 1.0).any(axis=1)
        fused = np.maximum(r_doc, r + config.adjacent_weight * adjacent)
    return DocumentView(r_doc, fused, matrix, subjects, named, tuple(leads)) if k else None


def document_matrix(passages: Sequence[Passage]) -> np.ndarray:
    """``[k, k]`` symmetric, zero diagonal: 1 for adjacent chunks of one document (both
    positions known, differing by one), :data:`SIBLING_LINK` for other chunks of one document."""
    k = len(passages)
    matrix = np.zeros((k, k))
    by_doc: dict[str, list[int]] = {}
    for i, p in enumerate(passages):
        if p.doc_id is not None:
            by_doc.setdefault(p.doc_id, []).append(i)
    for members in by_doc.values():
        for a in members:
            for b in members:
                if a == b:
                    continue
                pa, pb = passages[a].position, passages[b].position
                near = pa is not None and pb is not None and abs(pa - pb) == 1
                matrix[a, b] = 1.0 if near else SIBLING_LINK
    return matrix


def document_links(
    passages: Sequence[Passage], order: Sequence[int], subjects: Sequence[str]
) -> list[tuple[Via, float] | None]:
    """For each rank of ``order`` (input indices, best first), the passage's link to an
    earlier-ranked chunk of its document, with the link's strength, or ``None``: to the
    adjacent chunk if one is ranked earlier (strength 1), else to the document's first ranked
    chunk (:data:`SIBLING_LINK`). The :class:`~cage_core.passage.Via` is of kind
    ``"document"`` and names the document by ``subjects[i]``, else by what its ``doc_id``
    names as a path (:func:`~cage_core.names.sources.path_name`: ``"sklearn/datasets/descr/
    twenty_newsgroups.rst"`` → ``"twenty newsgroups"``), else by the ``doc_id``, and the place:
    ``"same document: Acme, next chunk"`` when the passage is the chunk right after the linked
    one, ``"..., previous chunk"`` right before it, else ``"same document: Acme"``."""
    out: list[tuple[Via, float] | None] = [None] * len(order)
    seen: dict[str, list[tuple[int, int]]] = {}  # doc -> (rank, input index) ranked so far
    for rank, i in enumerate(order):
        p = passages[i]
        if p.doc_id is None:
            continue
        earlier = seen.setdefault(p.doc_id, [])
        if earlier:
            here = p.position
            near = [
                (r, j)
                for r, j in earlier
                if here is not None and _adjacent(passages[j].position, here)
            ]
            target, j = near[0] if near else earlier[0]
            name = f"same document: {subjects[i] or path_name(p.doc_id) or p.doc_id}"
            if near and here is not None:
                after = passages[j].position == here - 1
                name += ", next chunk" if after else ", previous chunk"
            out[rank] = Via(name, target, "document"), 1.0 if near else SIBLING_LINK
        earlier.append((rank, i))
    return out


def document_vias(
    passages: Sequence[Passage],
    order: Sequence[int],
    vias: Sequence[Via | None],
    subjects: Sequence[str],
) -> list[Via | None]:
    """The vias of a ranking (``order``, best first) with document links: a passage linked to
    an earlier-ranked chunk of its document has that link (:func:`document_links`) — a
    document link is the strongest; other passages keep their via from ``vias``."""
    links = document_links(passages, order, subjects)
    return [via if link is None else link[0] for link, via in zip(links, vias)]


def _adjacent(position: int | None, other: int) -> bool:
    """Whether a chunk at ``position`` (``None``: unknown) is right before or after ``other``."""
    return position is not None and abs(position - other) == 1
