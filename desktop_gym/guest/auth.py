"""Token authentication for a gRPC server: the guest agent's and the env server's.

Imports only grpc (no X libraries): the host's env server uses it too.
"""

from __future__ import annotations

import hmac

import grpc

#: The metadata key a client sends its token under.
TOKEN_METADATA_KEY = "x-desktop-gym-token"


class TokenInterceptor(grpc.ServerInterceptor):
    """Rejects calls whose ``x-desktop-gym-token`` metadata does not match the session token."""

    def __init__(self, token: str) -> None:
        self._token = token.encode()

        def deny(request, context):
            context.abort(grpc.StatusCode.UNAUTHENTICATED, f"missing or wrong {TOKEN_METADATA_KEY} metadata")

        self._deny = grpc.unary_unary_rpc_method_handler(deny)

    def intercept_service(self, continuation, handler_call_details):
        for key, value in handler_call_details.invocation_metadata or ():
            if key == TOKEN_METADATA_KEY and hmac.compare_digest(value.encode(), self._token):
                return continuation(handler_call_details)
        return self._deny
