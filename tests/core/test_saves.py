import pytest
from gamenight.match import Match, SeatConfig, play_headless
from gamenight.saves import FORMAT_VERSION, SaveError, load_match, save_match


def test_round_trip_resumes_exactly(tmp_path, nim_registry):
    game = nim_registry.game("nim")
    match = Match(game, [SeatConfig("Ann"), SeatConfig("Bob", "first")], {"dice": True, "sticks": 20}, seed=4)
    match.run_chance()
    match.apply("2")
    match.apply(match.bot_choice())
    path = save_match(match, tmp_path / "g.toml")
    loaded = load_match(nim_registry, path)
    assert loaded.state == match.state and loaded.log == match.log
    assert loaded.seats == match.seats and loaded.options == match.options


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda text: text[: len(text) // 2], "not a valid save"),
        (lambda text: "\x00\xff garbage", "not a valid save"),
        (lambda text: text.replace(f"format = {FORMAT_VERSION}", f"format = {FORMAT_VERSION + 1}"), "newer gamenight"),
        (lambda text: text.replace('"0 2"', '"0 3"').replace('"1 1"', '"1 3"'), "cannot be replayed"),
        (lambda text: text.replace('game = "nim"', 'game = "chess"'), "not installed"),
        (lambda text: text.replace('bot = "first"', 'bot = "deep"'), "not installed"),
    ],
    ids=["truncated", "garbage", "future", "tampered", "unknown-game", "unknown-bot"],
)
def test_bad_saves_are_refused_with_a_reason_and_left_untouched(tmp_path, nim_registry, mutate, message):
    game = nim_registry.game("nim")
    match = play_headless(game, [SeatConfig("A", "first"), SeatConfig("B", "first")], {"sticks": 12}, seed=1)
    path = save_match(match, tmp_path / "g.toml")
    text = mutate(path.read_text(encoding="utf-8"))
    path.write_text(text, encoding="utf-8", errors="surrogateescape")
    before = path.read_bytes()
    with pytest.raises(SaveError, match=message):
        load_match(nim_registry, path)
    assert path.read_bytes() == before


def test_save_is_atomic_no_temp_files_left(tmp_path, nim_registry):
    game = nim_registry.game("nim")
    match = Match(game, [SeatConfig("A"), SeatConfig("B")], {})
    save_match(match, tmp_path / "a.toml")
    save_match(match, tmp_path / "a.toml")
    assert [p.name for p in tmp_path.iterdir()] == ["a.toml"]


def test_a_typed_save_name_never_leaves_the_save_folder(tmp_path, nim_registry):
    from gamenight.save_store import SaveStore

    store = SaveStore(tmp_path / "saves")
    for name in ("/etc/passwd", "../../escape", "a/b/c", ".."):
        path = store.path_for(name)
        assert path.parent == tmp_path / "saves" and path.suffix == ".toml"


def test_running_totals_and_wins_survive_a_save(tmp_path, nim_registry):
    from gamenight.match import play_headless

    game = nim_registry.game("nim")
    match = play_headless(game, [SeatConfig("A", "perfect"), SeatConfig("B", "first")], {}, seed=2)
    match.record_result()
    match.start_game()
    loaded = load_match(nim_registry, save_match(match, tmp_path / "s.toml"))
    assert loaded.totals == [1.0, 0.0] and loaded.wins == [1.0, 0.0] and loaded.games_played == 1
