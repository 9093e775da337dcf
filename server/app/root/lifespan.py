"""The process: one port for HTTP and the websocket, one lifespan.

Start: logging, Redis (embedded unless a URL is given), the store, the room
channel subscriber, the deadline sweeper, then listen. SIGTERM or SIGINT:
stop accepting, close every socket with 1001 (websockets waits for the
commands in flight), then close the store and stop the embedded Redis.

As a worker of ``serve --workers N`` (:mod:`.supervisor`) the process is the
same but for three things: it listens with ``SO_REUSEPORT`` on the port its
supervisor chose, beside its siblings; the Redis is given (the supervisor
owns the embedded one); and ``/metrics`` and ``/healthz`` answer for every
worker (:mod:`.siblings`). Each answer says which worker gave it
(``Klondike-Worker``).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import signal
import time
import weakref
from collections.abc import Callable
from http import HTTPStatus
from typing import Final

import structlog
from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.http11 import Request, Response

from ...klondike import BUILD as ENGINE_BUILD
from ...protocol import MAX_FRAME, SUBPROTOCOLS
from ...store import Channels, Store, StoreUnavailable
from ..daily.daily_service import DailyConfig, DailyDeals
from ..edge.admission import guarded
from ..edge.connection import Connection
from ..edge.daily_api import daily_api
from ..edge.http_routes import StaticFiles, error, first_answer, json_errors, router
from ..edge.metrics_listener import serve_metrics
from ..edge.players_api import players_api
from ..edge.quotas import QuotaConfig, Quotas, client_address
from ..edge.ratings_api import ratings_api
from ..edge.results_api import api
from ..edge.services import ConnectionConfig, Services
from ..ground.busyness import Busyness
from ..ground.clock import OffsetClock
from ..ground.config import Config, ConfigError, pick
from ..ground.health import Health
from ..ground.metrics import Metrics
from ..ground.origins import Origins
from ..handlers import dispatch
from ..players.player_service import PlayerConfig, Players
from ..players.ratings import Ratings
from ..rooms.lobby_hub import LobbyHub
from ..rooms.quick_races import QuickRaces
from ..rooms.room_config import RoomConfig
from ..rooms.room_hubs import RoomHubs
from ..rooms.room_service import Rooms
from ..solver.pool import SolverPool
from ..solver.winnable_deals import WinnableDeals
from ..tournaments.rounds import TournamentConfig
from ..tournaments.tournament_hub import TournamentHubs
from ..tournaments.tournament_service import Tournaments
from .embedded_redis import EmbeddedRedis
from .siblings import Siblings, WorkerSpec
from .wiring import connect

log = structlog.get_logger("app.root.lifespan")

SWEEP_INTERVAL: Final = 0.5
WORKER_HEADER: Final = "Klondike-Worker"


def shown_url(host: str, port: int) -> str:
    """The address to open, as the ready line prints it."""
    shown = "localhost" if host in ("127.0.0.1", "0.0.0.0", "::") else host
    return f"http://{shown}:{port}/"


class App:
    """The process: its lifespan, and the services its connections share."""

    services: Services
    store: Store
    subscriber: Channels
    room_hubs: RoomHubs
    busyness: Busyness
    lobby: LobbyHub
    rooms: Rooms
    tournaments: Tournaments
    tournament_hubs: TournamentHubs
    winnable: WinnableDeals
    players: Players
    daily: DailyDeals

    def __init__(self, config: Config, *, clock: Callable[[], float] = time.time,
                 worker: WorkerSpec | None = None) -> None:
        self.config = config
        self.metrics = Metrics()
        self.health = Health(self.metrics)
        self.proc_id = secrets.token_hex(4)
        self._clock = clock if config.clock_offset_file is None else OffsetClock(
            config.clock_offset_file, clock)
        self.worker = worker
        self.siblings = (Siblings(worker, self.metrics, self.health.report)
                         if worker is not None else None)
        self._embedded: EmbeddedRedis | None = None
        self._server: Server | None = None
        self._metrics_server: Server | None = None  # /metrics, the operator's (--metrics-address)
        self._sweeper: asyncio.Task[None] | None = None
        self._migrated = False  # the keys of an earlier version moved (store/migrations.py)
        self._daily: asyncio.Task[None] | None = None
        self.solver = SolverPool(config.solver_workers, config.solver_queue,
                                 self.metrics.solver_job)
        self.metrics.solver_in_flight.set_function(lambda: self.solver.in_flight)
        self._durability_problems: list[str] | None = None  # the last check's findings
        self._addresses: weakref.WeakKeyDictionary[ServerConnection, str] = (
            weakref.WeakKeyDictionary())
        self._closing_waits: set[asyncio.Future[None]] = set()
        self.origins = Origins(config.allowed_origins)
        self._origins_logged: set[str] = set()
        self.url = ""

    def now_ms(self) -> int:
        return int(self._clock() * 1000)

    async def start(self) -> None:
        config = self.config
        url = config.redis_url
        if url is None:
            self._embedded = EmbeddedRedis.configured(config, self._embedded_changed)
            url = await self._embedded.start()
            self._embedded_changed()
        self.store = await Store.open(url, cluster=config.redis_cluster,
                                      durability=config.durability, lanes=config.redis_lanes,
                                      event_cap=config.event_cap, observer=self.health)
        problems = await self.store.redis.version_problems()
        if problems:
            raise ConfigError("; ".join(problems))
        await self._check_durability(at_start=True)
        self.busyness = Busyness()
        self.busyness.start()
        self.subscriber = self.store.subscriber(self._on_message, self._on_reconnect,
                                                self.health.fault)
        self.winnable = WinnableDeals(self.store, self.solver, config.winnable_pool, self.metrics,
                                      config.winnable_modes)
        room_config = pick(config, RoomConfig)  # each service gets the options it reads
        self.rooms = Rooms(self.store, room_config, self.now_ms, self.winnable)
        self.tournaments = Tournaments(self.store, self.rooms, pick(config, TournamentConfig),
                                       self.now_ms)
        self.players = Players(self.store, self.rooms, pick(config, PlayerConfig), self.now_ms,
                               self.health)
        self.daily = DailyDeals(self.rooms, self.players, self.store, pick(config, DailyConfig),
                                self.now_ms)
        self.ratings = Ratings(self.store, self.rooms, self.now_ms, self.rooms.ttl_ms)
        connect(self.rooms, tournaments=self.tournaments, players=self.players, daily=self.daily,
                ratings=self.ratings)
        self.room_hubs = RoomHubs(store=self.store, subscriber=self.subscriber, metrics=self.metrics,
                         busyness=self.busyness, now_ms=self.now_ms, end_race=self.rooms.end_race,
                         tick=self.config.tick, health=self.health)
        self.tournament_hubs = TournamentHubs(store=self.store, subscriber=self.subscriber,
                                    tournaments=self.tournaments, now_ms=self.now_ms,
                                    tick=self.config.tick, metrics=self.metrics,
                                    health=self.health)
        self.quotas = Quotas(pick(config, QuotaConfig), self.metrics, self.store, self.now_ms,
                             self.health)
        self.lobby = LobbyHub(self.store, self.rooms.public, self.now_ms,
                              self.config.lobby_interval, self.health)
        self.services = Services(
            config=pick(config, ConnectionConfig), metrics=self.metrics, proc_id=self.proc_id,
            now_ms=self.now_ms,
            store=self.store, subscriber=self.subscriber, busyness=self.busyness,
            room_hubs=self.room_hubs, rooms=self.rooms, tournaments=self.tournaments,
            tournament_hubs=self.tournament_hubs, quotas=self.quotas, solver=self.solver,
            players=self.players, ratings=self.ratings, lobby=self.lobby,
            daily=self.daily,
            quick=QuickRaces(self.rooms, self.store, room_config, self.now_ms))
        self.subscriber.start()
        self.health.start(self.store, self.subscriber)
        if not await self.subscriber.wait_connected(1.0):  # listen anyway: /healthz says 503
            log.warning("redis_not_reachable_yet", redis=_safe(url))
        with contextlib.suppress(StoreUnavailable):  # else the sweeper beats once Redis is up
            await self.store.indexes.heartbeat(self.proc_id, round(self.config.presence_timeout * 1000))
            await self._migrate()  # (else the sweeper moves them once Redis is up)
        self._sweeper = asyncio.create_task(self._sweep(), name="deadline-sweeper")
        self.winnable.start()
        if config.daily_modes:
            self._daily = asyncio.create_task(self.daily.run(), name="daily-deals")
        siblings = self.siblings
        if siblings is not None:
            await siblings.start()
        self._server = await serve(
            self._handle, self.config.host, self.config.port,
            subprotocols=list(SUBPROTOCOLS),  # type: ignore[arg-type]
            process_request=router(
                StaticFiles(self.config.static_dir),
                health=siblings.health if siblings else self.health.report,
                api=first_answer(api(self.tournaments), players_api(self.players, self.ratings),
                                 ratings_api(self.ratings),
                                 daily_api(self.daily)),
                admit=self._admit),
            process_response=self._respond,
            max_size=self.config.max_frame or MAX_FRAME, compression=None, max_queue=32,
            ping_interval=20, ping_timeout=20, close_timeout=5, server_header="klondike-race",
            create_connection=guarded(self.quotas, by_peer=config.proxy_header is None,
                                      request_timeout=config.request_timeout,
                                      on_timeout=self.metrics.request_timeouts.inc),
            reuse_port=self.worker is not None,
        )
        sock = next(iter(self._server.sockets))
        host, port = sock.getsockname()[:2]
        self.url = shown_url(host, port)
        if config.metrics_address is not None:
            self._metrics_server = await serve_metrics(
                config.metrics_address, siblings.metrics if siblings else self.metrics.render_all,
                reuse_port=self.worker is not None)
        embedded = self._embedded is not None or (self.worker is not None and self.worker.embedded)
        log.info("listening", url=self.url, max_connections=self.quotas.max_connections,
                 redis="embedded" if embedded else _safe(url),
                 cluster=config.redis_cluster, durability=config.durability, proc=self.proc_id,
                 pid=os.getpid(), engine=ENGINE_BUILD,
                 solver_workers=config.solver_workers, winnable_pool=config.winnable_pool)

    async def _migrate(self) -> None:
        """Move the keys an earlier version wrote, once (every process tries:
        each move is safe to repeat)."""
        moved = await self.store.migrate()
        self._migrated = True
        if moved:
            log.info("keys_migrated", keys=moved)

    async def _check_durability(self, *, at_start: bool = False) -> None:
        """Does Redis keep the promise of ``--durability``? Checked at start
        and with every heartbeat (a failover may bring another node). With
        ``fsync`` a Redis that does not fsync every write stops the start, and
        later is an error in the log; with ``replica`` a master without a
        replica is a warning (acks wait for one). Unreachable, or ``CONFIG``
        refused: a warning at start, checked again with the next heartbeat.
        Each finding is logged when it changes, not at every check."""
        if self.config.durability == "os":
            return
        problems = await self.store.redis.durability_problems()
        if problems is None:
            if at_start:
                log.warning("durability_unchecked", durability=self.config.durability)
            return
        if problems == self._durability_problems:
            return
        self._durability_problems = problems
        if not problems:
            if not at_start:
                log.info("durability_met", durability=self.config.durability)
            return
        if self.config.durability == "fsync":
            if at_start:
                raise ConfigError("; ".join(problems))
            log.error("durability_not_met", durability="fsync", problems=problems)
        else:
            log.warning("durability_replica_missing", problems=problems)

    def _embedded_changed(self) -> None:
        if self._embedded is not None:
            self.metrics.embedded(self._embedded.up, self._embedded.restarts)

    def _respond(self, ws: ServerConnection, request: Request, response: Response) -> Response:
        """Every refusal in JSON (:func:`json_errors`), and every answer of a
        worker saying which one gave it."""
        answer = json_errors(ws, request, response)
        if self.worker is not None:
            answer.headers[WORKER_HEADER] = str(self.worker.index)
        return answer

    def _on_message(self, channel: str, data: bytes) -> None:
        ident = self.store.rooms.id_of_channel(channel)
        if self.store.rooms.is_tournament_channel(channel):
            self.tournament_hubs.on_message(ident, data)
        else:
            self.room_hubs.on_message(ident, data)

    def _on_reconnect(self) -> None:
        self.room_hubs.on_reconnect()
        self.tournament_hubs.on_reconnect()

    def _admit(self, ws: ServerConnection, request: Request) -> Response | None:
        """A websocket handshake from a page allowed here (see
        :mod:`.admission`), then a place under the connection caps for it,
        held until its connection closes (whether or not the handshake
        succeeds)."""
        address = client_address(ws, request, self.config.proxy_header)
        if not self.origins.allows(request):
            self.metrics.refused_connections.labels(reason="origin").inc()
            origin = request.headers.get_all("Origin")[0][:100]
            if origin not in self._origins_logged and len(self._origins_logged) < 100:
                self._origins_logged.add(origin)  # once per origin (a hundred at most)
                log.warning("origin_refused", origin=origin, address=address)
            return error(HTTPStatus.FORBIDDEN, "origin", "a page of another site may not open "
                         "a websocket here (see --allowed-origins)")
        status = self.quotas.admit(address)
        if status is not None:
            if status is HTTPStatus.TOO_MANY_REQUESTS:
                answer = error(status, "too_many", "too many connections from your address")
            else:
                answer = error(status, "server_full", "the server holds as many connections "
                               "as it may")
            answer.headers["Retry-After"] = "10"
            return answer
        self._addresses[ws] = address
        waiting = asyncio.ensure_future(ws.wait_closed())
        waiting.add_done_callback(lambda _: self.quotas.release(address))
        self._closing_waits.add(waiting)
        waiting.add_done_callback(self._closing_waits.discard)
        return None

    async def _handle(self, ws: ServerConnection) -> None:
        await Connection(self.services, ws, handlers=dispatch.HANDLERS,
                         on_room_event=dispatch.on_room_event, on_resync=dispatch.on_resync,
                         address=self._addresses.get(ws, "")).run()

    async def _sweep(self) -> None:
        """End races whose time is up and open tournament rounds left starting
        (every process sweeps; a lease in Redis keeps two from doing the same
        one at once). Every few seconds also
        beat this process's heartbeat and let each hub release seats held by
        processes that stopped beating (killed without a goodbye)."""
        loop = asyncio.get_running_loop()
        timeout = self.config.presence_timeout
        next_beat = loop.time()
        while True:
            try:
                if loop.time() >= next_beat:
                    await self.store.indexes.heartbeat(self.proc_id, round(timeout * 1000))
                    if not self._migrated:
                        await self._migrate()
                    await self._check_durability()
                    next_beat = loop.time() + timeout / 3  # a failed beat is retried next sweep
                    await self.room_hubs.reap()
                    for tournament_hub in self.tournament_hubs.all():
                        loaded = await self.store.tournaments.load_tournament_data(tournament_hub.id)
                        if loaded is not None:
                            await self.tournaments.settle(loaded.t)
                for member in await self.store.indexes.claim_due(self.now_ms()):
                    await self._due(member)
                await self.tournaments.sweep()
            except StoreUnavailable:
                pass
            except Exception:
                log.exception("sweep_failed")
            await asyncio.sleep(SWEEP_INTERVAL)

    async def _due(self, member: str) -> None:
        """One deadline the sweeper claimed, apart from the others it
        claimed with it: one that fails (a room that cannot be read, Redis
        busy with it) is claimed again when its lease is up, and never
        keeps the deadlines after it in the batch (a day's end) waiting."""
        try:
            await self.rooms.due(member)
        except StoreUnavailable:
            log.info("due_deferred", member=member)
        except Exception:
            log.exception("due_failed", member=member)

    async def stop(self) -> None:
        if self._metrics_server is not None:
            self._metrics_server.close()
            await self._metrics_server.wait_closed()
        if self._server is not None:
            self._server.close()  # 1001 to every socket, then waits for their handlers
            await self._server.wait_closed()
        if self.siblings is not None:
            await self.siblings.close()
        with contextlib.suppress(AttributeError):
            await self.lobby.close()
        with contextlib.suppress(AttributeError):
            await self.busyness.stop()
        await self.health.close()
        if self._daily is not None:
            self._daily.cancel()
            await asyncio.gather(self._daily, return_exceptions=True)
        if self._sweeper is not None:
            self._sweeper.cancel()
            await asyncio.gather(self._sweeper, return_exceptions=True)
            with contextlib.suppress(StoreUnavailable):
                await self.store.indexes.forget(self.proc_id)
        with contextlib.suppress(AttributeError):
            await self.winnable.close()
        await self.solver.close()
        with contextlib.suppress(AttributeError):
            await self.subscriber.close()
        with contextlib.suppress(AttributeError):
            await self.store.close()
        if self._embedded is not None:
            await self._embedded.stop()
        log.info("stopped")

    async def run_until_signal(self, on_ready: Callable[[str], None] | None = None, *,
                               stop: asyncio.Event | None = None) -> None:
        """Start, serve until SIGTERM or SIGINT (or ``stop`` is set), then stop."""
        if stop is None:
            stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
        try:
            await self.start()
            if on_ready is not None:
                on_ready(self.url)
            await stop.wait()
            log.info("shutting_down")
        finally:
            await self.stop()


def _safe(url: str) -> str:
    """A Redis URL without its password, for logs."""
    if "@" in url:
        scheme, rest = url.split("://", 1)
        return f"{scheme}://***@{rest.split('@', 1)[1]}"
    return url
