"""Env servers over gRPC, vector envs and the Ray cluster launcher (not built yet; see the issues)."""
