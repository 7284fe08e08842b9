"""The first-run assistant driven with keys: detection as you type, Enter adds, no-source asks."""

from __future__ import annotations

from pathlib import Path

from fakes.gguf_writer import build_gguf
from PySide6.QtCore import Qt

from curator.datafiles import demo_dir
from ui.dialogs.first_run import NO_SOURCE, FirstRunWizard
from ui.dialogs.model_picker import ModelPicker
from ui.infra.interaction import ScriptedInteraction
from ui.infra.workers import OpRunner

WAIT = 15_000


def write_model(path: Path, chat_template: bool = False) -> Path:
    """A tiny valid GGUF header with a Q4_K_M file type and a 32k context."""
    meta: dict[str, object] = {"general.architecture": "llama", "general.name": path.stem,
                               "llama.context_length": 32768, "general.file_type": 15,
                               "tokenizer.ggml.tokens": ["<s>", "</s>", "hi"]}
    if chat_template:
        meta["tokenizer.chat_template"] = "{% for m in messages %}{{ m.content }}{% endfor %}"
    path.write_bytes(build_gguf(meta, [("token_embd.weight", (256, 4), 12)]))
    return path


def _wizard(qtbot, runner: OpRunner, tmp_path: Path, interaction: ScriptedInteraction,
            clients: list[tuple[str, str]] | None = None) -> FirstRunWizard:
    # The model search runs first, then the search for chat clients: wait for the second.
    with qtbot.waitSignal(runner.op_finished, timeout=WAIT, check_params_cb=lambda label: label == "find chat clients"):
        wizard = FirstRunWizard(runner, tmp_path / "vault", interaction=interaction,
                                clients=lambda: list(clients or []))
        qtbot.addWidget(wizard)
    wizard.show()
    wizard.next()  # to the sources page
    return wizard


def test_adapter_is_detected_as_you_type_and_enter_adds_the_folder(qtbot, runner: OpRunner, tmp_path: Path,
                                                                  interaction: ScriptedInteraction) -> None:
    wizard = _wizard(qtbot, runner, tmp_path, interaction)
    editor = wizard.sources_editor
    editor.path_edit.setFocus()
    qtbot.keyClicks(editor.path_edit, str(demo_dir()))
    qtbot.waitUntil(lambda: editor.adapter_label.text() == "adapter: jsonl", timeout=WAIT)
    assert editor.add_button.isEnabled()
    assert editor.path_edit.hasFocus()  # detected without leaving the field
    page = wizard.currentId()
    with qtbot.waitSignal(editor.sources_changed, timeout=WAIT):
        qtbot.keyClick(editor.path_edit, Qt.Key.Key_Return)
    assert [s.adapter for s in wizard.sources] == ["jsonl"]
    assert wizard.currentId() == page  # Enter added the folder; it did not turn the page


def test_enter_before_detection_answers_still_adds(qtbot, runner: OpRunner, tmp_path: Path,
                                                  interaction: ScriptedInteraction) -> None:
    wizard = _wizard(qtbot, runner, tmp_path, interaction)
    editor = wizard.sources_editor
    editor.path_edit.setText(str(demo_dir()))
    with qtbot.waitSignal(editor.sources_changed, timeout=WAIT):
        qtbot.keyClick(editor.path_edit, Qt.Key.Key_Enter)
    assert len(wizard.sources) == 1


def test_typing_a_partial_path_shows_no_error(qtbot, runner: OpRunner, tmp_path: Path,
                                             interaction: ScriptedInteraction) -> None:
    wizard = _wizard(qtbot, runner, tmp_path, interaction)
    editor = wizard.sources_editor
    qtbot.keyClicks(editor.path_edit, str(tmp_path / "no-such-fol"))
    with qtbot.waitSignal(runner.op_failed, timeout=WAIT):
        editor._type_timer.timeout.emit()
    assert editor.message.text() == "" and editor.adapter_label.text() == "adapter: —"


def test_finishing_without_a_source_asks_and_offers_detected_clients(qtbot, runner: OpRunner, tmp_path: Path) -> None:
    interaction = ScriptedInteraction(False)  # "Finish anyway?" -> no
    wizard = _wizard(qtbot, runner, tmp_path, interaction)
    wizard.accept()
    assert interaction.asked[-1][0] == "confirm" and "No conversation folder" in interaction.asked[-1][1]
    assert wizard.isVisible()  # stayed open

    clients = [("Demo chat client", str(demo_dir()))]
    interaction = ScriptedInteraction(f"Watch Demo chat client: {demo_dir()}")
    wizard = _wizard(qtbot, runner, tmp_path, interaction, clients)
    with qtbot.waitSignal(wizard.finished_with, timeout=WAIT) as blocker:
        wizard.accept()
    assert interaction.asked[-1][0] == "choose"
    assert [s.adapter for s in blocker.args[0].sources] == ["jsonl"]

    interaction = ScriptedInteraction(NO_SOURCE)
    wizard = _wizard(qtbot, runner, tmp_path, interaction, clients)
    with qtbot.waitSignal(wizard.finished_with, timeout=WAIT) as blocker:
        wizard.accept()
    assert blocker.args[0].sources == []


def test_model_picker_ranks_by_fitness_and_preselects_the_best_fit(qtbot, runner: OpRunner, tmp_path: Path) -> None:
    from curator.llm.discovery import describe_model

    qwen = write_model(tmp_path / "qwen2.5-1.5b-instruct-q4_k_m.gguf", chat_template=True)
    base = write_model(tmp_path / "llama-3b-base-q4_k_m.gguf")

    def discover() -> list[object]:
        return [describe_model(base, "folder"), describe_model(qwen, "LM Studio")]

    with qtbot.waitSignal(runner.op_finished, timeout=WAIT):
        picker = ModelPicker(runner, None, discover, "", preselect_best=True)
        qtbot.addWidget(picker)
    qtbot.waitUntil(lambda: picker.selected() is not None, timeout=WAIT)
    selected = picker.selected()
    assert selected is not None and selected.path == str(qwen) and selected.best
    assert picker.model.index(0, 6).data() == "★ best fit here"
    assert "Best fit here: " in picker.status.text() and "s per batch" in picker.status.text()
    assert picker.model.record(picker.model.rowCount() - 1).path in (str(base), "")
