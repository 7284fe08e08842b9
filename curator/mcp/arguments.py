"""Checking a tool call's arguments against the tool's JSON Schema, without a schema library.

The server writes its schemas by hand (``curator.mcp.tool_specs``) and uses only a small part
of JSON Schema: types, ``null`` for optional values, enums, lengths, bounds and list items.
This checks exactly that part, so an agent's arguments are refused with a one-line reason
naming the argument ("limit: must be at most 50, got 1000"), and defaults are filled in.
Importing pydantic or jsonschema for this would cost the start-up a client waits for.
"""

from __future__ import annotations

from typing import Any

_JSON_TYPES: dict[str, str] = {"string": "a string", "integer": "a whole number", "number": "a number",
                               "boolean": "true or false",
                               "array": "a list", "null": "null", "object": "an object"}


class ArgumentError(ValueError):
    """An argument an agent sent that the tool's schema refuses (the message says which and why)."""


def checked_arguments(schema: dict[str, Any], arguments: Any) -> dict[str, Any]:
    """``arguments`` checked against an object ``schema``, with defaults filled in.

    Raises:
        ArgumentError: a missing, unknown or invalid argument.
    """
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        raise ArgumentError("arguments must be an object")
    properties: dict[str, Any] = schema.get("properties", {})
    unknown = sorted(set(arguments) - set(properties))
    if unknown:
        raise ArgumentError(f"unknown argument {unknown[0]!r}; this tool takes: {', '.join(properties)}")
    missing = [name for name in schema.get("required", []) if name not in arguments]
    if missing:
        raise ArgumentError(f"{missing[0]}: required")
    checked: dict[str, Any] = {}
    for name, spec in properties.items():
        if name in arguments:
            checked[name] = _checked(name, spec, arguments[name])
        elif "default" in spec:
            checked[name] = spec["default"]
    return checked


def _checked(where: str, spec: dict[str, Any], value: Any) -> Any:
    options = spec.get("anyOf")
    if options:
        reasons = []
        for option in options:
            try:
                return _checked(where, option, value)
            except ArgumentError as exc:
                reasons.append(str(exc))
        # The most telling reason is the one of the option whose type matched.
        typed = [r for r in reasons if "must be a" not in r and "must be null" not in r]
        raise ArgumentError(typed[0] if typed else f"{where}: must be " + " or ".join(
            _JSON_TYPES.get(o.get("type", ""), "valid") for o in options))
    kind = spec.get("type")
    value = _typed(where, kind, value)
    if "enum" in spec and value not in spec["enum"]:
        raise ArgumentError(f"{where}: {_short(value)} is not one of: {', '.join(map(str, spec['enum']))}")
    if kind == "string":
        if len(value) < spec.get("minLength", 0):
            raise ArgumentError(f"{where}: must not be empty" if spec["minLength"] == 1
                                else f"{where}: at least {spec['minLength']} characters")
        if "maxLength" in spec and len(value) > spec["maxLength"]:
            raise ArgumentError(f"{where}: at most {spec['maxLength']} characters, got {len(value)}")
    if kind in ("integer", "number"):
        if "minimum" in spec and value < spec["minimum"]:
            raise ArgumentError(f"{where}: must be at least {spec['minimum']}, got {value}")
        if "maximum" in spec and value > spec["maximum"]:
            raise ArgumentError(f"{where}: must be at most {spec['maximum']}, got {value}")
        if "exclusiveMinimum" in spec and value <= spec["exclusiveMinimum"]:
            raise ArgumentError(f"{where}: must be more than {spec['exclusiveMinimum']}, got {value}")
    if kind == "array":
        if "maxItems" in spec and len(value) > spec["maxItems"]:
            raise ArgumentError(f"{where}: at most {spec['maxItems']} items, got {len(value)}")
        item_spec = spec.get("items")
        if item_spec:
            value = [_checked(f"{where}[{i}]", item_spec, item) for i, item in enumerate(value)]
    return value


def _typed(where: str, kind: str | None, value: Any) -> Any:
    """``value`` as JSON type ``kind`` (a whole float is taken as an integer), or refused."""
    ok = {
        None: True,
        "string": isinstance(value, str),
        "boolean": isinstance(value, bool),
        "integer": (isinstance(value, int) and not isinstance(value, bool))
        or (isinstance(value, float) and value.is_integer()),
        "number": isinstance(value, int | float) and not isinstance(value, bool),
        "array": isinstance(value, list),
        "object": isinstance(value, dict),
        "null": value is None,
    }.get(kind, False)
    if not ok:
        raise ArgumentError(f"{where}: must be {_JSON_TYPES.get(kind or '', kind)}, got {_short(value)}")
    return int(value) if kind == "integer" else value


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
