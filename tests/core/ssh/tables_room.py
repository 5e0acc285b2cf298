"""A stand-in room for the shared tables' wiring (the real room's side is the lobby's).

It prints the ``GAMENIGHT_TABLES_FD`` it was given (``tables_fd:<n>`` or
``tables_fd:None``); with one, it speaks the protocol over that socket (hello,
then a table list) and prints ``welcome:<name> tables:<count>``.  Then it
waits for keys: ``l`` asks for the table list again (``listed:<count>``), ``g``
sends the service garbage and prints its answer (``error:<code>``, or
``closed`` when it hangs up), ``i`` makes it ignore SIGHUP and SIGTERM (it then
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


def next_message(sock: socket.socket) -> p.ServiceMessage:
    return p.decode_service(receive(sock, int.from_bytes(receive(sock, 4), "big")))


def main() -> None:
    tty.setraw(0)
    fd = os.environ.get("GAMENIGHT_TABLES_FD")
    say(f"tables_fd:{fd}")
    sock = None
    if fd is not None:
        sock = socket.socket(fileno=int(fd))
        sock.settimeout(10)
        sock.sendall(p.encode(p.Hello(p.PROTOCOL_VERSION)) + p.encode(p.ListTables()))
        name = None
        while not isinstance(message := next_message(sock), p.TableList):
            if isinstance(message, p.Welcome):
                name = message.name
        say(f"welcome:{name} tables:{len(message.tables)}")
    while True:
        data = os.read(0, 1024)
        if not data or data == b"q":
            return
        if data == b"l" and sock is not None:
            sock.sendall(p.encode(p.ListTables()))
            while not isinstance(message := next_message(sock), p.TableList):
                pass
            say(f"listed:{len(message.tables)}")
        if data == b"g" and sock is not None:
            sock.sendall(b"\x00\x00\x00\x05hello")  # a frame, but not MessagePack of any message
            try:
                while not isinstance(message := next_message(sock), p.Error):
                    pass
                say(f"error:{message.code}")
                say("closed" if sock.recv(1) == b"" else "still open")
            except EOFError:
                say("closed")
        if data == b"i":
            signal.signal(signal.SIGHUP, signal.SIG_IGN)
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            say("ignoring")


if __name__ == "__main__":
    main()
