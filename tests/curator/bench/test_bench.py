"""The bench machinery on a tiny hand-made LoCoMo-format folder (no benchmarks run here)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from curator.bench import locomo
from curator.bench.recall import Bm25Baseline, raw_tokens, recall_at
from curator.bench.report import Figure, SuiteOutcome, document, figure_from, render_table
from curator.bench.runner import resolve_data
from curator.bench.stats import median, percentile

CONVERSATION = {
    "speaker_a": "Ana",
    "speaker_b": "Ben",
    "session_1_date_time": "1:56 pm on 8 May, 2023",
    "session_1": [
        {"speaker": "Ana", "dia_id": "D1:1", "text": "Hi Ben! I adopted a grey kitten called Pixel."},
        {"speaker": "Ben", "dia_id": "D1:2", "text": "Congrats! I started pottery classes.",
         "blip_caption": "a photo of a clay bowl", "img_url": ["http://example.invalid/x.jpg"]},
    ],
    "session_2_date_time": "10:37 am on 27 June, 2023",
    "session_2": [
        {"speaker": "Ana", "dia_id": "D2:1", "text": "Pixel broke my favourite mug yesterday."},
        {"speaker": "Ben", "dia_id": "D2:2", "text": "Ouch. My marathon training is going well."},
    ],
    "session_3_date_time": "9:00 am on 1 July, 2023",  # a date without turns is ignored
    "events_session_1": {"Ana": ["Ana adopts a kitten named Pixel."], "Ben": ["Ben starts pottery classes."],
                         "date": "8 May, 2023"},
    "events_session_2": {"Ana": [], "Ben": ["Ben trains for a marathon."], "date": "27 June, 2023"},
    "qa": [
        {"question": "What is the name of Ana's kitten?", "answer": "Pixel", "evidence": ["D1:1"], "category": 4},
        {"question": "What did the kitten break?", "answer": "a mug", "evidence": ["D2:1; D1:1"], "category": 1},
        {"question": "Which sport?", "answer": "marathon", "evidence": ["D:2:2"], "category": 2},
        {"question": "Unanswerable?", "answer": "", "evidence": [], "category": 5},
        {"question": "No evidence", "answer": "x", "evidence": ["D"], "category": 3},
    ],
}


@pytest.fixture()
def data_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "locomo"
    folder.mkdir()
    (folder / "conv-a.json").write_text(json.dumps(CONVERSATION), encoding="utf-8")
    # The original release's shape: a list of records with nested sessions and events.
    nested = {"sample_id": "nested-1", "conversation": {k: v for k, v in CONVERSATION.items()
                                                        if k.startswith(("speaker", "session"))},
              "event_summary": {k: v for k, v in CONVERSATION.items() if k.startswith("events")},
              "qa": CONVERSATION["qa"]}
    (folder / "release.json").write_text(json.dumps([nested]), encoding="utf-8")
    (folder / "notes.json").write_text(json.dumps({"hello": "not a conversation"}), encoding="utf-8")
    (folder / "broken.json").write_text("{not json", encoding="utf-8")
    (folder / "README.md").write_text("ignored", encoding="utf-8")
    return folder


def test_load_folder_reads_both_shapes_and_skips_other_files(data_dir: Path) -> None:
    convs = locomo.load_folder(data_dir)
    assert [c.conv_id for c in convs] == ["conv-a", "nested-1"]
    for conv in convs:
        assert [t.dia_id for t in conv.turns] == ["D1:1", "D1:2", "D2:1", "D2:2"]
        assert conv.events == {1: ["Ana adopts a kitten named Pixel.", "Ben starts pottery classes."],
                               2: ["Ben trains for a marathon."]}
        assert [q.evidence for q in conv.quality_questions()] == [("D1:1",), ("D2:1", "D1:1"), ("D2:2",)]


def test_evidence_repair() -> None:
    assert locomo.normalise_evidence(["D8:6; D9:17", "D:11:26", "D", "D8:6"]) == ("D8:6", "D9:17", "D11:26")


def test_conversion_to_generic_jsonl(data_dir: Path, tmp_path: Path) -> None:
    conv = locomo.load_folder(data_dir)[0]
    path = locomo.write_jsonl(conv, tmp_path / "out")
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert [line["id"] for line in lines] == ["D1:1", "D1:2", "D2:1", "D2:2"]
    assert [line["role"] for line in lines] == ["user", "assistant", "user", "assistant"]
    assert [line["speaker"] for line in lines] == ["Ana", "Ben", "Ana", "Ben"]
    assert lines[0]["timestamp"] == "2023-05-08T13:56:00Z"
    assert lines[1]["timestamp"] == "2023-05-08T13:56:30Z"
    assert lines[2]["timestamp"] == "2023-06-27T10:37:00Z"
    assert lines[1]["content"] == "Congrats! I started pottery classes. [shares a photo: a photo of a clay bowl]"
    assert {line["conversation"] for line in lines} == {"conv-a"}


def test_converted_conversation_goes_through_real_ingest_and_maps_back(data_dir: Path, tmp_path: Path) -> None:
    from curator.bench.suites.quality import _import, curator_scores, hit_dia_ids
    from curator.index.search import SearchFilters

    conv = locomo.load_folder(data_dir)[0]
    engine = _import(tmp_path / "vault", conv, tmp_path / "work")
    try:
        hits = engine.search("kitten Pixel", SearchFilters(user_id="default"), 10)
        found = [hit_dia_ids(engine, h) for h in hits]
        assert {"D1:1"} in found and {"D2:1"} in found
        assert all(len(ids) == 1 for ids in found)
        scores = curator_scores(engine, conv)
        assert scores.count == 3
        assert scores.per_k[10][0] == 1.0  # the kitten's name: its evidence is a top-10 turn
    finally:
        engine.close()


def test_recall_is_exact_on_a_hand_made_example() -> None:
    evidence = ("D1:1", "D2:1", "D3:3")
    retrieved = [{"D9:9"}, {"D2:1"}, {"D1:1", "D3:3"}, {"D1:1"}]
    assert recall_at(evidence, retrieved, 1) == 0.0
    assert recall_at(evidence, retrieved, 2) == pytest.approx(1 / 3)
    # A knowledge document citing two evidence turns counts for both, in one slot.
    assert recall_at(evidence, retrieved, 3) == 1.0
    assert recall_at(evidence, retrieved, 10) == 1.0
    assert recall_at(("D1:1", "D1:1"), [{"D1:1"}], 5) == 1.0
    with pytest.raises(ValueError):
        recall_at((), retrieved, 5)


def test_bm25_baseline_ranks_the_matching_turn_first() -> None:
    texts = ["I adopted a grey kitten", "pottery classes started", "marathon training", ""]
    baseline = Bm25Baseline(texts)
    assert baseline.top("kitten adopted", 2)[0] == 0
    assert baseline.top("marathon", 1) == [2]
    assert sorted(baseline.top("anything", 10)) == [0, 1, 2, 3]
    assert raw_tokens("Pixel's MUG, broken!") == ["pixel", "s", "mug", "broken"]


def test_event_coverage_counts_events_one_fact_covers() -> None:
    from curator.bench.suites.quality import event_coverage

    conv = locomo.parse_conversation("c", CONVERSATION)
    assert conv is not None
    facts = ["Ana adopted a kitten; its name is Pixel.", "Ben goes running."]
    assert event_coverage(conv, facts) == (1, 3)
    assert event_coverage(conv, facts, sessions={2}) == (0, 1)
    assert event_coverage(conv, []) == (0, 3)


def test_statistics() -> None:
    assert median([3, 1, 2]) == 2
    assert median([4, 1, 2, 3]) == 2.5
    assert percentile(list(range(1, 101)), 95) == 95
    assert percentile([5.0], 95) == 5.0


def test_table_and_json_shape() -> None:
    outcomes = [
        SuiteOutcome("search", figures=[figure_from("search", "unified search, 1,000 turns", "ms", [1.0, 2.0, 3.0],
                                                    baseline_samples=[10.0, 20.0, 30.0], baseline_name="bm25")]),
        SuiteOutcome("quality", figures=[Figure("quality", "recall@5 (a)", "share", 0.5, better="higher")]),
        SuiteOutcome("reflection", skipped="no glue"),
        SuiteOutcome("footprint", error="RuntimeError: boom"),
    ]
    table = render_table(outcomes)
    lines = table.splitlines()
    assert lines[0].split() == ["suite", "figure", "median", "p95", "unit", "n", "baseline", "ratio", "better"]
    assert "0.1x" in table and "20.0 (bm25)" in table
    assert "SKIPPED: no glue" in table and "FAILED: RuntimeError: boom" in table
    assert render_table(outcomes, markdown=True).startswith("| suite | figure |")
    doc = json.loads(json.dumps(document(outcomes, {"mode": "quick"})))
    assert doc["meta"]["mode"] == "quick" and doc["meta"]["machine"]["cpus"]
    first = doc["figures"][0]
    assert first["median"] == 2.0 and first["p95"] == 3.0 and first["baseline"] == 20.0
    assert first["ratio"] == pytest.approx(0.1) and first["n"] == 3 and first["better"] == "lower"
    assert [s["name"] for s in doc["suites"]] == ["search", "quality", "reflection", "footprint"]
    assert doc["suites"][2]["skipped"] == "no glue"


def test_missing_data_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from curator.bench import runner
    from curator.cli import main as cli

    missing = tmp_path / "nowhere"
    with pytest.raises(FileNotFoundError, match="no such folder"):
        resolve_data(str(missing))
    code = cli.main(["bench", "--data", str(missing), "--suite", "quality"])
    assert code == 2
    assert "no such folder" in capsys.readouterr().err
    # No --data and no default folder: a clear note, and the quality suite is skipped.
    monkeypatch.setattr(runner, "default_data_dir", lambda project_root=None: missing)
    folder, note = resolve_data(None)
    assert folder is None and "no LoCoMo data" in note and "quality suite is skipped" in note
    outcomes, meta = runner.run_bench(suites=["quality"], verbose=False, workdir=tmp_path / "work")
    assert outcomes[0].skipped and "no LoCoMo data" in outcomes[0].skipped
    assert meta["data"] is None and meta["conversations"] == 0


def test_cli_registers_bench() -> None:
    from curator.cli import main as cli

    parser = cli.build_parser()
    args = parser.parse_args(["bench", "--quick", "--suite", "search", "ingest", "--json"])
    assert args.quick and args.suite == ["search", "ingest"] and args.json


def test_sessions_limits_what_reflection_quality_reflects(capsys: pytest.CaptureFixture[str]) -> None:
    from curator.bench.runner import _sizes
    from curator.cli import main as cli

    assert _sizes(False, 3).rq_sessions == 3 and _sizes(False, None).rq_sessions is None
    assert _sizes(True, None).rq_sessions == 2 and _sizes(True, 5).rq_sessions == 5
    assert _sizes(False, 3).ingest_corpus == _sizes(False, None).ingest_corpus
    assert cli.main(["bench", "--sessions", "0", "--suite", "reflection-quality"]) == 2
    assert "--sessions 0" in capsys.readouterr().err
    args = cli.build_parser().parse_args(["bench", "--writer", "choose", "--sessions", "2"])
    assert args.writer == "choose" and args.sessions == 2


def test_performance_markdown_from_json() -> None:
    from curator.bench.report import performance_markdown

    outcomes = [SuiteOutcome("search", figures=[figure_from("search", "unified search", "ms", [1.0, 3.0],
                                                            baseline_samples=[4.0], baseline_name="bm25",
                                                            note="a note")])]
    doc = json.loads(json.dumps(document(outcomes, {"mode": "full", "date": "2026-01-02T03:04:05+00:00",
                                                    "seconds": 600.0})))
    md = performance_markdown(doc, "curator bench")
    assert md.startswith("## Performance")
    assert "2026-01-02" in md and "curator bench" in md
    assert "| search | unified search | 2.00 | 3.00 | ms | 2 | 4.00 (bm25) | 0.5x | lower |" in md
    assert "a note" in md


@pytest.mark.llm
@pytest.mark.slow
def test_the_reflection_cost_suite_runs_against_a_bare_call_in_its_own_process(tmp_path: Path) -> None:
    from curator.bench.runner import run_bench

    (tmp_path / "no-conversations").mkdir()
    outcomes, _meta = run_bench(data=str(tmp_path / "no-conversations"), quick=True, suites=["reflection"],
                               verbose=False, workdir=tmp_path / "work")
    (outcome,) = outcomes
    assert not outcome.error, outcome.details.get("traceback")
    batch = next(f for f in outcome.figures if f.name == "10-turn batch end to end (cold cache)")
    assert batch.median > 0 and batch.baseline is not None and batch.baseline > 0
    (run,) = outcome.details["runs"]
    assert run["bare_tokens"] > 0 and run["threads"]["prompt"] >= 1
