"""The suite runs with sockets blocked: anything that tries the network fails loudly."""
from __future__ import annotations

import socket

import pytest


def test_socket_connect_is_blocked():
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        with pytest.raises(RuntimeError, match="must not open sockets"):
            s.connect(("127.0.0.1", 9))
    finally:
        s.close()


def test_name_resolution_is_blocked():
    with pytest.raises(RuntimeError):
        socket.getaddrinfo("huggingface.co", 443)
