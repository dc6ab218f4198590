import logging

import numpy as np
import pytest
from graphs import entity_graph

from cage_core import CageConfig, CageReranker, Passage
from cage_core.config import ChainConfig, DocumentConfig, EncoderConfig, validation
from cage_core.config.kinds import with_settings
from cage_core.methods import CONTRA_WEIGHT, GraphERConfig, TEGRConfig, get_method
from cage_core.methods.cage import score_pool


def test_paper_preset_has_the_papers_settings():
    c = CageConfig.preset("paper")
    assert (c.coherence, c.alpha) == ("rgcn", 0.7)
    assert (c.encoder.kind, c.encoder.beta, c.encoder.hidden_dim, c.encoder.learning_rate) == (
        "rgcn",
        2.0,
        128,
        1e-3,
    )
    assert 30 <= c.encoder.epochs <= 60


def test_default_uses_bridge_coherence_chosen_on_dev_data():
    c = CageConfig()
    assert (
        c.coherence,
        c.alpha,
        c.lexical_weight,
        c.entity_weight,
        c.core_size,
        c.rgcn_weight,
    ) == ("bridge", 1 / 3, 0.5, 0.5, 3, 0.0)


def test_paper_preset_is_available_by_name():
    assert CageConfig.preset("paper").alpha == 0.7
    assert CageConfig.preset("default") == CageConfig()
    with pytest.raises(ValueError, match="unknown preset 'nope'"):
        CageConfig.preset("nope")


@pytest.mark.parametrize(
    "field, value, message",
    [
        ("alpha", 1.5, r"alpha must be in \[0.0, 1.0\], got 1.5"),
        ("alpha", -0.1, "alpha must be in"),
        ("alpha", float("nan"), "alpha must be in"),
        ("encoder.beta", 0.5, r"beta must be in \[1.0"),
        ("encoder.hidden_dim", 0, "hidden_dim must be in"),
        ("encoder.epochs", -1, "epochs must be in"),
        ("encoder.learning_rate", 0.0, r"learning_rate must be in \(0.0"),
        ("encoder.kind", "gat", "encoder kind must be one of"),
        ("coherence", "magic", "coherence must be one of"),
        ("core_size", 0, "core_size must be in"),
        ("lexical_weight", -1.0, "lexical_weight must be in"),
        ("max_parse_chars", 0, "max_parse_chars must be in"),
    ],
)
def test_invalid_values_raise_at_construction(field, value, message):
    with pytest.raises(ValueError, match=message):
        with_settings(CageConfig(), {field: value})


@pytest.mark.parametrize(
    "field, value", [("alpha", "0.7"), ("encoder.epochs", 3.5), ("alpha", True)]
)
def test_wrong_types_raise_type_error(field, value):
    with pytest.raises(TypeError, match=field.rpartition(".")[2]):
        with_settings(CageConfig(), {field: value})


def test_replace_validates_and_leaves_original_unchanged():
    c = CageConfig()
    assert c.replace(alpha=0.0).alpha == 0.0
    assert c.alpha == 1 / 3
    with pytest.raises(ValueError):
        c.replace(alpha=2)


def test_reranker_rejects_a_non_config():
    with pytest.raises(TypeError, match="config must be a CageConfig"):
        CageReranker(config={"alpha": 0.5})


# ---- the encoder's own settings -----------------------------------------------------------


def test_encoder_settings_are_their_own_validated_config():
    assert EncoderConfig() == CageConfig().encoder
    with pytest.raises(ValueError, match="epochs must be in"):
        EncoderConfig(epochs=-1)
    with pytest.raises(ValueError, match="encoder kind must be one of"):
        EncoderConfig(kind="gat")


def test_equal_encoder_configs_are_one_cache_key():
    assert hash(EncoderConfig(epochs=5)) == hash(EncoderConfig(epochs=5))
    assert len({EncoderConfig(epochs=5), EncoderConfig(epochs=5), EncoderConfig(epochs=6)}) == 2
    # CAGE variants that differ only outside the encoder share one encoding
    five = EncoderConfig(epochs=5)
    assert (
        CageConfig(alpha=0.1, encoder=five).encoder == CageConfig(alpha=0.9, encoder=five).encoder
    )


def test_encoder_settings_live_in_the_encoder_config_only():
    c = CageConfig(encoder=EncoderConfig(epochs=7, seed=3, kind="gcn"))
    assert (c.encoder.epochs, c.encoder.seed, c.encoder.kind) == (7, 3, "gcn")
    assert with_settings(c, {"encoder.seed": 2, "alpha": 0.5}) == CageConfig(
        alpha=0.5, encoder=EncoderConfig(epochs=7, seed=2, kind="gcn")
    )
    assert not hasattr(c, "epochs")  # no flat alias reads it back
    for flat in ({"epochs": 7}, {"beta": 1.0}, {"seed": 2}, {"vector_dim": 64}):
        with pytest.raises(TypeError, match="unexpected keyword argument"):
            CageConfig(**flat)
        with pytest.raises(TypeError, match="unexpected keyword argument"):
            c.replace(**flat)
    with pytest.raises(TypeError, match="encoder must be an EncoderConfig, got str"):
        CageConfig(encoder="gcn")  # the kind alone is no encoder config
    with pytest.raises(TypeError, match="encoder must be an EncoderConfig, got int"):
        CageConfig(encoder=7)


def test_settings_change_by_dotted_name_in_one_new_config(caplog, monkeypatch):
    monkeypatch.setattr(validation, "_warned", set())  # forget earlier tests' warnings
    c = CageConfig()
    assert with_settings(c, {}) is c
    with caplog.at_level(logging.WARNING, logger="cage_core.config"):
        hybrid = with_settings(c, {"alpha": 1.0, "chain.length": 0, "document.enabled": False})
    assert hybrid == c.replace(
        alpha=1.0, chain=ChainConfig(length=0), document=DocumentConfig(enabled=False)
    )
    assert caplog.records == []  # no step on the way (chain off alone, say) was built
    with pytest.raises(TypeError, match="unexpected keyword argument"):
        with_settings(c, {"chain.nonsense": 1})


def test_other_methods_settings_are_not_cage_settings():
    with pytest.raises(TypeError, match="unexpected keyword argument 'tegr_seeds'"):
        CageConfig(tegr_seeds=1)
    with pytest.raises(ValueError, match="damping must be in"):
        GraphERConfig(damping=1.0)
    with pytest.raises(ValueError, match="seeds must be in"):
        TEGRConfig(seeds=0)
    with pytest.raises(ValueError, match="type_weights entries"):
        TEGRConfig(type_weights=(("nonsense", 1.0),))


# ---- settings without effect ----------------------------------------------------------------


@pytest.mark.parametrize(
    "config, unused",
    [
        (CageConfig(), ()),
        (CageConfig(encoder=EncoderConfig(epochs=5)), ("encoder.epochs",)),
        (CageConfig(encoder=EncoderConfig(epochs=5), rgcn_weight=0.2), ()),
        (
            CageConfig.preset("paper").replace(core_size=1, title_links=False),
            ("title_links", "core_size"),
        ),
        (CageConfig(contradiction_overlap=0.3), ("contradiction_overlap",)),
        (CageConfig(contradiction_overlap=0.3, contradiction_weight=1.0), ()),
    ],
)
def test_settings_without_effect_in_the_chosen_mode_are_named(config, unused):
    assert sum(config.ineffective_settings().values(), ()) == unused


def test_a_setting_without_effect_is_logged_once(caplog):
    with caplog.at_level(logging.WARNING, logger="cage_core.config"):
        CageConfig(encoder=EncoderConfig(hidden_dim=17))
        CageConfig(encoder=EncoderConfig(hidden_dim=17)).replace(alpha=0.5)
    warnings = [r.getMessage() for r in caplog.records]
    assert len(warnings) == 1
    assert "encoder.hidden_dim has no effect" in warnings[0]


# ---- methods keep their exact settings ------------------------------------------------------


def test_method_factories_derive_their_settings_from_the_config():
    base = CageConfig(encoder=EncoderConfig(epochs=5, seed=2), entity_weight=0.25)
    preset = CageConfig.preset("paper")
    paper = preset.replace(encoder=preset.encoder.replace(epochs=5, seed=2))
    assert get_method("hybrid", base).config == base.replace(
        alpha=1.0, chain=base.chain.replace(length=0), document=base.document.replace(enabled=False)
    )
    assert get_method("paper", base).config == paper
    assert get_method("cage-gcn", base).config.encoder == paper.encoder.replace(kind="gcn")
    assert get_method("cage-noreweight", base).config.encoder == paper.encoder.replace(beta=1.0)
    assert get_method("coherence-only", base).config == paper.replace(alpha=0.0)
    assert get_method("cage-contra", base).config.contradiction_weight == CONTRA_WEIGHT
    assert get_method("grapher", base).config == GraphERConfig(entity_weight=0.25)
    assert get_method("tegr", base).config == TEGRConfig()


# ---- settings that apply to one kind of pool ------------------------------------------------


def test_core_size_is_named_ineffective_on_titled_pools_only_while_the_chain_is_on():
    config = CageConfig(core_size=1)
    assert config.ineffective_settings() == {}  # it changes untitled pools' subject core
    assert config.ineffective_on("titled") == ("core_size",)
    assert config.ineffective_on("untitled") == ()
    assert CageConfig(core_size=1, chain=ChainConfig(length=0)).ineffective_on("titled") == ()


def test_alpha_is_named_ineffective_on_untitled_pools_which_use_untitled_alpha():
    assert CageConfig(alpha=0.5).ineffective_on("untitled") == ("alpha",)
    assert CageConfig(alpha=0.5).ineffective_on("titled") == ()
    assert CageConfig().ineffective_on("untitled") == ()
    assert CageConfig(alpha=0.5, chain=ChainConfig(length=0)).ineffective_on("untitled") == ()
    assert CageConfig.preset("paper").ineffective_on("untitled") == ()


def test_ranking_an_untitled_pool_logs_an_ignored_alpha_once(caplog, monkeypatch):
    monkeypatch.setattr(validation, "_warned", set())  # forget earlier tests' warnings
    passages = [
        Passage("Sky Harbor is a 1931 film directed by Ann Reeve."),
        Passage("Ann Reeve was a director born in Toronto."),
        Passage("Bananas are yellow."),
    ]
    graphs = [entity_graph([]) for _ in passages]
    config = CageConfig(alpha=0.123)
    with caplog.at_level(logging.WARNING, logger="cage_core.config"):
        first = score_pool(
            "Who directed Sky Harbor?", passages, np.array([0.9, 0.1, 0.5]), graphs, config
        )
        score_pool("Who directed Sky Harbor?", passages, np.array([0.9, 0.1, 0.5]), graphs, config)
        other = config.replace(alpha=0.5)  # one record per setting and kind, whatever the value
        score_pool("Who directed Sky Harbor?", passages, np.array([0.9, 0.1, 0.5]), graphs, other)
    warnings = [r.getMessage() for r in caplog.records]
    assert warnings == [
        "CageConfig: alpha=0.123 has no effect on untitled pools (no passage has a title: the "
        "subject core, untitled.*, ranks them, with untitled.alpha as their α); it applies to "
        "titled pools only"
    ]
    default = score_pool(
        "Who directed Sky Harbor?", passages, np.array([0.9, 0.1, 0.5]), graphs, CageConfig()
    )
    assert first.fused.tolist() == default.fused.tolist()  # what the warning says


def test_core_size_changes_the_ranking_of_an_untitled_pool():
    passages = [
        Passage("Bananas are yellow fruit."),
        Passage("Apples are red fruit."),
        Passage("Cherries are small."),
        Passage("Yellow bananas grow in Ecuador."),
    ]
    graphs = [entity_graph(["Ecuador"]) if i == 3 else entity_graph([]) for i in range(4)]
    sims = np.array([0.1, 0.9, 0.8, 0.2])
    query = "Where do bananas grow?"
    scores = {n: score_pool(query, passages, sims, graphs, CageConfig(core_size=n)) for n in (1, 3)}
    assert scores[1].coherence.tolist() != scores[3].coherence.tolist()


def test_the_document_view_reads_none_of_the_chain_alpha_or_the_untitled_settings():
    config = CageConfig(
        alpha=0.5,
        core_size=1,
        rgcn_weight=0.5,
        chain=ChainConfig(length=0),
        document=DocumentConfig(anchors=1),
    )
    assert config.ineffective_on("document") == (
        "alpha",
        "core_size",
        "rgcn_weight",
        "chain.length",
    )
    assert config.ineffective_on("titled") == ("document.anchors",)
    assert config.ineffective_on("untitled") == ()  # never ranked: with the chain off, titled
    assert config.ineffective_on("paper") == ()  # nor paper: coherence is "bridge"


def test_settings_of_a_part_switched_off_have_no_effect_on_any_pool():
    nochain = CageConfig(chain=ChainConfig(length=0, title_weight=1.0))
    assert nochain.replace(gate=nochain.gate.replace(titled=True)).ineffective_settings() == {
        "chain.length=0 turns the chain off, and with it the gates (they act on titled pools "
        "with the chain and on untitled pools, which are then ranked as titled)": (
            "chain.title_weight",
            "gate.titled",
        )
    }
    windowless = CageConfig().untitled.replace(chain_window=0, chain_length=2, alpha=0.5)
    assert CageConfig(untitled=windowless).ineffective_settings() == {
        "untitled.chain_window=0 turns the untitled pools' short chain off": (
            "untitled.chain_length",
        )
    }
    assert nochain.ineffective_on("titled") == ()  # named once, when the config was made


def test_chain_length_zero_on_a_pool_of_split_documents_changes_nothing_and_says_so_once(
    caplog, monkeypatch
):
    monkeypatch.setattr(validation, "_warned", set())
    passages = [
        Passage("Acme Foods is a food company.", doc_id="acme", position=0),
        Passage("In 2021 the company raised its dividend.", doc_id="acme", position=1),
        Passage("Bolt Motors makes cars.", doc_id="bolt", position=0),
        Passage("The company cut its dividend.", doc_id="bolt", position=1),
    ]
    graphs = [entity_graph(["Acme Foods"]), entity_graph([]), entity_graph(["Bolt Motors"])]
    graphs.append(entity_graph([]))
    query, sims = "Did Acme Foods raise its dividend?", np.array([0.5, 0.4, 0.2, 0.3])
    default = score_pool(query, passages, sims, graphs, CageConfig())
    nochain = CageConfig(chain=ChainConfig(length=0))
    with caplog.at_level(logging.WARNING, logger="cage_core.config"):
        first = score_pool(query, passages, sims, graphs, nochain)
        score_pool(query, passages, sims, graphs, nochain)
    assert first.kind == "document" and first.fused.tolist() == default.fused.tolist()
    assert [r.getMessage() for r in caplog.records] == [
        "CageConfig: chain.length=0 has no effect on pools with document structure (chunks "
        "sharing a doc_id, e.g. split documents: the document view ranks them, with its own "
        "settings document.*); it applies to titled pools only (with the chain off, every pool "
        "without document structure)"
    ]
