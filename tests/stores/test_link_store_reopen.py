"""Issue 46, the fault trial: a link store a reader holds for long (the expansion retrievers'
own, opened from a path by ``load_link_index``) reads the file now at its path from the next
call after a swap, or after a delete and restore, instead of raising ``StoreFileChanged``
until the application builds a new retriever. A store opened plainly keeps raising (issue 40's
rule for writers: a write may have gone to the old file)."""

from __future__ import annotations

import os
import pickle
import shutil

import pytest
from link_swap_worker import batch

from cage_core.expansion.contract import load_link_index
from cage_core.expansion.index import LinkIndex
from cage_core.stores.files import StoreFileChanged

QUERY = "Who knew old person 3?"


def _store(path, prefix: str, count: int):
    with LinkIndex.open(path, create=True) as index:
        index.add_entries(batch(prefix, count))
    return path


@pytest.mark.parametrize(
    "open_index",
    [lambda path: load_link_index(str(path)), lambda path: LinkIndex.open(path, reopen=True)],
    ids=["load_link_index", "LinkIndex.open(reopen=True)"],
)
def test_a_reopening_store_reads_the_file_swapped_in_at_the_next_call(tmp_path, open_index, caplog):
    live = _store(tmp_path / "links.sqlite", "old", 20)
    index = open_index(live)
    old = index.expand(QUERY, ["old3"])
    assert old
    os.replace(_store(tmp_path / "rebuilt.sqlite", "new", 30), live)
    assert index.entry("old3") is None and len(index) == 30  # the new file, never a mix
    assert index.expand("Who knew new person 3?", ["new3"]) == LinkIndex.open(live).expand(
        "Who knew new person 3?", ["new3"]
    )
    assert "replaced by another file" in caplog.text and "opening the file now" in caplog.text
    index.close()


def test_a_reopening_store_is_an_error_while_deleted_and_reads_it_once_restored(tmp_path):
    live = _store(tmp_path / "links.sqlite", "old", 20)
    backup = shutil.copy(live, tmp_path / "backup.sqlite")
    index = load_link_index(str(live))
    expected = index.expand(QUERY, ["old3"])
    live.unlink()
    for _ in range(2):  # no file at the path: a clear error, and no file created
        with pytest.raises(StoreFileChanged, match="deleted while open"):
            index.expand(QUERY, ["old3"])
    assert not live.exists()
    shutil.copy(backup, live)
    assert index.expand(QUERY, ["old3"]) == expected
    index.close()


def test_a_store_opened_plainly_still_raises_after_a_swap(tmp_path):
    live = _store(tmp_path / "links.sqlite", "old", 20)
    index = LinkIndex.open(live)
    os.replace(_store(tmp_path / "rebuilt.sqlite", "new", 30), live)
    for _ in range(2):
        with pytest.raises(StoreFileChanged, match="replaced by another file"):
            index.expand(QUERY, ["old3"])
    index.close()


def test_a_pickled_reopening_store_reopens_too(tmp_path):
    live = _store(tmp_path / "links.sqlite", "old", 20)
    copy = pickle.loads(pickle.dumps(load_link_index(str(live)).storage))
    os.replace(_store(tmp_path / "rebuilt.sqlite", "new", 30), live)
    assert len(copy) == 30
    copy.close()
