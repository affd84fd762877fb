"""Suite-wide fixtures. Sockets are blocked for the whole run: nothing here may
reach a network (a hub, an API) — the library is offline by construction."""
from __future__ import annotations

import socket
from pathlib import Path

import pytest
from hypothesis import settings

# No per-example deadline (shared CI cores make timings noisy) and a fixed seed, so a
# CI run is reproducible; run `pytest --hypothesis-seed=random` to explore further.
settings.register_profile("offline-eval", deadline=None, derandomize=True)
settings.load_profile("offline-eval")

SHARED_DATA = Path(__file__).resolve().parent.parent / "shared" / "data"


class NetworkBlocked(RuntimeError):
    pass


def _blocked(*args, **kwargs):
    raise NetworkBlocked("offline-eval tests must not open sockets")


@pytest.fixture(autouse=True, scope="session")
def _block_sockets():
    saved = (socket.socket.connect, socket.socket.connect_ex, socket.create_connection,
             socket.getaddrinfo)
    socket.socket.connect = _blocked  # type: ignore[method-assign]
    socket.socket.connect_ex = _blocked  # type: ignore[method-assign]
    socket.create_connection = _blocked  # type: ignore[assignment]
    socket.getaddrinfo = _blocked  # type: ignore[assignment]
    yield
    (socket.socket.connect, socket.socket.connect_ex, socket.create_connection,
     socket.getaddrinfo) = saved


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """Path to ../shared/data; skips the test when it is absent."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"shared data not found at {SHARED_DATA}")
    return SHARED_DATA


def pytest_addoption(parser):
    parser.addoption("--run-slow", action="store_true", help="run slow opt-in tests")


def pytest_collection_modifyitems(config, items):
    if config.getoption("--run-slow"):
        return
    skip = pytest.mark.skip(reason="slow; use --run-slow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)
