"""The IRC poker database reader, on the real April 1995 #holdem logs and on crafted files."""
from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from connectors.logs.irc_database import (
    ALL_IN,
    BET,
    BLIND_BIG,
    BLIND_SMALL,
    CALL,
    CHECK,
    FOLD,
    KICKED,
    QUIT,
    RAISE,
    IrcAction,
    IrcHand,
    ParseError,
    SkippedHand,
    find_month_folders,
    read_irc_database,
    summarize,
)
from evaluator_pyx.cards import parse_card, parse_cards

from helpers.tiers import examples

DATASET = "irc-holdem-199504-dev"
N_HANDS = 20_078


from shared_data import DATA  # the shared 1995 logs (located in one place)

needs_data = pytest.mark.skipif(
    DATA is None,
    reason=f"the IRC hand logs ({DATASET}) are not there: set POKI_SHARED_DATA to the folder holding them",
)


@pytest.fixture(scope="module")
def real_items() -> list:
    assert DATA is not None
    return list(read_irc_database(DATA))


@pytest.fixture(scope="module")
def real_hands(real_items) -> dict[int, IrcHand]:
    return {h.hand_id: h for h in real_items if isinstance(h, IrcHand)}


def A(rnd, pos, nick, kind, to_call, bets_to_call, amount, raises, all_in=False) -> IrcAction:
    return IrcAction(rnd, pos, nick, kind, to_call, bets_to_call, amount, raises, all_in)


# --------------------------------------------------------------------------- real data


@needs_data
def test_every_hand_is_read_or_skipped_with_a_reason(real_items):
    summary = summarize(real_items)
    print()
    print(summary)
    hand_items = [x for x in real_items if x.hand_id is not None and getattr(x, "category", "") != "orphan"]
    ids = [x.hand_id for x in hand_items]
    assert len(ids) == N_HANDS
    assert len(set(ids)) == N_HANDS
    assert summary.read + summary.skipped == len(real_items) == N_HANDS
    for x in real_items:
        if isinstance(x, SkippedHand):
            assert x.reason and x.category in x.reason and x.source
    # What the April 1995 logs hold (see the reader's notes): the hands naming a player
    # whose pdb file is missing, ten rounds with a fourth raise among three or more
    # players, and four "calls" that put in one chip with hundreds behind.
    assert dict(summary.skipped_by_reason) == {"incomplete": 33, "illegal-action": 10, "put-in-mismatch": 4}
    assert summary.read == 20_031
    assert summary.warnings_by_reason["hdb-players-count"] == 23
    assert summary.warnings_by_reason["fold-with-nothing-to-call"] == 1385


@needs_data
def test_missing_pdb_files_are_the_nicks_with_bars_or_braces(real_items):
    incomplete = [x for x in real_items if isinstance(x, SkippedHand) and x.category == "incomplete"]
    assert incomplete
    for x in incomplete:
        nick = x.reason.split("missing pdb for ", 1)[1]
        assert "|" in nick or "}{" in nick, x.reason


def _check_hand(h: IrcHand) -> None:
    """Replays a read hand's actions from scratch and checks every figure against the logs."""
    n = h.n_players
    stack = [p.bankroll for p in h.players]
    put = [0] * n
    out: set[int] = set()
    all_in: set[int] = set()
    pot = 0
    assert [p.position for p in h.players] == list(range(1, n + 1))
    labels = ("flop", "turn", "river", "showdown")

    def hdb_is(r: int, players: int, chips: int) -> None:
        # The pot must agree; a players count that does not is a warning on the hand.
        hp, hpot = h.hdb_figures[r]
        assert hpot == chips, (labels[r], h.hdb_figures[r], (players, chips))
        if hp != players:
            assert f"hdb-players-count: {players} players at the {labels[r]} by the letters, {hp} in hdb" in h.warnings

    last = 3
    for rnd in range(4):
        acts = [a for a in h.actions if a.round == rnd]
        if rnd > last or (rnd and n - len(out) < 2):
            # The hand was over: no actions, no figures.
            last = min(last, rnd - 1)
            assert not acts and h.pots[rnd - 1] == (0, 0)
            hdb_is(rnd - 1, 0, 0)
            continue
        if rnd:
            live = n - len(out)
            assert h.pots[rnd - 1] == (live, pot)
            can_bet = live - len(all_in)
            if can_bet < 2 and rnd < 3:
                hdb_is(rnd - 1, 0, 0)
            else:
                hdb_is(rnd - 1, live, pot)
        bet = 10 if rnd < 2 else 20
        rc = [0] * n
        level = 0
        raises = 0
        first_voluntary = True
        for a in acts:
            i = a.position - 1
            assert a.nick == h.players[i].nick
            assert i not in out, a
            if a.kind in (QUIT, KICKED, ALL_IN, FOLD):
                assert a.amount == 0
            to_call = max(level - rc[i], 0)
            if a.kind in (BLIND_SMALL, BLIND_BIG):
                assert rnd == 0 and a.position in (1, 2)
                assert a.amount == min(5 if a.kind == BLIND_SMALL else 10, stack[i])
                assert a.all_in == (a.amount == stack[i])
            elif i in all_in:
                assert a.kind in (QUIT, KICKED) and a.to_call == a.bets_to_call == 0, a
            else:
                assert a.to_call == to_call, a
                assert a.bets_to_call == -(-to_call // bet)
                assert a.raises == raises
                if first_voluntary:
                    # Pre-flop the player after the blinds opens, later position 1, or the
                    # next one still able to bet (a quit may come out of turn: not checked).
                    if a.kind not in (QUIT, KICKED, ALL_IN):
                        opener = (2 if h.two_blinds else 1) % n if rnd == 0 else 0
                        order = [(opener + k) % n for k in range(n)]
                        assert a.position - 1 == next(q for q in order if q not in out and q not in all_in), a
                    first_voluntary = False
            _check_chips(a, to_call, level, bet, raises, rc[i], stack[i], n - len(out) - len(all_in))
            stack[i] -= a.amount
            rc[i] += a.amount
            put[i] += a.amount
            pot += a.amount
            if rc[i] > level:
                if a.kind == RAISE and rc[i] - level >= bet:
                    raises += 1
                level = rc[i]
            if a.kind == BLIND_BIG:
                level = 10  # even when the blind is short
            if a.kind in (FOLD, QUIT, KICKED):
                out.add(i)
            if a.all_in or a.kind == ALL_IN:
                all_in.add(i)
        # Every player still able to bet has matched the bet when a round ends.
        if n - len(out) > 1:
            for q in range(n):
                if q not in out and q not in all_in:
                    assert rc[q] == level, (rnd, q)
    assert put == [p.put_in for p in h.players]
    assert sum(put) == sum(p.won for p in h.players) == pot
    for q in out:
        assert h.players[q].won == 0
    assert h.pots[3][1] == pot
    hdb_is(3, h.pots[3][0], pot)
    assert last == h.last_round
    assert len(h.board) == (5 if n - len(out) > 1 else (0, 3, 4, 5)[last])


def _check_chips(a: IrcAction, to_call: int, level: int, bet: int, raises: int, put_this_round: int, stack: int,
                 able: int) -> None:
    """The chips of a check, call, bet or raise, and of an all-in; ``able``: the players
    still able to bet."""
    if a.kind == CHECK:
        assert to_call == 0 and a.amount == 0
    elif a.kind == CALL:
        assert to_call > 0 and a.amount == min(to_call, stack)
    elif a.kind == BET:
        assert level == 0 and a.round > 0 and a.amount == min(bet, stack)
    elif a.kind == RAISE:
        assert level > 0
        if raises >= 3:
            assert able <= 2, f"raise over the cap among {able}: {a}"
        full = level + bet - put_this_round
        assert a.amount == full or (a.all_in and to_call < a.amount == stack < full), a
    if a.all_in:
        assert a.amount == stack > 0


@needs_data
def test_every_read_hand_balances_matches_pdb_and_hdb_and_is_legal(real_hands):
    assert len(real_hands) == 20_031
    for h in real_hands.values():
        try:
            _check_hand(h)
        except AssertionError as e:
            raise AssertionError(f"hand {h.hand_id} ({h.source}): {e}") from e


@needs_data
def test_readme_example_hand_by_hand(real_hands):
    # Matilda 1 Br k k k 2145 20 40 6d Kd / Raybould 2 Bc k k k 590 20 0 5s Js /
    # EdK 3 f - - Q 760 / oejack 4 f - Q - 685; hdb 2/40 2/40 2/40 2/40 8s 2c 2h 4d 9c.
    h = real_hands[797228610]
    assert h.source.endswith("holdem/199504/hdb:201")
    assert (h.game_set, h.game_number, h.n_players) == (1, 392, 4)
    assert [p.nick for p in h.players] == ["Matilda", "Raybould", "EdK", "oejack"]
    assert h.board == tuple(parse_cards("8s 2c 2h 4d 9c"))
    assert h.players[0].hole_cards == (parse_card("6d"), parse_card("Kd"))
    assert h.players[1].hole_cards == (parse_card("5s"), parse_card("Js"))
    assert h.players[2].hole_cards is None
    assert [p.bankroll for p in h.players] == [2145, 590, 760, 685]
    assert [(p.put_in, p.won) for p in h.players] == [(20, 40), (20, 0), (0, 0), (0, 0)]
    assert h.players[0].letters == ("Br", "k", "k", "k")
    assert h.players[2].left_after_out == ((3, QUIT),)
    assert h.players[3].left_after_out == ((2, QUIT),)
    assert h.hdb_figures == ((2, 40),) * 4 == h.pots
    assert h.two_blinds and h.button == 4
    assert h.actions == (
        A(0, 1, "Matilda", BLIND_SMALL, 0, 0, 5, 0),
        A(0, 2, "Raybould", BLIND_BIG, 0, 0, 10, 0),
        A(0, 3, "EdK", FOLD, 10, 1, 0, 0),
        A(0, 4, "oejack", FOLD, 10, 1, 0, 0),
        A(0, 1, "Matilda", RAISE, 5, 1, 15, 0),
        A(0, 2, "Raybould", CALL, 10, 1, 10, 1),
        A(1, 1, "Matilda", CHECK, 0, 0, 0, 0),
        A(1, 2, "Raybould", CHECK, 0, 0, 0, 0),
        A(2, 1, "Matilda", CHECK, 0, 0, 0, 0),
        A(2, 2, "Raybould", CHECK, 0, 0, 0, 0),
        A(3, 1, "Matilda", CHECK, 0, 0, 0, 0),
        A(3, 2, "Raybould", CHECK, 0, 0, 0, 0),
    )
    assert h.warnings == ()


@needs_data
def test_single_blind_hand_and_a_preflop_quit(real_hands):
    # sagerbot 1 Bk b b kc 1740 60 0; johnr..derek fold (Quick 7 quits); gunner 9 c c c b 785 60 120;
    # hdb 2/20 2/40 2/80 2/120: position 1 alone posts 10, position 2 acts first.
    h = real_hands[797210868]
    assert not h.two_blinds
    folders = ["johnr", "Winner777", "greg", "jims", "shinner"]
    assert h.actions == (
        A(0, 1, "sagerbot", BLIND_BIG, 0, 0, 10, 0),
        *[A(0, i + 2, nick, FOLD, 10, 1, 0, 0) for i, nick in enumerate(folders)],
        A(0, 7, "Quick", QUIT, 10, 1, 0, 0),
        A(0, 8, "derek", FOLD, 10, 1, 0, 0),
        A(0, 9, "gunner", CALL, 10, 1, 10, 0),
        A(0, 1, "sagerbot", CHECK, 0, 0, 0, 0),
        A(1, 1, "sagerbot", BET, 0, 0, 10, 0),
        A(1, 9, "gunner", CALL, 10, 1, 10, 0),
        A(2, 1, "sagerbot", BET, 0, 0, 20, 0),
        A(2, 9, "gunner", CALL, 20, 1, 20, 0),
        A(3, 1, "sagerbot", CHECK, 0, 0, 0, 0),
        A(3, 9, "gunner", BET, 0, 0, 20, 0),
        A(3, 1, "sagerbot", CALL, 20, 1, 20, 0),
    )
    assert h.pots == h.hdb_figures == ((2, 20), (2, 40), (2, 80), (2, 120))


@needs_data
def test_heads_up_small_blind_acts_first_every_round_and_raising_is_uncapped(real_hands):
    # wsk 1 Br brrrc kc kc 630 140 0 / sjack 2 Bc rrrr b b 680 140 280; hdb 2/40 2/200 2/240 2/280.
    h = real_hands[797266865]
    flop_raises = []
    for k in range(7):
        who = (2, "sjack") if k % 2 == 0 else (1, "wsk")
        flop_raises.append(A(1, who[0], who[1], RAISE, 10, 1, 20, k))
    assert h.actions == (
        A(0, 1, "wsk", BLIND_SMALL, 0, 0, 5, 0),
        A(0, 2, "sjack", BLIND_BIG, 0, 0, 10, 0),
        A(0, 1, "wsk", RAISE, 5, 1, 15, 0),
        A(0, 2, "sjack", CALL, 10, 1, 10, 1),
        A(1, 1, "wsk", BET, 0, 0, 10, 0),
        *flop_raises,
        A(1, 1, "wsk", CALL, 10, 1, 10, 7),
        A(2, 1, "wsk", CHECK, 0, 0, 0, 0),
        A(2, 2, "sjack", BET, 0, 0, 20, 0),
        A(2, 1, "wsk", CALL, 20, 1, 20, 0),
        A(3, 1, "wsk", CHECK, 0, 0, 0, 0),
        A(3, 2, "sjack", BET, 0, 0, 20, 0),
        A(3, 1, "wsk", CALL, 20, 1, 20, 0),
    )


@needs_data
def test_short_all_in_raise_and_side_pot(real_hands):
    # Live_1 (position 2, bankroll 42) 'Br' 'brA': the flop raise is all-in for 12, two
    # short of a full raise; magick re-raises a full bet above it. hdb 5/110 4/238 4/298 3/338.
    h = real_hands[798586792]
    flop = h.actions_in_round(1)
    assert flop == (
        A(1, 2, "Live_1", BET, 0, 0, 10, 0),
        A(1, 3, "magick", CALL, 10, 1, 10, 0),
        A(1, 4, "mark", CALL, 10, 1, 10, 0),
        A(1, 6, "POed", CALL, 10, 1, 10, 0),
        A(1, 8, "tomgo", RAISE, 10, 1, 20, 0),
        A(1, 2, "Live_1", RAISE, 10, 1, 12, 1, True),
        A(1, 3, "magick", RAISE, 12, 2, 22, 1),
        A(1, 4, "mark", FOLD, 22, 3, 0, 2),
        A(1, 6, "POed", CALL, 22, 3, 22, 2),
        A(1, 8, "tomgo", CALL, 12, 2, 12, 2),
    )
    assert h.actions_in_round(2) == (
        A(2, 3, "magick", BET, 0, 0, 20, 0),
        A(2, 6, "POed", CALL, 20, 1, 20, 0),
        A(2, 8, "tomgo", CALL, 20, 1, 20, 0),
    )
    assert h.pots == h.hdb_figures == ((5, 110), (4, 238), (4, 298), (3, 338))


@needs_data
def test_quit_out_of_turn_ends_the_hand(real_hands):
    # Jime1 1 B 1748 5 15 / ^Tony 2 BQ 620 10 0 / sagerbot 3 f; hdb 0/0 0/0 0/0 1/15: the big
    # blind left before the small blind acted, so the small blind won without acting.
    h = real_hands[797319595]
    assert h.actions == (
        A(0, 1, "Jime1", BLIND_SMALL, 0, 0, 5, 0),
        A(0, 2, "^Tony", BLIND_BIG, 0, 0, 10, 0),
        A(0, 3, "sagerbot", FOLD, 10, 1, 0, 0),
        A(0, 2, "^Tony", QUIT, 0, 0, 0, 0),
    )
    assert h.pots == h.hdb_figures == ((0, 0), (0, 0), (0, 0), (1, 15))


@needs_data
def test_declared_all_in_with_chips_behind(real_hands):
    # clinton (bankroll 457) 'BcA' puts in 20 and plays the rest of the hand all-in for it:
    # hdb 8/160 7/160 7/160 2/180, clinton wins the 160 main pot, bharat1 his uncalled 20.
    h = real_hands[797557949]
    pre = h.actions_in_round(0)
    assert pre[-1] == A(0, 2, "clinton", ALL_IN, 0, 0, 0, 1)
    assert A(0, 2, "clinton", CALL, 10, 1, 10, 1) in pre
    assert h.player("kidZee").left_after_out == ((0, QUIT),)
    assert all(a.nick != "clinton" for a in h.actions if a.round > 0)
    assert h.actions_in_round(1)[:3] == (
        A(1, 1, "ericm", CHECK, 0, 0, 0, 0),
        A(1, 4, "fireman", CHECK, 0, 0, 0, 0),
        A(1, 5, "ab0", FOLD, 0, 0, 0, 0),
    )
    assert h.actions_in_round(3) == (
        A(3, 1, "ericm", FOLD, 0, 0, 0, 0),
        A(3, 4, "fireman", CHECK, 0, 0, 0, 0),
        A(3, 6, "bharat1", BET, 0, 0, 20, 0),
        A(3, 8, "ACESUP", FOLD, 20, 1, 0, 0),
        A(3, 9, "johnr", FOLD, 20, 1, 0, 0),
        A(3, 10, "derek", FOLD, 20, 1, 0, 0),
        A(3, 4, "fireman", FOLD, 20, 1, 0, 0),
    )
    assert h.pots == h.hdb_figures == ((8, 160), (7, 160), (7, 160), (2, 180))
    assert sum(w.startswith("fold-with-nothing-to-call") for w in h.warnings) == 2


@needs_data
def test_no_flop_or_turn_figure_when_nobody_can_bet(real_hands):
    # wsk (bankroll 30) is all-in pre-flop against tvp: hdb has 0/0 for the flop and turn.
    h = real_hands[797264348]
    assert h.hdb_figures == ((0, 0), (0, 0), (2, 60), (2, 60))
    assert h.pots == ((2, 60), (2, 60), (2, 60), (2, 60))


@needs_data
def test_month_folder_and_game_folder_are_accepted(real_hands):
    month = DATA / "holdem" / "199504" if (DATA / "holdem").is_dir() else DATA
    assert find_month_folders(month) == [month]
    assert find_month_folders(month.parent) == [month]
    first = next(iter(read_irc_database(month)))
    assert isinstance(first, IrcHand) and first.hand_id == 797210868


# --------------------------------------------------------------------------- crafted files

HDB = "797228610   1   392  4  2/40    2/40    2/40     2/40     8s 2c 2h 4d 9c\n"
ROSTER = "797228610  4 EdK Matilda Raybould oejack\n"
PDB = {
    "Matilda": "Matilda   797228610  4  1 Br  k     k     k         2145   20   40 6d Kd\n",
    "Raybould": "Raybould  797228610  4  2 Bc  k     k     k          590   20    0 5s Js\n",
    "EdK": "EdK       797228610  4  3 f   -     -     Q          760    0    0\n",
    "oejack": "oejack    797228610  4  4 f   -     Q     -          685    0    0\n",
}


def _month(tmp_path: Path, hdb: str = HDB, roster: str = ROSTER, pdb: dict[str, str] | None = None) -> Path:
    month = tmp_path / "holdem" / "199504"
    (month / "pdb").mkdir(parents=True)
    (month / "hdb").write_text(hdb)
    (month / "hroster").write_text(roster)
    for nick, text in (PDB if pdb is None else pdb).items():
        (month / "pdb" / f"pdb.{nick}").write_text(text)
    return month


def _one(tmp_path: Path, **kw) -> IrcHand | SkippedHand:
    _month(tmp_path, **kw)
    items = list(read_irc_database(tmp_path))
    assert len(items) == 1, items
    return items[0]


def test_crafted_good_hand_reads_from_the_root_or_the_month(tmp_path):
    month = _month(tmp_path)
    for folder in (tmp_path, tmp_path / "holdem", month):
        (h,) = list(read_irc_database(folder))
        assert isinstance(h, IrcHand) and h.hand_id == 797228610
        assert h.source == f"{month / 'hdb'}:1"
        assert [p.pdb_line for p in h.players] == [1, 1, 1, 1]


def test_truncated_pdb_line(tmp_path):
    pdb = dict(PDB, Matilda="Matilda   797228610  4  1 Br  k")
    x = _one(tmp_path, pdb=pdb)
    assert isinstance(x, SkippedHand) and x.category == "malformed" and x.hand_id == 797228610
    assert "pdb.Matilda line 1" in x.reason and "6 columns" in x.reason


def test_truncated_hdb_line(tmp_path):
    x = _one(tmp_path, hdb="797228610   1   392  4  2/40    2/40")
    assert isinstance(x, SkippedHand) and x.category == "malformed"
    assert "hdb line 1" in x.reason and x.source.endswith("hdb:1")


def test_non_integer_fields(tmp_path):
    x = _one(tmp_path, pdb=dict(PDB, EdK=PDB["EdK"].replace("760", "76O")))
    assert x.category == "malformed" and "pdb.EdK line 1" in x.reason and "bankroll" in x.reason
    x = _one(tmp_path / "b", hdb=HDB.replace("2/40    2/40    2/40", "2/40    2/4x    2/40"))
    assert x.category == "malformed" and "hdb line 1" in x.reason


def test_unknown_cards(tmp_path):
    x = _one(tmp_path, hdb=HDB.replace("4d 9c", "4d Xx"))
    assert x.category == "bad-card" and "'Xx'" in x.reason and "hdb line 1" in x.reason
    x = _one(tmp_path / "b", pdb=dict(PDB, Raybould=PDB["Raybould"].replace("5s Js", "5s 1s")))
    assert x.category == "bad-card" and "'1s'" in x.reason and "pdb.Raybould line 1" in x.reason
    x = _one(tmp_path / "c", pdb=dict(PDB, Raybould=PDB["Raybould"].replace("5s Js", "5s 8s")))
    assert x.category == "bad-card"  # 8s is on the board


def test_missing_pdb_file(tmp_path):
    pdb = {k: v for k, v in PDB.items() if k != "oejack"}
    x = _one(tmp_path, pdb=pdb)
    assert x.reason == "incomplete: missing pdb for oejack"
    assert x.source.endswith("hdb:1") and x.hand_id == 797228610


def test_missing_roster_line(tmp_path):
    x = _one(tmp_path, roster="")
    assert x.category == "incomplete" and "hroster" in x.reason


def test_chips_not_balancing(tmp_path):
    x = _one(tmp_path, pdb=dict(PDB, Matilda=PDB["Matilda"].replace("20   40", "20   50")))
    assert x.category == "chips-unbalanced" and "40 chips put in, 50 won" in x.reason


def test_put_in_not_matching_the_letters(tmp_path):
    x = _one(tmp_path, pdb=dict(PDB, Raybould=PDB["Raybould"].replace(" 20    0", " 30    0")))
    assert x.category == "put-in-mismatch" and "Raybould" in x.reason and "pdb.Raybould line 1" in x.reason


def test_pot_not_matching_hdb(tmp_path):
    x = _one(tmp_path, hdb=HDB.replace("2/40    2/40    2/40", "2/30    2/40    2/40", 1))
    assert x.category == "pot-mismatch" and "flop" in x.reason


def test_players_count_not_matching_hdb_is_a_warning(tmp_path):
    h = _one(tmp_path, hdb=HDB.replace("2/40     8s", "3/40     8s"))
    assert isinstance(h, IrcHand)
    assert h.warnings == ("hdb-players-count: 2 players at the showdown by the letters, 3 in hdb",)


def test_extra_letters(tmp_path):
    x = _one(tmp_path, pdb=dict(PDB, Raybould=PDB["Raybould"].replace(" Bc ", " Bcc")))
    assert x.category == "leftover-letters" and "'Bcc'" in x.reason and "pdb.Raybould line 1" in x.reason
    x = _one(tmp_path / "b", pdb=dict(PDB, EdK=PDB["EdK"].replace("f   -     -     Q", "f   -     c     Q")))
    assert x.category == "leftover-letters" and "EdK" in x.reason


def test_unknown_letter_and_illegal_action(tmp_path):
    x = _one(tmp_path, pdb=dict(PDB, Matilda=PDB["Matilda"].replace(" k     k     k ", " x     k     k ")))
    assert x.category == "bad-letter" and "'x'" in x.reason
    x = _one(tmp_path / "b", pdb=dict(PDB, Matilda=PDB["Matilda"].replace(" k     k     k ", " c     k     k ")))
    assert x.category == "illegal-action" and "calls in the flop with nothing to call" in x.reason


def test_missing_action(tmp_path):
    x = _one(tmp_path, pdb=dict(PDB, Raybould=PDB["Raybould"].replace(" Bc ", " B  ")))
    assert x.category == "missing-action" and "Raybould" in x.reason


def test_nick_with_odd_characters(tmp_path):
    odd = "[^`{]"
    pdb = {k: v for k, v in PDB.items() if k != "EdK"}
    pdb[odd] = PDB["EdK"].replace("EdK      ", odd)
    h = _one(tmp_path, roster=ROSTER.replace("EdK", odd), pdb=pdb)
    assert isinstance(h, IrcHand)
    assert h.players[2].nick == odd and h.actions[2].nick == odd


def test_stray_lines_are_reported_not_fatal(tmp_path):
    pdb = dict(PDB, EdK=PDB["EdK"] + "EdK  797228999  4  3 f - - - 760 0 0\nEdK  notanumber\n\n")
    month = _month(tmp_path, pdb=pdb, hdb="\n" + HDB + "garbage line\n")
    items = list(read_irc_database(month))
    hands = [x for x in items if isinstance(x, IrcHand)]
    skipped = sorted((x.category, x.source.rsplit("/", 1)[1]) for x in items if isinstance(x, SkippedHand))
    assert len(hands) == 1 and hands[0].source.endswith("hdb:2")
    assert skipped == [("malformed", "hdb:3"), ("malformed", "pdb.EdK:3"), ("orphan", "pdb.EdK:2")]


def test_strict_raises_the_first_problem_with_its_location(tmp_path):
    month = _month(tmp_path, hdb=HDB + HDB.replace("797228610", "797228700"))
    with pytest.raises(ParseError) as e:
        list(read_irc_database(month, strict=True))
    assert e.value.source == f"{month / 'hdb'}:2" and e.value.hand_id == 797228700
    assert e.value.category == "incomplete"
    # The good hand came out before the problem was met.
    it = read_irc_database(month, strict=True)
    assert isinstance(next(it), IrcHand)


def test_no_month_folder(tmp_path):
    with pytest.raises(FileNotFoundError):
        list(read_irc_database(tmp_path))


# --------------------------------------------------------------------------- fuzzing


@pytest.fixture(scope="module")
def raw_hands() -> list[tuple[str, str, dict[str, str]]]:
    """The first 3000 complete hands as raw lines: hdb, hroster, pdb by nick."""
    month = find_month_folders(DATA)[0]
    hdb = (month / "hdb").read_text(encoding="latin-1").splitlines()[:3000]
    wanted = {line.split()[0] for line in hdb}
    roster = {}
    for line in (month / "hroster").read_text(encoding="latin-1").splitlines():
        if line.split()[0] in wanted:
            roster[line.split()[0]] = line
    pdb: dict[str, dict[str, str]] = {}
    for f in (month / "pdb").iterdir():
        for line in f.read_text(encoding="latin-1").splitlines():
            fields = line.split()
            if fields[1] in wanted:
                pdb.setdefault(fields[1], {})[fields[0]] = line
    out = []
    for line in hdb:
        t = line.split()[0]
        nicks = roster[t].split()[2:]
        if all(n in pdb.get(t, {}) for n in nicks):
            out.append((line, roster[t], pdb[t]))
    return out


def _mutate(data, hdb: str, roster: str, pdb: dict[str, str]) -> tuple[str, str, dict[str, str]]:
    pdb = dict(pdb)
    nick = data.draw(st.sampled_from(sorted(pdb)))
    fields = pdb[nick].split()
    op = data.draw(st.sampled_from(["letters", "chips", "figure", "card", "drop", "truncate", "swap"]))
    if op == "letters":
        col = data.draw(st.integers(4, 7))
        fields[col] = data.draw(st.text("BfkcbrAQK", max_size=5)) or "-"
    elif op == "chips":
        col = data.draw(st.integers(8, 10))
        fields[col] = str(int(fields[col]) + data.draw(st.integers(-30, 30)))
    elif op == "figure":
        h = hdb.split()
        h[data.draw(st.integers(4, 7))] = f"{data.draw(st.integers(0, 6))}/{data.draw(st.integers(0, 300))}"
        hdb = " ".join(h)
    elif op == "card":
        h = hdb.split()
        if len(h) > 8:
            h[data.draw(st.integers(8, len(h) - 1))] = data.draw(st.sampled_from(["Xx", "As", "2c", "Td", "10h"]))
        hdb = " ".join(h)
    elif op == "drop":
        del pdb[nick]
        return hdb, roster, pdb
    elif op == "truncate":
        fields = fields[: data.draw(st.integers(0, len(fields)))]
    else:
        other = data.draw(st.sampled_from(sorted(pdb)))
        o = pdb[other].split()
        fields[4:8], o[4:8] = o[4:8], fields[4:8]
        pdb[other] = " ".join(o)
    pdb[nick] = " ".join(fields)
    return hdb, roster, pdb


@needs_data
@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_mutated_real_hands_are_read_consistently_or_skipped(raw_hands, data, tmp_path_factory):
    hdb, roster, pdb = raw_hands[data.draw(st.integers(0, len(raw_hands) - 1))]
    hdb, roster, pdb = _mutate(data, hdb, roster, pdb)
    month = tmp_path_factory.mktemp("fuzz") / "holdem" / "199504"
    (month / "pdb").mkdir(parents=True)
    (month / "hdb").write_text(hdb + "\n", encoding="latin-1")
    (month / "hroster").write_text(roster + "\n", encoding="latin-1")
    for nick, line in pdb.items():
        (month / "pdb" / f"pdb.{nick}").write_text(line + "\n", encoding="latin-1")
    items = list(read_irc_database(month))
    hands = [x for x in items if isinstance(x, IrcHand)]
    for x in items:
        if isinstance(x, SkippedHand):
            assert x.reason and x.source
    if hands:
        (h,) = hands
        _check_hand(h)


def test_progress_into_a_log_is_a_line_every_fifty_hands(capsys) -> None:
    """`poki irc deal` writing to a log (no terminal): one line per fifty hands dealt,
    not a progress-bar frame every half second."""
    from agent.cli.irc import PROGRESS_EVERY, _progress_line

    told = 0
    for hands in [0, 0, 3, 49, 50, 50, 51, 99, 130, 130, 151]:  # the count seen every half second
        told = _progress_line(hands, told, 200)
    assert capsys.readouterr().err.splitlines() == ["50 of 200 hands dealt", "130 of 200 hands dealt",
                                                    "151 of 200 hands dealt"]
    assert PROGRESS_EVERY == 50
