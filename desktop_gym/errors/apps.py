"""Inside the desktop: the apps, their APIs, UNO and the accessibility tree.

The guest sends each as its ``Guest*`` counterpart (see ``desktop_gym/guest/server.py``).
"""

from __future__ import annotations

from .base import DesktopGymError


class A11yError(DesktopGymError, RuntimeError, code="a11y"):
    """The accessibility tree could not be read."""


class A11yUnavailableError(A11yError, code="a11y_unavailable"):
    """No accessibility bus answers (the app or the session bus is gone)."""


class A11yTimeoutError(A11yError, TimeoutError, code="a11y_timeout"):
    """Reading the accessibility tree took longer than its deadline."""


class A11yNodeNotFoundError(DesktopGymError, LookupError, code="a11y_node_not_found"):
    """The node a GUI script needs is not (yet) in the observation's accessibility tree."""


class WindowNotFoundError(DesktopGymError, LookupError, code="window_not_found"):
    """No managed window has the given id."""


class AppLaunchError(DesktopGymError, RuntimeError, code="app_start"):
    """An application could not be started (or died while starting)."""


class OfficeProfileError(DesktopGymError, RuntimeError, code="office_profile"):
    """The LibreOffice profile template could not be built."""


class UnoError(DesktopGymError, RuntimeError, code="uno"):
    """A UNO call failed, or the office is unreachable."""


class UnoTimeoutError(UnoError, TimeoutError, code="uno_timeout"):
    """A UNO call did not return before its deadline (the office may hang)."""


class ApiArgumentError(DesktopGymError, ValueError, code="api_argument"):
    """The arguments of an API call do not fit the method's signature; the message names the arg."""


class UnknownApiMethodError(DesktopGymError, LookupError, code="unknown_api_method"):
    """The tool class has no such method (the message names the closest ones)."""


class UnknownAppApiError(DesktopGymError, LookupError, code="unknown_app_api"):
    """No tool class exists for the app (or tool class name) asked for."""


class ApiCallError(DesktopGymError, RuntimeError, code="api_refused"):
    """The app refused a well-formed API call (the message says why)."""


class AppPluginError(DesktopGymError, RuntimeError, code="app_plugin"):
    """An entry point of ``desktop_gym.apps`` does not name an ``AppSpec`` (the message names it)."""


class DevToolsError(DesktopGymError, RuntimeError, code="devtools"):
    """The browser's DevTools endpoint is unreachable, timed out, or answered a command with an error."""
