"""Generated protobuf/gRPC modules for the guest agent (regenerate with scripts/gen_protos.sh)."""
