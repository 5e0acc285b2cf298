"""A stand-in room for the shared tables' wiring (the real room's side is the lobby's).

It prints the ``GAMENIGHT_TABLES_FD`` it was given (``tables_fd:<n>`` or
``tables_fd:None``); with one, it speaks the protocol over that socket (hello,
then a table list) and prints ``welcome:<name> tables:<count>``.  Then it
echoes nothing and waits: ``i`` makes it ignore SIGHUP and SIGTERM (it then
outlives its session until the server's SIGKILL), ``q`` quits.
"""

import os
import signal
import socket
import tty

from gamenight.tables import protocol as p


def say(text: str) -> None:
    os.write(1, (text + "\r\n").encode())


def receive(sock: socket.socket, size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = sock.recv(size - len(data))
        if not chunk:
            raise EOFError("the service closed the connection")
        data += chunk
    return data


def main() -> None:
    tty.setraw(0)
    fd = os.environ.get("GAMENIGHT_TABLES_FD")
    say(f"tables_fd:{fd}")
    if fd is not None:
        sock = socket.socket(fileno=int(fd))
        sock.settimeout(10)
        sock.sendall(p.encode(p.Hello(p.PROTOCOL_VERSION)) + p.encode(p.ListTables()))
        name = None
        while True:
            message = p.decode_service(receive(sock, int.from_bytes(receive(sock, 4), "big")))
            if isinstance(message, p.Welcome):
                name = message.name
            if isinstance(message, p.TableList):
                say(f"welcome:{name} tables:{len(message.tables)}")
                break
    while True:
        data = os.read(0, 1024)
        if not data or data == b"q":
            return
        if data == b"i":
            signal.signal(signal.SIGHUP, signal.SIG_IGN)
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            say("ignoring")


if __name__ == "__main__":
    main()
