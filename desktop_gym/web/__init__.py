"""The web UI: live dashboard of env servers, trajectory viewer and training view (one ASGI app).

``create_app(...)`` builds a Starlette app; ``desktop-gym view DIR`` and ``desktop-gym serve
--dashboard PORT`` serve it with uvicorn. Pages are static HTML + vendored JS (no CDN, no build).
"""

from .app import create_app
from .sources import LocalServerSource, RemoteServersSource, StatusSource

__all__ = ["LocalServerSource", "RemoteServersSource", "StatusSource", "create_app"]
