"""Game reviews on the web table: asked for over HTTP, computed in the background with their
progress, stored, and read by the replay viewer.

A review (:func:`hearts.review.review_game`) values each decision of one seat of a finished
game from that seat's view; it costs seconds of CPU per round, so it is a **job** in the store
(:class:`~hearts.server.storage.ReviewRow`, one per table and seat), never work done while a
request waits:

* ``POST /api/tables/{id}/review {"seat": S}`` (:func:`ask`) queues it, once the game is over
  (R7: the deals are secret until then; before, 409), at the server's budget
  (:data:`~hearts.review.DEFAULT_BUDGET` sampled deals per decision unless ``hearts serve
  --review-budget`` says otherwise) and with the table's seed as the review's seed, so that the
  review is reproducible: it is ``review_game(game, seats=[S], budget=…, seed=<table seed>)``
  of the game's record. Asking again returns the job as it is (a failed one is queued again).
  A new job counts against the address's ``reviews_rate`` (429 with ``Retry-After``) and the
  service's ``max_reviews`` jobs waiting or running (503 with ``Retry-After``).
* ``GET /api/tables/{id}/review?seat=S`` (:func:`status`) answers
  ``{"seat", "status": "none"|"queued"|"running"|"done"|"failed", "done", "total", "budget"?,
  "review"?, "error"?}``: ``done`` of ``total`` decisions valued so far, and once done the
  review (``GameReview.to_dict()``), whose decisions' ``index`` is the action's index in the
  game's history.

A :class:`ReviewRunner` claims jobs from the store (oldest first, under a lease) and computes
each in a **process of its own** at a low OS priority (:data:`REVIEW_NICE`), so a review never
slows the event loop nor a table's bots: on SQLite the server process runs one runner; on
PostgreSQL every bot worker does (:mod:`hearts.server.botworker`), beside its bot moves. The
runner stores the progress and renews its lease about twice a second; a runner that dies (its
worker killed) stops renewing, and once the lease has run out the job reads ``queued`` again
(PostgreSQL) and the next free runner claims it and computes it again from the start (the same
seed gives the same review: the progress stored is a count, not the decisions valued). A runner
whose database goes away keeps computing: the progress it cannot store is skipped (its outage
said once in the log: :class:`~hearts.server.outage.Outage`), and the result (or why it failed)
is stored once the database answers — unless another runner took the job meanwhile. A SQLite server that
restarts takes up the reviews it had not finished at once (one process serves the file). A job
claimed :data:`MAX_ATTEMPTS` times without finishing, or whose computation fails, is
``failed``: asking again queues it again.

>>> parse_seat({"seat": 2}, 4), parse_seat("1", 4)
(2, 1)
>>> parse_seat({"seat": 4}, 4)
Traceback (most recent call last):
...
hearts.server.limits.Refused: there is no seat 4 at this table (seats 0 to 3)
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import multiprocessing
import os
import socket
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any, Final

from hearts.errors import RecordError
from hearts.game import Game
from hearts.record import replay
from hearts.review import DEFAULT_BUDGET, review_game
from hearts.rules import Rules
from hearts.server.botpool import start_worker
from hearts.server.limits import AddressGuard, Limits, RateLimited, Refused
from hearts.server.logs import fields
from hearts.server.outage import DEFAULT_BACKOFF, Backoff, Outage, is_outage
from hearts.server.storage import ReviewClaim, ReviewRow, Storage, TableRow, load_game

log = logging.getLogger("hearts.server")

__all__ = [
    "DEFAULT_BUDGET",
    "DEFAULT_LEASE",
    "MAX_ATTEMPTS",
    "REVIEW_NICE",
    "ClaimLost",
    "ReviewFailed",
    "ReviewInput",
    "ReviewRunner",
    "ask",
    "compute",
    "finished_table",
    "parse_seat",
    "status",
]

REVIEW_NICE: Final = 10
"""How much lower than the server's the OS priority of a review's process is (``nice``, as the
all-bot tables' bots): the bots of tables where people play come first."""
DEFAULT_LEASE: Final = 30.0
"""Seconds a runner's claim holds a review job without being renewed (it is renewed about every
second while the review is computed)."""
MAX_ATTEMPTS: Final = 3
"""Claims of one job without a result before it is given up (a review that kills its runner);
asking again queues it for as many more."""


# --- requests -------------------------------------------------------------------------------


def parse_seat(data: Any, players: int) -> int:
    """The seat a review request names: a POST body ``{"seat": S}`` (a JSON object with that
    field only) or a query's ``seat`` text (digits); :class:`~hearts.server.limits.Refused`
    (400) for anything else, or a seat the table does not have."""
    if isinstance(data, dict):
        unknown = sorted(set(data) - {"seat"})
        if unknown:
            raise Refused(f"the request: unknown field {unknown[0]!r:.40}; allowed: seat")
        seat = data.get("seat")
    elif isinstance(data, str) and data.isascii() and data.isdigit() and len(data) <= 3:
        seat = int(data)
    elif data is None or isinstance(data, str):
        raise Refused("say which seat's decisions to review: seat=0, 1, …")
    else:
        raise Refused("the request must be a JSON object such as {\"seat\": 0}")
    if isinstance(seat, bool) or not isinstance(seat, int):
        raise Refused(f"'seat' must be a seat number, not {seat!r:.40}")
    if not 0 <= seat < players:
        raise Refused(f"there is no seat {seat} at this table (seats 0 to {players - 1})")
    return seat


async def finished_table(store: Storage, table_id: str) -> TableRow:
    """A stored table whose game is over; :class:`~hearts.server.limits.Refused` 404 for no such
    table, 409 for a game not over (R7: its deals are secret until then, so is its review)."""
    row = await store.log.table(table_id) if len(table_id) <= 64 else None
    if row is None:
        raise Refused("there is no such table", 404, "no_table")
    if not row.finished:
        raise Refused("a game is reviewed once it is over (R7: the deals are secret until then)", 409, "not_over")
    return row


def players_of(row: TableRow) -> int:
    """How many seats a stored table has (its rules')."""
    return Rules.from_dict(row.config["rules"]).players


def answer(seat: int, job: ReviewRow | None) -> dict[str, Any]:
    """What the review endpoints answer for a seat's job (see the module)."""
    if job is None:
        return {"seat": seat, "status": "none", "done": 0, "total": 0}
    out: dict[str, Any] = {
        "seat": seat, "status": job.status, "done": job.done, "total": job.total, "budget": job.budget,
    }
    if job.status == "done" and job.review is not None:
        out["review"] = json.loads(job.review)
    if job.status == "failed":
        out["error"] = job.error or "the review could not be made"
    return out


async def status(store: Storage, table_id: str, query_seat: str | None) -> dict[str, Any]:
    """``GET /api/tables/{id}/review?seat=S``: the seat's review job as :func:`answer` says."""
    row = await finished_table(store, table_id)
    seat = parse_seat(query_seat, players_of(row))
    return answer(seat, await store.reviews.review(table_id, seat))


async def ask(
    store: Storage,
    table_id: str,
    body: Any,
    *,
    budget: int,
    guard: AddressGuard,
    address: str,
    limits: Limits,
) -> tuple[dict[str, Any], bool]:
    """``POST /api/tables/{id}/review``: queue the review of the body's seat (or find the one
    asked for already); returns :func:`answer`'s dict and whether a job was queued now. A new
    job counts against ``address``'s ``reviews_rate`` and the service's ``max_reviews``
    (:class:`~hearts.server.limits.RateLimited`); a refused request stores nothing."""
    row = await finished_table(store, table_id)
    seat = parse_seat(body, players_of(row))
    job = await store.reviews.review(table_id, seat)
    if job is not None and job.status != "failed":
        return answer(seat, job), False
    if await store.reviews.pending_reviews() >= limits.max_reviews:
        raise RateLimited(
            f"the server is busy with {limits.max_reviews} game reviews; try again in a minute", 60, status=503
        )
    guard.hit("reviews", address)
    job = await store.reviews.queue_review(table_id, seat, budget, row.seed)
    log.info("review asked for", extra=fields(table=table_id, seat=seat, budget=budget))
    return answer(seat, job), True


# --- computing a review ---------------------------------------------------------------------


@dataclass(frozen=True)
class ReviewInput:
    """Everything a review's process needs: the game (its rules, seed, a migrated table's
    deals and the logged actions in the codec) and what to review (``seat``, ``budget``,
    ``seed``)."""

    rules: dict[str, Any]
    table_seed: int
    deals: list[list[str]] | None
    actions: list[Any]
    seat: int
    budget: int
    seed: int

    def game(self) -> Game:
        """The game replayed from its log (:class:`~hearts.errors.RecordError` if it does not)."""
        return replay(Game(Rules.from_dict(self.rules), self.table_seed, deals=self.deals), self.actions)

    def review_json(self, on_progress: Callable[[int, int], None] | None = None) -> str:
        """The review of ``seat`` as compact JSON text (``GameReview.to_dict()``)."""
        review = review_game(self.game(), seats=[self.seat], budget=self.budget, seed=self.seed,
                             on_progress=on_progress)
        return json.dumps(review.to_dict(), separators=(",", ":"))


class ReviewFailed(RuntimeError):
    """A review could not be computed (its game does not replay, its process died); the
    message says why, for the job's ``error``."""


class ClaimLost(RuntimeError):
    """The runner's claim no longer holds the job (its lease ran out and another runner took
    it): stop computing it."""


def _review_process(conn: Connection, parent: int, nice: int, job: ReviewInput) -> None:
    """A review's process: compute it, sending ``("progress", done, total)`` after each
    decision and then ``("done", json)`` or ``("failed", message)``."""
    start_worker(parent, nice)
    try:
        text = job.review_json(lambda done, total: conn.send(("progress", done, total)))
    except Exception as e:  # reported to the runner, which stores the message
        conn.send(("failed", f"{type(e).__name__}: {e}"))
    else:
        conn.send(("done", text))
    finally:
        conn.close()


def _receive(conn: Connection, timeout: float) -> tuple[Any, ...] | None:
    """The next message of a review's process within ``timeout`` seconds (``None``: none yet;
    ``("lost",)``: the process is gone)."""
    try:
        if conn.poll(timeout):
            message: tuple[Any, ...] = conn.recv()
            return message
    except (EOFError, OSError):
        return ("lost",)
    return None


async def compute(
    job: ReviewInput,
    report: Callable[[int, int], Awaitable[None]],
    *,
    interval: float = 1.0,
    nice: int = REVIEW_NICE,
) -> str:
    """Compute a review in a process of its own (at ``nice``) and return its JSON text.
    ``report(done, total)`` is awaited when the number of decisions is known, then about every
    ``interval`` seconds while it runs (with no change too: a runner renews its lease there;
    an exception it raises stops the review). The process is killed if this is cancelled.
    Raises :class:`ReviewFailed` when the review cannot be made."""
    context = multiprocessing.get_context("spawn")
    receiver, sender = context.Pipe(duplex=False)
    process = context.Process(
        target=_review_process, args=(sender, os.getpid(), nice, job), name="hearts-review"
    )
    process.start()
    sender.close()
    try:
        done = total = 0
        reported = -1.0
        while True:
            message = await asyncio.to_thread(_receive, receiver, min(interval, 0.25) or 0.25)
            if message is not None and message[0] == "progress":
                first = total == 0 and message[2] > 0
                done, total = message[1], message[2]
                if not first and time.monotonic() - reported < interval:
                    continue
            elif message is not None and message[0] == "done":
                return str(message[1])
            elif message is not None and message[0] == "failed":
                raise ReviewFailed(str(message[1]))
            elif message is not None:
                raise ReviewFailed(f"the review's process stopped unexpectedly (exit code {process.exitcode})")
            elif time.monotonic() - reported < interval:
                continue
            reported = time.monotonic()
            await report(done, total)
    finally:
        receiver.close()
        if process.is_alive():
            process.kill()
        process.join(5)


# --- the runner -----------------------------------------------------------------------------


class ReviewRunner:
    """Claims the review jobs of ``store`` and computes them one at a time (:func:`compute`),
    storing the progress and the result; ``name``: who holds a claim (default: host and
    process id); ``lease``: seconds a claim lasts unrenewed; ``idle``: seconds between looks
    for a job when none is announced (:meth:`wake` announces one in this process); ``interval``:
    seconds between progress writes, each of which renews the lease (default: a third of the
    lease, at most half a second; 0: after every decision); ``outage``: where the database's
    failures are reported (default: one of its own), retried with ``backoff``.

    Run it in the event loop with :meth:`run` until cancelled (a cancelled runner lets go of
    its job: any runner may take it at once)::

        runner = ReviewRunner(store)
        task = asyncio.get_running_loop().create_task(runner.run())
    """

    def __init__(
        self,
        store: Storage,
        *,
        name: str | None = None,
        lease: float = DEFAULT_LEASE,
        idle: float = 1.0,
        interval: float | None = None,
        nice: int = REVIEW_NICE,
        outage: Outage | None = None,
        backoff: Backoff = DEFAULT_BACKOFF,
    ) -> None:
        if not lease > 0 or not idle > 0:
            raise ValueError(f"a review runner needs a lease and an idle time > 0 s, not {lease} and {idle}")
        if interval is not None and not 0 <= interval < lease:
            raise ValueError(f"a review runner writes its progress within its lease ({lease} s), not every {interval} s")
        self.store = store
        self.name = name or f"{socket.gethostname()}:{os.getpid()}:reviews"
        self.lease = lease
        self.idle = idle
        self.nice = nice
        self.outage = outage or Outage(log, worker=self.name)
        self.backoff = backoff
        self.interval = min(0.5, lease / 3) if interval is None else interval
        """Seconds between progress writes (each renews the lease)."""
        self._wake = asyncio.Event()

    def wake(self) -> None:
        """A job was queued: look now."""
        self._wake.set()

    async def run(self) -> None:
        """Claim and compute jobs until cancelled (through database outages: see the class)."""
        delays = self.backoff.delays()
        while True:
            self._wake.clear()
            started = time.monotonic()
            try:
                claim = await self.store.reviews.claim_review(self.name, self.lease)
            except Exception as e:
                if not is_outage(e):
                    log.exception("cannot claim a review job", extra=fields(worker=self.name))
                    claim = None
                else:  # the database is away: look again after a pause
                    self.outage.failed(e, started)
                    await asyncio.sleep(next(delays))
                    continue
            else:
                self.outage.answered()
                delays = self.backoff.delays()
            if claim is None:
                with contextlib.suppress(asyncio.TimeoutError):
                    await asyncio.wait_for(self._wake.wait(), self.idle)
                continue
            await self.do(claim)

    async def do(self, claim: ReviewClaim) -> None:
        """Compute a claimed job and store its result (or why it failed); a cancelled one is let
        go, one whose input cannot be read while the database is away is left to be claimed
        again when its lease runs out."""
        where = {"table": claim.table_id, "seat": claim.seat, "worker": self.name, "attempt": claim.attempt}
        began = time.monotonic()
        try:
            if claim.tries > MAX_ATTEMPTS:
                raise ReviewFailed(f"the review was started {claim.tries - 1} times and never finished")
            job = await self._input(claim)
            log.info("review started", extra=fields(**where, budget=claim.budget))
            started = time.monotonic()
            text = await compute(job, lambda done, total: self._report(claim, done, total),
                                 interval=self.interval, nice=self.nice)
        except asyncio.CancelledError:
            with contextlib.suppress(Exception):
                await asyncio.shield(self.store.reviews.release_review(claim))
            raise
        except ClaimLost:
            log.warning("a review's lease ran out before it was done", extra=fields(**where))
        except ReviewFailed as e:
            error = str(e)
            log.warning("a review failed", extra=fields(**where, error=error))
            await self._store(claim, lambda: self.store.reviews.fail_review(claim, error), where)
        except Exception as e:
            if is_outage(e):
                self.outage.failed(e, began)
                return
            log.exception("a review failed", extra=fields(**where))
            await self._store(claim, lambda: self.store.reviews.fail_review(claim, "the review could not be made"), where)
        else:
            if await self._store(claim, lambda: self.store.reviews.finish_review(claim, text), where):
                log.info("review done", extra=fields(**where, seconds=round(time.monotonic() - started, 2)))

    async def _report(self, claim: ReviewClaim, done: int, total: int) -> None:
        """Store a review's progress and renew its lease (:func:`compute`'s ``report``);
        :class:`ClaimLost` once another runner holds the job. While the database is away the
        progress is not stored, and the review goes on."""
        started = time.monotonic()
        try:
            held = await self.store.reviews.review_progress(claim, done, total, self.lease)
        except Exception as e:
            if not is_outage(e):
                raise
            self.outage.failed(e, started)
            return
        self.outage.answered()
        if not held:
            raise ClaimLost(f"table {claim.table_id}: another runner took over the review")

    async def _store(self, claim: ReviewClaim, write: Callable[[], Awaitable[bool]], where: dict[str, Any]) -> bool:
        """Write a claim's outcome, retrying while the database is away; whether the claim
        still held the job (else a warning is logged and nothing was written)."""
        try:
            held = await self.outage.retry(write, self.backoff)
        except Exception:
            log.exception("a review's outcome could not be stored", extra=fields(**where))
            return False
        if not held:
            log.warning("a review's lease ran out before it was done", extra=fields(**where))
        return held

    async def _input(self, claim: ReviewClaim) -> ReviewInput:
        """What the job's process needs, read from the store (:class:`ReviewFailed` for a table
        that is gone, not over, or whose log does not replay)."""
        try:
            stored = await load_game(self.store, claim.table_id)
        except RecordError as e:
            raise ReviewFailed(f"the game's log does not replay: {e}") from None
        if stored is None or not stored.game.is_over:
            raise ReviewFailed("the game is not over, or no longer stored")
        row = stored.row
        return ReviewInput(
            row.config["rules"], row.seed, row.deals, await self.store.log.actions(claim.table_id),
            claim.seat, claim.budget, claim.seed,
        )
