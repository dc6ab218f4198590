"""Which answer generator the examples use, chosen by ``--llm`` or ``CAGE_LLM``.

* ``extractive`` (default): no model, no network — quotes the best-matching sentences of the
  reranked passages, following CAGE's evidence chain (``cage_core.extractive``), labelled as such;
* ``openai:MODEL``: any OpenAI-compatible endpoint (``OPENAI_BASE_URL``, ``OPENAI_API_KEY``;
  ``pip install langchain-openai``);
* ``ollama:MODEL``: a local Ollama server (``pip install langchain-ollama``);
* ``llamacpp:/path/model.gguf``: a local GGUF file through llama.cpp (``pip install
  langchain-community llama-cpp-python``; on this kind of CPU build it with
  ``CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON"
  pip install --no-cache-dir llama-cpp-python`` and run with ``OMP_WAIT_POLICY=PASSIVE``).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

EXTRACTIVE = "extractive"
PROMPT = (
    "Answer the question from the numbered passages only, citing them like [1]. "
    "If they do not contain the answer, say so.\n\n{context}\n\nQuestion: {question}\nAnswer:"
)


def llm_spec(cli_value: str | None) -> str:
    return cli_value or os.environ.get("CAGE_LLM") or EXTRACTIVE


def load_chat_model(spec: str) -> Any | None:
    """A LangChain chat model for ``spec``, or None for the extractive answerer."""
    if spec == EXTRACTIVE:
        return None
    kind, _, target = spec.partition(":")
    try:
        if kind == "openai":
            from langchain_openai import ChatOpenAI

            return ChatOpenAI(model=target, temperature=0)
        if kind == "ollama":
            from langchain_ollama import ChatOllama

            return ChatOllama(model=target, temperature=0)
        if kind == "llamacpp":
            from langchain_community.chat_models import ChatLlamaCpp

            # rope_freq_base=0 keeps the model file's own value (the class default overrides it)
            return ChatLlamaCpp(model_path=target, temperature=0, rope_freq_base=0, n_ctx=4096)
    except ImportError as exc:
        raise SystemExit(
            f"--llm {spec}: {exc}. Install the integration named in examples/chat_models.py"
        ) from None
    raise SystemExit(
        f"unknown --llm {spec!r}: use extractive, openai:MODEL, ollama:MODEL or llamacpp:PATH"
    )


def answer(
    question: str,
    passages: Sequence[str],
    model: Any | None,
    chain: Sequence[Any] | None = None,
    titles: Sequence[str] | None = None,
) -> str:
    """The answer text: extractive quotes (following ``chain``, the passages' vias, when given;
    each passage read under its ``title``, "guide.md › Install", when given), or the chat
    model's reply over the passages."""
    if model is None:
        from cage_core.extractive import extractive_answer

        return extractive_answer(question, passages, chain=chain, titles=titles).render()
    context = "\n\n".join(f"[{i + 1}] {p}" for i, p in enumerate(passages))
    return str(model.invoke(PROMPT.format(context=context, question=question)).content).strip()


def via_label(via: Any) -> str:
    """``"← 'Shirley Temple' from #1"`` for a ``cage_core.passage.Via`` (the passage is linked
    to passage #1 through that name), ``""`` for ``None``."""
    return "" if via is None else f"← '{via.name}' from #{via.rank + 1}"
