"""Where an IRC table is: a server's ``HOST:PORT`` and the network name the players met
there are known under (in the opponent database). Both bots, the dealer and the player,
read them the same way."""
from __future__ import annotations

__all__ = ["network_of", "split_server"]


def split_server(text: str) -> tuple[str, int]:
    """``HOST:PORT`` -> (host, port); ValueError naming the text otherwise."""
    host, sep, port = text.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"expected HOST:PORT, got {text!r}")
    return host, int(port)


def network_of(host: str) -> str:
    """The database's network name for players met on the IRC server ``host``."""
    return f"irc:{host}"
