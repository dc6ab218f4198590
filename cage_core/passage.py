"""The input and output types of a rerank: :class:`Passage` and :class:`RankedPassage` (with
its :class:`Via` and :class:`RankingPath`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, NamedTuple

if TYPE_CHECKING:
    from cage_core.config.kinds import PoolKind

__all__ = [
    "LINK_KINDS",
    "LinkKind",
    "Passage",
    "PassageLike",
    "RankedPassage",
    "RankingPath",
    "Via",
    "as_passages",
    "encodable",
]


@dataclass(frozen=True)
class Passage:
    """A candidate passage: its text, and optionally a title, an id of the caller's and its
    place in a document (``doc_id``, ``position``, ``document_name``; never parsed or
    embedded)."""

    text: str
    title: str = ""
    id: str | None = None
    doc_id: str | None = None  # the document this chunk belongs to (LangChain `source`,
    # LlamaIndex `ref_doc_id`, corpus `doc_id`)
    position: int | None = None  # the chunk's 0-based order inside its document
    document_name: str = ""  # its document's name as ingest read it ("RFC 9110: HTTP
    # Semantics", metadata["cage_document"]): how a via names the document

    def __post_init__(self) -> None:
        if not isinstance(self.text, str):
            raise TypeError(f"Passage.text must be a str, got {type(self.text).__name__}")
        if not isinstance(self.title, str):
            raise TypeError(f"Passage.title must be a str, got {type(self.title).__name__}")
        if not isinstance(self.document_name, str):
            raise TypeError(
                f"Passage.document_name must be a str, got {type(self.document_name).__name__}"
            )
        if self.doc_id is not None and not isinstance(self.doc_id, str):
            raise TypeError(
                f"Passage.doc_id must be a str or None, got {type(self.doc_id).__name__}"
            )
        if self.position is not None:
            if isinstance(self.position, bool) or not isinstance(self.position, int):
                raise TypeError(
                    f"Passage.position must be an int or None, got {type(self.position).__name__}"
                )
            if self.position < 0:
                raise ValueError(f"Passage.position must be >= 0, got {self.position}")

    @property
    def content(self) -> str:
        """What is parsed and embedded: ``"title. text"`` when there is a title, else the text.

        Lone surrogates (invalid Unicode, e.g. from a bad decode) become ``"?"`` here; the
        passage's ``text`` is returned to the caller unchanged.
        """
        title = self.title.strip()
        if not title:
            return encodable(self.text)
        separator = " " if title[-1] in ".!?:" else ". "
        return encodable(f"{title}{separator}{self.text}")


PassageLike = str | Passage


def encodable(text: str) -> str:
    """``text`` with lone surrogates replaced by ``"?"`` so tokenizers can encode it."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "replace").decode("utf-8")
    return text


LinkKind = Literal["title", "entity", "document"]
"""What links a ranked passage to an earlier one (:attr:`Via.kind`): ``"title"``, one of the
two names the other's title (or, without titles, the subject the ranking linked it by);
``"entity"``, they share a named entity the query does not name; ``"document"``, they are
chunks of one document (:attr:`Passage.doc_id`)."""
LINK_KINDS: tuple[LinkKind, ...] = ("title", "entity", "document")


class Via(NamedTuple):
    """Why a ranked passage is linked to an earlier one: by a link of ``kind`` (:data:`LinkKind`),
    named ``name``, to the passage at 0-based ``rank`` of the same result (see
    :mod:`cage_core.ranking.explanation`). ``name`` is the title or the entity as written
    (``Via("Shirley Temple", 0, "title")``) or, for a document link, the document and the
    chunks' place, readably: ``"same document: Acme Foods Ltd, next chunk"`` (this passage is
    the chunk right after the one at ``rank``), ``"..., previous chunk"`` (right before it), or
    ``"same document: Acme Foods Ltd"`` (another chunk of it). The document is named by its
    subject, else its ``doc_id``."""

    name: str
    rank: int
    kind: LinkKind = "entity"


@dataclass(frozen=True)
class RankingPath:
    """The path a pool took through its ranking, the same for every passage of one result.

    Attributes:
        kind: the pool's kind under CAGE (:data:`~cage_core.config.kinds.PoolKind`:
            ``"paper"``, ``"document"``, ``"untitled"`` or ``"titled"``, decided once per pool
            by :func:`~cage_core.methods.cage.pool_kind`); ``None`` for a method that is not
            CAGE (``tegr``, ``bm25``: it has no pool kinds) and for a passage not ranked by a
            reranker.
        gate: the name of the gate that kept the pool's relevance order (a predicate of
            :mod:`cage_core.ranking.relevance_gate`, e.g. ``"few_subjects"``), or ``None``.
        method: the name of the method that ranked the pool (``"cage"``, ``"hybrid"``,
            ``"tegr"``); ``""`` when not known.

    ``str(path)`` is the display string that ``cage_path`` holds in the frameworks' metadata:
    ``"titled"``, ``"untitled, gated: few_subjects"``; for a method that is not CAGE its
    name (``"tegr"``); ``""`` for ``RankingPath()``.
    """

    kind: PoolKind | None = None
    gate: str | None = None
    method: str = ""

    def __str__(self) -> str:
        if self.kind is None:
            return self.method
        return self.kind if self.gate is None else f"{self.kind}, gated: {self.gate}"


@dataclass(frozen=True)
class RankedPassage:
    """One passage of a rerank result (the scores are defined in :mod:`cage_core.methods.cage`).

    Attributes:
        index: position of the passage in the caller's input list.
        text: the passage text, as given.
        score: the fused score; results are sorted by it, highest first (ties keep input
            order).
        similarity: the query–passage similarity, as given by the retriever or computed.
        coherence: the strength, in [0, 1], of the link that ``via`` names, whatever path the
            pool took (:func:`~cage_core.ranking.explanation.explain_ranking`): 1 for a title
            mention and for the adjacent chunk of one document, 0.5 for another chunk of one
            document, ``1 − e^−E`` for shared entities of summed pool-IDF weight ``E``; 0
            exactly when ``via`` is ``None``. The fusion's own coherence term, whose scale
            depends on the path, is :attr:`PoolScores.coherence
            <cage_core.ranking.pool_scores.PoolScores.coherence>` (:meth:`CageReranker.score
            <cage_core.reranker.CageReranker.score>`).
        rank: 0-based position in the result.
        title: the passage title, if one was given.
        id: the caller's id, if one was given.
        via: the earlier-ranked passage this one is linked to, the kind of link and its name
            (:class:`Via`; :func:`cage_core.ranking.explanation.explain_ranking`): the
            document link when an earlier passage is a chunk of its document, else the
            strongest title or entity link; ``None`` for the first passage, for one linked to no
            earlier passage, for ranks after :data:`~cage_core.reranker.VIA_RANKS` and for
            methods that read no passage graphs.
        path: the path the pool took (:class:`RankingPath`: its kind and the gate that kept
            the relevance order, if any; ``str(path)`` reads ``"titled"`` or ``"untitled,
            gated: few_subjects"``, for a method that is not CAGE its name, ``"tegr"``);
            ``RankingPath()`` when not ranked by a reranker.
    """

    index: int
    text: str
    score: float
    similarity: float
    coherence: float
    rank: int
    title: str = ""
    id: str | None = None
    via: Via | None = None
    path: RankingPath = RankingPath()


def as_passages(passages: Sequence[PassageLike]) -> list[Passage]:
    """Normalise strings and :class:`Passage` objects into passages, checking their types."""
    if isinstance(passages, (str, bytes)):
        raise TypeError("passages must be a sequence of str or Passage, not a single string")
    out: list[Passage] = []
    for i, p in enumerate(passages):
        if isinstance(p, Passage):
            out.append(p)
        elif isinstance(p, str):
            out.append(Passage(text=p))
        else:
            raise TypeError(f"passages[{i}] is a {type(p).__name__}; pass str or cage_core.Passage")
    return out
