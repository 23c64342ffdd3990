"""The desktop's apps, one folder each (``desktop_gym/apps/<key>/``), listed in the entry-point group
``desktop_gym.apps``.

A folder holds the app's spec (``SPEC`` in its ``__init__``: packages, launch, readiness, names,
file types), its tool class on :class:`~.tools_base.AppTools` (``tools``), and what else is its own.
See :mod:`.spec` for the table every layer reads and :mod:`.plugins` for adding an app from another
package. Importing this package imports no app: standard library only.
"""

from __future__ import annotations

from .spec import APP_SPECS, AppSpec, app_aliases, app_spec, document_apps, launchable_apps, register_app

__all__ = ["APP_SPECS", "AppSpec", "app_aliases", "app_spec", "document_apps", "launchable_apps", "register_app"]
