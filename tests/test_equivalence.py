"""One engine at every seat: the same seeded deals and the same player seeds played
(a) in-process (agent.play.offline.dealer.play_match with the database attached, as `poki match
--db` plays), (b) at our ACPC dealer by `poki acpc play --db` over TCP, and (c) at our IRC
dealer bot by `poki irc play --db` over a real IRC server on loopback (miniircd) give
Poki the same decisions, action by action, and leave the same models in its database:
every player's counts in the twelve and the fine contexts, the population of the table,
the meta-predictor's scores and the learned floor's off-model counts.

What the test holds fixed so the three can be compared, and why:

* The cards: every dealer takes each hand's cards by position from the same seed
  (agent.play.deals.SeededDeals), and the seats sit so that the button moves the same
  way at each table (the ACPC dealer moves every seat one position a hand; the IRC table
  and the in-process match move the button one seat a hand, so their seat order is the
  ACPC order turned by one).
* The players' generators: Poki's is `table_generator(seed)` everywhere (the CLI's
  --seed), each house bot's its own seed.
* Wall-clock: the engine gives its simulator a share of a table's deadline, so a
  decision could depend on how fast the machine is. Here the deadlines cannot bind
  ([acpc] decision_deadline and hand_budget, [irc] action_seconds of an hour: the
  simulator's budget, a quarter of that, is never reached before its trial count), so
  the simulation is cut by its trial count alone, as in the in-process match.
* Stacks: in-process and IRC tables start every seat with far more chips than a limit
  hand can take (ACPC limit games have none), so no hand is played differently for want
  of chips.

Hand ids, times, stacks and the network names differ between the three databases; the
comparison reads what the engine decides and learns, not those.
"""
from __future__ import annotations

import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from agent.config import Config, load_config
from agent.play.acpc.dealer import AcpcDealer, DealerLimits
from agent.play.deals import SeededDeals
from agent.play.irc.dealer import DealerHost
from agent.play.irc.player import PlayerBot
from agent.play.offline.dealer import play_match
from agent.play.seat import Seat, table_generator
from agent.players import create_player
from connectors.acpc.game import standard_game
from connectors.irc.server import LoopbackServer
from db.database import Database
from db.opening import open_read_only

from irc_live import wait_for

REPO = Path(__file__).resolve().parents[1]
HANDS = 150
DEALS = SeededDeals(4242)
POKI_SEED = 17
# The ACPC seat order (the dealer moves every seat one position a hand); Poki first.
SEATS = ("poki", "rr", "tag")
HOUSE = {"rr": ("rr", 101), "tag": ("tight-aggressive", 102)}
CONFIG = """
[table]
seats = 3
starting_stack = 1000000
[acpc]
decision_deadline = 3600.0
hand_budget = 3600.0
[irc]
action_seconds = 3600
decision_margin_seconds = 1
hand_pause_seconds = 0
flood_lines_per_second = 0
initial_bankroll = 100000000
reconnect_min_seconds = 0.2
store_batch_seconds = 0
"""


def _house(name: str):
    spec, seed = HOUSE[name]
    return create_player(spec, table_generator(seed), name)


def _cli(config: Path, *args: str, **kw) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "agent.cli", "--config", str(config), *args], cwd=REPO,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            **kw)


def _in_process(config: Config, path: Path) -> None:
    # The in-process table moves the button one seat a hand: the ACPC order turned by one.
    order = SEATS[-1:] + SEATS[:-1]
    players = [create_player("poki", table_generator(POKI_SEED), "poki") if name == "poki" else _house(name)
               for name in order]
    with Database(path, half_life=config.model.half_life_hands) as db:
        play_match(players, config.table, HANDS, 0, deals=DEALS, store=db, network="local")


def _acpc(config_path: Path, path: Path) -> str:
    game = standard_game("holdem.limit.3p.game")
    local = {i: Seat(_house(name), me=name) for i, name in enumerate(SEATS) if name != "poki"}
    dealer = AcpcDealer(game, SEATS, HANDS, 0, local=local, deals=DEALS,
                        limits=DealerLimits(response_timeout=3600, budget_per_hand=3600, connect_timeout=120))
    proc = None
    try:
        port = dealer.listen()[0]
        proc = _cli(config_path, "acpc", "play", "127.0.0.1", str(port), "--game", "holdem.limit.3p.game",
                    "--opponents", *SEATS[1:], "--db", str(path), "--seed", str(POKI_SEED), "--no-progress")
        dealer.wait_for_players()
        dealer.run()
        out, _ = proc.communicate(timeout=300)
        assert proc.returncode == 0, out
        return out
    finally:
        if proc is not None and proc.poll() is None:
            proc.kill()
            proc.wait(30)
        dealer.close()
        for seat in local.values():
            seat.close()


def _irc(config: Config, config_path: Path, tmp_path: Path, path: Path) -> str:
    server = LoopbackServer().start()
    started: list = []
    proc = None
    try:
        host = DealerHost(server.address, ["#eq"], tmp_path / "dealer.sqlite", config, hands=HANDS, seed=1,
                          min_players=3, deals=DEALS).start()
        started.append(host)
        assert host.wait_tables()

        def seated() -> list[str]:
            return [s.nick for s in host.call(lambda: host.bot.seats("#eq"))]

        # The IRC table moves the button one seat a hand, from the first to sit: the ACPC
        # order turned by one, so each hand's positions are the ACPC dealer's.
        for name in SEATS[-1:] + SEATS[:-1]:
            if name == "poki":
                proc = _cli(config_path, "irc", "play", "--server", server.address, "--channel", "#eq",
                            "--dealer", "dealer", "--nick", "poki", "--db", str(path), "--seed", str(POKI_SEED),
                            "--no-flood-limit", "--no-report")
            else:
                spec, seed = HOUSE[name]
                bot = PlayerBot(config, server=server.address, channels=["#eq"], dealer="dealer", spec=spec,
                                nick=name, seed=seed, flood_rate=0.0).start()
                started.append(bot)
            wait_for(lambda: name in seated(), what=f"{name} to sit")
        assert host.wait(600), "the dealer did not finish its hands"
        assert host.call(lambda: host.bot.stats.timeouts) == 0

        def stored() -> int:
            if not path.is_file():
                return 0
            conn = open_read_only(path)
            try:
                return conn.execute("SELECT count(*) FROM hands").fetchone()[0]
            except sqlite3.Error:
                return 0
            finally:
                conn.close()

        wait_for(lambda: stored() == HANDS, what="poki to store every hand")
        # SIGTERM stops the bot as Ctrl-C does (agent/cli/irc.py); SIGINT would not reach it
        # when the tests run as a background job (the shell starts those ignoring SIGINT, and
        # the child inherits that), as a CI started with `&` does.
        proc.send_signal(signal.SIGTERM)
        out, _ = proc.communicate(timeout=600)
        return out
    finally:
        if proc is not None and proc.poll() is None:
            proc.kill()
            proc.wait(30)
        for thing in reversed(started):
            thing.stop()
        server.stop()


def _hands(path: Path) -> list[list[tuple[str, int, str]]]:
    """Every hand's actions in play order: (player, round, kind), blinds included."""
    conn = sqlite3.connect(path)
    try:
        hands = [seq for (seq,) in conn.execute("SELECT seq FROM hands ORDER BY seq")]
        rows = conn.execute("SELECT a.hand, p.name, a.round, a.kind FROM actions a JOIN players p ON p.id = a.player"
                            " ORDER BY a.hand, a.ord").fetchall()
    finally:
        conn.close()
    out: dict[int, list] = {seq: [] for seq in hands}
    for hand, name, rnd, kind in rows:
        out[hand].append((name, rnd, kind))
    return [out[seq] for seq in hands]


def _models(path: Path, network: str) -> dict:
    """What the engine reads: each player's counts (twelve and fine contexts, lifetime
    and decayed), its predictor scores, its off-model counts, and the population's."""
    def state_rows(state) -> tuple:
        return (state.hands, state.scores_ref, state.score_twelve, state.score_backoff,
                tuple(None if c is None else c.row() for c in state.contexts),
                tuple(sorted((k, c.row()) for k, c in state.fine.items())))

    with Database(path, create=False) as db:
        players, population = db.network_states(network)
        return {
            "players": {nick: state_rows(state) for nick, state in players.items()},
            "population": state_rows(population),
            "off_model": {nick: tuple(db.off_model(nick, network)) for nick in SEATS},
        }


@pytest.mark.slow
def test_poki_decides_and_learns_the_same_at_every_seat(tmp_path) -> None:
    config_path = tmp_path / "config.toml"
    config_path.write_text(CONFIG)
    config = load_config(config_path)
    paths = {where: tmp_path / f"{where}.sqlite" for where in ("match", "acpc", "irc")}
    _in_process(config, paths["match"])
    acpc_out = _acpc(config_path, paths["acpc"])
    irc_out = _irc(config, config_path, tmp_path, paths["irc"])
    # Both bots said what they run with: the models come from the database, whole.
    for out in (acpc_out, irc_out):
        assert "bettor simulator" in out and "floor learned" in out and "SQLite" in out, out

    hands = {where: _hands(path) for where, path in paths.items()}
    assert all(len(h) == HANDS for h in hands.values())
    poki = {where: [(k, a) for k, hand in enumerate(h) for a in hand if a[0] == "poki"]
            for where, h in hands.items()}
    assert len(poki["match"]) > 2 * HANDS  # blinds and decisions, every hand
    assert poki["acpc"] == poki["match"]
    assert poki["irc"] == poki["match"]
    # ... and so every hand went the same way for everyone.
    assert hands["acpc"] == hands["match"] and hands["irc"] == hands["match"]

    models = {"match": _models(paths["match"], "local"), "acpc": _models(paths["acpc"], "acpc"),
              "irc": _models(paths["irc"], "irc:127.0.0.1")}
    assert set(models["match"]["players"]) == set(SEATS)
    assert models["acpc"] == models["match"]
    assert models["irc"] == models["match"]
    # The learned floor learnt from showdowns at every table (before, none at live tables).
    assert any(counts[0] + counts[2] > 0 for counts in models["match"]["off_model"].values())
