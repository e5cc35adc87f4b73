"""ACPC matches, logs and the MATCHSTATE views a dealer sends, for the ACPC tests."""
from __future__ import annotations

import threading

from agent.config import TableConfig
from agent.game.records import FOLD
from agent.game.tracker import Tracker
from agent.play.acpc.dealer import DealerLimits
from agent.play.acpc.match import host_match
from connectors.acpc.game import standard_game
from connectors.acpc.protocol import format_matchstate
from connectors.logs import acpc_log

from acpc_helpers import states  # test helpers beside the tests

HU = standard_game("holdem.limit.2p.reverse_blinds.game")


# Three heads-up hands: a showdown with us in the big blind (position 0), a showdown
# from the button (position 1), and a hand the button folds at once (we do not act).
HAND0 = [
    states("MATCHSTATE:0:0::KdKh|", "MATCHSTATE:0:0:r:KdKh|"),
    ("expect", "MATCHSTATE:0:0:r:KdKh|:c"),
    states("MATCHSTATE:0:0:rc/:KdKh|/2c7d9s"),
    ("expect", "MATCHSTATE:0:0:rc/:KdKh|/2c7d9s:c"),
    states("MATCHSTATE:0:0:rc/c:KdKh|/2c7d9s", "MATCHSTATE:0:0:rc/cr:KdKh|/2c7d9s"),
    ("expect", "MATCHSTATE:0:0:rc/cr:KdKh|/2c7d9s:c"),
    states("MATCHSTATE:0:0:rc/crc/:KdKh|/2c7d9s/3h"),
    ("expect", "MATCHSTATE:0:0:rc/crc/:KdKh|/2c7d9s/3h:c"),
    states("MATCHSTATE:0:0:rc/crc/c:KdKh|/2c7d9s/3h", "MATCHSTATE:0:0:rc/crc/cc/:KdKh|/2c7d9s/3h/4s"),
    ("expect", "MATCHSTATE:0:0:rc/crc/cc/:KdKh|/2c7d9s/3h/4s:c"),
    states("MATCHSTATE:0:0:rc/crc/cc/c:KdKh|/2c7d9s/3h/4s",
           "MATCHSTATE:0:0:rc/crc/cc/cc:KdKh|QsQc/2c7d9s/3h/4s"),
]


HAND1 = [
    states("MATCHSTATE:1:1::|9c8c"),
    ("expect", "MATCHSTATE:1:1::|9c8c:c"),
    states("MATCHSTATE:1:1:c:|9c8c", "MATCHSTATE:1:1:cr:|9c8c"),
    ("expect", "MATCHSTATE:1:1:cr:|9c8c:c"),
    states("MATCHSTATE:1:1:crc/:|9c8c/Th7h2s", "MATCHSTATE:1:1:crc/c:|9c8c/Th7h2s"),
    ("expect", "MATCHSTATE:1:1:crc/c:|9c8c/Th7h2s:c"),
    states("MATCHSTATE:1:1:crc/cc/:|9c8c/Th7h2s/Jd", "MATCHSTATE:1:1:crc/cc/r:|9c8c/Th7h2s/Jd"),
    ("expect", "MATCHSTATE:1:1:crc/cc/r:|9c8c/Th7h2s/Jd:c"),
    states("MATCHSTATE:1:1:crc/cc/rc/:|9c8c/Th7h2s/Jd/Ac", "MATCHSTATE:1:1:crc/cc/rc/c:|9c8c/Th7h2s/Jd/Ac"),
    ("expect", "MATCHSTATE:1:1:crc/cc/rc/c:|9c8c/Th7h2s/Jd/Ac:c"),
    states("MATCHSTATE:1:1:crc/cc/rc/cc:AdAh|9c8c/Th7h2s/Jd/Ac"),
]


HAND2 = [states("MATCHSTATE:0:2::5h5d|", "MATCHSTATE:0:2:f:5h5d|")]


# By hand: hand 0, kings beat queens: 20 pre-flop + 10 on the flop = +30 for us. Hand 1,
# our straight 7-J (9c8c with Th7h and Jd) beats three aces: 20 pre-flop + 20 on the turn
# = +40. Hand 2: the button folds its small blind: +5. Total +75 chips, 7.5 small bets
# over 3 hands.
EXPECTED_NET = 75


def random_match_log(n: int, hands: int, seed: int) -> list[acpc_log.AcpcHand]:
    game = standard_game(f"holdem.limit.{n}p.game")
    names = [f"p{i}" for i in range(n)]
    # Random players with folds and raises make every kind of hand: folded out early,
    # capped rounds, showdowns of several players.
    kinds = ["random(fold=2, call=1, raise=1)", "random(fold=1, call=1, raise=2)",
             "random(fold=1, call=2, raise=1)", "raise", "random", "random(fold=3, call=1, raise=1)"]
    seats = {i: kinds[i % len(kinds)] for i in range(n)}
    outcome, _ = host_match(game, names, hands, seed, seats=seats,
                            game_name=f"holdem.limit.{n}p.game", match_name="fp")
    parsed = [h for h in acpc_log.parse_log(outcome.log_lines) if isinstance(h, acpc_log.AcpcHand)]
    assert len(parsed) == hands
    return parsed


def folded_positions(hand: acpc_log.AcpcHand, table: TableConfig) -> set[int]:
    tracker = Tracker()
    record = None
    for event in acpc_log.hand_events(hand, table):
        record = tracker.apply(event)
    assert record is not None
    position = {p: q for q, p in enumerate(hand.players)}
    return {position[a.player] for a in record.actions if a.kind == FOLD}


def matchstate_views(hand: acpc_log.AcpcHand, position: int, folded: set[int]) -> list[str]:
    """Every MATCHSTATE the ACPC dealer sends ``position`` in this hand, in order: after
    the deal and after each action (a round's closing '/' and its board come with the
    action that closed it); at a showdown the last one shows every hand not folded."""
    text = "/".join(hand.betting)
    cuts = [0]
    for i, char in enumerate(text):
        if char != "/":
            cuts.append(i + 2 if text[i + 1:i + 2] == "/" else i + 1)
    n = len(hand.players)
    own = [h if q == position else None for q, h in enumerate(hand.holes)]
    showdown = len(folded) < n - 1
    views = []
    for k, cut in enumerate(cuts):
        betting = text[:cut]
        rounds = betting.count("/") + 1
        holes = own
        if showdown and k == len(cuts) - 1:
            holes = [h if q == position or q not in folded else None
                     for q, h in enumerate(hand.holes)]
        views.append(format_matchstate(position, hand.hand_number, betting, holes,
                                       hand.board[:rounds]))
    return views


def matchstate_lines(players: int, hands: int, seed: int, me: int) -> list[str]:
    game = standard_game(f"holdem.limit.{players}p.game" if players > 2
                         else "holdem.limit.2p.reverse_blinds.game")
    log = random_match_log(players, hands, seed) if players > 2 else hu_log(hands, seed)
    table = TableConfig(small_blind=game.small_blind, big_blind=game.big_blind,
                        small_bet=game.small_bet, big_bet=game.big_bet, max_bets=game.max_bets)
    lines = []
    for hand in log:
        position = (me - hand.hand_number) % players
        lines.extend(matchstate_views(hand, position, folded_positions(hand, table)))
    return lines


def hu_log(hands: int, seed: int):
    from connectors.logs import acpc_log

    game = standard_game("holdem.limit.2p.reverse_blinds.game")
    outcome, _ = host_match(game, ["p0", "p1"], hands, seed,
                            seats={0: "random(fold=2, call=1, raise=2)", 1: "random"},
                            match_name="hu")
    return [h for h in acpc_log.parse_log(outcome.log_lines) if isinstance(h, acpc_log.AcpcHand)]


def game_for(n):
    name = "holdem.limit.2p.reverse_blinds.game" if n == 2 else f"holdem.limit.{n}p.game"
    return standard_game(name), name


class Match:
    """host_match in a thread; remote players join through ``clients``."""

    def __init__(self, n, names, hands, seed, seats, limits=None, **kw):
        self.game, self.game_name = game_for(n)
        self.ports: list[int] = []
        self.ready = threading.Event()
        self.result = None
        self.error = None

        def run():
            try:
                self.result = host_match(
                    self.game, names, hands, seed, seats=seats, game_name=self.game_name,
                    match_name="t", on_listen=self._listening, limits=limits or DealerLimits(
                        response_timeout=30, budget_per_hand=30, connect_timeout=30), **kw)
            except BaseException as exc:  # noqa: BLE001 - handed to the test's thread
                self.error = exc
            finally:
                self.ready.set()

        self.thread = threading.Thread(target=run, daemon=True)
        self.thread.start()
        assert self.ready.wait(30)

    def _listening(self, ports):
        self.ports = ports
        self.ready.set()

    def join(self):
        self.thread.join(120)
        assert not self.thread.is_alive()
        if self.error is not None:
            raise self.error
        return self.result


def check_log(lines, game, n, hands, names):
    """Every hand of the log through the rules engine: the tracker refuses a hand whose
    reported values differ from the rules' payoffs. Returns the totals by name."""
    table = TableConfig(seats=n, small_blind=game.small_blind, big_blind=game.big_blind,
                        small_bet=game.small_bet, big_bet=game.big_bet, max_bets=game.max_bets)
    totals = dict.fromkeys(names, 0)
    parsed = list(acpc_log.parse_log(lines, "log"))
    assert not [p for p in parsed if isinstance(p, Exception)]
    states = [p for p in parsed if isinstance(p, acpc_log.AcpcHand)]
    score = parsed[-1]
    assert isinstance(score, acpc_log.AcpcScore)
    assert len(states) == hands
    tracker = Tracker()
    for hand in states:
        # Positions rotate one seat a hand: position p of hand h is seat (p + h) mod n.
        assert hand.players == tuple(names[(p + hand.hand_number) % n] for p in range(n))
        record = tracker.apply_all(acpc_log.hand_events(hand, table))[0]
        for r in record.results:
            totals[r.player] += r.won - r.put_in
    assert dict(zip(score.players, score.totals)) == totals
    return totals
