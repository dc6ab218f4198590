"""A passage far longer than the embedder reads is cut to what it reads before it is
tokenised, and its embedding bit-identical (issue 40, row 14)."""

import numpy as np

from cage_core.models import CHARS_PER_TOKEN

PARAGRAPH = (
    "Marie Curie was born in Warsaw, the capital of Poland, in 1867. She moved to Paris to "
    "study physics and mathematics at the Sorbonne, where she met Pierre Curie. Together they "
    "discovered polonium and radium, and she won two Nobel Prizes. "
)


def uncut_embedding(embedder, text):
    """What the sentence-transformers model makes of the whole text (nothing cut)."""
    out = embedder.model.encode(
        [text], normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False
    )
    return np.asarray(out, dtype=np.float32)


def test_an_ordinary_passage_goes_to_the_model_whole(embedder):
    text = PARAGRAPH * 20  # 4,600 characters
    assert len(text) < embedder.model.max_seq_length * CHARS_PER_TOKEN
    assert embedder.embedded_part(text) is text


def test_a_long_passage_is_cut_and_embeds_bit_identically(embedder):
    text = PARAGRAPH * 200  # 46,000 characters, about 10,000 tokens
    head = embedder.embedded_part(text)
    assert 8_192 <= len(head) < 8_192 + len(PARAGRAPH)
    assert text.startswith(head) and not head[-1].isspace()
    assert embedder([text]).tobytes() == uncut_embedding(embedder, text).tobytes()


def test_a_5_mb_passage_embeds_as_its_cut(embedder):
    """The model reads only the cut, about 8,000 of 5,000,000 characters: what that saves
    (0.9 s CPU against 6.9 s uncut, +21 MiB against +714) is measured by
    ``benchmarks/claims/long_passage.py``, not asserted here."""
    huge = PARAGRAPH * (5_000_000 // len(PARAGRAPH))
    head = embedder.embedded_part(huge)
    assert huge.startswith(head) and 8_192 <= len(head) < 8_192 + len(PARAGRAPH)
    # the model reads the same first 256 tokens of both
    assert embedder([huge]).tobytes() == uncut_embedding(embedder, PARAGRAPH * 200).tobytes()


def test_spaces_that_hide_the_words_make_the_cut_longer(embedder):
    text = "Curie " + " " * 20_000 + PARAGRAPH * 400  # few tokens in the first 8,192 characters
    head = embedder.embedded_part(text)
    assert 20_000 < len(head) < len(text) and text.startswith(head)
    assert embedder([text]).tobytes() == uncut_embedding(embedder, text).tobytes()


def test_a_text_without_spaces_goes_to_the_model_whole(embedder):
    text = "x" * 20_000
    assert embedder.embedded_part(text) is text
