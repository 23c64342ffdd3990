#!/usr/bin/env bash
# Regenerate the guest agent's protobuf/gRPC modules and make their imports package-relative.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-.venv/bin/python}"
PROTO_DIR=desktop_gym/guest/protos
"$PYTHON" -m grpc_tools.protoc -I "$PROTO_DIR" \
  --python_out="$PROTO_DIR" --grpc_python_out="$PROTO_DIR" \
  "$PROTO_DIR/guest.proto"
# grpc_tools writes "import guest_pb2 as ...", which only works with the folder on sys.path.
sed -i 's/^import guest_pb2 as /from . import guest_pb2 as /' "$PROTO_DIR/guest_pb2_grpc.py"
echo "regenerated $PROTO_DIR/guest_pb2.py, guest_pb2_grpc.py"
# The env server's service (desktop_gym.serve), same recipe.
SERVE_DIR=desktop_gym/serve/protos
"$PYTHON" -m grpc_tools.protoc -I "$SERVE_DIR" --python_out="$SERVE_DIR" --grpc_python_out="$SERVE_DIR" "$SERVE_DIR/env.proto"
sed -i 's/^import env_pb2 as /from . import env_pb2 as /' "$SERVE_DIR/env_pb2_grpc.py"
echo "regenerated $SERVE_DIR/env_pb2.py, env_pb2_grpc.py"
