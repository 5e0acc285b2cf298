"""The records screen: per game, the figures of ``gamenight records`` and the past games, newest first.

The database is read in a worker thread (its own connection), so a room with
a hundred thousand recorded games still answers keys while the figures come.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from rich.console import Group
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option
from textual_plotext import PlotextPlot

from gamenight.i18n import _, translator
from gamenight.screens.room import InTheRoom
from gamenight.text import safe_text
from gamenight.ui.bindings import translate_bindings
from gamenight.widgets.key_bar import KeyBar

__all__ = ["RecordsScreen"]

PAST_GAMES = 200
"""How many past games the list shows (newest first)."""
PLOTTED = 200
"""How many of the player's latest scores the plot shows."""


PLOT_COLOURS = ("cyan", "magenta", "yellow", "green")
"""The player's line, then each bot's mean (ANSI names: plotext and Rich draw them alike)."""


class ScorePlot(PlotextPlot):
    """Plotext's picture without the newline it ends with (one line more than the widget has), in the
    room's theme -- or, under an ANSI theme, in the terminal's own colours: an ANSI theme's colours
    have no RGB value, and plotext's "auto" theme drew its axes black on black there."""

    def on_mount(self) -> None:
        self._follow_theme()
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self._follow_theme())

    def _follow_theme(self) -> None:
        self.theme = "clear" if self.app.current_theme.ansi else "auto"

    def render(self):
        text = super().render()
        if isinstance(text, Text) and text.plain.endswith("\n"):
            text.right_crop(1)
        return text


class FiguresScroll(VerticalScroll):
    """The figures, scrolled; while more lies below the fold its bottom border says so (at
    80x24 the ratings and the top ten start below it)."""

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        self.show_hint()

    def on_resize(self) -> None:
        self.call_after_refresh(self.show_hint)

    def show_hint(self) -> None:
        below = self.max_scroll_y > 0 and round(self.scroll_y) < self.max_scroll_y
        self.border_subtitle = _("more below: Tab, ↓") if below else ""


class RecordsScreen(InTheRoom, Screen):
    """Choose a game on the left; its figures on the right, its past games below."""

    BINDINGS = [
        Binding("g", "plot", _("Plot"), tooltip=_("The player's scores over time, beside each bot's mean score")),
        Binding("o", "rating_plot", _("Rating plot"), tooltip=_("The player's rating over time, with its ± 1σ band")),
        Binding("r", "replay", _("Replay"), tooltip=_("Replay the past game chosen below (Enter on it does too)")),
        Binding("e", "review", _("Review"), tooltip=_("The coach's review of the past game chosen below")),
        Binding("escape,q", "app.pop_screen", _("Back")),
    ]

    DEFAULT_CSS = """
    RecordsScreen #records-title {
        dock: top; height: 1; background: $primary; color: $text; padding: 0 1; text-style: bold;
    }
    RecordsScreen #records-top { height: 1fr; }
    RecordsScreen #record-games { width: 22; height: 1fr; border: round $primary; border-title-color: $text; }
    RecordsScreen #figures {
        width: 1fr; height: 1fr; padding: 0 1; border: round $panel; border-subtitle-color: $text;
    }
    RecordsScreen #plot-pane { width: 1fr; height: 1fr; border: round $panel; display: none; }
    RecordsScreen #plot-legend { height: auto; padding: 0 1; }
    RecordsScreen #plot { height: 1fr; }
    RecordsScreen.plotting #plot-pane { display: block; }
    RecordsScreen.plotting #figures { display: none; }
    RecordsScreen #past {
        height: 8; border: round $panel; border-title-color: $text; text-wrap: nowrap; text-overflow: ellipsis;
    }
    """

    def __init__(self, game: str | None = None, path: Path | None = None) -> None:
        super().__init__()
        translate_bindings(self, _)
        self.wanted_game = game
        self.path = path
        self.figures: Any = None
        """The :class:`gamenight.records.stats.GameStats` shown (tests read it)."""
        self.past: list[Any] = []
        """The past games listed, newest first."""
        self.history: list[float] = []
        """The player's latest scores, oldest first (what the plot draws)."""
        self.means: list[tuple[str, float]] = []
        """Each bot's mean score at this game, highest first (the plot's reference lines)."""
        self.rating_history: list[tuple[float, float]] = []
        """The player's rating (mu, sigma) after each of their latest games, oldest first."""
        self.plot_kind = "scores"
        """What the plot shows: ``"scores"`` (g) or ``"rating"`` (o)."""
        self.loaded = False
        """True once the games list has been read."""
        self._shown_game: str | None = None

    def compose(self) -> ComposeResult:
        yield Static(_("Records"), id="records-title")
        with Horizontal(id="records-top"):
            games = OptionList(Option(_("Reading the records…"), disabled=True), id="record-games")
            games.border_title = _("Games")
            yield games
            with FiguresScroll(id="figures"):
                yield Static("", id="figures-text")
            with Vertical(id="plot-pane"):
                # The title and legend are Rich text: plotext counts a Japanese character as one cell.
                yield Static("", id="plot-legend")
                yield ScorePlot(id="plot")
        past = OptionList(id="past")
        past.border_title = _("Past games, newest first")
        yield past
        yield KeyBar()

    def on_mount(self) -> None:
        self.query_one("#record-games", OptionList).focus()
        self._read_games()

    @property
    def records_path(self) -> Path:
        if self.path is not None:
            return self.path
        return Path(self.app.records_path)

    def _labels(self, game_id: str) -> tuple[str, dict[str, str]]:
        """``game_id``'s title and its bots' labels (the id itself for a game not installed)."""
        from gamenight.records.text import game_labels

        return game_labels(self.app.registry, game_id)

    def _names(self, game_id: str) -> dict[str, str]:
        """``game_id``'s default seat names (English ids, as recorded) in today's language."""
        game = self.app.registry.games.get(game_id)
        t = translator(game_id)
        return {name: t(name) for name in game.seat_names} if game is not None else {}

    def _own_candidates(self, game_id: str) -> list[str]:
        """Who this room's person is at ``game_id``: in a hosted room, the name the server gave
        it (its shared games are recorded under it); then the config's first seat name (what a
        local game records for the person at the keyboard)."""
        names = []
        client = getattr(self.app, "tables", None)
        if client is not None and getattr(client, "name", None):
            names.append(client.name)
        config = getattr(self.app, "config", None)
        configured = config.configured_name(game_id, 0) if config is not None else None
        game = self.app.registry.games.get(game_id)
        if configured is not None:
            names.append(configured)
        elif game is not None and game.seat_names:
            names.append(game.seat_names[0])  # recorded by its English id
        return names

    def _own_name(self, store: Any, game: str) -> str | None:
        """The room's own person, where they have played ``game``; otherwise None: the person
        who played it most (:func:`gamenight.records.stats.game_stats`)."""
        for name in self._own_candidates(game):
            if store.person_totals(game, name) is not None:
                return name
        return None

    def _open(self):
        from gamenight.records.store import RecordsStore

        if not self.records_path.exists():
            return None
        return RecordsStore.open(self.records_path)

    @work(thread=True, exclusive=True, group="records-games", exit_on_error=False)
    def _read_games(self) -> None:
        """The games with records, and the figures of the first one shown, in one trip to the thread."""
        from gamenight.records.store import RecordsUnavailable

        try:
            store = self._open()
        except RecordsUnavailable as error:
            self.app.call_from_thread(self._show_games, [], str(error))
            return
        if store is None:
            self.app.call_from_thread(self._show_games, [], None)
            return
        try:
            games = store.games_played()
            first = self.wanted_game if self.wanted_game in games else (games[0] if games else None)
            shown = self._read(store, first) if first is not None else None
        except sqlite3.Error as error:  # damaged past its first page, say: told, and the room goes on
            self.app.call_from_thread(self._show_games, [], _("The records cannot be read: {error}", error=error))
            return
        finally:
            store.close()
        self.app.call_from_thread(self._show_games, games, None, shown)

    def _read(self, store: Any, game: str) -> tuple[str, Any, list[Any], list[float], list[tuple[str, float]], list]:
        from gamenight.records.stats import game_stats

        figures = game_stats(store, game, self._own_name(store, game))
        history: list[float] = []
        ratings: list[tuple[float, float]] = []
        if figures.player is not None:
            history = [score for _record, score, _win in store.person_latest(game, figures.player, PLOTTED)][::-1]
            ratings = store.person_ratings(game, figures.player, PLOTTED)
        means = [(name, mean) for kind, name, mean, _seats in store.mean_scores(game) if kind == "bot"]
        return game, figures, store.recent(game, limit=PAST_GAMES), history, means, ratings

    def _show_games(self, games: list[str], problem: str | None, shown: tuple | None = None) -> None:
        self.loaded = True
        listing = self.query_one("#record-games", OptionList)
        listing.clear_options()
        if not games:
            listing.add_option(Option(_("No games yet."), disabled=True))
            self._draw_plot({})  # g shows "No games yet.", not an empty chart
            self.query_one("#figures-text", Static).update(
                Text(safe_text(problem, 500) if problem else _("No games recorded yet. Finished games appear here."))
            )
            return
        listing.add_options(Option(Text(safe_text(self._labels(game)[0], 40)), id=game) for game in games)
        if shown is not None:
            self._shown_game = shown[0]
            listing.highlighted = games.index(shown[0])
            self._show_game(*shown)

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        if event.option_list.id == "record-games" and event.option.id and event.option.id != self._shown_game:
            self._shown_game = event.option.id
            self._read_game(event.option.id)
        elif event.option_list.id == "past" and event.option_index == event.option_list.option_count - 1:
            game, last = self._shown_game, self.past[-1] if self.past else None
            if game is not None and last is not None and len(self.past) % PAST_GAMES == 0:
                self._read_more(game, (last.finished, last.id))  # the end of the list: the next page

    @work(thread=True, exclusive=True, group="records-more", exit_on_error=False)
    def _read_more(self, game: str, before: tuple[float, int]) -> None:
        from gamenight.records.store import RecordsUnavailable

        try:
            store = self._open()
        except RecordsUnavailable:
            return
        if store is None:
            return
        try:
            more = store.recent(game, limit=PAST_GAMES, before=before)
        finally:
            store.close()
        self.app.call_from_thread(self._show_more, game, more)

    def _show_more(self, game: str, more: list[Any]) -> None:
        from gamenight.records.text import past_game_text

        if game != self._shown_game or not self.past:
            return
        last = (self.past[-1].finished, self.past[-1].id)
        more = [record for record in more if (record.finished, record.id) < last]  # a page read twice: once
        if not more:
            return
        self.past.extend(more)
        self.query_one("#past", OptionList).add_options(
            Option(past_game_text(record, self._labels(game)[1], self._names(game)), id=str(record.id))
            for record in more
        )

    @work(thread=True, exclusive=True, group="records-game", exit_on_error=False)
    def _read_game(self, game: str) -> None:
        from gamenight.records.store import RecordsUnavailable

        try:
            store = self._open()
        except RecordsUnavailable as error:
            self.app.call_from_thread(self.notify, safe_text(error, 500), severity="warning", markup=False)
            return
        if store is None:
            return
        try:
            shown = self._read(store, game)
        except sqlite3.Error as error:
            message = _("The records cannot be read: {error}", error=error)
            self.app.call_from_thread(self.notify, safe_text(message, 500), severity="warning", markup=False)
            return
        finally:
            store.close()
        self.app.call_from_thread(self._show_game, *shown)

    def _show_game(
        self,
        game: str,
        figures: Any,
        past: list[Any],
        history: list[float],
        means: list[tuple[str, float]],
        ratings: list[tuple[float, float]] | None = None,
    ) -> None:
        from gamenight.records.text import past_game_text, records_text

        listing = self.query_one("#record-games", OptionList)
        if listing.highlighted is None or listing.get_option_at_index(listing.highlighted).id != game:
            return  # another game was chosen meanwhile: its own figures are on the way
        self.figures, self.past, self.history, self.means = figures, past, history, means
        self.rating_history = list(ratings or [])
        title, bots = self._labels(game)
        self._draw_plot(bots)
        names = self._names(game)
        self.query_one("#figures-text", Static).update(Group(*records_text(figures, title, bots, names)))
        figures_pane = self.query_one("#figures", FiguresScroll)
        figures_pane.scroll_home(animate=False)
        figures_pane.call_after_refresh(figures_pane.show_hint)
        past_list = self.query_one("#past", OptionList)
        past_list.clear_options()
        past_list.add_options(Option(past_game_text(record, bots, names), id=str(record.id)) for record in past)
        if past:
            past_list.highlighted = 0  # Return on the list replays the newest at once, as r does

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        if event.option_list.id == "past" and event.option.id:
            self._open_replay(int(event.option.id))

    def action_replay(self) -> None:
        """Replay the past game highlighted in the list (the newest when none is)."""
        past = self.query_one("#past", OptionList)
        if not past.option_count:
            self.notify(_("No past game to replay."), markup=False)
            return
        option = past.get_option_at_index(past.highlighted if past.highlighted is not None else 0)
        if option.id:
            self._open_replay(int(option.id))

    def action_review(self) -> None:
        """Review the past game highlighted in the list (the newest when none is) with its coach."""
        past = self.query_one("#past", OptionList)
        if not past.option_count:
            self.notify(_("No past game to review."), markup=False)
            return
        option = past.get_option_at_index(past.highlighted if past.highlighted is not None else 0)
        if option.id:
            self._open_replay(int(option.id), review=True)

    def _open_review(self, replay: Any) -> None:
        from gamenight.ui.review_screen import ReviewScreen, no_coach_message

        message = no_coach_message(replay.game)
        if message is not None:
            self.notify(message, severity="warning", timeout=10, markup=False)
            return
        self.app.push_screen(ReviewScreen(replay, self.app.registry))

    @work(thread=True, exclusive=True, group="records-replay", exit_on_error=False)
    def _open_replay(self, record_id: int, review: bool = False) -> None:
        """Read the record with its log and rebuild it (in the thread: a long game takes a moment)."""
        from gamenight.records.store import RecordsUnavailable
        from gamenight.replay import Replay, ReplayError

        try:
            store = self._open()
            if store is None:
                return
            try:
                record = store.get(record_id)
            finally:
                store.close()
            if record is None:
                return
            replay = Replay.from_record(self.app.registry, record)
        except (RecordsUnavailable, sqlite3.Error, ReplayError) as error:
            self.app.call_from_thread(self.notify, safe_text(error, 500), severity="warning", timeout=10, markup=False)
            return
        self.app.call_from_thread(self._open_review if review else self.app.open_replay, replay)

    def action_plot(self) -> None:
        """Show the scores plot instead of the figures, or the figures again."""
        self._toggle_plot("scores")

    def action_rating_plot(self) -> None:
        """Show the rating plot instead of the figures, or the figures again."""
        self._toggle_plot("rating")

    def _toggle_plot(self, kind: str) -> None:
        if self.has_class("plotting") and self.plot_kind == kind:
            self.remove_class("plotting")
            return
        if kind != self.plot_kind:
            self.plot_kind = kind
            game = self.figures.game if self.figures is not None else None
            self._draw_plot(self._labels(game)[1] if game is not None else {})
        self.add_class("plotting")

    def _draw_plot(self, bots: dict[str, str]) -> None:
        """The player's scores (or rating), oldest to newest; a picture only where there is something to draw."""
        plot = self.query_one("#plot", ScorePlot)
        legend = self.query_one("#plot-legend", Static)
        plt = plot.plt
        plt.clear_data()
        plt.clear_figure()
        plot.display = False
        if self.figures is None:
            legend.update(Text(_("No games yet.")))
            return
        player = self.figures.player
        if player is not None:
            player = self._names(self.figures.game).get(player, player)
        if self.plot_kind == "rating":
            self._draw_rating(plot, legend, player)
            return
        if player is None or not self.history:
            legend.update(Text(_("No scores of a person to plot yet.")))
            return
        plot.display = True
        if len(self.history) == 1:
            text = Text(_("{player}: the latest score", player=safe_text(player, 24)))
        else:
            text = Text(_("{player}: the latest {count} scores", player=safe_text(player, 24), count=len(self.history)))
        text.append("\n")
        games = list(range(1, len(self.history) + 1))
        plt.plot(games, self.history, marker="braille", color=PLOT_COLOURS[0])
        text.append("━━ ", style=PLOT_COLOURS[0])
        text.append(safe_text(player, 24))
        for bot, mean in self.means[: len(PLOT_COLOURS) - 1]:
            colour = PLOT_COLOURS[1 + self.means.index((bot, mean))]
            plt.plot([games[0], games[-1]], [mean, mean], marker="braille", color=colour)
            text.append("  ━━ ", style=colour)
            text.append(_("{bot}: mean {mean}", bot=safe_text(bots.get(bot, bot), 20), mean=f"{mean:.0f}"))
        plt.xticks(sorted({games[0], games[-1], (games[0] + games[-1]) // 2}))
        legend.update(text)
        plot.refresh()

    def _draw_rating(self, plot: ScorePlot, legend: Static, player: str | None) -> None:
        """The player's rating after each of their latest games, with the band of one sigma either side."""
        if player is None or not self.rating_history:
            legend.update(Text(_("No rating of a person to plot yet.")))
            return
        from gamenight.records.text import rating_text

        plot.display = True
        plt = plot.plt
        games = list(range(1, len(self.rating_history) + 1))
        mus = [mu for mu, _sigma in self.rating_history]
        plt.plot(games, [mu + sigma for mu, sigma in self.rating_history], marker="braille", color=PLOT_COLOURS[2])
        plt.plot(games, [mu - sigma for mu, sigma in self.rating_history], marker="braille", color=PLOT_COLOURS[2])
        plt.plot(games, mus, marker="braille", color=PLOT_COLOURS[0])
        plt.xticks(sorted({games[0], games[-1], (games[0] + games[-1]) // 2}))
        mu, sigma = self.rating_history[-1]
        if len(games) == 1:
            said = _(
                "{player}: rating after the latest game; now {rating}",
                player=safe_text(player, 24),
                rating=rating_text(mu, sigma),
            )
        else:
            said = _(
                "{player}: rating, latest {count} games; now {rating}",
                player=safe_text(player, 24),
                count=len(games),
                rating=rating_text(mu, sigma),
            )
        text = Text(said)
        text.append("\n")
        text.append("━━ ", style=PLOT_COLOURS[0])
        text.append(_("rating"))
        text.append("  ━━ ", style=PLOT_COLOURS[2])
        text.append(_("± 1σ"))
        legend.update(text)
        plot.refresh()
