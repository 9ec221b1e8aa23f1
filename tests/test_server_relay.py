"""The messages of a link between two server processes (hearts.server.relay): each a JSON
array, given back as sent, and what is not one refused with a clear error. (The links
themselves — an ordinary WebSocket with the key in its handshake: a relayed client served by
its table's owner, a link with a wrong key refused, a killed, frozen or stopping owner's
relayed clients sent to their tables' owners — are tested with real server processes in
test_server_ownership and test_server_link_port.)"""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("msgspec")
pytest.importorskip("starlette")

from hypothesis import given
from hypothesis import strategies as st

from hearts.server.links import decode_parts, encode_parts

PARTS = st.lists(
    st.one_of(st.text(max_size=40), st.integers(min_value=-(2**40), max_value=2**40), st.booleans()),
    min_size=1, max_size=5,
)


@given(PARTS)
def test_a_links_message_is_given_back_as_sent(parts: list[Any]) -> None:
    assert decode_parts(encode_parts(*parts)) == parts


@pytest.mark.parametrize("data", [b"{x}", b'{"type": "text"}', b"[]", b"", "not json"])
def test_what_is_no_links_message_is_refused(data: bytes | str) -> None:
    with pytest.raises(ValueError, match="link's message"):
        decode_parts(data)
