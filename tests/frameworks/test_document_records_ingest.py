"""Document records at ingest through the real frameworks: LangChain's splitter and
CageGraphTransformer, LlamaIndex's SimpleDirectoryReader, SentenceSplitter and
CageGraphExtractor in an IngestionPipeline. One record per document, from its first chunk,
named by its title or file name, keyed by the doc_id its entries get."""

import pytest

pytestmark = pytest.mark.models  # every test here loads the spaCy pipeline

from langchain_core.documents import Document
from langchain_text_splitters import RecursiveCharacterTextSplitter

from cage_core.expansion.documents import document_record
from cage_core.expansion.index import LinkIndex
from cage_core.expansion.routing import RoutingSettings, route_question
from cage_langchain import CageGraphTransformer

CONTRACTS = {
    "Birch_Marketing_Affiliate.txt": [
        "MARKETING AFFILIATE AGREEMENT between Birch First Global Investments Inc. and Mount "
        "Knowledge Holdings Inc., dated May 8, 2014.",
        "MA may not assign this Agreement without the prior written approval of the Company.",
        "This Agreement is governed by the laws of the State of Nevada.",
    ],
    "ConvergTV_Distribution.txt": [
        "CONTENT DISTRIBUTION AND LICENSE AGREEMENT between ConvergTV, Inc. and Fulucai "
        "Productions Ltd.",
        "Neither party may assign this Agreement without the consent of the other party.",
        "This Agreement is governed by the laws of the State of New York.",
    ],
    "README.txt": [
        "Supply agreement of Acme Widgets Corp. and Globex Industrial Ltd.",
        "Either party may assign this Agreement to an affiliate upon written notice.",
        "This Agreement is governed by the laws of the State of Delaware.",
    ],
}
SMALL = RoutingSettings(min_score=2.0, naming_share=0.4)  # three documents: a word one holds
QUESTION = "Is consent required to assign the Content Distribution Agreement of ConvergTV?"


def _split(add_start_index: bool) -> list[Document]:
    splitter = RecursiveCharacterTextSplitter(
        chunk_size=130, chunk_overlap=0, add_start_index=add_start_index
    )
    documents = [
        Document("\n\n".join(paragraphs), metadata={"source": f"contracts/{name}"})
        for name, paragraphs in CONTRACTS.items()
    ]
    documents[1].metadata["title"] = "ConvergTV Content Distribution"
    chunks = splitter.split_documents(documents)
    assert len(chunks) == 9
    for n, chunk in enumerate(chunks):
        chunk.id = f"chunk-{n}"
    return chunks


def _expected(doc_ids: dict[str, str]) -> list:
    """The records ingest should write, by doc_id (``doc_ids``: file name → doc_id)."""
    titles = {"ConvergTV_Distribution.txt": "ConvergTV Content Distribution"}
    return sorted(
        (
            document_record(
                doc_ids[name],
                opening=paragraphs[0],
                title=titles.get(name, ""),
                source=f"contracts/{name}",
            )
            for name, paragraphs in CONTRACTS.items()
        ),
        key=lambda record: record.doc_id,
    )


@pytest.mark.parametrize("add_start_index", [True, False])
def test_the_langchain_transformer_writes_one_record_per_document(add_start_index, tmp_path):
    chunks = _split(add_start_index)
    memory = LinkIndex()
    store = tmp_path / "links.sqlite"
    CageGraphTransformer(link_index=memory).transform_documents(chunks)
    CageGraphTransformer(link_index=store).transform_documents(chunks)
    doc_ids = {  # a titled chunk's document is "{source}#{title}" (cage_core.metadata)
        "Birch_Marketing_Affiliate.txt": "contracts/Birch_Marketing_Affiliate.txt",
        "ConvergTV_Distribution.txt": "contracts/ConvergTV_Distribution.txt#ConvergTV "
        "Content Distribution",
        "README.txt": "contracts/README.txt",
    }
    expected = _expected(doc_ids)
    assert [r.name for r in expected] == [
        "Birch Marketing Affiliate",
        "ConvergTV Content Distribution",
        "contracts README",  # an untitled README is named after its folder
    ]
    assert {memory.entry(c.id).doc_id for c in chunks} == set(doc_ids.values())
    assert list(memory.storage.document_records()) == expected
    with LinkIndex.open(store) as index:
        assert sorted(index.storage.document_records(), key=lambda r: r.doc_id) == expected
        route = route_question(QUESTION, index.documents(), SMALL)
        assert route.doc_ids == (doc_ids["ConvergTV_Distribution.txt"],)


def test_ingesting_a_later_part_of_a_document_keeps_the_record_of_its_first_chunk(tmp_path):
    chunks = _split(add_start_index=False)  # positions ranked per call: each call numbers from 0
    index = LinkIndex()
    transformer = CageGraphTransformer(link_index=index)
    transformer.transform_documents(chunks[:1])
    transformer.transform_documents(chunks[1:3])  # the rest of Birch, alone in its call
    birch = index.documents().document("contracts/Birch_Marketing_Affiliate.txt")
    assert birch == _expected({n: f"contracts/{n}" for n in CONTRACTS})[0]
    transformer.transform_documents(chunks[:1])  # the first chunk again: the same record
    assert index.documents().document_count() == 1
    assert index.documents().document(birch.doc_id) == birch
    index.remove_many(c.id for c in chunks[:3])
    assert index.documents().document_count() == 0


def test_the_llamaindex_extractor_writes_one_record_per_file(tmp_path):
    from llama_index.core import SimpleDirectoryReader
    from llama_index.core.ingestion import IngestionPipeline
    from llama_index.core.node_parser import SentenceSplitter

    from cage_llamaindex import CageGraphExtractor

    folder = tmp_path / "contracts"
    folder.mkdir()
    for name, paragraphs in CONTRACTS.items():
        (folder / name).write_text("\n\n".join(paragraphs))
    documents = SimpleDirectoryReader(str(folder)).load_data()
    store = tmp_path / "links.sqlite"
    nodes = IngestionPipeline(
        transformations=[
            SentenceSplitter(chunk_size=40, chunk_overlap=0, paragraph_separator="\n\n"),
            CageGraphExtractor(link_index=store),
        ]
    ).run(documents=documents)
    assert len(nodes) > 2 * len(documents)  # several chunks per file
    first = {}  # the first chunk of each document: its lowest character offset
    for node in sorted(nodes, key=lambda n: n.start_char_idx):
        first.setdefault(node.ref_doc_id, node.get_content())
    with LinkIndex.open(store) as index:
        records = {r.doc_id: r for r in index.storage.document_records()}
        assert sorted(records) == sorted(d.doc_id for d in documents)
        for document in documents:
            assert records[document.doc_id] == document_record(
                document.doc_id,
                opening=first[document.doc_id],
                source=document.metadata["file_path"],
            )
        assert sorted(r.name for r in records.values()) == [
            "Birch Marketing Affiliate",
            "ConvergTV Distribution",
            "contracts README",  # an untitled README is named after its folder
        ]
        route = route_question(QUESTION, index.documents(), SMALL)
        assert [records[d].name for d in route.doc_ids] == ["ConvergTV Distribution"]
