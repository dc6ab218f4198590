"""Document records in the SQLite link store (:mod:`cage_core.expansion.store`): what routing
reads (:class:`~cage_core.expansion.document_names.DocumentNames`), in a few indexed lookups
whatever the number of documents.

Layout (:data:`~cage_core.expansion.link_store_file.DOCUMENT_SCHEMA`)::

    documents(doc_id PRIMARY KEY, name, words, mac)     words: a JSON list; mac: keyed stores
    document_words(word, doc_id)    PRIMARY KEY (word, doc_id), WITHOUT ROWID: who holds a word
    document_counts(word PRIMARY KEY, documents)        df(word), WITHOUT ROWID
    meta 'documents'                N, the records held ('documents_mac' in a keyed store)

``df`` and ``N`` are kept up to date in the transaction that changes them, as the names'
counts are: :meth:`~LinkDocuments.document_count` reads one row,
:meth:`~LinkDocuments.document_frequencies` one row per word,
:meth:`~LinkDocuments.documents_with` at most ``df + 1`` postings per word (the router
asks only for words at most half the documents hold), :meth:`~LinkDocuments.document`
one row. A record put again replaces the old one (its words and counts are taken back
first); a record goes when the last entry of its document does
(:meth:`~LinkDocuments.drop_emptied_documents`, in the entries' write transaction).

A store written before records has none of these tables: it opens (the schema check takes
them as all there or none), and routing finds no documents, which is logged once. The first
writer of records adds the tables, the meta row and the records in one transaction.

Every row is untrusted, as the entries' (:mod:`cage_core.expansion.link_rows`): a record is
read through :meth:`DocumentRecord.from_stored
<cage_core.expansion.documents.DocumentRecord.from_stored>` (a value over
``MAX_VALUE_BYTES`` is refused before it is read), a count or posting of the wrong type is
ignored, and bad rows are skipped with one warning. With an integrity key, a record carries
an HMAC over its canonical JSON (``mac``, :func:`~cage_core.expansion.link_rows.record_mac`)
and ``N`` one of its own; a keyed reader reads a word's count only when the postings agree
with it (counted up to ``VERIFIED_POSTINGS``) and keeps a posting only when the
(MAC-checked) record holds the word.
"""

from __future__ import annotations

import functools
import json
import logging
import sqlite3
from collections.abc import Collection, Iterator, Sequence

from cage_core.expansion.documents import DocumentRecord
from cage_core.expansion.jsonl import parse_line
from cage_core.expansion.link_rows import (
    RECORD_COLUMNS,
    VERIFIED_POSTINGS,
    count_ok,
    count_signed,
    has_document_tables,
    is_text,
    record_from_row,
    record_mac,
    record_rows,
    text_mac,
)
from cage_core.expansion.link_store_file import (
    DOCUMENT_SCHEMA,
    READ_BATCH_KEYS,
    SCHEMA,
    LinkStoreFile,
)
from cage_core.expansion.record import LinkIndexFormatError, valid_id
from cage_core.expansion.storage import check_document_storable
from cage_core.stores.database import schema_problem

__all__ = ["WRITE_BATCH_RECORDS", "LinkDocuments"]

logger = logging.getLogger("cage_core.expansion.store")
"""The link store's log: its messages keep one logger name wherever their code lives."""

WRITE_BATCH_RECORDS = 1000
"""Document records per write transaction (as ``WRITE_BATCH_ENTRIES`` for entries)."""


class LinkDocuments:
    """The document records of :class:`~cage_core.expansion.store.SqliteLinkStorage` (module
    docstring), in its file: what its ``documents()`` gives routing.

    Args:
        file: the store's file, as the store reads and writes it.
    """

    def __init__(self, file: LinkStoreFile) -> None:
        self._file = file
        self.path = file.path
        self._integrity_key = file.key
        self._schema_seen = False

    def forget_file(self) -> None:
        """Before another file is opened at the path: its document tables are checked anew."""
        self._schema_seen = False

    # -- DocumentNames --------------------------------------------------------------------

    def document_count(self) -> int:
        return self._file.read(self._document_count)

    def document_frequencies(self, words: Collection[str]) -> dict[str, int]:
        wanted = list(dict.fromkeys(word for word in words if is_text(word)))
        return self._file.read(functools.partial(self._counts, wanted)) if wanted else {}

    def documents_with(self, words: Collection[str]) -> dict[str, Collection[str]]:
        """The documents holding each word: at most its stored count plus one (module
        docstring), so a store whose postings outnumber its counts costs no more."""
        wanted = list(dict.fromkeys(word for word in words if is_text(word)))
        return self._file.read(functools.partial(self._holders, wanted)) if wanted else {}

    def document(self, doc_id: str) -> DocumentRecord | None:
        if not valid_id(doc_id):
            return None  # no other document id is ever stored
        found = self._file.read(functools.partial(self._records, [doc_id]))
        return found.get(doc_id)

    def documents(self, doc_ids: Collection[str]) -> dict[str, DocumentRecord]:
        wanted = list(dict.fromkeys(d for d in doc_ids if valid_id(d)))
        return self._file.read(functools.partial(self._records, wanted)) if wanted else {}

    def document_records(self) -> Iterator[DocumentRecord]:
        """Every valid record, in the order written, read in pages (no long transaction)."""
        last = 0
        while True:
            page = functools.partial(record_rows, "rowid > ? ORDER BY rowid LIMIT ?")
            rows = self._file.read(functools.partial(page, (last, READ_BATCH_KEYS)))
            if not rows:
                return
            last = rows[-1][0]
            yield from self._decoded_records(rows)

    # -- writes ---------------------------------------------------------------------------
    def put_documents(self, records: Sequence[DocumentRecord]) -> None:
        """Upsert ``records`` in transactions of :data:`WRITE_BATCH_RECORDS` (the first adds
        the tables to a store without them).

        Raises:
            TypeError, ValueError: when a record is not one a reader would accept
                (:func:`~cage_core.expansion.storage.check_document_storable`); checked for
                all before anything is written.
        """
        for record in records:
            check_document_storable(record)
        latest = {record.doc_id: record for record in records}  # a repeated id: the last
        batch = list(latest.values())
        for start in range(0, len(batch), WRITE_BATCH_RECORDS):
            chunk = batch[start : start + WRITE_BATCH_RECORDS]
            self._file.write(functools.partial(self._replace_records, records=chunk))

    def drop_emptied_documents(self, conn: sqlite3.Connection, doc_ids: Collection[str]) -> None:
        """In the open write transaction that removed entries of ``doc_ids``: remove the
        records of those documents left without entries."""
        if not doc_ids or not has_document_tables(conn):
            return
        held = "SELECT 1 FROM entries WHERE doc_id = ? LIMIT 1"
        gone = sorted(d for d in doc_ids if conn.execute(held, (d,)).fetchone() is None)
        if gone:
            removed, delta = self._take_back(conn, gone)
            self._apply(conn, delta, -removed)

    def _replace_records(self, conn: sqlite3.Connection, records: Sequence[DocumentRecord]) -> None:
        for statement in DOCUMENT_SCHEMA:
            conn.execute(statement)
        conn.execute("INSERT OR IGNORE INTO meta (key, value) VALUES ('documents', 0)")
        problem = schema_problem(conn, SCHEMA, DOCUMENT_SCHEMA)
        if problem is not None:
            raise LinkIndexFormatError(f"{self.path}: not a cage link store ({problem})")
        removed, delta = self._take_back(conn, [record.doc_id for record in records])
        key = self._integrity_key
        conn.executemany(
            "INSERT INTO documents (doc_id, name, words, mac) VALUES (?, ?, ?, ?)",
            [
                (
                    r.doc_id,
                    r.name,
                    json.dumps(list(r.words), ensure_ascii=False, separators=(",", ":")),
                    None if key is None else record_mac(r, key),
                )
                for r in records
            ],
        )
        conn.executemany(
            "INSERT OR IGNORE INTO document_words (word, doc_id) VALUES (?, ?)",
            sorted((word, r.doc_id) for r in records for word in r.words),
        )
        for record in records:
            for word in record.words:
                delta[word] = delta.get(word, 0) + 1
        self._apply(conn, delta, len(records) - removed)

    def _take_back(
        self, conn: sqlite3.Connection, doc_ids: list[str]
    ) -> tuple[int, dict[str, int]]:
        """Delete the records of ``doc_ids`` and their postings: how many there were, and the
        change of each word's count."""
        rows = self._file.select_in(
            conn, f"SELECT {RECORD_COLUMNS} FROM documents WHERE doc_id IN", doc_ids
        )
        delta: dict[str, int] = {}
        gone: list[tuple[str, str]] = []
        for row in rows:
            try:
                words = parse_line(row[3])
                if not isinstance(words, list):
                    raise LinkIndexFormatError("words is not a list")
            except (LinkIndexFormatError, TypeError):
                logger.warning(
                    "link store %s: replaced an invalid document row (rowid %s); its words' "
                    "counts may be off by one",
                    self.path,
                    row[0],
                )
                continue
            for word in {w for w in words if is_text(w)}:
                delta[word] = delta.get(word, 0) - 1
                gone.append((word, row[1]))
        conn.executemany("DELETE FROM document_words WHERE word = ? AND doc_id = ?", sorted(gone))
        removed = 0
        for start in range(0, len(doc_ids), READ_BATCH_KEYS):
            chunk = doc_ids[start : start + READ_BATCH_KEYS]
            sql = f"DELETE FROM documents WHERE doc_id IN ({','.join('?' * len(chunk))})"
            removed += conn.execute(sql, chunk).rowcount
        return removed, delta

    def _apply(self, conn: sqlite3.Connection, delta: dict[str, int], change: int) -> None:
        """Change the words' counts by ``delta`` (dropping those at 0) and ``N`` by ``change``."""
        changed = sorted((word, n) for word, n in delta.items() if n)
        conn.executemany(
            "INSERT OR IGNORE INTO document_counts (word, documents) VALUES (?, 0)",
            [(word,) for word, n in changed if n > 0],
        )
        conn.executemany(
            "UPDATE document_counts SET documents = documents + ? WHERE word = ?",
            [(n, word) for word, n in changed],
        )
        conn.executemany(
            "DELETE FROM document_counts WHERE word = ? AND documents <= 0",
            [(word,) for word, n in changed if n < 0],
        )
        if change:
            conn.execute("UPDATE meta SET value = value + ? WHERE key = 'documents'", (change,))
        if self._integrity_key is not None:
            (count,) = conn.execute("SELECT value FROM meta WHERE key = 'documents'").fetchone()
            conn.execute(
                "INSERT OR REPLACE INTO meta (key, value) VALUES ('documents_mac', ?)",
                (text_mac(self._integrity_key, f"documents:{count}"),),
            )

    # -- rows -----------------------------------------------------------------------------
    def _document_count(self, conn: sqlite3.Connection) -> int:
        row = conn.execute("SELECT value FROM meta WHERE key = 'documents'").fetchone()
        if row is None or not has_document_tables(conn):
            self._file.warn_once(
                "no documents",
                "link store %s holds no document records (written before them, or by an "
                "ingest that kept none): no question is routed to a document",
                self.path,
                level=logging.INFO,
            )
            return 0
        if not self._schema_seen:  # the tables may have come after this connection's check
            problem = schema_problem(conn, SCHEMA, DOCUMENT_SCHEMA)
            if problem is not None:
                self._file.warn_once("document schema", "link store %s: %s", self.path, problem)
                return 0
            self._schema_seen = True
        if count_ok(row[0]) and count_signed(conn, self._integrity_key, row[0], "documents"):
            return int(row[0])
        self._file.warn_once(
            "document count",
            "link store %s: the stored document count is invalid; counting",
            self.path,
        )
        return int(conn.execute("SELECT COUNT(*) FROM documents").fetchone()[0])

    def _counts(self, wanted: list[str], conn: sqlite3.Connection) -> dict[str, int]:
        """The valid stored counts of ``wanted`` in its order, as in memory (the router sums
        in that order; keyed: those their postings agree with)."""
        if not has_document_tables(conn):
            return {}
        sql = "SELECT word, documents FROM document_counts WHERE word IN"
        found: dict[str, int] = {}
        asked = set(wanted)
        bad = 0
        for word, count in self._file.select_in(conn, sql, wanted):
            if word in asked and count_ok(count) and count > 0:
                found[word] = count
            else:
                bad += 1
        out = {word: found[word] for word in wanted if word in found}  # in the order asked
        if self._integrity_key is not None:
            check = "SELECT count(*) FROM (SELECT 1 FROM document_words WHERE word = ? LIMIT ?)"
            for word, count in list(out.items()):
                found = conn.execute(check, (word, VERIFIED_POSTINGS + 1)).fetchone()[0]
                if min(count, VERIFIED_POSTINGS + 1) != found:
                    del out[word]
                    bad += 1
        if bad:
            self._file.warn_once(
                "document counts",
                "link store %s: ignored %d document counts that are not ints > 0 or "
                "disagree with their postings",
                self.path,
                bad,
            )
        return out

    def _holders(self, wanted: list[str], conn: sqlite3.Connection) -> dict[str, Collection[str]]:
        sql = "SELECT doc_id FROM document_words WHERE word = ? LIMIT ?"
        out: dict[str, set[str]] = {}
        bad = 0
        for word, count in self._counts(wanted, conn).items():
            try:
                rows = conn.execute(sql, (word, count + 1)).fetchall()
            except sqlite3.DataError:  # a doc_id past MAX_VALUE_BYTES: the word is unread
                bad += 1
                continue
            for (doc_id,) in rows:
                if valid_id(doc_id):
                    out.setdefault(word, set()).add(doc_id)
                else:
                    bad += 1
        if self._integrity_key is not None and out:
            records = self._records(sorted({d for ids in out.values() for d in ids}), conn)
            for word, ids in out.items():
                held = {d for d in ids if d in records and word in records[d].words}
                bad += len(ids) - len(held)
                ids &= held
            out = {word: ids for word, ids in out.items() if ids}
        if bad:
            self._file.warn_once(
                "document postings",
                "link store %s: ignored %d document postings that are invalid or not held",
                self.path,
                bad,
            )
        return out  # type: ignore[return-value]

    def _records(self, doc_ids: list[str], conn: sqlite3.Connection) -> dict[str, DocumentRecord]:
        if not has_document_tables(conn):
            return {}
        rows: list[tuple] = []
        for start in range(0, len(doc_ids), READ_BATCH_KEYS):
            chunk = doc_ids[start : start + READ_BATCH_KEYS]
            where = f"doc_id IN ({','.join('?' * len(chunk))})"
            rows += record_rows(where, tuple(chunk), conn)
        return {record.doc_id: record for record in self._decoded_records(rows)}

    def _decoded_records(self, rows: list[tuple]) -> list[DocumentRecord]:
        """The valid records of ``rows``; the invalid ones reported in one warning."""
        out: list[DocumentRecord] = []
        reasons: dict[str, int] = {}
        for row in rows:
            try:
                out.append(record_from_row(row, self._integrity_key))
            except LinkIndexFormatError as exc:
                reasons[str(exc)] = reasons.get(str(exc), 0) + 1
        if reasons:
            summary = "; ".join(f"{n} × {reason}" for reason, n in sorted(reasons.items()))
            self._file.warn_once(
                "document records",
                "link store %s: skipped %d invalid document records (%s)",
                self.path,
                sum(reasons.values()),
                summary,
            )
        return out
