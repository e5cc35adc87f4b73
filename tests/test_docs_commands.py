"""Every `poki ...` command the README, the docs and the code's docstrings and help texts
name exists in the command line's argument parser: the sub-command (and its own
sub-command, as in `poki irc play`) and every `--option` written after it. Commands are
read from code only (inline `code` spans and fenced blocks of the Markdown; backticked
spans of the Python sources), so prose that says "poki" is not taken for a command.
"""
from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

from agent.cli import build_parser

ROOT = Path(__file__).resolve().parent.parent
MARKDOWN = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
SOURCES = sorted(p for package in ("agent", "connectors", "db", "evaluator_pyx")
                 for p in (ROOT / package).rglob("*.py") if not p.name.startswith("_compiled"))

FENCE = re.compile(r"^```[^\n]*\n(.*?)^```", re.M | re.S)
INLINE = re.compile(r"``?([^`\n]+)``?")
# `poki` where a command starts: at the start of a line or span (after a prompt `$ ` or a
# path such as `.venv/bin/`), then its words up to the end of the command. So a nick in a
# dialect line (`Hand 3: poki calls 10.`), a player spec (`poki match poki mc`) or a path
# (poki.sqlite) is not taken for one.
COMMAND = re.compile(r"^[ \t]*(?:\$ )?(?:[^\s`]*/)?poki((?:[ \t]+(?:\\\n\s*)?[^\s`|;&#)]+)+)", re.M)


def code_spans(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".md":
        blocks = FENCE.findall(text)
        rest = FENCE.sub("", text)
        return blocks + INLINE.findall(rest)
    return INLINE.findall(text)


def commands(path: Path) -> list[list[str]]:
    """The word lists of every `poki ...` command in a file's code."""
    found = []
    for span in code_spans(path):
        for match in COMMAND.finditer(span):
            words = match.group(1).replace("\\\n", " ").split()
            if words and re.fullmatch(r"[a-z][a-z-]*", words[0]):
                found.append(words)
    return found


def subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def problems(words: list[str], parser: argparse.ArgumentParser) -> list[str]:
    """What of one command the parser does not know."""
    path = ["poki"]
    for word in words:
        if word.startswith("--"):
            option = word.split("=", 1)[0]
            if option not in parser._option_string_actions:
                return [f"{' '.join(path)} has no option {option}"]
            continue
        if word.startswith("-"):
            continue
        choices = subparsers(parser)
        if not choices:
            continue  # a positional argument or an option's value
        if word not in choices:
            return [f"{' '.join(path)} has no sub-command {word!r}"]
        parser = choices[word]
        path.append(word)
    return []


@pytest.fixture(scope="module")
def parser() -> argparse.ArgumentParser:
    return build_parser()


def test_the_reader_finds_commands_and_the_checker_refuses_unknown_ones(parser) -> None:
    """The extraction sees commands in fences and spans, and an unknown sub-command or
    option is reported (so the tests below can fail)."""
    assert commands(ROOT / "README.md"), "no `poki ...` command found in README.md"
    assert problems(["predict-tune"], parser) == ["poki has no sub-command 'predict-tune'"]
    assert problems(["irc", "dance"], parser) == ["poki irc has no sub-command 'dance'"]
    assert problems(["match", "rr", "--no-such-option"], parser) == ["poki match has no option --no-such-option"]
    assert problems(["match", "rr", "call", "--deals", "1000", "--seed", "2001"], parser) == []


@pytest.mark.parametrize("path", MARKDOWN + SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_command_named_exists(path: Path, parser) -> None:
    found = [(" ".join(words), problem) for words in commands(path) for problem in problems(words, parser)]
    assert not found, f"{path.relative_to(ROOT)} names commands the parser lacks: {found}"
