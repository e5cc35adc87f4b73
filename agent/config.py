"""The one place config.toml is read: TOML in, frozen dataclasses out.

Every value is checked here, so a bad config file fails at start-up with the file and key
named instead of deep inside a hand.
"""
from __future__ import annotations

import math
import tomllib
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

DEFAULT_PATH = Path("config.toml")


class ConfigError(ValueError):
    """A config file that cannot be used; the message names the file and key."""


@dataclass(frozen=True)
class TableConfig:
    seats: int = 10
    small_blind: int = 5
    big_blind: int = 10
    small_bet: int = 10
    big_bet: int = 20
    max_bets: int = 4
    starting_stack: int = 1000

    def __post_init__(self) -> None:
        if not 2 <= self.seats <= 10:
            raise ConfigError(f"table.seats must be 2-10, got {self.seats}")
        for name in ("small_blind", "big_blind", "small_bet", "big_bet", "starting_stack"):
            if getattr(self, name) <= 0:
                raise ConfigError(f"table.{name} must be positive, got {getattr(self, name)}")
        if self.small_blind > self.big_blind:
            raise ConfigError("table.small_blind must not exceed table.big_blind")
        if self.max_bets < 1:
            raise ConfigError(f"table.max_bets must be at least 1, got {self.max_bets}")


@dataclass(frozen=True)
class RandomConfig:
    seed: int = 1995


@dataclass(frozen=True)
class ModelConfig:
    half_life_hands: float = 500.0
    blend_observations: float = 20.0

    def __post_init__(self) -> None:
        for name in ("half_life_hands", "blend_observations"):
            value = getattr(self, name)
            if not (math.isfinite(value) and value > 0):
                raise ConfigError(f"model.{name} must be a positive number, got {value!r}")
            object.__setattr__(self, name, float(value))


@dataclass(frozen=True)
class DatabaseConfig:
    path: str = "poki.sqlite"
    synchronous: str = "normal"
    batch_hands: int = 500

    def __post_init__(self) -> None:
        if not isinstance(self.path, str) or not self.path.strip():
            raise ConfigError(f"database.path must be a file name, got {self.path!r}")
        if self.synchronous not in ("normal", "full"):
            raise ConfigError(f"database.synchronous must be \"normal\" or \"full\", got {self.synchronous!r}")
        if not isinstance(self.batch_hands, int) or self.batch_hands < 1:
            raise ConfigError(f"database.batch_hands must be a positive integer, got {self.batch_hands!r}")


@dataclass(frozen=True)
class Config:
    table: TableConfig = field(default_factory=TableConfig)
    random: RandomConfig = field(default_factory=RandomConfig)
    model: ModelConfig = field(default_factory=ModelConfig)
    database: DatabaseConfig = field(default_factory=DatabaseConfig)


_SECTIONS = {"table": TableConfig, "random": RandomConfig, "model": ModelConfig, "database": DatabaseConfig}


def _build(cls: type, values: dict[str, Any], where: str) -> Any:
    known = {f.name: f for f in fields(cls)}
    kwargs = {}
    for key, value in values.items():
        if key not in known:
            raise ConfigError(f"{where}: unknown key {key!r} (known: {', '.join(known)})")
        default = getattr(cls(), key) if key in known else None
        if isinstance(default, bool) != isinstance(value, bool) or (
            isinstance(default, (int, float)) and not isinstance(value, (int, float))
        ):
            raise ConfigError(f"{where}.{key}: expected {type(default).__name__}, got {value!r}")
        kwargs[key] = value
    try:
        return cls(**kwargs)
    except ConfigError as exc:
        raise ConfigError(f"{where}: {exc}") from None


def parse_config(data: dict[str, Any], source: str = "<config>") -> Config:
    """Turn a parsed TOML document into a Config, rejecting unknown sections and keys."""
    sections = {}
    for name, values in data.items():
        if name not in _SECTIONS:
            raise ConfigError(f"{source}: unknown section [{name}] (known: {', '.join(_SECTIONS)})")
        if not isinstance(values, dict):
            raise ConfigError(f"{source}: [{name}] must be a table")
        sections[name] = _build(_SECTIONS[name], values, f"{source} [{name}]")
    return Config(**sections)


def load_config(path: str | Path | None = None) -> Config:
    """Read a config file; with no path, config.toml in the working directory if present,
    else the built-in defaults (which equal the shipped config.toml)."""
    if path is None:
        path = DEFAULT_PATH
        if not path.exists():
            return Config()
    path = Path(path)
    try:
        with path.open("rb") as handle:
            data = tomllib.load(handle)
    except FileNotFoundError:
        raise ConfigError(f"config file not found: {path}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None
    return parse_config(data, str(path))
