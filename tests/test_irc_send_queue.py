"""The send queue (connectors.irc.send_queue): game lines before answers, answers to one
person coalesced and spaced."""
from __future__ import annotations

from connectors.irc.send_queue import OutLine, Priority, SendQueue


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def texts(queue: SendQueue) -> list[str]:
    out = []
    while (line := queue.pop()) is not None:
        out.append(line.text)
    return out


def test_game_lines_leave_before_answers_queued_earlier() -> None:
    queue = SendQueue(gap=10, clock=Clock())
    for k in range(5):
        queue.push(OutLine(f"NOTICE stranger{k} :stats", Priority.OTHER))
    queue.push(OutLine("NOTICE bob :you cannot check", Priority.SEATED))
    queue.push(OutLine("PRIVMSG #t :Hand 1: bob to act", Priority.GAME))
    queue.push(OutLine("PRIVMSG #t :Hand 1: bob folds", Priority.GAME))
    queue.push(OutLine("PONG :x", Priority.PROTOCOL))
    assert texts(queue)[:4] == ["PONG :x", "PRIVMSG #t :Hand 1: bob to act", "PRIVMSG #t :Hand 1: bob folds",
                                "NOTICE bob :you cannot check"]


def test_thirty_answers_to_one_nick_earn_two() -> None:
    clock = Clock()
    queue = SendQueue(gap=10, clock=clock)
    sent = []
    for k in range(30):
        queue.push(OutLine(f"NOTICE flooder :answer {k}", Priority.OTHER, key="answer:flooder"))
        line = queue.pop()
        if line is not None:
            sent.append(line.text)
        clock.now += 0.3  # 30 commands in 9 s
    assert sent == ["NOTICE flooder :answer 0"]
    assert len(queue) == 1 and queue.coalesced == 28
    assert 0 < queue.ready_in() <= 10
    assert queue.pop() is None
    clock.now += queue.ready_in()
    assert texts(queue) == ["NOTICE flooder :answer 29"]  # the newest answer, once
    assert len(queue) == 0


def test_a_held_answer_does_not_hold_up_others() -> None:
    clock = Clock()
    queue = SendQueue(gap=10, clock=clock)
    queue.push(OutLine("NOTICE a :1", Priority.OTHER, key="answer:a"))
    assert queue.pop().text == "NOTICE a :1"
    queue.push(OutLine("NOTICE a :2", Priority.OTHER, key="answer:a"))
    queue.push(OutLine("NOTICE b :1", Priority.OTHER, key="answer:b"))
    queue.push(OutLine("chatter", Priority.OTHER))
    assert texts(queue) == ["NOTICE b :1", "chatter"]
    clock.now += 10
    assert texts(queue) == ["NOTICE a :2"]


def test_an_answer_leaves_within_its_reserved_share_of_a_busy_table() -> None:
    """Forty game lines wait and an answer to a stranger comes behind them: it leaves
    after at most three of them (answer_every 4), not after the forty; the game's lines
    keep their order."""
    queue = SendQueue(gap=10, clock=Clock(), answer_every=4)
    for k in range(40):
        queue.push(OutLine(f"PRIVMSG #t :game {k}", Priority.GAME))
    queue.push(OutLine("NOTICE stranger :help", Priority.OTHER, key="answer:stranger:help"))
    queue.push(OutLine("NOTICE alice :stats", Priority.SEATED, key="answer:alice:stats"))
    sent = texts(queue)
    assert sent.index("NOTICE alice :stats") <= 3 and sent.index("NOTICE stranger :help") <= 7
    assert [t for t in sent if t.startswith("PRIVMSG")] == [f"PRIVMSG #t :game {k}" for k in range(40)]
    # Nothing but game lines: the share takes nothing from them.
    plain = SendQueue(gap=10, clock=Clock(), answer_every=4)
    for k in range(5):
        plain.push(OutLine(f"game {k}", Priority.GAME))
    assert texts(plain) == [f"game {k}" for k in range(5)]


def test_answers_of_different_kinds_never_replace_each_other() -> None:
    """A seated player's !stats answer and a later out-of-turn notice to her have
    different keys: both leave (the notice used to replace the answer); a newer answer of
    the same kind still replaces the older one."""
    queue = SendQueue(gap=10, clock=Clock())
    queue.push(OutLine("PRIVMSG #t :game", Priority.GAME))
    queue.push(OutLine("NOTICE alice :bankroll 900", Priority.SEATED, key="answer:alice:stats"))
    queue.push(OutLine("NOTICE alice :not your turn", Priority.SEATED, key="answer:alice:turn"))
    queue.push(OutLine("NOTICE alice :bankroll 890", Priority.SEATED, key="answer:alice:stats"))
    assert texts(queue) == ["PRIVMSG #t :game", "NOTICE alice :bankroll 890", "NOTICE alice :not your turn"]


def test_a_withdrawn_line_never_leaves() -> None:
    """An out-of-turn notice still queued when the turn comes is withdrawn; the others stay."""
    queue = SendQueue(gap=10, clock=Clock())
    queue.push(OutLine("NOTICE alice :not your turn, bob is to act", Priority.SEATED, key="answer:alice:turn"))
    queue.push(OutLine("NOTICE bob :help", Priority.OTHER, key="answer:bob:help"))
    assert queue.withdraw("answer:alice:turn") and not queue.withdraw("answer:alice:turn")
    assert len(queue) == 1 and queue.withdrawn == 1
    assert texts(queue) == ["NOTICE bob :help"]
