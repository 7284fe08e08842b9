"""``curator reflect``: run reflections now, on the configured or a given model."""

from __future__ import annotations

import argparse
import contextlib
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from curator.cli.main import CliError, emit, vault_of
from curator.cli.progress import ProgressPrinter
from curator.index.text import elide

if TYPE_CHECKING:  # loaded when the command runs
    from curator.engine import Engine
    from curator.reflection.service import ReflectionService

JOB_CHOICES = ("batch", "micro", "summary", "cycle", "all")
MAX_FOLLOW_UPS = 50


def register(subparsers: Any, common: argparse.ArgumentParser) -> None:
    """Add ``reflect`` to the ``curator`` parser."""
    p = subparsers.add_parser(
        "reflect",
        parents=[common],
        help="run reflections now (batch, micro-reflection, context summary, consolidation cycle)",
    )
    p.add_argument("--job", choices=JOB_CHOICES, default="all", help="which reflection (default: all)")
    p.add_argument("--user", default="default", help="user id (default: default)")
    p.add_argument("--model", metavar="PATH", help="GGUF model file to use for this run")
    p.add_argument("--prompt", help="custom instruction for a context summary")
    p.add_argument("--conversation", help="conversation for micro-reflection and summary (default: the latest)")
    p.add_argument("--stream", action="store_true", help="print the model's tokens as they come")
    p.set_defaults(handler=cmd_reflect)


def _check_model(path: str | None) -> Path | None:
    if not path:
        return None
    from curator.llm.gguf import GGUFError, read_gguf

    model = Path(path).expanduser()
    try:
        read_gguf(model)
    except GGUFError as exc:
        raise CliError(f"cannot use model {model}: {exc}", code=1) from exc
    except OSError as exc:
        raise CliError(f"cannot read model {model}: {exc.strerror or exc}", code=1) from exc
    return model


def cmd_reflect(args: argparse.Namespace) -> int:
    """Queue the asked-for reflections as manual jobs and run them on the model."""
    from curator.engine import Engine
    from curator.reflection.service import ReflectionService

    model = _check_model(args.model)
    kinds = ("batch", "micro", "summary") if args.job == "all" else (args.job,)
    engine = Engine(vault_of(args))
    service = None
    try:
        engine.scan_all()
        if engine.triggers is None:
            raise CliError("the trigger engine could not start; see the log", code=1)
        service = ReflectionService(engine.reflection_parts(), model_path=model)
        if args.stream and not getattr(args, "json", False):
            service.model.on_token = lambda text: print(text, end="", flush=True)
        for kind in kinds:
            service.request(kind, args.user, prompt=args.prompt if kind == "summary" else None,
                            conversation=args.conversation)
        # --stream prints the raw tokens itself; otherwise the readable progress goes to stderr.
        printer = ProgressPrinter(engine.bus) if not args.stream else contextlib.nullcontext()
        with printer:
            ran = _run_all(engine, service, kinds)
        if args.stream and not getattr(args, "json", False):
            print()
        rows = [{"job": job.id, "kind": job.kind, "reason": job.reason, **outcome} for job, outcome in ran]
        emit(args, {"jobs": rows}, lambda: _describe(rows))
        failed = [r for r in rows if r.get("status") in ("aborted", "cancelled")]
        return 1 if failed and len(failed) == len(rows) else 0
    finally:
        if service is not None:
            service.close()
        engine.close()


def _run_all(engine: Engine, service: ReflectionService, kinds: tuple[str, ...]) -> list[Any]:
    ran: list[Any] = list(service.run_pending(kinds=kinds))
    # A backlog (an import, a long absence) is reviewed batch after batch: each finished
    # batch lets the triggers see the turns still waiting.
    assert engine.triggers is not None  # cmd_reflect checked it
    for _ in range(MAX_FOLLOW_UPS):
        engine.triggers.tick()
        more = service.run_pending(kinds=kinds)
        if not more:
            break
        ran.extend(more)
    return ran


def _describe(rows: list[dict[str, Any]]) -> str:
    if not rows:
        return "nothing to reflect on"
    lines = []
    for row in rows:
        status = row.get("status", "?")
        line = f"{row['kind']:8} {status}"
        if row.get("error"):
            line += f": {row['error']}"
        staged = row.get("staged") or []
        if staged:
            line += f"; staged {len(staged)}"
        rejections = row.get("rejections") or []
        if rejections:
            line += f"; rejected {len(rejections)}"
        if row.get("cycle_id") and status == "proposed":
            line += (f"; cycle {row['cycle_id']} awaits review ({row.get('operations', 0)} operation(s), "
                     f"{row.get('rejected', 0)} rejected by the gates); see {row.get('pending_file')}")
        if row.get("log_path"):
            line += f"; log {row['log_path']}"
        lines.append(line)
        for item in staged:
            if isinstance(item, dict):
                lines.append(
                    f"  + {item.get('kind', '')}: {item.get('title', '')} ({item.get('doc_id', item.get('id', ''))})"
                )
        for rej in rejections[:8]:
            if isinstance(rej, dict):
                lines.append(
                    f"  - rejected by {rej.get('gate', '?')}: {elide(str(rej.get('item', '')), 80)} "
                    f"({rej.get('reason', '')})"
                )
    return "\n".join(lines)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(1)
