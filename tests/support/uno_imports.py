"""Keep ModuleNotFoundError a ModuleNotFoundError after LibreOffice's ``uno`` is imported."""

from __future__ import annotations

import builtins
from typing import Any


def keep_import_error_types() -> None:
    """Import ``uno`` (which installs its import hook) and wrap the hook so that a failed import
    raises the error Python itself raised, not uno's plain ``ImportError``. Idempotent; a no-op
    where uno is not installed."""
    try:
        import uno
    except ImportError:
        return
    hook = builtins.__import__
    if getattr(hook, "_keeps_error_types", False):
        return
    plain_import = uno._builtin_import

    def import_keeping_error_types(name: str, *args: Any, **kwargs: Any) -> Any:
        try:
            return hook(name, *args, **kwargs)
        except ImportError as error:
            if getattr(error, "_uno_import_failed", False):
                return plain_import(name, *args, **kwargs)  # raises the original error type
            raise

    import_keeping_error_types._keeps_error_types = True  # type: ignore[attr-defined]
    builtins.__import__ = import_keeping_error_types
