"""Bot workers: the processes that make the bots' moves of a service on PostgreSQL.

A bot's turn is a job in the database (:class:`~hearts.server.storage.postgres.PgJobs`), queued in
the transaction of the action that opened it (:mod:`hearts.server.turns`). A worker —
``hearts bot-worker --db postgresql://…`` on any machine, or the one ``hearts serve`` starts
beside its server processes — holds up to ``jobs`` jobs at once. For each job it claims
(oldest first, at most one per table, under a lease) it waits out the rest of the table's bot
delay, rebuilds the table's game from its log (:func:`~hearts.server.storage.load_game`), lets
the seat's bot — or the table's stand-in, for an away person — choose from the seat's
:class:`~hearts.view.View` (thinking in worker processes: :class:`~hearts.server.botpool.BotPool`),
and sends the action to the table's owner, the server process that holds its lease, over a
link to that process (:class:`~hearts.server.links.OwnerLinks`: the processes' alive notices
say where they take links), and the owner logs it with the bot turns it opens. The bot is made for
the job with a seed drawn from the table's seed, the seat and the position (:func:`job_seed`):
a job done again decides the same. If the position moved on meanwhile (the owner answers
stale) it looks again: the bot acts for as long as the seat is to act, and a job whose seat is
no longer to act is done. Every server process hears the action like any other (``NOTIFY``).

A claim is a short lease (:data:`DEFAULT_LEASE`) that the worker renews every ``heartbeat``
(:data:`DEFAULT_HEARTBEAT`) for all the jobs it holds at once, while it waits out the delays
and its bots think — however long they think. A worker killed mid-think stops renewing: once
the lease has run out (a few seconds) another worker claims the job and makes the move.

A worker outlives its database: when PostgreSQL stops, restarts or fails over, every task
retries with growing pauses (:class:`~hearts.server.outage.Backoff`) and the worker says so
once in its log (:data:`~hearts.server.outage.UNREACHABLE`, then
:data:`~hearts.server.outage.BACK`, from :class:`~hearts.server.outage.Outage`); a job it could
not finish meanwhile is claimed again when its lease runs out (a move made twice is logged
once: the second finds its ``seq`` taken), and the result of a review computed meanwhile is
stored once the database is back.

A worker also computes the game reviews players ask for (:mod:`hearts.server.reviews`),
``reviews`` at once (default one), each in a process of its own at a lower OS priority than
the bots' (:data:`~hearts.server.reviews.REVIEW_NICE`): the bot moves come first. A review's
claim is renewed about twice a second, so a killed worker's review reads ``queued`` once its
``lease`` has run out, and the next free runner takes it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import os
import random
import signal
import socket
import threading
import time
from dataclasses import dataclass
from multiprocessing.process import BaseProcess
from typing import Final

from hearts import fast
from hearts.actions import Action, to_dict
from hearts.bots import make_bot
from hearts.bots.registry import BotFactory, adopt
from hearts.errors import RecordError
from hearts.game import Game
from hearts.record import replay
from hearts.server import logs
from hearts.server.botpool import BotPool, Lane, fallback, watch_parent
from hearts.server.links import Outcome, OwnerLinks
from hearts.server.logs import fields
from hearts.server.notices import AliveNotice, JobNotice, Notice
from hearts.server.outage import DEFAULT_BACKOFF, Backoff, Outage, is_outage
from hearts.server.protocol import STAND_IN
from hearts.server.reviews import ReviewRunner
from hearts.server.storage import (
    BotJob,
    HintJob,
    SeatRow,
    Storage,
    follow,
    load_game,
    open_storage,
)
from hearts.server.turns import bot_spec, bot_turns, decision_start
from hearts.view import View

log = logging.getLogger("hearts.server")

DEFAULT_JOBS: Final = 16
"""Jobs a worker holds at once (each waits out its table's bot delay, then thinks)."""
DEFAULT_LEASE: Final = 3.0
"""Seconds a claim holds a job unrenewed before another worker may take it over (a killed
worker's jobs wait this long at most)."""
DEFAULT_HEARTBEAT: Final = 1.0
"""Seconds between the renewals of a worker's claims (at most a third of the lease)."""
OWNER_WAIT: Final = 8.0
"""Seconds a bot's move waits for a table's owner to take it (an owner that died is replaced
within about five)."""


class OwnerUnreachable(RuntimeError):
    """No server process took a bot's move: the job is claimed again when its lease runs out."""


def job_seed(table_seed: int, seat: int, seq: int) -> int:
    """The seed of the bot that makes a seat's move at position ``seq`` of a table: the same
    table, seat and position give the same decision, whichever worker makes it.

    >>> job_seed(7, 1, 12) == job_seed(7, 1, 12) != job_seed(7, 1, 13)
    True
    """
    return random.Random(f"{table_seed}:{seat}:{seq}").getrandbits(32)


class BotWorker:
    """Claims the bot jobs of ``store`` (which must have a job queue: PostgreSQL) and makes the
    bots' moves, ``jobs`` at once, thinking in ``pool``; ``lease``: seconds a claim lasts
    unrenewed, renewed every ``heartbeat`` seconds (default: a third of the lease, at most
    :data:`DEFAULT_HEARTBEAT`) while the job is held; ``name``: who holds a claim (default:
    host and process id); ``outage``: where the database's failures are reported (said once
    in the log each way; default: one of its own). Run it with :meth:`run`: it runs until
    cancelled, through any database outage (every task retries with ``backoff``)."""

    def __init__(
        self,
        store: Storage,
        pool: BotPool,
        *,
        jobs: int = DEFAULT_JOBS,
        lease: float = DEFAULT_LEASE,
        heartbeat: float | None = None,
        name: str | None = None,
        idle: float = 1.0,
        reviews: int = 1,
        outage: Outage | None = None,
        backoff: Backoff = DEFAULT_BACKOFF,
    ) -> None:
        queue = store.jobs
        if queue is None:
            raise ValueError(f"the database {store.name} holds no bot jobs: bot workers need PostgreSQL")
        heartbeat = min(DEFAULT_HEARTBEAT, lease / 3) if heartbeat is None else heartbeat
        if jobs < 1 or reviews < 0 or not 0 < heartbeat < lease:
            raise ValueError(f"a bot worker needs jobs >= 1, reviews >= 0 and 0 < heartbeat < lease, not {jobs}, "
                             f"{reviews}, {heartbeat} and {lease} s")
        self.store = store
        self.queue = queue
        self.pool = pool
        self.jobs = jobs
        self.lease = lease
        self.heartbeat = heartbeat
        self.name = name or f"{socket.gethostname()}:{os.getpid()}"
        self.idle = idle
        """Seconds between looks for jobs when none is announced (leases run out unannounced)."""
        self.outage = outage or Outage(log, worker=self.name)
        self.backoff = backoff
        self.reviewers = [
            ReviewRunner(store, name=f"{self.name}:review{k}", lease=lease, idle=idle, outage=self.outage,
                         backoff=backoff)
            for k in range(reviews)
        ]
        """The game reviews this worker computes at once (:mod:`hearts.server.reviews`)."""
        self.links = OwnerLinks()
        """The links to the server processes, which the bots' moves go to the tables' owners over."""
        self._asked = float("-inf")
        """When this worker last asked the servers where their links are (:meth:`asyncio.loop.time`)."""
        self._wake = asyncio.Event()
        self._held: dict[int, BotJob] = {}
        """The bot jobs being done, by id: :meth:`_beat` renews their claims."""
        self._hints: set[HintJob] = set()
        """The hint jobs being computed (renewed likewise)."""

    async def run(self) -> None:
        """Claim and do jobs until cancelled (a notice of a new job wakes an idle slot)."""
        listener = await self.outage.retry(self.store.listen, self.backoff)
        await self._ask_links()  # (where the server processes take links)
        await asyncio.gather(
            follow(self.store, listener, self._hear, self._wake.set, self.outage),
            self._beat(),
            *(self._slot() for _ in range(self.jobs)),
            *(reviewer.run() for reviewer in self.reviewers),
        )

    def _hear(self, notice: Notice) -> None:
        if isinstance(notice, JobNotice):
            self._wake.set()
        elif isinstance(notice, AliveNotice) and not notice.worker:
            self.links.heard(notice.process, notice.link, notice.gone)

    async def _beat(self) -> None:
        """Renew the claims of the jobs held, every ``heartbeat`` seconds: a worker that dies
        stops renewing them, and another takes them over within a lease."""
        while True:
            await asyncio.sleep(self.heartbeat)
            held, hints = list(self._held.values()), list(self._hints)
            if not (held or hints):
                continue
            started = time.monotonic()
            try:
                kept = await self.queue.renew_bot_jobs(held, self.lease)
                lost = [h for h in hints if not await self.queue.renew_hint_job(h, self.lease)]
            except Exception as e:
                self._failed(e, started, "the claims of the jobs held could not be renewed")
                continue
            self.outage.answered()
            for job in held:
                if job.id not in kept and self._held.pop(job.id, None) is not None:
                    log.warning("a bot job's claim was lost (its lease ran out)", extra=fields(
                        table=job.table_id, seat=job.seat, worker=self.name))
            self._hints.difference_update(lost)

    def _failed(self, error: Exception, started: float, event: str, **where: object) -> None:
        """A task (begun at ``started``) failed: an outage is reported (said once), anything
        else logged as ``event`` with its traceback."""
        if is_outage(error):
            self.outage.failed(error, started)
        else:
            log.error(event, exc_info=error, extra=fields(**where, worker=self.name))

    async def _slot(self) -> None:
        """Claim a job and do it, again and again; look again every ``idle`` seconds, or when
        a job is announced; while the database is away, every ``backoff`` pause."""
        delays = self.backoff.delays()
        while True:
            self._wake.clear()
            started = time.monotonic()
            try:
                job = await self.queue.claim_bot_job(self.name, self.lease)
                hint = None if job is not None else await self.queue.claim_hint_job(self.name, self.lease)
            except Exception as e:
                self._failed(e, started, "cannot claim a bot job")
                await asyncio.sleep(next(delays) if is_outage(e) else self.idle)
                continue
            self.outage.answered()
            delays = self.backoff.delays()
            if hint is not None:
                await self.do_hint(hint)
            elif job is not None:
                await self.do(job)
            else:
                with contextlib.suppress(asyncio.TimeoutError):
                    await asyncio.wait_for(self._wake.wait(), self.idle)

    async def do(self, job: BotJob) -> None:
        """Make a claimed job's move (or find it stale), then delete the job; its claim is
        renewed meanwhile. A job that fails (the database away included) stays, and is claimed
        again once its lease runs out; one whose table's log does not replay is dropped."""
        where = {"table": job.table_id, "seat": job.seat}
        started = time.monotonic()
        self._held[job.id] = job
        try:
            await self._move(job)
        except asyncio.CancelledError:  # stopping: another worker may take the job at once
            self._held.pop(job.id, None)
            with contextlib.suppress(Exception):
                await asyncio.shield(self.queue.release_bot_job(job))
            raise
        except RecordError:
            log.exception("a bot job's table does not replay; the job is dropped", extra=fields(**where))
        except OwnerUnreachable:  # (a server is starting, or taking over a dead one's tables)
            self._held.pop(job.id, None)
            log.info("no server took a bot's move; the job waits for the next claim", extra=fields(**where))
            with contextlib.suppress(Exception):
                await self.queue.release_bot_job(job)
            return
        except Exception as e:
            self._held.pop(job.id, None)
            self._failed(e, started, "a bot job failed; it is tried again when its lease runs out", **where)
            return
        if self._held.pop(job.id, None) is None:
            return  # the claim was lost meanwhile: the job is another worker's now
        try:
            done = await self.outage.retry(lambda: self.queue.complete_bot_job(job), self.backoff)
        except Exception as e:  # (not an outage: a bug) the job is claimed again after its lease
            self._failed(e, started, "a bot job could not be deleted", **where)
            return
        if not done:  # (expected after an outage, which stopped the renewals: said once already)
            (log.info if self.outage.away_since(started) else log.warning)(
                "a bot job's lease ran out before it was done", extra=fields(**where, worker=self.name))

    async def do_hint(self, job: HintJob) -> None:
        """Compute a claimed hint job from the seat's view only (R7), with the same seed as the
        server's own pool would (:func:`job_seed`), and store it (announced to the asking
        process); a job whose decision is past is dropped (its ``seq``: the position the
        decision began at, :func:`~hearts.server.turns.decision_start`). A failure leaves the job to be
        claimed again when its lease runs out."""
        self._hints.add(job)
        started = time.monotonic()
        try:
            stored = await load_game(self.store, job.table_id)
            game = None if stored is None else stored.game
            if stored is None or game is None or decision_start(game, job.seat, job.seq) is None:
                await self.queue.complete_hint_job(job, None)
                return
            seed = job_seed(stored.row.seed, job.seat, job.seq)
            action = await self.pool.hint(View.of(game, job.seat), seed)
            await self.queue.complete_hint_job(job, to_dict(action))
            log.info("hint", extra=fields(table=job.table_id, seat=job.seat, seq=job.seq, worker=self.name))
        except asyncio.CancelledError:
            raise
        except Exception as e:
            self._failed(e, started, "a hint job failed", table=job.table_id, seat=job.seat)
        finally:
            self._hints.discard(job)

    async def _move(self, job: BotJob) -> None:
        stored = await load_game(self.store, job.table_id)
        if stored is None:
            return
        config = stored.row.config
        game, seats = stored.game, stored.seats
        wait = float(config.get("bot_delay", 0.0)) - job.waited
        if wait > 0:
            await asyncio.sleep(wait)
            seats = await self._caught_up(job.table_id, game)
        stand_in = str(config.get("stand_in", STAND_IN))
        lane: Lane = "bots_only" if all(s.kind == "bot" for s in seats) else "people"
        while True:
            spec = bot_spec(seats[job.seat], stand_in)
            if spec is None or job.seat not in bot_turns(game, seats):
                return  # the position moved on (or the person is back): nothing to do
            seq = game.ply
            action = await self._decide(game, job.seat, spec, job_seed(stored.row.seed, job.seat, seq), lane)
            by = "bot" if seats[job.seat].kind == "bot" else "stand_in"
            outcome = await self._send(job.table_id, job.seat, seq, action, by)
            if outcome is not Outcome.DONE:  # the position moved on meanwhile: look again
                seats = await self._caught_up(job.table_id, game)
                continue
            log.info("action", extra=fields(
                table=job.table_id, seat=job.seat, action=to_dict(action)["type"],
                by=by, worker=self.name, attempt=job.attempt,
            ))
            return

    async def _send(self, table_id: str, seat: int, seq: int, action: Action, by: str) -> Outcome:
        """Hand a bot's move to the table's owner (a server process), which logs it (and rates a
        finished game): done, or stale or illegal (the position moved on). An owner that does not
        answer, or none yet (a server takes over a dead one's tables within seconds), is asked
        again, for at most :data:`OWNER_WAIT` seconds: then :class:`OwnerUnreachable`. An owner
        whose link this worker does not know (it started before the servers, and missed their
        first alive notices) is asked where it is, at most once a second."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + OWNER_WAIT
        while loop.time() < deadline:
            holder = await self.store.leases.holder(table_id)
            if holder is not None and holder.owner not in self.links.where:
                await self._ask_links()
            reply = None if holder is None else await self.links.send(holder.owner, table_id, seat, seq, to_dict(action), by)
            if reply is not None and reply[0] in (Outcome.DONE.value, Outcome.STALE.value, Outcome.ILLEGAL.value):
                return Outcome(reply[0])
            await asyncio.sleep(0.25)
        raise OwnerUnreachable(f"no server owns table {table_id} (or none answers): the move is made again later")

    async def _ask_links(self) -> None:
        """Ask the server processes where their links are (their alive notices answer), at most
        once a second; a failure is let go (the next move asks again)."""
        now = asyncio.get_running_loop().time()
        if now - self._asked >= 1.0:
            self._asked = now
            with contextlib.suppress(Exception):
                await self.store.notify(AliveNotice(self.name, ask=True, worker=True))

    async def _caught_up(self, table_id: str, game: Game) -> list[SeatRow]:
        """Apply what was logged after ``game``'s position; the table's seats, read again."""
        start = game.ply
        replay(game, await self.store.log.actions(table_id, after=start), start=start + 1)
        return await self.store.log.seats(table_id)

    async def _decide(self, game: Game, seat: int, spec: str, seed: int, lane: Lane) -> Action:
        """The bot's action (a random legal one if the bot fails or errs)."""
        try:
            action, _ = await self.pool.decide(make_bot(spec, seed=seed), View.of(game, seat), lane)
        except Exception:
            log.exception("a bot failed; it acts at random", extra=fields(seat=seat, bot=spec))
            return fallback(game, seat, random.Random(seed))
        if action not in game.legal_actions(seat):
            log.error("a bot chose an illegal action; it acts at random", extra=fields(seat=seat, bot=spec))
            return fallback(game, seat, random.Random(seed))
        return action


@dataclass(frozen=True)
class WorkerOptions:
    """How to run a bot worker: its database (PostgreSQL), ``jobs`` at once, thinking in
    ``processes`` (default: one per core, at most four; 0: threads), claims of ``lease``
    seconds renewed every ``heartbeat`` (default: :class:`BotWorker`'s), JSON logs from
    ``log_level`` up."""

    db: str
    jobs: int = DEFAULT_JOBS
    processes: int | None = None
    lease: float = DEFAULT_LEASE
    heartbeat: float | None = None
    log_level: str = "info"
    reviews: int = 1
    """Game reviews computed at once (0: none here)."""
    registered: tuple[tuple[str, BotFactory], ...] = ()
    """Bots the server registered (:func:`~hearts.bots.registry.registered`), registered again
    in the worker (a spawned process) so that their names make bots there too."""


def run_worker(options: WorkerOptions, parent: int | None = None) -> None:
    """Run a bot worker until SIGINT or SIGTERM (``hearts bot-worker``); ``parent``: exit when
    that process is gone. Raises :class:`~hearts.server.storage.StoreError` (or
    ``ValueError``) when the database cannot be used as it starts (unreachable, or of a newer
    schema); once started, it outlives database outages (see the module)."""
    logs.configure(options.log_level)
    adopt(options.registered)
    # SQLAlchemy's pool logs each connection it fails to reset or close in an outage, with its
    # traceback: the worker says an outage once (Outage)
    logging.getLogger("sqlalchemy.pool").setLevel(logging.CRITICAL)
    if parent is not None:
        watch_parent(parent)

    async def main() -> None:
        store = await open_storage(options.db)
        pool = BotPool(options.processes)
        try:
            # The bots' compiled kernel, compiled (after an upgrade) or loaded now, before a job is taken.
            fast.prepare(log.info, extra="web")
            worker = BotWorker(store, pool, jobs=options.jobs, lease=options.lease, heartbeat=options.heartbeat,
                               reviews=options.reviews)
            task = asyncio.current_task()
            assert task is not None
            for sig in (signal.SIGINT, signal.SIGTERM):
                asyncio.get_running_loop().add_signal_handler(sig, task.cancel)
            log.info("bot worker started", extra=fields(
                worker=worker.name, jobs=options.jobs, database=store.name, lease=worker.lease,
                heartbeat=worker.heartbeat,
            ))
            with contextlib.suppress(asyncio.CancelledError):
                await worker.run()
        finally:
            pool.shutdown()
            await store.close()

    try:
        import uvloop
    except ImportError:
        asyncio.run(main())
    else:
        uvloop.run(main())


class BotWorkerProcess:
    """A bot worker in a child process of the server (``hearts serve`` on PostgreSQL), started
    again if it dies: :meth:`start`, :meth:`stop`."""

    def __init__(self, options: WorkerOptions) -> None:
        self.options = options
        self._stopping = threading.Event()
        self._process: BaseProcess | None = None
        self._keeper = threading.Thread(target=self._keep, name="bot-worker-keeper", daemon=True)

    def start(self) -> None:
        """Start the worker (and keep it running)."""
        self._keeper.start()

    def _keep(self) -> None:
        context = multiprocessing.get_context("spawn")
        while not self._stopping.is_set():
            self._process = context.Process(
                target=run_worker, args=(self.options, os.getpid()), name="hearts-bot-worker"
            )
            self._process.start()
            self._process.join()
            if self._stopping.wait(1.0):
                return
            log.warning("the bot worker stopped; starting it again", extra=fields(exit_code=self._process.exitcode))

    def stop(self) -> None:
        """Stop the worker (SIGTERM: it lets go of its jobs) and wait for it."""
        self._stopping.set()
        process = self._process
        if process is not None and process.is_alive():
            process.terminate()
            process.join(10)
        self._keeper.join(10)
