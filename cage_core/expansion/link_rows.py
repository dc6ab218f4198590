"""The link store's rows (:mod:`cage_core.expansion.store`): how an entry or a document record
is written to a row and read back, the checks of counts and postings, and the rows' MACs.

An entry row is ``(pid, id, data, doc_id, position)`` with ``data`` the JSON object
``{"subject", "keys", "mentions"}`` (and ``"mac"`` in a keyed store); it is read back through
:meth:`LinkEntry.from_stored <cage_core.expansion.record.LinkEntry.from_stored>`, the rules of
the JSON Lines loader, and an entry is written only when those rules accept it.

Keyed integrity (optional, for stores others can write; like the graph store's,
:mod:`cage_core.graphs.integrity`). With ``integrity_key``, every entry is written with

    mac = HMAC-SHA256(key, "cage-link-mac/1" ␀ canonical entry JSON)

(the entry's ``to_dict()`` with sorted keys) as one more field, ``"mac"``, of its ``data``
(readers without a key ignore it), and the passage count with a MAC of its own (meta row
``passages_mac``); a document record with one over its canonical JSON in its ``mac`` column
(:func:`record_mac`). A keyed reader rejects an entry without its valid MAC (one more invalid
row); reads a name's counts only when its postings agree with them (counted up to
``VERIFIED_POSTINGS``; a name whose counts disagree is skipped, with a warning); keeps a
posting only when the entry it points to holds the name in that role; and recounts the
passages when their MAC does not hold. So a flipped bit or an edit by whoever lacks the key
changes no expansion silently. What it cannot see is a whole entry removed with its postings
and counts made consistent: removing is within reach of anyone who can write the file.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import json
import sqlite3
from typing import Any

from cage_core.expansion.documents import DocumentRecord
from cage_core.expansion.jsonl import parse_line
from cage_core.expansion.link_store_file import MAX_VALUE_BYTES
from cage_core.expansion.record import MAX_POSITION, LinkEntry, LinkIndexFormatError
from cage_core.expansion.storage import NameRole
from cage_core.stores.database import is_utf8, rows_within_bound

__all__ = [
    "CHECKED_POSITION",
    "ENTRY_COLUMNS",
    "MAC_FIELD",
    "RECORD_COLUMNS",
    "ROLES",
    "VERIFIED_POSTINGS",
    "agreeing_counts",
    "count_ok",
    "count_signed",
    "document_rows",
    "drop_unheld",
    "entry_data",
    "entry_from_row",
    "entry_rows",
    "has_document_tables",
    "is_text",
    "position_ok",
    "postings_of",
    "record_from_row",
    "record_mac",
    "record_rows",
    "text_mac",
]

ROLES: dict[NameRole, int] = {"key": 0, "mention": 1}
"""How a posting's role is stored."""
DATA_FIELDS = frozenset({"subject", "keys", "mentions"})
MAC_FIELD = "mac"
"""The field of an entry's ``data`` holding its MAC (keyed stores)."""
DECODED_RECORDS = 1024
"""Document records kept decoded, by their stored values (:func:`record_from_row`)."""
VERIFIED_POSTINGS = 4096
"""A keyed reader counts a name's postings up to this many to check its stored counts (a
count above it is checked to be above it: such a name makes no link unless ``max_link_df``
is raised past it)."""
MAC_DOMAIN = b"cage-link-mac/1\x00"

SIGNED_FIELDS = DATA_FIELDS | {MAC_FIELD}
ENTRY_COLUMNS = "pid, id, data, doc_id, position"
RECORD_COLUMNS = "rowid, doc_id, name, words, mac"
DOCUMENT_TABLES = ("documents", "document_words", "document_counts")
CHECKED_POSITION = "CASE WHEN min(id, data, doc_id) IS NOT NULL THEN position ELSE -1 END"
"""A row's ``position``, read only after every value stored before it in the row passed the
size check: ``min()`` reads each of them, and SQLite refuses one past ``MAX_VALUE_BYTES``
(``sqlite3.DataError``) before reading it. Read first, ``position`` would walk the overflow
pages of such a value to get past it (a crafted 300 MB ``data``: 6.3 s per read). -1 (no
valid position) for a row with a NULL among them."""


def entry_from_row(row: tuple, key: bytes | None, *, verify: bool = True) -> LinkEntry:
    """The entry of a row ``(pid, id, data, doc_id, position)``, validated as the JSON Lines
    loader validates a line, and, with ``key`` and ``verify``, its MAC checked.

    Raises:
        LinkIndexFormatError: saying what is wrong with the row.
    """
    _, passage_id, data, doc_id, position = row
    if data is None and passage_id is None:
        raise LinkIndexFormatError(f"a value is larger than {MAX_VALUE_BYTES} bytes")
    if not isinstance(data, str):
        raise LinkIndexFormatError("data is not text")
    stored = parse_line(data)
    if not isinstance(stored, dict) or not DATA_FIELDS <= set(stored) <= SIGNED_FIELDS:
        raise LinkIndexFormatError("data has exactly the fields subject, keys, mentions (and mac)")
    mac = stored.pop(MAC_FIELD, None)
    stored["id"] = passage_id
    if doc_id is not None:
        stored["doc_id"] = doc_id
    if position is not None:
        stored["position"] = position
    entry = LinkEntry.from_stored(stored)
    if verify and key is not None:
        _require_mac(mac, entry_mac(entry, key))
    return entry


def _require_mac(mac: object, expected: str) -> None:
    """Raise :class:`LinkIndexFormatError` unless the stored ``mac`` is ``expected``."""
    if not (isinstance(mac, str) and hmac.compare_digest(mac, expected)):
        raise LinkIndexFormatError("no valid MAC under the integrity key")


def entry_rows(where: str, parameters: tuple, conn: sqlite3.Connection) -> list[tuple]:
    """Entry rows ``WHERE …`` by ``pid`` (:func:`_bounded_rows`)."""
    return _bounded_rows(conn, "entries", "pid", ENTRY_COLUMNS, where, parameters)


def _bounded_rows(
    conn: sqlite3.Connection, table: str, rowid: str, columns: str, where: str, parameters: tuple
) -> list[tuple]:
    """``SELECT columns FROM table where``; a row holding a value past ``MAX_VALUE_BYTES`` as
    ``(rowid, None, None, None, None)``: when one is met, the row ids are read without the
    values, then the rows a batch at a time."""
    try:
        return conn.execute(f"SELECT {columns} FROM {table} {where}", parameters).fetchall()
    except sqlite3.DataError:
        pass
    ids = [i for (i,) in conn.execute(f"SELECT {rowid} FROM {table} {where}", parameters)]
    oversized: list[int] = []
    sql = f"SELECT {columns} FROM {table} WHERE {rowid} IN"
    rows = rows_within_bound(conn, sql, ids, oversized.append)
    return sorted(rows + [(i, None, None, None, None) for i in oversized])  # in the ids' order


def record_mac(record: DocumentRecord, key: bytes) -> str:
    """The MAC of a record: over its canonical JSON (``to_stored``, sorted keys)."""
    canonical = json.dumps(
        record.to_stored(), ensure_ascii=False, sort_keys=True, separators=(",", ":")
    )
    return text_mac(key, "document:" + canonical)


def record_from_row(row: tuple, key: bytes | None) -> DocumentRecord:
    """The record of a row ``(rowid, doc_id, name, words, mac)``, validated, and with ``key``
    its MAC checked; a row whose values (and key) were decoded lately is not decoded again
    (the :data:`DECODED_RECORDS` last ones: routing reads the same records question after
    question, each of up to 256 words checked).

    Raises:
        LinkIndexFormatError: saying what is wrong with the row.
    """
    _, doc_id, name, words, mac = row
    return _decoded_record(doc_id, name, words, mac, key)


@functools.lru_cache(maxsize=DECODED_RECORDS)
def _decoded_record(
    doc_id: Any, name: Any, words: Any, mac: Any, key: bytes | None
) -> DocumentRecord:
    """:func:`record_from_row` of a row's values (an invalid row raises, and is not kept)."""
    if doc_id is None and name is None:
        raise LinkIndexFormatError(f"a value is larger than {MAX_VALUE_BYTES} bytes")
    if not isinstance(words, str):
        raise LinkIndexFormatError("words is not text")
    record = DocumentRecord.from_stored(
        {"doc_id": doc_id, "name": name, "words": parse_line(words)}
    )
    if key is not None:
        _require_mac(mac, record_mac(record, key))
    return record


def has_document_tables(conn: sqlite3.Connection) -> bool:
    """Whether the store holds the document tables (a store written before them does not)."""
    sql = "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN (?, ?, ?)"
    return bool(conn.execute(sql, DOCUMENT_TABLES).fetchone()[0] == len(DOCUMENT_TABLES))


def record_rows(where: str, parameters: tuple, conn: sqlite3.Connection) -> list[tuple]:
    """Record rows ``WHERE …`` (:func:`_bounded_rows`; none without the document tables)."""
    if not has_document_tables(conn):
        return []
    return _bounded_rows(conn, "documents", "rowid", RECORD_COLUMNS, f"WHERE {where}", parameters)


def document_rows(
    conn: sqlite3.Connection, columns: str, doc_id: str, condition: str = "", parameters: tuple = ()
) -> tuple[list[tuple], list[int]]:
    """``SELECT columns FROM entries WHERE doc_id = ? condition`` (``columns`` and
    ``condition`` read ``position`` only as :data:`CHECKED_POSITION`), and the pids of the
    document's rows left out because they hold a value past ``MAX_VALUE_BYTES``. When such a
    row is met, the document's pids are read from its index alone (never a row), then its
    rows a batch at a time, and row by row in a batch that holds one."""
    select = f"SELECT {columns} FROM entries WHERE"
    try:
        sql = f"{select} doc_id = ? {condition}"
        return conn.execute(sql, (doc_id, *parameters)).fetchall(), []
    except sqlite3.DataError:
        pass
    pids = [pid for (pid,) in conn.execute("SELECT pid FROM entries WHERE doc_id = ?", (doc_id,))]
    oversized: list[int] = []
    rows = rows_within_bound(
        conn, f"{select} pid IN", pids, oversized.append, then=condition, parameters=parameters
    )
    return rows, oversized


def is_text(value: object) -> bool:
    """A string SQLite can bind (valid UTF-8: no lone surrogates)."""
    return isinstance(value, str) and is_utf8(value)


def postings_of(
    sql: str, role: int, bounds: list[tuple[str, int, int]], conn: sqlite3.Connection
) -> list[tuple[str, str]]:
    """``(name, passage id)`` of the postings of each ``(name, nid, most)`` in ``role``, at
    most ``most`` each."""
    rows: list[tuple[str, str]] = []
    for name, nid, most in bounds:
        rows += [(name, passage_id) for (passage_id,) in conn.execute(sql, (nid, role, most))]
    return rows


def position_ok(value: object) -> bool:
    """A position SQLite can compare (an int in the stored range; never a bool)."""
    return type(value) is int and 0 <= value <= MAX_POSITION


def count_ok(value: object) -> bool:
    return type(value) is int and value >= 0


def entry_data(entry: LinkEntry, key: bytes | None = None) -> str:
    data = {"subject": entry.subject, "keys": list(entry.keys), "mentions": list(entry.mentions)}
    if key is not None:
        data[MAC_FIELD] = entry_mac(entry, key)
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def text_mac(key: bytes, text: str) -> str:
    return hmac.new(key, MAC_DOMAIN + text.encode("utf-8"), hashlib.sha256).hexdigest()


def entry_mac(entry: LinkEntry, key: bytes) -> str:
    """The MAC of an entry (module docstring): over its canonical JSON, every field."""
    return text_mac(
        key, json.dumps(entry.to_dict(), ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    )


def agreeing_counts(
    rows: dict[str, tuple[int, int, int]], conn: sqlite3.Connection
) -> dict[str, tuple[int, int, int]]:
    """The names of ``rows`` (``(nid, keyed, mentioned)``) whose postings agree with their
    counts, up to ``VERIFIED_POSTINGS`` each."""
    sql = "SELECT count(*) FROM (SELECT 1 FROM postings WHERE nid = ? AND role = ? LIMIT ?)"
    out = {}
    for name, row in rows.items():
        nid, counts = row[0], row[1:]
        found = [
            conn.execute(sql, (nid, role, VERIFIED_POSTINGS + 1)).fetchone()[0]
            for role in ROLES.values()
        ]
        if all(min(count, VERIFIED_POSTINGS + 1) == n for count, n in zip(counts, found)):
            out[name] = row
    return out


def drop_unheld(holders: dict[str, set[str]], entries: dict[str, LinkEntry], role: NameRole) -> int:
    """Keyed: keep in ``holders`` (name → passage ids) only the postings whose (MAC-checked)
    entry, of ``entries``, holds the name in ``role``; returns how many were dropped."""
    dropped = 0
    for name, ids in holders.items():
        held = {
            i
            for i in ids
            if i in entries and name in (entries[i].keys if role == "key" else entries[i].mentions)
        }
        dropped += len(ids) - len(held)
        ids &= held
    for name in [name for name, ids in holders.items() if not ids]:
        del holders[name]
    return dropped


def count_signed(
    conn: sqlite3.Connection, key: bytes | None, count: object, name: str = "passages"
) -> bool:
    """Without a key: ``True``; with one: whether the stored count ``name`` (``passages``,
    ``documents``), of value ``count``, carries its valid MAC."""
    if key is None:
        return True
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (f"{name}_mac",)).fetchone()
    expected = text_mac(key, f"{name}:{count}")
    return row is not None and isinstance(row[0], str) and hmac.compare_digest(row[0], expected)
