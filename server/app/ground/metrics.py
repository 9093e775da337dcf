"""Prometheus metrics of one server process (served at ``/metrics``).

Two registries: ``registry``, this process's own figures, and
``server_wide``, figures of what the processes of one ``serve --workers N``
share (the embedded Redis, which the supervisor owns): every worker knows
them, and ``/metrics`` gives them once, not once per worker
(:mod:`.siblings`)."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest

_LATENCY = (0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0)
_SOLVER = (0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0)


class Metrics:
    """The process's metrics, in registries of their own."""

    def __init__(self) -> None:
        r = self.registry = CollectorRegistry(auto_describe=True)
        shared = self.server_wide = CollectorRegistry(auto_describe=True)
        self.connections = Gauge("klondike_connections", "Open websocket connections", registry=r)
        self.rooms = Gauge("klondike_rooms", "Rooms with a connection on this process", registry=r)
        self.commands = Counter("klondike_commands", "Commands received, by type", ["type"],
                                registry=r)
        self.moves_accepted = Counter("klondike_moves_accepted",
                                      "Game commands applied and acknowledged", registry=r)
        self.moves_rejected = Counter("klondike_moves_rejected", "Game commands refused, by reason",
                                      ["reason"], registry=r)
        self.rejected = Counter("klondike_rejected", "Commands and frames refused, by reason",
                                ["reason"], registry=r)
        self.closed = Counter("klondike_closed", "Connections closed by the server, by close code",
                              ["code"], registry=r)
        self.refused_connections = Counter(
            "klondike_refused_connections",
            "Connections closed at once and websocket handshakes refused, by reason",
            ["reason"], registry=r)
        self.open_sockets = Gauge("klondike_open_sockets",
                                  "TCP connections open: websockets, pages, requests on their way",
                                  registry=r)
        self.request_timeouts = Counter("klondike_request_timeouts",
                                        "Connections closed for a request not complete in time",
                                        registry=r)
        self.move_latency = Histogram("klondike_move_seconds",
                                      "From a game command's arrival to its acknowledgement",
                                      buckets=_LATENCY, registry=r)
        self.redis_latency = Histogram("klondike_redis_seconds",
                                       "Redis round trips (one batch of commands each)",
                                       buckets=_LATENCY, registry=r)
        self.redis_round_trips = Counter("klondike_redis_round_trips",
                                         "Redis round trips", registry=r)
        self.redis_commands = Counter("klondike_redis_commands", "Redis commands sent", registry=r)
        self.lb_frames = Counter("klondike_leaderboard_frames",
                                 "Leaderboard updates broadcast (one per room flush)", registry=r)
        self.lb_stretched = Counter(
            "klondike_leaderboard_stretched",
            "Room flushes made at an interval stretched past 0.2 s for the process's load "
            "(past 60 % of a core or 4 ms of loop lag)", registry=r)
        self.tick_seconds = Histogram("klondike_tick_seconds",
                                      "A big room's leaderboard tick on this process, start to end",
                                      buckets=_LATENCY, registry=r)
        self.redis_redirects = Counter("klondike_redis_redirects",
                                       "Redis Cluster answers that sent a command elsewhere or "
                                       "later, by kind (moved, ask, tryagain, clusterdown)",
                                       ["kind"], registry=r)
        self.unconfirmed_batches = Counter(
            "klondike_redis_unconfirmed_batches",
            "Batches no replica confirmed in time (--durability replica): refused", registry=r)
        self.redis_errors = Counter("klondike_redis_errors",
                                    "Redis commands refused for Redis's trouble, answered "
                                    "unavailable, by kind (oom, readonly, loading, connection, …)",
                                    ["kind"], registry=r)
        self.redis_memory = Gauge("klondike_redis_memory_ratio",
                                  "Redis's used memory over its maxmemory (the fullest node; "
                                  "0 when no maxmemory is set)", registry=r)
        self.faults = Counter("klondike_faults",
                              "Exceptions caught in a loop that must go on (the channel "
                              "subscriber, a room's or a tournament's hub), by where", ["where"],
                              registry=r)
        self.rollbacks = Counter("klondike_rollbacks",
                                 "Rooms (and seats) found behind what this process had seen: "
                                 "Redis came back with less", ["scope"], registry=r)
        self.embedded_restarts = Counter("klondike_embedded_redis_restarts",
                                         "Times the embedded redis-server died and was restarted",
                                         registry=shared)
        self.embedded_up = Gauge("klondike_embedded_redis_up",
                                 "1 while the embedded redis-server runs (0 with --redis-url)",
                                 registry=shared)
        self._restarts_seen = 0
        self.solver_jobs = Counter("klondike_solver_jobs",
                                   "Solver jobs by kind (status, hint, certify) and outcome "
                                   "(done, busy: refused at once, failed, off)",
                                   ["kind", "outcome"], registry=r)
        self.solver_seconds = Histogram("klondike_solver_seconds",
                                        "A solver job done, from its submission to its answer",
                                        ["kind"], buckets=_SOLVER, registry=r)
        self.solver_in_flight = Gauge("klondike_solver_in_flight",
                                      "Solver jobs running or waiting in this process's pool",
                                      registry=r)
        self.winnable_certified = Counter(
            "klondike_winnable_certified", "Deals this process certified winnable and kept ready, "
            "by mode", ["mode"], registry=r)
        self.winnable_tried = Counter("klondike_winnable_tried",
                                      "Candidate deals this process searched, by mode", ["mode"],
                                      registry=r)

        self._by_type: dict[str, Counter] = {}

    def command(self, kind: str) -> None:
        """Count a command of type ``kind`` (its counter child looked up once)."""
        child = self._by_type.get(kind)
        if child is None:
            child = self._by_type[kind] = self.commands.labels(type=kind)
        child.inc()

    def redis_batch(self, size: int, seconds: float) -> None:
        self.redis_round_trips.inc()
        self.redis_commands.inc(size)
        self.redis_latency.observe(seconds)

    def redis_redirect(self, kind: str) -> None:
        self.redis_redirects.labels(kind=kind).inc()

    def replica_unconfirmed(self) -> None:
        self.unconfirmed_batches.inc()

    def redis_trouble(self, kind: str, error: str, commands: int) -> None:
        self.redis_errors.labels(kind=kind).inc(commands)

    def solver_job(self, kind: str, outcome: str, seconds: float) -> None:
        self.solver_jobs.labels(kind=kind, outcome=outcome).inc()
        if outcome == "done":
            self.solver_seconds.labels(kind=kind).observe(seconds)

    def embedded(self, up: bool, restarts: int) -> None:
        """The embedded Redis as its owner says (a worker's supervisor):
        running or not, and how many times it was restarted so far."""
        self.embedded_up.set(1 if up else 0)
        if restarts > self._restarts_seen:
            self.embedded_restarts.inc(restarts - self._restarts_seen)
            self._restarts_seen = restarts

    def render(self) -> bytes:
        """This process's own figures (without the server-wide ones)."""
        return generate_latest(self.registry)

    def render_server_wide(self) -> bytes:
        return generate_latest(self.server_wide)

    async def render_all(self) -> bytes:
        """``/metrics`` of a process that is the whole server (one worker)."""
        return self.render() + self.render_server_wide()
