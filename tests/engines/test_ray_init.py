"""How the Ray engine calls ``ray.init``, checked without starting Ray: a local instance
is put on loopback, a cluster is joined as it is, and nothing leaks past the call."""
from __future__ import annotations

import os

import pytest

from offline_eval.engines.ray_engine import _CLUSTER_ENV, LOOPBACK, _init_kwargs, _loopback_only

ENV = {"env_vars": {"PYTHONPATH": "/x"}}


@pytest.mark.parametrize("address", [None, "local"])
def test_local_runs_start_an_instance_on_loopback(address):
    kwargs = _init_kwargs(address, True, ENV)
    assert kwargs == {"address": address, "runtime_env": ENV, "log_to_driver": False,
                      "include_dashboard": False, "num_cpus": os.cpu_count(),
                      "_node_ip_address": "127.0.0.1"}


def test_cluster_runs_pass_neither_node_address_nor_cpus():
    kwargs = _init_kwargs("ray://head:10001", False, ENV)
    assert kwargs == {"address": "ray://head:10001", "runtime_env": ENV, "log_to_driver": False,
                      "include_dashboard": False}


def test_node_ip_address_is_a_keyword_of_the_installed_ray():
    ray = pytest.importorskip("ray")
    import inspect

    source = inspect.getsource(ray.init)
    assert '"_node_ip_address"' in source  # popped from **kwargs by ray.init


@pytest.fixture
def ray_constants(monkeypatch):
    pytest.importorskip("ray")
    import ray
    from ray._private import ray_constants

    if ray.is_initialized():
        pytest.skip("a Ray instance is running in this process")
    # As when ray was imported before the engine ran, without the variable.
    monkeypatch.delenv(_CLUSTER_ENV, raising=False)
    monkeypatch.setattr(ray_constants, "ENABLE_RAY_CLUSTER", True)
    return ray_constants


def test_loopback_holds_for_the_call_only_whenever_ray_was_imported(ray_constants):
    from ray._private.services import resolve_ip_for_localhost

    with _loopback_only():
        assert os.environ[_CLUSTER_ENV] == "0"  # for the processes ray.init starts
        assert ray_constants.ENABLE_RAY_CLUSTER is False
        # what ray.init does with _node_ip_address: kept on loopback, not rewritten
        assert resolve_ip_for_localhost(LOOPBACK) == LOOPBACK
    assert _CLUSTER_ENV not in os.environ  # a later cluster run is unaffected
    assert ray_constants.ENABLE_RAY_CLUSTER is True


def test_loopback_is_restored_when_init_fails(ray_constants):
    with pytest.raises(RuntimeError), _loopback_only():
        raise RuntimeError("ray.init failed")
    assert _CLUSTER_ENV not in os.environ and ray_constants.ENABLE_RAY_CLUSTER is True


def test_an_explicit_setting_is_left_alone(ray_constants, monkeypatch):
    monkeypatch.setenv(_CLUSTER_ENV, "1")
    with _loopback_only():
        assert os.environ[_CLUSTER_ENV] == "1" and ray_constants.ENABLE_RAY_CLUSTER is True
    assert os.environ[_CLUSTER_ENV] == "1"
