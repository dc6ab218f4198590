"""The DEV folders' pools in ``score_calibration.py``'s form, for its pooled choice.

    python benchmarks/tuning/score_folders.py [--folders NAME,...] --out score-folders.json.gz
    python benchmarks/tuning/score_calibration.py --features F.json.gz --only-measure \\
        --with-folders score-folders.json.gz

``score_calibration.py`` chooses the 0–1 score's settings (``relevance.*``) on pools of the
Wikipedia and beyond-Wikipedia DEV files. The DEV folders (``benchmarks/data/dev_folders``)
are ranked through a framework's README path, where the pool is the expansion's and a
question that names a document is routed; their pools go into the same choice here. Per
folder, through the LangChain README path (``crossval.dev_folders.langchain_ingest``: the
README's splitter, ``CageGraphTransformer``, MiniLM; ``CageExpansionRetriever`` then
``CageRerank(top_n=None)``; the LlamaIndex path ranks every question the same,
``claims/dev_folders.py``), each pool as ``score_calibration.py`` keeps it:

* ``sims``: the pool's similarities the score reads (``cage_similarity``), ``fused``: the
  score the ranking orders by (``cage_score``; in a routed pool the named order's), both in
  the reranker's order, so the first five are its top 5; ``coverage``: the question's words
  one passage of the pool holds, as the score reads them (``rerank_call.pool_coverage``: a
  routed pool's named passages hold the naming words); ``gold``: the positions of the
  question's gold chunks in that order;
* each pool is checked: the score ``score_calibration.py`` computes from these at the
  shipped settings (``pool_relevance``) is the ``relevance_score`` the path returned, or the
  script stops;
* on-topic: every question of the folder; off-topic: the folder's off-topic questions asked
  of it. A pool's ``id`` is ``"<folder>/<question id>"`` (folds by question).
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks/: crossval
from crossval.dev_folders import DATA, gold_ids, langchain_ingest, load_chunks, parsed_folder_specs

from cage_core.integrations.rerank_call import pool_coverage, routed_pool
from cage_core.metadata import CAGE_SCORE_KEY, CAGE_SIMILARITY_KEY, RELEVANCE_SCORE_KEY
from cage_core.relevance import pool_relevance


def folder_pools(spec_path: Path) -> list[dict[str, Any]]:
    """The on- and off-topic pools of one folder (module docstring)."""
    from cage_langchain import CageExpansionRetriever, CageRerank, ScoredVectorStoreRetriever
    from cage_langchain.structure import document_passages

    spec, chunks = load_chunks(spec_path)
    gold = gold_ids(spec, chunks)
    _, store, links = langchain_ingest(chunks)
    base = ScoredVectorStoreRetriever(vectorstore=store, k=20)
    expand = CageExpansionRetriever(base_retriever=base, vectorstore=store, link_index=links)
    cage = CageRerank(top_n=None)
    asked = [(q, True) for q in spec["questions"]] + [(q, False) for q in spec.get("off_topic", [])]
    out = []
    for question, on_topic in asked:
        pool = expand.invoke(question["question"])
        ranked = cage.compress_documents(pool, question["question"])
        ids = [d.id for d in ranked]
        coverage = pool_coverage(
            routed_pool(
                cage,
                question["question"],
                document_passages(pool, cage.title_key),
                [d.metadata for d in pool],
            )[0]
        )
        sims = [float(d.metadata[CAGE_SIMILARITY_KEY]) for d in ranked]
        fused = [float(d.metadata[CAGE_SCORE_KEY]) for d in ranked]
        returned = [float(d.metadata[RELEVANCE_SCORE_KEY]) for d in ranked]
        if not np.allclose(pool_relevance(fused, sims, coverage), returned, rtol=0, atol=1e-9):
            raise SystemExit(
                f"{spec_path.stem}/{question['id']}: the pool's features do not "
                "give the score the path returned (stale score_folders.py)"
            )
        out.append(
            {
                "file": spec_path.stem,
                "on_topic": on_topic,
                "id": f"{spec_path.stem}/{question['id']}",
                "sims": sims,
                "coverage": coverage,
                "fused": fused,
                "gold": sorted(ids.index(g) for g in gold.get(question["id"], []) if g in ids)
                if on_topic
                else [],
            }
        )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folders", default="", help="comma-separated folder names (all)")
    parser.add_argument("--out", type=Path, required=True, help="gzipped JSON of the pools")
    args = parser.parse_args()
    paths = parsed_folder_specs(parser, DATA, args.folders)
    pools: list[dict[str, Any]] = []
    for spec_path in paths:
        start = time.perf_counter()
        made = folder_pools(spec_path)
        pools += made
        print(
            f"{spec_path.stem}: {len(made)} pools ({time.perf_counter() - start:.0f}s)",
            file=sys.stderr,
            flush=True,
        )
    with gzip.open(args.out, "wt", encoding="utf-8") as handle:
        json.dump(pools, handle)


if __name__ == "__main__":
    main()
