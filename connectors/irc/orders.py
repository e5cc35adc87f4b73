"""Owner orders, declared once: who may give a bot orders, and what the orders are.

Each bot declares its orders where it implements them, Sopel-style: a decorator on the
method names the order, its parameters, one line of help and an example an owner may
send. The one :class:`OrderBook` a bot class holds answers ``help`` (every order's
usage) and ``help ORDER`` (its line) from those declarations, refuses a wrong number of
words with the order's usage, and runs the method; the tests send each declared
example. The player bot (agent.play.irc.player) and the dealer bot
(agent.play.irc.table) take their orders this way.

Owners are known by what the server vouches for, never by a nick (docs/architecture.md,
"Trust and input"): ``user@host`` masks (``*`` and ``?`` wildcards; a leading ``~`` on
the user, which servers add when ident does not answer, is ignored on both sides) or
``account:NAME``, the account the server says the sender is logged in to (IRCv3
account-tag). A ``nick!user@host`` mask is taken for its user@host when its nick part
is ``*``; one that names a nick, or a mask that matches anyone, is refused.
"""
from __future__ import annotations

import fnmatch
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Generic, TypeVar

__all__ = ["Caller", "Order", "OrderBook", "OwnerError", "Owners", "without_tilde"]

MAX_OWNERS = 100  # a settings file's list, bounded
MAX_ORDER_WORDS = 8  # an order line is a few words: more is not read

Bot = TypeVar("Bot")


class OwnerError(ValueError):
    """An owner that cannot be told from anyone else (the message says which and why)."""


def without_tilde(userhost: str) -> str:
    """``~user@host`` -> ``user@host`` (lower case): the ``~`` a server puts before a user
    name ident did not confirm says nothing about who it is."""
    user, at, host = userhost.lower().rpartition("@")
    return f"{user.lstrip('~')}{at}{host}" if at else userhost.lower()


@dataclass(frozen=True)
class Caller:
    """Who sent an order: its nick (to answer it), its user@host and the account the server
    vouches for ("" when the server tags none)."""

    nick: str
    userhost: str
    account: str = ""


class Owners:
    """The owners' masks and accounts (see the module docstring). OwnerError for a spec
    that names a nick or matches anyone."""

    def __init__(self, specs: Iterable[str]) -> None:
        self.masks: list[str] = []
        self.accounts: set[str] = set()
        specs = list(specs)
        if len(specs) > MAX_OWNERS:
            raise OwnerError(f"at most {MAX_OWNERS} owners, got {len(specs)}")
        for spec in specs:
            self._add(spec)

    def _add(self, spec: str) -> None:
        text = spec.strip().lower()
        if text.startswith("account:"):
            name = text[len("account:"):]
            if not name or any(ch in name for ch in " *?!@"):
                raise OwnerError(f"owner {spec!r}: account:NAME takes one account name, no wildcard")
            self.accounts.add(name)
            return
        nick, bang, userhost = text.rpartition("!")
        if bang and nick != "*":
            raise OwnerError(f"owner {spec!r} names a nick: an owner is known by user@host or account, never by "
                             f"a nick (anyone can take a nick); write {userhost!r} or account:NAME")
        user, at, host = userhost.partition("@")
        if not at or not user or not host or "@" in host or " " in userhost:
            raise OwnerError(f"owner {spec!r} is not a user@host mask (nor account:NAME)")
        if not user.strip("*?~") and not host.strip("*?."):
            raise OwnerError(f"owner {spec!r} matches anyone: give the host (user@host) or account:NAME")
        self.masks.append(without_tilde(userhost))

    @property
    def wants_accounts(self) -> bool:
        """Some owner is known by account: the bot asks the server for account tags."""
        return bool(self.accounts)

    def __bool__(self) -> bool:
        return bool(self.masks or self.accounts)

    def allows(self, caller: Caller) -> bool:
        if caller.account and caller.account.lower() in self.accounts:
            return True
        have = without_tilde(caller.userhost)
        return "@" in have and any(fnmatch.fnmatchcase(have, mask) for mask in self.masks)


Handler = Callable[[Bot, Caller, tuple[str, ...]], str]


@dataclass(frozen=True)
class Order(Generic[Bot]):
    """One declared order: ``name PARAM...``, its help line, an example an owner may send,
    and the method that runs it (``method(bot, caller, args) -> answer``)."""

    name: str
    params: tuple[str, ...]
    summary: str
    example: str
    run: Handler[Bot]

    @property
    def usage(self) -> str:
        return " ".join((self.name, *self.params))


class OrderBook(Generic[Bot]):
    """A bot class's orders, declared with :meth:`order` on its methods."""

    def __init__(self, bot: str) -> None:
        self.bot = bot
        self.orders: dict[str, Order[Bot]] = {}

    def order(self, name: str, summary: str, *, params: tuple[str, ...] = (),
              example: str = "") -> Callable[[Handler[Bot]], Handler[Bot]]:
        """Declare the decorated method as the order ``name`` (``params``: the words it
        takes, as the help shows them; ``example``: a line an owner may send, by default
        the bare name)."""
        if name in self.orders or name == "help" or not name.isalpha():
            raise ValueError(f"{self.bot}: order {name!r} declared twice, reserved or not a word")

        def declare(run: Handler[Bot]) -> Handler[Bot]:
            self.orders[name] = Order(name, params, summary, example or name, run)
            return run

        return declare

    def help(self, about: str = "") -> str:
        """Every order's usage, or the one line of the order ``about``."""
        order = self.orders.get(about.lower())
        if order is not None:
            return f"{order.usage}: {order.summary}"
        return (f"{self.bot} orders: {', '.join(o.usage for o in self.orders.values())}; "
                f"help ORDER says what one does")

    def names(self) -> frozenset[str]:
        return frozenset((*self.orders, "help"))

    def answer(self, bot: Bot, caller: Caller, text: str) -> str:
        """Run the order ``text`` asks for (the caller is an owner) and return the answer."""
        words = text.split()[:MAX_ORDER_WORDS]
        if not words:
            return self.help()
        name, args = words[0].lower(), tuple(words[1:])
        if name == "help":
            return self.help(args[0] if args else "")
        order = self.orders.get(name)
        if order is None:
            return f"no order {name[:20]!r}; {self.help()}"
        if len(args) != len(order.params):
            return f"usage: {order.usage} ({order.summary})"
        return order.run(bot, caller, args)
