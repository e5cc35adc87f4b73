"""One hand of the IRC Poker Database built from its hdb, hroster and pdb lines: the
letters parsed, the exact order of the actions rebuilt and every chip checked, by the
rules of that dealer described in connectors.logs.irc_format. A hand these rules cannot
explain is rejected with its reason, never bent to fit.
"""
from __future__ import annotations

from collections.abc import Iterable

from connectors.logs.irc_format import *  # noqa: F403  (the format's constants and types)
from connectors.logs.irc_format import PdbLine
from evaluator_pyx.cards import CARD_INDEX, CardError, parse_card

# --------------------------------------------------------------------------- one hand


class HandRejected(Exception):
    """A hand that cannot be read as the rules of the log's dealer explain; ``reason`` starts
    with its category (connectors.logs.irc_format)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


_ACTIVE, _ALL_IN, _OUT = 0, 1, 2
_LETTER_KIND = {"f": FOLD, "k": CHECK, "c": CALL, "b": BET, "r": RAISE, "Q": QUIT, "K": KICKED, "B": "B"}
_LEAVING = (QUIT, KICKED)
_Tokens = tuple[tuple[str, bool], ...]
# A player's four columns of letters -> their tokens and token counts, round by round.
_token_cache: dict[tuple[str, str, str, str], tuple[tuple[_Tokens, ...], tuple[int, ...]]] = {}
_new_tuple = tuple.__new__


def _parse_letters(letters: tuple[str, str, str, str]) -> tuple[tuple[_Tokens, ...], tuple[int, ...]] | str:
    toks = []
    for text in letters:
        t = _tokens(text)
        if isinstance(t, str):
            return t
        toks.append(t)
    result = (tuple(toks), tuple([len(t) for t in toks]))
    if len(_token_cache) < 200_000:
        _token_cache[letters] = result
    return result


def _tokens(text: str) -> _Tokens | str:
    """'brA' -> (('bet', False), ('raise', True)); '-' -> (); a string says what is wrong."""
    if text == "-":
        return ()
    out: list[tuple[str, bool]] = []
    for ch in text:
        if ch == "A":
            if not out or out[-1][1]:
                return f"'A' with no action before it in {text!r}"
            out[-1] = (out[-1][0], True)
            continue
        kind = _LETTER_KIND.get(ch)
        if kind is None:
            return f"unknown action letter {ch!r} in {text!r}"
        out.append((kind, False))
    return tuple(out)


def _card(text: str, where: str) -> int:
    try:
        return parse_card(text)
    except CardError:
        raise HandRejected(f"{BAD_CARD}: {where}: unknown card {text!r}") from None


def _bad_int(fields: list[str], names: tuple[tuple[int, str], ...], where: str) -> HandRejected:
    """The reason for the first of ``fields`` that is not an integer (the slow path)."""
    for i, what in names:
        try:
            int(fields[i])
        except ValueError:
            return HandRejected(f"{MALFORMED}: {where}: {what} is not an integer: {fields[i]!r}")
    return HandRejected(f"{MALFORMED}: {where}: a players/pot figure is not 'players/pot'")


_HDB_INTS = ((1, "game set"), (2, "game number"), (3, "players dealt in"))
_PDB_INTS = ((2, "players dealt in"), (3, "position"), (8, "bankroll"), (9, "chips put in"), (10, "chips won"))


def build_hand(hand_id: int, hf: list[str], source: str, hdb_path: str, hdb_line: int,
                roster_entry: tuple[str, int] | None, pdb_lines: list[PdbLine] | None,
                roster_path: str) -> IrcHand:
    nf = len(hf)
    if nf != 8 and nf != 11 and nf != 12 and nf != 13:
        raise HandRejected(f"{MALFORMED}: {hdb_path} line {hdb_line}: {nf} columns, expected 8 and then 0, 3, 4 "
                      f"or 5 board cards")
    try:
        game_set = int(hf[1])
        game_number = int(hf[2])
        n = int(hf[3])
        figures = []
        for x in hf[4:8]:
            a, _, b = x.partition("/")
            figures.append((int(a), int(b)))
    except ValueError:
        raise _bad_int(hf, _HDB_INTS, f"{hdb_path} line {hdb_line}") from None
    board: tuple[int, ...] = ()
    if nf > 8:
        try:
            board = tuple([CARD_INDEX[x] for x in hf[8:]])
        except KeyError:
            for x in hf[8:]:
                _card(x, f"{hdb_path} line {hdb_line}")
        if len(set(board)) != len(board):
            raise HandRejected(f"{BAD_CARD}: {hdb_path} line {hdb_line}: a card twice on the board {' '.join(hf[8:])}")

    if roster_entry is None:
        raise HandRejected(f"{INCOMPLETE}: no hroster line for hand {hand_id}")
    rtext, rline = roster_entry
    rf = rtext.split()
    nicks = rf[2:]
    if len(rf) < 2 or len(nicks) != n or rf[1] != hf[3]:
        said = rf[1] if len(rf) > 1 else "nothing"
        raise HandRejected(f"{MALFORMED}: {roster_path} line {rline}: a roster of {len(nicks)} (it says {said}) "
                      f"for a hand of {n} players")
    if n < 2:
        raise HandRejected(f"{MALFORMED}: {hdb_path} line {hdb_line}: a hand of {n} player(s)")
    lines = pdb_lines or ()
    split = [pl.text.split() for pl in lines]
    if len(lines) != n or {f[0] for f in split} != set(nicks):
        have = {f[0] for f in split}
        for nick in nicks:
            if nick not in have:
                raise HandRejected(f"{INCOMPLETE}: missing pdb for {nick}")
        extra = sorted(have - set(nicks))
        detail = f"players not in the roster: {' '.join(extra)}" if extra else "a player has two pdb lines"
        raise HandRejected(f"{MALFORMED}: {len(lines)} pdb lines for a hand of {n} players ({detail})")

    # Per position: (nick, letters, pdb line, hole cards), and the figures the replay uses.
    seats: list = [None] * n
    nicks_at: list = [None] * n
    bank_at = [0] * n
    put_at = [0] * n
    won_at = [0] * n
    toks_at: list = [None] * n
    cache = _token_cache
    t0 = t1 = t2 = t3 = 0  # letters per round, all players
    for pl, f0 in zip(lines, split):
        npf = len(f0)
        if npf != 11 and npf != 13:
            raise HandRejected(f"{MALFORMED}: {pl.path} line {pl.line}: {npf} columns, expected 11 or 13")
        try:
            dealt = int(f0[2])
            pos = int(f0[3])
            bankroll = int(f0[8])
            put_in = int(f0[9])
            won = int(f0[10])
        except ValueError:
            raise _bad_int(f0, _PDB_INTS, f"{pl.path} line {pl.line}") from None
        if dealt != n:
            raise HandRejected(f"{MALFORMED}: {pl.path} line {pl.line}: says {dealt} players dealt in, hdb says {n}")
        if not 0 < pos <= n or seats[pos - 1] is not None:
            raise HandRejected(f"{MALFORMED}: {pl.path} line {pl.line}: position {pos} is out of range or taken twice")
        if bankroll < 0 or put_in < 0 or won < 0:
            raise HandRejected(f"{MALFORMED}: {pl.path} line {pl.line}: a negative chip count")
        if npf == 13:
            try:
                hole = (CARD_INDEX[f0[11]], CARD_INDEX[f0[12]])
            except KeyError:
                hole = (_card(f0[11], f"{pl.path} line {pl.line}"), _card(f0[12], f"{pl.path} line {pl.line}"))
        else:
            hole = None
        letters = (f0[4], f0[5], f0[6], f0[7])
        parsed = cache.get(letters)
        if parsed is None:
            fresh = _parse_letters(letters)
            if isinstance(fresh, str):
                raise HandRejected(f"{BAD_LETTER}: {pl.path} line {pl.line}: {f0[0]}: {fresh}")
            parsed = fresh
        toks, (n0, n1, n2, n3) = parsed
        t0 += n0
        t1 += n1
        t2 += n2
        t3 += n3
        i = pos - 1
        seats[i] = (f0[0], letters, pl, hole)
        nicks_at[i] = f0[0]
        bank_at[i] = bankroll
        put_at[i] = put_in
        won_at[i] = won
        toks_at[i] = toks

    shown = [c for s in seats if s[3] is not None for c in s[3]]
    if shown and len(set(shown).union(board)) != len(shown) + len(board):
        raise HandRejected(f"{BAD_CARD}: a card shown twice (board {' '.join(hf[8:])} and the players' cards)")

    actions, pots, left, warnings = _replay(seats, n, nicks_at, bank_at, put_at, won_at, toks_at, figures,
                                            len(board), (t0, t1, t2, t3))

    players = tuple([
        _new_tuple(IrcPlayer, (i + 1, s[0], bank_at[i], put_at[i], won_at[i], s[3], s[1], s[2].line, left[i]))
        for i, s in enumerate(seats)
    ])
    return IrcHand(hand_id, source, game_set, game_number, players, board,
                   (figures[0], figures[1], figures[2], figures[3]), pots, actions, warnings)


def _where(seat: tuple) -> str:
    pl = seat[2]
    return f"{pl.path} line {pl.line}: {seat[0]}"


def _replay(seats: list, n: int, nick: list[str], bankroll: list[int], put_in: list[int], won: list[int],
            toks: list, figures: list, board_len: int, totals: tuple[int, int, int, int]) -> tuple:
    """Rebuild the action order from the players' letters; check chips, pots and board."""
    remaining = bankroll[:]
    put = [0] * n
    rc = [0] * n  # chips put in this round
    status = [_ACTIVE] * n
    allin_due = [False] * n  # declared all-in, to be recorded at his next turn
    left: list = [()] * n
    actions: list[IrcAction] = []
    append = actions.append
    warnings: list[str] = []
    ptr = [0] * n  # letters taken this round, by player
    posts = _post_blinds(seats, n, nick, toks, remaining, put, rc, status, allin_due, ptr, append)

    # The pot (all chips put in) and the live players as each round starts, and whether
    # two of them could still bet.
    pots = [(0, 0)] * 4
    could_bet = [True] * 4
    gone_after = 0  # live players who left once the pot was settled
    rnd = 0
    start = posts % n
    level = BIG_BLIND
    while True:
        if rnd:
            pots[rnd - 1] = (n - status.count(_OUT), sum(put))
            could_bet[rnd - 1] = status.count(_ACTIVE) > 1
            ptr = [0] * n
            rc = [0] * n
            level = 0
            start = 0
        gone_after += _play_round(rnd, seats, n, nick, won, toks, totals[rnd], remaining, put, rc, status, allin_due,
                                  ptr, left, append, warnings, level, start)
        if n - status.count(_OUT) <= 1 or rnd == 3:
            break
        rnd += 1

    n_live = n - status.count(_OUT)
    pots[3] = (n_live - gone_after, sum(put))
    _unreached_rounds(seats, toks, n, rnd, left)
    _check_totals(seats, n, put, put_in, won, status, figures, pots, could_bet, warnings)
    # The board goes as far as the hand did; with two or more players left it is complete.
    if n_live > 1:
        if board_len != 5:
            raise HandRejected(f"{BOARD_MISMATCH}: a showdown with {board_len} board cards")
    elif board_len != (0, 3, 4, 5)[rnd]:
        raise HandRejected(f"{BOARD_MISMATCH}: the hand ended in the {ROUND_NAMES[rnd]} but the board has "
                           f"{board_len} cards")
    return tuple(actions), tuple(pots), left, tuple(warnings)


def _post_blinds(seats: list, n: int, nick: list[str], toks: list, remaining: list[int], put: list[int],
                 rc: list[int], status: list[int], allin_due: list[bool], ptr: list[int], append) -> int:
    """Post the blinds (position 1 always; position 2 too when its first letter is B);
    the number posted."""
    if not toks[0][0] or toks[0][0][0][0] != "B":
        raise HandRejected(f"{ILLEGAL_ACTION}: {_where(seats[0])} at position 1 did not post a blind "
                           f"({seats[0][1][0]!r})")
    posts: tuple[tuple[int, int, str], ...]
    if toks[1][0] and toks[1][0][0][0] == "B":
        posts = ((0, SMALL_BLIND, BLIND_SMALL), (1, BIG_BLIND, BLIND_BIG))
    else:
        posts = ((0, BIG_BLIND, BLIND_BIG),)
    for p, size, kind in posts:
        amt = size if remaining[p] > size else remaining[p]
        short = amt == remaining[p]
        flag = toks[p][0][0][1]
        if short and not flag:
            raise HandRejected(f"{ILLEGAL_ACTION}: {_where(seats[p])} posts a blind of {amt}, all he has, "
                               f"without an all-in mark")
        remaining[p] -= amt
        rc[p] = amt
        put[p] = amt
        ptr[p] = 1
        if short:
            status[p] = _ALL_IN
        elif flag:
            allin_due[p] = True
        append(_new_tuple(IrcAction, (0, p + 1, nick[p], kind, 0, 0, amt, 0, short)))
    return len(posts)


def _play_round(rnd: int, seats: list, n: int, nick: list[str], won: list[int], toks: list, total: int,
                remaining: list[int], put: list[int], rc: list[int], status: list[int], allin_due: list[bool],
                ptr: list[int], left: list, append, warnings: list[str], level: int, start: int) -> int:
    """One betting round from the players' letters (``total``: letters of all players in
    it), then the letters left in it; the live players who left once the pot was settled."""
    bet = BET_SIZES[rnd]
    raises = 0
    n_active = status.count(_ACTIVE)
    n_live = n - status.count(_OUT)
    n_due = allin_due.count(True)
    used = sum(ptr)  # letters taken this round (the blinds' in the first)
    acted = [False] * n
    pending = n_active  # players able to bet who still owe an action this round
    if n_active == 1:
        pending = _lone_player_owes(status, rc, level)
    i = start
    idle = 0
    while pending > 0 and n_live > 1:
        p = i
        i = i + 1 if i + 1 < n else 0
        if status[p] or (acted[p] and rc[p] == level):
            idle += 1
            if idle > n:  # nobody left to act: cannot happen if the counts are right
                raise HandRejected(f"{MISSING_ACTION}: the {ROUND_NAMES[rnd]} cannot close")
            continue
        idle = 0
        tp = toks[p][rnd]
        if n_due and allin_due[p]:
            kind = ALL_IN
            flag = False
            n_due -= 1
        else:
            k = ptr[p]
            if k >= len(tp) or (won[p] and tp[k][0] in _LEAVING):
                # Someone else quit or went all-in out of turn: with no letter left this
                # player had nothing to do, and one who won chips did not quit first.
                if not _out_of_turn(rnd, toks, ptr, status, allin_due, nick, append, rc, level, bet, raises, p):
                    raise _not_to_act(seats[p], rnd, k >= len(tp), won[p])
                n_live = n - status.count(_OUT)
                n_active = status.count(_ACTIVE)
                n_due = allin_due.count(True)
                used = sum(ptr)
                pending = _still_to_act(status, acted, rc, level)
                if n_active == 1 and pending:
                    pending = _lone_player_owes(status, rc, level)
                i = p
                continue
            kind, flag = tp[k]
            ptr[p] = k + 1
            used += 1
        to_call = level - rc[p]
        btc = -(-to_call // bet)
        acted[p] = True
        amt = _chips(kind, to_call, level, rc[p], bet, raises, n_active, seats[p], rnd)
        if amt >= 0:
            short = amt >= remaining[p]
            if short:
                amt = remaining[p]
                if not flag:
                    raise HandRejected(f"{ILLEGAL_ACTION}: {_where(seats[p])}: a {kind} of {amt} in the "
                                       f"{ROUND_NAMES[rnd]} uses up his bankroll without an all-in mark")
                status[p] = _ALL_IN
                n_active -= 1
            elif flag:
                allin_due[p] = True
                n_due += 1
            remaining[p] -= amt
            put[p] += amt
            new = rc[p] + amt
            rc[p] = new
            append(_new_tuple(IrcAction, (rnd, p + 1, nick[p], kind, to_call, btc, amt, raises, short)))
            if new > level:
                if kind is RAISE and new - level >= bet:
                    raises += 1
                level = new
                pending = n_active - (status[p] == _ACTIVE)
            else:
                pending -= 1
        else:
            n_live -= _leave(kind, flag, to_call, p, rnd, seats, status, allin_due, nick, warnings)
            n_active -= 1
            pending -= 1
            append(_new_tuple(IrcAction, (rnd, p + 1, nick[p], kind, to_call, btc, 0, raises, False)))
        if n_active == 1 and pending:
            pending = _lone_player_owes(status, rc, level)

    # Letters left in this round: quits, kicks and all-ins after the round closed.
    if used != total or n_due:
        return _leftover_letters(rnd, seats, n, nick, won, toks, status, allin_due, ptr, left, append, rc, level,
                                 bet, raises)
    return 0


def _chips(kind: str, to_call: int, level: int, put_this_round: int, bet: int, raises: int, n_active: int,
           seat: tuple, rnd: int) -> int:
    """The chips a check, call, bet or raise puts in, before a short stack's all-in; -1
    for a letter that leaves the betting (fold, quit, kicked, declared all-in)."""
    if kind is CALL:
        if to_call <= 0:
            raise HandRejected(f"{ILLEGAL_ACTION}: {_where(seat)} calls in the {ROUND_NAMES[rnd]} "
                               f"with nothing to call")
        return to_call
    if kind is CHECK:
        if to_call:
            raise HandRejected(f"{ILLEGAL_ACTION}: {_where(seat)} checks in the {ROUND_NAMES[rnd]} "
                               f"facing {to_call}")
        return 0
    if kind is BET:
        if level:
            raise HandRejected(f"{ILLEGAL_ACTION}: {_where(seat)} bets in the {ROUND_NAMES[rnd]} "
                               f"facing a bet")
        return bet
    if kind is RAISE:
        if not level:
            raise HandRejected(f"{ILLEGAL_ACTION}: {_where(seat)} raises in the {ROUND_NAMES[rnd]} "
                               f"with no bet to raise")
        if raises >= MAX_RAISES and n_active > 2:
            raise HandRejected(f"{ILLEGAL_ACTION}: {_where(seat)} raises in the {ROUND_NAMES[rnd]} "
                               f"after the cap ({raises} raises, {n_active} players able to bet)")
        return level + bet - put_this_round
    return -1


def _leave(kind: str, flag: bool, to_call: int, p: int, rnd: int, seats: list, status: list[int],
           allin_due: list[bool], nick: list[str], warnings: list[str]) -> int:
    """A fold, quit, kick or declared all-in in turn; 1 if the player left the hand, 0 if
    he stays in it all-in."""
    gone = 0
    if kind is FOLD or kind is QUIT or kind is KICKED:
        status[p] = _OUT
        gone = 1
        if kind is FOLD and not to_call:
            warnings.append(f"{FREE_FOLD}: {nick[p]} folds in the {ROUND_NAMES[rnd]} with nothing to call")
    elif kind is ALL_IN:
        status[p] = _ALL_IN
        allin_due[p] = False
    else:
        raise HandRejected(f"{ILLEGAL_ACTION}: {_where(seats[p])} posts a blind in the "
                           f"{ROUND_NAMES[rnd]} out of turn")
    if flag:
        raise HandRejected(f"{BAD_LETTER}: {_where(seats[p])}: an all-in mark after a {kind}")
    return gone


def _not_to_act(seat: tuple, rnd: int, no_letter: bool, won: int) -> HandRejected:
    """Why a player whose turn it is cannot act, nobody having left out of turn."""
    if no_letter:
        return HandRejected(f"{MISSING_ACTION}: {_where(seat)} has no letter left for the {ROUND_NAMES[rnd]} "
                            f"but is to act")
    return HandRejected(f"{CHIPS_TO_LOSER}: {_where(seat)} quits in the {ROUND_NAMES[rnd]} but won {won}")


def _leftover_letters(rnd: int, seats: list, n: int, nick: list[str], won: list[int], toks: list,
                      status: list[int], allin_due: list[bool], ptr: list[int], left: list, append,
                      rc: list[int], level: int, bet: int, raises: int) -> int:
    """The letters left in a round once it closed: quits, kicks and all-ins, players who
    won chips last (leaving earlier would have given up the pot); the live players who
    left once the pot was settled."""
    n_live = n - status.count(_OUT)
    gone_after = 0
    for p in _leftover_order(toks, ptr, allin_due, won, rnd, n):
        tp = toks[p][rnd]
        while ptr[p] < len(tp) or allin_due[p]:
            if allin_due[p]:
                kind = ALL_IN
                allin_due[p] = False
            else:
                kind = tp[ptr[p]][0]
                ptr[p] += 1
            # An all-in player owes nothing, whatever the bet.
            to_call = level - rc[p] if status[p] == _ACTIVE and level > rc[p] else 0
            if kind is QUIT or kind is KICKED:
                if status[p] == _OUT or n_live == 1 or (won[p] and rnd == 3):
                    # Left after folding, or once the pot was settled (hdb then no longer
                    # counts him at the showdown).
                    left[p] += ((rnd, kind),)
                    if status[p] != _OUT:
                        gone_after += 1
                    continue
                status[p] = _OUT
                n_live -= 1
            elif kind is ALL_IN and status[p] == _ACTIVE:
                status[p] = _ALL_IN
            else:
                raise HandRejected(f"{LEFTOVER}: {_where(seats[p])}: {seats[p][1][rnd]!r} in the "
                                   f"{ROUND_NAMES[rnd]} has letters that fit nowhere")
            append(_new_tuple(IrcAction, (rnd, p + 1, nick[p], kind, to_call, -(-to_call // bet), 0,
                                          raises, False)))
    return gone_after


def _unreached_rounds(seats: list, toks: list, n: int, rnd: int, left: list) -> None:
    """Rounds the hand never reached hold only notes of players leaving."""
    for p in range(n):
        for r in range(rnd + 1, 4):
            for kind, _flag in toks[p][r]:
                if kind is not QUIT and kind is not KICKED:
                    raise HandRejected(f"{LEFTOVER}: {_where(seats[p])}: {seats[p][1][r]!r} in the "
                                       f"{ROUND_NAMES[r]}, which the hand never reached")
                left[p] += ((r, kind),)


def _check_totals(seats: list, n: int, put: list[int], put_in: list[int], won: list[int], status: list[int],
                  figures: list, pots: list, could_bet: list[bool], warnings: list[str]) -> None:
    """The chips put in against the pdb lines, the pot against the chips won, the pots
    against hdb's figures."""
    if put != put_in:
        for p in range(n):
            if put[p] != put_in[p]:
                raise HandRejected(f"{PUT_IN_MISMATCH}: {_where(seats[p])} put in {put[p]} by the letters, "
                                   f"{put_in[p]} by the pdb line")
    pot = pots[3][1]
    total_won = sum(won)
    if total_won != pot:
        raise HandRejected(f"{UNBALANCED}: {pot} chips put in, {total_won} won")
    for p in range(n):
        if won[p] and status[p] == _OUT:
            raise HandRejected(f"{CHIPS_TO_LOSER}: {_where(seats[p])} left the hand but won {won[p]}")
    for r in range(4):
        hp, hpot = figures[r]
        mp, mpot = pots[r]
        if not could_bet[r] and r < 2:
            mp = mpot = 0  # hdb writes no flop or turn figure when nobody could bet
        if hpot != mpot:
            label = ROUND_NAMES[r + 1] if r < 3 else "showdown"
            raise HandRejected(f"{POT_MISMATCH}: the pot at the {label} is {mpot} by the letters, {hpot} in hdb")
        if hp != mp:
            label = ROUND_NAMES[r + 1] if r < 3 else "showdown"
            warnings.append(f"{PLAYERS_MISMATCH}: {mp} players at the {label} by the letters, {hp} in hdb")


def _leftover_order(toks: list, ptr: list[int], allin_due: list[bool], won: list[int], rnd: int,
                    n: int) -> Iterable[int]:
    """Players with letters left this round, those who won chips last."""
    todo = [q for q in range(n) if ptr[q] < len(toks[q][rnd]) or allin_due[q]]
    if len(todo) > 1:
        todo.sort(key=lambda q: won[q] > 0)
    return todo


def _still_to_act(status: list[int], acted: list[bool], rc: list[int], level: int) -> int:
    """Players able to bet who still owe an action this round."""
    return sum([1 for q in range(len(status)) if not status[q] and not (acted[q] and rc[q] == level)])


def _lone_player_owes(status: list[int], rc: list[int], level: int) -> int:
    """1 if the only player able to bet has yet to match the bet, else 0."""
    for q, s in enumerate(status):
        if s == _ACTIVE:
            return 1 if rc[q] < level else 0
    return 0


def _out_of_turn(rnd: int, toks: list, ptr: list[int], status: list[int], allin_due: list[bool],
                 nick: list[str], append, rc: list[int], level: int, bet: int, raises: int, skip: int) -> bool:
    """Apply every other player's next letter this round that is a quit, kick or all-in."""
    found = False
    for q in range(len(toks)):
        if q == skip or status[q] == _OUT:
            continue
        tq = toks[q][rnd]
        if allin_due[q] and status[q] == _ACTIVE:
            kind = ALL_IN
            allin_due[q] = False
        elif ptr[q] < len(tq) and tq[ptr[q]][0] in _LEAVING:
            kind = tq[ptr[q]][0]
            ptr[q] += 1
        else:
            continue
        to_call = level - rc[q] if status[q] == _ACTIVE and level > rc[q] else 0
        status[q] = _ALL_IN if kind is ALL_IN else _OUT
        append(_new_tuple(IrcAction, (rnd, q + 1, nick[q], kind, to_call, -(-to_call // bet), 0, raises, False)))
        found = True
    return found
