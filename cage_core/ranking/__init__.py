"""Stage 2, ranking one pool: relevance, the links between passages, subjects, the evidence
chain, fusion into one score, and why each passage is there.

Modules: ``chain``, ``contradiction``, ``document_links``, ``explanation``, ``fusion`` (the
dispatch over pool kinds), ``kinds/`` (one module per kind), ``lift``, ``link_names``,
``links``, ``pair_index``, ``pool_bm25``, ``pool_scores``, ``relevance_gate``, ``subjects``,
``untitled_core``.
"""
