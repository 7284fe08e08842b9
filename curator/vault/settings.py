"""Settings in ``curator.yaml``: every option declared once, with default, type and help.

The GUI's settings dialog, ``curator status`` and the docs all read ``OPTIONS``; nothing
else declares a default. The file carries a schema version and old versions are migrated
forward on load (the original is kept as ``curator.yaml.v<N>.bak``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from curator.vault.atomic import atomic_write_bytes, quarantine
from curator.vault.yamltext import dump as yaml_dump

log = logging.getLogger(__name__)

SCHEMA_VERSION = 2


@dataclass(frozen=True)
class Option:
    """One setting: dotted key, type, default, help text and, for numbers, a range."""

    key: str
    type: type
    default: Any
    help: str
    minimum: float | None = None
    maximum: float | None = None
    choices: tuple[str, ...] = ()
    group: str = "general"

    def coerce(self, value: Any) -> Any:
        """Convert ``value`` to this option's type or raise ``ValueError``."""
        if self.type is bool:
            if isinstance(value, bool):
                return value
            if str(value).strip().lower() in {"1", "true", "yes", "on"}:
                return True
            if str(value).strip().lower() in {"0", "false", "no", "off"}:
                return False
            raise ValueError(f"{self.key}: expected true or false, got {value!r}")
        if self.type in (int, float):
            try:
                number = self.type(value)
            except (TypeError, ValueError) as exc:
                raise ValueError(f"{self.key}: expected a number, got {value!r}") from exc
            if self.minimum is not None and number < self.minimum:
                raise ValueError(f"{self.key}: {number} is below the minimum {self.minimum}")
            if self.maximum is not None and number > self.maximum:
                raise ValueError(f"{self.key}: {number} is above the maximum {self.maximum}")
            return number
        text = "" if value is None else str(value)
        if self.choices and text not in self.choices:
            raise ValueError(f"{self.key}: {text!r} is not one of {', '.join(self.choices)}")
        return text


def _opt(key: str, type_: type, default: Any, help_: str, **kw: Any) -> Option:
    return Option(key, type_, default, help_, **kw)


OPTIONS: tuple[Option, ...] = (
    # Who the person is, for chats whose files store a role and no name (issue 19)
    _opt(
        "person.name",
        str,
        "",
        "What memories call you when a chat file stores no name for you (empty: your account's "
        "full name, else \"the user\").",
        group="general",
    ),
    # Batch reflector (seed 000)
    _opt(
        "batch.turn_threshold",
        int,
        10,
        "Turns since the last batch that start a batch reflection.",
        minimum=1,
        group="triggers",
    ),
    _opt(
        "batch.urgency_threshold",
        float,
        5.0,
        "Accumulated signal urgency above which a batch starts early.",
        minimum=0.0,
        group="triggers",
    ),
    _opt(
        "batch.max_turns", int, 10, "Most turns one batch reviews.", minimum=1, group="reflection"
    ),
    _opt(
        "batch.token_budget",
        int,
        4000,
        "Token budget of a batch's assembled turns (oldest dropped first).",
        minimum=256,
        group="reflection",
    ),
    _opt(
        "batch.auto_promote",
        bool,
        False,
        "Promote an item to Knowledge/ by itself after it recurs in two batches (off: a person decides).",
        group="reflection",
    ),
    _opt(
        "batch.expiry_days",
        int,
        30,
        "Days after which a staged item seen fewer than twice expires to trash.",
        minimum=1,
        group="reflection",
    ),
    _opt(
        "gates.keyword_support",
        float,
        0.6,
        "Share of a proposed item's content words (names and stop words aside) that must occur in the turns it cites.",
        minimum=0.0,
        maximum=1.0,
        group="reflection",
    ),
    _opt(
        "signals.weight_topic_repeat",
        float,
        1.0,
        "Signal weight: same topic 3+ times in the window.",
        minimum=0.0,
        group="triggers",
    ),
    _opt(
        "signals.weight_correction",
        float,
        2.0,
        "Signal weight: the user corrects something.",
        minimum=0.0,
        group="triggers",
    ),
    _opt(
        "signals.weight_high_confidence",
        float,
        1.5,
        "Signal weight: approved, high-quality research turn.",
        minimum=0.0,
        group="triggers",
    ),
    _opt(
        "signals.weight_knowledge_boundary",
        float,
        1.0,
        "Signal weight: planner routed to refresh or clarify.",
        minimum=0.0,
        group="triggers",
    ),
    _opt(
        "signals.weight_contradiction",
        float,
        2.5,
        "Signal weight: a contradiction was detected.",
        minimum=0.0,
        group="triggers",
    ),
    _opt(
        "signals.topic_window",
        int,
        10,
        "Recent user-turn topics kept to detect a repeated topic.",
        minimum=2,
        group="triggers",
    ),
    _opt(
        "signals.topic_repeats",
        int,
        3,
        "Occurrences of a topic in the window that count as a repeated topic.",
        minimum=2,
        group="triggers",
    ),
    _opt(
        "signals.topic_overlap",
        float,
        0.5,
        "Share of shared content words for two turns to be on the same topic.",
        minimum=0.05,
        maximum=1.0,
        group="triggers",
    ),
    _opt(
        "signals.high_confidence_quality",
        float,
        0.85,
        "Minimum quality of an approved research turn to count as high-confidence.",
        minimum=0.0,
        maximum=1.0,
        group="triggers",
    ),
    # Context summaries (seed 002)
    _opt(
        "summary.enabled",
        bool,
        True,
        "Write a context summary when a conversation pauses (off: only when you ask for one).",
        group="triggers",
    ),
    _opt(
        "summary.inactivity_minutes",
        float,
        5.0,
        "Minutes since the last user message before a context summary.",
        minimum=0.0,
        group="triggers",
    ),
    _opt(
        "summary.min_messages",
        int,
        5,
        "Your messages since the last summary needed before a context summary (the "
        "assistant's replies do not count).",
        minimum=1,
        group="triggers",
    ),
    _opt(
        "summary.prompt",
        str,
        "Write a concise summary of the current context.",
        "Instruction sent to the model for a context summary.",
        group="reflection",
    ),
    _opt(
        "summary.review_all",
        bool,
        False,
        "Send every context summary through the review queue, even one whose names, numbers and "
        "dates all occur in the conversation.",
        group="reflection",
    ),
    _opt(
        "summary.max_tokens",
        int,
        2000,
        "Longest context summary, in tokens.",
        minimum=64,
        group="reflection",
    ),
    # Micro-reflection (seed 003)
    _opt(
        "micro.enabled",
        bool,
        True,
        "Run a micro-reflection when a conversation goes silent, ends or nears the model's "
        "context (off: only when you ask for one).",
        group="triggers",
    ),
    _opt(
        "micro.silence_minutes",
        float,
        10.0,
        "Minutes of silence after which a conversation counts as ended.",
        minimum=0.0,
        group="triggers",
    ),
    _opt(
        "micro.context_pressure",
        float,
        0.8,
        "Share of the model's context window at which a conversation is near its budget.",
        minimum=0.1,
        maximum=1.0,
        group="triggers",
    ),
    _opt(
        "reflection.writer",
        str,
        "auto",
        "Who words proposed memories. choose: the model chooses among the person's own "
        "statements, code words them (retold with their name). reword: the model chooses, then "
        "words each chosen one as a short third-person sentence in the chat's language, checked "
        "against the person's words by code and by the model. model: the model writes freely "
        "(it may join several turns, but writes less that is true). auto: reword for a model of "
        "a billion parameters or more, choose below.",
        choices=("auto", "model", "choose", "reword"),
        group="reflection",
    ),
    _opt(
        "micro.max_facts",
        int,
        8,
        "Most facts one micro-reflection may propose.",
        minimum=1,
        group="reflection",
    ),
    # Consolidation cycle (seed 001)
    _opt(
        "cycle.schedule",
        str,
        "03:00",
        "Local time of the daily consolidation cycle (HH:MM, empty to disable).",
        group="triggers",
    ),
    _opt(
        "cycle.git_commit",
        bool,
        False,
        "Make the vault a git repository and commit every answered consolidation cycle (a vault "
        "that already is one is always committed).",
        group="reflection",
    ),
    _opt(
        "cycle.session_end_turns",
        int,
        40,
        "A conversation at least this long starts a consolidation cycle when its session ends.",
        minimum=1,
        group="triggers",
    ),
    _opt(
        "cycle.unprocessed_turns",
        int,
        200,
        "Unprocessed turns that start a consolidation cycle.",
        minimum=1,
        group="triggers",
    ),
    # Memory lifecycle and agents (seed 004 §10-§12)
    _opt(
        "lifecycle.promote_after_uses",
        int,
        5,
        "Times agents must use a document (with no correction or contradiction since) before it is "
        "proposed for the next scope (new -> user -> global).",
        minimum=1,
        group="lifecycle",
    ),
    _opt(
        "lifecycle.new_ttl_days",
        float,
        90.0,
        "Days an approved 'new' document stays before it is asked about again ('still true?').",
        minimum=1.0,
        group="lifecycle",
    ),
    _opt(
        "lifecycle.new_expiry",
        str,
        "ask",
        "What happens to a 'new' document past its days: ask ('still true?' in the review queue; "
        "nothing expires by itself) or expire (it goes to the trash, where it can be restored; "
        "seed 004's TTL).",
        choices=("ask", "expire"),
        group="lifecycle",
    ),
    _opt(
        "archive.after_days",
        float,
        30.0,
        "Days after which turns are archived: their text moves to cold storage and the index keeps "
        "one summary per conversation and day.",
        minimum=1.0,
        group="lifecycle",
    ),
    # Watching
    _opt(
        "watch.debounce_ms",
        int,
        400,
        "Quiet time after the last event on a path before it is parsed.",
        minimum=0,
        group="watching",
    ),
    _opt(
        "watch.max_latency_ms",
        int,
        5000,
        "Longest a busy path waits before it is parsed anyway.",
        minimum=100,
        group="watching",
    ),
    _opt(
        "watch.rescan_seconds",
        float,
        60.0,
        "Seconds between full rescans of every source (the source of truth).",
        minimum=1.0,
        group="watching",
    ),
    _opt(
        "watch.polling",
        bool,
        False,
        "Poll folders instead of native file events (network drives).",
        group="watching",
    ),
    # Sending memory to chat clients (issue 21): each switch is off until the person turns it on
    *(
        opt
        for key, name, place in (
            ("claude_code", "Claude Code", "its user memory (~/.claude/CLAUDE.md imports a file of the curator's own)"),
            ("sillytavern", "SillyTavern", "a lorebook of the curator's own (World Info)"),
            ("lmstudio", "LM Studio", "a preset of the curator's own (its system prompt)"),
            ("jan", "Jan", "an assistant of the curator's own (its instructions)"),
        )
        for opt in (
            _opt(f"send.{key}", bool, False,
                 f"Keep {name}'s memory in step with what you approved: {place}. The first write is shown "
                 "as a diff before anything is written.", group="sources"),
            _opt(f"send.{key}_folder", str, "",
                 f"{name}'s folder, if not where it usually is (empty: found automatically).", group="sources"),
        )
    ),
    _opt("send.openwebui", bool, False,
         "Keep Open WebUI's memories in step with what you approved: one memory per line, marked [Memory Curator], "
         "through its API with your API key. The first write is shown before anything is sent.", group="sources"),
    _opt("send.openwebui_url", str, "http://localhost:8080", "Where Open WebUI runs.", group="sources"),
    _opt(
        "send.max_chars",
        int,
        4000,
        "How much memory a client gets, in characters: core memory first, then approved memories by quality.",
        minimum=200,
        maximum=100_000,
        group="sources",
    ),
    # Model
    _opt(
        "model.path",
        str,
        "",
        "GGUF model file to use (empty: the bundled SmolLM2-135M). What a larger model buys: the "
        "bundled one only chooses among the person's own statements, which code words; a model "
        "of a billion parameters or more writes each memory itself, more naturally, and links "
        "facts across turns (measured on the demo: Qwen2.5-1.5B, ~4 minutes a session on 2 cores, "
        "~2 GB of RAM). It does not make memories truer: every proposal is gated and reviewed.",
        group="model",
    ),
    _opt(
        "model.n_ctx",
        int,
        4096,
        "Context window to load the model with, in tokens.",
        minimum=512,
        group="model",
    ),
    _opt(
        "model.threads",
        int,
        0,
        "CPU threads for inference (0: measured while it runs: every core, or one fewer on a busy machine).",
        minimum=0,
        group="model",
    ),
    _opt(
        "model.timeout_seconds",
        float,
        300.0,
        "Longest a single model job may run.",
        minimum=1.0,
        group="model",
    ),
    _opt(
        "model.retry_wait_seconds",
        float,
        30.0,
        "Wait before retrying a failed model call once.",
        minimum=0.0,
        group="model",
    ),
    _opt(
        "model.search_folders",
        str,
        "",
        "Extra folders to search for GGUF files (separated by os.pathsep).",
        group="model",
    ),
    _opt(
        "prompts.folder",
        str,
        "",
        "Folder with prompt overrides (empty: <vault>/prompts).",
        group="reflection",
    ),
)

OPTIONS_BY_KEY: dict[str, Option] = {o.key: o for o in OPTIONS}


@dataclass
class SourceConfig:
    """A watched source: a folder (or file), its adapter and the user it belongs to."""

    path: str
    adapter: str
    user_id: str = "default"
    id: str = ""
    enabled: bool = True

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "path": self.path,
            "adapter": self.adapter,
            "user_id": self.user_id,
            "enabled": self.enabled,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SourceConfig:
        return cls(
            path=str(data.get("path", "")),
            adapter=str(data.get("adapter", "")),
            user_id=str(data.get("user_id", "default") or "default"),
            id=str(data.get("id", "")),
            enabled=bool(data.get("enabled", True)),
        )


@dataclass
class Settings:
    """The values of all options plus the list of sources."""

    values: dict[str, Any] = field(default_factory=lambda: {o.key: o.default for o in OPTIONS})
    sources: list[SourceConfig] = field(default_factory=list)

    def __getitem__(self, key: str) -> Any:
        return self.values[key] if key in self.values else OPTIONS_BY_KEY[key].default

    def set(self, key: str, value: Any) -> None:
        """Set an option, checking it against its declaration."""
        option = OPTIONS_BY_KEY.get(key)
        if option is None:
            raise KeyError(f"unknown setting {key!r}")
        self.values[key] = option.coerce(value)

    def to_dict(self) -> dict[str, Any]:
        nested: dict[str, Any] = {}
        for option in OPTIONS:
            section, _, name = option.key.partition(".")
            nested.setdefault(section, {})[name] = self[option.key]
        return {
            "schema_version": SCHEMA_VERSION,
            "settings": nested,
            "sources": [s.to_dict() for s in self.sources],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> tuple[Settings, list[str]]:
        """Build settings from a current-version mapping; returns (settings, warnings)."""
        warnings: list[str] = []
        settings = cls()
        raw = data.get("settings") or {}
        if isinstance(raw, dict):
            for section, entries in raw.items():
                if not isinstance(entries, dict):
                    continue
                for name, value in entries.items():
                    key = f"{section}.{name}"
                    try:
                        settings.set(key, value)
                    except (KeyError, ValueError) as exc:
                        warnings.append(f"ignored setting: {exc}")
        for entry in data.get("sources") or []:
            if isinstance(entry, dict):
                settings.sources.append(SourceConfig.from_dict(entry))
        return settings, warnings


def _migrate_1_to_2(data: dict[str, Any]) -> dict[str, Any]:
    # Version 1 kept options flat ("turn_threshold: 10") and sources as bare paths.
    flat_names = {
        "turn_threshold": "batch.turn_threshold",
        "urgency_threshold": "batch.urgency_threshold",
        "inactivity_minutes": "summary.inactivity_minutes",
        "model_path": "model.path",
    }
    nested: dict[str, dict[str, Any]] = {}
    for old, new in flat_names.items():
        if old in data:
            section, _, name = new.partition(".")
            nested.setdefault(section, {})[name] = data[old]
    sources = []
    for entry in data.get("sources") or []:
        if isinstance(entry, str):
            sources.append({"path": entry, "adapter": "", "user_id": "default"})
        elif isinstance(entry, dict):
            sources.append(entry)
    return {"schema_version": 2, "settings": nested, "sources": sources}


MIGRATIONS: dict[int, Callable[[dict[str, Any]], dict[str, Any]]] = {1: _migrate_1_to_2}


def migrate(data: dict[str, Any]) -> dict[str, Any]:
    """Bring a settings mapping of any known version up to ``SCHEMA_VERSION``."""
    version = int(data.get("schema_version", 1) or 1)
    if version > SCHEMA_VERSION:
        raise ValueError(
            f"curator.yaml has schema version {version}, newer than this app ({SCHEMA_VERSION})"
        )
    while version < SCHEMA_VERSION:
        data = MIGRATIONS[version](data)
        version = int(data["schema_version"])
    return data


def _parse(raw_bytes: bytes) -> dict[str, Any]:
    """The mapping in a settings file; raises ValueError for anything else (empty included)."""
    try:
        data = yaml.safe_load(raw_bytes.decode("utf-8"))
    except (UnicodeDecodeError, yaml.YAMLError) as exc:
        raise ValueError(str(exc).splitlines()[0] if str(exc) else type(exc).__name__) from exc
    if data is None:
        raise ValueError("the file is empty")
    if not isinstance(data, dict):
        raise ValueError("top level is not a mapping")
    return data


def backup_path(path: Path) -> Path:
    """The last good copy of a settings file (written before every save)."""
    return path.with_name(path.name + ".bak")


def _last_good(path: Path) -> tuple[bytes, dict[str, Any]] | None:
    try:
        raw = backup_path(path).read_bytes()
        return raw, _parse(raw)
    except (OSError, ValueError):
        return None


def load_settings(path: Path) -> tuple[Settings, list[str]]:
    """Load ``curator.yaml``, never silently losing it.

    A missing file gives defaults (or the last good copy, when one exists). An empty or
    unparsable one is kept aside as ``curator.yaml.corrupt-N`` and the last good copy
    (``curator.yaml.bak``) is put back in its place; the warning says so. Only when no good
    copy exists are defaults used, and the warning says that too.
    """
    path = Path(path)
    messages: list[str] = []
    if not path.exists():
        good = _last_good(path)
        if good is None:
            return Settings(), []
        atomic_write_bytes(path, good[0])
        messages.append(f"{path.name} was missing; the last good copy {backup_path(path).name} was restored")
        log.warning(messages[-1])
    raw_bytes = path.read_bytes()
    try:
        data = _parse(raw_bytes)
    except ValueError as exc:
        aside = quarantine(path)
        good = _last_good(path)
        if good is None:
            message = f"{path.name} could not be read ({exc}); kept aside as {aside.name}; no good copy, defaults used"
            log.warning(message)
            return Settings(), [message]
        atomic_write_bytes(path, good[0])
        raw_bytes, data = good
        messages.append(f"{path.name} could not be read ({exc}); kept aside as {aside.name}; "
                        f"the last good copy {backup_path(path).name} is in use")
        log.warning(messages[-1])
    else:
        _refresh_backup(path, raw_bytes)
    version = int(data.get("schema_version", 1) or 1)
    data = migrate(data)
    if version != SCHEMA_VERSION:
        atomic_write_bytes(path.with_name(f"{path.name}.v{version}.bak"), raw_bytes)
    settings, warnings = Settings.from_dict(data)
    if version != SCHEMA_VERSION:
        save_settings(path, settings)
    return settings, messages + warnings


def _refresh_backup(path: Path, good: bytes) -> None:
    """Make ``good`` (bytes that parsed as settings) the last good copy, if it is not already.

    The backup is the newest settings that were read or written whole, so a file emptied or
    garbled later falls back to them and not to the generation before (which would forget
    the source added last).
    """
    backup = backup_path(path)
    try:
        if backup.read_bytes() == good:
            return
    except OSError:
        pass
    try:
        atomic_write_bytes(backup, good)
    except OSError as exc:  # a read-only vault still loads its settings
        log.debug("could not refresh %s: %s", backup, exc)


def save_settings(path: Path, settings: Settings) -> None:
    """Write ``curator.yaml`` atomically, and the same bytes as the last good copy.

    The backup is only ever written with bytes that parse as settings, so an empty or
    broken ``curator.yaml`` can never overwrite the last good copy.
    """
    path = Path(path)
    header = "# Memory Curator settings. Edit with care; `curator status` shows what is in effect.\n"
    data = (header + yaml_dump(settings.to_dict(), sort_keys=False, allow_unicode=True)).encode("utf-8")
    _parse(data)
    atomic_write_bytes(path, data)
    _refresh_backup(path, data)
