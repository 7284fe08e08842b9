"""Prompt files: one Markdown file per job, with generation settings and output schema.

A prompt file is YAML frontmatter (name, version, temperature, max_tokens, placeholders,
trim rules, output_schema) followed by a body with a ``## system`` and a ``## user``
section; text before ``## system`` is a note for people and is not sent. ``{name}`` in a
section is a placeholder (only lower-case identifiers, so JSON examples such as
``{"facts": []}`` stay literal).

The bundled prompts live in the project's ``prompts/`` folder. A person can override one
by putting a file of the same name in ``<vault>/prompts/`` (or the folder in setting
``prompts.folder``). An override may reword the prompt and change its temperature and
token limit, but it may only use the placeholders the job fills and must keep the output
schema the engine parses; a broken override is reported and the bundled prompt is used.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeGuard

import frontmatter
import yaml

from curator.datafiles import data_dir
from curator.llm.request import ModelRequest, Segment
from curator.llm.schema import SchemaError, check_schema

log = logging.getLogger(__name__)

PLACEHOLDER = re.compile(r"\{([a-z_][a-z0-9_]*)\}")
_SECTION = re.compile(r"^##\s+(system|user)\s*$", re.IGNORECASE | re.MULTILINE)
_NAME = re.compile(r"^[a-z][a-z0-9_]*$")


class PromptError(Exception):
    """A prompt file is missing or malformed; ``str(error)`` is one line."""


@dataclass(frozen=True)
class TrimRule:
    """Which placeholder may lose items when the prompt is too long, and from which end."""

    placeholder: str
    drop: str = "oldest"


@dataclass(frozen=True)
class PromptTemplate:
    """A parsed prompt file."""

    name: str
    version: int
    temperature: float
    max_tokens: int
    system: str
    user: str
    placeholders: tuple[str, ...] = ()
    trim: tuple[TrimRule, ...] = ()
    output_schema: dict[str, Any] | None = None
    repeat_penalty: float = 1.0
    description: str = ""
    source: Path | None = None
    overridden: bool = False
    warnings: tuple[str, ...] = field(default=())

    def used_placeholders(self) -> set[str]:
        """Placeholders that occur in the system or user section."""
        return set(PLACEHOLDER.findall(self.system)) | set(PLACEHOLDER.findall(self.user))

    def request(self, values: Mapping[str, Any], **overrides: Any) -> ModelRequest:
        """Fill the placeholders and build a model request.

        Args:
            values: Placeholder -> value. Trimmable placeholders (see ``trim``) take a list
                of items (oldest first) that the runtime may shorten to fit the model's
                context; other list values are joined with newlines, others are str()'d.
            **overrides: ModelRequest fields to override (``max_tokens``, ``seed``...).

        Raises:
            PromptError: A placeholder used by the prompt has no value.
        """
        missing = sorted(self.used_placeholders() - set(values))
        if missing:
            raise PromptError(f"prompt {self.name}: no value for {', '.join(missing)}")
        ranks = {rule.placeholder: (rank, rule.drop) for rank, rule in enumerate(self.trim)}
        system = PLACEHOLDER.sub(lambda m: _as_text(values[m.group(1)]), self.system)
        segments: list[Segment] = []
        position = 0
        for match in PLACEHOLDER.finditer(self.user):
            name = match.group(1)
            segments.append(Segment(text=self.user[position : match.start()]))
            value = values[name]
            if name in ranks:
                items = [str(v) for v in value] if isinstance(value, list | tuple) else [str(value)]
                rank, drop = ranks[name]
                segments.append(Segment(items=items, placeholder=name, drop=drop, rank=rank))
            else:
                segments.append(Segment(text=_as_text(value)))
            position = match.end()
        segments.append(Segment(text=self.user[position:]))
        merged: list[Segment] = []
        for segment in segments:
            if segment.trimmable or not merged or merged[-1].trimmable:
                merged.append(segment)
            else:
                merged[-1] = Segment(text=merged[-1].text + segment.text)
        segments = [s for s in merged if s.trimmable or s.text]
        fields: dict[str, Any] = {
            "kind": self.name,
            "system": system,
            "user": segments,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            "schema": self.output_schema,
            "repeat_penalty": self.repeat_penalty,
        }
        fields.update(overrides)
        return ModelRequest(**fields)

    def render(self, values: Mapping[str, Any]) -> tuple[str, str]:
        """The (system, user) texts with every item kept; for display and tests."""
        request = self.request(values)
        return request.system, request.user_text()


def _as_text(value: Any) -> str:
    if isinstance(value, list | tuple):
        return "\n".join(str(v) for v in value) if value else "(none)"
    return str(value)


def _is_number(value: Any) -> TypeGuard[int | float]:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _split_frontmatter(text: str, where: str) -> tuple[dict[str, Any], str]:
    # python-frontmatter's YAML handler does the splitting and loading, as for vault
    # documents; only the messages are ours (a prompt without frontmatter is an error here).
    text = text.removeprefix("\ufeff")
    handler = frontmatter.YAMLHandler()
    if not handler.detect(text):
        raise PromptError(f"{where}: does not start with YAML frontmatter (---)")
    try:
        head, body = handler.split(text)
    except ValueError:
        raise PromptError(f"{where}: frontmatter is not closed with ---") from None
    try:
        meta = handler.load(head) or {}
    except yaml.YAMLError as exc:
        problem = str(exc).splitlines()[0] if str(exc) else "syntax error"
        raise PromptError(f"{where}: invalid YAML in frontmatter ({problem})") from None
    if not isinstance(meta, dict):
        raise PromptError(f"{where}: frontmatter is not a mapping")
    return meta, body


def parse_prompt(text: str, source: Path | None = None) -> PromptTemplate:
    """Parse and validate the text of a prompt file.

    Raises:
        PromptError: With a one-line message naming the file and the problem.
    """
    where = str(source) if source is not None else "prompt"
    meta, body = _split_frontmatter(text, where)
    name, version, temperature, max_tokens, repeat_penalty = _header_fields(meta, where)
    placeholders = meta.get("placeholders", [])
    if not isinstance(placeholders, list) or not all(isinstance(p, str) for p in placeholders):
        raise PromptError(f"{where}: 'placeholders' must be a list of names")
    trim = _trim_rules(meta, where)
    schema = meta.get("output_schema")
    if schema is not None:
        try:
            check_schema(schema)
        except SchemaError as exc:
            raise PromptError(f"{where}: output_schema: {exc}") from None
    description, system, user = _sections(body, where)
    template = PromptTemplate(
        name=name,
        version=version,
        temperature=temperature,
        max_tokens=max_tokens,
        system=system,
        user=user,
        placeholders=tuple(placeholders),
        trim=tuple(trim),
        output_schema=schema,
        repeat_penalty=repeat_penalty,
        description=str(meta.get("description") or description).strip(),
        source=source,
    )
    _check_placeholders(template, where)
    return template


def _header_fields(meta: dict[str, Any], where: str) -> tuple[str, int, float, int, float]:
    """Name, version and sampling settings from the frontmatter, each checked."""
    name = meta.get("name")
    if not isinstance(name, str) or not _NAME.match(name):
        raise PromptError(f"{where}: 'name' must be a lower-case identifier")
    version = meta.get("version", 1)
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise PromptError(f"{where}: 'version' must be a positive integer")
    temperature = meta.get("temperature")
    if not _is_number(temperature) or not 0 <= temperature <= 2:
        raise PromptError(f"{where}: 'temperature' must be a number from 0 to 2")
    max_tokens = meta.get("max_tokens")
    if not isinstance(max_tokens, int) or isinstance(max_tokens, bool) or not 1 <= max_tokens <= 32768:
        raise PromptError(f"{where}: 'max_tokens' must be an integer from 1 to 32768")
    repeat_penalty = meta.get("repeat_penalty", 1.0)
    if not _is_number(repeat_penalty) or not 1 <= repeat_penalty <= 2:
        raise PromptError(f"{where}: 'repeat_penalty' must be a number from 1 to 2")
    return name, version, float(temperature), max_tokens, float(repeat_penalty)


def _trim_rules(meta: dict[str, Any], where: str) -> list[TrimRule]:
    trim: list[TrimRule] = []
    for entry in meta.get("trim") or []:
        if not isinstance(entry, dict) or not isinstance(entry.get("placeholder"), str):
            raise PromptError(f"{where}: each 'trim' entry needs a placeholder")
        drop = entry.get("drop", "oldest")
        if drop not in ("oldest", "newest"):
            raise PromptError(f"{where}: trim 'drop' must be oldest or newest, not {drop!r}")
        trim.append(TrimRule(entry["placeholder"], drop))
    return trim


def _sections(body: str, where: str) -> tuple[str, str, str]:
    """The body's description (before the sections), system section and user section."""
    sections = list(_SECTION.finditer(body))
    found = [m.group(1).lower() for m in sections]
    if found != ["system", "user"]:
        raise PromptError(
            f"{where}: the body needs a '## system' section followed by a '## user' section"
        )
    description = body[: sections[0].start()].strip()
    system = body[sections[0].end() : sections[1].start()].strip()
    user = body[sections[1].end() :].strip()
    if not system or not user:
        raise PromptError(f"{where}: the system and user sections must not be empty")
    return description, system, user


def _check_placeholders(template: PromptTemplate, where: str) -> None:
    """Every placeholder used is declared, and a trimmable one sits in the user section."""
    declared = set(template.placeholders)
    unknown = sorted(template.used_placeholders() - declared)
    if unknown:
        raise PromptError(
            f"{where}: uses {{{unknown[0]}}}, which is not in its 'placeholders' list"
        )
    for rule in template.trim:
        if rule.placeholder not in declared:
            raise PromptError(f"{where}: trim names {rule.placeholder!r}, not a declared placeholder")
        if f"{{{rule.placeholder}}}" in template.system:
            raise PromptError(
                f"{where}: {{{rule.placeholder}}} is trimmable, so it belongs in the user section"
            )


def read_prompt_file(path: Path) -> PromptTemplate:
    """Read and validate one prompt file.

    Raises:
        PromptError: The file cannot be read or is malformed.
    """
    try:
        text = Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise PromptError(f"{path}: not valid UTF-8 text") from None
    except OSError as exc:
        raise PromptError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    return parse_prompt(text, Path(path))


def bundled_prompt_dir() -> Path:
    """The project's ``prompts/`` folder (from a checkout or an installed wheel)."""
    return data_dir("prompts")


def override_dirs(vault: Path | None = None, folder: str | Path | None = None) -> list[Path]:
    """Folders searched for overrides, most specific first.

    Args:
        vault: The vault (``<vault>/prompts`` is searched).
        folder: The ``prompts.folder`` setting; replaces ``<vault>/prompts`` when set.
    """
    if folder:
        return [Path(folder).expanduser()]
    if vault is not None:
        return [Path(vault) / "prompts"]
    return []


def _check_override(override: PromptTemplate, bundled: PromptTemplate) -> PromptTemplate:
    where = str(override.source)
    if override.name != bundled.name:
        raise PromptError(f"{where}: its name is {override.name!r}, expected {bundled.name!r}")
    allowed = set(bundled.placeholders)
    unknown = sorted(override.used_placeholders() - allowed)
    if unknown:
        raise PromptError(
            f"{where}: uses {{{unknown[0]}}}, which the {bundled.name} job does not fill "
            f"(it fills: {', '.join(bundled.placeholders)})"
        )
    for rule in bundled.trim:
        if rule.placeholder not in override.used_placeholders():
            raise PromptError(f"{where}: leaves out {{{rule.placeholder}}}, the job's main input")
    schema = override.output_schema
    if schema is not None and schema != bundled.output_schema:
        raise PromptError(
            f"{where}: changes output_schema, which the engine relies on; remove it from the "
            f"override to use the bundled one"
        )
    # The job's contract (placeholders, trim rules, schema) always comes from the bundled file.
    return PromptTemplate(
        name=override.name,
        version=override.version,
        temperature=override.temperature,
        max_tokens=override.max_tokens,
        system=override.system,
        user=override.user,
        placeholders=bundled.placeholders,
        trim=bundled.trim,
        output_schema=bundled.output_schema,
        repeat_penalty=override.repeat_penalty,
        description=override.description or bundled.description,
        source=override.source,
        overridden=True,
    )


def load_prompt(
    name: str,
    *,
    vault: Path | None = None,
    folder: str | Path | None = None,
    bundled_dir: Path | None = None,
) -> PromptTemplate:
    """Load the prompt for a job, preferring a valid override.

    Args:
        name: The job's prompt name (``batch_reflector``, ``micro_reflection``,
            ``context_summary``, ``contradiction_check``).
        vault: The vault, for ``<vault>/prompts/<name>.md``.
        folder: The ``prompts.folder`` setting (takes precedence over the vault's folder).
        bundled_dir: Where the bundled prompts are; the project's ``prompts/`` when None.

    Returns:
        The template. When an override exists but is invalid, the bundled template is
        returned with the problem in ``warnings`` (the job still runs).

    Raises:
        PromptError: The bundled prompt itself is missing or invalid.
    """
    if not _NAME.match(name):
        raise PromptError(f"invalid prompt name {name!r}")
    base = bundled_dir if bundled_dir is not None else bundled_prompt_dir()
    bundled = read_prompt_file(base / f"{name}.md")
    for directory in override_dirs(vault, folder):
        candidate = directory / f"{name}.md"
        if not candidate.is_file():
            continue
        try:
            return _check_override(read_prompt_file(candidate), bundled)
        except PromptError as exc:
            log.warning("prompt override ignored: %s", exc)
            return PromptTemplate(**{**bundled.__dict__, "warnings": (str(exc),)})
    return bundled


def list_prompts(bundled_dir: Path | None = None) -> list[str]:
    """Names of the bundled prompts."""
    base = bundled_dir if bundled_dir is not None else bundled_prompt_dir()
    return sorted(p.stem for p in base.glob("*.md"))
