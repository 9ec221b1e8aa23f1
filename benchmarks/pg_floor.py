"""The floor of the cluster load target: what PostgreSQL alone costs to log the actions of N
tables, with no web server and no client.

    .venv/bin/python benchmarks/pg_floor.py [--rate R] [--seconds S] [--tables N] [--db URL]

Makes a fresh database on ``--db`` (default ``$PYHEARTS_TEST_PG``; dropped at the end) and N
tables through :class:`~hearts.server.storage.postgres.PostgresStorage`. Then it appends R
actions a second for S seconds, spread over the tables, through the storage's ``append`` (the
servers' batched statement: ``INSERT`` into the log; no action is announced), up to 64 at once,
and waits until every one is committed.

It prints the CPU milliseconds per action of PostgreSQL (every ``postgres`` process of this
machine) and of this process (the appends: psycopg's client side, which a server process pays
too), and the rate achieved. The last line is exactly
``pg_floor rate=R achieved=A postgres_ms=X client_ms=Y``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import time

from cluster_load import DEFAULT_PG, cpu_used, drop_database, fresh_database, postgres_seconds, postgres_since

from hearts.actions import Play
from hearts.server.storage.postgres import PostgresStorage


async def run(url: str, rate: float, seconds: float, tables: int) -> tuple[float, float, float, int]:
    store = await PostgresStorage.open(url, channel="floor")
    try:
        seats = [("human", f"P{i}", None, None) for i in range(4)]
        for t in range(tables):
            await store.log.create_table(f"t{t}", {"rules": {}}, t, seats)
        total = int(rate * seconds)
        seqs = [0] * tables
        room = asyncio.Semaphore(64)
        tasks: set[asyncio.Task[None]] = set()

        async def append(t: int) -> None:
            async with room:
                seqs[t] += 1
                await store.log.append(f"t{t}", seqs[t], Play(seqs[t] % 4, "2C"))

        cpu, pg, start = cpu_used(), postgres_seconds(), time.perf_counter()
        for i in range(total):
            due = start + i / rate
            wait = due - time.perf_counter()
            if wait > 0.001:
                await asyncio.sleep(wait)
            task = asyncio.get_running_loop().create_task(append(i % tables))
            tasks.add(task)
            task.add_done_callback(tasks.discard)
        while tasks:
            await asyncio.gather(*list(tasks))
        elapsed = time.perf_counter() - start
        used, pg_used = cpu_used() - cpu, postgres_since(pg)
        return total / elapsed, pg_used / total * 1000, used / total * 1000, total
    finally:
        await store.close()


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rate", type=float, default=2000.0, help="actions a second (default 2000)")
    p.add_argument("--seconds", type=float, default=10.0)
    p.add_argument("--tables", type=int, default=1000)
    p.add_argument("--db", default=os.environ.get("PYHEARTS_TEST_PG") or DEFAULT_PG)
    args = p.parse_args()
    url = fresh_database(args.db)
    try:
        achieved, pg_ms, client_ms, total = asyncio.run(run(url, args.rate, args.seconds, args.tables))
    finally:
        drop_database(args.db, url)
    print(f"{total} actions over {args.tables} tables: {achieved:.0f}/s; CPU per action: "
          f"postgres {pg_ms:.3f} ms, this process (the appends) {client_ms:.3f} ms")
    print(f"pg_floor rate={args.rate:.0f} achieved={achieved:.0f} postgres_ms={pg_ms:.3f} client_ms={client_ms:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
