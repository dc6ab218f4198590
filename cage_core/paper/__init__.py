"""The paper's R-GCN coherence: node features, min-out-degree reweighting, the encoder trained
per query and its per-pool cache.

Modules: ``encoder``, ``encodings``, ``features``, ``reweight``.
"""
