"""Grammar-constrained sampling that checks the grammar only where it has to.

llama-cpp-python applies a grammar to every token of the vocabulary before top-k, on every
step. With SmolLM2's 49k-token vocabulary that made JSON output about 30 times slower than
free text (measured here: 1.6 vs 54 tokens/s). llama.cpp's own command-line sampler avoids
it the way this module does: sample from the top-k candidates first, ask the grammar about
that one token, and only when the grammar rejects every top-k candidate fall back to
filtering the whole vocabulary. The output obeys the same grammar either way.

Only used on the model worker thread, with the one ``llama_cpp.Llama`` it owns.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable, Iterator
from functools import partial
from typing import Any

import numpy as np

from curator.llm.threads import GENERATION, PROMPT, ApplyThreads, PhaseTimer, ThreadChooser

TOP_K = 40
REPEAT_WINDOW = 64
# Prompt evaluation runs in chunks of this many tokens so that progress can be reported
# between them (one eval call for a 1,500-token prompt is ~20 silent seconds on 2 cores).
PROMPT_CHUNK = 128

# Generation speed is timed over this many tokens at a time (see PhaseTimer).
GENERATION_WINDOW = 16

PromptProgress = Callable[[int, int], None]

_TOKEN_DATA = np.dtype([("id", "<i4"), ("logit", "<f4"), ("p", "<f4")])


class ConstrainedGenerator:
    """Streams a chat completion under a GBNF grammar for one loaded ``Llama``."""

    def __init__(self, llm: Any, threads: ThreadChooser | None = None,
                 apply_threads: ApplyThreads | None = None) -> None:
        from llama_cpp import llama_cpp
        from llama_cpp.llama_chat_format import Jinja2ChatFormatter

        self.llm = llm
        self.threads = threads
        self.apply_threads = apply_threads
        self.c = llama_cpp
        self.vocab = llama_cpp.llama_model_get_vocab(llm._model.model)
        self.n_vocab = int(llm.n_vocab())
        template = llm.metadata.get("tokenizer.chat_template")
        if not template:
            raise ValueError("the model has no chat template")
        self.formatter = Jinja2ChatFormatter(
            template=template,
            eos_token=self._piece(llm.token_eos()),
            bos_token=self._piece(llm.token_bos()),
        )
        self._one = (llama_cpp.llama_token_data * 1)()
        self._one_array = llama_cpp.llama_token_data_array(data=self._one, size=1, selected=-1, sorted=False)
        self._full = np.zeros(self.n_vocab, dtype=_TOKEN_DATA)
        self._full["id"] = np.arange(self.n_vocab, dtype=np.int32)
        self.on_prompt_progress: PromptProgress | None = None
        self.states = PrefixStates()

    def _piece(self, token: int) -> str:
        if token < 0:
            return ""
        return bytes(self.llm.detokenize([token], special=True)).decode("utf-8", errors="ignore")

    def prompt_tokens(self, messages: list[dict[str, str]]) -> list[int]:
        """The chat-formatted prompt as tokens (special tokens parsed)."""
        prompt = self.formatter(messages=messages).prompt  # type: ignore[arg-type]
        return list(self.llm.tokenize(prompt.encode("utf-8"), add_bos=False, special=True))

    def _evaluate_prompt(self, tokens: list[int]) -> None:
        # Reuse the evaluated prefix of the previous call (the fixed part of the prompt), or of
        # a kept earlier prompt when that shares more (see PrefixStates).
        llm = self.llm
        kept = _shared(llm.input_ids, tokens, min(llm.n_tokens, len(tokens) - 1))
        kept = max(kept, self.states.restore(llm, self.c, tokens, kept))
        llm.n_tokens = kept
        total = len(tokens)
        report = self.on_prompt_progress
        if report is not None:
            report(kept, total)
        for start in range(kept, total, PROMPT_CHUNK):
            end = min(start + PROMPT_CHUNK, total)
            chunk = tokens[start:end]
            # Each chunk is its own measurement; a short tail is not measured.
            timer = PhaseTimer(self.threads, self.apply_threads, PROMPT, PROMPT_CHUNK // 2)
            timer.run(partial(llm.eval, chunk), len(chunk))
            if report is not None:
                report(end, total)
        self.states.keep(llm, self.c, tokens)

    def _allowed(self, grammar: Any, token: int) -> bool:
        self._one[0].id = token  # type: ignore[assignment]  # ctypes converts the int
        self._one[0].logit = 0.0
        self._one[0].p = 0.0
        self._one_array.size = 1
        self._one_array.selected = -1
        self.c.llama_sampler_apply(grammar, ctypes.byref(self._one_array))
        return bool(np.isfinite(self._one[0].logit))

    def _fallback(self, grammar: Any, logits: np.ndarray) -> int:
        full = self._full
        full["id"] = np.arange(self.n_vocab, dtype=np.int32)
        full["logit"] = logits
        full["p"] = 0.0
        array = self.c.llama_token_data_array(
            data=full.ctypes.data_as(ctypes.POINTER(self.c.llama_token_data)),
            size=self.n_vocab, selected=-1, sorted=False,
        )
        self.c.llama_sampler_apply(grammar, ctypes.byref(array))
        # The sampler may reorder or shrink the array it was given; read what it left.
        size = int(array.size)
        view = full[:size]
        finite = np.isfinite(view["logit"])
        if not finite.any():
            return -1
        best = int(np.argmax(np.where(finite, view["logit"], -np.inf)))
        return int(view["id"][best])

    def stream(
        self,
        messages: list[dict[str, str]],
        grammar_text: str,
        grammar_root: str,
        *,
        temperature: float,
        max_tokens: int,
        seed: int | None = None,
        repeat_penalty: float = 1.0,
    ) -> Iterator[tuple[str, str | None]]:
        """Yield ``(text, finish_reason)`` pieces; finish_reason is set on the last one."""
        c = self.c
        grammar = c.llama_sampler_init_grammar(self.vocab, grammar_text.encode(), grammar_root.encode())
        if not grammar:
            raise ValueError("the output grammar could not be built")
        rng = np.random.default_rng(seed)
        try:
            tokens = self.prompt_tokens(messages)
            if len(tokens) + 1 > self.llm.n_ctx():
                raise ValueError("the prompt does not fit the context window")
            self._evaluate_prompt(tokens)
            generated: list[int] = []
            pending = b""
            timer = PhaseTimer(self.threads, self.apply_threads, GENERATION, GENERATION_WINDOW)
            finish = "length"
            room = min(max_tokens, self.llm.n_ctx() - len(tokens))
            for _ in range(max(room, 0)):
                logits = np.ctypeslib.as_array(
                    c.llama_get_logits_ith(self.llm._ctx.ctx, -1), shape=(self.n_vocab,)
                ).astype(np.float32, copy=True)
                if repeat_penalty != 1.0 and generated:
                    recent = np.unique(np.asarray(generated[-REPEAT_WINDOW:], dtype=np.int64))
                    values = logits[recent]
                    logits[recent] = np.where(values > 0, values / repeat_penalty, values * repeat_penalty)
                token = self._sample(grammar, logits, temperature, rng)
                if token < 0:
                    finish = "stop"
                    break
                c.llama_sampler_accept(grammar, token)
                if c.llama_vocab_is_eog(self.vocab, token):
                    finish = "stop"
                    break
                generated.append(token)
                pending += bytes(self.llm.detokenize([token], prev_tokens=generated[:-1]))
                text, pending = _split_utf8(pending)
                if text:
                    yield text, None
                timer.run(partial(self.llm.eval, [token]), 1)
            tail = pending.decode("utf-8", errors="ignore")
            yield tail, finish
        finally:
            c.llama_sampler_free(grammar)

    def _sample(self, grammar: Any, logits: np.ndarray, temperature: float, rng: np.random.Generator) -> int:
        k = min(TOP_K, self.n_vocab - 1)
        candidates = np.argpartition(-logits, k)[:k]
        candidates = candidates[np.argsort(-logits[candidates])]
        if temperature <= 0:
            weights = np.zeros(len(candidates))
            weights[0] = 1.0
        else:
            scaled = logits[candidates] / temperature
            weights = np.exp(scaled - scaled.max())
        alive = np.ones(len(candidates), dtype=bool)
        while alive.any():
            live = weights * alive
            total = live.sum()
            index = int(np.argmax(alive)) if total <= 0 else int(rng.choice(len(candidates), p=live / total))
            token = int(candidates[index])
            if self._allowed(grammar, token):
                return token
            alive[index] = False
        return self._fallback(grammar, logits)


def _shared(cached: Any, tokens: list[int], limit: int) -> int:
    """How many leading tokens ``cached`` and ``tokens`` share (at most ``limit``)."""
    kept = 0
    while kept < limit and int(cached[kept]) == tokens[kept]:
        kept += 1
    return kept


class PrefixStates:
    """The model's state after the last few prompts, to start the next one from the best.

    Reflection alternates between a few prompts (choosing, wording, checking), each opening
    with the same long system text. llama.cpp keeps one evaluated prefix: every switch of
    prompt evaluated its system text again, about 5 s of a 1.5B's 2-core time for 250 tokens,
    several times a batch. Restoring a kept state costs a copy of its cells (a few MB).
    """

    def __init__(self, most: int = 4, min_tokens: int = 64) -> None:
        self.most = most
        self.min_tokens = min_tokens  # shorter prefixes are cheaper to evaluate than to copy
        self._kept: list[tuple[tuple[int, ...], Any]] = []
        self.restored = 0  # how often a kept state saved evaluating a prompt's opening

    def restore(self, llm: Any, c: Any, tokens: list[int], have: int) -> int:
        """Load the kept state sharing the longest prefix with ``tokens`` when it beats ``have``
        tokens already in place; the number of tokens now in place that ``tokens`` shares."""
        limit = len(tokens) - 1
        best, best_len = None, max(have, self.min_tokens - 1)
        for key, blob in self._kept:
            shared = _shared(key, tokens, min(len(key), limit))
            if shared > best_len:
                best, best_len = (key, blob), shared
        if best is None:
            return have
        key, blob = best
        ctx = llm._ctx.ctx
        llm._ctx.kv_cache_seq_rm(0, 0, -1)
        if c.llama_state_seq_set_data(ctx, blob, len(blob), 0) == 0:
            llm._ctx.kv_cache_seq_rm(0, 0, -1)
            return 0
        llm.input_ids[:len(key)] = key  # the whole token array (``_input_ids`` is its used part)
        llm.n_tokens = len(key)
        self._kept.remove(best)
        self._kept.append(best)
        self.restored += 1
        return best_len

    def keep(self, llm: Any, c: Any, tokens: list[int]) -> None:
        """Keep the state of the prompt just evaluated (the oldest kept one goes)."""
        if len(tokens) < self.min_tokens or self.most < 1:
            return
        key = tuple(tokens)
        self._kept = [(k, b) for k, b in self._kept if k != key]
        ctx = llm._ctx.ctx
        size = c.llama_state_seq_get_size(ctx, 0)
        blob = (ctypes.c_uint8 * size)()
        written = c.llama_state_seq_get_data(ctx, blob, size, 0)
        if written <= 0:
            return
        self._kept.append((key, blob))
        del self._kept[:-self.most]


def _split_utf8(data: bytes) -> tuple[str, bytes]:
    """Decode the complete UTF-8 prefix of ``data``; keep an unfinished character for later."""
    for cut in range(len(data), max(len(data) - 4, -1), -1):
        try:
            return data[:cut].decode("utf-8"), data[cut:]
        except UnicodeDecodeError:
            continue
    return data.decode("utf-8", errors="ignore"), b""
