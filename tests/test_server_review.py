"""Game reviews on the web table (issue 16, the web part): ``POST /api/tables/{id}/review``
queues the review of a seat of a finished game, computed in the background with its progress,
and ``GET /api/tables/{id}/review?seat=S`` shows it. Real server processes, real WebSocket
clients, real PostgreSQL and real ``hearts bot-worker`` processes.

In the store (both backends) a review job is claimed by one runner at a time, under a lease
whose holder, once taken over, can write nothing. On SQLite the server computes the review itself (in a process of its own); the stored review is
exactly ``review_game`` of the game's published record with the table's seed and the server's
budget; a review asked for before the end is refused (R7: the deals are secret until then), as
are bad seats and unknown tables, with nothing stored; the per-address rate and the service's
cap on reviews hold; a review survives a restart, and one cut short by SIGKILL is finished by the
restarted server. On PostgreSQL a bot worker computes it, any server process shows its progress,
a worker killed with SIGKILL mid-review has its review finished by another, and the bots of a
live table keep their pace while a review runs.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

from test_server_store_support import empty_database, with_store
from test_server_support import (
    BACKENDS,
    Client,
    Database,
    ServerProcess,
    WorkerProcess,
    create_table,
    db_rows,
    db_seed,
    emptied_pg_url,
    http,
    logged_soon,
    module_pg_database,
    my_action,
    play_until,
    request,
)

from hearts import record
from hearts.actions import to_dict
from hearts.review import review_game
from hearts.server.reviews import ReviewRunner
from hearts.server.storage import ReviewClaim, Storage

pg_database = pytest.fixture(scope="module")(module_pg_database)

BOTS = [{"kind": "bot", "level": "easy"}] * 4
QUICK = {"target": 1, "pass_count": 0}
"""One round without passing: a short game."""
BUDGET = 24
"""The servers' review budget in these tests (sampled deals per decision: fast, imprecise)."""


def review_url(server: ServerProcess, table_id: str, seat: int | None = None) -> str:
    return f"{server.url}/api/tables/{table_id}/review" + ("" if seat is None else f"?seat={seat}")


def finished_table(server: ServerProcess, seats: list[dict[str, Any]] = BOTS, timeout: float = 60, **options: Any
                   ) -> str:
    """A table of bots (by default) played to its end; its id."""
    table = create_table(server, seats, options={**QUICK, **options})
    wait_finished(server, table["id"], timeout)
    return str(table["id"])


def wait_finished(server: ServerProcess, table_id: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not http("GET", f"{server.url}/api/tables/{table_id}")[1]["finished"]:
        assert time.monotonic() < deadline, "the game did not end"
        time.sleep(0.1)


def wait_review(
    server: ServerProcess, table_id: str, seat: int, timeout: float = 90, seen: list[tuple[str, int, int]] | None = None
) -> dict[str, Any]:
    """Poll the review of a seat until it is done (or failed); each answer's (status, done,
    total) goes to ``seen``."""
    deadline = time.monotonic() + timeout
    while True:
        status, data = http("GET", review_url(server, table_id, seat))
        assert status == 200, data
        if seen is not None:
            seen.append((data["status"], data["done"], data["total"]))
        if data["status"] in ("done", "failed"):
            return data  # type: ignore[no-any-return]
        assert time.monotonic() < deadline, f"the review did not end: {data}"
        time.sleep(0.1)


def direct_review(server: ServerProcess, table_id: str, seat: int, budget: int = BUDGET) -> dict[str, Any]:
    """``review_game`` run here on the game's published record, with the table's seed and the
    server's budget, as JSON would carry it."""
    status, data = http("GET", f"{server.url}/api/tables/{table_id}/record")
    assert status == 200, data
    loaded = record.loads(json.dumps(data))
    assert isinstance(loaded, record.GameRecord)
    assert loaded.game.seed == db_seed(server.db, table_id)
    review = review_game(loaded.game, seats=[seat], budget=budget, seed=loaded.game.seed)
    return json.loads(json.dumps(review.to_dict()))  # type: ignore[no-any-return]


def stored_jobs(db: Database) -> list[tuple[Any, ...]]:
    return db_rows(db, "SELECT table_id, seat, status FROM review_jobs ORDER BY table_id, seat")


# --- the review jobs in the store, on both backends -----------------------------------------


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_review_job_is_claimed_once_under_a_lease_and_a_lost_claim_writes_nothing(
    backend: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """A review is queued once per table and seat (asking again returns it as it is); one
    runner claims it; its progress renews its lease; once the lease has run out another runner
    takes it over (PostgreSQL; on SQLite, served by one process, a job held under another
    runner's name is taken at once: that runner is gone), and the first claim can then write
    nothing — neither progress nor a result. A failed job is queued again when asked; a job let
    go is claimed again."""
    url = str(tmp_path / "tables.db") if backend == "sqlite" else empty_database(request.getfixturevalue("pg_database"))

    async def body(store: Storage) -> None:
        await store.log.create_table("t1", {"rules": {}}, 7, [("open", None, None, None)] * 4)
        queued = await store.reviews.queue_review("t1", 1, 24, 7)
        assert (queued.status, queued.budget, queued.seed, queued.done, queued.total) == ("queued", 24, 7, 0, 0)
        assert await store.reviews.queue_review("t1", 1, 99, 8) == queued
        assert await store.reviews.pending_reviews() == 1 and await store.reviews.review("t1", 2) is None
        first = await store.reviews.claim_review("A", 0.6)
        assert first is not None and (first.table_id, first.seat, first.budget, first.seed, first.attempt) == (
            "t1", 1, 24, 7, 1)
        assert first.tries == 1
        assert await store.reviews.claim_review("A", 0.6) is None
        if backend == "postgresql":
            assert await store.reviews.claim_review("B", 30) is None  # the lease holds
        assert await store.reviews.review_progress(first, 3, 10, 0.6)
        row = await store.reviews.review("t1", 1)
        assert row is not None and (row.status, row.done, row.total) == ("running", 3, 10)
        await asyncio.sleep(0.8)  # the lease runs out
        second = await store.reviews.claim_review("B", 30)
        assert second is not None and second.attempt == 2
        row = await store.reviews.review("t1", 1)
        assert row is not None and (row.status, row.done, row.total) == ("running", 0, 0)
        assert not await store.reviews.review_progress(first, 4, 10, 30)
        assert not await store.reviews.finish_review(first, '{"stale": true}')
        assert not await store.reviews.fail_review(first, "stale")
        assert await store.reviews.review_progress(second, 10, 10, 30)
        assert await store.reviews.finish_review(second, '{"seats": [1]}')
        row = await store.reviews.review("t1", 1)
        assert row is not None and (row.status, row.done, row.total, row.error) == ("done", 10, 10, None)
        assert json.loads(row.review or "") == {"seats": [1]}
        assert await store.reviews.pending_reviews() == 0 and await store.reviews.claim_review("C", 30) is None

        await store.reviews.queue_review("t1", 2, 24, 7)
        claim = await store.reviews.claim_review("C", 30)
        assert claim is not None and claim.seat == 2
        assert await store.reviews.fail_review(claim, "the game's log does not replay")
        row = await store.reviews.review("t1", 2)
        assert row is not None and (row.status, row.error) == ("failed", "the game's log does not replay")
        assert await store.reviews.pending_reviews() == 0
        assert (await store.reviews.queue_review("t1", 2, 24, 7)).status == "queued"
        claim = await store.reviews.claim_review("C", 30)
        assert claim is not None and (claim.attempt, claim.tries) == (2, 1)  # tried afresh: the token goes on
        await store.reviews.release_review(claim)
        row = await store.reviews.review("t1", 2)
        assert row is not None and row.status == "queued"
        again = await store.reviews.claim_review("D", 30)
        assert again is not None and again.seat == 2 and (again.attempt, again.tries) == (3, 2)

    with_store(url, body)


# --- SQLite: the server computes the reviews ------------------------------------------------


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    s = ServerProcess(tmp_path_factory.mktemp("reviews") / "tables.db", review_budget=BUDGET).start()
    yield s
    s.stop()


def test_a_person_s_game_is_reviewed_in_the_background_as_review_game_reviews_its_record(
    server: ServerProcess,
) -> None:
    """A person (a real WebSocket client) plays a short game against three bots; then the
    review of their seat is asked for: it is queued (202), computed with its progress shown
    (``done`` of ``total`` decisions, never going back), and once done it is exactly
    ``review_game`` of the published record with the table's seed and the server's budget —
    each decision's ``index`` the action's index in the game's history, each ``chosen`` that
    action. Asking again gives the same job (200), not a second one."""
    table = create_table(server, [{"kind": "human", "name": "Ann"}, *BOTS[1:]], options={"target": 1})
    tid = table["id"]

    async def play() -> None:
        ann = await Client(server, tid, table["seats"][0]["token"]).connect()
        await play_until([ann], random.Random(3), lambda: False)
        assert ann.state is not None and ann.state["view"]["game_over"]
        assert my_action(ann.state, random.Random(0)) is None
        await ann.close()

    asyncio.run(play())
    wait_finished(server, tid)
    status, data = http("POST", review_url(server, tid), {"seat": 0})
    assert status == 202 and data["status"] == "queued" and data["budget"] == BUDGET, data
    seen: list[tuple[str, int, int]] = []
    done = wait_review(server, tid, 0, seen=seen)
    assert done["status"] == "done" and done["done"] == done["total"] > 0
    progress = [d for _, d, _ in seen]
    assert progress == sorted(progress), f"the progress went back: {seen}"
    assert {s for s, _, _ in seen} <= {"queued", "running", "done"}
    assert done["review"] == direct_review(server, tid, 0)
    (summary,) = done["review"]["summaries"]
    assert summary["seat"] == 0 and summary["decisions"] == done["total"]
    history = record.loads(json.dumps(http("GET", f"{server.url}/api/tables/{tid}/record")[1]))
    assert isinstance(history, record.GameRecord)
    for rr in done["review"]["rounds"]:
        for d in rr["decisions"]:
            assert d["seat"] == 0
            assert d["chosen"] == to_dict(history.game.history[d["index"]])
    again = http("POST", review_url(server, tid), {"seat": 0})
    assert again == (200, done)
    assert [row[1:] for row in stored_jobs(server.db) if row[0] == tid] == [(0, "done")]


def test_progress_grows_while_a_longer_game_is_reviewed(tmp_path: Path) -> None:
    """A game of several rounds, reviewed by a runner that stores its progress after every
    decision (``interval=0``) on the server's own SQLite store: each progress written is read
    back from the store as written, the writes show decisions valued before the end
    (0 < done < total), never going back, and the stored review is ``review_game``'s. Whatever
    the machine's speed: the writes are recorded and checked afterwards, not polled."""
    s = ServerProcess(tmp_path / "tables.db", review_budget=BUDGET).start()
    try:
        tid = finished_table(s, target=60)
        expected = direct_review(s, tid, 2)
    finally:
        s.stop()
    written: list[tuple[str, int, int]] = []

    class RecordingRunner(ReviewRunner):
        async def _report(self, claim: ReviewClaim, done: int, total: int) -> None:
            await super()._report(claim, done, total)
            row = await self.store.reviews.review(tid, 2)
            assert row is not None and (row.done, row.total) == (done, total), (row, done, total)
            written.append((row.status, done, total))

    async def review(store: Storage) -> dict[str, Any]:
        await store.reviews.queue_review(tid, 2, BUDGET, db_seed(s.db, tid))
        runner = RecordingRunner(store, interval=0)
        claim = await store.reviews.claim_review(runner.name, runner.lease)
        assert claim is not None
        await runner.do(claim)
        row = await store.reviews.review(tid, 2)
        assert row is not None and row.status == "done" and row.review is not None, row
        return json.loads(row.review)  # type: ignore[no-any-return]

    assert with_store(f"sqlite:///{s.db}", review) == expected
    written = [w for w in written if w[2]]  # (before the review's process counts the decisions: 0 of 0)
    total = written[0][2]
    assert total > 20 and all(status == "running" and t == total for status, _, t in written), written
    assert [d for _, d, _ in written] == sorted(d for _, d, _ in written)
    assert any(0 < d < total for _, d, _ in written) and written[-1][1] == total, written


def test_a_review_is_refused_before_the_end_and_for_bad_seats_and_unknown_tables(server: ServerProcess) -> None:
    """R7: before the game is over its review is refused (409, both ways: the deals are secret
    until then); a seat the table does not have, a malformed body or query, and an unknown
    table are refused (400, 404) with a message; nothing is stored, and the table plays on."""
    table = create_table(server, [{"kind": "human", "name": n} for n in ("Ann", "Bob", "Cy", "Di")])
    tid = table["id"]
    before = stored_jobs(server.db)
    for method, url, body in (("POST", review_url(server, tid), {"seat": 0}),
                              ("GET", review_url(server, tid, 0), None)):
        status, data = http(method, url, body)
        assert status == 409 and "over" in data["error"] and "R7" in data["error"], data
    finished = finished_table(server)
    bad_bodies: list[Any] = [{"seat": 4}, {"seat": -1}, {"seat": "0"}, {"seat": True}, {"seat": 0, "budget": 9},
                             {}, [0], "seat"]
    for body in bad_bodies:
        status, data = http("POST", review_url(server, finished), body)
        assert status == 400 and data["error"], (body, data)
    for query in ("?seat=4", "?seat=x", "?seat=-1", "", "?seat=0000000001"):
        status, data = http("GET", review_url(server, finished) + query)
        assert status == 400 and data["error"], (query, data)
    status, data = http("POST", review_url(server, finished), b"seat=0", {"Content-Type": "text/plain"})
    assert status == 415, data
    for method, body in (("POST", {"seat": 0}), ("GET", None)):
        status, data = http(method, review_url(server, "nosuch00", 0 if method == "GET" else None), body)
        assert status == 404 and data["error"] == "there is no such table", data
    assert http("GET", review_url(server, finished, 1)) == (200, {"seat": 1, "status": "none", "done": 0, "total": 0})
    assert stored_jobs(server.db) == before
    status, facts = http("GET", f"{server.url}/api/tables/{tid}")
    assert status == 200 and not facts["finished"] and facts["seq"] == 0


def test_the_rate_per_address_and_the_cap_on_reviews(tmp_path: Path) -> None:
    """Reviews cost CPU: while ``max_reviews`` are waiting or running another is refused
    (503, Retry-After) and not stored; an address may ask for ``reviews_rate`` new reviews
    (beyond: 429, Retry-After, not stored); asking again for one already asked for is free."""
    s = ServerProcess(tmp_path / "tables.db", review_budget=BUDGET,
                      limits={"reviews_rate": "2/minute", "max_reviews": 1}).start()
    try:
        tid = finished_table(s)
        assert http("POST", review_url(s, tid), {"seat": 0})[0] == 202
        status, headers, data = request("POST", review_url(s, tid), {"seat": 1})
        assert status == 503 and int(headers["Retry-After"]) > 0 and "busy" in data["error"], data
        assert wait_review(s, tid, 0)["status"] == "done"
        assert http("GET", review_url(s, tid, 1))[1]["status"] == "none"
        assert http("POST", review_url(s, tid), {"seat": 0})[0] == 200  # asked for already: not counted
        assert http("POST", review_url(s, tid), {"seat": 1})[0] == 202
        assert wait_review(s, tid, 1)["status"] == "done"
        status, headers, data = request("POST", review_url(s, tid), {"seat": 2})
        assert status == 429 and int(headers["Retry-After"]) > 0 and "too many game reviews" in data["error"], data
        assert [row[1:] for row in stored_jobs(s.db)] == [(0, "done"), (1, "done")]
    finally:
        s.stop()


def test_a_review_survives_a_restart_and_one_cut_short_is_finished_after_it(tmp_path: Path) -> None:
    """SIGKILL of the server mid-review: once it is started again on the same file it takes the
    review up and finishes it (the same review as ever); a finished review is still there after
    a restart."""
    db = tmp_path / "tables.db"
    s = ServerProcess(db, review_budget=300).start()
    try:
        tid = finished_table(s, target=30)
        assert http("POST", review_url(s, tid), {"seat": 1})[0] == 202
        deadline = time.monotonic() + 30
        while http("GET", review_url(s, tid, 1))[1]["total"] == 0:
            assert time.monotonic() < deadline
            time.sleep(0.05)
        s.kill9()
        assert db_rows(db, "SELECT status FROM review_jobs") == [("running",)]
        s = ServerProcess(db, review_budget=300, port=s.port).start()
        done = wait_review(s, tid, 1)
        assert done["status"] == "done" and done["budget"] == 300
        s.stop()
        s = ServerProcess(db, review_budget=BUDGET, port=s.port).start()
        assert http("GET", review_url(s, tid, 1)) == (200, done)
        assert done["review"] == direct_review(s, tid, 1, budget=300)
    finally:
        s.stop()


# --- PostgreSQL: the bot workers compute the reviews ----------------------------------------


url = pytest.fixture(emptied_pg_url)
REVIEWED_SLOWLY = 20000
"""A review budget for a seat of a one-round game that keeps a worker busy for seconds."""


def test_a_bot_worker_reviews_any_process_shows_the_progress_and_a_killed_worker_s_review_is_taken_over(
    url: str, tmp_path: Path
) -> None:
    """Two server processes and a bot worker on PostgreSQL: the worker plays the bots' game and,
    asked through one server, reviews a seat, its progress visible through the other; killed
    with SIGKILL mid-review, its review is finished by a second worker once the lease has run
    out — the same review as ``review_game`` of the record."""
    # A budget at which the review takes several of the worker's half-second progress writes
    # (about 4 s compiled on a quiet machine; 1,200 took 0.24 s, over before the first write).
    servers = [ServerProcess(url, logs=tmp_path, review_budget=REVIEWED_SLOWLY).start() for _ in range(2)]
    first = WorkerProcess(url, tmp_path / "first.log", lease=2.0).start()
    second = WorkerProcess(url, tmp_path / "second.log", lease=2.0)
    try:
        tid = finished_table(servers[0], target=30)
        status, data = http("POST", review_url(servers[0], tid), {"seat": 3})
        assert status == 202, data
        deadline = time.monotonic() + 60
        while True:  # the other process shows the first worker's progress
            data = http("GET", review_url(servers[1], tid, 3))[1]
            if data["status"] == "running" and data["done"] > 0:
                break
            assert data["status"] in ("queued", "running") and time.monotonic() < deadline, data
            time.sleep(0.05)
        first.kill9()
        cut_at = data["done"]
        assert any(line["event"] == "review started" for line in first.logs())
        second.start()
        seen: list[tuple[str, int, int]] = []
        done = wait_review(servers[1], tid, 3, seen=seen)
        assert done["status"] == "done", done
        assert 0 < cut_at < done["total"]
        started = [line for line in second.logs() if line["event"] == "review started"]
        assert started and started[0]["table"] == tid and started[0]["attempt"] == 2
        logged_soon(second, "review done")
        assert done["review"] == direct_review(servers[0], tid, 3, budget=REVIEWED_SLOWLY)
        assert http("GET", review_url(servers[0], tid, 3)) == (200, done)
    finally:
        for proc in (first, second, *servers):
            proc.stop()


def test_the_bots_of_a_live_table_keep_their_pace_while_a_review_runs(url: str, tmp_path: Path) -> None:
    """While a bot worker computes a long review, a person plays against its bots: every bot
    move is served within a second of the turn coming to it (the review runs at a lower
    priority, in a process of its own)."""
    server = ServerProcess(url, logs=tmp_path, review_budget=3 * REVIEWED_SLOWLY).start()
    worker = WorkerProcess(url, tmp_path / "worker.log", lease=5.0).start()
    try:
        tid = finished_table(server, target=30)
        assert http("POST", review_url(server, tid), {"seat": 0})[0] == 202
        deadline = time.monotonic() + 30
        while http("GET", review_url(server, tid, 0))[1]["status"] != "running":
            assert time.monotonic() < deadline
            time.sleep(0.05)
        live = create_table(server, [{"kind": "human", "name": "Ann"}, *[{"kind": "bot", "level": "medium"}] * 3],
                            options={"target": 1, "pass_count": 0})

        async def play() -> list[float]:
            ann = await Client(server, live["id"], live["seats"][0]["token"]).connect()
            waits: list[float] = []
            rng = random.Random(5)
            while ann.state is not None and not ann.state["view"]["game_over"]:
                action = my_action(ann.state, rng)
                if action is None:  # the bots are to play: the next state comes from one of them
                    start = time.monotonic()
                    seq = ann.state["seq"]
                    await ann.wait(lambda m, seq=seq: m["type"] == "state" and m["seq"] > seq, timeout=10)
                    waits.append(time.monotonic() - start)
                    continue
                n = len(ann.messages)
                await ann.send(action)
                await ann.wait(lambda m: m["type"] == "state", start=n)
            await ann.close()
            return waits

        waits = asyncio.run(play())
        assert len(waits) >= 3
        assert max(waits) < 1.0, f"a bot move took {max(waits):.2f} s while a review ran"
        data = http("GET", review_url(server, tid, 0))[1]
        assert data["status"] == "running", "the review was over before the bots were timed"
    finally:
        worker.stop()
        server.stop()
