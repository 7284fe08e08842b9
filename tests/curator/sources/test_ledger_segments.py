"""The turn ledger seals its plain records into compressed segments, and reads them back
exactly once, through a crash between the two steps, a refusal and a damaged segment."""

from __future__ import annotations

import gzip
import itertools

import pytest

from curator.sources import ledger as ledger_module
from curator.sources.ledger import TurnLedger
from curator.vault.paths import VaultPaths


def _records(first: int, last: int) -> list[dict]:
    return [{"seq": n, "op": "status", "number": n, "status": "active", "pad": "x" * 200}
            for n in range(first, last + 1)]


@pytest.fixture
def ledger(tmp_path, monkeypatch) -> TurnLedger:
    monkeypatch.setattr(ledger_module, "SEAL_BYTES", 4096)
    return TurnLedger(VaultPaths(tmp_path / "vault"))


def test_records_past_the_limit_are_sealed_and_read_back_in_order(ledger):
    for start in range(1, 200, 10):
        ledger.append("default", _records(start, start + 9))
    segments = ledger.segments("default")
    assert len(segments) >= 5
    assert all(path.name.endswith(".jsonl.gz") for _, _, path in segments)
    # Each segment is named for the seqs it holds, and they follow one another.
    assert segments[0][0] == 1
    assert all(a[1] + 1 == b[0] for a, b in itertools.pairwise(segments))
    assert [r["seq"] for r in ledger.read("default")] == list(range(1, 201))
    assert [r["seq"] for r in ledger.read("default", 150)] == list(range(151, 201))
    assert ledger.last_seq("default") == 200
    sealed = sum(p.stat().st_size for _, _, p in segments)
    assert sealed * 3 < sum(len(str(r)) for r in _records(1, segments[-1][1]))  # compressed
    assert ledger.users() == ["default"]


def test_last_seq_comes_from_the_newest_segment_when_the_plain_file_is_empty(ledger):
    ledger.append("default", _records(1, 30))
    assert ledger.segments("default") and not ledger.path("default").exists()
    assert ledger.last_seq("default") == 30
    ledger.append("default", _records(31, 32))
    ledger.seal("default")
    assert ledger.path("default").read_bytes() == b""
    assert ledger.last_seq("default") == 32


def test_a_crash_between_the_segment_and_emptying_the_plain_file_reads_each_record_once(ledger, monkeypatch):
    monkeypatch.setattr(ledger_module, "SEAL_BYTES", 10**9)
    ledger.append("default", _records(1, 12))
    plain = ledger.path("default").read_bytes()
    ledger.seal("default")
    ledger.path("default").write_bytes(plain)  # as if the crash came before the plain file was emptied
    ledger.append("default", _records(13, 15))
    assert [r["seq"] for r in ledger.read("default")] == list(range(1, 16))
    ledger.seal("default")  # the duplicates are not sealed twice
    assert [(f, last) for f, last, _ in ledger.segments("default")] == [(1, 12), (13, 15)]
    assert [r["seq"] for r in ledger.read("default")] == list(range(1, 16))


def test_a_refused_record_in_a_segment_is_moved_aside(ledger):
    ledger.append("default", _records(1, 40))
    assert ledger.segments("default")
    record = next(r for r in ledger.read("default") if r["seq"] == 3)
    aside = ledger.set_aside("default", [(record, "refused by the index")])
    assert 3 not in [r["seq"] for r in ledger.read("default")]
    assert len(list(ledger.read("default"))) == 39
    assert '"seq": 3' in aside.read_text()


def test_a_damaged_segment_loses_only_what_cannot_be_read(ledger, caplog):
    for start in range(1, 100, 10):
        ledger.append("default", _records(start, start + 9))
    _first, last, path = ledger.segments("default")[0]
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    seqs = [r["seq"] for r in ledger.read("default")]
    assert seqs[-1] == 100 and last + 1 in seqs  # the later segments are still read
    assert "cannot be read to its end" in caplog.text


def test_an_unreadable_line_is_sealed_as_it_is(ledger, monkeypatch):
    monkeypatch.setattr(ledger_module, "SEAL_BYTES", 10**9)
    ledger.append("default", _records(1, 2))
    with open(ledger.path("default"), "ab") as handle:
        handle.write(b"{not json\n")
    ledger.append("default", _records(3, 4))
    segment = ledger.seal("default")
    assert segment is not None and b"{not json" in gzip.decompress(segment.read_bytes())
    assert [r["seq"] for r in ledger.read("default")] == [1, 2, 3, 4]


def test_a_batch_past_the_limit_is_sealed_as_it_is_after_the_plain_records_before_it(ledger):
    ledger.append("default", _records(1, 3))  # small: appended plain
    assert not ledger.segments("default")
    ledger.append("default", _records(4, 60))  # an import's batch
    assert [(f, last) for f, last, _ in ledger.segments("default")] == [(1, 3), (4, 60)]
    assert ledger.path("default").read_bytes() == b""
    assert [r["seq"] for r in ledger.read("default")] == list(range(1, 61))
    assert ledger.last_seq("default") == 60


def test_an_imports_last_batch_below_the_limit_is_sealed_too(ledger):
    # 3,000 bytes: under the 4,096 of the limit, but no watcher's append is that large.
    ledger.append("default", _records(1, 12))
    assert [(f, last) for f, last, _ in ledger.segments("default")] == [(1, 12)]
    assert not ledger.path("default").exists()
    ledger.append("default", _records(13, 14))  # a watcher's few lines: plain
    assert [r["seq"] for r in ledger.read("default")] == list(range(1, 15))
    assert len(ledger.segments("default")) == 1 and ledger.path("default").stat().st_size > 0


def test_an_added_turns_hash_is_left_out_of_the_file_and_given_back_on_reading(ledger):
    from curator.sources.turns import text_hash

    def add(seq: int, text: str, sha: str) -> dict:
        return {"seq": seq, "op": "add", "turn": {"number": seq, "text": text, "sha256": sha, "status": "active"}}

    odd = "f" * 64  # not the hash of its text: kept as it is
    records = [add(1, "Ich laufe sonntags.", text_hash("Ich laufe sonntags.")), add(2, "走る", odd)]
    ledger.append("default", records)
    stored = ledger.path("default").read_text(encoding="utf-8")
    assert text_hash("Ich laufe sonntags.") not in stored and odd in stored
    assert list(ledger.read("default")) == records
    ledger.seal("default")
    assert list(ledger.read("default")) == records
