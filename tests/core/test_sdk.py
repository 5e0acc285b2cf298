import pytest
from gamenight.sdk import Option, Outcome

from tests.core.nim import NIM


def test_bool_option_parses_words_and_rejects_nonsense():
    option = Option("joker", "Joker", False)
    assert option.parse("on") is True
    assert option.parse("false") is False
    with pytest.raises(ValueError, match="true or false"):
        option.parse("maybe")


def test_int_option_respects_bounds():
    option = Option("sticks", "Sticks", 10, kind="int", minimum=1, maximum=40)
    assert option.parse("12") == 12
    with pytest.raises(ValueError, match="at most 40"):
        option.parse("41")
    with pytest.raises(ValueError, match="whole number"):
        option.parse("x")


def test_choice_option_lists_the_choices_in_its_error():
    option = Option("layout", "Layout", "a", kind="choice", choices=(("a", "A"), ("b", "B")))
    assert option.parse("b") == "b"
    with pytest.raises(ValueError, match="a, b"):
        option.parse("c")


def test_outcome_from_scores_shares_ties():
    outcome = Outcome.from_scores([3, 5, 5])
    assert outcome.winners == (1, 2)
    assert outcome.win_share(1) == 0.5
    assert outcome.win_share(0) == 0


def test_parse_options_overlays_defaults_and_rejects_unknown_keys():
    assert NIM.parse_options({"sticks": "5"}) == {"sticks": 5, "dice": False}
    with pytest.raises(ValueError, match="no option 'colour'"):
        NIM.parse_options({"colour": "red"})


def test_unknown_bot_names_the_known_ones():
    with pytest.raises(KeyError, match="first, perfect"):
        NIM.bot("genius")


def test_seat_tokens_become_names_or_seat_numbers():
    from gamenight.sdk import fill_seat_names, seat_token

    text = f"{seat_token(1)} plays a Stop on {seat_token(0)}"
    assert fill_seat_names(text, ["Kei", "Urd"]) == "Urd plays a Stop on Kei"
    assert fill_seat_names(text) == "Seat 2 plays a Stop on Seat 1"


def test_lazy_bot_imports_the_bots_module_only_when_a_bot_is_made(tmp_path, monkeypatch):
    import sys

    from gamenight.sdk import lazy_bot

    (tmp_path / "heavy_bots_for_test.py").write_text(
        "class Bot:\n"
        "    def __init__(self, seat):\n"
        "        self.seat = seat\n"
        "def make(rules, seat, options):\n"
        "    return Bot(seat)\n",
        encoding="utf-8",
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    factory = lazy_bot("heavy_bots_for_test:make")
    assert "heavy_bots_for_test" not in sys.modules
    assert factory(None, 3, {}).seat == 3
    assert "heavy_bots_for_test" in sys.modules


def test_every_public_name_of_the_sdk_resolves_and_rules_pay_no_textual():
    import subprocess
    import sys

    import gamenight.sdk as sdk

    for name in sdk.__all__:
        assert getattr(sdk, name) is not None, name
    # A rules module's `from gamenight.sdk import Rules` must not import Textual (it is lazy).
    code = "import sys, gamenight.sdk; from gamenight.sdk import Rules, translator; print('textual' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "False"
