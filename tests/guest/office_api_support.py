"""What the CalcTools, WriterTools and ImpressTools tests share: calls over the real CallApi RPC, a save
through the API read back as bytes, and the source document opened in its app for a test module."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from desktop_gym.guest.client import GuestClient


@dataclass(frozen=True)
class OfficeApi:
    """One office app's API as its tests drive it.

    Attributes:
        tool_class: ``"CalcTools"``.
        app: The app key that opens the source document (``"calc"``).
        suffix: The source document's and saved copies' default suffix (``".xlsx"``).
        source: The source document's bytes.
    """

    tool_class: str
    app: str
    suffix: str
    source: Callable[[], bytes]

    def call(self, guest: GuestClient, method: str, **arguments: Any) -> Any:
        """``<tool_class>.<method>(**arguments)`` through the real CallApi RPC; the decoded result."""
        return json.loads(guest.call_api(self.tool_class, method, json.dumps(arguments)))

    def saved_copy(self, guest: GuestClient, suffix: str | None = None) -> bytes:
        """Save the live document through the API to a fresh file in the guest; return its bytes."""
        suffix = suffix or self.suffix
        path = self.call(guest, "save", path=f"~/api-saved/{uuid.uuid4().hex}{suffix}")
        assert path.endswith(suffix), path
        return guest.get_file(path)

    def launched(self, guest: GuestClient, name: str) -> Iterator[GuestClient]:
        """Put the source document in the guest as ``~/<name><suffix>``, open it in its app, kill it after."""
        guest.exec("mkdir -p ~/api-saved", shell=True)
        path = guest.put_file(f"~/{name}{self.suffix}", self.source())
        guest.launch_app(self.app, path)
        try:
            yield guest
        finally:
            guest.kill_apps()
