"""VS Code: code-server (VS Code in the browser, from npm) shown in a Chromium app window. Its spec;
``VSCodeTools`` in ``tools``.

Each launch starts code-server on a free loopback port with its data in the home
(``~/.local/share/code-server``: settings.json, keybindings.json, extensions) and the workbench in a
``chromium --app`` window of its own profile; the launch is recorded in
``~/.config/gym-vscode/session.json`` for the tools. ``scripts/install_code_server.sh`` installs
code-server offline from the npm registry. Standard library only.
"""

from __future__ import annotations

from ..spec import command_app

SPEC = command_app(
    "vscode",
    command="code-server",
    window_class="gym-vscode",
    aliases=("vs code", "visual studio code", "code", "code-server", "code editor", "ide"),
    packages=("chromium", "nodejs", "ripgrep"),
    doctor=("code-server", "chromium", "node"),
    domain="vs_code",
    file_types=(".py", ".js", ".ts", ".json", ".md", ".yaml", ".toml", ".sh"),
    tools="VSCodeTools",
    hooks="vscode",
    present_hook="desktop_gym.apps.vscode.launch:vscode_presented",
)
