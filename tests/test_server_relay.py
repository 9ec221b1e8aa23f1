"""The frames of a link between two server processes (hearts.server.relay): a stream read in
pieces of any size gives back every frame, in order, and bad bytes are refused with a clear
error. (The links themselves — a relayed client served by its table's owner, a link with a
wrong key closed, a killed or frozen owner's relayed clients served where they connected — are
tested with real server processes in test_server_ownership.)"""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("msgspec")
pytest.importorskip("starlette")

from hypothesis import given
from hypothesis import strategies as st

from hearts.server.relay import LENGTH, MAX_FRAME, Frames, frame

PARTS = st.lists(
    st.one_of(st.text(max_size=40), st.integers(min_value=-(2**40), max_value=2**40), st.booleans()),
    min_size=1, max_size=5,
)


@given(st.lists(PARTS, max_size=12), st.lists(st.integers(min_value=1, max_value=64), min_size=1, max_size=30))
def test_a_stream_of_frames_read_in_pieces_of_any_size_gives_every_frame_in_order(
    frames: list[list[Any]], cuts: list[int]
) -> None:
    stream = b"".join(frame(*parts) for parts in frames)
    reader = Frames()
    got: list[list[Any]] = []
    at, i = 0, 0
    while at < len(stream):
        size = cuts[i % len(cuts)]
        got += reader.feed(stream[at:at + size])
        at, i = at + size, i + 1
    assert got == frames
    assert reader.feed(b"") == []


def test_bytes_that_are_no_frames_are_refused() -> None:
    with pytest.raises(ValueError, match="not a frame"):
        Frames().feed(LENGTH.pack(3) + b"{x}")
    with pytest.raises(ValueError, match="a frame of"):
        Frames().feed(LENGTH.pack(MAX_FRAME + 1))
