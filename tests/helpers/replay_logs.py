"""Small IRC Poker Database months cut from the real 1995 logs, for replay tests."""
from __future__ import annotations

from pathlib import Path

from connectors.logs.irc_database import IrcHand, read_irc_database

from shared_data import DATA  # the shared 1995 logs (located in one place)


def first_irc_hands(n: int) -> list[IrcHand]:
    """The first ``n`` hands of the real 1995 IRC logs, in the order the reader gives them."""
    assert DATA is not None
    out: list[IrcHand] = []
    for item in read_irc_database(DATA):
        if isinstance(item, IrcHand):
            out.append(item)
            if len(out) == n:
                break
    return out


def mini_month(dest: Path, hands: list[IrcHand]) -> Path:
    """An IRC month folder holding only ``hands``, copied line for line from the real logs."""
    month = dest / "holdem" / "199504"
    (month / "pdb").mkdir(parents=True)
    src = DATA / "holdem" / "199504"
    ids = {str(h.hand_id) for h in hands}
    hdb = [line for line in (src / "hdb").read_text(encoding="latin-1").splitlines() if line.split()[:1] and
           line.split()[0] in ids]
    roster = [line for line in (src / "hroster").read_text(encoding="latin-1").splitlines()
              if line.split()[:1] and line.split()[0] in ids]
    (month / "hdb").write_text("\n".join(hdb) + "\n", encoding="latin-1")
    (month / "hroster").write_text("\n".join(roster) + "\n", encoding="latin-1")
    for nick in sorted({p.nick for h in hands for p in h.players}):
        lines = [line for line in (src / "pdb" / f"pdb.{nick}").read_text(encoding="latin-1").splitlines()
                 if line.split()[1:2] and line.split()[1] in ids]
        (month / "pdb" / f"pdb.{nick}").write_text("\n".join(lines) + "\n", encoding="latin-1")
    return month
