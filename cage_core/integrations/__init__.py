"""Running CAGE inside other systems: the framework components' shared parts, Ray Data, corpus
enrichment.

Modules: ``expanded_pool`` (the expansion retrievers' pool, one implementation, sync and async),
``document_routing`` (what a routed pool carries), ``ahead``, ``vector_reads``,
``chunk_order``, ``rerank_call``, ``pickled_state``, ``enrich``,
``ray_data``.
"""
