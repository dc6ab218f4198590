"""``cage enrich``: passage graphs for a corpus, in process or on a Ray cluster, streamed.

Reads JSON Lines or Parquet rows with a ``text`` column (and optional ``title``, ``id``),
adds a ``cage_graph`` column (``PassageGraph.to_text()``, a JSON string) and writes JSON
Lines or Parquet, chosen by the output file's suffix. Rows are read, enriched and written
in batches (:func:`iter_row_batches`, :class:`RowWriter`), so a corpus larger than memory
streams through: on Ray, Parquet or JSON Lines in (``ray.data.read_*``), batches out of
``iter_batches`` in input order.

Stores, written per batch, never rewritten whole:

* the :class:`~cage_core.graphs.store.GraphStore` (``--graph-store``) is filled by the
  enricher itself (each Ray actor through its own connection): a passage whose graph is
  already stored is read, not parsed again;
* the link index (``--link-index``): a SQLite link store (a path ending ``.sqlite``/``.db``,
  and the default next to the graph store: ``graphs.links.sqlite``) gets each batch's
  entries upserted by passage id as the batch arrives (:func:`write_link_partition`); a
  JSON Lines path gets the index built in memory and saved at the end (small corpora).

Signing: with ``--integrity-key-env VAR`` (:func:`enrich_local` / :func:`enrich_ray`
``integrity_key``) every graph written, to the column and to the graph store, carries an HMAC
under the secret in ``VAR`` (:mod:`cage_core.graphs.integrity`), the ``integrity_key`` the
rerankers are given; stored graphs are read only when signed under it.

Resuming: a run that stops (a killed worker, driver or machine) is resumed by running the
same command again. Graphs stored before the stop are not parsed again, and the link
store's upserts keyed by id make every entry written twice land once: nothing is lost or
duplicated. (A killed Ray actor alone needs not even that: Ray Data retries its batch, and
the driver writes a batch's entries only once it arrives whole.)

A row's passage id is its ``id`` column when that is a non-empty string, else its 0-based
position in the input as a string (:func:`cage_core.expansion.ingest.row_id`); its other columns
are the metadata a subject is read from when it has no title
(:data:`cage_core.names.subjects.SUBJECT_METADATA_KEYS`).
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Self

from cage_core.config import CageConfig
from cage_core.expansion.index import LinkIndex, is_store_path
from cage_core.expansion.ingest import link_chunks
from cage_core.expansion.openings import put_chunks
from cage_core.graphs.passage_graph import GraphLevel
from cage_core.integrations.ray_data import GRAPH_COLUMN, GraphEnricher
from cage_core.jsonl import DatasetFormatError, json_lines

__all__ = [
    "LinkWriter",
    "RowWriter",
    "count_rows",
    "enrich_local",
    "enrich_ray",
    "iter_row_batches",
]

logger = logging.getLogger(__name__)

ACTOR_CPUS = 0.5
"""CPUs reserved per Ray actor (parsing is one thread; fractional so the driver's tasks fit)."""


def _pyarrow() -> Any:
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise ImportError('Parquet files need pyarrow: pip install "cage-rag[parquet]"') from None
    return pq


def count_rows(path: Path) -> int:
    """Rows in the input (Parquet: from its metadata; JSON Lines: non-blank lines)."""
    if path.suffix == ".parquet":
        return int(_pyarrow().ParquetFile(path).metadata.num_rows)
    with path.open("rb") as handle:
        return sum(1 for line in handle if line.strip())


def iter_row_batches(path: Path, batch_size: int) -> Iterator[list[dict[str, Any]]]:
    """The input's rows, ``batch_size`` at a time, streamed (never the whole file in memory).

    Raises:
        DatasetFormatError: for a JSON Lines row that is not an object with a string ``text``.
    """
    if batch_size < 1:
        raise ValueError(f"batch_size must be at least 1, got {batch_size}")
    if path.suffix == ".parquet":
        for record_batch in _pyarrow().ParquetFile(path).iter_batches(batch_size=batch_size):
            yield record_batch.to_pylist()
        return
    batch: list[dict[str, Any]] = []
    with path.open(encoding="utf-8") as handle:
        for number, row in json_lines(handle, str(path)):
            if not isinstance(row, dict) or not isinstance(row.get("text"), str):
                raise DatasetFormatError(
                    f"{path}:{number}: expected an object with a string 'text'"
                )
            batch.append(row)
            if len(batch) == batch_size:
                yield batch
                batch = []
    if batch:
        yield batch


class RowWriter:
    """Writes enriched rows batch by batch: JSON Lines, or Parquet (one row group per batch;
    the schema is the first batch's)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.rows = 0
        self._parquet: Any = None
        self._schema: Any = None
        self._handle = None if path.suffix == ".parquet" else path.open("w", encoding="utf-8")

    def write(self, rows: Sequence[dict[str, Any]]) -> None:
        if not rows:
            return
        if self._handle is not None:
            self._handle.writelines(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
        else:
            import pyarrow as pa

            pq = _pyarrow()
            table = pa.Table.from_pylist(list(rows), schema=self._schema)
            if self._parquet is None:
                self._schema = table.schema
                self._parquet = pq.ParquetWriter(self.path, self._schema)
            self._parquet.write_table(table)
        self.rows += len(rows)

    def close(self) -> None:
        if self._handle is not None:
            self._handle.close()
        elif self._parquet is not None:
            self._parquet.close()
        else:  # no row at all: an empty Parquet file still has a schema
            import pyarrow as pa

            _pyarrow().write_table(
                pa.table(
                    {"text": pa.array([], pa.string()), GRAPH_COLUMN: pa.array([], pa.string())}
                ),
                self.path,
            )

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def enrich_local(
    batches: Iterable[list[dict[str, Any]]],
    config: CageConfig,
    spacy_model: str | None,
    level: GraphLevel | None = None,
    graph_store: str | os.PathLike[str] | None = None,
    integrity_key: bytes | str | None = None,
) -> Iterator[list[dict[str, Any]]]:
    """Each batch of rows with its ``cage_graph`` column added, in this process (signed
    under ``integrity_key`` when given: :class:`GraphEnricher`)."""
    enricher = GraphEnricher(
        config, spacy_model, level=level, graph_store=graph_store, integrity_key=integrity_key
    )
    for chunk in batches:
        batch = {"text": [r["text"] for r in chunk], "title": [r.get("title") or "" for r in chunk]}
        graphs = enricher(batch)[GRAPH_COLUMN]
        yield [{**r, GRAPH_COLUMN: g} for r, g in zip(chunk, graphs)]


def enrich_ray(
    path: Path,
    config: CageConfig,
    spacy_model: str | None,
    batch_size: int,
    address: str,
    workers: int,
    level: GraphLevel | None = None,
    graph_store: str | os.PathLike[str] | None = None,
    integrity_key: bytes | str | None = None,
) -> Iterator[list[dict[str, Any]]]:
    """Enrich on Ray Data, streamed: ``path`` read by Ray (``read_parquet``/``read_json``),
    ``workers`` enricher actors, and the enriched batches back in input order."""
    try:
        import ray
    except ImportError:
        raise ImportError('Ray enrichment needs Ray Data: pip install "cage-rag[ray]"') from None
    if not ray.is_initialized():
        if address == "local":
            ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False)
        else:
            ray.init(address=address, log_to_driver=False)
    ray.data.DataContext.get_current().execution_options.preserve_order = (
        True  # output = input order
    )
    # Read tasks reserve no CPU: with every local CPU held by an actor they would wait forever
    # (a known Ray Data stall), and reading is light next to parsing.
    read = ray.data.read_parquet if path.suffix == ".parquet" else ray.data.read_json
    ds = read(str(path), num_cpus=0)
    enricher = {
        "config": config,
        "spacy_model": spacy_model,
        "level": level,
        "graph_store": graph_store,
        "integrity_key": integrity_key,
    }
    ds = ds.map_batches(
        GraphEnricher,
        fn_constructor_kwargs=enricher,
        concurrency=workers,
        batch_size=batch_size,
        batch_format="pandas",
        num_cpus=ACTOR_CPUS,
    )
    for table in ds.iter_batches(batch_size=batch_size, batch_format="pyarrow"):
        yield table.to_pylist()  # type: ignore[union-attr]  # pyarrow: plain values, None missing


class LinkWriter:
    """The link index of the enriched rows, batch by batch (module docstring): upserted into
    a SQLite store as they come, or built in memory and saved as JSON Lines at the end."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.entries = 0
        self._index = LinkIndex.open(path, create=True) if is_store_path(path) else LinkIndex()
        self._before = len(self._index)
        self._store = is_store_path(path)

    def write(self, rows: Sequence[dict[str, Any]], start: int) -> None:
        chunks = link_chunks(rows, start)
        if not self._store:
            seen: set[str] = set()
            for position, entry in enumerate((c.entry for c in chunks), start):
                if entry.id in seen or entry.id in self._index:
                    raise ValueError(
                        f"row {position}: passage id {entry.id!r:.60} is used "
                        "twice; give every row a distinct 'id'"
                    )
                seen.add(entry.id)
        self.entries += put_chunks(self._index.storage, chunks)

    def close(self) -> str:
        """Finish (a JSON Lines index is saved now); a line saying what was written."""
        if not self._store:
            written = self._index.save(self.path)
            return (
                f"wrote the link index of {len(self._index)} passages "
                f"({written / max(len(self._index), 1):.0f} bytes per passage) -> {self.path}"
            )
        held = len(self._index)
        self._index.close()
        if self._before == 0 and held < self.entries:
            logger.warning(
                "%s: %d rows share a passage id with another row (the last one's "
                "entry is kept); give every row a distinct 'id'",
                self.path,
                self.entries - held,
            )
        return (
            f"wrote {self.entries} link entries to the link store {self.path} "
            f"(it holds {held} passages)"
        )


@contextmanager
def progress_bar(total: int | None, disable: bool) -> Iterator[Callable[[int], None]]:
    """A tqdm bar's ``update``, for the duration of a ``with`` block."""
    from tqdm.auto import tqdm

    with tqdm(total=total, unit="passage", desc="cage enrich", disable=disable) as bar:
        yield bar.update
