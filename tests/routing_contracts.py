"""Six short contracts with the same kinds of clause, the corpus the routing tests share.

Each contract is a file (``contracts/<stem>.txt``) of five paragraphs: the opening that names
its parties, then term, assignment, payment and governing-law clauses worded alike in every
contract. Only the opening tells the contracts apart, and the question names the contract,
not the clause: "Consider the Distribution Agreement between Birch First Global Investments
Inc. and Mount Knowledge Holdings Inc.; is consent required to assign it?" The Birch contract's
assignment clause says "transfer ... approval", not "assign ... consent", so a retriever's top
``k`` holds the other contracts' assignment clauses instead.
"""

from __future__ import annotations

import uuid

from cage_core.expansion.documents import document_record
from cage_core.expansion.index import LinkIndex

PARTIES = {
    "birch_mount": ("Birch First Global Investments Inc.", "Mount Knowledge Holdings Inc."),
    "cedar_falls": ("Cedar Valley Foods Ltd.", "Falls Harbour Logistics Ltd."),
    "orion_delta": ("Orion Pacific Mining Corp.", "Delta Quarry Services Corp."),
    "juniper_ray": ("Juniper Health Partners LLC", "Raymond Medical Devices LLC"),
    "quill_ember": ("Quill Street Publishing Co.", "Ember Lantern Print Works Co."),
    "willow_tern": ("Willow Creek Energy Inc.", "Tern Island Solar Inc."),
}
NAMED = "birch_mount"
SOURCE = "contracts/{}.txt"

ASSIGNMENT = {
    "birch_mount": (
        "MA may not transfer this Agreement or any of its rights hereunder to another person "
        "without the prior written approval of Company."
    ),
}
OTHER_ASSIGNMENT = (
    "Neither party may assign this Agreement without the prior written consent of the other "
    "party, and any assignment without such consent is void."
)


def paragraphs(stem: str) -> list[str]:
    """The contract's five paragraphs."""
    company, partner = PARTIES[stem]
    return [
        (
            f"This Distribution Agreement is made between {company} (Company) and {partner} (MA). "
            "Company appoints MA as its distributor under the terms below."
        ),
        (
            "The term of this Agreement is three years from the Effective Date and renews for "
            "one year periods unless either party gives written notice."
        ),
        ASSIGNMENT.get(stem, OTHER_ASSIGNMENT),
        (
            "MA shall pay Company the fees stated in Exhibit A within thirty days of each invoice, "
            "with interest on late payments."
        ),
        (
            "This Agreement is governed by the laws of the State of New York, and the parties "
            "submit to the courts of New York County."
        ),
    ]


QUESTION = (
    "Consider the Distribution Agreement between Birch First Global Investments Inc. and "
    "Mount Knowledge Holdings Inc.; is consent required to assign it?"
)
UNNAMED_QUESTION = "Is consent required to assign the distribution agreement?"
ANSWER = (SOURCE.format(NAMED), 2)
"""The answer: the Birch contract's assignment clause (its third paragraph)."""


def chunk_id(source: str, position: int) -> str:
    """A chunk's id: a UUID (what Qdrant takes), stable per contract and paragraph."""
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"{source}#{position}"))


def texts() -> dict[str, str]:
    """Each contract's text by its source, paragraphs separated by blank lines."""
    return {SOURCE.format(stem): "\n\n".join(paragraphs(stem)) for stem in PARTIES}


def true_places() -> dict[str, tuple[str, int]]:
    """Chunk id → (source, paragraph)."""
    return {
        chunk_id(SOURCE.format(stem), p): (SOURCE.format(stem), p)
        for stem in PARTIES
        for p in range(len(paragraphs(stem)))
    }


def add_records(index: LinkIndex, openings: dict[str, str]) -> None:
    """Each contract's document record (from its opening chunk, ``doc_id`` → text), unless the
    ingest component already wrote them."""
    if index.documents().document_count() == 0:
        index.add_documents(
            document_record(doc_id, opening=text, source=doc_id)
            for doc_id, text in openings.items()
        )
