"""``desktop-gym serve`` (an env server on this node) and ``desktop-gym cluster up|status|down`` (Ray)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

TOKEN_ENV = "DESKTOP_GYM_TOKEN"


def cmd_serve(args: argparse.Namespace) -> int:
    """Run an env server until SIGTERM/SIGINT; print one JSON line with its address and token."""
    from .serve.server import EnvServer

    address = f"unix:{os.path.abspath(args.unix)}" if args.unix else args.address
    token = args.token if args.token is not None else os.environ.get(TOKEN_ENV)
    try:
        server = EnvServer(
            address,
            token,
            backend=args.backend,
            max_envs=args.max_envs,
            warm=args.warm,
            lease_ttl=args.lease_ttl,
            min_free_memory_mb=args.min_free_memory_mb,
        ).start()
    except (ValueError, RuntimeError) as error:
        print(f"desktop-gym serve: {error}", file=sys.stderr)
        return 2
    if args.token_file:
        with open(os.open(args.token_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as handle:
            handle.write(server.token)
    announce = {"address": server.address, "token": server.token, "server_id": server.server_id}
    web = None
    if args.dashboard is not None:
        from .web import LocalServerSource, create_app
        from .web.runner import WebServer

        app = create_app(source=LocalServerSource(server), root=args.runs, token=server.token or None)
        web = WebServer(app, host=args.dashboard_host, port=args.dashboard).start()
        announce["dashboard"] = f"{web.url}/dashboard"
    print(json.dumps(announce), flush=True)
    try:
        server.serve_forever()
    finally:
        if web is not None:
            web.stop()
    return 0


def _cluster_report(cluster: Any) -> dict[str, Any]:
    return {"token": cluster.token, "servers": [address for address, _ in cluster.servers]}


def cmd_cluster_up(args: argparse.Namespace) -> int:
    """Start detached env-server actors on a running Ray cluster; print their addresses and token."""
    from .serve.cluster import EnvCluster

    cluster = EnvCluster(
        args.num_envs,
        backend=args.backend,
        envs_per_node=args.envs_per_node,
        address=args.ray_address,
        lease_ttl=args.lease_ttl,
        detached=True,
    )
    print(json.dumps(_cluster_report(cluster)), flush=True)
    return 0


def _attached_cluster(args: argparse.Namespace) -> Any:
    """The detached cluster at ``--ray-address``; None, the reason printed, when there is none."""
    from .serve.cluster import EnvCluster

    try:
        return EnvCluster.attach(args.ray_address)
    except LookupError as error:
        print(error, file=sys.stderr)
        return None


def cmd_cluster_status(args: argparse.Namespace) -> int:
    """Print each server's address, envs, pool and counters."""
    if (cluster := _attached_cluster(args)) is None:
        return 1
    for status in cluster.status():
        keep = ("server_id", "address", "pool", "counters", "steps_per_s")
        print(json.dumps({key: status.get(key) for key in keep} | {"envs": len(status["envs"])}))
    return 0


def cmd_cluster_dashboard(args: argparse.Namespace) -> int:
    """Serve the web dashboard of every env server of the cluster (the cluster view) until interrupted."""
    import uvicorn

    from .web import RemoteServersSource, create_app

    if (cluster := _attached_cluster(args)) is None:
        return 1
    addresses = [address for address, _ in cluster.servers]
    app = create_app(source=RemoteServersSource(addresses, cluster.token), token=cluster.token)
    print(f"cluster dashboard for {len(addresses)} env servers: http://{args.host}:{args.port}/dashboard", flush=True)
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    return 0


def cmd_cluster_down(args: argparse.Namespace) -> int:
    """Drain and remove the detached env servers."""
    if (cluster := _attached_cluster(args)) is None:
        return 1
    count = len(cluster.actors)
    cluster.shutdown()
    print(f"stopped {count} env servers")
    return 0


def add_serve_commands(subparsers: Any) -> None:
    """Add ``serve`` and ``cluster up|status|down`` to the ``desktop-gym`` parser."""
    serve = subparsers.add_parser("serve", help="run an env server (many envs on this node, over gRPC)")
    serve.add_argument("--address", default="127.0.0.1:50051", help="HOST:PORT (non-loopback needs a token)")
    serve.add_argument("--unix", default=None, help="listen on this unix socket instead")
    serve.add_argument("--token", default=None, help=f"client token (default ${TOKEN_ENV}, else a new one)")
    serve.add_argument("--token-file", default=None, help="write the token to this file (mode 0600)")
    serve.add_argument("--backend", default="local", help="local | container | loadtest (a stand-in for load tests)")
    serve.add_argument("--max-envs", type=int, default=8)
    serve.add_argument("--warm", type=int, default=1, help="desktops kept pre-started")
    serve.add_argument("--lease-ttl", type=float, default=60.0, help="seconds an env lives without a call")
    serve.add_argument("--min-free-memory-mb", type=float, default=1024.0)
    serve.add_argument("--dashboard", type=int, default=None, metavar="PORT", help="live web dashboard on PORT")
    serve.add_argument("--dashboard-host", default="127.0.0.1", help="the dashboard's bind address")
    serve.add_argument("--runs", default=None, help="a trajectory folder the dashboard's viewer also shows")
    serve.set_defaults(handler=cmd_serve)

    cluster = subparsers.add_parser("cluster", help="env servers on a Ray cluster (one per desktop node)")
    cluster_sub = cluster.add_subparsers(dest="cluster_command", required=True)
    up = cluster_sub.add_parser("up", help="start env servers (nodes need a 'desktop' resource)")
    up.add_argument("--num-envs", type=int, required=True)
    up.add_argument("--envs-per-node", type=int, default=4)
    up.add_argument("--backend", default="local")
    up.add_argument("--lease-ttl", type=float, default=60.0)
    up.set_defaults(handler=cmd_cluster_up)
    status = cluster_sub.add_parser("status", help="per server: address, envs, pool, counters")
    status.set_defaults(handler=cmd_cluster_status)
    dashboard = cluster_sub.add_parser("dashboard", help="the web dashboard of every env server of the cluster")
    dashboard.add_argument("--port", type=int, default=8080)
    dashboard.add_argument("--host", default="127.0.0.1")
    dashboard.set_defaults(handler=cmd_cluster_dashboard)
    down = cluster_sub.add_parser("down", help="drain and remove the env servers")
    down.set_defaults(handler=cmd_cluster_down)
    for command in (up, status, dashboard, down):
        command.add_argument("--ray-address", default="auto", help="Ray cluster address (default: auto)")
