"""A stand-in for the game room, used by the server tests that are not about the room.

It draws a title, reports its window size (and again on every SIGWINCH),
echoes each input chunk as ``got:<length>:<hex>``; ``s`` writes a file into
the saves folder given as its first argument, ``c`` starts a grandchild
(``child:<pid>``), ``i`` makes it ignore SIGHUP and SIGTERM, ``a`` makes it
autosave on SIGHUP/SIGTERM (0.3 s of work, then ``autosave-hup.toml`` and
exit 0), ``m`` allocates memory until it
cannot (``memory:<MiB>`` then exit status 3), ``w<path>``
tries to write a file at ``path``, ``q`` quits.  It also lists what it can
see of the data dir (``visible:``).
"""

import fcntl
import os
import signal
import struct
import subprocess
import sys
import termios
import time
import tty


def size() -> str:
    rows, cols, _, _ = struct.unpack("HHHH", fcntl.ioctl(0, termios.TIOCGWINSZ, b"\0" * 8))
    return f"size:{cols}x{rows}"


def say(text: str) -> None:
    os.write(1, (text + "\r\n").encode())


def main() -> None:
    saves = sys.argv[1]
    tty.setraw(0)
    signal.signal(signal.SIGWINCH, lambda *_: say(size()))
    say("gamenight fake room")
    say(f"term:{os.environ.get('TERM')} colours:{sys.argv[2] if len(sys.argv) > 2 else '?'}")
    say(size())
    say(f"saves:{sorted(os.listdir(saves))}")
    data_dir = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(saves))))
    say(f"visible:{sorted(os.listdir(data_dir))}:{sorted(os.listdir(os.path.join(data_dir, 'users')))}")
    say(f"processes:{sum(name.isdigit() for name in os.listdir('/proc'))}")
    while True:
        data = os.read(0, 65536)
        if not data:
            return
        say(f"got:{len(data)}:{data[:16].hex()}")
        if data == b"s":
            with open(os.path.join(saves, "autosave-fake.toml"), "w") as handle:
                handle.write("game = 'fake'\n")
            say("saved")
        if data == b"c":
            say(f"child:{subprocess.Popen(['sleep', '300']).pid}")
        if data == b"i":
            signal.signal(signal.SIGHUP, signal.SIG_IGN)
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            say("ignoring")
        if data.startswith(b"w/"):  # w<path>: try to write a file anywhere
            try:
                with open(data[1:].decode(), "w") as handle:
                    handle.write("x")
                say("wrote")
            except (OSError, ValueError) as error:
                say(f"refused:{getattr(error, 'strerror', error)}")
        if data == b"a":

            def save_and_quit(*_args: object) -> None:
                signal.signal(signal.SIGHUP, signal.SIG_IGN)
                signal.signal(signal.SIGTERM, signal.SIG_IGN)
                time.sleep(0.3)
                with open(os.path.join(saves, "autosave-hup.toml"), "w") as handle:
                    handle.write("game = 'fake'\n")
                os._exit(0)

            signal.signal(signal.SIGHUP, save_and_quit)
            signal.signal(signal.SIGTERM, save_and_quit)
            say("autosaving")
        if data == b"m":
            hoard = []
            try:
                while True:
                    hoard.append(bytearray(16 * 1024 * 1024))
            except MemoryError:
                mib = len(hoard) * 16
                hoard.clear()
                say(f"memory:{mib}")
                sys.exit(3)
        if data == b"q":
            return


if __name__ == "__main__":
    main()
