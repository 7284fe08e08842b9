"""Prompt files: the bundled ones, loading, overrides, rendering and validation."""

from __future__ import annotations

from pathlib import Path

import pytest

from curator.llm.schema import SchemaError, check_schema, validate
from curator.reflection.prompts import (
    PLACEHOLDER,
    PromptError,
    list_prompts,
    load_prompt,
    parse_prompt,
    read_prompt_file,
)

JOBS = ["batch_chooser", "batch_reflector", "batch_reworder", "context_summary", "contradiction_check",
        "cycle_consolidate", "cycle_meta", "cycle_rewrite", "cycle_summary", "cycle_survey", "memory_check",
        "micro_reflection"]

MICRO_VALUES = {
    "trigger": "the conversation went quiet",
    "bot_name": "Ava",
    "author_names": "Sam",
    "max_facts": 8,
    "existing_facts": ['- [author] "Sam likes green tea"'],
    "excerpt": ["- Sam: I moved to Lisbon.", "- Ava: Nice!"],
}

MINIMAL = """---
name: demo
version: 1
temperature: 0.5
max_tokens: 100
placeholders: [items, who]
trim:
  - {placeholder: items, drop: oldest}
---
Notes for people.

## system
Answer like {"ok": true}.

## user
For {who}:
{items}
"""


def test_every_job_has_a_valid_bundled_prompt() -> None:
    assert list_prompts() == JOBS
    for name in JOBS:
        prompt = load_prompt(name)
        assert prompt.name == name
        assert prompt.version >= 1
        assert not prompt.overridden
        assert prompt.used_placeholders() <= set(prompt.placeholders)


def test_generation_settings_follow_the_seeds() -> None:
    batch = load_prompt("batch_reflector")
    assert (batch.temperature, batch.max_tokens) == (0.6, 1500)
    micro = load_prompt("micro_reflection")
    assert (micro.temperature, micro.max_tokens) == (0.2, 1200)
    summary = load_prompt("context_summary")
    assert summary.max_tokens == 2000 and summary.output_schema is None


def test_batch_schema_caps_and_shape() -> None:
    schema = load_prompt("batch_reflector").output_schema
    assert schema is not None
    props = schema["properties"]
    assert [props[k]["maxItems"] for k in ("new_facts", "corrections", "connections", "open_questions")] == [2, 1, 2, 2]
    assert props["new_facts"]["items"]["properties"]["category"]["enum"] == ["Facts", "Concepts", "Patterns"]
    empty = {"new_facts": [], "corrections": [], "connections": [], "open_questions": []}
    assert validate(empty, schema) == []


def test_micro_schema_accepts_a_full_fact_and_rejects_a_bad_one() -> None:
    schema = load_prompt("micro_reflection").output_schema
    assert schema is not None
    fact = {
        "subject": "author",
        "subjectName": "Sam",
        "fact": "Sam moved to Lisbon.",
        "type": "profile",
        "confidence": 0.8,
        "evidence": "I moved to Lisbon",
        "supersedes": "",
    }
    assert validate({"facts": [fact]}, schema) == []
    bad = {**fact, "subject": "someone", "confidence": 1.5}
    problems = validate({"facts": [bad] * 9}, schema)
    assert "$.facts: more than 8 items" in problems
    assert any("subject" in p and "not one of" in p for p in problems)
    assert any("confidence" in p and "above 1" in p for p in problems)


def test_prompts_put_the_fixed_part_first() -> None:
    # The system section has no placeholders, and the trimmable inputs come last in the
    # user section, so consecutive calls share the longest possible prefix.
    for name in JOBS:
        prompt = load_prompt(name)
        assert PLACEHOLDER.findall(prompt.system) == []
        for rule in prompt.trim:
            assert f"{{{rule.placeholder}}}" in prompt.user


def test_request_splits_fixed_text_and_trimmable_items() -> None:
    prompt = load_prompt("micro_reflection")
    request = prompt.request(MICRO_VALUES)
    assert request.kind == "micro_reflection"
    assert request.temperature == 0.2 and request.max_tokens == 1200
    assert request.schema == prompt.output_schema
    trimmable = [s for s in request.user if s.trimmable]
    assert [(s.placeholder, s.drop, s.rank) for s in trimmable] == [
        ("existing_facts", "oldest", 0),
        ("excerpt", "oldest", 1),
    ]
    text = request.user_text()
    assert "People in the excerpt: Sam. At most 8 facts." in text
    assert text.endswith("- Sam: I moved to Lisbon.\n- Ava: Nice!")
    assert request.messages()[0] == {"role": "system", "content": prompt.system}


def test_request_overrides_and_missing_values() -> None:
    prompt = load_prompt("context_summary")
    request = prompt.request({"context": ["a"], "instruction": "Summarise."}, max_tokens=50, seed=3)
    assert (request.max_tokens, request.seed) == (50, 3)
    with pytest.raises(PromptError, match="no value for instruction"):
        prompt.request({"context": ["a"]})


def test_json_braces_stay_literal_and_empty_lists_read_none(tmp_path: Path) -> None:
    prompt = parse_prompt(MINIMAL)
    system, user = prompt.render({"items": [], "who": "Sam"})
    assert system == 'Answer like {"ok": true}.'
    assert user == "For Sam:\n(none)"
    assert prompt.description == "Notes for people."


# ---- Overrides


def _write(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.md"
    path.write_text(text, encoding="utf-8")
    return path


def _override_of(name: str, **changes: str) -> str:
    bundled = load_prompt(name)
    assert bundled.source is not None
    text = bundled.source.read_text(encoding="utf-8")
    for old, new in changes.items():
        assert old in text
        text = text.replace(old, new)
    return text


def test_vault_override_wins(tmp_path: Path) -> None:
    text = _override_of(
        "context_summary",
        **{"temperature: 0.3": "temperature: 0.9", "You write short": "You write very short"},
    )
    path = _write(tmp_path / "prompts", "context_summary", text)
    prompt = load_prompt("context_summary", vault=tmp_path)
    assert prompt.overridden and prompt.source == path
    assert prompt.temperature == 0.9
    assert "very short" in prompt.system


def test_prompts_folder_setting_wins_over_the_vault(tmp_path: Path) -> None:
    _write(
        tmp_path / "vault/prompts",
        "context_summary",
        _override_of("context_summary", **{"temperature: 0.3": "temperature: 0.1"}),
    )
    chosen = _write(
        tmp_path / "elsewhere",
        "context_summary",
        _override_of("context_summary", **{"temperature: 0.3": "temperature: 0.7"}),
    )
    prompt = load_prompt("context_summary", vault=tmp_path / "vault", folder=tmp_path / "elsewhere")
    assert prompt.source == chosen and prompt.temperature == 0.7


def test_override_without_schema_keeps_the_bundled_contract(tmp_path: Path) -> None:
    bundled = load_prompt("contradiction_check")
    text = (
        "---\nname: contradiction_check\nversion: 2\ntemperature: 0.0\nmax_tokens: 80\n"
        "placeholders: [subject, existing, proposed]\n---\n## system\nCompare.\n\n## "
        "user\n{subject}: {existing} / {proposed}\n"
    )
    _write(tmp_path / "prompts", "contradiction_check", text)
    prompt = load_prompt("contradiction_check", vault=tmp_path)
    assert prompt.overridden and prompt.output_schema == bundled.output_schema
    assert prompt.max_tokens == 80


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"{excerpt}": "{excerpt} {secret}"}, "does not fill"),
        ({"Conversation excerpt:\n{excerpt}": "Conversation excerpt: gone"}, "leaves out {excerpt}"),
        ({"maxItems: 8": "maxItems: 50"}, "changes output_schema"),
        ({"temperature: 0.2": "temperature: hot"}, "temperature"),
        ({"name: micro_reflection": "name: something_else"}, "expected 'micro_reflection'"),
    ],
)
def test_invalid_override_falls_back_to_the_bundled_prompt(
    tmp_path: Path, change: dict[str, str], message: str
) -> None:
    text = _override_of("micro_reflection", **change)
    if "{secret}" in text:
        text = text.replace("placeholders: [", "placeholders: [secret, ")
    _write(tmp_path / "prompts", "micro_reflection", text)
    prompt = load_prompt("micro_reflection", vault=tmp_path)
    assert not prompt.overridden
    assert prompt.source == load_prompt("micro_reflection").source
    assert len(prompt.warnings) == 1 and message in prompt.warnings[0]


def test_unknown_prompt_name(tmp_path: Path) -> None:
    with pytest.raises(PromptError, match="cannot be read"):
        load_prompt("no_such_job")
    with pytest.raises(PromptError, match="invalid prompt name"):
        load_prompt("../etc/passwd")


# ---- Validation of prompt files


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("no frontmatter\n## system\nx\n## user\ny\n", "does not start with YAML frontmatter"),
        ("---\nname: x\n", "not closed"),
        ("---\nname: [unclosed\n---\n## system\na\n## user\nb\n", "invalid YAML"),
        (
            "---\nname: Bad Name\ntemperature: 0.1\nmax_tokens: 5\n---\n## system\na\n## user\nb\n",
            "'name'",
        ),
        (
            "---\nname: x\ntemperature: 3\nmax_tokens: 5\n---\n## system\na\n## user\nb\n",
            "'temperature'",
        ),
        (
            "---\nname: x\ntemperature: 0.1\nmax_tokens: 0\n---\n## system\na\n## user\nb\n",
            "'max_tokens'",
        ),
        (
            "---\nname: x\ntemperature: 0.1\nmax_tokens: 5\n---\n## user\nb\n## system\na\n",
            "'## system' section followed by",
        ),
        (
            "---\nname: x\ntemperature: 0.1\nmax_tokens: 5\n---\n## system\na\n",
            "'## system' section followed by",
        ),
        (
            "---\nname: x\ntemperature: 0.1\nmax_tokens: 5\n---\n## system\n\n## user\nb\n",
            "must not be empty",
        ),
        (
            "---\nname: x\ntemperature: 0.1\nmax_tokens: 5\n---\n## system\na\n## user\n{who}\n",
            "uses {who}",
        ),
        (
            "---\nname: x\ntemperature: 0.1\nmax_tokens: 5\nplaceholders: [a]\ntrim: [{placeholder: "
            "b}]\n---\n## system\na\n## user\n{a}\n",
            "trim names 'b'",
        ),
        (
            "---\nname: x\ntemperature: 0.1\nmax_tokens: 5\nplaceholders: [a]\ntrim: [{placeholder: "
            "a, drop: middle}]\n---\n## system\na\n## user\n{a}\n",
            "oldest or newest",
        ),
        (
            "---\nname: x\ntemperature: 0.1\nmax_tokens: 5\noutput_schema: {type: object, oneOf: "
            "[]}\n---\n## system\na\n## user\nb\n",
            "unsupported schema keyword",
        ),
        (
            "---\nname: x\ntemperature: 0.1\nmax_tokens: 5\nrepeat_penalty: 9\n---\n## system\na\n## user\nb\n",
            "repeat_penalty",
        ),
    ],
)
def test_malformed_prompt_files_give_one_clear_line(tmp_path: Path, text: str, message: str) -> None:
    path = _write(tmp_path, "x", text)
    with pytest.raises(PromptError) as caught:
        read_prompt_file(path)
    assert message in str(caught.value)
    assert str(path) in str(caught.value)
    assert "\n" not in str(caught.value)


def test_non_utf8_prompt_file(tmp_path: Path) -> None:
    path = tmp_path / "x.md"
    path.write_bytes(b"---\nname: x\xff\n---\n")
    with pytest.raises(PromptError, match="not valid UTF-8"):
        read_prompt_file(path)


# ---- The schema subset


def test_schema_validator_types_and_limits() -> None:
    schema = {
        "type": "object",
        "additionalProperties": False,
        "required": ["n", "tags"],
        "properties": {
            "n": {"type": "integer", "minimum": 0, "maximum": 3},
            "tags": {"type": "array", "minItems": 1, "maxItems": 2, "items": {"type": "string", "maxLength": 3}},
            "x": {"type": ["string", "null"]},
        },
    }
    assert validate({"n": 1, "tags": ["a"], "x": None}, schema) == []
    problems = validate({"n": True, "tags": [], "extra": 1, "x": 5}, schema)
    assert "$.n: expected integer, got bool" in problems
    assert "$.tags: fewer than 1 items" in problems
    assert "$: unexpected property 'extra'" in problems
    assert "$.x: expected string or null, got int" in problems
    assert validate({"n": 1, "tags": ["abcd", "ok\x07"]}, schema) == [
        "$.tags[0]: longer than 3 characters",
        "$.tags[1]: contains control characters",
    ]
    assert validate([], schema) == ["$: expected object, got list"]


def test_schema_checker_refuses_what_the_grammar_would_not_match() -> None:
    check_schema({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]})
    with pytest.raises(SchemaError, match="required"):
        check_schema({"type": "object", "properties": {}, "required": ["a"]})
    with pytest.raises(SchemaError, match="unsupported"):
        check_schema({"type": "string", "pattern": "x"})
    with pytest.raises(SchemaError, match="'type'"):
        check_schema({"properties": {}})
