import pytest

from cage_core import CageConfig, CageReranker


def test_paper_preset_has_the_papers_settings():
    c = CageConfig.preset("paper")
    assert (c.coherence, c.alpha, c.beta, c.hidden_dim, c.learning_rate, c.encoder) == \
        ("rgcn", 0.7, 2.0, 128, 1e-3, "rgcn")
    assert 30 <= c.epochs <= 60


def test_default_uses_bridge_coherence_chosen_on_dev_data():
    c = CageConfig()
    assert (c.coherence, c.alpha, c.lexical_weight, c.entity_weight, c.core_size, c.rgcn_weight) == \
        ("bridge", 1 / 3, 0.5, 0.5, 3, 0.0)


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
        ("beta", 0.5, r"beta must be in \[1.0"),
        ("hidden_dim", 0, "hidden_dim must be in"),
        ("epochs", -1, "epochs must be in"),
        ("learning_rate", 0.0, r"learning_rate must be in \(0.0"),
        ("encoder", "gat", "encoder must be one of"),
        ("coherence", "magic", "coherence must be one of"),
        ("core_size", 0, "core_size must be in"),
        ("lexical_weight", -1.0, "lexical_weight must be in"),
        ("max_parse_chars", 0, "max_parse_chars must be in"),
    ],
)
def test_invalid_values_raise_at_construction(field, value, message):
    with pytest.raises(ValueError, match=message):
        CageConfig(**{field: value})


@pytest.mark.parametrize("field, value", [("alpha", "0.7"), ("epochs", 3.5), ("alpha", True)])
def test_wrong_types_raise_type_error(field, value):
    with pytest.raises(TypeError, match=field):
        CageConfig(**{field: value})


def test_replace_validates_and_leaves_original_unchanged():
    c = CageConfig()
    assert c.replace(alpha=0.0).alpha == 0.0
    assert c.alpha == 1 / 3
    with pytest.raises(ValueError):
        c.replace(alpha=2)


def test_reranker_rejects_a_non_config():
    with pytest.raises(TypeError, match="config must be a CageConfig"):
        CageReranker(config={"alpha": 0.5})
