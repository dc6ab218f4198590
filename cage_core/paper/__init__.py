"""The paper's R-GCN coherence: node features, min-out-degree reweighting, the encoder trained
per query and its per-pool cache.

Modules: ``encoder``, ``encodings``, ``features``, ``mode`` (the pool kind ``paper``),
``reweight``, ``rgcn_term`` (the R-GCN term a titled or untitled pool adds to its core).
"""
