"""Figures, the printed table and the JSON document of a bench run."""

from __future__ import annotations

import math
import platform
from dataclasses import asdict, dataclass, field
from typing import Any

from curator.bench.stats import median, percentile


@dataclass
class Figure:
    """One measured figure and, where it has one, its baseline measured in the same run.

    ``ratio`` is always ``value / baseline`` (both medians); ``better`` says which way is
    good for this figure, so a reader knows whether 0.05 means twenty times faster.
    """

    suite: str
    name: str
    unit: str
    median: float
    p95: float | None = None
    n: int = 1
    baseline_name: str = ""
    baseline: float | None = None
    better: str = "lower"  # lower | higher
    note: str = ""

    @property
    def ratio(self) -> float | None:
        """``median / baseline`` when there is a usable baseline."""
        if self.baseline is None or not self.baseline or math.isnan(self.baseline) or math.isnan(self.median):
            return None
        return self.median / self.baseline

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["ratio"] = self.ratio
        for key in ("median", "p95", "baseline", "ratio"):
            value = data[key]
            if isinstance(value, float):
                data[key] = None if math.isnan(value) else round(value, 6)
        return data


def figure_from(suite: str, name: str, unit: str, samples: list[float], *, p95: bool = True,
                baseline_samples: list[float] | None = None, baseline_name: str = "",
                better: str = "lower", note: str = "") -> Figure:
    """A figure from raw samples (median, nearest-rank p95) and optional baseline samples."""
    return Figure(
        suite=suite,
        name=name,
        unit=unit,
        median=median(samples),
        p95=percentile(samples, 95) if p95 and len(samples) > 1 else None,
        n=len(samples),
        baseline_name=baseline_name,
        baseline=median(baseline_samples) if baseline_samples else None,
        better=better,
        note=note,
    )


@dataclass
class SuiteOutcome:
    """What one suite produced: figures, per-item details, or why it was skipped/failed."""

    name: str
    figures: list[Figure] = field(default_factory=list)
    details: dict[str, Any] = field(default_factory=dict)
    skipped: str = ""
    error: str = ""
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "figures": [f.to_dict() for f in self.figures],
            "details": self.details,
            "skipped": self.skipped,
            "error": self.error,
            "seconds": round(self.seconds, 2),
        }


def fmt(value: float | None, unit: str = "") -> str:
    """A compact number: three significant figures, thousands grouped."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    magnitude = abs(value)
    if magnitude >= 1000:
        text = f"{value:,.0f}"
    elif magnitude >= 100:
        text = f"{value:.0f}"
    elif magnitude >= 10:
        text = f"{value:.1f}"
    elif magnitude >= 1:
        text = f"{value:.2f}"
    else:
        text = f"{value:.3f}"
    return text


def fmt_ratio(figure: Figure) -> str:
    ratio = figure.ratio
    if ratio is None:
        return "-"
    return f"{ratio:.3g}x"


COLUMNS = ("suite", "figure", "median", "p95", "unit", "n", "baseline", "ratio", "better")


def table_rows(outcomes: list[SuiteOutcome]) -> list[list[str]]:
    """Rows of the table, one per figure, plus one per skipped or failed suite."""
    rows: list[list[str]] = []
    for outcome in outcomes:
        for f in outcome.figures:
            baseline = f"{fmt(f.baseline)} ({f.baseline_name})" if f.baseline is not None else "-"
            rows.append([f.suite, f.name, fmt(f.median), fmt(f.p95), f.unit, str(f.n), baseline,
                         fmt_ratio(f), f.better])
        if outcome.skipped:
            rows.append([outcome.name, f"SKIPPED: {outcome.skipped}", "", "", "", "", "", "", ""])
        if outcome.error:
            rows.append([outcome.name, f"FAILED: {outcome.error}", "", "", "", "", "", "", ""])
    return rows


def render_table(outcomes: list[SuiteOutcome], markdown: bool = False) -> str:
    """The figures as an aligned text table (or a Markdown table)."""
    rows = table_rows(outcomes)
    header = list(COLUMNS)
    if markdown:
        lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
        lines += ["| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |" for row in rows]
        return "\n".join(lines)
    widths = [len(h) for h in header]
    for row in rows:
        if row[1].startswith(("SKIPPED", "FAILED")):
            continue
        widths = [max(w, len(c)) for w, c in zip(widths, row, strict=True)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)).rstrip()]
    lines.append("  ".join("-" * w for w in widths))
    for row in rows:
        if row[1].startswith(("SKIPPED", "FAILED")):
            lines.append(f"{row[0].ljust(widths[0])}  {row[1]}")
        else:
            lines.append("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip())
    return "\n".join(lines)


def machine() -> dict[str, Any]:
    """What the figures were measured on."""
    import os

    return {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "processor": platform.processor() or platform.machine(),
    }


def document(outcomes: list[SuiteOutcome], meta: dict[str, Any]) -> dict[str, Any]:
    """The JSON document of a run."""
    return {
        "meta": {**meta, "machine": machine()},
        "suites": [o.to_dict() for o in outcomes],
        "figures": [f.to_dict() for o in outcomes for f in o.figures],
    }


def performance_markdown(doc: dict[str, Any], command: str) -> str:
    """A README "Performance" section from a run's JSON document."""
    meta = doc["meta"]
    m = meta.get("machine", {})
    outcomes = [SuiteOutcome(s["name"], [Figure(**{k: v for k, v in f.items() if k != "ratio"}) for f in s["figures"]],
                             skipped=s.get("skipped", ""), error=s.get("error", "")) for s in doc["suites"]]
    for o in outcomes:
        for f in o.figures:
            for key in ("median", "p95", "baseline"):
                if getattr(f, key) is None and key == "median":
                    f.median = math.nan
    lines = [
        "## Performance",
        "",
        f"Measured on {meta['date'][:10]} ({meta['mode']} run, {meta['seconds']:.0f} s) on a shared "
        f"{m.get('cpus', '?')}-core machine ({m.get('processor', '?')}, Python {m.get('python', '?')}). "
        "Timings are medians over repeated runs; each ratio is the figure divided by its baseline, "
        "measured in the same run (the `better` column says which way is good).",
        "",
        "Reproduce with:",
        "",
        "```",
        command,
        "```",
        "",
        render_table(outcomes, markdown=True),
        "",
    ]
    notes = [f"- {f['suite']} / {f['name']}: {f['note']}" for f in doc["figures"] if f.get("note")]
    if notes:
        lines += ["Notes:", "", *notes, ""]
    return "\n".join(lines)
