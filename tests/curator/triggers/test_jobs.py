"""The persistent job queue: persistence, dedupe, priority, status changes, threads."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from curator.clock import ManualClock
from curator.events import Event, EventBus
from curator.triggers.jobs import (
    PRIORITY_MANUAL,
    PRIORITY_NORMAL,
    Job,
    JobQueue,
    JobStateError,
)
from curator.vault.paths import VaultPaths


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
def queue(tmp_path: Path, clock: ManualClock) -> JobQueue:
    return JobQueue.for_vault(tmp_path, clock=clock)


def test_lives_in_vault_logs(tmp_path: Path, queue: JobQueue) -> None:
    assert queue.path == VaultPaths(tmp_path).logs_dir / "jobs.json"
    queue.enqueue("batch", "alice", reason="10/10 turns")
    assert queue.path.exists()


def test_enqueue_records_every_field(queue: JobQueue, clock: ManualClock) -> None:
    job, created = queue.enqueue(
        "summary", "alice", reason="5 messages, 5m quiet", trigger="inactivity",
        conversation="c1", turn_range=(3, 9), prompt=None, meta={"messages": 5},
    )
    assert created
    assert job.id == "job-000001"
    assert (job.kind, job.user_id, job.conversation) == ("summary", "alice", "c1")
    assert job.status == "queued" and job.pending
    assert job.turn_range == (3, 9)
    assert job.created_at == clock.now()
    assert job.priority == PRIORITY_NORMAL
    assert job.meta == {"messages": 5}


def test_persistence_across_reopen(tmp_path: Path, queue: JobQueue, clock: ManualClock) -> None:
    first, _ = queue.enqueue("batch", "alice", reason="r1", turn_range=(1, 10))
    clock.advance(5)
    second, _ = queue.enqueue("cycle", "bob", reason="manual", prompt="be brief",
                              priority=PRIORITY_MANUAL, manual=True)
    queue.mark_running(first.id)
    queue.mark_done(first.id, result={"staged": 2})

    reopened = JobQueue.for_vault(tmp_path, clock=clock)
    assert reopened.get(first.id) == queue.get(first.id)
    assert reopened.get(first.id).result == {"staged": 2}  # type: ignore[union-attr]
    assert reopened.get(second.id) == second
    assert reopened.get(second.id).prompt == "be brief"  # type: ignore[union-attr]
    third, _ = reopened.enqueue("micro", "alice", reason="r3", conversation="c")
    assert third.id == "job-000003"  # ids continue, never reused


def test_dedupe_identical_pending_job(queue: JobQueue) -> None:
    a, created_a = queue.enqueue("batch", "alice", reason="x", turn_range=(1, 10))
    b, created_b = queue.enqueue("batch", "alice", reason="y", turn_range=(1, 10))
    assert created_a and not created_b
    assert a.id == b.id
    assert len(queue.list()) == 1
    # Different range, user, conversation or prompt is different work.
    assert queue.enqueue("batch", "alice", reason="z", turn_range=(11, 20))[1]
    assert queue.enqueue("batch", "bob", reason="z", turn_range=(1, 10))[1]
    assert queue.enqueue("batch", "alice", reason="z", turn_range=(1, 10), prompt="p")[1]
    # A finished job does not block the same work being queued again.
    queue.mark_running(a.id)
    queue.mark_done(a.id)
    assert queue.enqueue("batch", "alice", reason="again", turn_range=(1, 10))[1]


def test_dedupe_running_job_counts_as_pending(queue: JobQueue) -> None:
    job, _ = queue.enqueue("cycle", "alice", reason="x")
    queue.claim()
    again, created = queue.enqueue("cycle", "alice", reason="x")
    assert not created and again.id == job.id


def test_manual_duplicate_raises_priority(queue: JobQueue) -> None:
    auto, _ = queue.enqueue("cycle", "alice", reason="schedule")
    manual, created = queue.enqueue("cycle", "alice", reason="manual",
                                    priority=PRIORITY_MANUAL, manual=True)
    assert not created
    assert manual.id == auto.id
    assert manual.priority == PRIORITY_MANUAL and manual.manual


def test_priority_then_age_order(queue: JobQueue, clock: ManualClock) -> None:
    old, _ = queue.enqueue("batch", "alice", reason="old", turn_range=(1, 10))
    clock.advance(1)
    newer, _ = queue.enqueue("summary", "alice", reason="newer", conversation="c")
    clock.advance(1)
    manual, _ = queue.enqueue("cycle", "bob", reason="asked", priority=PRIORITY_MANUAL)
    assert [j.id for j in queue.list(status="queued")] == [manual.id, old.id, newer.id]
    assert queue.next() == manual
    assert queue.next(kinds=["summary"]) == newer
    assert queue.claim() is not None and queue.get(manual.id).status == "running"  # type: ignore[union-attr]
    assert queue.claim() == queue.get(old.id)
    assert queue.claim().id == newer.id  # type: ignore[union-attr]
    assert queue.claim() is None


def test_status_transitions(queue: JobQueue, clock: ManualClock) -> None:
    job, _ = queue.enqueue("micro", "alice", reason="silence", conversation="c")
    with pytest.raises(JobStateError):
        queue.mark_done(job.id)  # never claimed
    clock.advance(2)
    running = queue.mark_running(job.id)
    assert running.started_at == clock.now()
    clock.advance(3)
    failed = queue.mark_failed(job.id, "model crashed")
    assert (failed.status, failed.error, failed.finished_at) == ("failed", "model crashed", clock.now())
    with pytest.raises(JobStateError):
        queue.mark_running(job.id)
    with pytest.raises(JobStateError):
        queue.mark_done("job-999999")
    other, _ = queue.enqueue("micro", "alice", reason="silence", conversation="d")
    cancelled = queue.cancel(other.id, "person cancelled")
    assert cancelled.status == "cancelled" and not cancelled.pending


def test_list_filters(queue: JobQueue) -> None:
    queue.enqueue("batch", "alice", reason="a")
    queue.enqueue("summary", "alice", reason="b", conversation="c")
    queue.enqueue("summary", "bob", reason="c", conversation="c")
    assert len(queue.list(user_id="alice")) == 2
    assert len(queue.list(kind="summary")) == 2
    assert len(queue.pending(kind="summary", user_id="bob", conversation="c")) == 1
    assert queue.pending(kind="summary", user_id="bob", conversation="other") == []
    assert len(queue.list(status=["done", "failed"])) == 0


def test_requeue_interrupted(tmp_path: Path, queue: JobQueue, clock: ManualClock) -> None:
    job, _ = queue.enqueue("batch", "alice", reason="x")
    queue.claim()
    # The process dies; a new one opens the queue.
    reopened = JobQueue.for_vault(tmp_path, clock=clock)
    assert [j.id for j in reopened.requeue_interrupted()] == [job.id]
    assert reopened.get(job.id).status == "queued"  # type: ignore[union-attr]


def test_history_is_bounded_but_pending_jobs_are_kept(tmp_path: Path, clock: ManualClock) -> None:
    queue = JobQueue(tmp_path / "jobs.json", clock=clock, history_limit=2)
    keep, _ = queue.enqueue("cycle", "alice", reason="pending")
    for n in range(5):
        clock.advance(1)
        job, _ = queue.enqueue("batch", "alice", reason=str(n), turn_range=(n, n))
        queue.next(kinds=["batch"])
        queue.mark_running(job.id)
        queue.mark_done(job.id)
    done = queue.list(status="done")
    assert [j.reason for j in done] == ["4", "3"]
    assert queue.get(keep.id) is not None


def test_events_and_listeners(tmp_path: Path, clock: ManualClock) -> None:
    bus = EventBus()
    seen: list[Event] = []
    bus.subscribe(seen.append, "jobs.")
    queue = JobQueue(tmp_path / "jobs.json", clock=clock, events=bus)
    changes: list[tuple[str, str | None]] = []
    queue.subscribe(lambda job, old: changes.append((job.status, old)))
    job, _ = queue.enqueue("batch", "alice", reason="x")
    queue.claim()
    queue.mark_done(job.id)
    assert [e.kind for e in seen] == ["jobs.queued", "jobs.running", "jobs.done"]
    assert seen[0].data["job"]["id"] == job.id
    assert changes == [("queued", None), ("running", "queued"), ("done", "running")]


def test_corrupt_queue_file_recovered_from_backup(tmp_path: Path, clock: ManualClock) -> None:
    path = tmp_path / "jobs.json"
    queue = JobQueue(path, clock=clock)
    first, _ = queue.enqueue("batch", "alice", reason="a")
    queue.enqueue("cycle", "alice", reason="b")  # backup holds only the first job
    path.write_text("{ truncated")
    reopened = JobQueue(path, clock=clock)
    assert [j.id for j in reopened.list()] == [first.id]
    assert reopened.warnings and "restored from jobs.json.bak" in reopened.warnings[0]
    assert (tmp_path / "jobs.json.corrupt-1").exists()


def test_unreadable_job_entry_is_skipped(tmp_path: Path, clock: ManualClock) -> None:
    path = tmp_path / "jobs.json"
    good = Job(id="job-000001", kind="batch", user_id="alice", reason="x", created_at=1.0, seq=1)
    path.write_text(json.dumps({"version": 1, "next_seq": 2,
                                "jobs": [good.to_dict(), {"kind": "dance"}]}))
    queue = JobQueue(path, clock=clock)
    assert [j.id for j in queue.list()] == ["job-000001"]
    assert queue.warnings


def test_changes_by_another_process_are_seen(tmp_path: Path, clock: ManualClock) -> None:
    one = JobQueue(tmp_path / "jobs.json", clock=clock)
    two = JobQueue(tmp_path / "jobs.json", clock=clock)
    job, _ = two.enqueue("cycle", "alice", reason="from the CLI", priority=PRIORITY_MANUAL)
    assert one.next() == job


def test_rejects_bad_kind_and_user(queue: JobQueue) -> None:
    with pytest.raises(ValueError, match="unknown job kind"):
        queue.enqueue("dream", "alice", reason="x")
    with pytest.raises(ValueError):
        queue.enqueue("batch", "../etc", reason="x")


def test_thread_safe_enqueue_and_claim(queue: JobQueue) -> None:
    def produce(user: str) -> None:
        for n in range(20):
            queue.enqueue("batch", user, reason="t", turn_range=(n, n))

    threads = [threading.Thread(target=produce, args=(f"user{i}",)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    claimed: list[str] = []
    lock = threading.Lock()

    def consume() -> None:
        while (job := queue.claim()) is not None:
            with lock:
                claimed.append(job.id)

    workers = [threading.Thread(target=consume) for _ in range(3)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert len(claimed) == len(set(claimed)) == 80
    assert {j.status for j in queue.list()} == {"running"}


def test_pending_is_the_run_ordered_list_filtered(queue: JobQueue, clock: ManualClock) -> None:
    # The pending filter runs before the sort now; it must give what filtering list() gave.
    ids = []
    for n in range(24):
        clock.advance(1)
        job, _ = queue.enqueue(("micro", "summary", "batch")[n % 3], ("alice", "bob")[n % 2],
                               reason=f"r{n}", conversation=(None, "c1", "c2")[n % 3 if n % 5 else 0],
                               turn_range=(n, n), priority=PRIORITY_MANUAL if n % 7 == 0 else PRIORITY_NORMAL)
        ids.append(job.id)
    queue.mark_running(ids[5])
    queue.mark_running(ids[20])
    queue.mark_running(ids[3])
    queue.mark_done(ids[3])
    queue.cancel(ids[8], "no")
    for kind in (None, "micro", "summary", "batch"):
        for user in (None, "alice", "bob"):
            for conversation in (None, "c1", "c2", "none"):
                for any_conversation in (True, False):
                    every = queue.list(status=("queued", "running"), user_id=user, kind=kind)
                    if conversation is not None or not any_conversation:
                        every = [j for j in every if j.conversation == conversation]
                    assert queue.pending(kind=kind, user_id=user, conversation=conversation,
                                         any_conversation=any_conversation) == every


def test_an_identical_job_is_found_among_many(queue: JobQueue, clock: ManualClock) -> None:
    for n in range(30):
        clock.advance(1)
        queue.enqueue("micro", "alice", reason="r", conversation=f"c{n}")
    target = queue.pending(kind="micro", conversation="c17")[0]
    again, created = queue.enqueue("micro", "alice", reason="again", conversation="c17")
    assert not created and again.id == target.id
