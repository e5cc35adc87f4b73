"""One model-store interface (agent.models.store), one thread-bound proxy for the live bots,
one way to attach it (the player interface's attach_store): every store serves every part the
engine reads and writes, a store that lacks a part is refused where it is attached, and
the proxy runs every call on the thread that owns the store."""
from __future__ import annotations

import threading

import numpy as np
import pytest

from agent.config import EngineConfig
from agent.engine.player import PokiPlayer
from agent.models.store import (
    STORE_PARTS,
    MemoryModelStore,
    ModelStore,
    OffModelCounts,
    StoreError,
    ThreadBoundStore,
    require_store,
)
from agent.play.stores import DatabaseWriter
from agent.players import create_player
from db.database import Database


class _Partial:
    """What a store looked like to the live bots before: models read and written, nothing else."""

    def __init__(self) -> None:
        self.inner = MemoryModelStore()

    def get(self, nick, network):
        return self.inner.get(nick, network)

    def write_hand(self, record, network):
        return self.inner.write_hand(record, network)


def test_every_store_serves_every_part(tmp_path) -> None:
    with Database(tmp_path / "a.sqlite") as db:
        writer = DatabaseWriter(None)
        try:
            for store in (MemoryModelStore(), db, writer.models()):
                require_store(store, "test")
                assert isinstance(store, ModelStore)
                assert store.off_model("x", "n") == OffModelCounts(0.0, 0.0, 0.0, 0.0)
                assert store.learned_model() is None
                assert store.describe()
        finally:
            writer.close()


def test_a_store_that_lacks_a_part_is_refused_at_attach() -> None:
    with pytest.raises(StoreError) as info:
        require_store(_Partial(), "player hero")
    message = str(info.value)
    for part in ("off_model", "add_off_model", "learned_model", "describe", "predictor"):
        assert part in message
    assert "player hero" in message
    # Built with it, or given it later: the player refuses before any hand.
    with pytest.raises(StoreError):
        PokiPlayer("hero", np.random.default_rng(0), store=_Partial())  # type: ignore[arg-type]  # a wrong call on purpose: the error is the test
    player = PokiPlayer("hero", np.random.default_rng(0))
    with pytest.raises(StoreError, match="off_model"):
        player.attach_store(_Partial(), "local")  # type: ignore[arg-type]  # a wrong call on purpose: the error is the test
    assert set(STORE_PARTS) >= {"get", "write_hand", "off_model", "add_off_model", "learned_model"}


def test_a_house_bot_takes_no_models() -> None:
    bot = create_player("call", np.random.default_rng(0))
    assert bot.attach_store(MemoryModelStore(), "local") is False
    assert bot.describe().startswith("call:")


def test_the_proxy_runs_every_call_on_the_writer_thread(tmp_path) -> None:
    seen: list[str] = []

    class Recording(MemoryModelStore):
        def __getattribute__(self, name):
            if name in STORE_PARTS:
                seen.append(threading.current_thread().name)
            return super().__getattribute__(name)

    writer = DatabaseWriter(None)
    try:
        writer.store = Recording()  # as if opened on the writer thread
        proxy = ThreadBoundStore(writer.store, writer.call, owner="the writer")
        seen.clear()  # the check at construction looks the parts up by name only
        proxy.get("a", "n")
        proxy.off_model("a", "n")
        assert proxy.add_off_model("a", "n", "h1", (2, 1, 1, 0))
        assert proxy.off_model("a", "n") == (2.0, 1.0, 1.0, 0.0)
        proxy.learned_model()
        predictor = proxy.predictor
        assert "the writer" in proxy.describe()
        assert seen and set(seen) == {"db-writer"}
        assert predictor is writer.call(lambda: writer.store.predictor)
    finally:
        writer.close()


def test_poki_says_what_it_runs_with(tmp_path) -> None:
    player = PokiPlayer("hero", np.random.default_rng(0), EngineConfig(bettor="simulator"))
    text = player.describe()
    for word in ("bettor simulator", "predictor meta", "floor learned", "store memory",
                 "heads-up the equilibrium of the shipped strategy (responses up to p 0.25",
                 "river re-solving off"):
        assert word in text
    engine = PokiPlayer("hero", np.random.default_rng(0), EngineConfig(heads_up="engine"))
    assert "heads-up the engine" in engine.describe()
    with Database(tmp_path / "b.sqlite") as db:
        assert player.attach_store(db, "irc:x")
        text = player.describe()
    assert f"SQLite {tmp_path / 'b.sqlite'}" in text and "network irc:x" in text
    assert "the table writes the hands" in text
    # The attached store's predictor is the one read (its decay, not the player's default).
    assert player._predictor is db.predictor
