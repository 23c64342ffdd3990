"""Evaluation: run any agent on any suite over N desktops, summarize, report, compare.

See ``records`` for the output folder's layout and the viewer links.
"""

from .compare import write_comparison
from .records import EpisodeRecord, ResultsError, domain_of, episode_key, read_records, viewer_url
from .report import write_report
from .runner import ACTION_MODES, EvalConfig, local_env_factory, play_episode, remote_env_factory, run_eval
from .summary import pass_at_k, summarize

__all__ = [
    "ACTION_MODES",
    "EpisodeRecord",
    "EvalConfig",
    "ResultsError",
    "domain_of",
    "episode_key",
    "local_env_factory",
    "pass_at_k",
    "play_episode",
    "read_records",
    "remote_env_factory",
    "run_eval",
    "summarize",
    "viewer_url",
    "write_comparison",
    "write_report",
]
