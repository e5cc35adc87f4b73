"""The one place config.toml is read: TOML in, frozen dataclasses out.

Every value is checked here, by type and range, so a bad config file fails at start-up
with the file and key named instead of deep inside a hand: a whole number where one is
meant (``seats = 9.5`` and ``seed = 1.5`` are refused), within bounds a run can use
(chips, seeds and counts), finite numbers only. The file itself is read bounded
(agent.toml_input: size, nesting, UTF-8, a byte-order mark allowed).
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from agent import toml_input
from agent.inputs import TooLarge, read_bounded

DEFAULT_PATH = Path("config.toml")
MAX_CONFIG_BYTES = 1 << 20


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
        _whole("table", "seats", self.seats, 2, 10)
        for name in ("small_blind", "big_blind", "small_bet", "big_bet", "starting_stack"):
            _whole("table", name, getattr(self, name), 1, MAX_CHIPS)
        if self.small_blind > self.big_blind:
            raise ConfigError("table.small_blind must not exceed table.big_blind")
        _whole("table", "max_bets", self.max_bets, 1, MAX_BETS)


# Bounds of whole numbers read from the file: chip amounts stay far inside SQLite's 64-bit
# integers however many bets a hand holds, seeds inside what every generator and the
# database take, counts of work inside what finishes.
MAX_CHIPS = 10**9
MAX_SEED = 2**63 - 1
MAX_COUNT = 10**6
MAX_BETS = 100  # bets a round
MAX_SECONDS = 365 * 86400  # a time limit: at most a year (a larger one overflows the clocks it is added to)


def _whole(section: str, name: str, value: Any, low: int, high: int) -> int:
    """``value`` as a whole number in [low, high], else ConfigError naming the key."""
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ConfigError(f"{section}.{name} must be a whole number from {low:,} to {high:,}, got {value!r}")
    return value


@dataclass(frozen=True)
class RandomConfig:
    seed: int = 1995

    def __post_init__(self) -> None:
        _whole("random", "seed", self.seed, 0, MAX_SEED)


@dataclass(frozen=True)
class ModelConfig:
    half_life_hands: float = 500.0
    blend_observations: float = 20.0
    predictor: str = "meta"  # twelve | backoff | meta (agent.models.prediction) | learned (agent.models.learned)

    def __post_init__(self) -> None:
        if self.predictor not in ("twelve", "backoff", "meta", "learned"):
            raise ConfigError(f"model.predictor must be twelve, backoff, meta or learned, got {self.predictor!r}")
        for name in ("half_life_hands", "blend_observations"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise ConfigError(f"model.{name} must be a positive number, got {value!r}")
            if not (math.isfinite(value) and value > 0):
                raise ConfigError(f"model.{name} must be a positive number, got {value!r}")
            object.__setattr__(self, name, float(value))


@dataclass(frozen=True)
class DatabaseConfig:
    path: str = "poki.sqlite"
    synchronous: str = "normal"
    batch_hands: int = 500

    def __post_init__(self) -> None:
        if not isinstance(self.path, str) or not self.path.strip() or "\0" in self.path:
            raise ConfigError(f"database.path must be a file name, got {self.path!r}")
        if self.synchronous not in ("normal", "full"):
            raise ConfigError(f"database.synchronous must be \"normal\" or \"full\", got {self.synchronous!r}")
        _whole("database", "batch_hands", self.batch_hands, 1, MAX_COUNT)


ENGINE_CHOICES = {
    "bettor": ("triples", "loki1", "simulator"),
    "reweight": ("triples", "loki1", "learned", "none"),
    "weights": ("modeled", "uniform"),
    "opponent_model": ("specific", "generic"),
    "preflop": ("tight", "moderate", "loose"),
    "sim_thresholds": ("uniform", "table"),
    "call_rule": ("showdown", "pot_odds"),
    "floor_on": ("action", "weight", "learned"),
    "heads_up": ("equilibrium", "engine"),
    "heads_up_resolve": ("off", "river"),
}
# Settings that are probabilities or hand strengths, so lie in [0, 1].
_ENGINE_UNIT = (
    "bet_threshold", "raise_threshold", "reraise_step", "late_position_bonus", "mix_width",
    "call_margin", "semi_bluff", "check_raise", "slow_play", "slow_play_threshold",
    "reweight_sigma", "reweight_floor", "opponent_width", "opponent_mix", "heads_up_p",
)


@dataclass(frozen=True)
class EngineConfig:
    """The Poki decision engine (agent.engine): one switch per enhancement, so each can be
    measured against the same player without it, and the betting thresholds."""

    bettor: str = "simulator"
    reweight: str = "triples"
    weights: str = "modeled"
    potential: bool = True
    opponent_model: str = "specific"
    # Pre-flop income-rate thresholds (agent.engine.preflop): "loose" since issue 42, where it
    # beat "moderate" beside the range reader and in the house field, paired (docs/strength.md).
    preflop: str = "loose"
    bet_threshold: float = 0.5
    raise_threshold: float = 0.85
    reraise_step: float = 0.05
    late_position_bonus: float = 0.03
    mix_width: float = 0.05
    call_margin: float = 0.0
    # How the triple strategy prices a call (agent.engine.triples): "showdown" (win chance
    # with Npot against the odds of the bets still to come, or a draw on implied odds) or
    # "pot_odds" (EHS against the immediate pot odds, [testbed-1998] §4.4).
    call_rule: str = "showdown"
    semi_bluff: float = 0.5
    check_raise: float = 0.2
    slow_play: float = 0.15
    slow_play_threshold: float = 0.95
    reweight_sigma: float = 0.1
    reweight_floor: float = 0.01
    # How reweight_floor bounds the evidence: "learned" (compounding, each action's factor
    # a mixture (1 - eps) f + eps, eps per opponent learned from its showdowns, prior mean
    # reweight_floor: docs/strength.md §10), "weight" (the weight itself, Papp's reading:
    # evidence capped at 100:1) or "action" (each action's factor, so the evidence of
    # successive actions compounds: right against threshold players, §8).
    floor_on: str = "learned"
    opponent_width: float = 0.1
    opponent_mix: float = 0.2
    # The simulator (bettor = "simulator"; [sampling-1999]): trials per decision, the trials
    # before the obvious-move cut-off is tried, the time budget of one decision, and how
    # close (in small bets) two EVs must be for the choice between them to be random.
    sim_trials: int = 500
    sim_min_trials: int = 100
    sim_time_ms: float = 0.0
    sim_close: float = 0.05
    # How a simulated opponent's context frequencies become strength thresholds:
    # "uniform": as percentiles of all holdings; "table": as weighted quantiles of its
    # own weight table on the present board (the modeler's reading).
    sim_thresholds: str = "uniform"
    # With one opponent (agent.engine.response): "equilibrium" plays the heads-up
    # equilibrium of the cfr player, moved toward a restricted Nash response to the
    # opponent's model as the evidence grows (p up to heads_up_p); "engine" plays the
    # ten-seat engine as with more opponents.
    heads_up: str = "equilibrium"
    heads_up_p: float = 0.25
    heads_up_strategy: str = ""  # the strategy file (poki train-cfr); "" the shipped one
    # "river": heads-up, the river is re-solved exactly at its first decision, safely
    # (agent.engine.resolve); "off": the blueprint (or the response) plays the river.
    heads_up_resolve: str = "off"

    def __post_init__(self) -> None:
        for name in ("sim_trials", "sim_min_trials"):
            _whole("engine", name, getattr(self, name), 2, MAX_COUNT)
        for name in ("sim_time_ms", "sim_close"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 <= value < 1e9:
                raise ConfigError(f"engine.{name} must be a number >= 0, got {value!r}")
            object.__setattr__(self, name, float(value))
        for name, choices in ENGINE_CHOICES.items():
            if getattr(self, name) not in choices:
                raise ConfigError(f"engine.{name} must be one of {', '.join(choices)}, "
                                  f"got {getattr(self, name)!r}")
        if not isinstance(self.potential, bool):
            raise ConfigError(f"engine.potential must be true or false, got {self.potential!r}")
        if not isinstance(self.heads_up_strategy, str) or "\0" in self.heads_up_strategy:
            raise ConfigError(f"engine.heads_up_strategy must be a file name, got {self.heads_up_strategy!r}")
        for name in _ENGINE_UNIT:
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 <= value <= 1.0:
                raise ConfigError(f"engine.{name} must be a number in [0, 1], got {value!r}")
            object.__setattr__(self, name, float(value))
        if self.bet_threshold > self.raise_threshold:
            raise ConfigError("engine.bet_threshold must not exceed engine.raise_threshold")
        if self.opponent_mix >= 1.0:
            raise ConfigError("engine.opponent_mix must be below 1")


@dataclass(frozen=True)
class ReportConfig:
    """The opponent report (agent/report): where it goes, who we are, when it runs."""

    out: str = "report"  # folder written: index.html, players.csv, report.json
    hero: str = "poki*"  # the players we are: name globs, comma-separated, case-insensitive
    cron: str = "30 4 * * *"  # when the nightly report runs (crontab; six fields: seconds first)
    timezone: str = "UTC"  # the time zone the cron times are in
    charts: int = 15  # opponents (most-seen first) whose charts are drawn
    min_sample: int = 20  # figures from fewer opportunities show as their interval
    loose_vpip: float = 0.28  # VPIP from which a player is loose
    aggressive_af: float = 1.5  # aggression factor from which a player is aggressive
    style_min_hands: int = 50  # hands before a style label is given

    def __post_init__(self) -> None:
        for name in ("out", "hero", "cron", "timezone"):
            value = getattr(self, name)
            if not isinstance(value, str) or not value.strip():
                raise ConfigError(f"report.{name} must be a non-empty string, got {value!r}")
        if len(self.cron.split()) not in (5, 6):
            raise ConfigError(f"report.cron must be a crontab line of 5 fields (or 6, seconds first), got {self.cron!r}")
        try:
            from zoneinfo import ZoneInfo

            ZoneInfo(self.timezone)
        except Exception:  # noqa: BLE001 - whatever fails to load, the zone is not usable
            raise ConfigError(f"report.timezone: unknown time zone {self.timezone!r}") from None
        for name in ("charts", "min_sample", "style_min_hands"):
            _whole("report", name, getattr(self, name), 0, MAX_COUNT)
        if not 0.0 < self.loose_vpip < 1.0:
            raise ConfigError(f"report.loose_vpip must be in (0, 1), got {self.loose_vpip!r}")
        if not (math.isfinite(self.aggressive_af) and self.aggressive_af > 0):
            raise ConfigError(f"report.aggressive_af must be a positive number, got {self.aggressive_af!r}")
        object.__setattr__(self, "loose_vpip", float(self.loose_vpip))
        object.__setattr__(self, "aggressive_af", float(self.aggressive_af))


@dataclass(frozen=True)
class IrcConfig:
    """IRC bots (connectors/irc, agent/play): server, nicks, who may command the player
    bot, the dealer's clock and bankrolls, and flood control."""

    server: str = "127.0.0.1:6667"
    nick: str = "poki"  # the player bot's nick (another is picked if taken)
    channels: tuple = ("#holdem",)
    dealer_nick: str = "dealer"  # the player bot acts only on lines from this nick ...
    dealer_host: str = ""  # ... and from this identity (host, user@host or a nick!user@host mask); "": pinned when first seen
    owners: tuple = ()  # who may command the bots: user@host masks (* and ?) or account:NAME, never a nick
    action_seconds: int = 30  # the dealer's time limit per action
    max_timeouts: int = 3  # time-outs in a row before a player is sat out
    hand_pause_seconds: float = 3.0  # between hands
    initial_bankroll: int = 10000  # a new player's chips
    min_bankroll: Any = ()  # channel -> bankroll needed to sit (tiers)
    # The send budget (lines at once, then a second): "auto" reads the server's software
    # from its welcome and keeps inside that software's default flood limits ("safe" for
    # one not recognised); a profile name fixes one (connectors.irc.servers.PROFILES,
    # docs/irc-networks.md); "custom", or flood_burst / flood_lines_per_second set with
    # "auto", takes those two (the "safe" value for one not set).
    flood_profile: str = "auto"
    flood_burst: int | None = None  # lines sent at once ...
    flood_lines_per_second: float | None = None  # ... then this many a second (0: no limit)
    answer_gap_seconds: float = 10.0  # the dealer answers one nick's commands at most this often (coalesced)
    reconnect_min_seconds: float = 1.0
    reconnect_max_seconds: float = 60.0
    decision_margin_seconds: float = 2.0  # the player bot answers this long before the dealer's limit
    store_batch_seconds: float = 1.0  # both bots store hands in groups at most this late (0: each at once)
    # Each role's own files, so a dealer and a player started in one folder share none
    # (the player bot's are [database] path and [report] out).
    dealer_db: str = "dealer.sqlite"
    dealer_report: str = "report-dealer"
    # The network: TLS, the server password and the bots' accounts. Secrets never sit
    # here: the *_file keys name files holding them (or the environment has them).
    tls: str = "auto"  # auto: TLS when the port is 6697; on; off
    tls_verify: bool = True  # check the server's certificate and name
    password_over_plain_text: bool = False  # send the account password (SASL PLAIN, IDENTIFY) without TLS
    tls_ca_file: str = ""  # CAs to trust instead of the system's (e.g. a self-signed server's certificate)
    tls_cert_file: str = ""  # the player bot's client certificate with its key (PEM): CertFP, SASL EXTERNAL
    dealer_tls_cert_file: str = ""  # the dealer bot's
    sasl: str = "auto"  # auto: PLAIN with a password, EXTERNAL with a client certificate alone; plain; external; off
    account: str = ""  # the player bot's account ("": its nick)
    password_file: str = ""  # a file holding its password (else $POKI_IRC_PASSWORD)
    dealer_account: str = ""  # the dealer's account: `irc deal` logs in to it ("": its nick); `irc play`
    # accepts the dealer only when the server vouches it is logged in to it ("": not checked)
    dealer_password_file: str = ""  # (else $POKI_IRC_DEALER_PASSWORD)
    server_password_file: str = ""  # the server password, PASS (else $POKI_IRC_SERVER_PASSWORD)
    services_nick: str = "NickServ"  # who takes IDENTIFY and REGAIN
    connect_timeout_seconds: float = 30.0  # connecting, TLS and registering (the login included) must end within this

    def __post_init__(self) -> None:
        # In this order: the first setting found wrong is the one reported.
        self._check_addresses()
        self._check_numbers()
        self._check_network()
        self._check_tiers()

    def _check_addresses(self) -> None:
        """The server, the nicks, the channels and the owners' masks."""
        host, sep, port = self.server.rpartition(":")
        if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
            raise ConfigError(f"irc.server must be HOST:PORT, got {self.server!r}")
        for name in ("nick", "dealer_nick"):
            if not isinstance(getattr(self, name), str) or not getattr(self, name):
                raise ConfigError(f"irc.{name} must be a nick, got {getattr(self, name)!r}")
        if isinstance(self.channels, str) or not isinstance(self.channels, (list, tuple)):
            raise ConfigError(f"irc.channels must be a list of channels, got {self.channels!r}")
        if isinstance(self.owners, str) or not isinstance(self.owners, (list, tuple)):
            raise ConfigError(f"irc.owners must be a list of masks, got {self.owners!r}")
        object.__setattr__(self, "channels", tuple(self.channels))
        object.__setattr__(self, "owners", tuple(self.owners))
        if not all(isinstance(c, str) and c[:1] in "#&" for c in self.channels):
            raise ConfigError(f"irc.channels must be channel names (#...), got {self.channels!r}")
        if not all(isinstance(o, str) and o for o in self.owners):
            raise ConfigError(f"irc.owners must be user@host masks or account:NAME, got {self.owners!r}")

    def _check_numbers(self) -> None:
        """Counts, chips, the flood profile and the times."""
        for name, high in (("action_seconds", 86400), ("max_timeouts", MAX_COUNT),
                           ("initial_bankroll", MAX_CHIPS)):
            _whole("irc", name, getattr(self, name), 1, high)
        if self.flood_burst is not None:
            _whole("irc", "flood_burst", self.flood_burst, 1, MAX_COUNT)
        # The profile's name is checked where the budget is chosen (agent.play.irc.network:
        # the profiles are the servers' knowledge, in connectors.irc.servers).
        if not isinstance(self.flood_profile, str) or not self.flood_profile:
            raise ConfigError(f"irc.flood_profile must be a profile name, got {self.flood_profile!r}")
        if self.flood_profile not in ("auto", "custom") and (
                self.flood_burst is not None or self.flood_lines_per_second is not None):
            raise ConfigError(f"irc.flood_burst and irc.flood_lines_per_second give a budget of their own: they "
                              f"cannot go with flood_profile = {self.flood_profile!r} (use \"custom\", or drop them)")
        for name in ("hand_pause_seconds", "flood_lines_per_second", "answer_gap_seconds", "reconnect_min_seconds",
                     "reconnect_max_seconds", "decision_margin_seconds", "store_batch_seconds"):
            value = getattr(self, name)
            if value is None and name == "flood_lines_per_second":
                continue
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0 \
                    or (name.endswith("_seconds") and value > MAX_SECONDS):
                raise ConfigError(f"irc.{name} must be a number >= 0 (seconds: at most a year), got {value!r}")
            object.__setattr__(self, name, float(value))
        if self.reconnect_min_seconds > self.reconnect_max_seconds:
            raise ConfigError("irc.reconnect_min_seconds must not exceed irc.reconnect_max_seconds")
        if not isinstance(self.connect_timeout_seconds, (int, float)) or isinstance(self.connect_timeout_seconds, bool) \
                or not math.isfinite(self.connect_timeout_seconds) or not 0 < self.connect_timeout_seconds <= MAX_SECONDS:
            raise ConfigError(f"irc.connect_timeout_seconds must be a positive number, got {self.connect_timeout_seconds!r}")
        object.__setattr__(self, "connect_timeout_seconds", float(self.connect_timeout_seconds))

    def _check_network(self) -> None:
        """TLS, SASL, the role's files and the accounts."""
        for name, choices in (("tls", ("auto", "on", "off")), ("sasl", ("auto", "plain", "external", "off"))):
            if getattr(self, name) not in choices:
                raise ConfigError(f"irc.{name} must be one of {', '.join(choices)}, got {getattr(self, name)!r}")
        for flag in ("tls_verify", "password_over_plain_text"):
            if not isinstance(getattr(self, flag), bool):
                raise ConfigError(f"irc.{flag} must be true or false, got {getattr(self, flag)!r}")
        for name in ("dealer_db", "dealer_report", "services_nick"):
            value = getattr(self, name)
            if not isinstance(value, str) or not value.strip():
                raise ConfigError(f"irc.{name} must be a non-empty string, got {value!r}")
        for name in ("tls_ca_file", "tls_cert_file", "dealer_tls_cert_file", "account", "password_file",
                     "dealer_account", "dealer_password_file", "server_password_file"):
            value = getattr(self, name)
            if not isinstance(value, str) or any(ch in value for ch in "\r\n\0"):
                raise ConfigError(f"irc.{name} must be a string on one line, got {value!r}")
        for name in ("account", "dealer_account", "services_nick"):
            if " " in getattr(self, name):
                raise ConfigError(f"irc.{name} cannot hold a space, got {getattr(self, name)!r}")

    def _check_tiers(self) -> None:
        """min_bankroll: channel -> chips, kept as sorted pairs."""
        tiers = self.min_bankroll
        if not isinstance(tiers, (dict, tuple)):
            raise ConfigError(f"irc.min_bankroll must be a table of channel = chips, got {tiers!r}")
        for channel, need in (tiers.items() if isinstance(tiers, dict) else tiers):
            if (isinstance(need, bool) or not isinstance(need, int) or not 0 <= need <= MAX_CHIPS
                    or channel[:1] not in "#&"):
                raise ConfigError(f"irc.min_bankroll: {channel!r} = {need!r}: expected \"#channel\" = chips")
        # Kept as sorted pairs so the config stays hashable.
        object.__setattr__(self, "min_bankroll", tuple(sorted(dict(tiers).items())))

    def tier(self, channel: str) -> int:
        """Bankroll needed to sit at ``channel`` (0: none)."""
        return dict(self.min_bankroll).get(channel, 0)


@dataclass(frozen=True)
class AcpcConfig:
    """ACPC tables (connectors.acpc, agent.play.acpc.match): our client's deadlines,
    kept inside the ACPC dealer's limits (600 s a response, 7 s a hand on average over
    the match), and our dealer's limits for its players."""

    decision_deadline: float = 5.0  # client: seconds a decision may take before the fallback
    hand_budget: float = 5.0  # client: seconds a hand our decisions may use on average
    response_timeout: float = 60.0  # dealer: seconds for one answer, then taken as a call
    budget_per_hand: float = 7.0  # dealer: a seat's seconds per hand over the match, then folded
    connect_timeout: float = 600.0  # dealer: seconds to wait for every player (0: forever)
    greet_timeout: float = 10.0  # dealer: seconds a new connection has to greet before it is closed
    dealer_timeout: float = 1800.0  # client: seconds the dealer may be silent before the match is given up
    host: str = "127.0.0.1"  # dealer: the address to listen on
    max_line_bytes: int = 1 << 20  # both: the longest line accepted

    def __post_init__(self) -> None:
        for name in ("decision_deadline", "hand_budget", "response_timeout", "budget_per_hand", "greet_timeout",
                     "dealer_timeout"):
            value = getattr(self, name)
            if not (math.isfinite(value) and 0 < value <= MAX_SECONDS):
                raise ConfigError(f"acpc.{name} must be a positive number of seconds (at most a year), got {value!r}")
            object.__setattr__(self, name, float(value))
        if not (math.isfinite(self.connect_timeout) and 0 <= self.connect_timeout <= MAX_SECONDS):
            raise ConfigError(f"acpc.connect_timeout must be 0 or more seconds, got {self.connect_timeout!r}")
        object.__setattr__(self, "connect_timeout", float(self.connect_timeout))
        if not isinstance(self.host, str) or not self.host.strip():
            raise ConfigError(f"acpc.host must be an address, got {self.host!r}")
        _whole("acpc", "max_line_bytes", self.max_line_bytes, 1024, 1 << 26)


@dataclass(frozen=True)
class Config:
    table: TableConfig = field(default_factory=TableConfig)
    random: RandomConfig = field(default_factory=RandomConfig)
    model: ModelConfig = field(default_factory=ModelConfig)
    database: DatabaseConfig = field(default_factory=DatabaseConfig)
    engine: EngineConfig = field(default_factory=EngineConfig)
    report: ReportConfig = field(default_factory=ReportConfig)
    irc: IrcConfig = field(default_factory=IrcConfig)
    acpc: AcpcConfig = field(default_factory=AcpcConfig)


_SECTIONS = {"table": TableConfig, "random": RandomConfig, "model": ModelConfig, "database": DatabaseConfig,
             "engine": EngineConfig, "report": ReportConfig, "irc": IrcConfig, "acpc": AcpcConfig}


def _build(cls: type, values: dict[str, Any], where: str) -> Any:
    known = {f.name: f for f in fields(cls)}
    kwargs = {}
    for key, value in values.items():
        if key not in known:
            raise ConfigError(f"{where}: unknown key {key!r} (known: {', '.join(known)})")
        default = getattr(cls(), key)
        if isinstance(default, bool) != isinstance(value, bool) or (
            isinstance(default, int) and not isinstance(value, int)  # a count: 9.5 seats is no count
        ) or (
            isinstance(default, float) and not isinstance(value, (int, float))
        ) or (isinstance(default, str) and not isinstance(value, str)):
            kind = {bool: "true or false", int: "a whole number", float: "a number", str: "a string"}.get(
                type(default), type(default).__name__)
            raise ConfigError(f"{where}.{key}: expected {kind}, got {value!r}")
        if isinstance(value, float) and not math.isfinite(value):
            raise ConfigError(f"{where}.{key}: expected a finite number, got {value!r}")
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


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)  # finite (checked when the record was made): TOML reads repr's forms
    if isinstance(value, str):
        # JSON's string escapes are TOML's, but for DEL, which TOML wants escaped too.
        return json.dumps(value, ensure_ascii=False).replace("\x7f", "\\u007f")
    if isinstance(value, tuple) and value and all(isinstance(v, tuple) for v in value):
        return "{" + ", ".join(f"{_toml_value(k)} = {_toml_value(v)}" for k, v in value) + "}"  # pairs: a table
    if isinstance(value, tuple):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    raise TypeError(f"no TOML form for {value!r}")


def config_toml(config: Config) -> str:
    """``config`` as a config file that load_config reads back equal: the settings that
    differ from the built-in defaults, section by section (how a process started for a
    command, such as a benchmark's dealer, is given the settings the command was given)."""
    lines = []
    for name, cls in _SECTIONS.items():
        section, default = getattr(config, name), cls()
        changed = [f"{f.name} = {_toml_value(getattr(section, f.name))}" for f in fields(cls)
                   if getattr(section, f.name) != getattr(default, f.name)]
        if changed:
            lines += [f"[{name}]", *changed, ""]
    return "\n".join(lines)


def load_config(path: str | Path | None = None) -> Config:
    """Read a config file; with no path, config.toml in the working directory if present,
    else the built-in defaults (which equal the shipped config.toml)."""
    if path is None:
        path = DEFAULT_PATH
        if not path.exists():
            return Config()
    path = Path(path)
    try:
        raw = read_bounded(path, MAX_CONFIG_BYTES, "a config file")
    except FileNotFoundError:
        raise ConfigError(f"config file not found: {path}") from None
    except IsADirectoryError:
        raise ConfigError(f"{path}: a folder, not a config file") from None
    except OSError as exc:  # a FIFO or device is refused unread (agent.inputs)
        raise ConfigError(f"{path}: cannot read the config file: {exc.strerror or exc}") from None
    except TooLarge:
        raise ConfigError(f"{path}: more than {MAX_CONFIG_BYTES:,} bytes; not a config file") from None
    try:
        data = toml_input.loads(toml_input.decode(raw, str(path)), str(path), max_bytes=MAX_CONFIG_BYTES)
    except toml_input.TomlInputError as exc:
        raise ConfigError(str(exc)) from None
    return parse_config(data, str(path))
