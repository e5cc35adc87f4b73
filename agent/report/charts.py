"""The report's charts, drawn with matplotlib as SVG text to embed in the page.

One figure per charted opponent with four panels: running VPIP, PFR and post-flop
aggression frequency as the player's hands accumulate; the same per session; the
player's action mix on each street; our cumulative result against the player (won from
/ lost to us, pot by pot). Figures are built with the object API
(no pyplot state), so charts can be drawn from a scheduler's thread.
"""
from __future__ import annotations

import io
import re
from typing import TYPE_CHECKING, Any

import matplotlib

matplotlib.use("Agg")  # no display: the report is written by a command or a background job
from matplotlib.figure import Figure  # after matplotlib.use('Agg')

from .stats import ACTION_KINDS, ROUNDS, PlayerStats  # after matplotlib.use('Agg')

if TYPE_CHECKING:
    from matplotlib.typing import RcKeyType  # the rcParams' names

_KIND_LABEL = {"f": "fold", "k": "check", "c": "call", "b": "bet", "r": "raise"}
_KIND_COLOUR = {"f": "#9e9e9e", "k": "#90caf9", "c": "#1e88e5", "b": "#fb8c00", "r": "#e53935"}
_RC: dict[RcKeyType, Any] = {
    "svg.fonttype": "none",  # text stays text: smaller files, the page's font
    "font.size": 8,
    "axes.spines.top": False,
    "axes.spines.right": False,
}
_HEADER = re.compile(r"^.*?(<svg\b)", re.S)


def player_chart(p: PlayerStats, have_us: bool) -> str:
    """The SVG (an <svg> element, no XML header) of one opponent's three panels."""
    # Ids inside the SVG (clip paths) are salted per player: unique on the page, and the
    # same on every run.
    with matplotlib.rc_context({**_RC, "svg.hashsalt": f"poki-report-{p.pid}"}):
        fig = Figure(figsize=(14, 2.7))
        axes = fig.subplots(1, 4)
        fig.subplots_adjust(left=0.04, right=0.99, bottom=0.2, top=0.86, wspace=0.42)
        _over_time(axes[0], p)
        _by_session(axes[1], p)
        _action_mix(axes[2], p)
        _vs_us(axes[3], p, have_us)
        buf = io.StringIO()
        fig.savefig(buf, format="svg")
    svg = _HEADER.sub(r"\1", buf.getvalue(), count=1)
    # A role and a title so the chart is announced as one image.
    return svg.replace("<svg ", f'<svg role="img" aria-label="charts of {_attr(p.name)}" class="chart" ', 1)


def _attr(text: str) -> str:
    return text.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;").replace(">", "&gt;")


def _over_time(ax, p: PlayerStats) -> None:
    t = p.timeline
    ax.set_title("stats as hands accumulate", loc="left")
    if not t or not t.get("hands"):
        ax.text(0.5, 0.5, "no hands", ha="center", va="center", transform=ax.transAxes)
        return
    x = t["hands"]
    for key, label, colour in (("vpip", "VPIP", "#1e88e5"), ("pfr", "PFR", "#e53935"),
                               ("agg_freq", "AFq", "#fb8c00")):
        ax.plot(x, [100 * v for v in t[key]], label=label, color=colour, linewidth=1.2)
    ax.set_xlabel("player's hands")
    ax.set_ylabel("%")
    ax.set_ylim(0, 100)
    ax.legend(frameon=False, ncol=3, loc="upper right")


def _by_session(ax, p: PlayerStats) -> None:
    ax.set_title("stats per session", loc="left")
    sessions = p.sessions
    if not sessions:
        ax.text(0.5, 0.5, "no sessions", ha="center", va="center", transform=ax.transAxes)
        return
    x = list(range(1, len(sessions) + 1))
    for key, label, colour in (("vpip", "VPIP", "#1e88e5"), ("pfr", "PFR", "#e53935"),
                               ("agg_freq", "AFq", "#fb8c00")):
        ys = [float("nan") if s[key] is None else 100 * s[key] for s in sessions]
        ax.plot(x, ys, label=label, color=colour, linewidth=1.2, marker="o", markersize=2.5)
    ax.set_xlabel("session (n hands each: hover the table)")
    ax.set_ylabel("%")
    ax.set_ylim(0, 100)
    ax.legend(frameon=False, ncol=3, loc="upper right")


def _action_mix(ax, p: PlayerStats) -> None:
    ax.set_title("action mix per street", loc="left")
    totals = [sum(p.actions[r].values()) for r in ROUNDS]
    left = [0.0] * len(ROUNDS)
    ys = list(range(len(ROUNDS)))[::-1]
    for kind in ACTION_KINDS:
        share = [100.0 * p.actions[r][kind] / t if t else 0.0 for r, t in zip(ROUNDS, totals)]
        ax.barh(ys, share, left=left, color=_KIND_COLOUR[kind], label=_KIND_LABEL[kind], height=0.6)
        left = [a + b for a, b in zip(left, share)]
    ax.set_yticks(ys, [f"{r} ({t})" for r, t in zip(ROUNDS, totals)])
    ax.set_xlim(0, 100)
    ax.set_xlabel("% of the street's actions (n)")
    ax.legend(frameon=False, ncol=5, loc="upper center", bbox_to_anchor=(0.5, -0.2), fontsize=7)


def _vs_us(ax, p: PlayerStats, have_us: bool) -> None:
    ax.set_title("our result against them", loc="left")
    curve = p.vs_us_curve
    if not curve:
        msg = "no hands played with us" if have_us else "we are not in these hands"
        ax.text(0.5, 0.5, msg, ha="center", va="center", transform=ax.transAxes)
        ax.set_axis_off()
        return
    ax.plot(range(1, len(curve) + 1), curve, color="#43a047", linewidth=1.2)
    ax.axhline(0, color="#999", linewidth=0.6)
    ax.set_xlabel("hands shared")
    ax.set_ylabel("won from them, small bets")
