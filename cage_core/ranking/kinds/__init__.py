"""One module per kind of pool the bridge coherence ranks (:mod:`cage_core.methods.cage`
says which kind a pool is): ``titled``, ``untitled``, ``document``; ``bridge`` holds what the
titled and untitled kinds both read of a pool. The paper's kind is :mod:`cage_core.paper.mode`.
"""
