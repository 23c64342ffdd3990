"""The ``desktop-gym llm`` command group: ``llm serve``, a local OpenAI-compatible endpoint."""

from __future__ import annotations

import argparse
from typing import Any


def add_llm_commands(subparsers: Any) -> None:
    """Add ``llm serve`` to the ``desktop-gym`` subcommands."""
    llm = subparsers.add_parser("llm", help="local language models")
    sub = llm.add_subparsers(dest="llm_command", required=True)
    serve = sub.add_parser("serve", help="serve a local model as an OpenAI-compatible endpoint (/v1/chat/completions)")
    serve.add_argument(
        "--model", default="default", help="'default' (SmolLM2-135M-Instruct, offline) or a model folder"
    )
    serve.add_argument("--host", default="127.0.0.1", help="bind address (loopback by default)")
    serve.add_argument("--port", type=int, default=8000)
    serve.add_argument("--served-name", default=None, help="the model id the endpoint reports")
    serve.set_defaults(handler=cmd_serve)


def cmd_serve(args: argparse.Namespace) -> int:
    """Load the model and serve it until interrupted."""
    from .llm.model import DEFAULT_MODEL_NAME, configure_inference_threads, load_default_model, load_model
    from .llm.server import serve

    configure_inference_threads()
    tokenizer, model = load_default_model() if args.model == "default" else load_model(args.model)
    name = args.served_name or (DEFAULT_MODEL_NAME if args.model == "default" else args.model)
    print(f"[llm] serving {name} at http://{args.host}:{args.port}/v1", flush=True)
    serve(model, tokenizer, host=args.host, port=args.port, served_name=name)
    return 0
