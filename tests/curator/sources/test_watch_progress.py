"""The watcher reports a start-up backlog as files and turns read of the total."""

from __future__ import annotations

from pathlib import Path

from curator.engine import Engine
from curator.events import Event


def test_start_up_backlog_reports_files_and_turns(tmp_path: Path) -> None:
    chats = tmp_path / "chats"
    chats.mkdir()
    for day in range(3):
        lines = [f'{{"role": "user", "content": "note {day}-{i}", "timestamp": "2026-11-0{day + 1}T10:0{i}:00Z"}}'
                 for i in range(4)]
        (chats / f"day{day}.jsonl").write_text("\n".join(lines) + "\n", "utf-8")
    engine = Engine(tmp_path / "vault")
    seen: list[Event] = []
    engine.bus.subscribe(seen.append, "source.progress")
    try:
        engine.update_settings({"watch.debounce_ms": 50, "watch.max_latency_ms": 200})
        engine.add_source(chats, adapter="jsonl")
        watcher = engine.start_watching()
        assert watcher.wait_idle(timeout=30)
    finally:
        engine.close()
    progress = [(e.data["files_done"], e.data["files_total"]) for e in seen]
    assert progress[-1] == (3, 3)
    assert [done for done, _ in progress] == sorted(done for done, _ in progress)
    assert seen[-1].data["turns_added"] == 12
