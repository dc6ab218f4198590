"""Stage 3 (optional), expansion: the ingest-time link index that reaches the hop a retriever
missed, and what the framework retrievers share.

Modules: ``index`` (the link index, :class:`~cage_core.expansion.index.LinkIndex`, and the
names its callers import from its parts), its parts ``record`` (one passage's entry),
``entries`` (the entry of a passage), ``algorithm`` (the links and the expansion), ``storage``
(the storage protocol and its in-memory twin), ``jsonl`` (the stored form), ``store`` (the
SQLite link store), and ``contract``, ``ingest``.
"""
