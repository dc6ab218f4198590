"""How a write replaces link entries (:mod:`cage_core.expansion.store`), in the open write
transaction: the old entries of the ids are taken back (their rows, their postings, their
names' counts), then the new ones are added, the counts of each name changed by the
difference, names no entry holds any more deleted, and the passage count ``N`` (and, with
an integrity key, its MAC) updated. So putting the same entries twice leaves the store as
once, and ``df`` and ``N`` stay one lookup.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from cage_core.expansion.link_rows import ROLES, entry_data, entry_from_row, text_mac
from cage_core.expansion.record import LinkEntry, LinkIndexFormatError

__all__ = ["replace_entries"]

logger = logging.getLogger("cage_core.expansion.store")  # the link store's log, from any module


def replace_entries(
    conn: sqlite3.Connection,
    old: list[tuple],
    entries: Sequence[LinkEntry],
    *,
    key: bytes | None,
    path: Path,
    select_in: Callable[[sqlite3.Connection, str, list[Any]], list[tuple]],
) -> int:
    """In the open write transaction: take back the entry rows ``old`` (``(pid, id, data,
    doc_id, position)``: their rows, postings and counts), then add ``entries`` (module
    docstring); returns how many old entries there were. ``select_in(conn, sql, values)``
    reads the rows of ``sql`` (ending in ``IN``) for ``values``; ``key``: the store's
    integrity key."""
    delta: dict[str, list[int]] = {}
    gone: list[tuple[str, int, int]] = []
    for row in old:
        try:  # its names, MAC or not
            entry = entry_from_row(row, key, verify=False)
        except LinkIndexFormatError:  # its postings cannot be found; the join on pid hides them
            logger.warning(
                "link store %s: replaced an invalid entry row (pid %s); its "
                "names' counts may be off by one",
                path,
                row[0],
            )
            continue
        for role, names in (("key", entry.keys), ("mention", entry.mentions)):
            r = ROLES[role]  # type: ignore[index]
            for name in names:
                delta.setdefault(name, [0, 0])[r] -= 1
                gone.append((name, r, row[0]))
    conn.executemany("DELETE FROM entries WHERE pid = ?", [(row[0],) for row in old])
    added: list[tuple[str, int, int]] = []
    for entry in entries:
        cursor = conn.execute(
            "INSERT INTO entries (id, data, doc_id, position) VALUES (?, ?, ?, ?)",
            (entry.id, entry_data(entry, key), entry.doc_id, entry.position),
        )
        pid = cursor.lastrowid
        for role, names in (("key", entry.keys), ("mention", entry.mentions)):
            r = ROLES[role]  # type: ignore[index]
            for name in names:
                delta.setdefault(name, [0, 0])[r] += 1
                added.append((name, r, pid))  # type: ignore[arg-type]
    nids = dict(select_in(conn, "SELECT name, nid FROM names WHERE name IN", list(delta)))
    for name in delta:
        if name not in nids:
            cursor = conn.execute(
                "INSERT INTO names (name, keyed, mentioned) VALUES (?, 0, 0)", (name,)
            )
            nids[name] = cursor.lastrowid
    # In key order: each B-tree page is visited once per statement.
    conn.executemany(
        "DELETE FROM postings WHERE nid = ? AND role = ? AND pid = ?",
        sorted((nids[n], r, p) for n, r, p in gone),
    )
    conn.executemany(
        "INSERT OR IGNORE INTO postings (nid, role, pid) VALUES (?, ?, ?)",
        sorted((nids[n], r, p) for n, r, p in added),
    )
    changed = sorted(
        ((k, m, nids[n]) for n, (k, m) in delta.items() if k or m), key=lambda row: row[2]
    )
    conn.executemany(
        "UPDATE names SET keyed = keyed + ?, mentioned = mentioned + ? WHERE nid = ?", changed
    )
    conn.executemany(
        "DELETE FROM names WHERE nid = ? AND keyed <= 0 AND mentioned <= 0",
        [(nid,) for k, m, nid in changed if k < 0 or m < 0],
    )
    change = len(entries) - len(old)
    if change:
        conn.execute("UPDATE meta SET value = value + ? WHERE key = 'passages'", (change,))
    if key is not None:
        (passages,) = conn.execute("SELECT value FROM meta WHERE key = 'passages'").fetchone()
        conn.execute(
            "INSERT OR REPLACE INTO meta (key, value) VALUES ('passages_mac', ?)",
            (text_mac(key, f"passages:{passages}"),),
        )
    return len(old)
