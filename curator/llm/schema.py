"""A small JSON Schema validator for the subset the prompts use.

Model output is generated under a grammar built from the same schema, but grammars have
been seen to let through unterminated or oddly typed output, so every structured answer
is checked again here before anyone reads it. The subset is deliberately tight (no
``$ref``, no ``oneOf``) so that the grammar and this check agree on what is valid.
"""

from __future__ import annotations

import re
from typing import Any

SUPPORTED_KEYWORDS = frozenset(
    {
        "type",
        "properties",
        "required",
        "additionalProperties",
        "items",
        "enum",
        "minItems",
        "maxItems",
        "minimum",
        "maximum",
        "minLength",
        "maxLength",
        "description",
        "title",
    }
)
_TYPES = frozenset({"object", "array", "string", "integer", "number", "boolean", "null"})
# Control characters other than tab, newline and carriage return have no place in a memory;
# they show up when a grammar lets a small model emit garbage.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


class SchemaError(ValueError):
    """The schema itself uses something this validator does not support."""


def check_schema(schema: Any, path: str = "$") -> None:
    """Raise :class:`SchemaError` if ``schema`` strays outside the supported subset."""
    if not isinstance(schema, dict):
        raise SchemaError(f"{path}: a schema must be a mapping")
    unknown = set(schema) - SUPPORTED_KEYWORDS
    if unknown:
        raise SchemaError(f"{path}: unsupported schema keyword(s) {', '.join(sorted(unknown))}")
    kind = schema.get("type")
    kinds = kind if isinstance(kind, list) else [kind]
    if kind is None or not all(k in _TYPES for k in kinds):
        raise SchemaError(f"{path}: 'type' must be one of {', '.join(sorted(_TYPES))}")
    if "enum" in schema and not isinstance(schema["enum"], list):
        raise SchemaError(f"{path}: 'enum' must be a list")
    properties = schema.get("properties", {})
    if not isinstance(properties, dict):
        raise SchemaError(f"{path}: 'properties' must be a mapping")
    for name, sub in properties.items():
        check_schema(sub, f"{path}.{name}")
    required = schema.get("required", [])
    if not isinstance(required, list) or any(r not in properties for r in required):
        raise SchemaError(f"{path}: 'required' names a property that is not declared")
    if "items" in schema:
        check_schema(schema["items"], f"{path}[]")
    if "additionalProperties" in schema and not isinstance(schema["additionalProperties"], bool):
        raise SchemaError(f"{path}: 'additionalProperties' must be true or false")


def _type_ok(value: Any, kind: str) -> bool:
    if kind == "object":
        return isinstance(value, dict)
    if kind == "array":
        return isinstance(value, list)
    if kind == "string":
        return isinstance(value, str)
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "null":
        return value is None
    if kind == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "number":
        return isinstance(value, int | float) and not isinstance(value, bool)
    return False


def validate(value: Any, schema: dict[str, Any], path: str = "$") -> list[str]:
    """Check ``value`` against ``schema``.

    Returns:
        Human-readable problems, each prefixed with a JSON path (``$.facts[0].subject``);
        empty when the value is valid.
    """
    errors: list[str] = []
    kind = schema.get("type")
    kinds = kind if isinstance(kind, list) else [kind] if kind else []
    if kinds and not any(_type_ok(value, k) for k in kinds):
        errors.append(f"{path}: expected {' or '.join(kinds)}, got {type(value).__name__}")
        return errors
    if "enum" in schema and value not in schema["enum"]:
        errors.append(f"{path}: {value!r} is not one of {schema['enum']}")
    if isinstance(value, str):
        if "minLength" in schema and len(value) < schema["minLength"]:
            errors.append(f"{path}: shorter than {schema['minLength']} characters")
        if "maxLength" in schema and len(value) > schema["maxLength"]:
            errors.append(f"{path}: longer than {schema['maxLength']} characters")
        if _CONTROL.search(value):
            errors.append(f"{path}: contains control characters")
    if isinstance(value, int | float) and not isinstance(value, bool):
        if "minimum" in schema and value < schema["minimum"]:
            errors.append(f"{path}: {value} is below {schema['minimum']}")
        if "maximum" in schema and value > schema["maximum"]:
            errors.append(f"{path}: {value} is above {schema['maximum']}")
    if isinstance(value, list):
        if "minItems" in schema and len(value) < schema["minItems"]:
            errors.append(f"{path}: fewer than {schema['minItems']} items")
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            errors.append(f"{path}: more than {schema['maxItems']} items")
        if "items" in schema:
            for index, item in enumerate(value):
                errors.extend(validate(item, schema["items"], f"{path}[{index}]"))
    if isinstance(value, dict):
        properties = schema.get("properties", {})
        for name in schema.get("required", []):
            if name not in value:
                errors.append(f"{path}: missing {name!r}")
        if schema.get("additionalProperties", True) is False:
            for name in value:
                if name not in properties:
                    errors.append(f"{path}: unexpected property {name!r}")
        for name, sub in properties.items():
            if name in value:
                errors.extend(validate(value[name], sub, f"{path}.{name}"))
    return errors
