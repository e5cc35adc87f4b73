"""The opponent report as files: ``index.html`` (one page, works offline: CSS, JavaScript
and SVG charts inline), ``players.csv`` and ``report.json``, written into a temporary
folder beside the target and then put in its place, so a reader sees the old report or
the new one and never half of one. Only a folder that holds a report of ours and nothing
else is ever replaced, and never one that holds the database (agent.output_folder).

The page is a Jinja2 template (templates/report.html.j2) with autoescaping: player names
come from the outside world (IRC nicknames) and are never trusted as HTML.
"""
from __future__ import annotations

import csv
import datetime as _dt
import json
import os
import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jinja2

from agent.output_folder import OutputFolderError, check_replaceable, replace_folder
from db.reads import hand_rows, open_readonly

from .hands import HandReplay, replay
from .situations import POSITION_GROUPS
from .stats import (
    PROPORTIONS,
    SESSION_GAP,
    Factor,
    Figure,
    Mean,
    PlayerStats,
    ReportData,
    ReportDataError,
    StyleThresholds,
    compute,
)

TEMPLATES = Path(__file__).resolve().parent / "templates"
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
REPORT_KIND = "report"  # the kind of folder a report is (agent.output_folder)


class ReportWriteError(Exception):
    """The report folder cannot be written; the message names it and says why."""


@dataclass(frozen=True)
class ReportOptions:
    """What to report on and how (the CLI's options over config [report])."""

    network: str | None = None
    since: float | None = None  # Unix time: hands started at or after it
    players: int | None = None  # the most-seen opponents only; None: all
    hero: str = "poki*"  # the players we are (glob patterns, comma-separated)
    # Also the players the hands' sources were written for (an online room's hero); off
    # when --hero names who we are.
    recorded_heroes: bool = True
    charts: int = 15  # opponents (most-seen first) whose charts are drawn
    session_gap: float = SESSION_GAP  # seconds between a player's hands that end a session
    thresholds: StyleThresholds = field(default_factory=StyleThresholds)


def options_from_config(report: Any, **overrides: Any) -> ReportOptions:
    """ReportOptions from a config's [report] section (agent.config.ReportConfig), with
    the given fields overridden (None leaves the config's value)."""
    base = ReportOptions(
        hero=report.hero, charts=report.charts,
        thresholds=StyleThresholds(loose_vpip=report.loose_vpip, aggressive_af=report.aggressive_af,
                                   min_hands=report.style_min_hands, min_sample=report.min_sample),
    )
    from dataclasses import replace

    return replace(base, **{k: v for k, v in overrides.items() if v is not None})


@dataclass(frozen=True)
class Links:
    """Where the pages' links lead: the file report's files (relative, from a page
    ``depth`` folders below the report's own), or the served report's addresses."""

    served: bool
    depth: int = 0

    def _up(self) -> str:
        return "../" * self.depth

    def index(self) -> str:
        return "/" if self.served else f"{self._up()}index.html"

    def player(self, pid: int) -> str:
        return f"/player/{pid}" if self.served else f"{self._up()}index.html#p{pid}"

    def hands_anchor(self, pid: int) -> str:
        return "hands" if self.served else f"hands-p{pid}"

    def hands_of(self, pid: int) -> str:
        return f"/player/{pid}#hands" if self.served else f"{self._up()}index.html#hands-p{pid}"

    def hand(self, seq: int) -> str:
        return f"/hand/{seq}" if self.served else f"{self._up()}{HANDS_FOLDER}/{seq}.html"


HANDS_FOLDER = "hands"  # the file report's replayer pages: hands/SEQ.html
FILE_LINKS = Links(served=False)
FILE_LINKS_BELOW = Links(served=False, depth=1)  # from a page in hands/


@dataclass
class ReportResult:
    out: Path
    index: Path
    players: int
    hands: int
    seconds: float
    bad_actions: int = 0


# ------------------------------------------------------------------------------ formatting


def _pct(x: float | None) -> str:
    return "" if x is None else f"{100 * x:.0f}%"


def _cell(fig: Figure, min_sample: int) -> dict[str, Any]:
    """How a proportion shows in a table cell: the figure with its sample, or the
    interval it is known to lie in when the sample is small, or a dash."""
    lo, hi = fig.interval
    v = fig.value
    if v is None:
        return {"text": "–", "sort": "", "cls": "na", "title": "no opportunity yet"}
    title = f"{fig.done}/{fig.n}; 95% interval {100 * lo:.0f}–{100 * hi:.0f}%"
    if fig.n < min_sample:
        return {"text": f"{100 * lo:.0f}–{100 * hi:.0f}%", "sort": f"{v:.4f}", "cls": "few", "n": fig.n,
                "title": f"only {fig.n} opportunities: {title}"}
    return {"text": f"{100 * v:.0f}%", "sort": f"{v:.4f}", "cls": "", "n": fig.n, "title": title}


def _af_cell(af: Factor, min_sample: int) -> dict[str, Any]:
    lo, hi = af.interval
    hi_text = "∞" if hi is None else f"{hi:.1f}"
    if af.n == 0:
        return {"text": "–", "sort": "", "cls": "na", "title": "no post-flop bets, raises or calls yet"}
    title = f"{af.aggressive} bets+raises / {af.calls} calls; 95% interval {lo:.1f}–{hi_text}"
    if af.value is None:
        # No calls: the factor is unbounded, which says little; show what it rests on.
        return {"text": f"no calls ({af.aggressive} b/r)", "sort": "", "cls": "few", "n": af.n, "title": title}
    if af.n < min_sample:
        return {"text": f"{lo:.1f}–{hi_text}", "sort": f"{af.value:.4f}", "cls": "few", "n": af.n,
                "title": f"only {af.n} actions: {title}"}
    return {"text": f"{af.value:.2f}", "sort": f"{af.value:.4f}", "cls": "", "n": af.n, "title": title}


def _mean_cell(m: Mean | None, have_us: bool, min_sample: int) -> dict[str, Any]:
    if m is None or m.value is None:
        return {"text": "–", "sort": "", "cls": "na",
                "title": "no hands with us" if have_us else "we are not in these hands"}
    ci = m.interval
    title = f"won from (+) / lost to (-) us over {m.n} hands shared" + (
        f"; 95% interval {ci[0]:+.2f} to {ci[1]:+.2f} sb/hand" if ci else "")
    cls = "few" if m.n < min_sample else ("good" if m.value > 0 else "bad")
    return {"text": f"{m.value:+.2f}", "sort": f"{m.value:.4f}", "cls": cls, "n": m.n, "title": title}


def _when(t: float | None) -> str:
    if t is None:
        return "unknown"
    return _dt.datetime.fromtimestamp(t, _dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")


def _environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES)),
        autoescape=jinja2.select_autoescape(["html", "j2"], default=True),
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=jinja2.StrictUndefined,
    )
    env.filters["pct"] = _pct
    return env


def player_details(p: PlayerStats, data: ReportData, options: ReportOptions, chart: str | None,
                   with_hands: bool) -> dict[str, Any]:
    """What a player's section (templates/_player.html.j2) shows; ``with_hands``: his list
    of hands, with links to the replayer."""
    min_sample = options.thresholds.min_sample
    have_us = bool(data.heroes)
    stat_rows = []
    for key, (label, short, sample) in PROPORTIONS.items():
        fig = p.figures[key]
        lo, hi = fig.interval
        stat_rows.append({"label": label, "short": short, "sample": sample, "cell": _cell(fig, min_sample),
                          "done": fig.done, "n": fig.n,
                          "interval": "" if fig.n == 0 else f"{100 * lo:.0f}–{100 * hi:.0f}%"})
    af_lo, af_hi = p.af.interval  # no upper bound (None) without a call
    af_interval = "" if p.af.n == 0 else f"{af_lo:.2f}–{'∞' if af_hi is None else f'{af_hi:.2f}'}"
    ctx_rows = []
    for c in p.contexts:
        dn, ln = sum(c["decayed"]), sum(c["lifetime"])
        ctx_rows.append({
            "name": c["name"], "decayed_n": dn, "lifetime_n": ln,
            "decayed": [None if dn <= 0 else x / dn for x in c["decayed"]],
            "lifetime": [None if ln <= 0 else x / ln for x in c["lifetime"]],
            "few_decayed": dn < min_sample, "few_lifetime": ln < min_sample,
        })
    positions = [{"name": name, "hands": v["hands"], "vpip": _cell(v["vpip"], min_sample),
                  "pfr": _cell(v["pfr"], min_sample)} for name, v in p.positions.items()]
    sessions = [{**x, "when": _when(x["start"])} for x in p.sessions]
    hands = [{"seq": h.seq, "when": _when(h.started_at), "net_sb": h.net_sb, "vs_us_sb": h.vs_us_sb}
             for h in p.hand_list] if with_hands else []
    return {"p": p, "stats": stat_rows, "af": _af_cell(p.af, min_sample), "af_interval": af_interval,
            "vs": _mean_cell(p.vs_us, have_us, min_sample), "contexts": ctx_rows, "chart": chart,
            "positions": positions, "sessions": sessions, "hands": hands}


def render_html(data: ReportData, options: ReportOptions, charts: dict[int, str], generated: float, *,
                links: Links = FILE_LINKS, version: str = "", poll_seconds: float = 0.0) -> str:
    """The page as a string: the file report's (each charted opponent's section lists his
    hands, whose replayer pages write_report writes), or with ``links.served`` the served
    report's front page, which follows the database (``version``, asked every
    ``poll_seconds``) and links each opponent to his own page."""
    min_sample = options.thresholds.min_sample
    have_us = bool(data.heroes)
    rows = []
    for p in data.players:
        rows.append({
            "p": p,
            "cells": [_cell(p.figures[k], min_sample) for k in TABLE_COLUMNS],
            "af": _af_cell(p.af, min_sample),
            "vs": _mean_cell(p.vs_us, have_us, min_sample),
        })
    details = []
    charted = set(data.charted)
    by_pid = {p.pid: p for p in data.players}
    if not links.served:  # the served front page has no sections: each opponent has his page
        for p in [by_pid[c] for c in data.charted] + [p for p in data.players if p.pid not in charted]:
            details.append(player_details(p, data, options, charts.get(p.pid), with_hands=p.pid in charted))
    template = _environment().get_template("report.html.j2")
    return template.render(
        data=data, options=options, rows=rows, details=details, have_us=have_us,
        columns=[PROPORTIONS[k][1] for k in TABLE_COLUMNS], column_help=[PROPORTIONS[k][0] for k in TABLE_COLUMNS],
        generated=_when(generated), first=_when(data.first_hand_at), last=_when(data.last_hand_at),
        min_sample=min_sample, charted=len(data.charted),
        since=None if options.since is None else _when(options.since),
        us=None if data.us is None or not data.us.hands else {
            "hands": data.us.hands, "net": data.us.net_chips, "net_sb": data.us.net_sb, "rake": data.us.rake_chips,
            "flows": data.us.flows_chips},
        us_tournament=None if data.us_tournament is None or not data.us_tournament.hands else {
            "hands": data.us_tournament.hands, "net": data.us_tournament.net_chips,
            "net_sb": data.us_tournament.net_sb, "flows": data.us_tournament.flows_chips},
        session_gap_minutes=f"{options.session_gap / 60:g}",
        links=links, live=links.served, version=version, poll_seconds=poll_seconds,
    )


def render_player(data: ReportData, options: ReportOptions, p: PlayerStats, chart: str | None, *,
                  version: str, poll_seconds: float) -> str:
    """The served report's page of one opponent: his statistics, charts and hands."""
    return _environment().get_template("player.html.j2").render(
        d=player_details(p, data, options, chart, with_hands=True), data=data,
        links=Links(served=True), version=version, poll_seconds=poll_seconds)


def hand_page(conn: Any, path: str, seq: int, data: ReportData, links: Links) -> str | None:
    """The replayer's page of the stored hand ``seq`` (None: no such hand), its players
    linked when the report shows them. ValueError for a hand whose rows cannot be a hand."""
    rows = hand_rows(conn, seq, path)
    if rows is None:
        return None
    try:
        hand = replay(rows, set(data.hero_ids))
    except ValueError as exc:  # a damaged or hand-edited file: the page says what is wrong
        return _environment().get_template("hand_error.html.j2").render(seq=seq, reason=str(exc), links=links)
    return render_hand(hand, links, {p.pid for p in data.players})


def render_hand(hand: HandReplay, links: Links, listed: set[int]) -> str:
    """A hand's replayer page; ``listed``: the players with a page (or section) to link to."""
    return _environment().get_template("hand.html.j2").render(h=hand, links=links, when=_when(hand.hand.started_at),
                                                              listed=listed)


# The proportions shown as columns of the opponents' table (all are in each section).
TABLE_COLUMNS = ("vpip", "pfr", "three_bet", "steal", "fold_steal", "agg_freq", "wtsd", "wsd", "wwsf", "cbet",
                 "fold_cbet")


def _safe_csv(text: str) -> str:
    """A name a spreadsheet would run as a formula is prefixed with a quote."""
    return "'" + text if text.startswith(_FORMULA_START) else text


def write_csv(data: ReportData, path: Path) -> None:
    header = ["player", "id", "networks", "hands", "style"]
    for key in PROPORTIONS:
        header += [key, f"{key}_n", f"{key}_low", f"{key}_high"]
    header += ["aggression_factor", "aggression_factor_n", "vs_us_sb_per_hand", "vs_us_hands", "vs_us_chips"]
    for group in POSITION_GROUPS:
        header += [f"{group}_hands", f"{group}_vpip", f"{group}_pfr"]
    with path.open("w", newline="", encoding="utf-8") as handle:
        w = csv.writer(handle)
        w.writerow(header)
        for p in data.players:
            row: list[Any] = [_safe_csv(p.name), p.pid, " ".join(p.networks), p.hands, p.style]
            for key in PROPORTIONS:
                f = p.figures[key]
                lo, hi = f.interval
                row += ["" if f.value is None else f"{f.value:.4f}", f.n, f"{lo:.4f}", f"{hi:.4f}"]
            row += ["" if p.af.value is None else f"{p.af.value:.4f}", p.af.n,
                    "" if p.vs_us is None else f"{p.vs_us.value:.4f}", 0 if p.vs_us is None else p.vs_us.n,
                    "" if p.vs_us_chips is None else f"{p.vs_us_chips:.2f}"]
            for group in POSITION_GROUPS:
                g = p.positions.get(group)
                if g is None:
                    row += [0, "", ""]
                else:
                    row += [g["hands"], "" if g["vpip"].value is None else f"{g['vpip'].value:.4f}",
                            "" if g["pfr"].value is None else f"{g['pfr'].value:.4f}"]
            w.writerow(row)


def report_json(data: ReportData, options: ReportOptions, generated: float) -> dict[str, Any]:
    return {
        "generated_at": generated,
        "database": data.path,
        "hands": data.hands,
        "hands_by_network": data.networks,
        "hands_by_play": data.play,
        "first_hand_at": data.first_hand_at,
        "last_hand_at": data.last_hand_at,
        "filters": data.filters,
        "hero_pattern": data.hero_pattern,
        "heroes_found": data.heroes,
        "heroes_recorded": data.recorded_heroes,
        "us": None if data.us is None else data.us.to_json(),
        "us_tournament": None if data.us_tournament is None else data.us_tournament.to_json(),
        "opponents_total": data.opponents_total,
        "action_rows_left_out": data.bad_actions,
        "model_half_life_hands": data.half_life,
        "thresholds": {"loose_vpip": options.thresholds.loose_vpip,
                       "aggressive_af": options.thresholds.aggressive_af,
                       "style_min_hands": options.thresholds.min_hands,
                       "min_sample": options.thresholds.min_sample},
        "definitions": {k: {"label": v[0], "sample": v[2]} for k, v in PROPORTIONS.items()},
        "players": [p.to_json() for p in data.players],
    }


# ------------------------------------------------------------------------------ writing


def write_report(
    db_path: str | Path,
    out: str | Path,
    options: ReportOptions = ReportOptions(),
    *,
    progress: Callable[[str], None] | None = None,
) -> ReportResult:
    """Compute the statistics of the database and write the report folder ``out``
    (index.html, players.csv, report.json), replacing any previous report whole.
    Raises stats.ReportDataError for a missing or foreign database, ReportWriteError when
    the folder cannot be written or is not ours to replace: a folder holding anything but
    a report of ours, or holding the database (agent.output_folder)."""
    t0 = time.perf_counter()
    step = progress or (lambda _: None)
    shown = out
    try:
        # Refused before any work: a folder that is not a report of ours, or that holds
        # the database, is never replaced (agent.output_folder).
        out = check_replaceable(out, REPORT_KIND, protect=[db_path])
    except OutputFolderError as exc:
        raise ReportWriteError(f"will not write the report: {exc}") from None
    conn = open_readonly(str(db_path))
    try:
        data = compute(conn, str(db_path), network=options.network, since=options.since,
                       players=options.players, hero=options.hero, recorded_heroes=options.recorded_heroes,
                       thresholds=options.thresholds, timelines_for=options.charts,
                       session_gap=options.session_gap, progress=step)
        # The replayer's pages of the hands the charted opponents' sections list.
        listed = sorted({h.seq for p in data.players if p.pid in set(data.charted) for h in p.hand_list})
        step("hands")
        hand_pages = {}
        for seq in listed:
            page = hand_page(conn, str(db_path), seq, data, FILE_LINKS_BELOW)
            if page is None:  # hands are never deleted: a file changed under us is not ours to guess about
                raise ReportDataError(f"{db_path}: hand {seq} is gone while the report was being written")
            hand_pages[seq] = page
    finally:
        conn.close()
    from .charts import player_chart

    charts = {}
    have_us = bool(data.heroes)
    by_pid = {p.pid: p for p in data.players}
    for pid in data.charted:
        p = by_pid[pid]
        step(f"chart {p.name}")
        charts[pid] = player_chart(p, have_us)
    generated = time.time()
    step("page")
    html = render_html(data, options, charts, generated)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.tmp-", dir=str(out.parent)))
    except OSError as exc:
        raise ReportWriteError(f"cannot write the report into {out}: {exc.strerror or exc} ({exc.filename or out.parent})") from None
    try:
        (tmp / "index.html").write_text(html, encoding="utf-8")
        (tmp / HANDS_FOLDER).mkdir()
        for seq, page in hand_pages.items():
            (tmp / HANDS_FOLDER / f"{seq}.html").write_text(page, encoding="utf-8")
        write_csv(data, tmp / "players.csv")
        # Compact: the C encoder (an indent makes json use its Python one, a second or more here).
        (tmp / "report.json").write_text(json.dumps(report_json(data, options, generated), separators=(",", ":")),
                                          encoding="utf-8")
        os.chmod(tmp, 0o755)  # mkdtemp makes it private; a report is meant to be read
        # Checked again just before the swap: the folder may have changed meanwhile.
        check_replaceable(out, REPORT_KIND, protect=[db_path])
        replace_folder(tmp, out, REPORT_KIND)
    except OutputFolderError as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        raise ReportWriteError(f"will not write the report: {exc}") from None
    except OSError as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        raise ReportWriteError(f"cannot write the report into {shown}: {exc.strerror or exc}") from None
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return ReportResult(out=Path(shown), index=Path(shown) / "index.html", players=len(data.players), hands=data.hands,
                        seconds=time.perf_counter() - t0, bad_actions=data.bad_actions)
