"""Prompt evaluation: how many items the real model proposes, passes and stages.

Not part of the test suite. Runs the batch reflector (over the whole conversation, batch by
batch, as ``curator reflect`` does) and one micro-reflection on the demo and on the first
turns of a few LoCoMo conversations, and prints proposed / passed / staged per job, with
the staged items, their cited turns and how well those turns support them.

    .venv/bin/python -m curator.bench.prompt_eval [--locomo 26,30] [--turns 30] [--seed 7]

Run it against another checkout (``PYTHONPATH=/path/to/old/src``) to compare prompts.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "resources" / "demo"
LOCOMO = ROOT.parent / "shared" / "data" / "locomo"  # the development data beside the project


def _cli(vault: Path, *args: str) -> None:
    cmd = [sys.executable, "-m", "curator.cli.main", "--vault", str(vault), *args]
    subprocess.run(cmd, check=True, capture_output=True, text=True)


def _locomo_folder(conv_id: str, turns: int, into: Path) -> Path:
    from curator.bench.locomo import jsonl_lines, load_folder

    conv = next(c for c in load_folder(LOCOMO) if str(c.conv_id) == conv_id)
    folder = into / f"locomo-{conv_id}"
    folder.mkdir(parents=True)
    (folder / f"locomo-{conv_id}.jsonl").write_text("\n".join(jsonl_lines(conv)[:turns]) + "\n", encoding="utf-8")
    return folder


def evaluate(name: str, source: Path, work: Path, seed: int | None) -> dict[str, Any]:
    from curator.engine import Engine
    from curator.reflection.gates.quality import keyword_support
    from curator.reflection.micro import normalise_quote
    from curator.reflection.service import ReflectionService

    vault = work / f"vault-{name}"
    _cli(vault, "init")
    _cli(vault, "source", "add", str(source))
    _cli(vault, "import", str(source))
    engine = Engine(vault)
    service = None
    report: dict[str, Any] = {"case": name, "batch": {"proposed": 0, "passed": 0, "staged": 0, "batches": 0},
                              "micro": {}, "items": []}
    started = time.monotonic()
    try:
        engine.scan_all()
        service = ReflectionService(engine.reflection_parts())
        service.model.seed = seed
        for kind in ("batch", "micro"):
            service.request(kind, "default")
            ran = service.run_pending(kinds=(kind,))
            assert engine.triggers is not None  # opened with triggers
            for _ in range(20):
                engine.triggers.tick()
                more = service.run_pending(kinds=(kind,))
                if not more:
                    break
                ran.extend(more)
            for _job, outcome in ran:
                if kind == "batch":
                    b = report["batch"]
                    b["batches"] += 1
                    b["proposed"] += int(outcome.get("items_proposed", 0))
                    b["passed"] += int(outcome.get("items_passed", 0))
                    b["staged"] += len(outcome.get("staged") or [])
                    b.setdefault("statuses", []).append(outcome.get("status"))
                else:
                    m = report["micro"]
                    m["runs"] = m.get("runs", 0) + 1
                    m["proposed"] = m.get("proposed", 0) + int(outcome.get("facts_proposed", 0))
                    m["passed"] = m.get("passed", 0) + len(outcome.get("staged") or [])
                    m["staged"] = m.get("staged", 0) + len(outcome.get("staged") or [])
                    m["status"] = f"{m.get('status', '')} {outcome.get('status')}".strip()
                    m["error"] = f"{m.get('error', '')} {outcome.get('error', '')}".strip()
                for rej in outcome.get("rejections") or []:
                    report.setdefault("rejections", []).append(
                        f"{kind}/{rej['gate']}: {rej['item'][:60]} -- {rej['reason'][:80]}"
                    )
        docs, _ = service.review.staging.scan("default") if hasattr(service.review, "staging") else ([], [])
        for doc in docs:
            numbers = [int(n) for n in (doc.get("source_turns") or [])]
            cited = [t for t in (service.turns.get("default", n) for n in numbers) if t is not None]
            body = doc.body
            text = str(doc.get("new_text") or doc.get("content") or body)
            check = keyword_support(text, cited, 0.6) if cited else None
            evidence = str(doc.get("evidence") or "")
            report["items"].append(
                {
                    "kind": doc.kind,
                    "title": doc.title,
                    "turns": numbers,
                    "flagged": bool(doc.get("quarantine")),
                    "support": round(check.ratio, 2) if check else None,
                    "evidence_in_cited": bool(evidence)
                    and any(normalise_quote(evidence) in normalise_quote(t.text) for t in cited),
                    "text": " ".join(text.split())[:160],
                    "evidence": evidence[:100],
                }
            )
    finally:
        if service is not None:
            service.close()
        engine.close()
    report["seconds"] = round(time.monotonic() - started, 1)
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--locomo", default="26,30", help="LoCoMo conversation ids ('' for none)")
    parser.add_argument("--turns", type=int, default=30, help="first N turns of each LoCoMo conversation")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--no-demo", action="store_true")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="prompt-eval-"))
    reports = []
    try:
        cases: list[tuple[str, Path]] = [] if args.no_demo else [("demo", DEMO)]
        for conv_id in [c for c in args.locomo.split(",") if c.strip()]:
            cases.append((f"locomo{conv_id}", _locomo_folder(conv_id.strip(), args.turns, work)))
        for name, folder in cases:
            report = evaluate(name, folder, work, args.seed)
            reports.append(report)
            if args.json:
                print(json.dumps(report), flush=True)
                continue
            b, m = report["batch"], report["micro"]
            print(
                f"== {name} ({report['seconds']} s): batch proposed/passed/staged "
                f"{b['proposed']}/{b['passed']}/{b['staged']} "
                f"in {b['batches']} batches {b.get('statuses')}; micro "
                f"{m.get('proposed', 0)}/{m.get('passed', 0)}/{m.get('staged', 0)} "
                f"{m.get('status')} {m.get('error', '')}",
                flush=True,
            )
            for item in report["items"]:
                print(
                    f"   + {item['kind']}{' [FLAGGED]' if item['flagged'] else ''}: "
                    f"{item['title']!r} turns {item['turns']} "
                    f"support {item['support']} :: {item['text']}"
                    + (f" <= {item['evidence']!r}" if item["evidence"] else ""),
                    flush=True,
                )
            for rej in report.get("rejections", [])[:12]:
                print(f"   - {rej}", flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
