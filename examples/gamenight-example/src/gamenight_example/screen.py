"""The Goofspiel table: a :class:`gamenight.sdk.GameScreen` subclass.

The base class does turns, bots, chance, hand-over in hot-seat play, the end
dialog, saving, help and the coach (``?``: the advisor of :mod:`.advisor`); this
module only draws the table and turns a key press or a click on a card into
``self.submit("bid:V")``.  What a move did is said from its public events
(:meth:`GoofspielScreen.describe_event`, with :mod:`.texts`).  Two optional hooks
make the coach's panel read better: :meth:`GoofspielScreen.describe_choice` ("Bid K")
and :meth:`GoofspielScreen.highlighted_action` (the card under the cursor, ←/→).
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from gamenight.sdk import Action, GameScreen, PublicEvent, pad_cells
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.events import Click
from textual.message import Message
from textual.widgets import Static

from .rules import GoofspielView
from .texts import card_name, describe_event

KEYS = {1: "a,1", 10: "0", 11: "j", 12: "q", 13: "k"}
"""The key that bids each card (2-9 are their own digit)."""


class GoofspielCard(Static):
    """One card of the hand; a click bids it (named after the game: Textual matches widget
    type selectors by class name across the whole room)."""

    class Chosen(Message):
        """The player clicked this card."""

        def __init__(self, value: int) -> None:
            super().__init__()
            self.value = value

    def __init__(self, value: int) -> None:
        super().__init__(card_name(value), id=f"card-{value}", classes="card")
        self.value = value

    def on_click(self, event: Click) -> None:
        event.stop()
        self.post_message(self.Chosen(self.value))


class GoofspielScreen(GameScreen):
    """Prize and pot on the left, the seats on the right, the hand below."""

    CSS_PATH = str(Path(__file__).with_name("game.tcss"))
    BINDINGS: ClassVar[list[BindingType]] = [
        *(
            Binding(KEYS.get(value, str(value)), f"bid({value})", card_name(value), show=False)
            for value in range(1, 14)
        ),
        Binding("left", "cursor(-1)", "Previous card", show=False),
        Binding("right", "cursor(1)", "Next card", show=False),
        Binding("enter", "bid_cursor", "Bid the card under the cursor", show=False),
    ]

    cursor = 0
    """The card under the cursor (a value of the hand; 0 before the first move of the cursor)."""

    def compose_table(self) -> ComposeResult:
        with Horizontal(id="table"):
            with Vertical(id="prize-box"):
                yield Static("", id="prize-label")
                yield Static("", id="prize")
                yield Static("", id="pot")
                yield Static("", id="prizes-left")
            yield Static("", id="seats")
        yield Static("", id="last-round")
        with Horizontal(id="hand"):
            for value in range(1, self.match.options["cards"] + 1):
                yield GoofspielCard(value)
        yield Static(self.t("Bid: A 2-9 0(=10) J Q K, ←/→ and Return, or click a card."), id="hint")

    def describe_event(self, event: PublicEvent) -> str:
        """The status line's sentence for a move, in the player's language, seats by name."""
        return self.fill_names(describe_event(event, self.t))

    def refresh_view(self) -> None:
        view: GoofspielView = self.view
        t = self.t
        self.query_one("#prize-label", Static).update(t("Prize"))
        self.query_one("#prize", Static).update(card_name(view.prize) if view.prize else "·")
        self.query_one("#pot", Static).update(t("Pot: {points}", points=view.pot) if view.pot else "")
        left = " ".join(card_name(card) for card in view.prizes_left)
        self.query_one("#prizes-left", Static).update(t("Still to come: {cards}", cards=left or "—"))
        self.query_one("#seats", Static).update(self._seat_lines(view))
        self.query_one("#last-round", Static).update(self._last_round(view))
        if self.cursor and self.cursor not in view.hand:
            self.cursor = min(view.hand, key=lambda value: abs(value - self.cursor), default=0)
        for card in self.query(GoofspielCard):
            card.set_class(card.value not in view.hand and card.value != view.my_bid, "spent")
            card.set_class(card.value == view.my_bid, "bid")
            card.set_class(card.value == self.cursor, "cursor")

    def _seat_lines(self, view: GoofspielView) -> str:
        t = self.t
        lines = [f"{pad_cells(t('Seat'), 19)}{pad_cells(t('Points'), 8)}{pad_cells(t('Left'), 7)}{t('This round')}"]
        for seat, player in enumerate(self.match.seats):
            marker = "▶ " if seat == view.seat else "  "
            if view.prize is None:
                status = ""
            elif seat == view.seat and view.my_bid is not None:
                status = t("bid {card}", card=card_name(view.my_bid))
            else:
                status = t("bid face down") if view.has_bid[seat] else t("to bid")
            left = len(view.unplayed[seat]) - (1 if seat == view.seat and view.my_bid is not None else 0)
            lines.append(f"{pad_cells(marker + player.name, 19)}{view.scores[seat]:<8}{left:<7}{status}")
        return "\n".join(lines)

    def _last_round(self, view: GoofspielView) -> str:
        if not view.history:
            return ""
        played = view.history[-1]
        bids = ", ".join(f"{self.match.seats[seat].name} {card_name(bid)}" for seat, bid in enumerate(played.bids))
        if played.winner is None:
            result = self.t("a tie: nobody takes it")
        else:
            result = self.t("{name} takes it", name=self.match.seats[played.winner].name)
        return self.t(
            "Last round — prize {card} (worth {worth}): {bids}; {result}.",
            card=card_name(played.prize),
            worth=played.worth,
            bids=bids,
            result=result,
        )

    def describe_choice(self, action: Action) -> str:
        """The coach's words for a bid: "Bid K" (the rules' sentence keeps a bid face down)."""
        return self.t("Bid {card}", card=card_name(int(action.partition(":")[2])))

    def highlighted_action(self) -> Action | None:
        """The bid of the card under the cursor (the coach says what it costs as the cursor moves)."""
        return f"bid:{self.cursor}" if self.cursor else None

    def action_cursor(self, step: int) -> None:
        """Move the cursor to the next (``1``) or previous (``-1``) card still in the hand."""
        hand = list(self.view.hand)
        if not hand:
            return
        if self.cursor not in hand:
            self.cursor = hand[0] if step > 0 else hand[-1]
        else:
            self.cursor = hand[(hand.index(self.cursor) + step) % len(hand)]
        for card in self.query(GoofspielCard):
            card.set_class(card.value == self.cursor, "cursor")

    def action_bid_cursor(self) -> None:
        """Bid the card under the cursor."""
        if self.cursor:
            self.action_bid(self.cursor)

    def action_bid(self, value: int) -> None:
        """Bid the card ``value`` (refused with a message if it is not in the hand)."""
        self.submit(f"bid:{value}")

    def on_goofspiel_card_chosen(self, event: GoofspielCard.Chosen) -> None:
        self.action_bid(event.value)
