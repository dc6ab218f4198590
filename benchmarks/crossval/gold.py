"""Gold chunks from selectors: each question's gold parts, given as a file and a verbatim phrase
(``{"file", "contains"}``), named by the one chunk of that file that holds the phrase; shared by
``claims/dev_folders.py`` (through ``crossval/dev_folders.py``) and ``claims/package_docs.py``.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

__all__ = ["gold_ids"]


def gold_ids(spec: dict, chunks: Sequence, *, one_part_per_chunk: bool) -> dict[str, list[str]]:
    """Each question's gold chunk ids (``chunk.id``, ``chunk.metadata["source"]``); exits when
    a selector names no chunk or several, and with ``one_part_per_chunk`` when two selectors of
    a question name the same chunk (otherwise that chunk counts once)."""
    problems, out = [], {}
    for q in spec["questions"]:
        ids: list[str] = []
        for selector in q["gold"]:
            found = [
                c.id
                for c in chunks
                if c.metadata["source"] == selector["file"]
                and selector["contains"] in c.page_content
            ]
            if len(found) != 1:
                problems.append(f"{q['id']}: {selector} matches {len(found)} chunks {found[:3]}")
            elif found[0] in ids and one_part_per_chunk:
                problems.append(f"{q['id']}: two selectors name the same chunk")
            ids += [i for i in found[:1] if i not in ids]
        out[q["id"]] = ids
    if problems:
        sys.exit("gold selectors that do not name exactly one chunk:\n  " + "\n  ".join(problems))
    return out
