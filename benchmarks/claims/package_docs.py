"""Package documentation benchmark (issue 26): does CAGE help, or at least not hurt, on the kind
of corpus a user has — Markdown, reStructuredText and README text that ships inside installed
packages — split the way LangChain splits it?

Corpus: the files listed in ``benchmarks/data/package_docs.json`` (paths relative to this
interpreter's site-packages; a ``*.dist-info/METADATA`` file contributes its long
description), split by ``RecursiveCharacterTextSplitter(chunk_size=800, chunk_overlap=0,
add_start_index=True)``; each chunk keeps ``metadata["source"]`` (the file) and
``metadata["start_index"]`` and gets the id ``"<source>:<start_index>"``. The questions and
their gold chunks were written into that JSON file before any ranking was run: a gold selector
is a file and a verbatim substring that exactly one chunk of the file contains (the script
stops when a selector matches no chunk or several, e.g. after a package upgrade changed a file).

Pipeline, per question (the real LangChain path): ``InMemoryVectorStore`` with the packaged
MiniLM, ``ScoredVectorStoreRetriever`` top ``k`` (20) = **vanilla**; the pool reranked by
``CageRerank(method="hybrid")`` (z-cosine + 0.5·z-BM25, the relevance term of cage) on the
chunks without document structure (the same metadata with ``source`` renamed ``file_name`` and
no ``start_index``: the same file-name subject, no document) = **hybrid**, the reference, and
with it = **hybrid, with structure** (equal to hybrid unless the tree's ranking reads the
structure even at α = 1); by ``CageRerank(method="cage")`` with the chunks' document structure
(``source`` + ``start_index`` → ``Passage.doc_id`` / ``position``) = **cage**, and without it =
**cage, no structure**. Graphs are parsed once at ingest
(``CageGraphTransformer``, which also writes the link index), so every rerank reads stored
graphs. The same again on the pool of ``CageExpansionRetriever`` (linked passages and
same-document neighbours added) = the ``--expand`` rows.

``--frameworks llamaindex`` runs the real LlamaIndex path on the same chunks
(:func:`llamaindex_rankings`: ``TextNode``s under the same ids with the structure a node
parser gives, ``CageGraphExtractor`` writing the link index, ``VectorStoreIndex`` with the
packaged MiniLM, ``index.as_retriever``, ``CageExpansionRetriever``, ``CageRerank``): vanilla,
hybrid and cage, with and without the expansion. ``--k 5,10,20`` ranks at each ``k`` after one
ingest per framework. Last, one table per framework and ``k``: cage after the expansion
retriever against cage after the plain one (issue 38: the expanded pipeline is never below).

**Cutoff** (issue 38): the score every ``cage`` ranking gives (LangChain ``relevance_score``,
LlamaIndex ``NodeWithScore.score``), at :data:`cage_core.relevance.CUTOFF`: the share of the
questions' gold chunks in the top 5 (the README's ``CageRerank(top_n=5)``) and in the pool that
score at least the cutoff, and the share of the ``off_topic`` questions' pools (general-knowledge
questions no file answers, fixed in the JSON file before any ranking of them) dropped whole (top
score below it); and the AUC of the top score, on- against off-topic pools.

Printed: Recall@3 / Recall@5 (share of a question's gold chunks in the top 3 / 5, mean over
questions), all-gold@5 (share of questions with every gold chunk in the top 5), overall and
per question type, and for each reranking the number of gold chunks (in the pool) it moved up
/ down against hybrid. It ranks with whatever the tree's ranking is; run from the repository
root::

    python benchmarks/claims/package_docs.py [--data FILE] [--k 20 | --k 5,10,20]
        [--frameworks langchain,llamaindex] [--json OUT.json] [--check-gold]
        [--no-start-index] [--compare OTHER.json]

``--data`` reads another questions file of the same form (default
``benchmarks/data/package_docs.json``; ``benchmarks/data/package_docs_2.json`` is a second
folder, other packages' documentation, issue 38). ``--json`` also records the link index's
subject of every chunk and the ``cage_via`` of the top 5 of every ranking, which
``benchmarks/checks/name_debris.py`` judges (the same rule for a run of any tree).

``--no-start-index`` splits with ``add_start_index=False`` (what a user who leaves the
splitter's default gets): the same chunks under the same ids, but no ``start_index``, so the
chunks' order comes from the ingest component (``metadata["cage_chunk_order"]``,
:mod:`cage_core.integrations.chunk_order`). ``--compare`` prints how many of the rankings
differ from those of an earlier run's ``--json`` file (both take one ``k`` and one framework):
with and without ``start_index``::

    python benchmarks/claims/package_docs.py --json with.json
    python benchmarks/claims/package_docs.py --no-start-index --compare with.json
"""

from __future__ import annotations

import argparse
import json
import sys
import sysconfig
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from cage_core.expansion.index import LinkIndex

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))  # rank with this tree's cage_core, not an installed copy
sys.path.insert(0, str(ROOT / "benchmarks"))  # crossval: the gold selectors' rule

from crossval.gold import gold_ids

DATA = ROOT / "benchmarks" / "data" / "package_docs.json"
KS = (3, 5)
FRAMEWORKS = ("langchain", "llamaindex")


def site_packages() -> Path:
    return Path(sysconfig.get_paths()["purelib"])


def file_text(root: Path, relative: str) -> str:
    path = root / relative
    if not path.is_file():
        sys.exit(
            f"{path}: not found; the corpus is the docs of the packages installed with "
            f"cage-rag's test dependencies (see {DATA.name})"
        )
    text = path.read_text(encoding="utf-8")
    if relative.endswith("METADATA"):  # headers, a blank line, then the long description
        text = text.split("\n\n", 1)[1] if "\n\n" in text else ""
    return text


def split_corpus(spec: dict, root: Path, start_index: bool = True) -> list:
    """The chunks of the corpus files, each with the id ``"<source>:<start_index>"``; without
    ``start_index`` the same chunks (checked) under the same ids, with no ``start_index``."""
    from langchain_core.documents import Document
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    def split(add_start_index: bool) -> list:
        settings = spec["splitter"]
        splitter = RecursiveCharacterTextSplitter(
            chunk_size=settings["chunk_size"],
            chunk_overlap=settings["chunk_overlap"],
            add_start_index=add_start_index,
        )
        files = spec["files"]
        return splitter.split_documents(
            [Document(file_text(root, f), metadata={"source": f}) for f in files]
        )

    with_offsets = split(True)
    chunks = with_offsets if start_index else split(False)
    if [c.page_content for c in chunks] != [c.page_content for c in with_offsets]:
        sys.exit("the splitter cuts differently without add_start_index")
    for chunk, reference in zip(chunks, with_offsets):
        chunk.id = f"{reference.metadata['source']}:{reference.metadata['start_index']}"
    return chunks


def without_structure(documents: Sequence) -> list:
    """The documents with ``source`` renamed ``file_name`` (the same file-name subject) and no
    ``start_index`` or ``cage_chunk_order``: no document structure."""
    from langchain_core.documents import Document

    from cage_core.metadata import ORDER_METADATA_KEY

    dropped = ("source", "start_index", ORDER_METADATA_KEY)
    out = []
    for d in documents:
        metadata = {k: v for k, v in d.metadata.items() if k not in dropped}
        if "source" in d.metadata:
            metadata["file_name"] = d.metadata["source"]
        out.append(Document(d.page_content, metadata=metadata, id=d.id))
    return out


def recall(order: Sequence[str], gold: Sequence[str], k: int) -> float:
    return sum(g in order[:k] for g in gold) / len(gold)


def moves(order: Sequence[str], reference: Sequence[str], gold: Sequence[str]) -> tuple[int, int]:
    """Gold chunks of the pool ranked higher / lower in ``order`` than in ``reference``."""
    up = down = 0
    for g in gold:
        if g in order and g in reference:
            delta = reference.index(g) - order.index(g)
            up, down = up + (delta > 0), down + (delta < 0)
    return up, down


def run(
    ks: Sequence[int], start_index: bool = True, data: Path = DATA, framework: str = "langchain"
) -> list[dict]:
    """Ingest once through ``framework``'s path, then rank every question at each ``k``: one
    result per ``k`` (the orders of every ranking, the top-5 vias, the subjects)."""
    spec = json.loads(data.read_text(encoding="utf-8"))
    chunks = split_corpus(spec, site_packages(), start_index)
    # before any ranking: a bad selector stops here
    gold = gold_ids(spec, chunks, one_part_per_chunk=True)
    import cage_core
    from cage_core.expansion.index import LinkIndex

    print(f"ranking with {Path(cage_core.__file__).parent} ({framework})", file=sys.stderr)
    started = time.perf_counter()
    links = LinkIndex()
    rank = (langchain_rankings if framework == "langchain" else llamaindex_rankings)(
        chunks, links, start_index
    )
    print(
        f"{len(chunks)} chunks of {len(spec['files'])} files, {len(spec['questions'])} questions "
        f"({sum(q['type'] == 'two_chunk' for q in spec['questions'])} two-chunk); ingest "
        f"{time.perf_counter() - started:.0f} s; "
        f"start_index {'kept' if start_index else 'not kept'}",
        file=sys.stderr,
    )
    results = []
    for k in ks:
        orders, vias, parses, scores, off_topic = rank(
            spec["questions"], k, spec.get("off_topic", [])
        )
        results.append(
            {
                "spec": spec,
                "gold": gold,
                "orders": orders,
                "scores": scores,
                "off_topic": off_topic,
                "vias": vias,
                "subjects": {entry.id: entry.subject for entry in links.entries()},
                "parses_at_query_time": parses,
                "chunks": len(chunks),
                "k": k,
                "framework": framework,
            }
        )
    return results


Orders = dict[str, dict[str, list[str]]]  # ranking -> question -> ids, best first
Vias = dict[str, dict[str, list[list[object]]]]  # ranking -> question -> top-5 vias
Scores = dict[str, dict[str, list[float]]]  # cage ranking -> question -> its relevance_scores
OffTopic = dict[str, dict[str, float]]  # cage ranking -> off-topic question -> top score


def langchain_rankings(chunks: list, links: LinkIndex, start_index: bool) -> Callable:
    """The LangChain path (module docstring); returns ``rank(questions, k)``."""
    from langchain_core.vectorstores import InMemoryVectorStore

    from cage_core.metadata import ORDER_METADATA_KEY
    from cage_langchain import (
        CageExpansionRetriever,
        CageGraphTransformer,
        CageRerank,
        PackagedMiniLMEmbeddings,
        ScoredVectorStoreRetriever,
    )

    enriched = CageGraphTransformer(link_index=links).transform_documents(chunks)
    store = InMemoryVectorStore(PackagedMiniLMEmbeddings())
    store.add_documents(list(enriched))
    ordered = sum(ORDER_METADATA_KEY in d.metadata for d in enriched)
    print(f"{ordered} chunks ordered at ingest", file=sys.stderr)
    rerankers = {
        "hybrid": CageRerank(method="hybrid", top_n=None),
        "cage": CageRerank(method="cage", top_n=None),
    }

    def rank(
        questions: list[dict], k: int, off_topic: list[dict]
    ) -> tuple[Orders, Vias, int, Scores, OffTopic]:
        base = ScoredVectorStoreRetriever(vectorstore=store, k=k)
        pools = {
            "": base,
            " --expand": CageExpansionRetriever(
                base_retriever=base, vectorstore=store, link_index=links
            ),
        }
        orders: Orders = {}
        vias: Vias = {}
        scores: Scores = {}
        off: OffTopic = {}
        for suffix, retriever in pools.items():
            for q in questions:
                pool = retriever.invoke(q["question"])
                plain = without_structure(pool)
                ranked = {"vanilla": [d.id for d in pool]}
                for name, structured in (
                    ("hybrid", False),
                    ("hybrid, with structure", True),
                    ("cage", True),
                    ("cage, no structure", False),
                ):
                    rerank = rerankers[name.split(",")[0]]
                    out = rerank.compress_documents(pool if structured else plain, q["question"])
                    ranked[name] = [d.id for d in out]
                    if name == "cage":
                        scores.setdefault(name + suffix, {})[q["id"]] = [
                            d.metadata["relevance_score"] for d in out
                        ]
                    vias.setdefault(name + suffix, {})[q["id"]] = [
                        [d.id, via["name"], out[via["rank"]].id]
                        for d in out[:5]
                        if isinstance(via := d.metadata.get("cage_via"), dict)
                    ]
                for name, order in ranked.items():
                    orders.setdefault(name + suffix, {})[q["id"]] = order
            for q in off_topic:
                out = rerankers["cage"].compress_documents(
                    retriever.invoke(q["question"]), q["question"]
                )
                off.setdefault("cage" + suffix, {})[q["id"]] = out[0].metadata["relevance_score"]
        parses = sum(r.reranker.parse_count for r in rerankers.values())
        return orders, vias, parses, scores, off

    return rank


def llamaindex_rankings(chunks: list, links: LinkIndex, start_index: bool) -> Callable:
    """The LlamaIndex path: the same chunks as ``TextNode``s under the same ids, with what a
    node parser gives them (``SOURCE`` = the file, ``PREVIOUS`` / ``NEXT`` within it,
    ``start_char_idx`` = ``start_index`` when kept; ``source`` in metadata, not embedded, so
    the vectors are the LangChain path's), ``CageGraphExtractor`` with the link index in an
    ``IngestionPipeline``, a ``VectorStoreIndex`` with the packaged MiniLM; per ``k``
    ``index.as_retriever(similarity_top_k=k)`` = vanilla, and ``CageExpansionRetriever`` over
    it for ``--expand``; ``CageRerank`` hybrid and cage on each pool."""
    from llama_index.core import VectorStoreIndex
    from llama_index.core.ingestion import IngestionPipeline
    from llama_index.core.schema import NodeRelationship, RelatedNodeInfo, TextNode

    from cage_llamaindex import (
        CageExpansionRetriever,
        CageGraphExtractor,
        CageRerank,
        PackagedMiniLMEmbedding,
    )

    nodes = []
    for chunk in chunks:
        source = chunk.metadata["source"]
        offset = int(chunk.id.rsplit(":", 1)[1])
        node = TextNode(
            id_=chunk.id,
            text=chunk.page_content,
            metadata={"source": source},
            excluded_embed_metadata_keys=["source"],
            start_char_idx=offset if start_index else None,
            end_char_idx=offset + len(chunk.page_content) if start_index else None,
        )
        node.relationships[NodeRelationship.SOURCE] = RelatedNodeInfo(node_id=source)
        nodes.append(node)
    for before, after in zip(nodes, nodes[1:]):
        if before.ref_doc_id == after.ref_doc_id:
            before.relationships[NodeRelationship.NEXT] = RelatedNodeInfo(node_id=after.node_id)
            after.relationships[NodeRelationship.PREVIOUS] = RelatedNodeInfo(node_id=before.node_id)
    enriched = IngestionPipeline(transformations=[CageGraphExtractor(link_index=links)]).run(
        nodes=nodes
    )
    index = VectorStoreIndex(enriched, embed_model=PackagedMiniLMEmbedding())
    rerankers = {
        "hybrid": CageRerank(method="hybrid", top_n=None),
        "cage": CageRerank(method="cage", top_n=None),
    }

    def rank(
        questions: list[dict], k: int, off_topic: list[dict]
    ) -> tuple[Orders, Vias, int, Scores, OffTopic]:
        base = index.as_retriever(similarity_top_k=k)
        pools = {"": base, " --expand": CageExpansionRetriever(base, index, links)}
        orders: Orders = {}
        vias: Vias = {}
        scores: Scores = {}
        off: OffTopic = {}
        for suffix, retriever in pools.items():
            for q in questions:
                pool = retriever.retrieve(q["question"])
                orders.setdefault("vanilla" + suffix, {})[q["id"]] = [n.node_id for n in pool]
                for name, rerank in rerankers.items():
                    out = rerank.postprocess_nodes(pool, query_str=q["question"])
                    orders.setdefault(name + suffix, {})[q["id"]] = [n.node_id for n in out]
                    if name == "cage":  # NodeWithScore.score: what SimilarityPostprocessor reads
                        scores.setdefault(name + suffix, {})[q["id"]] = [
                            float(n.score or 0.0) for n in out
                        ]
                    vias.setdefault(name + suffix, {})[q["id"]] = [
                        [n.node_id, via["name"], out[via["rank"]].node_id]
                        for n in out[:5]
                        if isinstance(via := n.node.metadata.get("cage_via"), dict)
                    ]
            for q in off_topic:
                out = rerankers["cage"].postprocess_nodes(
                    retriever.retrieve(q["question"]), query_str=q["question"]
                )
                off.setdefault("cage" + suffix, {})[q["id"]] = float(out[0].score or 0.0)
        parses = sum(r.reranker.parse_count for r in rerankers.values())
        return orders, vias, parses, scores, off

    return rank


def summary(result: dict) -> dict:
    spec, gold, orders = result["spec"], result["gold"], result["orders"]
    types = {q["id"]: q["type"] for q in spec["questions"]}
    rows = {}
    for name, by_question in orders.items():
        row: dict[str, object] = {}
        for group in ("all", "one_chunk", "two_chunk"):
            ids = [i for i in by_question if group == "all" or types[i] == group]
            for k in KS:
                row[f"{group} R@{k}"] = sum(recall(by_question[i], gold[i], k) for i in ids) / len(
                    ids
                )
        row["all-gold@5"] = sum(recall(order, gold[i], 5) == 1 for i, order in by_question.items())
        row["all-gold@5"] /= len(by_question)
        reference = orders["hybrid" + (" --expand" if name.endswith("--expand") else "")]
        up = down = 0
        for i, order in by_question.items():
            u, d = moves(order, reference[i], gold[i])
            up, down = up + u, down + d
        row["up"], row["down"] = up, down
        row["gold in pool"] = sum(g in by_question[i] for i in gold for g in gold[i])
        rows[name] = row
    return rows


def print_table(rows: dict, result: dict) -> None:
    n_gold = sum(len(g) for g in result["gold"].values())
    print(
        f"k={result['k']}, {result['chunks']} chunks, {len(result['gold'])} questions, "
        f"{n_gold} gold chunks; query-time parses: {result['parses_at_query_time']}"
    )
    header = [
        "ranking",
        "R@3",
        "R@5",
        "one-chunk R@3",
        "R@5",
        "two-chunk R@3",
        "R@5",
        "all-gold@5",
        "gold in pool",
        "up / down vs hybrid",
    ]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for name, row in rows.items():
        cells = [name] + [
            f"{row[f'{g} R@{k}']:.3f}" for g in ("all", "one_chunk", "two_chunk") for k in KS
        ]
        reference = name in ("hybrid", "hybrid --expand")
        cells += [
            f"{row['all-gold@5']:.3f}",
            f"{row['gold in pool']}/{n_gold}",
            "—" if reference else f"{row['up']} / {row['down']}",
        ]
        print("| " + " | ".join(cells) + " |")


def cutoff_rows(result: dict, cutoff: float) -> dict:
    """Per ``cage`` ranking, what the cutoff keeps and drops (module docstring)."""
    gold, rows = result["gold"], {}
    for name, by_question in result["scores"].items():
        order = result["orders"][name]
        top5 = [
            s >= cutoff
            for i, ss in by_question.items()
            for d, s in zip(order[i][:5], ss)
            if d in gold[i]
        ]
        pool = [
            s >= cutoff
            for i, ss in by_question.items()
            for d, s in zip(order[i], ss)
            if d in gold[i]
        ]
        on = [ss[0] for ss in by_question.values()]
        off = list(result["off_topic"].get(name, {}).values())
        rows[name] = {
            "top-5 gold kept": f"{sum(top5)}/{len(top5)}",
            "pool gold kept": f"{sum(pool)}/{len(pool)}",
            "on-topic pools kept": f"{sum(t >= cutoff for t in on)}/{len(on)}",
            "off-topic pools dropped": f"{sum(t < cutoff for t in off)}/{len(off)}",
            "AUC": sum((a > b) + 0.5 * (a == b) for a in on for b in off) / (len(on) * len(off))
            if on and off
            else float("nan"),
            "best off-topic score": max(off, default=float("nan")),
        }
    return rows


def print_cutoff(rows: dict, cutoff: float) -> None:
    print(
        f"\ncutoff {cutoff} on the cage rankings' 0-1 score (relevance_score, NodeWithScore.score)"
    )
    header = ["ranking", *next(iter(rows.values()))]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for name, row in rows.items():
        cells = [f"{v:.3f}" if isinstance(v, float) else v for v in row.values()]
        print("| " + " | ".join([name, *cells]) + " |")


def print_comparison(orders: dict, other: dict) -> None:
    """How many of the rankings (a ranking per question) differ from ``other``'s, per ranking."""
    total = changed = 0
    for name, by_question in orders.items():
        differ = [q for q, order in by_question.items() if other.get(name, {}).get(q) != order]
        total, changed = total + len(by_question), changed + len(differ)
        print(f"{name}: {len(differ)} of {len(by_question)} rankings differ {differ}")
    print(f"all: {changed} of {total} rankings differ")


def ks_list(text: str) -> tuple[int, ...]:
    """``"5,10,20"`` → ``(5, 10, 20)``; each at least 1."""
    try:
        ks = tuple(int(part) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a comma-separated list of ints: {text!r}") from None
    if not ks or min(ks) < 1:
        raise argparse.ArgumentTypeError(f"every k must be at least 1: {text!r}")
    return ks


def frameworks_list(text: str) -> tuple[str, ...]:
    """``"langchain,llamaindex"`` → the frameworks, each known."""
    names = tuple(part.strip() for part in text.split(","))
    unknown = [n for n in names if n not in FRAMEWORKS]
    if unknown:
        raise argparse.ArgumentTypeError(f"unknown framework {unknown}; known: {FRAMEWORKS}")
    return names


def print_expansion_check(results: list[tuple[dict, dict]]) -> None:
    """cage after the expansion retriever against cage after the plain one, per framework and
    k: R@3, R@5, all-gold@5, and whether the expanded pipeline is below on any of them."""
    print(
        "\n| framework | k | cage R@3 | R@5 | all-gold@5 "
        "| cage --expand R@3 | R@5 | all-gold@5 | below |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    metrics = ("all R@3", "all R@5", "all-gold@5")
    for result, rows in results:
        plain, expanded = rows["cage"], rows["cage --expand"]
        below = [m for m in metrics if expanded[m] < plain[m] - 1e-9]
        cells = [f"{plain[m]:.3f}" for m in metrics] + [f"{expanded[m]:.3f}" for m in metrics]
        print(
            f"| {result['framework']} | {result['k']} | "
            + " | ".join(cells)
            + f" | {', '.join(below) or 'no'} |"
        )


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--data", type=Path, default=DATA, help="the questions file (default: %(default)s)"
    )
    parser.add_argument(
        "--k",
        type=ks_list,
        default=(20,),
        help="retrieved chunks per question; several, comma-separated (5,10,20), rank after "
        "one ingest (default: 20)",
    )
    parser.add_argument(
        "--frameworks",
        type=frameworks_list,
        default=("langchain",),
        help="langchain, llamaindex or both, comma-separated (default: langchain)",
    )
    parser.add_argument("--json", type=Path, help="also write the figures and orders here")
    parser.add_argument(
        "--check-gold",
        action="store_true",
        help="only split the corpus and check the gold selectors",
    )
    parser.add_argument(
        "--no-start-index",
        action="store_true",
        help="split without add_start_index (the same chunks and ids, no start_index)",
    )
    parser.add_argument(
        "--compare",
        type=Path,
        help="print how many rankings differ from those of this earlier --json file",
    )
    args = parser.parse_args(argv)
    if args.check_gold:
        spec = json.loads(args.data.read_text(encoding="utf-8"))
        chunks = split_corpus(spec, site_packages(), not args.no_start_index)
        gold = gold_ids(spec, chunks, one_part_per_chunk=True)
        print(
            f"{len(chunks)} chunks; {sum(len(g) for g in gold.values())} gold chunks of "
            f"{len(gold)} questions, each selector names exactly one chunk"
        )
        return
    if (args.json or args.compare) and len(args.k) * len(args.frameworks) > 1:
        parser.error("--json and --compare take one run: one --k and one framework")
    results = []
    for framework in args.frameworks:
        for result in run(args.k, not args.no_start_index, args.data, framework):
            rows = summary(result)
            print(f"\n{framework}, ", end="")
            print_table(rows, result)
            results.append((result, rows))
    print_expansion_check(results)
    from cage_core.relevance import CUTOFF

    for result, _ in results:
        if result["scores"]:
            print(f"\n{result['framework']}, k={result['k']}: ", end="")
            print_cutoff(cutoff_rows(result, CUTOFF), CUTOFF)
    result, rows = results[0]
    cutoffs = cutoff_rows(result, CUTOFF) if result["scores"] else {}
    if args.compare:
        print_comparison(result["orders"], json.loads(args.compare.read_text())["orders"])
    if args.json:
        args.json.write_text(
            json.dumps(
                {
                    "rows": rows,
                    "cutoff": cutoffs,
                    "scores": result["scores"],
                    "off_topic": result["off_topic"],
                    "orders": result["orders"],
                    "gold": result["gold"],
                    "vias": result["vias"],
                    "subjects": result["subjects"],
                },
                indent=1,
            )
        )


if __name__ == "__main__":
    main()
