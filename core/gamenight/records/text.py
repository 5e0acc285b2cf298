"""The records' figures as Rich text, for ``gamenight records`` and the records screen (no Textual here)."""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from rich import box
from rich.cells import cell_len
from rich.table import Table
from rich.text import Text

from gamenight.i18n import _, translator
from gamenight.records.stats import GameStats
from gamenight.text import safe_text

__all__ = ["json_text", "past_game_text", "records_text", "top_ten_text"]

# ``names`` below maps a game's default seat names, recorded as their English ids, to
# today's language (a game recorded in English shows "ウルド" in a Japanese room).


def _percent(value: float) -> str:
    return f"{value:.0%}"


def score_text(value: float | None) -> str:
    """A score as the records show it: whole numbers bare, others to one decimal, none as a dash."""
    return "–" if value is None else f"{value:g}" if value == int(value) else f"{value:.1f}"


def rating_text(mu: float, sigma: float) -> str:
    """A rating with its uncertainty (openskill's μ ± σ)."""
    return f"{mu:.1f} ± {sigma:.1f}"


def game_labels(registry: Any, game_id: str) -> tuple[str, dict[str, str]]:
    """``game_id``'s title and its bots' labels in today's language (the id itself for a game not
    installed, made safe to print: it was read from a records file)."""
    game = registry.games.get(game_id)
    if game is None:
        return safe_text(game_id, 32), {}
    t = translator(game_id)
    return t(game.title), {bot.id: t(bot.label) for bot in game.bots}


def records_text(
    entry: GameStats, title: str | None, bot_labels: dict[str, str], names: dict[str, str] | None = None
) -> list[Any]:
    """One game's figures as Rich renderables: a heading, the player's figures, a table of bots, the top ten."""
    heading = Text(safe_text(title or entry.game, 80), style="bold")
    recorded = _("1 game recorded") if entry.records == 1 else _("{count} games recorded", count=entry.records)
    heading.append(f"  {recorded}", style="dim")
    blocks: list[Any] = [heading]
    if entry.player is not None:
        low, high = entry.interval
        lines = [
            _(
                "{player}: played {played}, won {won} ({rate}; 95% {low}–{high})",
                player=safe_text((names or {}).get(entry.player, entry.player), 40),
                played=entry.played,
                won=f"{entry.won:g}",
                rate=_percent(entry.win_rate),
                low=_percent(low),
                high=_percent(high),
            ),
            _(
                "Scores: best {best}, mean {mean}, recent {recent}",
                best=score_text(entry.best),
                mean=score_text(entry.mean),
                recent=" ".join(score_text(score) for score in entry.recent) or "–",
            ),
        ]
        if entry.streak[1]:
            lines.append(
                _("Streak: won {count} in a row", count=entry.streak[1])
                if entry.streak[0] == "won"
                else _("Streak: lost {count} in a row", count=entry.streak[1])
            )
        if entry.rating is not None:
            lines.append(_("Rating: {rating}", rating=rating_text(*entry.rating)))
        blocks.append(Text("\n".join(lines)))
    if entry.versus:
        table = _table(_("Against each bot"))
        _headed_column(table, _("Bot"))
        for header in (_("Won/played"), _("Win rate (95%)"), _("Bot rating")):
            _headed_column(table, header, justify="right")
        for versus in entry.versus:
            low, high = versus.interval
            table.add_row(
                Text(safe_text(bot_labels.get(versus.bot, versus.bot), 40)),
                f"{versus.won:g}/{versus.games}",
                f"{_percent(versus.win_rate)} ({low:.0%}–{high:.0%})".replace("%–", "–"),
                "–" if versus.rating is None else rating_text(*versus.rating),
            )
        blocks.append(table)
    rated_bots = [(name, mu, sigma, games) for kind, name, mu, sigma, games in entry.ratings if kind == "bot"]
    if rated_bots:
        table = _table(_("Bots' ratings"))
        _headed_column(table, _("Bot"))
        _headed_column(table, _("Rating (± 1σ)"), justify="right")
        _headed_column(table, _("Games rated"), justify="right")
        for bot, mu, sigma, games in rated_bots:
            table.add_row(Text(safe_text(bot_labels.get(bot, bot), 40)), rating_text(mu, sigma), str(games))
        blocks.append(table)
    if entry.high_scores:
        blocks.append(Text(top_ten_text(entry.high_scores, names)))
    return blocks


def _table(title: str) -> Table:
    """A titled table of the records screen's figures (one look for all of them)."""
    return Table(
        title=title, title_justify="left", box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, padding=(0, 1)
    )


def top_ten_text(high_scores: Sequence[Any], names: dict[str, str] | None = None) -> str:
    """The best scores the way BSD's games print their score file."""
    lines = [_("Top Ten"), _("Rank  Score  Name              Date")]
    for high in high_scores:
        name = safe_text((names or {}).get(high.name, high.name), 16)
        name += " " * max(0, 16 - cell_len(name))
        when = datetime.fromtimestamp(high.finished).strftime("%Y-%m-%d")
        lines.append(f"{high.rank:>4}  {score_text(high.score):>5}  {name}  {when}")
    return "\n".join(lines)


def _headed_column(table: Table, header: str, **options: Any) -> None:
    """A column at least as wide as its header, so the header is never split mid-word."""
    table.add_column(header, min_width=cell_len(header), overflow="fold", **options)


def past_game_text(record: Any, bot_labels: dict[str, str], names: dict[str, str] | None = None) -> Text:
    """One line of the list of past games: when, then each seat's name and score, the winners in bold;
    "(coached)" after the time of a game in which the coach advised."""
    text = Text(datetime.fromtimestamp(record.finished).strftime("%Y-%m-%d %H:%M"), no_wrap=True, overflow="ellipsis")
    if getattr(record, "coached", False):  # the coach advised during it: no rating, no high score
        text.append(" ")
        text.append(_("(coached)"), style="italic")
    for seat in record.seats:
        name = safe_text((names or {}).get(seat.name, seat.name), 16)
        if seat.bot is not None:
            name = f"{name} ({safe_text(bot_labels.get(seat.bot, seat.bot), 16)})"
        text.append("  ")
        text.append(f"{name} {score_text(seat.score)}", style="bold" if seat.place == 1 else "")
    return text


_ESCAPED = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
"""What :func:`gamenight.text.safe_text` drops from text: controls (C0, DEL, C1 such as U+009B, which a
terminal reads as CSI), format and bidi characters (U+202E), private use, unassigned, separators."""


def json_text(data: Any) -> str:
    """``data`` as one line of JSON that is safe to print: every character a terminal could act on is
    written as a ``\\uXXXX`` escape.

    Escaped rather than dropped (as the text output drops them): JSON is read by programs, which get
    back exactly what the records hold (``json.loads`` undoes the escapes), while the terminal only
    ever sees ASCII for them.  Everything else -- a Japanese name -- stays as it is.
    """

    def escape(ch: str) -> str:
        if unicodedata.category(ch) not in _ESCAPED:
            return ch
        units = ch.encode("utf-16-be")
        return "".join(f"\\u{int.from_bytes(units[i : i + 2], 'big'):04x}" for i in range(0, len(units), 2))

    # json.dumps leaves no raw character outside a string, so each one escaped here is inside one.
    return "".join(escape(ch) for ch in json.dumps(data, ensure_ascii=False))
