"""Applications inside the desktop: launching them and (later) their APIs."""

from .launcher import APPS, AppLauncher, LaunchedApp

__all__ = ["APPS", "AppLauncher", "LaunchedApp"]
