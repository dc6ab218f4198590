"""DEV folders benchmark (issue 45): on real folders nobody tuned on, does the README's CAGE path
beat a plain dense retriever and the frameworks' own hybrid retrievers, and does routing fire
for the questions that name a document (and only for them)?

Corpus: each ``benchmarks/data/dev_folders/<name>.json`` and its folder ``<name>/`` (the
questions and gold were committed before any ranking was run; ``benchmarks/checks/
dev_folders_check.py`` checks them). Every file is read as text, as published (HTML too), with
``metadata["source"]`` = its path in the folder, and split by the README's
``RecursiveCharacterTextSplitter(chunk_size=500, chunk_overlap=0, add_start_index=True)``; a
chunk's id is ``"<source>:<start_index>"``. A gold selector (file, verbatim phrase) names the
one chunk of its file that holds the phrase (the script stops when one names none or several).
Both frameworks rank the same chunks under the same ids.

Per folder and framework, ingest once (the CAGE component writes the link index, MiniLM
embeds), then per question, with nothing tuned:

- **plain**: the dense retriever's top ``k`` (20) (LangChain ``ScoredVectorStoreRetriever``
  over ``InMemoryVectorStore``; LlamaIndex ``index.as_retriever``);
- **cage**: that pool reranked by the default ``CageRerank()`` (LlamaIndex:
  ``CageRerank(index=index)``, as the README passes it);
- **cage --expand**: the pool of ``CageExpansionRetriever`` (links, same-document neighbours,
  routing) over the plain retriever, reranked by ``CageRerank()``;
- **hybrid legs N** (N = 5, 20): LangChain ``EnsembleRetriever`` of ``BM25Retriever`` and the
  store's retriever, each ``k=N``, weights 0.5 / 0.5; LlamaIndex ``QueryFusionRetriever`` of
  the vector retriever and ``BM25Retriever``, each ``similarity_top_k=N``,
  ``mode="reciprocal_rerank"``, ``num_queries=1`` (no LLM: ``MockLLM``).

LlamaIndex also runs **sentence window**: ``SentenceWindowNodeParser`` (its defaults: window of
3 sentences each side) over the same files, the vector retriever's top ``k`` sentences, their
windows by ``MetadataReplacementPostProcessor``, read in order up to the characters of five
chunks (``5 × 500``; the last window cut there). Its recall is a gold part's phrase read in a
window of its file within that budget (it has no chunk ids); the same rule on CAGE's top 5
chunks is R@5.

Printed per framework: R@5 (share of a question's gold chunks in the top 5, mean over the
folder's questions) per folder and method, and pooled over every question; all@5 of the
two-document questions (share with every gold chunk in the top 5); how often routing fired
(a document of the expanded pool carries ``cage_route``) for the questions that name a
document, for the other questions and for the off-topic ones; and, for the two CAGE methods,
the share of top-5 ``cage_via`` values that are **real links** by this rule (written before
any via was looked at; issue 45): a via is real when

- it is a document link (``kind == "document"``: the two passages are chunks of one file), or
- its name names the linked passage's document: folded (:func:`~cage_core.names.documents.fold`),
  at least 3 characters, it is within that document's title (its opening's
  :func:`~cage_core.names.documents.document_title`) or its file stem, or the document's title
  is within it, or
- it is a rare name both passages hold: folded, it occurs as whole words in both passages'
  texts and in at most ``max(2, 20%)`` of the folder's documents.

Anything else (a header label every file has, a word most documents hold, a sentence opener
or a code value one passage alone holds) is not.

For the two CAGE methods, **one cutoff** (the README's 0.5 on the 0–1 score: LangChain
``relevance_score``, LlamaIndex ``NodeWithScore.score``): how many of the gold parts in the top
5 score at least 0.5 (kept), and how many of the off-topic questions' pools score below it
throughout (dropped). Run from the repository root::

    python benchmarks/claims/dev_folders.py [--frameworks langchain,llamaindex]
        [--data DIR] [--folders ethereum_eips,httpx_docs] [--k 20] [--json OUT.json]
        [--true-positions]

``--data benchmarks/data/unseen_folders`` runs the folders nobody tuned on instead (their
``README.md``): the same paths, the same tables.

``--true-positions`` gives every chunk its place in its file (``metadata["position"]``), so
the document view's adjacent chunks are adjacent in the file, not consecutive among the
pool's chunks of that file (what the README path's ``start_index`` gives): measured, not
shipped (``docs/history.md``).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))  # rank with this tree's cage_core, not an installed copy
sys.path.insert(0, str(ROOT / "benchmarks"))  # crossval: the DEV folders' shared parts

from crossval.dev_folders import (
    CHUNK_SIZE,
    DATA,
    VIA_RANKS,
    Ranked,
    gold_ids,
    is_two_document,
    langchain_methods,
    llamaindex_methods,
    load_chunks,
    recall,
)

FRAMEWORKS = ("langchain", "llamaindex")
CAGE_METHODS = ("cage", "cage --expand")
CUTOFF = 0.5  # the README's cutoff on the 0-1 score
RARE_SHARE = 0.2  # a rare name is held by at most max(2, 20%) of the folder's documents


def sentence_window_recall(spec: dict, folder: Path, k: int) -> dict[str, float]:
    """Per question: the share of its gold phrases read within the budget (module docstring)."""
    from llama_index.core import Document, VectorStoreIndex
    from llama_index.core.node_parser import SentenceWindowNodeParser
    from llama_index.core.postprocessor import MetadataReplacementPostProcessor

    from cage_llamaindex import PackagedMiniLMEmbedding

    documents = [
        Document(
            text=(folder / f).read_text(encoding="utf-8"),
            metadata={"source": f},
            excluded_embed_metadata_keys=["source"],
            excluded_llm_metadata_keys=["source"],
        )
        for f in spec["files"]
    ]
    nodes = SentenceWindowNodeParser.from_defaults().get_nodes_from_documents(documents)
    index = VectorStoreIndex(nodes, embed_model=PackagedMiniLMEmbedding())
    retriever = index.as_retriever(similarity_top_k=k)
    windows = MetadataReplacementPostProcessor(target_metadata_key="window")
    budget = VIA_RANKS * CHUNK_SIZE
    out = {}
    for q in spec["questions"]:
        read: list[tuple[str, str]] = []
        left = budget
        for result in windows.postprocess_nodes(retriever.retrieve(q["question"])):
            if left <= 0:
                break
            text = result.node.get_content()[:left]
            read.append((result.node.metadata["source"], text))
            left -= len(text)
        found = [
            any(source == g["file"] and g["contains"] in text for source, text in read)
            for g in q["gold"]
        ]
        out[q["id"]] = sum(found) / len(found)
    return out


def run_folder(spec_path: Path, framework: str, k: int, true_positions: bool = False) -> dict:
    """Every method's ranking of every question (and the off-topic ones' routing) of one folder."""
    spec, chunks = load_chunks(spec_path, true_positions=true_positions)
    gold = gold_ids(spec, chunks)  # before any ranking: a bad selector stops here
    started = time.perf_counter()
    methods, links = (langchain_methods if framework == "langchain" else llamaindex_methods)(
        chunks, k
    )
    print(
        f"{spec_path.stem}: {len(chunks)} chunks of {len(spec['files'])} files, "
        f"{len(spec['questions'])} questions; ingest {time.perf_counter() - started:.0f} s",
        file=sys.stderr,
    )
    ranked: Ranked = {
        name: {q["id"]: rank(q["question"]) for q in spec["questions"]}
        for name, rank in methods.items()
    }
    off_topic = {
        name: [methods[name](q["question"]) for q in spec.get("off_topic", [])]
        for name in CAGE_METHODS
    }
    texts = {c.id: c.page_content for c in chunks}
    window = (
        sentence_window_recall(spec, spec_path.with_suffix(""), k)
        if framework == "llamaindex"
        else None
    )
    return {
        "sentence_window": window,
        "spec": spec,
        "gold": gold,
        "ranked": ranked,
        "off_routed": [r[1] for r in off_topic["cage --expand"]],
        "off_best": {name: [max(r[3] or [0.0]) for r in rs] for name, rs in off_topic.items()},
        "vias": via_counts(spec_path, spec, texts, ranked),
        "subjects": titled_subjects(spec_path, spec, links),
    }


def titled_subjects(spec_path: Path, spec: dict, links: Any) -> tuple[int, int]:
    """(chunks whose link-index subject is their document's title, chunks of documents that
    write a title): the title as :func:`~cage_core.names.documents.document_title` reads it
    from the file's opening (its first 4,000 characters), compared folded."""
    from cage_core.names.documents import document_title, fold

    folder = spec_path.with_suffix("")
    titles = {
        f: fold(document_title((folder / f).read_text(encoding="utf-8")[:4000]))
        for f in spec["files"]
    }
    titled = every = 0
    for entry in links.entries():
        title = titles.get(entry.id.rsplit(":", 1)[0], "")
        if title:
            every += 1
            titled += fold(entry.subject) == title
    return titled, every


def via_counts(spec_path: Path, spec: dict, texts: dict[str, str], ranked: Ranked) -> dict:
    """Per CAGE method: (real, all) top-5 vias by the module docstring's rule."""
    from cage_core.names.documents import document_title, fold

    folder = spec_path.with_suffix("")
    documents = {f: fold((folder / f).read_text(encoding="utf-8")) for f in spec["files"]}
    names = {
        f: [fold(document_title(text[:4000])), fold(Path(f).stem)] for f, text in documents.items()
    }
    rare = max(2, int(RARE_SHARE * len(documents)))

    def words(name: str, text: str) -> bool:
        return re.search(rf"(?<!\w){re.escape(name)}(?!\w)", text) is not None

    def real(via: tuple[str, str, str], own: str) -> bool:
        kind, name, linked = via
        if kind == "document":
            return True
        name = fold(name).strip()
        document = linked.rsplit(":", 1)[0]
        if len(name) >= 3 and any(name in n or (n and n in name) for n in names[document]):
            return True
        both = words(name, fold(texts[own])) and words(name, fold(texts[linked]))
        return both and sum(words(name, text) for text in documents.values()) <= rare

    out = {}
    for method, by_question in ranked.items():
        vias = [
            (via, ids[rank])
            for ids, _, top, _ in by_question.values()
            for rank, via in enumerate(top or [])
            if via is not None
        ]
        if any(top is not None for _, _, top, _ in by_question.values()):
            out[method] = (sum(real(via, own) for via, own in vias), len(vias))
    return out


def folder_rows(result: dict) -> dict[str, dict[str, float]]:
    """Per method: R@5 over the folder's questions, all@5 of its two-document questions."""
    questions, gold = result["spec"]["questions"], result["gold"]
    two = [q["id"] for q in questions if is_two_document(q)]
    rows = {}
    for name, by_question in result["ranked"].items():
        rows[name] = {
            "R@5": sum(recall(by_question[i][0], gold[i]) for i in gold) / len(gold),
            "two-doc all@5": sum(recall(by_question[i][0], gold[i]) == 1 for i in two) / len(two),
        }
    return rows


def pooled_rows(results: Sequence[dict]) -> dict[str, dict[str, float]]:
    """R@5 and two-document all@5 over every question of every folder."""
    rows: dict[str, dict[str, float]] = {}
    for name in results[0]["ranked"]:
        r5, all5, n, n_two = 0.0, 0, 0, 0
        for result in results:
            gold = result["gold"]
            for q in result["spec"]["questions"]:
                hit = recall(result["ranked"][name][q["id"]][0], gold[q["id"]])
                r5, n = r5 + hit, n + 1
                if is_two_document(q):
                    all5, n_two = all5 + (hit == 1), n_two + 1
        rows[name] = {"R@5": r5 / n, "two-doc all@5": all5 / n_two}
    return rows


def routing_counts(result: dict) -> tuple[int, int, int, int, int, int]:
    """(fired, of) for the naming questions, the other questions and the off-topic ones."""
    expanded = result["ranked"]["cage --expand"]
    naming = [q["id"] for q in result["spec"]["questions"] if q["type"] == "names_document"]
    other = [q["id"] for q in result["spec"]["questions"] if q["type"] != "names_document"]
    off = result["off_routed"]
    return (
        sum(bool(expanded[i][1]) for i in naming),
        len(naming),
        sum(bool(expanded[i][1]) for i in other),
        len(other),
        sum(bool(r) for r in off),
        len(off),
    )


def cutoff_counts(result: dict, method: str) -> tuple[int, int, int, int]:
    """(top-5 gold parts scoring at least :data:`CUTOFF`, top-5 gold parts, off-topic pools
    whose best score is below it, off-topic pools) of one CAGE method on one folder."""
    kept = held = 0
    for question_id, gold in result["gold"].items():
        ids, _, _, scores = result["ranked"][method][question_id]
        for rank, chunk_id in enumerate(ids[:VIA_RANKS]):
            if chunk_id in gold:
                held += 1
                kept += scores[rank] >= CUTOFF
    best = result["off_best"][method]
    return kept, held, sum(b < CUTOFF for b in best), len(best)


def print_tables(framework: str, results: Sequence[dict]) -> None:
    names = list(results[0]["ranked"])
    per_folder = {r["spec_name"]: folder_rows(r) for r in results}
    pooled = pooled_rows(results)
    for metric in ("R@5", "two-doc all@5"):
        print(f"\n{framework}: {metric}")
        print("| method | " + " | ".join(per_folder) + " | pooled |")
        print("|---|" + "---|" * (len(per_folder) + 1))
        for name in names:
            cells = [f"{rows[name][metric]:.3f}" for rows in per_folder.values()]
            print(f"| {name} | " + " | ".join(cells) + f" | {pooled[name][metric]:.3f} |")
    print(f"\n{framework}: routing fired (a document of the cage --expand pool carries cage_route)")
    print("| folder | naming questions | other questions | off-topic |")
    print("|---|---|---|---|")
    totals = [0] * 6
    for result in results:
        counts = routing_counts(result)
        totals = [a + b for a, b in zip(totals, counts)]
        print(
            f"| {result['spec_name']} | {counts[0]}/{counts[1]} | {counts[2]}/{counts[3]} | "
            f"{counts[4]}/{counts[5]} |"
        )
    print(f"| all | {totals[0]}/{totals[1]} | {totals[2]}/{totals[3]} | {totals[4]}/{totals[5]} |")
    if results[0]["sentence_window"] is not None:
        per_folder = [r["sentence_window"] for r in results]
        every = [v for by_question in per_folder for v in by_question.values()]
        print(
            f"\n{framework}: sentence window (2,500 characters), gold phrases read: "
            + ", ".join(
                f"{r['spec_name']} {sum(w.values()) / len(w):.3f}"
                for r, w in zip(results, per_folder)
            )
            + f", pooled {sum(every) / len(every):.3f}"
        )
    print(
        f"\n{framework}: one cutoff ({CUTOFF}) on the 0-1 score: top-5 gold parts kept, "
        "off-topic pools dropped (best score below it)"
    )
    print("| method | " + " | ".join(r["spec_name"] for r in results) + " | all |")
    print("|---|" + "---|" * (len(results) + 1))
    for method in CAGE_METHODS:
        counts = [cutoff_counts(r, method) for r in results]
        cells = [f"{c[0]}/{c[1]}, {c[2]}/{c[3]}" for c in counts]
        total = [sum(c[i] for c in counts) for i in range(4)]
        print(
            f"| {method} | "
            + " | ".join(cells)
            + f" | {total[0]}/{total[1]}, {total[2]}/{total[3]} |"
        )
    cells = [f"{r['subjects'][0]}/{r['subjects'][1]}" for r in results]
    print(
        f"\n{framework}: chunks whose subject is their document's title: "
        + ", ".join(f"{r['spec_name']} {c}" for r, c in zip(results, cells))
    )
    print(f"\n{framework}: top-5 vias that are real links (module docstring), real/all")
    methods = list(results[0]["vias"])
    print("| method | " + " | ".join(r["spec_name"] for r in results) + " | all |")
    print("|---|" + "---|" * (len(results) + 1))
    for method in methods:
        counts = [r["vias"][method] for r in results]
        real, every = sum(c[0] for c in counts), sum(c[1] for c in counts)
        cells = [f"{c[0]}/{c[1]}" for c in counts]
        share = f"{real / every:.0%}" if every else "-"
        print(f"| {method} | " + " | ".join(cells) + f" | {real}/{every} ({share}) |")


def names_list(text: str, known: Sequence[str], what: str) -> tuple[str, ...]:
    names = tuple(part.strip() for part in text.split(",") if part.strip())
    unknown = [n for n in names if n not in known]
    if not names or unknown:
        raise argparse.ArgumentTypeError(
            f"unknown {what} {unknown or text!r}; known: {tuple(known)}"
        )
    return names


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--data",
        type=Path,
        default=DATA,
        help="the folder of folder specs (default: benchmarks/data/dev_folders; "
        "benchmarks/data/unseen_folders: the folders nobody tuned on)",
    )
    parser.add_argument(
        "--frameworks",
        type=lambda t: names_list(t, FRAMEWORKS, "framework"),
        default=FRAMEWORKS,
        help="langchain, llamaindex or both, comma-separated (default: both)",
    )
    parser.add_argument("--folders", help="folders of --data, comma-separated (default: all)")
    parser.add_argument("--k", type=int, default=20, help="the dense retriever's k (default: 20)")
    parser.add_argument("--json", type=Path, help="also write every ranking here")
    parser.add_argument(
        "--true-positions",
        action="store_true",
        help="give each chunk its place in its file as metadata['position'] (measured, not "
        "the README path: without it a pool's chunks of one file are numbered by rank)",
    )
    args = parser.parse_args(argv)
    if args.k < 1:
        parser.error("--k must be at least 1")
    known = sorted(p.stem for p in args.data.glob("*.json"))
    if not known:
        parser.error(f"--data {args.data}: no folder spec (*.json) in it")
    try:
        folders = names_list(args.folders, known, "folder") if args.folders else tuple(known)
    except argparse.ArgumentTypeError as exc:
        parser.error(str(exc))
    dump = {}
    for framework in args.frameworks:
        results = []
        for name in folders:
            result = run_folder(args.data / f"{name}.json", framework, args.k, args.true_positions)
            result["spec_name"] = name
            results.append(result)
            dump[f"{framework}/{name}"] = {
                "gold": result["gold"],
                "ranked": result["ranked"],
                "vias": result["vias"],
                "off_best": result["off_best"],
            }
        print_tables(framework, results)
    if args.json:
        args.json.write_text(json.dumps(dump, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
