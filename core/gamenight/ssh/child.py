"""One game room process in its own pseudo-terminal.

The child leads a new session whose controlling terminal is the pty
(``TIOCSCTTY``, so window-size changes reach it as ``SIGWINCH``): either
``start_new_session`` plus the :mod:`gamenight.ssh.launch` first stage, or,
when sandboxed, ``setsid --ctty`` at the head of its argv.  Its
stdin, stdout and stderr are the pty (Textual draws on stderr).  The master
side is non-blocking and read through the event loop; input is buffered and
the SSH channel is paused when the child does not keep up, so a huge paste
costs at most a bounded buffer.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import fcntl
import os
import signal
import struct
import termios
from collections.abc import Callable, Mapping, Sequence

__all__ = ["MAX_COLS", "MAX_ROWS", "RoomProcess", "clamp_size"]

MAX_COLS = 500
MAX_ROWS = 200
INPUT_HIGH_WATER = 64 * 1024
"""Above this many unwritten input bytes the SSH channel stops reading."""
READ_CHUNK = 64 * 1024


def clamp_size(cols: int, rows: int) -> tuple[int, int]:
    """A window size the room can be trusted with (a client may claim 65535 x 65535)."""
    cols = cols if cols > 0 else 80
    rows = rows if rows > 0 else 24
    return min(cols, MAX_COLS), min(rows, MAX_ROWS)


def _ignore_hangup() -> None:
    """In the child before exec: SIGHUP and SIGTERM ignored (kept across exec).  For the sandbox's
    ``unshare``, which would otherwise die at once and SIGKILL the room it waits for."""
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)


def _set_size(fd: int, cols: int, rows: int) -> None:
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))


class RoomProcess:
    """A child process on a fresh pty, with output delivered to ``on_output``.

    ``on_input_blocked(True/False)`` tells the owner to pause/resume reading
    the client; ``hangup_ignored`` starts the child with SIGHUP and SIGTERM
    ignored (the sandbox's first stages; the room restores them); ``pass_fds`` are
    inherited by the child under the same numbers (the shared tables' socket);
    ``on_exit(returncode)`` is called once the child has exited and all of
    its output has been delivered.
    """

    def __init__(
        self,
        argv: Sequence[str],
        env: Mapping[str, str],
        cwd: str,
        size: tuple[int, int],
        on_output: Callable[[bytes], None],
        on_exit: Callable[[int], None],
        on_input_blocked: Callable[[bool], None],
        new_session: bool = True,
        hangup_ignored: bool = False,
        pass_fds: Sequence[int] = (),
    ) -> None:
        self._argv = list(argv)
        self._env = dict(env)
        self._cwd = cwd
        self._size = clamp_size(*size)
        self._on_output = on_output
        self._on_exit = on_exit
        self._on_input_blocked = on_input_blocked
        self._new_session = new_session
        self._hangup_ignored = hangup_ignored
        self._pass_fds = tuple(pass_fds)
        self._loop = asyncio.get_running_loop()
        self._master = -1
        self._process: asyncio.subprocess.Process | None = None
        self._pid: int | None = None
        self._pending = bytearray()
        self._writer_on = False
        self._reading = False
        self._output_done = asyncio.Event()
        self._input_blocked = False
        self._exit_reported = False
        self._waiter: asyncio.Task[None] | None = None
        self.returncode: int | None = None

    @property
    def pid(self) -> int | None:
        """The child's pid (also its process group and session id)."""
        return self._pid

    async def start(self) -> None:
        """Open the pty and start the child on it."""
        master, slave = os.openpty()
        try:
            _set_size(slave, *self._size)
            self._pid = await self._spawn(slave)
        except BaseException:
            os.close(master)
            raise
        finally:
            os.close(slave)
        self._master = master
        os.set_blocking(master, False)
        self.resume_output()
        self._waiter = self._loop.create_task(self._wait())  # keep a reference: tasks are weakly held

    async def _spawn(self, slave: int) -> int:
        """Start the child with ``slave`` as its stdin, stdout and stderr; its pid."""
        self._process = await asyncio.create_subprocess_exec(
            *self._argv,
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env=self._env,
            cwd=self._cwd,
            start_new_session=self._new_session,
            preexec_fn=_ignore_hangup if self._hangup_ignored else None,
            pass_fds=self._pass_fds,
        )
        return self._process.pid

    async def _exited(self) -> int:
        """Wait for the child to end; its exit status."""
        assert self._process is not None
        return await self._process.wait()

    async def _wait(self) -> None:
        returncode = await self._exited()
        # The pty reports EOF (EIO) once every holder of the slave has gone; a
        # grandchild could keep it open, so do not wait for it forever.
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._output_done.wait(), 2.0)
        self.returncode = returncode
        self._close_master()
        if not self._exit_reported:
            self._exit_reported = True
            self._on_exit(returncode)

    # -- output ---------------------------------------------------------------
    def pause_output(self) -> None:
        """Stop reading the pty (the client is not keeping up); the child blocks on write."""
        if self._reading and self._master >= 0:
            self._loop.remove_reader(self._master)
        self._reading = False

    def resume_output(self) -> None:
        """Read the pty again."""
        if not self._reading and self._master >= 0 and not self._output_done.is_set():
            self._loop.add_reader(self._master, self._read_ready)
            self._reading = True

    def _read_ready(self) -> None:
        try:
            data = os.read(self._master, READ_CHUNK)
        except BlockingIOError:
            return
        except OSError as error:  # EIO: every slave fd is closed
            if error.errno not in (errno.EIO, errno.EBADF):
                raise
            data = b""
        if not data:
            self.pause_output()
            self._output_done.set()
            return
        self._on_output(data)

    # -- input ----------------------------------------------------------------
    def write(self, data: bytes) -> None:
        """Queue input for the child; the owner is told to pause above the high-water mark."""
        if self._master < 0:
            return
        self._pending += data
        self._flush()

    def _flush(self) -> None:
        while self._pending and self._master >= 0:
            try:
                written = os.write(self._master, self._pending[:READ_CHUNK])
            except BlockingIOError:
                break
            except OSError:
                self._pending.clear()
                break
            del self._pending[:written]
        if self._pending and not self._writer_on and self._master >= 0:
            self._loop.add_writer(self._master, self._flush)
            self._writer_on = True
        elif not self._pending and self._writer_on:
            self._loop.remove_writer(self._master)
            self._writer_on = False
        blocked = len(self._pending) > INPUT_HIGH_WATER
        if blocked != self._input_blocked:
            self._input_blocked = blocked
            self._on_input_blocked(blocked)

    # -- window size and ending ------------------------------------------------
    def resize(self, cols: int, rows: int) -> None:
        """Set the pty's window size and tell the child's process group."""
        size = clamp_size(cols, rows)
        if self._master < 0 or size == self._size:
            return
        self._size = size
        with contextlib.suppress(OSError):
            _set_size(self._master, *size)
        self._signal(signal.SIGWINCH)

    def _signal(self, signum: int) -> bool:
        if self._pid is None or self.returncode is not None:
            return False
        try:
            os.killpg(self._pid, signum)
        except (ProcessLookupError, PermissionError):
            return False
        return True

    async def terminate(self, grace: float) -> None:
        """SIGHUP then SIGTERM to the process group; SIGKILL what is left after ``grace`` seconds."""
        if self._pid is None:
            return
        self._signal(signal.SIGHUP)
        self._signal(signal.SIGTERM)
        exited = asyncio.ensure_future(self._exited())
        try:
            await asyncio.wait_for(asyncio.shield(exited), grace)
        except TimeoutError:
            pass
        # The group may outlive its leader (a helper the room started): end it all.
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self._pid, signal.SIGKILL)
        await exited

    def _close_master(self) -> None:
        if self._master < 0:
            return
        self.pause_output()
        if self._writer_on:
            self._loop.remove_writer(self._master)
            self._writer_on = False
        os.close(self._master)
        self._master = -1
        self._pending.clear()
