"""The schema, as sqlite-utils migrations: a file records which ones it has had, and
opening it applies the rest in order. Never edit a released migration; add a new one.

Tables read by the hot paths are WITHOUT ROWID, clustered on their primary key: a hand's
actions are one contiguous range keyed (hand, ord), and one player's model is one range
keyed (player, context), so inserting an action touches one b-tree plus the by-player
index, and loading a model is one range scan.
"""
from __future__ import annotations

from sqlite_utils import Database as _SUDatabase
from sqlite_utils.migrations import Migrations

from agent.game.context import ContextWalker
from evaluator_pyx.cards import parse_cards

MIGRATION_SET = "poki"
migrations = Migrations(MIGRATION_SET)


def _create_without_rowid(db: _SUDatabase, name: str, columns: dict, pk: tuple[str, ...], **kwargs) -> None:
    sql = db.create_table_sql(name, columns, pk=pk, not_null=list(columns), **kwargs)
    db.execute(sql.strip().rstrip(";") + " WITHOUT ROWID")


@migrations()
def m001_initial(db: _SUDatabase) -> None:
    db.table("meta").create({"key": str, "value": str}, pk="key")
    db.table("players").create(
        {"id": int, "name": str, "hands": int},
        pk="id",
        not_null=["name", "hands"],
        defaults={"hands": 0},
    )
    # A player is known by (network, nick); several aliases may name one player.
    db.table("aliases").create(
        {"network": str, "nick": str, "player": int},
        pk=("network", "nick"),
        not_null=["network", "nick", "player"],
        foreign_keys=[("player", "players", "id")],
    )
    db.table("aliases").create_index(["player"], index_name="aliases_by_player")
    # seq is the order hands were stored in: the order the models saw them. players,
    # actions and shown count the rows the hand has in seats, actions and showdowns, so a
    # hand can be seen to be whole; pot is the chips put in.
    db.table("hands").create(
        {
            "seq": int,
            "hand_id": str,
            "network": str,
            "source": str,
            "started_at": float,
            "small_blind": int,
            "big_blind": int,
            "small_bet": int,
            "big_bet": int,
            "max_bets": int,
            "board": str,
            "players": int,
            "pot": int,
            "actions": int,
            "shown": int,
        },
        pk="seq",
        not_null=[
            "hand_id", "network", "source", "small_blind", "big_blind", "small_bet",
            "big_bet", "max_bets", "board", "players", "pot", "actions", "shown",
        ],
    )
    db.table("hands").create_index(["hand_id"], index_name="hands_by_hand_id", unique=True)
    by_hand_player = [("hand", "hands", "seq"), ("player", "players", "id")]
    _create_without_rowid(
        db, "seats",
        {"hand": int, "player": int, "position": int, "stack": int},
        pk=("hand", "player"), foreign_keys=by_hand_player,
    )
    _create_without_rowid(
        db, "actions",
        {
            "hand": int,
            "ord": int,
            "player": int,
            "round": int,
            "kind": str,
            "amount": int,
            "bets_to_call": int,
            "raises": int,
            "position": int,
            "players_active": int,
            "all_in": int,
            "context": int,
        },
        pk=("hand", "ord"), foreign_keys=by_hand_player,
    )
    _create_without_rowid(
        db, "showdowns", {"hand": int, "player": int, "cards": str},
        pk=("hand", "player"), foreign_keys=by_hand_player,
    )
    _create_without_rowid(
        db, "results", {"hand": int, "player": int, "put_in": int, "won": int},
        pk=("hand", "player"), foreign_keys=by_hand_player,
    )
    # fold/call/raise_decayed are as of the player's hand ref_hand; scale them by
    # 0.5 ** ((players.hands - ref_hand) / half_life) to read them now.
    _create_without_rowid(
        db, "models",
        {
            "player": int,
            "context": int,
            "fold_decayed": float,
            "call_decayed": float,
            "raise_decayed": float,
            "ref_hand": int,
            "fold_count": int,
            "call_count": int,
            "raise_count": int,
        },
        pk=("player", "context"), foreign_keys=[("player", "players", "id")],
    )
    # The by-player indexes lead with (player, hand): hands arrive in order, so each
    # player's entries grow at one end, which keeps inserts local and fast; the rest of
    # the actions index covers the report's usual filters (VPIP, PFR, aggression, context
    # frequencies). A player's results and showdowns are reached through seats_by_player
    # and their (hand, player) keys, as the player_hands view does, rather than paying for
    # two more indexes on every hand written.
    db.table("seats").create_index(["player", "hand"], index_name="seats_by_player")
    db.table("actions").create_index(["player", "hand", "context", "kind"], index_name="actions_by_player")
    db.create_view(
        "player_hands",
        """SELECT s.hand, s.player, s.position, s.stack, r.put_in, r.won, r.won - r.put_in AS net,
                  w.cards AS shown
           FROM seats s
           JOIN results r ON r.hand = s.hand AND r.player = s.player
           LEFT JOIN showdowns w ON w.hand = s.hand AND w.player = s.player""",
    )


@migrations()
def m002_irc_bankrolls(db: _SUDatabase) -> None:
    # IRC dealer bots ([poki-2002]: "bankroll preserved between sessions"): the chips a player
    # holds off the tables, keyed by (network, nick) and bound to the connection (user,
    # host) that last held them; the chips each player has on a table; each table's next
    # hand number. A hand and its table's chip counts are committed together.
    db.table("bankrolls").create(
        {"network": str, "nick": str, "chips": int, "granted": int, "user": str, "host": str,
         "updated": float},
        pk=("network", "nick"),
        not_null=["network", "nick", "chips", "granted", "user", "host", "updated"],
    )
    db.table("table_chips").create(
        {"network": str, "channel": str, "nick": str, "chips": int},
        pk=("network", "channel", "nick"),
        not_null=["network", "channel", "nick", "chips"],
    )
    db.table("irc_tables").create(
        {"network": str, "channel": str, "next_hand": int},
        pk=("network", "channel"),
        not_null=["network", "channel", "next_hand"],
    )


@migrations()
def m003_fine_contexts(db: _SUDatabase) -> None:
    """Richer opponent models (agent.models.prediction): each action's fine context, each
    player's decayed counts in the fine contexts and running score of each predictor, and
    each network's population counts in the coarse (level 0) and fine (level 1) contexts.
    Actions stored before get their fine context here; the models are then rebuilt by
    Database (recompute), since they depend on the decay settings."""
    db.table("actions").add_column("fine_context", int, not_null_default=-1)
    _create_without_rowid(
        db, "fine_models",
        {
            "player": int, "context": int, "fold_decayed": float, "call_decayed": float, "raise_decayed": float,
            "ref_hand": int, "fold_count": int, "call_count": int, "raise_count": int,
        },
        pk=("player", "context"), foreign_keys=[("player", "players", "id")],
    )
    _create_without_rowid(
        db, "predictor_scores",
        {"player": int, "twelve": float, "backoff": float, "ref_hand": int},
        pk=("player",), foreign_keys=[("player", "players", "id")],
    )
    db.table("populations").create({"network": str, "hands": int}, pk="network", not_null=["network", "hands"])
    _create_without_rowid(
        db, "population_models",
        {
            "network": str, "level": int, "context": int, "fold_decayed": float, "call_decayed": float,
            "raise_decayed": float, "ref_hand": int, "fold_count": int, "call_count": int, "raise_count": int,
        },
        pk=("network", "level", "context"),
    )
    backfill_fine_contexts(db)



@migrations()
def m004_learned_predictors(db: _SUDatabase) -> None:
    """The learned predictor (agent.models.learned): fitted weights by name, with the
    feature scheme they read, the L2 penalty, and the decisions, hands and start times of
    the hands they were fitted on (db.learned)."""
    db.table("learned_predictors").create(
        {"name": str, "scheme": str, "l2": float, "decisions": int, "hands": int, "first_started_at": float,
         "last_started_at": float, "fitted_at": float, "model": str},
        pk="name", not_null=["name", "scheme", "l2", "decisions", "hands", "fitted_at", "model"],
    )

def backfill_fine_contexts(db: _SUDatabase) -> int:
    """Work out the fine context of every stored action whose fine_context is -1, from the
    stored hand (board, seats, actions in order). Returns the number of actions set."""
    conn = db.conn
    hands = [r[0] for r in conn.execute("SELECT DISTINCT hand FROM actions WHERE fine_context = -1 ORDER BY hand")]
    updates = []
    for hand in hands:
        board_text = conn.execute("SELECT board FROM hands WHERE seq = ?", (hand,)).fetchone()[0]
        board = parse_cards(board_text) if board_text else []
        positions = dict(conn.execute("SELECT player, position FROM seats WHERE hand = ?", (hand,)).fetchall())
        walker = ContextWalker(positions, board)
        for ord_, player, rnd, kind, btc, active, raises in conn.execute(
                "SELECT ord, player, round, kind, bets_to_call, players_active, raises FROM actions WHERE hand = ?"
                " ORDER BY ord", (hand,)).fetchall():
            updates.append((walker.context(rnd, player, btc, active, raises), hand, ord_))
            walker.record(rnd, player, kind)
    conn.executemany("UPDATE actions SET fine_context = ? WHERE hand = ? AND ord = ?", updates)
    return len(updates)


# The by-player indexes serve reads only (reports, `poki db player`). A bulk load into a
# small database drops them and builds them once at the end (Database.deferred_indexes):
# sorting every row once costs far less than keeping them up to date row by row. These are
# the definitions m001 made them with (tests/test_db_write.py compares the two).
DEFERRABLE_INDEXES: dict[str, tuple[str, tuple[str, ...]]] = {
    "seats_by_player": ("seats", ("player", "hand")),
    "actions_by_player": ("actions", ("player", "hand", "context", "kind")),
}


def missing_indexes(db: _SUDatabase) -> list[str]:
    """The deferrable indexes the file lacks (a bulk load stopped before it rebuilt them)."""
    present = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
    return [name for name in DEFERRABLE_INDEXES if name not in present]


def drop_deferrable_indexes(db: _SUDatabase) -> None:
    for name in DEFERRABLE_INDEXES:
        db.execute(f"DROP INDEX IF EXISTS [{name}]")


def create_deferrable_indexes(db: _SUDatabase) -> None:
    for name, (table, columns) in DEFERRABLE_INDEXES.items():
        db.table(table).create_index(list(columns), index_name=name, if_not_exists=True)


def known() -> set[str]:
    """The names of every migration this version has."""
    return {m.name for m in migrations._migrations}


def applied(db: _SUDatabase) -> list[str]:
    return [m.name for m in migrations.applied(db)]


def pending(db: _SUDatabase) -> list[str]:
    return [m.name for m in migrations.pending(db)]


@migrations()
def m005_off_model(db: _SUDatabase) -> None:
    """The learned re-weighting floor (floor_on = "learned", agent.engine.modeler): per
    (network, nick), how many of the player's calls and bets/raises were seen at its
    showdowns and how many of those came from holdings the threshold model gave a low
    factor (db.off_model)."""
    db.table("off_model").create(
        {"network": str, "nick": str, "n_call": float, "k_call": float, "n_raise": float, "k_raise": float},
        pk=("network", "nick"), not_null=["network", "nick", "n_call", "k_call", "n_raise", "k_raise"],
    )


@migrations()
def m007_rake_and_hero(db: _SUDatabase) -> None:
    """Online rooms' hands (connectors.logs.rooms): each hand's rake, the chips the house
    took from the pot (what the players won is the pot less it; 0 elsewhere), and its hero,
    the player the hand history was written for (the room's "Dealt to" player; NULL when
    the source names none)."""
    db.table("hands").add_column("rake", int, not_null_default=0)
    db.table("hands").add_column("hero", int, fk="players", fk_col="id")


@migrations()
def m008_ranges(db: _SUDatabase) -> None:
    """Learned ranges (``[engine] reweight = "learned"``, agent.models.ranges): per
    (network, nick), and per network under the nick '' (the population), the decayed
    counts of the table percentiles of shown-down holdings, row by (context, action
    class), as little-endian float64 bytes, with the decayed number of showdowns (db.ranges)."""
    db.table("ranges").create(
        {"network": str, "nick": str, "counts": bytes, "showdowns": float},
        pk=("network", "nick"), not_null=["network", "nick", "counts", "showdowns"],
    )


@migrations()
def m009_tournaments(db: _SUDatabase) -> None:
    """Tournament hands (connectors.logs.rooms): a hand played for a tournament's chips
    names its tournament (the room's id) and the blind level as the room writes it; a
    cash game's hand, played for money, has NULL in both. Hands stored before are cash
    games (no source read tournaments before this)."""
    db.table("hands").add_column("tournament", str)
    db.table("hands").add_column("level", str)
