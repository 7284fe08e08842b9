"""A reflection's streamed JSON, as the words a person reads while it is being written.

The model writes ``{"new_facts": [{"title": "...", "content": "Maya works night...``; a
person waiting wants "new fact: Maya works night…". :class:`ReadableStream` reads the
pieces as they arrive with a small tolerant JSON scanner (the text is incomplete until the
end, so no JSON parser can help) and keeps one line per item being written. Free text (a
prompt without a schema) passes through as it is. Used by the window and the CLI alike;
what it shows is display only, never parsed for meaning.
"""

from __future__ import annotations

from dataclasses import dataclass

# Array name -> how its items are named.
ITEM_LABELS = {
    "new_facts": "new fact",
    "corrections": "correction",
    "connections": "connection",
    "open_questions": "open question",
    "facts": "fact",
    "keep": "chosen",  # a small model choosing among the person's statements
}
# The field of an item that says what it is, in the order they are preferred.
SHOWN_FIELDS = ("content", "what_changed", "relationship", "question", "fact", "summary", "reason", "category")
TOP_LEVEL_LABELS = {"summary": "summary", "reason": "reason"}
_ESCAPES = {"n": " ", "t": " ", "r": " ", "b": "", "f": "", '"': '"', "\\": "\\", "/": "/"}


@dataclass
class StreamItem:
    """One item being written: its label ("new fact") and its text so far."""

    label: str
    text: str = ""
    done: bool = False


@dataclass
class _Frame:
    kind: str  # "obj" | "arr"
    name: str = ""  # the key this container is the value of
    key: str = ""  # obj: the last key read
    shown: bool = False  # obj: an item line was started for it already


class ReadableStream:
    """Feed it streamed pieces; ``items`` and ``render`` give what is written so far."""

    def __init__(self) -> None:
        self.raw = ""
        self.items: list[StreamItem] = []
        self._stack: list[_Frame] = []
        self._in_string = False
        self._string_is_key = False
        self._escape = ""
        self._buffer: list[str] = []
        self._target: StreamItem | None = None
        self._free_text: bool | None = None

    def feed(self, piece: str) -> None:
        """Take the next streamed piece of text."""
        self.raw += piece
        for ch in piece:
            if self._free_text is None and not ch.isspace():
                self._free_text = ch not in "{["
            if self._free_text:
                continue
            self._step(ch)

    def render(self, limit: int = 0) -> str:
        """One line per item ("new fact: …"), the newest last; ``limit`` keeps the last N."""
        if self._free_text:
            return " ".join(self.raw.split())
        lines = [f"{item.label}: {item.text}" + ("" if item.done else "…") for item in self.items]
        return "\n".join(lines[-limit:] if limit else lines)

    def current(self) -> str:
        """The line being written now (or the last one)."""
        if self._free_text:
            return " ".join(self.raw.split())[-200:]
        return self.render(limit=1)

    # ---- The scanner

    def _step(self, ch: str) -> None:
        if self._in_string:
            self._string_char(ch)
            return
        top = self._stack[-1] if self._stack else None
        if ch == '"':
            self._in_string = True
            self._buffer = []
            self._string_is_key = top is not None and top.kind == "obj" and not top.key
            if not self._string_is_key:
                self._start_value()
        elif ch in "{[":
            name = top.key if top is not None and top.kind == "obj" else (top.name if top else "")
            self._stack.append(_Frame("obj" if ch == "{" else "arr", name=name))
        elif ch in "}]":
            if self._stack:
                self._stack.pop()
            self._value_done()
        elif ch == ",":
            self._value_done()

    def _string_char(self, ch: str) -> None:
        if self._escape:
            self._escape += ch
            if self._escape.startswith("\\u"):
                if len(self._escape) < 6:
                    return
                try:
                    self._add(chr(int(self._escape[2:], 16)))
                except ValueError:
                    pass
            else:
                self._add(_ESCAPES.get(ch, ch))
            self._escape = ""
            return
        if ch == "\\":
            self._escape = ch
        elif ch == '"':
            self._in_string = False
            if self._string_is_key and self._stack:
                self._stack[-1].key = "".join(self._buffer)
            elif self._target is not None:
                self._target.done = True
                self._target = None
        else:
            self._add(ch)

    def _add(self, text: str) -> None:
        self._buffer.append(text)
        if self._target is not None and not self._string_is_key:
            self._target.text += text

    def _start_value(self) -> None:
        self._target = None
        if not self._stack or self._stack[-1].kind != "obj":
            return
        frame = self._stack[-1]
        if frame.key not in SHOWN_FIELDS or frame.shown:
            return
        label = ITEM_LABELS.get(frame.name) or TOP_LEVEL_LABELS.get(frame.key)
        if label is None and len(self._stack) == 1:
            label = frame.key.replace("_", " ")
        if label is None:
            return
        frame.shown = True
        self._target = StreamItem(label)
        self.items.append(self._target)

    def _value_done(self) -> None:
        if self._stack and self._stack[-1].kind == "obj":
            self._stack[-1].key = ""
