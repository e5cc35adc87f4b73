"""IRC server software and the send budget its default flood limits allow.

A server reads only so many lines a second from a client; past that it holds them back
(fake lag) or drops the client ("Excess Flood"). A bot that keeps inside the limit never
has a line held, so the table's clock is never eaten by the server. The budget is a
token bucket: ``burst`` lines at once, then ``rate`` lines a second (0: no limit).

The server names its software in its registration replies: 004 RPL_MYINFO carries the
version (``ngircd-26.1``, ``InspIRCd-3``, ``solanum-1.0-dev``, ``UnrealIRCd-6.1.2``,
``ergo-2.11.0``, ``ircd-hybrid-8.2.43``), as 002 RPL_YOURHOST does in words.
:func:`software` reads it; :data:`PROFILES` holds each software's budget, a little under
its documented default limits (a network may set its own: the limits are the defaults,
not a promise), and ``safe`` for a server not recognised.

Pure data and parsing, no I/O.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["PROFILES", "SAFE", "SendBudget", "profile_for", "software"]


@dataclass(frozen=True, slots=True)
class SendBudget:
    """``burst`` lines at once, then ``rate`` lines a second (0: no limit); ``name`` says
    where it comes from (a profile, "custom")."""

    name: str
    burst: int
    rate: float

    def describe(self) -> str:
        """>>> SendBudget("ngircd", 3, 2.5).describe()
        'ngircd: 3 lines at once, then 2.5 a second'
        """
        if self.rate == 0:
            return f"{self.name}: no limit"
        return f"{self.name}: {self.burst} line{'s' if self.burst != 1 else ''} at once, then {self.rate:g} a second"


PROFILES: dict[str, SendBudget] = {
    # ngircd: src/ngircd/conn.c handles at most MAX_COMMANDS = 3 commands a loop from a
    # user and then throttles the connection for a second (Throttle_Connection,
    # Conn_SetPenalty(Idx, 1)); docs/irc-networks.md measured ngircd 26.1 passing 3 lines
    # at once, then 3 a second.
    "ngircd": SendBudget("ngircd", 3, 2.5),
    # InspIRCd 3: the default <connect> class has commandrate 1000 (millicommands a
    # second: one command a second) and threshold 10 (the penalty allowed before fake lag)
    # (docs.inspircd.org/3/configuration, <connect>); measured: 9 at once, then 1 a second.
    "inspircd": SendBudget("inspircd", 8, 0.9),
    # Solanum (and charybdis, whose flood control it keeps): doc/reference.conf's
    # defaults client_flood_burst_max = 5 lines parsed at once, then
    # client_flood_message_num = 2 per client_flood_message_time = 1 second
    # (ircd/packet.c, parse_client_queued and flood_recalc); more than
    # client_flood_max_lines = 20 lines waiting is an Excess Flood.
    "solanum": SendBudget("solanum", 4, 1.8),
    # ircd-hybrid: include/packet.h MAX_FLOOD = 5 lines at once; src/packet.c flood_recalc
    # lowers the count by 2 a second once the connection's grace period is over.
    "hybrid": SendBudget("hybrid", 4, 1.8),
    # Ergo: default.yaml's fakelag section: window 1s, burst-limit 5, then
    # messages-per-window 2 a window.
    "ergo": SendBudget("ergo", 4, 1.8),
    # UnrealIRCd 6: src/parse.c parse_addlag adds (1 + bytes / lag-penalty-bytes) *
    # lag-penalty milliseconds of fake lag per command, and a client's commands wait
    # while it is more than 10 seconds lagged; set::anti-flood's documented defaults for
    # users not known to the server (unknown-users) are lag-penalty 1000 ms per 90 bytes
    # (unrealircd.org/docs/Anti-flood_settings). A table line of 90-179 bytes costs 2 s:
    # half a line a second, five at once inside the 10 s.
    "unrealircd": SendBudget("unrealircd", 5, 0.5),
    # A server not recognised: the strictest of the above.
    "safe": SendBudget("safe", 5, 0.5),
    # No limit, for a bot the server exempts (ngircd user mode +F, InspIRCd's
    # users/flood/no-throttle privilege): only on a server one runs oneself.
    "exempt": SendBudget("exempt", 1, 0.0),
}
SAFE = PROFILES["safe"]

# The version in 004 (and 002), by its first word: the software's name, then "-", "." or
# the end. Charybdis and its freenode fork ircd-seven share Solanum's flood control;
# oragono was Ergo's earlier name.
_SOFTWARE = re.compile(r"(ngircd|inspircd|solanum|charybdis|ircd-seven|unrealircd|ergo|oragono|ircd-hybrid|hybrid)"
                       r"(?:[-._/ ]|$)", re.IGNORECASE)
_SAME_AS = {"charybdis": "solanum", "ircd-seven": "solanum", "oragono": "ergo", "ircd-hybrid": "hybrid"}
MAX_VERSION = 100  # a version longer than this is no version (the server's words are untrusted)


def software(version: str) -> str | None:
    """The profile name of the software whose version 004 RPL_MYINFO gives, or None.

    >>> [software(v) for v in ("ngircd-26.1", "InspIRCd-3", "charybdis-4.1.2", "ircd-hybrid-8.2.43", "x-1")]
    ['ngircd', 'inspircd', 'solanum', 'hybrid', None]
    """
    if len(version) > MAX_VERSION:
        return None
    found = _SOFTWARE.match(version)
    if found is None:
        return None
    name = found.group(1).lower()
    return _SAME_AS.get(name, name)


def profile_for(version: str) -> SendBudget:
    """The budget for the server whose version 004 gives: its software's, else ``safe``."""
    name = software(version)
    return PROFILES[name] if name is not None else SAFE
