"""``OSTools``: files, folders, shell commands and the clipboard of the desktop user.

Offered next to the focused app's API whatever app is focused (app key ``"os"``). It needs no
UNO connection: the registry runs it in a worker thread under the same deadline as app APIs.
File paths are the desktop user's, confined to the home (see :mod:`desktop_gym.apps.home_files`). The clipboard is
the desktop's X ``CLIPBOARD`` selection through ``xclip``, so real apps paste what is set here.
"""

from __future__ import annotations

import subprocess
from typing import ClassVar

from desktop_gym.guest.apps.tool_schema import ApiArgumentError, ApiCallError, slow
from desktop_gym.guest.processes import run_capped, session_env

from ..home_files import OSFileTools, truncate

MAX_SHELL_TIMEOUT_S = 120.0
MAX_OUTPUT_CHARS = 1_000_000
CLIPBOARD_TIMEOUT_S = 5.0


class OSTools(OSFileTools):
    """Files and folders under the home folder (~), shell commands, and the clipboard.

    Paths may start with "~/" (the home folder), be relative to the home folder, or be absolute
    paths inside it.
    """

    uses_uno: ClassVar[bool] = False
    """The registry runs these tools without a UNO connection or a launched app."""

    # ------------------------------------------------------------------ shell
    @slow(MAX_SHELL_TIMEOUT_S + 5)
    def run_shell(self, command: str, timeout: float = 30.0, cwd: str = "~", max_output_chars: int = 10000) -> dict:
        """Run a bash command as the desktop user and wait for it; everything it started ends with it.

        Args:
            command: The command line, e.g. "ls -l ~/Documents | head".
            timeout: Seconds before the command and its children are killed (at most 120).
            cwd: The folder to run in (default: the home folder).
            max_output_chars: stdout and stderr are each cut to this many characters (at most 1000000).

        Returns:
            {"exit_code", "stdout", "stderr", "timed_out", "truncated"}; exit_code is -9 after a
            timeout.
        """
        if not command.strip():
            raise ApiArgumentError("command must not be empty")
        if not 0 < timeout <= MAX_SHELL_TIMEOUT_S:
            raise ApiArgumentError(f"timeout must be more than 0 and at most {MAX_SHELL_TIMEOUT_S:g} s, got {timeout}")
        if not 1 <= max_output_chars <= MAX_OUTPUT_CHARS:
            raise ApiArgumentError(f"max_output_chars must be 1 to {MAX_OUTPUT_CHARS}, got {max_output_chars}")
        folder = self._existing(cwd, "cwd")
        if not folder.is_dir():
            raise ApiArgumentError(f"cwd: {self._show(folder)} is not a folder")
        # Output is read through a bounded buffer (4 bytes per character at most in UTF-8), and the
        # command runs in a PID namespace: setsid children die with it instead of outliving it.
        result, cut_bytes = run_capped(
            ["bash", "-c", command],
            session_env(self.home),
            timeout=timeout,
            cwd=folder,
            max_output_bytes=4 * max_output_chars + 4,
            pid_namespace=True,
        )
        stdout, cut_out = truncate(result.stdout, max_output_chars)
        stderr, cut_err = truncate(result.stderr, max_output_chars)
        cut_out = cut_out or cut_bytes
        return {
            "exit_code": result.returncode,
            "stdout": stdout,
            "stderr": stderr,
            "timed_out": result.timed_out,
            "truncated": cut_out or cut_err,
        }

    # ------------------------------------------------------------------ clipboard
    def _xclip(self, args: list[str], text: str | None = None) -> subprocess.CompletedProcess[bytes]:
        try:
            # On set, xclip forks a child that owns the selection until another app takes it; that
            # child must not hold our pipes, or waiting for the parent would wait for it too.
            return subprocess.run(
                ["xclip", "-selection", "clipboard", *args],
                input=text.encode("utf-8") if text is not None else None,
                stdout=subprocess.DEVNULL if text is not None else subprocess.PIPE,
                stderr=subprocess.DEVNULL if text is not None else subprocess.PIPE,
                env=session_env(self.home),
                timeout=CLIPBOARD_TIMEOUT_S,
                start_new_session=True,
                check=False,
            )
        except FileNotFoundError:
            raise ApiCallError("the clipboard needs the xclip program in the desktop (apt-get install xclip)") from None
        except subprocess.TimeoutExpired:
            raise ApiCallError(f"the X clipboard did not answer within {CLIPBOARD_TIMEOUT_S:g} s") from None

    def get_clipboard(self) -> str:
        """Read the text on the desktop's clipboard (what ctrl+c copied in an app).

        Returns:
            The clipboard text, or "" when the clipboard holds no text.
        """
        result = self._xclip(["-o"])
        if result.returncode != 0:
            return ""  # nobody owns the clipboard, or the owner offers no text
        return result.stdout.decode("utf-8", errors="replace")

    def set_clipboard(self, text: str) -> str:
        """Put text on the desktop's clipboard, so that ctrl+v pastes it into an app.

        Args:
            text: The text to copy.

        Returns:
            A confirmation with the number of characters.
        """
        result = self._xclip(["-i"], text)
        if result.returncode != 0:
            raise ApiCallError(f"xclip could not take the clipboard (exit code {result.returncode})")
        return f"copied {len(text)} characters to the clipboard"
