"""What a new user tripped on at the web table (issue 27), on the server (a real server process
and real WebSocket clients): "You" is nobody's stored name; a seat given a new invite link by
the table's creator shuts its old token out; the chat rate counts a seat's connections together;
only the tables created count against the creation rate, and its words are grammatical.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
pytest.importorskip("websockets")

from test_server_support import Client, ServerProcess, create_table, db_rows, http


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    s = ServerProcess(tmp_path_factory.mktemp("newcomer") / "tables.db").start()
    yield s
    s.stop()


def table_count(db: Path) -> int:
    return int(db_rows(db, "SELECT count(*) FROM tables")[0][0])


# ---------------------------------------------------------------- item 2: nobody is "You"


def test_you_is_nobodys_name(server: ServerProcess) -> None:
    """A table, a join, a name chosen at the table or a profile named "You" (any case) is
    refused with a clear error, and nothing changes; a seat without a name is asked for one."""
    before = table_count(server.db)
    for name in ("You", " you ", "YOU"):
        status, data = http("POST", server.url + "/api/tables",
                            {"seats": [{"kind": "human", "name": name}] + [{"kind": "bot", "level": "easy"}] * 3})
        assert status == 400 and "the page calls every player so" in data["error"], data
        status, data = http("POST", server.url + "/api/players", {"name": name})
        assert status == 400 and "choose a name the others can call you" in data["error"], data
    assert table_count(server.db) == before
    table = create_table(server, [{"kind": "human"}, {"kind": "open"}] + [{"kind": "bot", "level": "easy"}] * 2)
    assert table["seats"][0]["name"] is None
    status, data = http("POST", f"{server.url}/api/tables/{table['id']}/join", {"name": "you"})
    assert status == 400 and "cannot be 'you'" in data["error"], data

    async def main() -> None:
        person = await Client(server, table["id"], table["seats"][0]["token"]).connect()
        assert person.state is not None and person.state["table"]["unnamed"] == [0]
        error = await person.request({"type": "name", "name": "You"}, lambda m: m["type"] == "error")
        assert error["code"] == "bad_name" and "cannot be 'You'" in error["message"]
        named = await person.request({"type": "name", "name": "Kim"},
                                     lambda m: m["type"] == "state" and m["table"]["names"][0] == "Kim")
        assert named["table"]["unnamed"] == []
        await person.close()

    asyncio.run(main())
    names = db_rows(server.db, "SELECT name FROM seats WHERE table_id = ? ORDER BY seat", (table["id"],))
    assert [n for (n,) in names][:2] == ["Kim", ""]
    assert not db_rows(server.db, "SELECT 1 FROM seats WHERE lower(name) = 'you'")

