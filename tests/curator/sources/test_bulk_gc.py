"""A batch of units collects garbage less often, and gives the thresholds back after."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from curator.sources.bulk_gc import BULK_THRESHOLD, fewer_collections


@pytest.fixture(autouse=True)
def _thresholds() -> Iterator[None]:
    before = gc.get_threshold()
    gc.set_threshold(700, 10, 10)
    yield
    gc.set_threshold(*before)


def test_thresholds_are_raised_inside_and_restored_after_nested_blocks() -> None:
    with fewer_collections():
        assert gc.get_threshold() == (BULK_THRESHOLD, 10, 10)
        with fewer_collections():
            assert gc.get_threshold() == (BULK_THRESHOLD, 10, 10)
        assert gc.get_threshold() == (BULK_THRESHOLD, 10, 10)  # the outer block still runs
    assert gc.get_threshold() == (700, 10, 10)


def test_restored_after_an_error() -> None:
    with pytest.raises(RuntimeError), fewer_collections():
        raise RuntimeError("adapter bug")
    assert gc.get_threshold() == (700, 10, 10)


@pytest.mark.parametrize("chosen", [(0, 10, 10), (200_000, 5, 5)])
def test_a_setting_made_on_purpose_is_left_alone(chosen: tuple[int, int, int]) -> None:
    gc.set_threshold(*chosen)
    with fewer_collections():
        assert gc.get_threshold() == chosen
    assert gc.get_threshold() == chosen


def test_a_change_made_meanwhile_is_kept() -> None:
    with fewer_collections():
        gc.set_threshold(1000, 20, 20)
    assert gc.get_threshold() == (1000, 20, 20)
