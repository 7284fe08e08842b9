"""The CLI's progress: a redrawn bar on a terminal, plain lines when piped."""

from __future__ import annotations

import io

from curator.cli.progress import ProgressPrinter, bar
from curator.events import EventBus


def _run(tty: bool) -> str:
    bus, out = EventBus(), io.StringIO()
    with ProgressPrinter(bus, out=out, tty=tty):
        for done in range(1, 9):
            bus.emit("source.progress", source_id="chats", files_done=done, files_total=8, turns_added=done * 10)
        bus.emit("job.started", job_id=1, job_kind="batch_reflection")
        for done in (0, 100, 200):
            bus.emit("job.progress", job_id=1, job_kind="batch_reflection", phase="prompt",
                     prompt_done=done, prompt_tokens=200, eta_seconds=(200 - done) / 50)
        for piece in ('{"new_facts": [{"title": "t", "content": "Maya ', 'runs"', "}]}"):
            bus.emit("model.token", job_id=1, text=piece)
        bus.emit("job.finished", job_id=1, job_kind="batch_reflection", status="ok")
    return out.getvalue()


def test_piped_output_is_plain_lines_at_quarters() -> None:
    text = _run(tty=False)
    assert "\r" not in text
    lines = text.splitlines()
    imports = [line for line in lines if line.startswith("import chats")]
    assert imports == [f"import chats: {n} of 8 files, {n * 10} new turns" for n in (1, 2, 4, 6, 8)]
    assert "batch_reflection: reading the prompt, 100 of 200 tokens, about 2 s left" in lines
    assert "  wrote new fact: Maya runs" in lines
    assert lines[-1] == "batch_reflection: ok"


def test_terminal_output_redraws_one_line_with_a_bar() -> None:
    text = _run(tty=True)
    assert "\r\x1b[2K" + bar(4, 8) + " import chats: 4 of 8 files" in text
    assert bar(100, 200) in text
    assert text.endswith("\n")
