"""The validation kit of every config: a declarative table of accepted values per field.

Each config declares the accepted value of every field in one table, ``RANGES`` (field →
:class:`Real`, :class:`Int`, :class:`Flag`, …), checked in one place (:func:`validate`, run by
:class:`Validated` at construction): invalid values raise :class:`ValueError` (or
:class:`TypeError`), naming the field and the accepted range, so a bad setting never reaches
spaCy or torch.
:func:`warn_once` logs a setting that has no effect once per process.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import math
import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol, Self

from cage_core.lang.en import check_rules

__all__ = [
    "UNIT",
    "WEIGHT",
    "Validated",
    "Flag",
    "InstanceOf",
    "Int",
    "OneOf",
    "Range",
    "Ranges",
    "Real",
    "RuleSet",
    "check_bool",
    "check_int",
    "check_real",
    "quiet_warnings",
    "validate",
    "warn_once",
]

# the package's name, as before the split: where users' logging settings and tests look
logger = logging.getLogger("cage_core.config")


# -- declarative ranges ------------------------------------------------------------------------
class Range(Protocol):
    """The accepted values of one field: ``check(name, value)`` raises unless ``value`` is one."""

    def check(self, name: str, value: object) -> None: ...


Ranges = Mapping[str, Range]
"""A config's table of field name → accepted values (its ``RANGES``)."""


@dataclass(frozen=True)
class Real:
    """A finite real in ``[low, high]`` (``(low, high]`` with ``low_open``); not a bool."""

    low: float
    high: float
    low_open: bool = False

    def check(self, name: str, value: object) -> None:
        check_real(name, value, low=self.low, high=self.high, low_open=self.low_open)


@dataclass(frozen=True)
class Int:
    """An int (not a bool) in ``[low, high]``."""

    low: int
    high: int

    def check(self, name: str, value: object) -> None:
        check_int(name, value, low=self.low, high=self.high)


@dataclass(frozen=True)
class Flag:
    """A bool (not 0/1 or another truthy value)."""

    def check(self, name: str, value: object) -> None:
        check_bool(name, value)


@dataclass(frozen=True)
class OneOf:
    """One of ``choices``; the error calls the field ``label`` (default its name)."""

    choices: tuple[str, ...]
    label: str = ""

    def check(self, name: str, value: object) -> None:
        if value not in self.choices:
            raise ValueError(f"{self.label or name} must be one of {self.choices}, got {value!r}")


@dataclass(frozen=True)
class InstanceOf:
    """An instance of ``kind`` (a nested config)."""

    kind: type

    def check(self, name: str, value: object) -> None:
        if not isinstance(value, self.kind):
            raise TypeError(
                f"{name} must be a{'n' if self.kind.__name__[0] in 'AEIOU' else ''} "
                f"{self.kind.__name__}, got {type(value).__name__}"
            )


@dataclass(frozen=True)
class RuleSet:
    """A frozenset of :data:`~cage_core.lang.en.STRING_RULES` names."""

    def check(self, name: str, value: object) -> None:
        if not isinstance(value, frozenset):
            raise TypeError(f"{name} must be a frozenset of rule names, got {type(value).__name__}")
        check_rules(value, name)


WEIGHT = Real(0.0, 100.0)
"""The range of a non-negative weight or gain."""
UNIT = Real(0.0, 1.0)
"""The range of a fraction (α, a decay, an overlap)."""


def validate(config: object, ranges: Ranges, prefix: str = "") -> None:
    """Raise unless every field of ``config`` named in ``ranges`` has an accepted value (the
    error names the field ``prefix + name``, e.g. ``"document.anchors"``)."""
    for name, accepted in ranges.items():
        accepted.check(prefix + name, getattr(config, name))


class Validated:
    """The base of a frozen dataclass of settings: at construction every field its ``RANGES``
    names is checked (:func:`validate`, the error naming it ``PREFIX`` + its name), and
    :meth:`replace` makes a copy checked the same way."""

    __dataclass_fields__: ClassVar[dict[str, Any]]
    RANGES: ClassVar[Ranges] = {}
    PREFIX: ClassVar[str] = ""

    def __post_init__(self) -> None:
        validate(self, self.RANGES, self.PREFIX)

    def replace(self, **changes: Any) -> Self:
        """Return a copy with ``changes`` applied (validated like a new config)."""
        return dataclasses.replace(self, **changes)


_warned: set[str] = set()
_warned_lock = threading.Lock()
_quiet = threading.local()


@contextlib.contextmanager
def quiet_warnings() -> Iterator[None]:
    """Within the block, :func:`warn_once` logs nothing and remembers nothing, in this thread:
    for configs made only to compare with (they may have no effect where the caller's do)."""
    before = getattr(_quiet, "on", False)
    _quiet.on = True
    try:
        yield
    finally:
        _quiet.on = before


def warn_once(message: str, key: str | None = None) -> None:
    """Log ``message`` as a warning the first time this process sees it, or sees ``key``
    when given (one record per setting, whatever its value)."""
    if getattr(_quiet, "on", False):
        return
    seen = message if key is None else f"\0{key}"
    with _warned_lock:
        if seen in _warned:
            return
        _warned.add(seen)
    logger.warning(message)


def check_real(
    name: str, value: object, *, low: float, high: float, low_open: bool = False
) -> None:
    """Raise unless ``value`` is a finite real in ``[low, high]`` (``(low, high]`` if
    ``low_open``)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{name} must be a number, got {type(value).__name__}")
    v = float(value)
    too_low = v <= low if low_open else v < low
    if not math.isfinite(v) or too_low or v > high:
        bracket = "(" if low_open else "["
        raise ValueError(f"{name} must be in {bracket}{low}, {high}], got {value!r}")


def check_bool(name: str, value: object) -> None:
    """Raise unless ``value`` is a bool (not 0/1 or another truthy value)."""
    if not isinstance(value, bool):
        raise TypeError(f"{name} must be a bool, got {type(value).__name__}")


def check_int(name: str, value: object, *, low: int, high: int) -> None:
    """Raise unless ``value`` is an int (not a bool) in ``[low, high]``."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, got {type(value).__name__}")
    if not low <= value <= high:
        raise ValueError(f"{name} must be in [{low}, {high}], got {value!r}")
