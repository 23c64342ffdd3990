"""Generated protobuf/gRPC modules for the env server (regenerate with scripts/gen_protos.sh)."""
