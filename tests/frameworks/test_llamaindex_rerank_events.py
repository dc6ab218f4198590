"""CageRerank reports each rerank to LlamaIndex's instrumentation as its own rerankers do:
a ``ReRankStartEvent`` (query, nodes in, top_n, model name) and a ``ReRankEndEvent`` (nodes
out), both inside the postprocessor's span, read here by an event handler on the root
dispatcher."""

from typing import Any

import pytest

pytest.importorskip(
    "llama_index.core", reason='needs the extra: pip install "cage-rag[llamaindex]"'
)

import llama_index.core.instrumentation as instrument
from llama_index.core.instrumentation.event_handlers import BaseEventHandler
from llama_index.core.instrumentation.events import BaseEvent
from llama_index.core.instrumentation.events.rerank import ReRankEndEvent, ReRankStartEvent
from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode
from pools import QUERY, TEXTS

from cage_llamaindex import CageRerank


class RerankEvents(BaseEventHandler):
    """Keeps the rerank events it is sent, in order."""

    events: list[BaseEvent] = []

    def handle(self, event: BaseEvent, **kwargs: Any) -> None:
        if isinstance(event, ReRankStartEvent | ReRankEndEvent):
            self.events.append(event)


@pytest.fixture
def rerank_events():
    handler = RerankEvents(events=[])
    root = instrument.get_dispatcher()
    root.add_event_handler(handler)
    yield handler.events
    root.event_handlers.remove(handler)


def scored_nodes() -> list[NodeWithScore]:
    sims = [0.6, 0.2, 0.1, 0.5, 0.3, 0.4]
    return [
        NodeWithScore(node=TextNode(text=t, id_=f"n{i}"), score=s)
        for i, (t, s) in enumerate(zip(TEXTS, sims))
    ]


@pytest.mark.models
def test_a_rerank_sends_start_and_end_events_inside_its_span(rerank_events, reranker):
    nodes = scored_nodes()
    out = CageRerank(top_n=2).postprocess_nodes(nodes, QueryBundle(QUERY))

    start, end = rerank_events
    assert isinstance(start, ReRankStartEvent) and isinstance(end, ReRankEndEvent)
    assert start.query == QueryBundle(QUERY)
    assert [n.node.node_id for n in start.nodes] == [f"n{i}" for i in range(6)]
    assert (start.top_n, start.model_name) == (2, "cage")
    assert [(n.node.node_id, n.score) for n in end.nodes] == [
        (n.node.node_id, n.score) for n in out
    ]
    assert start.span_id is not None and start.span_id == end.span_id
    assert start.span_id.startswith("CageRerank._postprocess_nodes-")


def test_an_empty_pool_still_sends_both_events(rerank_events):
    out = CageRerank(top_n=None).postprocess_nodes([], QueryBundle(QUERY))

    assert out == []
    start, end = rerank_events
    assert (start.nodes, start.top_n, start.model_name) == ([], 0, "cage")
    assert end.nodes == []


@pytest.mark.models
def test_top_n_none_is_reported_as_the_pool_size(rerank_events, reranker):
    out = CageRerank(top_n=None).postprocess_nodes(scored_nodes(), QueryBundle(QUERY))

    start, end = rerank_events
    assert start.top_n == len(out) == 6
    assert len(end.nodes) == 6
