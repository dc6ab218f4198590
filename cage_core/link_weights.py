"""Safe storage of link-model weights: a safetensors file with a validated JSON header.

The file is a `safetensors <https://huggingface.co/docs/safetensors>`_ file (no pickle:
raw little-endian tensors plus a JSON table) whose metadata holds one entry,
``"cage_link_model"``: a JSON object ::

    {"format": "cage-link-model", "version": 1, "config": {...LinkModelConfig...},
     "training": {...}, "data": {...}, ...}

Loading treats the file as untrusted: it must be at most :data:`MAX_WEIGHTS_BYTES`, parse
as safetensors, carry that header with a valid config, and hold exactly the tensors the
config's :class:`~cage_core.link_model.LinkNet` has, each float32, of the right shape and
finite. Anything else raises :class:`LinkWeightsError` naming the file and the problem.

:func:`default_link_model` loads the weights shipped in the package once per process
(lazily, under a lock), so every caller shares one read-only model.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import torch

from cage_core.link_model import LinkModel, LinkModelConfig, LinkNet

logger = logging.getLogger(__name__)

FORMAT_TAG = "cage-link-model"
FORMAT_VERSION = 1
HEADER_KEY = "cage_link_model"
MAX_WEIGHTS_BYTES = 32 * 1024 * 1024
"""Weight files larger than this are rejected before they are read."""
MAX_HEADER_CHARS = 1_000_000
"""A JSON header longer than this is rejected before it is parsed."""
DEFAULT_WEIGHTS = "link_model.safetensors"
"""The shipped weights, in ``cage_core/data``."""


class LinkWeightsError(ValueError):
    """A link-model weight file is missing, malformed, oversized or does not fit its config."""


def save_link_model(path: str | os.PathLike[str], net: LinkNet, header: dict[str, Any]) -> Path:
    """Write ``net``'s weights and ``header`` (plus format, version and config) to ``path``."""
    from safetensors.numpy import save_file

    full = {**header, "format": FORMAT_TAG, "version": FORMAT_VERSION,
            "config": net.config.to_dict()}  # fmt: skip
    tensors = {name: t.detach().to(torch.float32).contiguous().numpy()
               for name, t in net.state_dict().items()}  # fmt: skip
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    save_file(tensors, str(path), metadata={HEADER_KEY: json.dumps(full, sort_keys=True)})
    return path


def load_link_model(path: str | os.PathLike[str]) -> LinkModel:
    """The model stored at ``path``, validated as the module docstring says.

    Raises:
        LinkWeightsError: on any problem with the file.
    """
    path = Path(path)
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise LinkWeightsError(f"{path}: cannot read link-model weights ({exc})") from None
    if size > MAX_WEIGHTS_BYTES:
        raise LinkWeightsError(f"{path}: {size} bytes is more than the {MAX_WEIGHTS_BYTES} a "
                               f"link-model weight file may have")  # fmt: skip
    raw_header, tensors = _read(path)
    header = _header(path, raw_header)
    try:
        config = LinkModelConfig.from_dict(header["config"])
    except (TypeError, ValueError) as exc:
        raise LinkWeightsError(f"{path}: invalid link-model config ({exc})") from None
    net = LinkNet(config)
    expected = {name: tuple(t.shape) for name, t in net.state_dict().items()}
    if set(tensors) != set(expected):
        raise LinkWeightsError(f"{path}: tensors {sorted(tensors)} do not match the config's "
                               f"{sorted(expected)}")  # fmt: skip
    state = {}
    for name, shape in expected.items():
        value = tensors[name]
        if value.dtype != np.float32 or value.shape != shape:
            raise LinkWeightsError(f"{path}: tensor {name!r} must be float32 of shape {shape}, "
                                   f"got {value.dtype} {value.shape}")  # fmt: skip
        if not np.isfinite(value).all():
            raise LinkWeightsError(f"{path}: tensor {name!r} holds non-finite values")
        state[name] = torch.from_numpy(value.copy())
    net.load_state_dict(state)
    return LinkModel(net, header)


def _read(path: Path) -> tuple[str | None, dict[str, np.ndarray]]:
    from safetensors import safe_open

    try:
        with safe_open(str(path), framework="numpy") as handle:
            metadata = handle.metadata() or {}
            tensors = {name: handle.get_tensor(name) for name in handle.keys()}  # noqa: SIM118
    except Exception as exc:  # noqa: BLE001 - safetensors raises several types on hostile input
        raise LinkWeightsError(f"{path}: not a readable safetensors file ({exc})") from None
    return metadata.get(HEADER_KEY), tensors


def _header(path: Path, raw: str | None) -> dict[str, Any]:
    if raw is None:
        raise LinkWeightsError(f"{path}: no {HEADER_KEY!r} header: not a cage link-model file")
    if len(raw) > MAX_HEADER_CHARS:
        raise LinkWeightsError(f"{path}: header longer than {MAX_HEADER_CHARS} characters")
    try:
        header = json.loads(raw)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise LinkWeightsError(f"{path}: header is not JSON ({exc})") from None
    if not isinstance(header, dict) or header.get("format") != FORMAT_TAG:
        raise LinkWeightsError(f"{path}: header lacks the format tag {FORMAT_TAG!r}")
    if header.get("version") != FORMAT_VERSION:
        raise LinkWeightsError(f"{path}: link-model format version {header.get('version')!r} "
                               f"is not {FORMAT_VERSION}")  # fmt: skip
    return header


_default: LinkModel | None = None
_default_lock = threading.Lock()


def default_link_model() -> LinkModel:
    """The shipped model (``cage_core/data/link_model.safetensors``), loaded on first call
    and shared by every later call of the process (thread-safe)."""
    global _default
    with _default_lock:
        if _default is None:
            source = resources.files("cage_core").joinpath("data", DEFAULT_WEIGHTS)
            with resources.as_file(source) as path:
                _default = load_link_model(path)
            logger.info("loaded the link model (%s) from %s", _default.config.variant, DEFAULT_WEIGHTS)
        return _default
