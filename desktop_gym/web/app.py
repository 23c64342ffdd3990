"""The ASGI app: dashboard, trajectory viewer and training view, with a small JSON/SSE API.

Read-only by default: the one state-changing call (closing an env) needs
``Authorization: Bearer <token>`` and is refused outright when the app has no token.
"""

from __future__ import annotations

import asyncio
import hmac
import json
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, RedirectResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from ..train.metrics import read_metrics
from . import trajectories
from .sources import StatusSource

STATIC = Path(__file__).parent / "static"
MAX_THUMB_WIDTH = 1280
MAX_METRIC_ROWS = 100_000
EVENT_INTERVAL_S = 0.5  # the dashboard's refresh period over server-sent events
MAX_EVENT_STREAM_S = 3600.0  # one event stream lasts at most this long (the page reconnects)


def _page(name: str) -> FileResponse:
    return FileResponse(STATIC / name, media_type="text/html")


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


def _viewer_redirect(root: Path, relative: str) -> Response | None:
    """``<folder>/view/<rest>`` -> ``/view/<folder>/<rest>``: an eval report links ``view/...`` from its own folder.

    None unless ``<folder>`` is a folder inside ``root`` and ``<rest>`` is not empty.
    """
    folder, marker, rest = relative.partition("/view/")
    if not marker or not rest:
        return None
    try:
        trajectories.confined(root, f"{folder}/{rest}")  # the target must stay inside the folder too
        if not trajectories.confined(root, folder).is_dir():
            return None
    except PermissionError:
        return None
    return RedirectResponse(f"/view/{folder}/{rest}", status_code=307)


def create_app(
    *,
    source: StatusSource | None = None,
    root: Path | str | None = None,
    token: str | None = None,
    event_interval: float = EVENT_INTERVAL_S,
) -> Starlette:
    """Build the web app.

    Args:
        source: live env-server data for the dashboard (None: no dashboard).
        root: a folder of trajectories, eval results and training runs (None: no viewer).
        token: the token that state-changing calls need (None: the dashboard is read-only).
        event_interval: seconds between dashboard updates on the event stream.
    """
    root_path = Path(root).resolve() if root is not None else None

    def need_root() -> Path:
        if root_path is None:
            raise LookupError("this server has no trajectory folder (start it with desktop-gym view DIR)")
        return root_path

    def need_source() -> StatusSource:
        if source is None:
            raise LookupError("this server has no env server to watch (desktop-gym serve --dashboard PORT)")
        return source

    async def index(request: Request) -> Response:
        return _page("index.html")

    async def config(request: Request) -> Response:
        return JSONResponse({"dashboard": source is not None, "viewer": root_path is not None, "writable": bool(token)})

    async def status(request: Request) -> Response:
        try:
            return JSONResponse(await run_in_threadpool(need_source().status))
        except LookupError as error:
            return _error(404, str(error))

    async def events(request: Request) -> Response:
        try:
            watched = need_source()
        except LookupError as error:
            return _error(404, str(error))

        async def stream() -> Any:
            loop = asyncio.get_running_loop()
            ends = loop.time() + MAX_EVENT_STREAM_S
            while loop.time() < ends and not await request.is_disconnected():
                payload = await run_in_threadpool(watched.status)
                yield f"data: {json.dumps(payload)}\n\n"
                await asyncio.sleep(event_interval)

        return StreamingResponse(stream(), media_type="text/event-stream", headers={"Cache-Control": "no-store"})

    async def thumbnail(request: Request) -> Response:
        try:
            width = int(request.query_params.get("w", "320"))
            if not 8 <= width <= MAX_THUMB_WIDTH:
                raise ValueError(f"w: between 8 and {MAX_THUMB_WIDTH}, got {width}")
            server = int(request.path_params["server"])
            data = await run_in_threadpool(need_source().thumbnail, server, request.path_params["env_id"], width)
        except ValueError as error:
            return _error(400, str(error))
        except LookupError as error:
            return _error(404, str(error))
        except Exception as error:  # noqa: BLE001 - a gone env or server is a 404, not a 500
            return _error(404, str(error))
        if not data:
            return Response(status_code=204)
        return Response(data, media_type="image/jpeg", headers={"Cache-Control": "no-store"})

    async def close_env(request: Request) -> Response:
        if not token:
            return _error(403, "the dashboard is read-only (started without a token)")
        given = request.headers.get("authorization", "").removeprefix("Bearer ").strip()
        if not hmac.compare_digest(given.encode(), token.encode()):
            return _error(401, "closing an env needs 'Authorization: Bearer <token>'")
        try:
            server = int(request.path_params["server"])
            await run_in_threadpool(need_source().close_env, server, request.path_params["env_id"])
        except Exception as error:  # noqa: BLE001 - reported to the page
            return _error(404, str(error))
        return JSONResponse({"closed": request.path_params["env_id"]})

    async def episodes(request: Request) -> Response:
        try:
            folder = need_root()
        except LookupError as error:
            return _error(404, str(error))
        task = request.query_params.get("task", "")[:200]
        success = request.query_params.get("success", "")
        return JSONResponse(await run_in_threadpool(trajectories.list_episodes, folder, task, success))

    async def episode(request: Request) -> Response:
        try:
            data = await run_in_threadpool(trajectories.episode, need_root(), request.path_params["path"])
        except PermissionError as error:
            return _error(403, str(error))
        except (LookupError, OSError, ValueError) as error:
            return _error(404, str(error))
        return JSONResponse(data)

    async def runs(request: Request) -> Response:
        try:
            return JSONResponse(await run_in_threadpool(trajectories.find_metrics, need_root()))
        except LookupError as error:
            return _error(404, str(error))

    async def metrics(request: Request) -> Response:
        try:
            path = trajectories.confined(need_root(), request.path_params["path"])
            if path.name != "metrics.jsonl":
                raise LookupError(f"{request.path_params['path']}: not a metrics.jsonl file")
            rows = await run_in_threadpool(read_metrics, path)
        except PermissionError as error:
            return _error(403, str(error))
        except (LookupError, OSError) as error:
            return _error(404, str(error))
        return JSONResponse(rows[-MAX_METRIC_ROWS:])

    async def files(request: Request) -> Response:
        try:
            path = trajectories.confined(need_root(), request.path_params.get("path", ""))
        except PermissionError as error:
            return _error(403, str(error))
        except LookupError as error:
            return _error(404, str(error))
        if not path.is_file():
            relative = request.path_params.get("path", "")
            viewer = _viewer_redirect(need_root(), relative)
            return viewer if viewer is not None else _error(404, f"no file {relative!r}")
        return FileResponse(path)

    routes = [
        Route("/", index),
        Route("/api/config", config),
        Route("/api/status", status),
        Route("/api/events", events),
        Route("/api/thumb/{server:int}/{env_id}", thumbnail),
        Route("/api/envs/{server:int}/{env_id}/close", close_env, methods=["POST"]),
        Route("/api/episodes", episodes),
        Route("/api/episode/{path:path}", episode),
        Route("/api/runs", runs),
        Route("/api/metrics/{path:path}", metrics),
        Route("/dashboard", lambda request: _page("dashboard.html")),
        Route("/view", lambda request: _page("viewer.html")),
        Route("/view/{path:path}", lambda request: _page("episode.html")),
        Route("/train", lambda request: _page("train.html")),
        Route("/favicon.ico", lambda request: FileResponse(STATIC / "favicon.svg", media_type="image/svg+xml")),
        Mount("/static", StaticFiles(directory=STATIC)),
        Route("/files/{path:path}", files),
        Route("/{path:path}", files),  # the folder's own files (eval report.html links into /view/...)
    ]
    return Starlette(routes=routes)
