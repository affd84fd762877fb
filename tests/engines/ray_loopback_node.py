"""``ray start`` for a worker node on 127.0.0.1: the same CLI command with one patch.

``python ray_loopback_node.py start --address=127.0.0.1:PORT --node-ip-address=127.0.0.1 ...``

Ray 2.60's ``ray start`` passes both ``--address`` and ``--node-ip-address`` through
``ray._private.services.resolve_ip_for_localhost``. That function replaces ``127.0.0.1``
(and ``localhost``, ``::1``) with the machine's interface address, 192.0.2.2 here, unless
``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0``, and with that setting ``ray start --address``
refuses to start a worker node at all. So the stock CLI cannot put a second node on
loopback. The observed failures:

- ``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0``: ``Multi-node Ray clusters are not supported on
  Windows and OSX. Restart the Ray cluster with the environment variable
  RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=1 to proceed anyway.``
- unset or ``1``: ``Local node IP: 192.0.2.2``, then ``Failed to connect to GCS at address
  192.0.2.2:PORT within 5 seconds``, retried forever (the head listens on 127.0.0.1 only).

Other loopback addresses (127.0.0.2) are not rewritten, but Ray binds its gRPC servers
to 0.0.0.0 for any node address other than 127.0.0.1, which exposes them beyond loopback.
Turning the rewrite off leaves everything else to the real ``ray start``: the raylet gets
``--node_ip_address=127.0.0.1`` and binds 127.0.0.1 only, like the head.
"""
from __future__ import annotations

import sys

if __name__ == "__main__":
    import ray._private.services as services
    from ray.scripts.scripts import main

    services.resolve_ip_for_localhost = lambda host: host
    sys.exit(main())
