"""Players: the interface every decider implements (agent.players.interface: the house
bots, the Poki engine, the equilibrium and best-response players), and a registry that
names them so they can be chosen on the command line or in config.

A player spec is ``[label=]kind[(key=value, ...)]``::

    rr                       the rate-of-return bot, default settings
    loose-passive(vpip=0.5)  a style bot with one setting changed
    hero=rr(trials=2000)     the same bot, seated under the name "hero"
    poki(bettor=loki1, reweight=none)

Values are numbers, true/false, or words (quotes optional). Unknown kinds and keys are
errors that list what is known. The registry is filled from above, with the settings the
program was given (agent.play.kinds.install_kinds(config): the house bots and the Poki
engine, whose defaults are [engine] and [model]); nothing here imports the kinds. Each player is built with its own seeded
``numpy.random.Generator``: every random choice it makes comes from there, so a seed
reproduces a match.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from agent.players.interface import BasePlayer, Player

__all__ = [
    "BasePlayer",
    "Param",
    "Player",
    "PlayerKind",
    "PlayerSpec",
    "SpecError",
    "create_player",
    "known_kinds",
    "parse_spec",
    "register",
]


class SpecError(ValueError):
    """A player spec that cannot be used; the message says what is wrong and what is known."""


@dataclass(frozen=True)
class Param:
    kind: type  # int, float, bool or str
    default: Any
    help: str = ""
    low: float | None = None  # inclusive bounds for numbers
    high: float | None = None
    choices: tuple[str, ...] | None = None  # allowed words for str

    def convert(self, key: str, value: Any, where: str) -> Any:
        kind = self.kind
        if kind is bool:
            if not isinstance(value, bool):
                raise SpecError(f"{where}: {key} must be true or false, got {value!r}")
        elif kind is int:
            if isinstance(value, bool) or not isinstance(value, int):
                raise SpecError(f"{where}: {key} must be a whole number, got {value!r}")
        elif kind is float:
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise SpecError(f"{where}: {key} must be a number, got {value!r}")
            value = float(value)
        elif kind is str:
            if not isinstance(value, str):
                value = str(value).lower() if isinstance(value, bool) else str(value)
            if self.choices is not None and value not in self.choices:
                raise SpecError(f"{where}: {key} must be one of {', '.join(self.choices)}, "
                                f"got {value!r}")
        if kind in (int, float):
            if self.low is not None and value < self.low:
                raise SpecError(f"{where}: {key} must be at least {self.low:g}, got {value!r}")
            if self.high is not None and value > self.high:
                raise SpecError(f"{where}: {key} must be at most {self.high:g}, got {value!r}")
        return value


@dataclass(frozen=True)
class PlayerKind:
    name: str
    factory: Callable[..., Player]  # factory(name, rng, **params)
    params: Mapping[str, Param] = field(default_factory=dict)
    help: str = ""


@dataclass(frozen=True)
class PlayerSpec:
    """A parsed spec: which kind, its settings (all of them, defaults filled in), and the
    seat name asked for, if any. Picklable, so it can cross to worker processes."""

    kind: str
    params: tuple[tuple[str, Any], ...] = ()
    label: str | None = None

    def __str__(self) -> str:
        text = self.kind
        changed = [(k, v) for k, v in self.params if v != _default_of(self.kind, k)]
        if changed:
            text += "(" + ", ".join(f"{k}={_format_value(v)}" for k, v in changed) + ")"
        return f"{self.label}={text}" if self.label else text

    @property
    def settings(self) -> dict[str, Any]:
        return dict(self.params)


_REGISTRY: dict[str, PlayerKind] = {}


def register(kind: PlayerKind, *, replace: bool = False) -> PlayerKind:
    """Add a kind; ``replace`` lets the same name be registered again (the same kinds
    with other settings as their defaults)."""
    if kind.name in _REGISTRY and _REGISTRY[kind.name] is not kind and not replace:
        raise ValueError(f"player kind {kind.name!r} is registered twice")
    if not _NAME.fullmatch(kind.name):
        raise ValueError(f"player kind name {kind.name!r} must be letters, digits and -_")
    _REGISTRY[kind.name] = kind
    return kind


def known_kinds() -> dict[str, PlayerKind]:
    return dict(sorted(_REGISTRY.items()))


def _kind(name: str, where: str) -> PlayerKind:
    kind = _REGISTRY.get(name)
    if kind is None:
        if not _REGISTRY:
            raise SpecError(f"{where}: no player kinds are registered yet "
                            "(agent.play.kinds.install_kinds(config) registers them)")
        raise SpecError(f"{where}: unknown player {name!r} (known: {', '.join(sorted(_REGISTRY))})")
    return kind


def _default_of(kind_name: str, key: str) -> Any:
    kind = _REGISTRY.get(kind_name)
    if kind is None or key not in kind.params:
        return None
    return kind.params[key].default


def _format_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_\-]*")
_LABEL = re.compile(r"[^\s=(),]+")
_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")


def _parse_value(text: str, where: str) -> Any:
    text = text.strip()
    if not text:
        raise SpecError(f"{where}: a setting has no value")
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1]
    lower = text.lower()
    if lower in ("true", "yes", "on"):
        return True
    if lower in ("false", "no", "off"):
        return False
    if _NUMBER.fullmatch(text):
        number = float(text)
        if re.fullmatch(r"[+-]?\d+", text):
            return int(text)
        return number
    if re.fullmatch(r"[A-Za-z0-9_.\-]+", text):
        return text
    raise SpecError(f"{where}: cannot read the value {text!r}")


def parse_spec(text: str) -> PlayerSpec:
    """``[label=]kind[(key=value, ...)]`` -> PlayerSpec with every setting filled in."""
    if not isinstance(text, str):
        raise SpecError(f"a player spec must be text, got {text!r}")
    where = f"player spec {text!r}"
    body = text.strip()
    label = None
    paren = body.find("(")
    head = body if paren < 0 else body[:paren]
    if "=" in head:
        label, _, rest = body.partition("=")
        label = label.strip()
        body = rest.strip()
        if not _LABEL.fullmatch(label):
            raise SpecError(f"{where}: bad seat name {label!r}")
        paren = body.find("(")
    raw: dict[str, Any] = {}
    if paren >= 0:
        if not body.endswith(")"):
            raise SpecError(f"{where}: missing ')' at the end")
        name = body[:paren].strip()
        inside = body[paren + 1:-1].strip()
        if inside:
            for part in inside.split(","):
                key, eq, value = part.partition("=")
                key = key.strip()
                if not eq or not key:
                    raise SpecError(f"{where}: expected key=value, got {part.strip()!r}")
                if key in raw:
                    raise SpecError(f"{where}: {key} is set twice")
                raw[key] = _parse_value(value, where)
    else:
        name = body
        if ")" in name:
            raise SpecError(f"{where}: ')' without '('")
    if not _NAME.fullmatch(name):
        raise SpecError(f"{where}: {name!r} is not a player name")
    kind = _kind(name, where)
    values = {}
    for key, value in raw.items():
        param = kind.params.get(key)
        if param is None:
            known = list(kind.params)
            raise SpecError(f"{where}: {name} has no setting {key!r} "
                            f"(settings: {', '.join(known) or 'none'})")
        values[key] = param.convert(key, value, where)
    params = []
    for key, param in kind.params.items():
        if key in values:
            params.append((key, values[key]))
        else:
            params.append((key, param.default))
    return PlayerSpec(name, tuple(params), label)


def create_player(spec: str | PlayerSpec, rng: np.random.Generator, name: str | None = None) -> Player:
    """Build the player a spec names, seated as ``name`` (default: the spec's label, else
    its kind), drawing all its randomness from ``rng``."""
    if isinstance(spec, str):
        spec = parse_spec(spec)
    kind = _kind(spec.kind, f"player spec {str(spec)!r}")
    seat_name = name or spec.label or spec.kind
    return kind.factory(seat_name, rng, **dict(spec.params))
