"""Helpers for the storage tests: a fresh PostgreSQL database per test module, a store opened
for one test, and the workers the multi-process tests start. (No tests here.)

The PostgreSQL server is ``$PYHEARTS_TEST_PG`` (``scripts/postgres.sh`` prints one, starting a
private cluster if none answers); unset, ``postgresql://postgres@127.0.0.1:5432/postgres`` is
tried, and the PostgreSQL tests are skipped if nothing answers there.
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import os
import secrets
import threading
from collections.abc import Awaitable, Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlsplit

import pytest

from hearts.actions import Play
from hearts.server.storage import SeqConflict, Storage, open_storage

PG_ENV = "PYHEARTS_TEST_PG"
DEFAULT_PG = "postgresql://postgres@127.0.0.1:5432/postgres"

T = TypeVar("T")


@contextlib.contextmanager
def fresh_database(label: str) -> Iterator[str]:
    """The URL of a new, empty database on the test server, dropped afterwards.

    Skips the test if ``$PYHEARTS_TEST_PG`` is unset and nothing answers at the default URL;
    fails it if the variable names a server that does not answer.
    """
    psycopg = pytest.importorskip("psycopg", reason="the postgres extra (psycopg) is not installed")
    server = os.environ.get(PG_ENV) or DEFAULT_PG
    try:
        admin = psycopg.connect(server, autocommit=True, connect_timeout=3)
    except psycopg.OperationalError as e:
        reason = str(e).strip().splitlines()[0]
        if os.environ.get(PG_ENV):
            pytest.fail(f"{PG_ENV}={server}: the server does not answer ({reason})")
        pytest.skip(f"no PostgreSQL server at {server} ({reason}); set {PG_ENV} (scripts/postgres.sh prints one)")
    name = f"pyhearts_{label}_{os.getpid()}_{secrets.token_hex(3)}"
    create = psycopg.sql.SQL("CREATE DATABASE {}").format(psycopg.sql.Identifier(name))
    with admin:
        admin.execute(create)
    try:
        yield urlsplit(server)._replace(path=f"/{name}").geturl()
    finally:
        drop = psycopg.sql.SQL("DROP DATABASE {} WITH (FORCE)").format(psycopg.sql.Identifier(name))
        with psycopg.connect(server, autocommit=True) as admin:
            admin.execute(drop)


def empty_database(url: str) -> str:
    """Drop everything in a test database (its ``public`` schema): a database never migrated."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("DROP SCHEMA public CASCADE")
        conn.execute("CREATE SCHEMA public")
    return url


def never_opened_database(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A database never opened: a new SQLite file, or the module's PostgreSQL database
    (its ``pg_database`` fixture) emptied. A test module makes it its fixture over both:
    ``db_url = pytest.fixture(params=["sqlite", "postgresql"])(never_opened_database)``."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'tables.db'}"
    return empty_database(request.getfixturevalue("pg_database"))


def sql(url: str, query: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Run one statement on a PostgreSQL database (autocommit) and return its rows, if any."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        cur = conn.execute(query, params)
        return cur.fetchall() if cur.description else []


def with_store(url: str, body: Callable[[Storage], Awaitable[T]]) -> T:
    """Open the store at ``url``, run ``body`` on it in an event loop (in a thread of its own:
    :func:`in_thread`), and close it."""

    async def main() -> T:
        store = await open_storage(url)
        try:
            return await body(store)
        finally:
            await store.close()

    return in_thread(lambda: asyncio.run(main()))


def in_thread(work: Callable[[], T]) -> T:
    """``work()`` run in a thread of its own (its result, or its error raised here): an event
    loop may run there while one runs in this thread already (Playwright's sync API, a test's
    loop)."""
    done: list[T] = []
    failed: list[BaseException] = []

    def run() -> None:
        try:
            done.append(work())
        except BaseException as e:
            failed.append(e)

    thread = threading.Thread(target=run, name="store")
    thread.start()
    thread.join()
    if failed:
        raise failed[0]
    return done[0]


def spawn(target: Callable[..., None], *args: Any) -> multiprocessing.process.BaseProcess:
    """Start ``target(*args)`` in a new (spawned) process."""
    process = multiprocessing.get_context("spawn").Process(target=target, args=args, daemon=True)
    process.start()
    return process


# --- workers of the multi-process tests (run in spawned processes) --------------------------


def append_racer(url: str, name: int, seqs: int, barrier: Any, results: Any) -> None:
    """Append ``Play(name, …)`` as every row 1..``seqs`` of table ``race``, meeting the other
    racers at ``barrier`` before each; put ``(name, seq, won)`` for each into ``results``."""

    async def race(store: Storage) -> None:
        for seq in range(1, seqs + 1):
            barrier.wait()
            try:
                await store.log.append("race", seq, Play(name, "2C"))
                results.put((name, seq, True))
            except SeqConflict:
                results.put((name, seq, False))

    with_store(url, race)


def bot_worker(url: str, name: str, results: Any, barrier: Any) -> None:
    """Claim and complete bot jobs until none is left; put ``(name, job id, table id)`` for each
    claim into ``results``, then ``(name, None, None)``. Each worker holds its first claim until
    every worker has one (``barrier``): all take part however fast each starts."""

    async def work(store: Any) -> None:
        first = True
        while (job := await store.jobs.claim_bot_job(name)) is not None:
            results.put((name, job.id, job.table_id))
            if first:
                await asyncio.to_thread(barrier.wait, 60)
                first = False
            await asyncio.sleep(0.002)  # think
            assert await store.jobs.complete_bot_job(job)

    with_store(url, work)
    results.put((name, None, None))


def one_append(url: str, table_id: str, seq: int, bots: Sequence[int] = ()) -> None:
    """Append one action to a table (queueing the jobs of ``bots``), from another process."""

    async def append(store: Storage) -> None:
        await store.log.append(table_id, seq, Play(0, "2C"), bots=bots)

    with_store(url, append)
