"""The model adapter: what the worker needs of a loaded model, and llama-cpp-python behind it.

Only ever used on the model worker thread ("curator-model"): llama.cpp contexts are not
thread-safe. Tests put a scripted backend in its place (``tests/fakes``).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, Protocol, cast

from curator.llm.threads import GENERATION, PROMPT, ThreadChooser

log = logging.getLogger(__name__)


class Backend(Protocol):
    """What the worker needs from a loaded model. Only ever used on the worker thread."""

    @property
    def n_ctx(self) -> int: ...

    def tokenize(self, text: str) -> list[int]: ...

    def detokenize(self, tokens: Sequence[int]) -> str: ...

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
        """Yield (text piece, finish_reason or None), one piece per generated token."""
        ...

    def reset(self) -> None: ...

    def close(self) -> None: ...


BackendFactory = Callable[[Path, int, int], Backend]


class LlamaBackend:
    """llama-cpp-python behind the :class:`Backend` interface."""

    def __init__(self, path: Path, n_ctx: int, threads: int) -> None:
        # Imported here, on the worker thread, so that importing curator stays fast.
        import llama_cpp

        self._grammars: dict[str, Any] = {}
        self._constrained: Any = None
        # Set by the runtime for the job in flight: called with (tokens evaluated, total).
        self.prompt_progress: Callable[[int, int], None] | None = None
        self._llama_cpp = llama_cpp
        # Measured while it works (see curator.llm.threads): all cores on an idle machine,
        # one fewer when the machine is busy enough that the extra thread slows the rest.
        self.threads = ThreadChooser.for_machine(threads)
        self.llm = llama_cpp.Llama(
            model_path=str(path),
            n_ctx=n_ctx,
            n_threads=self.threads.most,
            n_threads_batch=self.threads.most,
            verbose=False,
        )
        self._applied = (self.threads.most, self.threads.most)

    def use_threads(self, phase: str, count: int) -> None:
        """Set llama.cpp's thread count for single-token steps (generation) or prompt batches."""
        wanted = (count, self._applied[1]) if phase == GENERATION else (self._applied[0], count)
        if wanted != self._applied:
            self._llama_cpp.llama_set_n_threads(self.llm._ctx.ctx, wanted[0], wanted[1])
            self._applied = wanted

    @property
    def n_ctx(self) -> int:
        return int(self.llm.n_ctx())

    def tokenize(self, text: str) -> list[int]:
        return list(self.llm.tokenize(text.encode("utf-8"), add_bos=False, special=False))

    def detokenize(self, tokens: Sequence[int]) -> str:
        return bytes(self.llm.detokenize(list(tokens))).decode("utf-8", errors="ignore")

    def _constrained_generator(self) -> Any:
        if self._constrained is None:
            from curator.llm.sampling import ConstrainedGenerator

            try:
                self._constrained = ConstrainedGenerator(self.llm, self.threads, self.use_threads)
            except (ValueError, AttributeError, KeyError) as exc:
                log.info("constrained sampler unavailable (%s); using llama-cpp-python's grammar path", exc)
                self._constrained = False
        return self._constrained or None

    def _grammar(self, schema: dict[str, Any]) -> Any:
        import json

        key = json.dumps(schema, sort_keys=True)
        grammar = self._grammars.get(key)
        if grammar is None:
            # The grammar follows the schema's property order, so build it from the schema
            # as written (the sorted dump is only the cache key).
            grammar = self._llama_cpp.LlamaGrammar.from_json_schema(json.dumps(schema), verbose=False)
            self._grammars[key] = grammar
        return grammar

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
        kwargs: dict[str, Any] = {
            "messages": messages,
            "temperature": temperature,
            "max_tokens": max_tokens,
            "repeat_penalty": repeat_penalty,
            "stream": True,
        }
        if seed is not None:
            kwargs["seed"] = seed
        if schema is not None:
            grammar = self._grammar(schema)
            constrained = self._constrained_generator()
            if constrained is not None:
                constrained.on_prompt_progress = self.prompt_progress
                # Top-k first, grammar only on the chosen token: same grammar, ~30x faster.
                yield from constrained.stream(
                    messages, grammar._grammar, grammar._root, temperature=temperature,
                    max_tokens=max_tokens, seed=seed, repeat_penalty=repeat_penalty,
                )
                return
            kwargs["grammar"] = grammar
        # llama-cpp-python's own loop cannot be timed piece by piece: the counts found fastest.
        self.use_threads(GENERATION, self.threads.best(GENERATION))
        self.use_threads(PROMPT, self.threads.best(PROMPT))
        # stream=True: an iterator of chunk dicts (the stubs also allow a whole response).
        stream = cast(Iterator[dict[str, Any]], self.llm.create_chat_completion(**kwargs))
        with contextlib.closing(stream):  # type: ignore[type-var]
            for chunk in stream:
                choice = chunk["choices"][0]
                piece = choice.get("delta", {}).get("content") or ""
                finish = choice.get("finish_reason")
                yield str(piece), (str(finish) if finish else None)

    def reset(self) -> None:
        self.llm.reset()

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.llm.close()


def display_name(path: Path, header_name: str = "") -> str:
    """The name a person knows the model by: the catalogue's, else the GGUF header's.

    Header names are often training-run labels ("Smollm2 135M 8k Lc100K Mix1 Ep2").
    """
    from curator.llm.catalogue import CatalogueError, load_catalogue

    try:
        entry = load_catalogue().match(path.name)
    except CatalogueError:
        entry = None
    return entry.name if entry is not None else (header_name or path.stem)


def llama_backend(path: Path, n_ctx: int, threads: int) -> Backend:
    """The default :data:`BackendFactory`."""
    return LlamaBackend(path, n_ctx, threads)


__all__ = ["Backend", "BackendFactory", "LlamaBackend", "display_name",
           "llama_backend"]
