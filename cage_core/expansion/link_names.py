"""The names of the link store (:mod:`cage_core.expansion.store`) and their postings: what
:meth:`LinkStorage.counts <cage_core.expansion.storage.LinkStorage.counts>` and
:meth:`~cage_core.expansion.storage.LinkStorage.holders` read, in a few indexed lookups.

A name's row holds its counts (``keyed``, ``mentioned``): :meth:`LinkNames.counts` reads one
row per name. Its postings are read up to its stored count plus one
(:meth:`LinkNames.holders`; an expansion asks only for names of ``df <= max_link_df``),
whatever the postings table holds. Inside one read transaction
(:meth:`LinkNames.remembering`), the rows ``counts`` read are kept, so ``holders`` does not
read them again. Every row is untrusted: a count or posting of the wrong type is ignored,
with one warning; with an integrity key, a name's counts are read only when its postings
agree with them, and a posting kept only when the entry it points to holds the name
(:mod:`cage_core.expansion.link_rows`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Collection, Iterator, Sequence
from contextlib import contextmanager

from cage_core.expansion.link_rows import (
    ROLES,
    agreeing_counts,
    count_ok,
    drop_unheld,
    is_text,
    postings_of,
)
from cage_core.expansion.link_store_file import LinkStoreFile
from cage_core.expansion.record import LinkEntry, valid_id
from cage_core.expansion.storage import NameRole

__all__ = ["LinkNames"]


class LinkNames:
    """The names and postings of a link store's file (module docstring).

    Args:
        file: the store's file, as the store reads it.
        get: the store's valid entries among some ids, by id (a keyed reader checks each
            posting against its entry).
    """

    def __init__(
        self, file: LinkStoreFile, get: Callable[[Sequence[str]], dict[str, LinkEntry]]
    ) -> None:
        self._file = file
        self.path = file.path
        self._get = get
        self._read_nids: dict[str, tuple[int, int, int]] | None = None
        """Inside :meth:`remembering`: ``(nid, keyed, mentioned)`` of each name read by
        ``counts``."""

    @contextmanager
    def remembering(self) -> Iterator[None]:
        """Keep the rows read by :meth:`counts` for :meth:`holders` (hold it inside one read
        transaction: the rows are of its state)."""
        self._read_nids = {}
        try:
            yield
        finally:
            self._read_nids = None

    def counts(self, names: Collection[str]) -> dict[str, tuple[int, int]]:
        return {
            name: (keyed, mentioned)
            for name, (_, keyed, mentioned) in self._name_rows(names).items()
        }

    def _name_rows(self, names: Collection[str]) -> dict[str, tuple[int, int, int]]:
        """``(nid, keyed, mentioned)`` of the valid rows of ``names`` (kept for holders()
        inside reading())."""
        wanted = {name for name in names if is_text(name)}
        sql = "SELECT name, keyed, mentioned, nid FROM names WHERE name IN"
        rows = self._file.read(lambda conn: self._file.select_in(conn, sql, list(wanted)))
        out, bad = {}, 0
        for name, keyed, mentioned, nid in rows:
            if name in wanted and count_ok(keyed) and count_ok(mentioned) and count_ok(nid):
                out[name] = (nid, keyed, mentioned)
            else:
                bad += 1
        if self._file.key is not None and out:
            agreeing = self._file.read(functools.partial(agreeing_counts, out))
            if len(agreeing) < len(out):
                self._file.warn_once(
                    "disagreeing counts",
                    "link store %s: skipped %d names whose "
                    "stored counts disagree with their postings (altered, or written "
                    "without the integrity key)",
                    self.path,
                    len(out) - len(agreeing),
                )
            out = agreeing
        if self._read_nids is not None:  # inside reading(): holders() may use them
            self._read_nids.update(out)
        if bad:
            self._file.warn_once(
                "counts",
                "link store %s: ignored %d name counts that are not ints >= 0",
                self.path,
                bad,
            )
        return out

    def holders(self, names: Collection[str], role: NameRole) -> dict[str, Collection[str]]:
        """The passages holding each name in ``role``: at most its stored count plus one
        (module docstring), so a store whose postings outnumber its counts costs no more;
        with a key, only those whose (MAC-checked) entry holds the name so."""
        wanted = {name for name in names if is_text(name)}
        known = dict(self._read_nids or {})  # names counts() read in this read transaction
        unknown = [n for n in wanted if n not in known]
        if unknown:
            known.update(self._name_rows(unknown))
        r = ROLES[role]
        bounds = [
            (name, nid, counts[r] + 1)
            for name, (nid, *counts) in known.items()
            if name in wanted and counts[r] > 0
        ]
        sql = (
            "SELECT e.id FROM (SELECT pid FROM postings WHERE nid = ? AND role = ? LIMIT ?) "
            "AS p JOIN entries AS e ON e.pid = p.pid"
        )
        rows = self._file.read(functools.partial(postings_of, sql, r, bounds)) if bounds else []
        out: dict[str, set[str]] = {}
        bad = 0
        for name, passage_id in rows:
            if name in wanted and valid_id(passage_id):
                out.setdefault(name, set()).add(passage_id)
            else:
                bad += 1
        if self._file.key is not None and out:
            bad += drop_unheld(out, self._get([i for ids in out.values() for i in ids]), role)
        if bad:
            self._file.warn_once(
                "postings",
                "link store %s: ignored %d postings with an invalid passage id",
                self.path,
                bad,
            )
        return out  # type: ignore[return-value]
