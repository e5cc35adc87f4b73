"""Tournament hands of fixed-limit hold'em and mixed-game files, replayed as a user would.

The real files: ../shared/data/fpdb-lhe-more/tournaments (FPDB's regression files: a
PokerStars FPP tournament of four blind levels, a PartyPoker freeroll whose hands write
no blinds, a fold out of turn and an all-in of half a bet re-raised) and tests/mixed_games
(thirteen hands of a real PokerStars 8-Game match: fixed-limit hold'em among draw, Omaha,
stud and no-limit). Every fixed-limit hold'em hand must be stored whole with its
tournament and level, its chips conserved, once however often it is replayed; the
tournament chips must stay apart from money in the database and the report; hands of
other games must be skipped and counted under their game.
"""
from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from agent.cli import main
from agent.config import TableConfig
from agent.game.events import PlayerActed
from agent.game.rules import ONLINE, ONLINE_PARTY, RuleVariant, State
from agent.play.offline.replay import ReplayOptions, replay
from agent.report.page import ReportOptions, write_report
from connectors.logs import partypoker, pokerstars, rooms
from connectors.logs.text_room import Result
from db.database import Database
from db.reads import ReadError, open_readonly, report_rows
from evaluator_pyx.cards import parse_cards

from shared_data import DATA

TOURNAMENTS = None if DATA is None else DATA.parent / "fpdb-lhe-more" / "tournaments"
needs_files = pytest.mark.skipif(TOURNAMENTS is None or not TOURNAMENTS.is_dir(),
                                 reason="../shared/data/fpdb-lhe-more/tournaments is not here")
MIXED = Path(__file__).resolve().parent / "mixed_games"
STARS = "Stars/LHE-FR-FPP-20100710.txt"
PARTY = "PartyPoker/LHE-Freeroll-MTT-201207.txt"
# The hands of the files (their first lines): every one is fixed-limit hold'em.
STARS_HANDS, PARTY_HANDS = 40, 2


def _hands(db: Path) -> list[tuple]:
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT hand_id, network, tournament, level, small_bet, pot, rake FROM hands"
                            " ORDER BY seq").fetchall()


def _conserved(db: Path) -> list[str]:
    """The hands whose chips put in are not what was won plus the rake."""
    with sqlite3.connect(db) as conn:
        return [r[0] for r in conn.execute(
            "SELECT h.hand_id FROM hands h JOIN results r ON r.hand = h.seq GROUP BY h.seq"
            " HAVING sum(r.put_in) != sum(r.won) + h.rake OR sum(r.put_in) != h.pot")]


@needs_files
def test_every_tournament_hand_is_stored_with_its_tournament_and_level_once(tmp_path, capsys) -> None:
    assert TOURNAMENTS is not None
    db = tmp_path / "t.sqlite"
    assert main(["replay", str(TOURNAMENTS), "--strict", "--db", str(db), "--no-progress", "--json"]) == 0
    first = json.loads(capsys.readouterr().out)
    assert first["hands"] == first["stored"] == STARS_HANDS + PARTY_HANDS and first["skipped"] == 0
    stored = _hands(db)
    by = {}
    for _, network, tournament, level, small_bet, _, rake in stored:
        by.setdefault((network, tournament, level), []).append(small_bet)
        assert rake == 0  # a tournament's pot is not raked
    # Stars' levels as its headers name them, each with its own bets (chips in hundredths).
    assert {k: (len(v), set(v)) for k, v in by.items()} == {
        ("stars", "288463329", "I"): (4, {2000}), ("stars", "288463329", "II"): (8, {3000}),
        ("stars", "288463329", "III"): (14, {5000}), ("stars", "288463329", "IV"): (14, {10000}),
        ("party", "71207318", "4"): (2, {20000})}
    assert _conserved(db) == []
    # Replayed again: nothing new, every hand recognised by its id.
    assert main(["replay", str(TOURNAMENTS), "--strict", "--db", str(db), "--no-progress", "--json"]) == 0
    again = json.loads(capsys.readouterr().out)
    assert again["stored"] == 0 and again["duplicates"] == STARS_HANDS + PARTY_HANDS
    assert main(["db", "check", "--db", str(db)]) == 0
    assert "ok (42 hands" in capsys.readouterr().out


@needs_files
def test_partypoker_tournament_blinds_are_posted_by_seat_and_the_winner_takes_the_whole_pot() -> None:
    assert TOURNAMENTS is not None
    text = rooms.decode((TOURNAMENTS / PARTY).read_bytes())
    hands = partypoker.split_hands(text)
    assert len(hands) == PARTY_HANDS  # the second hand begins after a NUL
    first = partypoker.parse_hand(hands[0][1], "party:1")
    # Level 4, stakes 200/400: the blinds the room does not write, from the button's seat 8.
    assert [(p.player, p.kind, p.live) for p in first.posts] == [("Hero", "sb", 10000), ("Player0", "bb", 20000)]
    assert (first.tournament, first.level, first.rake) == ("71207318", "4", 0)
    # "Player1 wins 2,000 chips": the pot of 1,800 and his bet of 200 nobody called.
    assert first.won == {"Player1": 200000}
    second = partypoker.parse_hand(hands[1][1], "party:41")
    assert second.won == {"Player8": 120000 + 477000}
    # Three folds the room wrote before their turn (seats 4, 3, 2) are put in turn.
    events = rooms.hand_events(second)
    assert [m.player for m in second.streets[0][:3]] == ["Player3", "Player4", "Player6"]
    folds = [e.player for e in events if isinstance(e, PlayerActed)][:3]
    assert folds == ["Player6", "Player4", "Player3"]


def _turn_after_a_half_bet_all_in(variant: RuleVariant) -> State:
    """The turn of the PartyPoker freeroll's second hand, three-handed at 200/400: seat 0
    bets 400, seat 1 goes all-in to 790 (a raise of 390: half a bet or more), seat 2 calls."""
    st = State(TableConfig(seats=3, small_blind=100, big_blind=200, small_bet=200, big_bet=400),
               (5000, 1390, 5000), 0, variant=variant)
    for seat in range(3):
        st.deal_hole(seat, None)
    st.bet_or_raise(0)  # pre-flop: a raise to 400, called by both blinds
    st.check_or_call(1)
    st.check_or_call(2)
    st.deal_board(parse_cards("3h Ts 9d"))
    st.check_or_call(1)
    st.check_or_call(2)
    st.bet_or_raise(0)
    st.check_or_call(1)
    st.check_or_call(2)
    st.deal_board(parse_cards("9h"))
    st.check_or_call(1)
    st.check_or_call(2)
    st.bet_or_raise(0)
    allin = st.bet_or_raise(1)
    assert (allin.to, allin.all_in) == (790, True)
    st.check_or_call(2)
    return st


def test_a_half_bet_all_in_is_raised_a_full_bet_above_itself_at_partypoker() -> None:
    """ONLINE (the other rooms) reads the all-in as standing for a bet of 800 and does not
    let the bettor raise it; PartyPoker (ONLINE_PARTY) does, a full bet above the all-in,
    to 1,190, as its hand history shows."""
    online = _turn_after_a_half_bet_all_in(ONLINE)
    assert online.actor == 0 and not online.can_raise(0)
    party = _turn_after_a_half_bet_all_in(ONLINE_PARTY)
    assert party.actor == 0 and party.can_raise(0)
    raised = party.bet_or_raise(0)
    assert raised.to == 1190 and party.bets == (1190, 790, 790)
    call = party.check_or_call(2)
    assert call.amount == 400


@needs_files
def test_a_tournament_refused_as_another_game_before_is_now_read(tmp_path) -> None:
    """The header of each room's tournament hand: read as fixed-limit hold'em with its
    tournament and level (until now: OtherGame, 'not a fixed-limit hold'em cash game')."""
    assert TOURNAMENTS is not None
    text = rooms.decode((TOURNAMENTS / STARS).read_bytes())
    line, body = pokerstars.split_hands(text)[0]
    hand = pokerstars.parse_hand(body, f"stars:{line}")
    assert (hand.tournament, hand.level, hand.small_bet, hand.big_bet, hand.currency) == ("288463329", "I", 2000,
                                                                                        4000, "")
    nl = body.replace("50FPP Hold'em Limit", "50FPP Hold'em No Limit", 1)
    with pytest.raises(rooms.OtherGame) as other:
        pokerstars.parse_hand(nl, "stars:nl")
    assert other.value.game == "Hold'em No Limit"


def test_a_mixed_game_file_stores_its_limit_holdem_and_counts_the_rest_by_game(tmp_path, capsys) -> None:
    db = tmp_path / "m.sqlite"
    assert main(["replay", str(MIXED), "--strict", "--db", str(db), "--no-progress", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["hands"] == 13 and out["stored"] == 5 and out["skipped_by_reason"] == {"other-game": 8}
    assert out["skipped_by_game"] == {"7 Card Stud Hi/Lo Limit": 2, "Hold'em No Limit": 2, "Omaha Hi/Lo Limit": 2,
                                      "Triple Draw 2-7 Lowball Limit": 2}
    stored = _hands(db)
    assert {(net, t, level) for _, net, t, level, *_ in stored} == {("stars", "743144019", "II")}
    assert _conserved(db) == []
    # The summary printed for people names each game under the other-game count.
    assert main(["replay", str(MIXED), "--db", str(db), "--no-progress"]) == 0
    text = capsys.readouterr().out
    assert "  other-game: 8\n" in text and "    Omaha Hi/Lo Limit: 2\n" in text


@needs_files
def test_the_report_keeps_tournament_chips_apart_from_money(tmp_path) -> None:
    assert TOURNAMENTS is not None and DATA is not None
    db = tmp_path / "r.sqlite"
    cash = DATA.parent / "fpdb-lhe" / "Stars"
    summary = replay([cash, TOURNAMENTS], ReplayOptions(db_path=db, workers=1, strict=True))
    assert summary.stopped is None and summary.skipped == 0
    with sqlite3.connect(db) as conn:
        n_cash, n_tour = conn.execute("SELECT count(*) - count(tournament), count(tournament) FROM hands").fetchone()
        # Hero sits in the PartyPoker tournament and in Stars' cash hands; Player9 in Stars' tournament.
        money = conn.execute("SELECT coalesce(sum(r.won - r.put_in), 0) FROM results r JOIN hands h ON h.seq = r.hand"
                             " JOIN players p ON p.id = r.player WHERE h.tournament IS NULL AND h.hero = p.id"
                             ).fetchone()[0]
        chips = conn.execute("SELECT coalesce(sum(r.won - r.put_in), 0) FROM results r JOIN hands h ON h.seq = r.hand"
                             " JOIN players p ON p.id = r.player WHERE h.tournament IS NOT NULL AND h.hero = p.id"
                             ).fetchone()[0]
    assert n_tour == STARS_HANDS + PARTY_HANDS and n_cash > 0
    result = write_report(db, tmp_path / "report", ReportOptions(hero="nobody-matches"))
    assert result.hands == n_cash + n_tour
    report = json.loads((tmp_path / "report" / "report.json").read_text())
    assert report["hands_by_play"] == {"cash": n_cash, "tournament": n_tour}
    assert report["us"]["net_chips"] == money and report["us_tournament"]["net_chips"] == chips
    assert report["us_tournament"]["rake_chips"] == 0
    page = (tmp_path / "report" / "index.html").read_text()
    assert f"cash games: {n_cash}, tournaments: {n_tour}" in page
    assert "hands of tournaments, in the tournaments' chips" in page


def test_a_file_from_before_tournaments_opens_and_is_reported(tmp_path) -> None:
    """A database made before migration m009 is brought up to date when a writer opens
    it (its hands cash games); read-only, the report reads it as it is; a file of a newer
    Poki is refused by the report as by the writers."""
    from agent.bench.synthetic import synthetic_hands

    path = tmp_path / "old.sqlite"
    with Database(path) as database:
        database.write_hands(list(synthetic_hands(20, seed=3)), "irc")
    with sqlite3.connect(path) as conn:
        conn.execute("ALTER TABLE hands DROP COLUMN level")
        conn.execute("ALTER TABLE hands DROP COLUMN tournament")
        conn.execute("DELETE FROM _sqlite_migrations WHERE name = 'm009_tournaments'")
    conn.close()
    reader = open_readonly(str(path))
    try:
        rows = report_rows(reader, str(path))
    finally:
        reader.close()
    assert len(rows.hands) == 20 and all(h[4] is None for h in rows.hands)
    with Database(path) as database:
        assert "m009_tournaments" in database.migrations_applied() and database.hand_count() == 20
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT count(*) FROM hands WHERE tournament IS NULL AND level IS NULL").fetchone()[0] == 20
        conn.execute("INSERT INTO _sqlite_migrations (migration_set, name, applied_at) "
                     "VALUES ('poki', 'm099_from_the_future', '2031-01-01')")
    conn.close()
    with pytest.raises(ReadError, match="newer version of Poki.*m099_from_the_future"):
        open_readonly(str(path))
    assert main(["report", "--db", str(path), "--out", str(tmp_path / "rep"), "--no-progress"]) == 1


def test_a_tournament_hand_names_its_tournament_or_is_refused() -> None:
    """The database's rule: a cash game's hand names no level; a tournament's names its id."""
    import dataclasses

    from agent.bench.synthetic import synthetic_hands
    from agent.game.prepared import prepare_hand
    from agent.game.records import RecordError

    record = next(iter(synthetic_hands(1, seed=5)))
    assert prepare_hand(dataclasses.replace(record, tournament="7", level="IV"), "stars").hand[-2:] == ("7", "IV")
    for tournament, level in ((None, "IV"), ("", None), ("x" * 65, None), (7, None)):
        with pytest.raises(RecordError, match="tournament"):
            prepare_hand(dataclasses.replace(record, tournament=tournament, level=level), "stars")


def test_won_all_refuses_winners_who_took_other_than_the_pot() -> None:
    """PartyPoker's tournament hands write each winner's whole take: a take that is not the
    pot is an error, never a rake."""
    assert Result.WON_ALL.value == "won-all"
    if TOURNAMENTS is None or not TOURNAMENTS.is_dir():
        pytest.skip("../shared/data/fpdb-lhe-more/tournaments is not here")
    text = rooms.decode((TOURNAMENTS / PARTY).read_bytes())
    body = partypoker.split_hands(text)[0][1].replace("Player1 wins 2,000 chips", "Player1 wins 1,990 chips")
    with pytest.raises(rooms.RoomError, match="took 199000 chips of a pot of 200000"):
        partypoker.parse_hand(body, "party:1")
