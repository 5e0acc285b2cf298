"""Rules, bots and the headless core load no Textual, checked where it counts: a fresh interpreter.

The import-linter contract "Rules, bots and the headless core are pure" (pyproject.toml) reads the
source; these tests import each module it names -- a package with all of its modules -- in a fresh
interpreter and look at ``sys.modules``, so that what the contract cannot see (an import by name, a
plugin's entry point, a module that another one loads on import) is caught too.  The commands that
never open a screen (``gamenight --help``, ``plugins``, ``arena``, ``serve-ssh --help``) are held
to the same.

One Python process starts (it imports only the standard library's ``importlib``, ``json`` and
``os``) and forks a child per module: each child is an interpreter in which nothing of gamenight,
of the games or of Textual was ever imported, for about 2-3 CPU-seconds in all instead of the 8 that
54 new interpreters take (``python -c`` starting up is most of each).
"""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
SOURCES = (ROOT / "core", ROOT / "plugins")

MAY_LOAD_TEXTUAL = {"gamenight.sdk.testing"}
"""The testing kit opens screens in a room (the contract's ``ignore_imports`` say the same)."""

COMMANDS = [["--help"], ["--version"], ["plugins", "--json"], ["arena", "--help"], ["replay", "--help"]]
COMMANDS += [["records", "--help"], ["review", "--help"], ["serve-ssh", "--help"]]

PROBE = r"""
import importlib, json, os, sys

def textual_loaded():
    return sorted(name for name in sys.modules if name == "textual" or name.startswith("textual."))[:5]

def run(job):
    if job["modules"] is not None:
        for name in job["modules"]:
            importlib.import_module(name)
    else:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
        from gamenight.cli import main
        try:
            main(job["argv"])
        except SystemExit:
            pass
    return {"textual": textual_loaded()}

assert not textual_loaded()
answers = {}
for key, job in json.loads(sys.stdin.read()).items():
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # a child: this interpreter as it was before any gamenight module was imported
        os.close(read)
        try:
            answer = run(job)
        except BaseException as error:
            answer = {"error": f"{type(error).__name__}: {error}"[:2000]}
        os.write(write, json.dumps(answer).encode())
        os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as pipe:
        data = pipe.read()
    os.waitpid(pid, 0)
    answers[key] = json.loads(data or b'{"error": "the child said nothing"}')
print(json.dumps(answers))
"""


def pure_contract() -> dict[str, Any]:
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    (contract,) = [c for c in contracts if c["name"].startswith("Rules, bots and the headless core are pure")]
    return contract


def modules_of(name: str) -> list[str]:
    """``name`` and, for a package, every module under it (never a ``__main__``)."""
    for source in SOURCES:
        path = source.joinpath(*name.split("."))
        if path.with_suffix(".py").is_file():
            return [name]
        if (path / "__init__.py").is_file():
            found = [name]
            for file in sorted(path.rglob("*.py")):
                parts = file.relative_to(source).with_suffix("").parts
                if parts[-1] == "__init__":
                    parts = parts[:-1]
                dotted = ".".join(parts)
                if parts[-1] != "__main__" and dotted != name and dotted not in MAY_LOAD_TEXTUAL:
                    found.append(dotted)
            return found
    raise AssertionError(f"{name} (named by the purity contract) is not a module of the project")


def probe(jobs: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """What each job (``{"modules": [...]}`` or ``{"modules": None, "argv": [...]}``) loaded of Textual."""
    result = subprocess.run(
        [sys.executable, "-I", "-c", PROBE],
        input=json.dumps(jobs),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout)


@pytest.fixture(scope="module")
def answers() -> dict[str, dict[str, Any]]:
    jobs = {name: {"modules": modules_of(name)} for name in pure_contract()["source_modules"]}
    jobs |= {" ".join(argv): {"modules": None, "argv": argv} for argv in COMMANDS}
    return probe(jobs)


def test_the_purity_contract_follows_every_chain_of_imports():
    assert pure_contract()["allow_indirect_imports"] is False


@pytest.mark.xdist_group("headless-imports")
@pytest.mark.parametrize("name", pure_contract()["source_modules"])
def test_a_headless_module_loads_no_textual_in_a_fresh_interpreter(name: str, answers: dict[str, dict[str, Any]]):
    assert answers[name] == {"textual": []}, f"importing {name} loads Textual"


@pytest.mark.xdist_group("headless-imports")
@pytest.mark.parametrize("argv", COMMANDS, ids=" ".join)
def test_a_command_that_opens_no_screen_loads_no_textual(argv: list[str], answers: dict[str, dict[str, Any]]):
    assert answers[" ".join(argv)] == {"textual": []}, f"gamenight {' '.join(argv)} loads Textual"


def test_the_probe_sees_what_loads_textual():
    answers = probe({"themes": {"modules": ["gamenight.themes"]}, "room": {"modules": None, "argv": ["--bogus"]}})
    assert answers["themes"]["textual"], answers
    assert answers["room"] == {"textual": []}, answers  # a usage error ends before the room opens


DRIVERS = ("psycopg", "psycopg_pool", "psycopg_binary", "psycopg_c")
"""PostgreSQL's driver: loaded only for ``serve-ssh --records-url postgresql://...``."""


def drivers_loaded(script: str) -> list[str]:
    """The PostgreSQL driver modules a fresh interpreter has loaded after ``script``."""
    code = f"{script}\nprint(json.dumps(sorted(n for n in sys.modules if n.split('.')[0] in {DRIVERS!r})))"
    result = subprocess.run([sys.executable, "-I", "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout.splitlines()[-1])


def test_the_embedded_records_never_load_the_postgresql_driver():
    """SQLite, the default: the records, the table service and serve-ssh's start-up load no psycopg."""
    script = r"""
import contextlib, io, json, pathlib, sys, tempfile
from gamenight.records.backends import open_records
import gamenight.tables.service, gamenight.ssh.server, gamenight.ssh.template
store = open_records(pathlib.Path(tempfile.mkdtemp()) / "records.sqlite3")
store.count(); store.hall_high_scores("yatzy"); store.hall_recent(); store.games_played(); store.close()
from gamenight.cli import main
with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):
    main(["serve-ssh", "--help"])
"""
    assert drivers_loaded(script) == []


def test_a_records_url_loads_the_postgresql_driver():
    """The probe above sees the driver when it is loaded (here for a database that is not there)."""
    script = r"""
import json, sys, tempfile
from gamenight.records.backends import open_records
from gamenight.records.store import RecordsUnavailable
try:
    open_records(f"postgresql://nobody@/none?host={tempfile.mkdtemp()}&port=1")
except RecordsUnavailable:
    pass
"""
    assert "psycopg" in drivers_loaded(script)


REDIS_PROBE = r"""
import importlib, json, sys
loaded = {}
for name in sys.argv[1:]:
    importlib.import_module(name)
    loaded[name] = sorted(m for m in sys.modules if m == "redis" or m.startswith("redis."))[:3]
from gamenight.tables.redis_store import RedisTableStore
RedisTableStore.connect("redis://localhost:1/0")  # makes a client, connects to nothing
loaded["connect"] = "redis" in sys.modules
print(json.dumps(loaded))
"""


def test_the_embedded_default_never_loads_redis():
    """Tables on Redis are for several machines; one machine's server (and the store's own module, until a
    store is made) loads no redis-py."""
    modules = ["gamenight.tables.service", "gamenight.ssh.server", "gamenight.tables.redis_store"]
    result = subprocess.run(
        [sys.executable, "-I", "-c", REDIS_PROBE, *modules], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr[-3000:]
    loaded = json.loads(result.stdout)
    assert {name: loaded[name] for name in modules} == {name: [] for name in modules}
    assert loaded["connect"] is True  # the probe sees redis when it is loaded
