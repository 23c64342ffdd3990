"""Tokens the env server and the cluster make for their clients."""

from __future__ import annotations

import secrets


def new_token() -> str:
    """A fresh server token: 192 random bits as hex.

    Hex, not urlsafe base64: 1 urlsafe token in 64 starts with ``-``, which a command line
    (``--token TOKEN``) reads as an option (CI saw ``eval --server-token <token>`` exit 2).
    """
    return secrets.token_hex(24)
