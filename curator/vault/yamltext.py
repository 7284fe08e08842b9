"""YAML output that reads back exactly: the one dumper for frontmatter and ``curator.yaml``.

YAML treats U+0085, U+2028 and U+2029 as line breaks, so a title holding one of them came
back changed (or broke the file) when written as a plain scalar. Strings holding those,
control characters, or leading/trailing blanks are written double-quoted, where every such
character is escaped; everything else keeps PyYAML's usual style.
"""

from __future__ import annotations

from typing import Any

import yaml

_BREAKS = frozenset("\x85\u2028\u2029")


def _needs_quotes(text: str) -> bool:
    if text != text.strip(" \t") and text.strip(" \t"):
        return True
    return any(ch in _BREAKS or (ord(ch) < 0x20 and ch not in "\n") or 0x7F <= ord(ch) < 0xA0 for ch in text)


class ExactDumper(yaml.SafeDumper):
    """``yaml.SafeDumper`` whose strings always load back as the same string."""


def _represent_str(dumper: yaml.SafeDumper, text: str) -> yaml.ScalarNode:
    if _needs_quotes(text):
        return dumper.represent_scalar("tag:yaml.org,2002:str", text, style='"')
    return dumper.represent_str(text)


ExactDumper.add_representer(str, _represent_str)


def dump(data: Any, **kwargs: Any) -> str:
    """``yaml.safe_dump`` with exact strings (keyword arguments as for ``yaml.dump``)."""
    return yaml.dump(data, Dumper=ExactDumper, **kwargs)
