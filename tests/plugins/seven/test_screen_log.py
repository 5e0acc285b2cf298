"""The table's public log: its newest lines, worded from only the events they show."""

from __future__ import annotations

from gamenight.i18n import translator
from gamenight.match import Match, SeatConfig
from gamenight.plugins import load_registry
from gamenight.sdk import CHANCE
from gamenight_seven.screen import LOG_LINES, SevenScreen

NAMES = ("ann", "ben", "cat", "dan", "eve")


class Log:
    """The log's part of a :class:`SevenScreen` (its methods, this seat's names), counting the events
    it puts in words."""

    _log_lines = SevenScreen._log_lines
    _line = SevenScreen._line
    t = staticmethod(translator("seven"))

    def __init__(self) -> None:
        self.worded = 0

    def seat_name(self, seat: int) -> str:
        return NAMES[seat]

    def _event_line(self, event, blocked):
        self.worded += 1
        return SevenScreen._event_line(self, event, blocked)  # type: ignore[arg-type]


def long_deals(count: int, longer_than: int) -> list[tuple]:
    """The events of ``count`` five-bot deals of more than ``longer_than`` events (draws in runs, 7s,
    Queens, shuffles; some blocked)."""
    game = load_registry().games["seven"]
    deals = []
    seed = 0
    while len(deals) < count:
        match = Match(game, [SeatConfig(name, "random") for name in NAMES], {}, seed=seed)
        match.start_game(seed)
        while not match.over:
            match.run_chance() if match.to_move() == CHANCE else match.apply(match.bot_choice())
        if len(match.state.events) > longer_than:
            deals.append(match.state.events)
        seed += 1
    return deals


def test_the_newest_lines_are_the_whole_logs_last_ones_after_every_event() -> None:
    log = Log()
    for events in long_deals(3, 150):
        for end in range(len(events) + 1):
            shown = log._log_lines(events[:end])
            whole = log._log_lines(events[:end], last=0)
            assert [(line.plain, line.spans) for line in shown] == [
                (line.plain, line.spans) for line in whole[-LOG_LINES:]
            ], end


def test_a_redraw_words_only_the_events_its_lines_show() -> None:
    log = Log()
    (events,) = long_deals(1, 400)
    log._log_lines(events)
    assert 0 < log.worded <= LOG_LINES  # not all 400 and more
    log.worded = 0
    log._log_lines(events, last=0)
    assert log.worded > 300
