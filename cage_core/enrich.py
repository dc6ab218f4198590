"""``cage enrich``: passage graphs for a corpus, in process or on a Ray cluster.

Reads JSON Lines or Parquet rows with a ``text`` column (and optional ``title``), adds a
``cage_graph`` column (``PassageGraph.to_text()``, a JSON string) and writes JSON Lines or
Parquet, chosen by the output file's suffix. Optionally fills a persistent
:class:`~cage_core.graph_store.GraphStore` so a serving process starts warm, and writes a
:class:`~cage_core.link_index.LinkIndex` (names → passages, for candidate expansion) built
from the enriched rows — on Ray too, since it only reads the graphs the workers made.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from cage_core.cache import graph_key
from cage_core.config import CageConfig
from cage_core.eval.datasets import DatasetFormatError, json_lines
from cage_core.graph.passage_graph import GraphLevel, PassageGraph
from cage_core.graph_store import GraphStore
from cage_core.link_index import LinkIndex
from cage_core.passage import Passage
from cage_core.ray_data import GRAPH_COLUMN, GraphEnricher

__all__ = [
    "ACTOR_CPUS",
    "ROW_ID_COLUMN",
    "build_link_index",
    "enrich_local",
    "enrich_ray",
    "fill_store",
    "progress_bar",
    "read_rows",
    "write_rows",
]

ACTOR_CPUS = 0.5
"""CPUs reserved per Ray actor (parsing is one thread; fractional so the driver's tasks fit)."""


def _pyarrow() -> Any:
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise ImportError('Parquet files need pyarrow: pip install "cage-rag[parquet]"') from None
    return pq


def read_rows(path: Path) -> list[dict[str, Any]]:
    if path.suffix == ".parquet":
        return _pyarrow().read_table(path).to_pylist()
    rows = []
    with path.open(encoding="utf-8") as handle:
        for number, row in json_lines(handle, str(path)):
            if not isinstance(row, dict) or not isinstance(row.get("text"), str):
                raise DatasetFormatError(f"{path}:{number}: expected an object with a string 'text'")
            rows.append(row)
    return rows


def write_rows(path: Path, rows: list[dict[str, Any]]) -> None:
    if path.suffix == ".parquet":
        import pyarrow as pa

        _pyarrow().write_table(pa.Table.from_pylist(rows), path)
        return
    with path.open("w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")


def _plain(value: Any) -> Any:
    return value.tolist() if hasattr(value, "tolist") else value


def enrich_local(rows: list[dict[str, Any]], config: CageConfig, spacy_model: str | None,
                 batch_size: int, progress: Callable[[int], None],
                 level: GraphLevel | None = None) -> list[dict[str, Any]]:
    enricher = GraphEnricher(config, spacy_model, level=level)
    out: list[dict[str, Any]] = []
    for start in range(0, len(rows), batch_size):
        chunk = rows[start : start + batch_size]
        batch = {"text": [r["text"] for r in chunk], "title": [r.get("title") or "" for r in chunk]}
        graphs = enricher(batch)[GRAPH_COLUMN]
        out.extend({**r, GRAPH_COLUMN: g} for r, g in zip(chunk, graphs))
        progress(len(chunk))
    return out


def enrich_ray(path: Path, rows: list[dict[str, Any]], config: CageConfig, spacy_model: str | None,
               batch_size: int, address: str, workers: int,
               progress: Callable[[int], None], level: GraphLevel | None = None) -> list[dict[str, Any]]:
    """Enrich on Ray: a local instance gets ``rows`` (already read), a cluster reads ``path``."""
    try:
        import ray
    except ImportError:
        raise ImportError('Ray enrichment needs Ray Data: pip install "cage-rag[ray]"') from None
    if not ray.is_initialized():
        if address == "local":
            ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False)
        else:
            ray.init(address=address, log_to_driver=False)
    ray.data.DataContext.get_current().execution_options.preserve_order = True  # output = input order
    if address == "local":
        # Rows already read by the driver: no read tasks competing with the actors for the
        # few local CPUs (a known Ray Data stall when actors hold every CPU).
        ds = ray.data.from_items(rows)
    else:
        ds = ray.data.read_parquet(str(path)) if path.suffix == ".parquet" else ray.data.read_json(str(path))
    ds = ds.map_batches(GraphEnricher, fn_constructor_kwargs={"config": config, "spacy_model": spacy_model,
                                                             "level": level},
                        concurrency=workers, batch_size=batch_size, batch_format="pandas",
                        num_cpus=ACTOR_CPUS)
    out = []
    for row in ds.iter_rows():
        out.append({k: _plain(v) for k, v in row.items()})
        progress(1)
    return out


ROW_ID_COLUMN = "id"


def _title(row: dict[str, Any]) -> str:
    title = row.get("title")
    return title if isinstance(title, str) else ""  # a missing Parquet/pandas cell is None or NaN


def build_link_index(rows: list[dict[str, Any]]) -> LinkIndex:
    """The link index of enriched rows.

    A row's passage id is its ``id`` column when that is a non-empty string, else its
    0-based position as a string; its other columns are the metadata a subject is read from
    when it has no title (:data:`cage_core.passage_subject.SUBJECT_METADATA_KEYS`).

    Raises:
        ValueError: when two rows get the same id.
    """
    index = LinkIndex()
    for position, row in enumerate(rows):
        row_id = row.get(ROW_ID_COLUMN)
        passage_id = row_id if isinstance(row_id, str) and row_id else str(position)
        if passage_id in index:
            raise ValueError(f"row {position}: passage id {passage_id!r:.60} is used twice; "
                             "give every row a distinct 'id'")  # fmt: skip
        graph = PassageGraph.from_stored(row[GRAPH_COLUMN])
        metadata = {k: v for k, v in row.items() if k not in ("text", GRAPH_COLUMN)}
        index.add(passage_id, Passage(row["text"], title=_title(row)), graph, metadata=metadata)
    return index


def fill_store(store: GraphStore, rows: list[dict[str, Any]]) -> int:
    """Put every row's graph into ``store`` under the key a reranker will look up."""
    items = []
    for row in rows:
        graph = PassageGraph.from_stored(row[GRAPH_COLUMN])
        passage = Passage(row["text"], title=_title(row))
        items.append((graph_key(passage.content, graph.source, graph.level), graph))
    store.put_many(items)
    return len(items)


@contextmanager
def progress_bar(total: int, disable: bool) -> Iterator[Callable[[int], None]]:
    """A tqdm bar's ``update``, for the duration of a ``with`` block."""
    from tqdm.auto import tqdm

    with tqdm(total=total, unit="passage", desc="cage enrich", disable=disable) as bar:
        yield bar.update
