"""A scripted stand-in for the model, for exact-output unit tests of the reflection engines.

``ScriptedModel`` is a real :class:`ModelRuntime` (same queue, budgeting, validation,
events, cancel and timeout) whose backend replays prepared answers instead of running
llama.cpp. Engines under test therefore go through exactly the code path they use in
production, and the answers they parse are the ones the test wrote.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from curator.events import EventBus
from curator.llm.request import ModelRequest
from curator.llm.runtime import Backend, ModelRuntime, Post, post_direct

# A scripted answer: fixed text, or a function of the chat messages (to echo the prompt).
Answer = str | Callable[[list[dict[str, str]]], str]

_PIECES = re.compile(r"\s*\S+|\s+")


class ScriptError(RuntimeError):
    """The script ran out of answers, or an answer was an exception to raise."""


class ScriptedBackend:
    """Replays answers one token (word piece) at a time.

    Tokens are whitespace-delimited pieces, so token counts in tests are easy to predict:
    ``"a b c"`` is three tokens.

    Args:
        answers: Consumed in order, one per call. An ``Exception`` instance is raised from
            the call instead (to test error paths).
        n_ctx: The context window to report.
        token_delay: Seconds to sleep before each token (to test cancel and timeout).
        finish_reason: Reported at the end; ``length`` is used when ``max_tokens`` cuts it.
        load_error: Raised from the constructor's factory to simulate a failed load.
    """

    def __init__(
        self,
        answers: Iterable[Answer | BaseException] = (),
        *,
        n_ctx: int = 4096,
        token_delay: float = 0.0,
        finish_reason: str = "stop",
    ) -> None:
        self._answers = list(answers)
        self._n_ctx = n_ctx
        self.token_delay = token_delay
        self.finish_reason = finish_reason
        self.calls: list[dict[str, Any]] = []
        self.closed = False
        self.thread_ids: set[int] = set()
        self._vocab: dict[str, int] = {}
        self._words: list[str] = []
        # Like the llama backend: the runtime sets it, the prompt "evaluates" in two halves.
        self.prompt_progress: Callable[[int, int], None] | None = None

    def add(self, *answers: Answer | BaseException) -> None:
        """Append answers to the script."""
        self._answers.extend(answers)

    @property
    def n_ctx(self) -> int:
        return self._n_ctx

    def tokenize(self, text: str) -> list[int]:
        self.thread_ids.add(threading.get_ident())
        ids = []
        for piece in _PIECES.findall(text):
            if piece not in self._vocab:
                self._vocab[piece] = len(self._words)
                self._words.append(piece)
            ids.append(self._vocab[piece])
        return ids

    def detokenize(self, tokens: Sequence[int]) -> str:
        return "".join(self._words[t] for t in tokens)

    def stream_chat(
        self,
        messages: list[dict[str, str]],
        *,
        temperature: float,
        max_tokens: int,
        schema: dict[str, Any] | None,
        seed: int | None,
        repeat_penalty: float = 1.0,
    ) -> Iterator[tuple[str, str | None]]:
        self.thread_ids.add(threading.get_ident())
        self.calls.append(
            {
                "messages": messages,
                "temperature": temperature,
                "max_tokens": max_tokens,
                "schema": schema,
                "seed": seed,
                "repeat_penalty": repeat_penalty,
            }
        )
        if not self._answers:
            raise ScriptError("the scripted model has no answer left")
        answer = self._answers.pop(0)
        if isinstance(answer, BaseException):
            raise answer
        text = answer(messages) if callable(answer) else answer
        if self.prompt_progress is not None:
            total = sum(len(self.tokenize(m.get("content", ""))) for m in messages)
            for done in (0, total // 2, total):
                self.prompt_progress(done, total)
        pieces = _PIECES.findall(text)
        for index, piece in enumerate(pieces[:max_tokens]):
            if self.token_delay:
                time.sleep(self.token_delay)
            last = index == len(pieces) - 1
            cut = index == max_tokens - 1 and not last
            yield piece, (self.finish_reason if last else "length" if cut else None)
        if not pieces:
            yield "", self.finish_reason

    def reset(self) -> None:
        pass

    def close(self) -> None:
        self.closed = True


class ScriptedModel(ModelRuntime):
    """A :class:`ModelRuntime` driven by a :class:`ScriptedBackend`.

    Example:
        >>> model = ScriptedModel(['{"facts": []}'])
        >>> model.complete(request).data
        {'facts': []}

    Args:
        answers: The answers, in call order (see :class:`ScriptedBackend`).
        n_ctx: Context window.
        token_delay: Seconds per token.
        load_error: When set, loading "fails" with this message.
        bus: Event bus.
        post: Callback poster.
        timeout_seconds: Default job time limit.
    """

    def __init__(
        self,
        answers: Iterable[Answer | BaseException] = (),
        *,
        n_ctx: int = 4096,
        token_delay: float = 0.0,
        load_error: str = "",
        bus: EventBus | None = None,
        post: Post = post_direct,
        timeout_seconds: float = 60.0,
    ) -> None:
        self.backend = ScriptedBackend(answers, n_ctx=n_ctx, token_delay=token_delay)
        self.load_count = 0

        def factory(path: Path, n_ctx_: int, threads: int) -> Backend:
            self.load_count += 1
            if load_error:
                raise ValueError(load_error)
            return self.backend

        super().__init__(
            Path("scripted.gguf"),
            n_ctx=n_ctx,
            timeout_seconds=timeout_seconds,
            bus=bus,
            post=post,
            backend_factory=factory,
            validate_file=False,
        )
        self.requests: list[ModelRequest] = []

    def submit(self, request: ModelRequest, **kwargs: Any) -> Any:
        self.requests.append(request)
        return super().submit(request, **kwargs)

    @property
    def calls(self) -> list[dict[str, Any]]:
        """What the backend was asked: messages, temperature, max_tokens, schema, seed."""
        return self.backend.calls
