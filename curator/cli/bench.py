"""``curator bench``: run the benchmark suites and print one table (or JSON).

Benchmarks are separate from the tests and never run in CI by default; see
``curator.bench`` for what each suite measures and against which baseline.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from curator.cli.main import CliError, emit


def register(subparsers: Any, common: argparse.ArgumentParser) -> None:
    """Add ``bench`` to the ``curator`` parser."""
    from curator.bench.runner import ALL_SUITES, ON_REQUEST, SUITES

    p = subparsers.add_parser(
        "bench", parents=[common],
        help="measure speed, scale and memory quality against baselines (not a test)",
        description="Run the benchmark suites and print each figure's median, p95 and ratio "
                    "against a baseline measured in the same run.",
    )
    p.add_argument("--data", metavar="DIR",
                   help="folder of LoCoMo-format conversations (default: ../shared/data/locomo "
                        "beside the project, when present)")
    p.add_argument("--quick", action="store_true", help="smaller sizes, fewer repeats (under 2 minutes)")
    p.add_argument("--out", metavar="FILE", help="also write the JSON document to FILE")
    p.add_argument("--model", metavar="PATH", help="GGUF model for the reflection and quality suites "
                                                    "(default: the bundled default model)")
    p.add_argument("--suite", nargs="+", choices=ALL_SUITES, metavar="NAME",
                   help=f"run only these suites ({', '.join(SUITES)}; on request only: "
                        f"{', '.join(ON_REQUEST)})")
    p.add_argument("--markdown", metavar="FILE", help="also write a README Performance section to FILE")
    p.add_argument("--cycles", type=int, metavar="N",
                   help="kill -9 cycles of the faults suite (default 1,000; --quick 100)")
    p.add_argument("--sessions", type=int, metavar="N",
                   help="reflection-quality: reflect only the first N sessions of each conversation "
                        "(default: all; --quick 2), e.g. to try a slow model")
    p.add_argument("--writer", choices=("auto", "model", "choose", "reword"),
                   help="reflection-quality: who words the memories (the reflection.writer setting; default auto)")
    p.add_argument("--keep", metavar="DIR", help="work in DIR and keep the vaults and corpora made there")
    p.set_defaults(handler=cmd_bench)


def cmd_bench(args: argparse.Namespace) -> int:
    """Run the suites; exit 1 when a suite failed (its figures are still printed)."""
    from curator.bench.report import document, render_table
    from curator.bench.runner import run_bench

    if args.model and not Path(args.model).expanduser().is_file():
        raise CliError(f"--model {args.model}: no such file")
    if args.sessions is not None and args.sessions < 1:
        raise CliError(f"--sessions {args.sessions}: give 1 or more")
    try:
        outcomes, meta = run_bench(
            data=args.data, quick=args.quick, suites=args.suite, model=args.model,
            verbose=True, workdir=Path(args.keep).expanduser() if args.keep else None,
            cycles=args.cycles, sessions=args.sessions, writer=args.writer,
        )
    except FileNotFoundError as exc:
        raise CliError(str(exc)) from exc
    doc = document(outcomes, meta)
    if args.out:
        out = Path(args.out).expanduser()
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(doc, indent=2, ensure_ascii=False, default=str) + "\n", encoding="utf-8")

    if args.markdown:
        from curator.bench.report import performance_markdown

        command = "curator bench" + (" --quick" if args.quick else "")
        command += f" --data {args.data}" if args.data else ""
        command += f" --model {args.model}" if args.model else ""
        command += (" --suite " + " ".join(args.suite)) if args.suite else ""
        command += f" --cycles {args.cycles}" if args.cycles else ""
        command += f" --sessions {args.sessions}" if args.sessions else ""
        command += f" --writer {args.writer}" if args.writer else ""
        md = Path(args.markdown).expanduser()
        md.parent.mkdir(parents=True, exist_ok=True)
        md.write_text(performance_markdown(doc, command), encoding="utf-8")

    def text() -> str:
        head = f"curator bench ({meta['mode']}, {meta['seconds']:.0f} s"
        head += f", data: {meta['data']})" if meta["data"] else ")"
        lines = [head]
        if meta["data_note"]:
            lines.append(f"note: {meta['data_note']}")
        lines.append(render_table(outcomes))
        return "\n".join(lines)

    emit(args, doc, text)
    return 1 if any(o.error for o in outcomes) else 0
