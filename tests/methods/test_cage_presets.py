"""CAGE's variants are named presets of the one method: rows of a table of settings, each a
:class:`CageMethod` under the caller's config (or the paper preset) with those settings
changed, built exactly as the variants were before they became rows."""

from pathlib import Path

import pytest

from cage_core.config import CageConfig, ChainConfig, EncoderConfig
from cage_core.methods import (
    CAGE_PRESETS,
    CONTRA_WEIGHT,
    METHOD_NAMES,
    CageMethod,
    cage_preset,
    get_method,
)

DOCS = Path(__file__).resolve().parents[2] / "docs"

CALLER = CageConfig(
    alpha=0.5,
    entity_weight=0.25,
    chain=ChainConfig(length=2),
    encoder=EncoderConfig(epochs=5, seed=2),
)


def _paper(caller):
    preset = CageConfig.preset("paper")
    return preset.replace(
        encoder=preset.encoder.replace(epochs=caller.encoder.epochs, seed=caller.encoder.seed)
    )


EXPECTED = {  # each variant's config, written out as it was built before the table
    "hybrid": lambda c: c.replace(
        alpha=1.0, chain=c.chain.replace(length=0), document=c.document.replace(enabled=False)
    ),
    "cage-nodocs": lambda c: c.replace(document=c.document.replace(enabled=False)),
    "cage": lambda c: c,
    "cage-nochain": lambda c: c.replace(chain=c.chain.replace(length=0)),
    "cage-nolexical": lambda c: c.replace(lexical_weight=0.0),
    "cage-notitles": lambda c: c.replace(title_links=False),
    "cage-noentities": lambda c: c.replace(entity_weight=0.0),
    "cage-core1": lambda c: c.replace(core_size=1, chain=c.chain.replace(length=0)),
    "cage+rgcn": lambda c: c.replace(rgcn_weight=0.2),
    "paper": _paper,
    "cage-gcn": lambda c: _paper(c).replace(encoder=_paper(c).encoder.replace(kind="gcn")),
    "cage-noreweight": lambda c: _paper(c).replace(encoder=_paper(c).encoder.replace(beta=1.0)),
    "coherence-only": lambda c: _paper(c).replace(alpha=0.0),
    "cage-contra": lambda c: c.replace(contradiction_weight=CONTRA_WEIGHT),
}


@pytest.mark.parametrize("name", list(EXPECTED))
@pytest.mark.parametrize("caller", [CageConfig(), CALLER], ids=["default", "changed"])
def test_each_preset_is_cage_under_its_settings(name, caller):
    method = get_method(name, caller)
    assert method == cage_preset(name, caller) == CageMethod(name, EXPECTED[name](caller))


def test_the_table_holds_every_cage_variant_and_only_those():
    assert list(CAGE_PRESETS) == list(EXPECTED)
    assert {base for base, _ in CAGE_PRESETS.values()} == {"caller", "paper"}
    others = [n for n in METHOD_NAMES if n not in CAGE_PRESETS]
    assert others == ["random", "vanilla", "bm25", "grapher", "tegr"]
    assert not isinstance(get_method("tegr"), CageMethod)


def test_cage_eval_offers_every_method_the_docs_list():
    listed = (
        "random vanilla bm25 hybrid cage cage-nochain cage-nolexical cage-notitles "
        "cage-noentities cage-core1 cage+rgcn cage-contra paper cage-gcn cage-noreweight "
        "coherence-only grapher tegr"
    ).split()
    docs = (DOCS / "evaluation-and-benchmarks.md").read_text(encoding="utf-8")
    assert all(f"`{name}`" in docs for name in listed)
    assert set(listed) <= set(METHOD_NAMES)
    assert len(METHOD_NAMES) == 19
