"""Fresh virtual environments for installing plugin packages with pip, quickly and offline.

A fresh venv is made with ``python -m venv --without-pip``; a ``.pth`` file
adds this project's site-packages *after* the venv's own, so pip, Textual
and gamenight (the checkout) resolve while whatever pip installs lands in
the fresh venv and is found only through its own entry points.  Packages are
built with ``--no-build-isolation`` from a copy (pip builds in-tree, and the
example folder must stay clean).  When this environment's setuptools is too
old for the example's ``pyproject.toml`` (it needs 77, for the SPDX licence
field), a newer setuptools is fetched once per test session into a folder of
its own.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "gamenight-example"
DEV_SITE = Path(sysconfig.get_paths()["purelib"])
_IGNORED = shutil.ignore_patterns("build", "dist", "*.egg-info", "__pycache__", ".pytest_cache")


SETUPTOOLS = 77
"""The oldest setuptools that builds the example (``license = "MIT"``; it builds wheels on its own)."""


def can_build_offline() -> bool:
    """True when this environment's setuptools can build the example without downloading anything."""
    try:
        version = importlib.metadata.version("setuptools")
    except importlib.metadata.PackageNotFoundError:
        return False
    return int(version.split(".")[0]) >= SETUPTOOLS


def fetch_build_tools(target: Path) -> Path:
    """Install a recent enough setuptools into ``target`` (one download) and return it."""
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "-q",
            "--no-deps",
            "--target",
            str(target),
            f"setuptools>={SETUPTOOLS}",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    if done.returncode != 0:
        raise RuntimeError(
            f"building the example needs setuptools>={SETUPTOOLS}; this environment has an older one and pip "
            f"could not download it (offline? `pip install 'setuptools>={SETUPTOOLS}'` fixes it):\n{done.stderr}"
        )
    return target


class FreshEnv:
    """One fresh venv; :meth:`install` packages into it, :meth:`run` its Python."""

    def __init__(self, path: Path, build_tools: Path | None = None) -> None:
        self.path = path
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(path)], check=True, timeout=60)
        self.python = path / "bin" / "python"
        site = Path(self._query("import sysconfig; print(sysconfig.get_paths()['purelib'])"))
        lines = [str(build_tools)] if build_tools is not None else []
        lines.append(f"import site; site.addsitedir({str(DEV_SITE)!r})")
        (site / "_gamenight_dev.pth").write_text("\n".join(lines) + "\n", encoding="utf-8")
        self.site = site
        self.home = path / "home"
        self.home.mkdir()

    def _query(self, code: str) -> str:
        return subprocess.run(
            [str(self.python), "-c", code], check=True, capture_output=True, text=True, timeout=60
        ).stdout.strip()

    @property
    def env(self) -> dict[str, str]:
        """The environment for commands: no PYTHONPATH, a home of its own (no user config), English."""
        env = {key: value for key, value in os.environ.items() if key not in {"PYTHONPATH", "VIRTUAL_ENV"}}
        env.update(
            HOME=str(self.home),
            XDG_CONFIG_HOME=str(self.home / ".config"),
            XDG_DATA_HOME=str(self.home / ".local" / "share"),
            GAMENIGHT_LANG="en",
            LANG="C.UTF-8",
            COLUMNS="200",
            PATH=f"{self.path / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}",
        )
        env.pop("GAMENIGHT_CONFIG", None)
        return env

    def install(self, *sources: Path) -> None:
        """``pip install --no-deps --no-build-isolation`` copies of the package folders ``sources``."""
        copies = []
        for source in sources:
            copy = self.path / "src" / source.name
            shutil.copytree(source, copy, ignore=_IGNORED)
            copies.append(str(copy))
        self.run("-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation", *copies, timeout=180)

    def run(
        self, *args: str, timeout: float = 120, cwd: Path | None = None, check: bool = True
    ) -> subprocess.CompletedProcess[str]:
        """Run this venv's Python with ``args``; on failure the assertion shows its output."""
        done = subprocess.run(
            [str(self.python), *args],
            capture_output=True,
            text=True,
            timeout=timeout,
            cwd=cwd or self.path,
            env=self.env,
        )
        if check:
            assert done.returncode == 0, f"{' '.join(args)} exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
        return done

    def plugins(self) -> dict[str, dict[str, Any]]:
        """``gamenight plugins --json``, by entry point name."""
        listed = self.run("-m", "gamenight", "plugins", "--json", check=False)  # exits 1 if a plugin failed
        return {record["entry_point"]: record for record in json.loads(listed.stdout)}
