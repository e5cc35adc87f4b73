"""One player interface (agent.players.interface): every hook a runner may call is declared
with a default, every player kind implements it, the runners skip the hand hooks a player
leaves at their defaults (and ask an instant player without them on the caller's
thread), and nothing in agent/play looks a hook up by name."""
from __future__ import annotations

import ast
import threading
from pathlib import Path

import numpy as np
import pytest

from agent.config import Config, TableConfig
from agent.game.context import GameContext
from agent.game.events import HandEnded, HandStarted, HoleCards, PlayerActed
from agent.game.records import HandRecord
from agent.game.rules import Action
from agent.models.store import MemoryModelStore
from agent.play.acpc.dealer_seats import LocalSeat
from agent.play.deals import Deal
from agent.play.irc.player import ReportOutcome
from agent.play.irc.seats import Bank
from agent.play.kinds import install_kinds
from agent.play.offline.dealer import Dealer
from agent.play.offline.replay import ChunkPool
from agent.play.seat import Seat
from agent.players import BasePlayer, Player, create_player, known_kinds

REPO = Path(__file__).resolve().parents[1]


class Quiet(BasePlayer):
    instant = True

    def act(self, ctx: GameContext) -> Action:
        return Action.CHECK_CALL


class Counting(Quiet):
    """An instant player that counts the hands it is told of (end_hand only)."""

    def __init__(self, name: str, rng: np.random.Generator) -> None:
        super().__init__(name, rng)
        self.ended: list[str] = []
        self.threads: set[int] = set()

    def act(self, ctx: GameContext) -> Action:
        self.threads.add(threading.get_ident())
        return Action.CHECK_CALL

    def end_hand(self, record: HandRecord) -> None:
        self.ended.append(record.hand_id)


class CountingAgain(Counting):
    """Inherits its hook: the flag comes with it."""


def test_the_flags_say_which_hand_hooks_a_class_overrides() -> None:
    assert (Quiet.wants_new_hand, Quiet.wants_observe, Quiet.wants_end_hand) == (False, False, False)
    assert (Counting.wants_new_hand, Counting.wants_observe, Counting.wants_end_hand) == (False, False, True)
    assert CountingAgain.wants_end_hand and not CountingAgain.wants_observe
    player = Counting("c", np.random.default_rng(0))
    hooks = player.hand_hooks()
    assert hooks.new_hand is None and hooks.observe is None
    assert hooks.end_hand == player.end_hand


def test_every_kind_is_a_player_with_the_hooks_it_overrides() -> None:
    install_kinds(Config())
    expected = {"call": (True, False, False, False), "raise": (True, False, False, False),
                "poki": (False, True, False, True), "rr": (False, False, False, False)}
    for kind in known_kinds():
        player = create_player(kind, np.random.default_rng(0))
        assert isinstance(player, Player), kind
        if kind in expected:
            assert (player.instant, player.wants_new_hand, player.wants_observe,
                    player.wants_end_hand) == expected[kind], kind


def test_the_defaults_do_nothing_and_say_so() -> None:
    bot = Quiet("q", np.random.default_rng(0))
    assert bot.attach_store(MemoryModelStore(), "local") is False
    assert bot.describe() == "q: Quiet"
    assert bot.interim is None
    bot.set_deadline(1.5)  # no effect, no error
    poki = create_player("poki", np.random.default_rng(0))
    assert poki.attach_store(MemoryModelStore(), "local") is True


def test_a_player_without_act_cannot_be_made() -> None:
    class Mute(Player):
        name = "mute"

    with pytest.raises(TypeError, match="act"):
        Mute()  # type: ignore[abstract]  # the error is the test


def test_the_dealer_calls_only_the_hooks_a_player_overrides() -> None:
    players = [Counting("a", np.random.default_rng(0)), Quiet("b", np.random.default_rng(1))]
    dealer = Dealer(TableConfig(seats=2))
    rng = np.random.default_rng(2)
    for hand in range(3):
        dealer.play_hand(players, Deal.draw(rng, 2), button=hand % 2, hand_id=f"h{hand}")
    assert players[0].ended == ["h0", "h1", "h2"]


def test_an_instant_player_with_a_hand_hook_is_asked_on_the_worker() -> None:
    main = threading.get_ident()
    quiet = Seat(Quiet("me", np.random.default_rng(0)), source="t")
    player = Counting("me", np.random.default_rng(0))
    hooked = Seat(player, source="t")
    try:
        assert not quiet.follows_events  # instant, no hand hook: asked inline
        assert hooked.follows_events  # its end_hand must see every hand
        hooked.feed(HandStarted(hand_id="h0", source="t", players=("me", "you"), stacks=(100, 100),
                                button=0, small_blind=1, big_blind=2, small_bet=2, big_bet=4))
        hooked.feed(HoleCards("me", (0, 1)))
        assert hooked.decide(10.0) == Action.CHECK_CALL
        assert player.threads and main not in player.threads
        hooked.feed(PlayerActed("me", Action.BET_RAISE))
        hooked.feed(PlayerActed("you", Action.FOLD))
        assert hooked.feed(HandEnded()) is not None
        assert hooked.flush(10)
        assert player.ended == ["h0"]
    finally:
        assert quiet.close() and hooked.close()


# The interfaces agent/play calls through: none of their members is ever looked up by name.
_INTERFACES = (Player, LocalSeat, Bank, ChunkPool, ReportOutcome)
_MEMBERS = {name for cls in _INTERFACES for name in dir(cls) if not name.startswith("__")} | {
    "database", "follows_events", "futures", "close"}


def test_no_runner_looks_a_hook_up_by_name() -> None:
    # shadow.py reads the Strengths field the tuning grid names: a field, not a hook.
    allowed = {("shadow.py", "getattr(best, name)")}
    found = []
    for path in sorted((REPO / "agent" / "play").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                    and node.func.id in ("getattr", "hasattr") and len(node.args) >= 2):
                continue
            name, text = node.args[1], ast.unparse(node)
            if isinstance(name, ast.Constant) and name.value not in _MEMBERS:
                continue  # e.g. a callable's __name__ for a message
            if (path.name, text) not in allowed:
                found.append(f"{path.name}:{node.lineno}: {text}")
    assert not found
