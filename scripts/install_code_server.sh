#!/usr/bin/env bash
# Installs code-server (VS Code in the browser, the `vscode` app) from the npm registry, offline from
# GitHub: code-server 4.100.3 is the newest release whose engines accept Node 20. Its npm postinstall
# fetches prebuilt binaries from GitHub (argon2, kerberos, ripgrep); here the native modules are
# built against the system Node's headers (--nodedir=/usr) and ripgrep comes from Debian.
# Installs into $CODE_SERVER_ROOT (default /opt/desktop-gym/code-server-<version>) and links
# /usr/local/bin/code-server. Safe to run again: a finished install is kept.
set -euo pipefail

VERSION=${CODE_SERVER_VERSION:-4.100.3}
ROOT=${CODE_SERVER_ROOT:-/opt/desktop-gym/code-server-$VERSION}
LINK=${CODE_SERVER_LINK:-/usr/local/bin/code-server}
if [ "$(id -u)" -eq 0 ]; then SUDO=(); else SUDO=(sudo); fi

if [ -f "$ROOT/.desktop-gym-installed" ]; then
  echo "== code-server $VERSION: already in $ROOT"
else
  node_major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo none)
  if [ "$node_major" != 20 ]; then
    echo "code-server $VERSION needs Node 20 (found: $node_major); install nodejs 20 first" >&2
    exit 1
  fi
  # Build tools and headers the native modules need (node headers come with the nodejs package).
  BUILD_PACKAGES=(npm ripgrep libkrb5-dev g++ make python3)
  missing=()
  for package in "${BUILD_PACKAGES[@]}"; do
    command -v "$package" >/dev/null 2>&1 && continue
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    "${SUDO[@]}" apt-get update -q
    DEBIAN_FRONTEND=noninteractive "${SUDO[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
  fi
  echo "== code-server $VERSION: installing into $ROOT"
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  (cd "$work" && npm pack -q "code-server@$VERSION" >/dev/null)
  "${SUDO[@]}" rm -rf "$ROOT"
  "${SUDO[@]}" mkdir -p "$ROOT"
  "${SUDO[@]}" tar xzf "$work/code-server-$VERSION.tgz" -C "$ROOT" --strip-components=1
  export npm_config_nodedir=/usr npm_config_audit=false npm_config_fund=false
  (
    cd "$ROOT"
    "${SUDO[@]}" npm install -q --omit=dev --ignore-scripts
    "${SUDO[@]}" npm rebuild -q argon2
    cd lib/vscode
    "${SUDO[@]}" npm install -q --omit=dev --ignore-scripts
    "${SUDO[@]}" mkdir -p node_modules/@vscode/ripgrep/bin
    "${SUDO[@]}" cp "$(command -v rg)" node_modules/@vscode/ripgrep/bin/rg
    # The Linux native modules (the Windows ones are never loaded here); node-pty's own script runs
    # npx node-gyp, so it is built directly.
    "${SUDO[@]}" npm rebuild -q kerberos @parcel/watcher @vscode/spdlog native-watchdog
    (cd node_modules/node-pty && "${SUDO[@]}" node "$(npm prefix -g)/lib/node_modules/npm/node_modules/node-gyp/bin/node-gyp.js" rebuild --nodedir=/usr >/dev/null)
    # What code-server's postinstall.sh does after its installs.
    "${SUDO[@]}" ln -sfn node_modules node_modules.asar
    "${SUDO[@]}" ln -sfn code-linux.sh bin/remote-cli/code-server
    "${SUDO[@]}" ln -sfn browser-linux.sh bin/helpers/browser.sh
    cd extensions
    "${SUDO[@]}" npm install -q --omit=dev
  )
  "${SUDO[@]}" touch "$ROOT/.desktop-gym-installed"
fi
"${SUDO[@]}" mkdir -p "$(dirname "$LINK")"
"${SUDO[@]}" ln -sfn "$ROOT/out/node/entry.js" "$LINK"
echo "== code-server $VERSION: $LINK -> $ROOT/out/node/entry.js"
