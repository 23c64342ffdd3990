"""LLM-driven API generation: example tasks -> a tested, registered tool class for an app.

Imported as ``desktop_gym.api_generators``. The stages (``stages/``: analyse, implement, tests,
execute, repair, register) each take typed records (:mod:`.models`) and their prompts from
``prompts/``; candidates run only in a sandbox desktop (:mod:`.sandbox`). ``desktop-gym apigen``
is the command::

    from desktop_gym.api_generators import generate_api, make_client
    run = generate_api("editor", ["os.editor_fix_config"], make_client("offline", cache_dir="cache"), "out")
"""

from .llm import CachedClient, LLMClient, LLMReply, OfflineClient, OpenAIClient, RecordingClient, make_client
from .pipeline import PipelineRun, generate_api
from .targets import TARGETS, AppTarget, get_target

__all__ = [
    "TARGETS",
    "AppTarget",
    "CachedClient",
    "LLMClient",
    "LLMReply",
    "OfflineClient",
    "OpenAIClient",
    "PipelineRun",
    "RecordingClient",
    "generate_api",
    "get_target",
    "make_client",
]
