"""Stage 2, ranking one pool: relevance, the links between passages, subjects, the evidence
chain, fusion into one score by the pool's kind, and why each passage is there. The dispatch
over the kinds is CAGE's method, :mod:`cage_core.methods.cage`.

Modules: ``chain``, ``contradiction``, ``document_links``, ``explanation``, ``kinds/`` (one
module per kind), ``lift``, ``link_names``, ``links``, ``pair_index``, ``pool_bm25``,
``pool_scores``, ``relevance_gate``, ``subjects``, ``untitled_core``.
"""
