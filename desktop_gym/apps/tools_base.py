"""``AppTools``: what every app's tool class shares (the live document it is bound to, the home).

A tool class is instantiated per API call by the guest's registry (``desktop_gym.guest.apps.registry``)
with the app's current document (a UNO model for LibreOffice apps, None for apps without one) and
the session home. Errors an agent can cause are :class:`ApiArgumentError` (bad arguments) and
:class:`ApiCallError` (the app refused); both reach the agent as ``last_action_error``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

from desktop_gym.guest.apps.tool_schema import (
    DEFAULT_CALL_TIMEOUT_S,
    ApiArgumentError,
    ApiCallError,
    not_a_tool,
    slow,
)

__all__ = ["ApiArgumentError", "ApiCallError", "AppTools", "slow"]


class AppTools:
    """Base of every app's tool class.

    Subclasses set :attr:`document_check` to refuse a document of the wrong kind, and override
    :meth:`find_document` when they find their document themselves (apps without UNO). Every public
    method not marked ``@not_a_tool`` is offered to the agent (its hints and docstring are the schema).

    Args:
        document: The app's live document, or None to find it on first use.
        home: The session home, for paths starting with ``~/`` (default: ``$HOME``).
    """

    uses_uno: ClassVar[bool] = True
    """Whether the registry runs these tools on a LibreOffice document through UNO."""

    uses_a11y: ClassVar[bool] = False
    """Whether these tools reach their app over the accessibility bus (the registry then runs each call
    holding the guest's one libatspi lock, ``desktop_gym.guest.a11y.locked_bus``)."""

    call_timeout_s: ClassVar[float] = DEFAULT_CALL_TIMEOUT_S
    """Seconds the guest's watchdog lets one call run before it reports the app hung; a method that
    waits longer on purpose says so with ``@slow(seconds)``."""

    document_check: ClassVar[tuple[str, str] | None] = None
    """``(attribute, what)``: a bound document must have ``attribute``, else "the current document is not
    ``what``" (``("getSheets", "a spreadsheet (open one in Calc)")``)."""

    def __init__(self, document: Any = None, home: str | Path | None = None) -> None:
        self.home = Path(home) if home is not None else Path.home()
        if self.document_check is not None:
            attribute, what = self.document_check
            # hasattr is answered from pyuno's cached type information, not by a UNO round trip.
            if document is None or not hasattr(document, attribute):
                raise ApiArgumentError(f"the current LibreOffice document is not {what}")
        self._document = document

    @property
    def document(self) -> Any:
        """The live document the calls act on (found by :meth:`find_document` on first use)."""
        if self._document is None:
            self._document = self.find_document()
        return self._document

    @not_a_tool
    def find_document(self) -> Any:
        """The app's document when none was bound.

        Raises:
            ApiCallError: this app's tools need a bound document.
        """
        raise ApiCallError(f"{type(self).__name__} was called without a document of its app")

    @not_a_tool
    def shown_path(self, path: str | Path) -> str:
        """``path`` as the agent sees it: ``~/...`` under the home, else as given."""
        target = Path(path)
        home = self.home
        for base in {home, home.resolve()}:
            if target == base:
                return "~"
            if base in target.parents:
                return "~/" + target.relative_to(base).as_posix()
        return str(path)
