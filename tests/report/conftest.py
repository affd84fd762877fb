"""Fixtures for the report tests.

``loopback_only``: chromedriver is driven over HTTP on 127.0.0.1, which the suite-wide socket
block forbids. For the duration of one test this lets sockets reach loopback addresses
(127.0.0.1, ::1, localhost) and nothing else; the previous (blocked) functions come back
afterwards.
"""
from __future__ import annotations

import _socket
import socket
from typing import Any, Iterator

import pytest

LOOPBACK = frozenset({"127.0.0.1", "::1", "localhost"})


class NonLoopbackBlocked(RuntimeError):
    pass


def _host(address: Any) -> str | None:
    if isinstance(address, tuple) and address:
        host = address[0]
        return host.decode() if isinstance(host, bytes) else str(host)
    return None


def _check(host: Any) -> None:
    h = host.decode() if isinstance(host, bytes) else host
    if h not in LOOPBACK:
        raise NonLoopbackBlocked(f"offline-eval tests must not open sockets (to {h!r})")


def _connect(self: socket.socket, address: Any) -> None:
    _check(_host(address))
    return _socket.socket.connect(self, address)


def _connect_ex(self: socket.socket, address: Any) -> int:
    _check(_host(address))
    return _socket.socket.connect_ex(self, address)


def _getaddrinfo(host: Any, port: Any, family: int = 0, type: int = 0, proto: int = 0,
                 flags: int = 0) -> list:
    _check(host)
    return [(socket.AddressFamily(af), socket.SocketKind(st), pr, canon, sa)
            for af, st, pr, canon, sa in _socket.getaddrinfo(host, port, family, type, proto,
                                                             flags)]


def _create_connection(address: Any, timeout: Any = socket._GLOBAL_DEFAULT_TIMEOUT,
                       source_address: Any = None, **_: Any) -> socket.socket:
    host, port = address[0], address[1]
    _check(host)
    error: OSError | None = None
    for af, st, pr, _canon, sa in _getaddrinfo(host, port, 0, socket.SOCK_STREAM):
        sock = socket.socket(af, st, pr)
        try:
            if timeout is not socket._GLOBAL_DEFAULT_TIMEOUT:
                sock.settimeout(timeout)
            if source_address:
                sock.bind(source_address)
            _connect(sock, sa)
            return sock
        except OSError as exc:
            error = exc
            sock.close()
    raise error or OSError(f"cannot connect to {address!r}")


@pytest.fixture
def loopback_only() -> Iterator[None]:
    """Sockets may reach loopback addresses during the test; everything else stays blocked."""
    saved = (socket.socket.connect, socket.socket.connect_ex, socket.create_connection,
             socket.getaddrinfo)
    socket.socket.connect = _connect  # type: ignore[method-assign]
    socket.socket.connect_ex = _connect_ex  # type: ignore[method-assign]
    socket.create_connection = _create_connection  # type: ignore[assignment]
    socket.getaddrinfo = _getaddrinfo  # type: ignore[assignment]
    try:
        yield
    finally:
        (socket.socket.connect, socket.socket.connect_ex, socket.create_connection,
         socket.getaddrinfo) = saved
