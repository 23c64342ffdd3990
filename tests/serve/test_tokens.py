"""Server tokens: a command line can carry every one of them."""

from __future__ import annotations

from desktop_gym.serve.tokens import new_token


def test_no_token_reads_as_a_command_line_option() -> None:
    # 1 urlsafe token in 64 starts with "-": in 2,000 draws one did with near certainty.
    tokens = {new_token() for _ in range(2000)}
    assert len(tokens) == 2000
    assert not [token for token in tokens if token.startswith("-")]
    assert all(len(token) == 48 for token in tokens)  # 192 random bits
