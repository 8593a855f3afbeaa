"""ragdesk's hybrid retrieval as a LlamaIndex retriever (issue 19), in-process and through the HTTP
API, with the engine's access rules: a plain user's token cannot retrieve another user's private
knowledge base."""

from __future__ import annotations

import pytest

pytest.importorskip("llama_index.core", reason="needs llama-index-core (the llamaindex extra; the test extra has it)")

from llama_index.core.schema import NodeWithScore  # noqa: E402

from core.integrations.llamaindex import RagdeskRetriever  # noqa: E402
from tests.api.conftest import FACT_EN, FACT_ZH, PRIVATE_KB, api, world  # noqa: E402,F401 (fixtures)


def test_in_process_retrieval_returns_the_chunk_as_a_node(world):
    retriever = RagdeskRetriever.over_engine(world.engine, world.alice, kbs=[PRIVATE_KB], top_k=3)
    nodes = retriever.retrieve("How many days per week may employees work remotely?")
    assert nodes and all(isinstance(n, NodeWithScore) for n in nodes)
    assert FACT_EN in nodes[0].node.get_content()
    assert nodes[0].node.metadata["source_name"] == "handbook.md" and nodes[0].score > 0


def test_retrieval_through_the_api_as_the_tokens_user(world, api):
    retriever = RagdeskRetriever.over_api(api.url, world.alice_token, kbs=[PRIVATE_KB], trust_env=False)
    nodes = retriever.retrieve("一线城市住宿费每晚多少？")
    assert FACT_ZH in nodes[0].node.get_content()
    assert nodes[0].node.node_id and nodes[0].node.metadata["kb_id"] == world.kb_id


def test_another_users_private_knowledge_base_is_not_retrievable(world, api):
    retriever = RagdeskRetriever.over_api(api.url, world.bob_token, kbs=[PRIVATE_KB], trust_env=False)
    with pytest.raises(RuntimeError, match="404 not_found"):
        retriever.retrieve("remote work")
    everything_bob_reads = RagdeskRetriever.over_api(api.url, world.bob_token, trust_env=False)
    assert all(FACT_EN not in n.node.get_content() for n in everything_bob_reads.retrieve("remote work days per week"))
    with pytest.raises(RuntimeError, match="401 not_authenticated"):
        RagdeskRetriever.over_api(api.url, "rd_wrong", trust_env=False).retrieve("remote work")
