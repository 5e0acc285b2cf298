"""A real, throwaway ``redis-server`` for tests and benches: on a Unix socket in a temp dir, no TCP port.

Debian's ``redis-server`` (``.ci/run`` installs it; its system service is never started).  Without it a
test that needs it is skipped, unless ``GAMENIGHT_REQUIRE_REDIS=1`` (as in CI) makes that a failure.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

REQUIRE = "GAMENIGHT_REQUIRE_REDIS"
PREFIX = "gn-redis-"


def redis_server_path() -> str | None:
    return shutil.which("redis-server")


def missing_reason() -> str | None:
    """Why no Redis test can run here (``None``: they can); raises when CI requires them."""
    if redis_server_path() is not None:
        return None
    if os.environ.get(REQUIRE) == "1":
        raise RuntimeError(f"{REQUIRE}=1 but no redis-server on PATH (apt-get install redis-server)")
    return "no redis-server on PATH (apt-get install redis-server; GAMENIGHT_REQUIRE_REDIS=1 makes this a failure)"


class RedisServer:
    """One ``redis-server`` process on ``self.socket`` with its data in ``self.dir`` (kept across restarts)."""

    def __init__(self, appendonly: bool = False, fsync: str = "always") -> None:
        path = redis_server_path()
        assert path is not None, "no redis-server on PATH"
        self.binary = path
        # A short directory of its own: a Unix socket's path must fit in 107 bytes (tmp_path often does not).
        sweep()
        self.dir = Path(tempfile.mkdtemp(prefix=PREFIX))
        (self.dir / "owner").write_text(str(os.getpid()))
        self.socket = self.dir / "redis.sock"
        self.appendonly = appendonly
        self.fsync = fsync
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"unix://{self.socket}"

    def start(self) -> None:
        assert self.process is None
        args = [
            self.binary,
            "--port", "0",  # no TCP at all
            "--unixsocket", str(self.socket),
            "--unixsocketperm", "700",
            "--dir", str(self.dir),
            "--save", "",
            "--appendonly", "yes" if self.appendonly else "no",
            "--appendfsync", self.fsync,
            "--daemonize", "no",
            "--logfile", str(self.dir / "redis.log"),
            "--maxmemory-policy", "noeviction",
            "--pidfile", str(self.dir / "redis.pid"),
        ]  # fmt: skip
        # Its output goes to its log file; its stdout must not hold the test run's pipe open.
        self.process = subprocess.Popen(
            args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
        )
        deadline = time.monotonic() + 20
        while not self._answers():
            if self.process.poll() is not None:
                log = (self.dir / "redis.log").read_text(errors="replace")[-2000:]
                raise RuntimeError(f"redis-server ended ({self.process.returncode}): {log}")
            if time.monotonic() > deadline:
                raise RuntimeError("redis-server did not answer PING within 20 s")
            time.sleep(0.02)

    def _answers(self) -> bool:
        if not self.socket.exists():
            return False
        try:
            with socket.socket(socket.AF_UNIX) as sock:
                sock.settimeout(1)
                sock.connect(str(self.socket))
                sock.sendall(b"PING\r\n")
                return sock.recv(64).startswith(b"+PONG")
        except OSError:
            return False

    def stop(self, kill: bool = False) -> None:
        """End the server: SIGTERM (it writes what it keeps, then exits) or SIGKILL (a crash)."""
        if self.process is None:
            return
        process, self.process = self.process, None
        if process.poll() is None:
            process.send_signal(signal.SIGKILL if kill else signal.SIGTERM)
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(5)
        self.socket.unlink(missing_ok=True)

    def restart(self, kill: bool = False) -> None:
        self.stop(kill=kill)
        self.start()

    def cleanup(self) -> None:
        self.stop(kill=True)
        shutil.rmtree(self.dir, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def sweep(folder: Path | None = None) -> list[Path]:
    """End the servers, and remove the folders, that a test process killed before its clean-up left
    behind (their owner is gone); returns the folders removed.  A live owner's server is left alone."""
    removed = []
    for path in sorted(Path(folder or tempfile.gettempdir()).glob(f"{PREFIX}*")):
        try:
            owner = int((path / "owner").read_text())
        except (OSError, ValueError):
            continue  # not made by this helper (or being made right now)
        if _alive(owner):
            continue
        try:
            pid = int((path / "redis.pid").read_text())
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        except (OSError, ValueError):
            pid, cmdline = 0, b""
        if pid and str(path / "redis.sock").encode() in cmdline:  # that server, not a reused pid
            os.kill(pid, signal.SIGKILL)
        shutil.rmtree(path, ignore_errors=True)
        removed.append(path)
    return removed
