"""Stage 3 (optional), expansion: the ingest-time link index that reaches the hop a retriever
missed, and what the framework retrievers share.

Modules: ``contract``, ``index``, ``ingest``, ``store``.
"""
