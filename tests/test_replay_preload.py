"""The IRC month index built before a parallel replay forks its workers
(connectors.logs.sources.preload): the chunks then read from it, with the same hands as
the whole-month reader, and a month that cannot be read is still reported by the chunk
that reads it."""
from __future__ import annotations

import pytest

from connectors.logs import irc_database, sources
from connectors.logs.irc_database import IrcHand, read_irc_month
from connectors.logs.irc_events import irc_hand_events, irc_hand_id
from connectors.logs.sources import LogHand, LogProblem, plan, preload, read_chunk

from helpers.replay_logs import first_irc_hands, mini_month
from shared_data import DATA

needs_data = pytest.mark.skipif(DATA is None, reason="the IRC hand logs are not there")


@pytest.fixture(scope="module")
def some_hands() -> list[IrcHand]:
    return first_irc_hands(12)


@needs_data
def test_chunks_read_the_preloaded_month(tmp_path, some_hands, monkeypatch) -> None:
    month = mini_month(tmp_path, some_hands)
    expected = [(irc_hand_id(h.hand_id), irc_hand_events(h)) for h in read_irc_month(month)
                if isinstance(h, IrcHand)]
    chunks, problems = plan([tmp_path], chunk_hands=5)
    assert not problems and len(chunks) >= 3
    sources.clear_cache()
    try:
        preload(chunks)

        def no_second_index(*args: object) -> None:
            raise AssertionError("the month was indexed again")

        # Every chunk must come from the index built by preload.
        monkeypatch.setattr(irc_database, "IrcMonth", no_second_index)
        got = [(i.hand_id, i.events) for c in chunks for i in read_chunk(c) if isinstance(i, LogHand)]
    finally:
        sources.clear_cache()
    assert got == expected
    assert len(got) == len(some_hands)


@needs_data
def test_a_month_that_cannot_be_read_is_reported_by_its_chunk(tmp_path, some_hands) -> None:
    month = mini_month(tmp_path, some_hands)
    chunks, _ = plan([tmp_path], chunk_hands=100)
    (month / "hdb").unlink()
    sources.clear_cache()
    try:
        preload(chunks)  # no error here: the reading reports it
        items = [i for c in chunks for i in read_chunk(c)]
    finally:
        sources.clear_cache()
    assert items and all(isinstance(i, LogProblem) for i in items)
    assert any(str(month / "hdb") in i.reason for i in items)
