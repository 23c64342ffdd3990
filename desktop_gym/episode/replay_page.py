"""A small self-contained HTML replay page for one trajectory (kept current while it is written)."""

from __future__ import annotations

import html

from desktop_gym.episode.trajectory import Trajectory

_STYLE = (
    "body{font:14px sans-serif;margin:2em;max-width:1300px}section{border-top:1px solid #ccc;padding:.5em 0}"
    "img,video{max-width:100%;border:1px solid #999}pre{background:#f4f4f4;padding:.5em;white-space:pre-wrap}"
    ".err{color:#b00}.ok{color:#070}"
)


def replay_page(trajectory: Trajectory, reset_screenshot: str | None = None) -> str:
    """The page: title, instruction, the reset screenshot, then one card per step and the verdict."""
    title = html.escape(trajectory.task_id or "trajectory")
    cards = []
    video = trajectory.meta.get("video")
    if video:
        cards.append(f"<section><h2>video</h2><video src='{html.escape(str(video))}' controls></video></section>")
    if reset_screenshot:
        cards.append(f"<section><h2>reset</h2><img src='{html.escape(reset_screenshot)}' loading=lazy></section>")
    for step in trajectory.steps:
        notes = []
        error = step.observation.get("last_action_error") or step.info.get("action_error")
        if error:
            notes.append(f"<p class=err>error: {html.escape(str(error))}</p>")
        if step.observation.get("last_action_result"):
            notes.append(f"<p>result: {html.escape(str(step.observation['last_action_result']))}</p>")
        verdict = step.info.get("verifier")
        if verdict:
            cls = "ok" if verdict.get("success") else "err"
            notes.append(f"<p class={cls}>verifier: {html.escape(str(verdict.get('reason')))}</p>")
        image = f"<img src='{html.escape(step.screenshot)}' loading=lazy>" if step.screenshot else ""
        cards.append(
            f"<section><h2>step {step.index}</h2><pre>{html.escape(step.action)}</pre>{''.join(notes)}"
            f"<p>reward {step.reward}</p>{image}</section>"
        )
    status = ""
    if trajectory.complete and trajectory.steps:
        status = (
            f"<p class={'ok' if trajectory.success else 'err'}>{'SUCCESS' if trajectory.success else 'FAILURE'}</p>"
        )
    elif not trajectory.complete:
        status = "<p>(in progress)</p>"
    return (
        f"<!doctype html><meta charset=utf-8><title>{title}</title><style>{_STYLE}</style>"
        f"<h1>{title}</h1><p>{html.escape(trajectory.instruction)}</p>{status}" + "".join(cards)
    )
