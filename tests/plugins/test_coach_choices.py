"""The coach's list reads as choices, not as the move log: "Draw a card", not "You drew a card.".

Every built-in game names an action as a choice with ``Rules.describe_choice`` (SDK 1.4): an
imperative label with no subject and no full stop, in English and Japanese.  The log keeps its
own sentences (``Rules.describe_action``).  Here the real ``?`` key opens each game's panel at
80×24 with its real coach, and every choice the panel lists is checked.
"""

from __future__ import annotations

import re

import pytest
from gamenight.i18n import set_language
from gamenight.plugins import load_registry
from gamenight.sdk.testing import make_room, wait_for_bots
from gamenight.ui.coach import CoachPanel

from tests.core.tour import new_match

REGISTRY = load_registry()

CHOICE_WORDS = {
    "en": {
        "mille": r"(Draw a card|Go for an extension to 1000|Stop at 700|Discard \S.*|Play \S.*)",
        "seven": r"(Pass|Draw a card|Draw \d+ \(take the 7 penalty\)|Play \S+( and call \S)?)",
        "yatzy": r"(Roll the dice|Reroll all five dice|Keep [1-6 ]+, reroll [1-4]"
        r"|Score \d+ in \w[\w ]*( \(Yatzy bonus \+\d+\))?)",
        "lits": r"(Swap sides and take ×|Keep ○|Place [LITS] on [a-j]\d+( [a-j]\d+){3})",
        "mate": r"(Keep all cards|Set \S+ aside|Lead \S+|Answer with \S+)",
    },
    "ja": {  # the plain form of a verb ("…を引く"), never the log's past tense ("…を引きました。")
        "mille": r".+(を引く|へ延長する|で止める|を捨てる|を出す|：クー・フーレ！)",
        "seven": r".+(パスする|引く|を受ける）|を出す|をコールする)",
        "yatzy": r".+(を振る|振り直す|個振る|点を記録する|点を記録する（ヤッツィーボーナス \+\d+）)",
        "lits": r".+(を取る|のままにする|に置く)",
        "mate": r"(全部持つ|.+(を脇に置く|をリード|で応じる))",
    },
}
DISTINCT = ("lits", "mate")
"""Games where no two legal actions are the same choice (a LITS piece's anchor has up to eight
orientations: its words name every cell it covers).  Elsewhere two can be: Mille's two 100s."""
FIRST_MOVE = {"yatzy": "space", "mille": "p"}
"""A first roll, a first draw: then the player has choices."""


@pytest.fixture(params=["en", "ja"])
def language(request):
    set_language(request.param)
    yield request.param
    set_language("en")


async def until(pilot, condition, rounds: int = 1200) -> None:
    for _ in range(rounds):
        if condition():
            return
        await pilot.pause(0.025)
    raise AssertionError("the condition never held")


@pytest.mark.parametrize("game_id", sorted(CHOICE_WORDS["en"]))
async def test_the_coach_lists_each_games_actions_as_choices_not_log_sentences(tmp_path, language, game_id):
    match = new_match(REGISTRY.game(game_id))
    app = make_room(REGISTRY, tmp_path, start_match=match)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_bots(pilot)
        if game_id in FIRST_MOVE:
            await pilot.press(FIRST_MOVE[game_id])
            await wait_for_bots(pilot)
        screen = app.screen
        coach = screen.coach
        panel = screen.query_one(CoachPanel)
        await pilot.press("question_mark")
        await until(pilot, lambda: coach.computing is None and bool(str(panel.query_one("#coach-choices").render())))
        key = coach.position()
        words = coach.said(key)
        state, seat = match.state, match.to_move()
        me = match.seats[seat].name
        assert len(words) >= 2, words
        for action, text in words.items():
            assert re.fullmatch(CHOICE_WORDS[language][game_id], text), f"{action}: {text!r}"
            assert not text.endswith((".", "。")) and not text.startswith(me), f"{action}: {text!r}"
            sentence = screen.fill_names(match.rules.describe_action(state, action, seat))
            assert text != sentence  # the log keeps its own sentence
        rows = [row for row in str(panel.query_one("#coach-choices").render()).splitlines() if row.strip()]
        shown = {words[entry.action] for entry in coach.advice(key)}
        for number, row in enumerate(rows, start=1):  # each row: its number, then a choice's words (maybe cut)
            head = row.removeprefix(f"{number} ").split("…")[0].split("  ")[0].rstrip()
            assert any(choice.startswith(head) for choice in shown), (row, shown)


def test_each_games_choice_words_are_the_rules_own_for_every_legal_action_of_a_game():
    """Headless, through whole games: every legal action of every position has choice words that
    are not its log sentence (so no kind of move is left saying what happened)."""
    import random

    from gamenight.sdk import CHANCE, TERMINAL

    for game_id, pattern in CHOICE_WORDS["en"].items():
        game = REGISTRY.game(game_id)
        rules = game.rules
        rng = random.Random(5)
        state = rules.new_game(game.default_seats, {})
        seen = 0
        for _step in range(400):
            seat = rules.to_move(state)
            if seat == TERMINAL:
                break
            if seat == CHANCE:
                state = rules.apply(state, rules.sample_chance(state, rng))
                continue
            legal = rules.legal_actions(state)
            if game_id == "yatzy":  # the turn's first roll is no reroll; a reroll is no first roll
                first = state.rolls == 0
                assert all(
                    (rules.describe_choice(state, action, seat) == "Roll the dice") == first
                    for action in legal
                    if action.startswith("roll:")
                )
            texts = set()
            for action in legal:
                text = rules.describe_choice(state, action, seat)
                assert re.fullmatch(pattern, text), f"{game_id} {action}: {text!r}"
                assert text != rules.describe_action(state, action, seat)
                texts.add(text)
                seen += 1
            if game_id in DISTINCT:
                assert len(texts) == len(legal), f"{game_id}: two choices read the same"
            state = rules.apply(state, rng.choice(legal))
        assert seen > 20, game_id
