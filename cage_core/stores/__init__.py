"""The SQLite store layer both stores share: the graph store (:mod:`cage_core.graphs.store`)
and the link store (:mod:`cage_core.expansion.store`) are each one file, read and written by
many processes at once, and a file that may be damaged, moved or written by someone else.

Modules: ``files`` (the file on disk: created private, its identity, its side files),
``database`` (a connection's defences, WAL mode, write transactions, busy retries),
``stamp`` (which file a ``-wal`` belongs to), ``opening`` (the opening sequence, and what
makes a file a store of one kind), ``connection`` (one process's connection: its life cycle).
"""
