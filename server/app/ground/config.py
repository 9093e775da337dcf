"""The server's configuration: command line over environment over defaults,
read once at start and checked; a bad value stops the start with one line.

Every option is one field of :class:`Config` made by :func:`option`: its
group, its default, its value's form and check, and what it does
(:data:`OPTIONS`, :data:`GROUPS`). ``klondike-race serve --help`` is made from that
table, and so is the option table of docs/operations.md
(:func:`markdown_table`; a test holds the two equal). The defaults are
:class:`Config`'s.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, TypeVar
from urllib.parse import urlparse

from ...store import DURABILITIES
from . import values
from .values import LEVELS, MAX_WORKERS

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

T = TypeVar("T", bound="DataclassInstance")

WEB_CLIENT: Final = Path(__file__).resolve().parents[3] / "web_client"
_CPU_MAX: Final = "/sys/fs/cgroup/cpu.max"  # cgroup v2: "quota period", or "max period"


def available_cores() -> int:
    """The cores this process may use: those it may run on
    (``sched_getaffinity``), fewer when its container's CPU quota is lower
    (cgroup v2 ``cpu.max``, rounded up). The default of ``--workers``."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    cores = cores or 1
    try:
        quota, period = Path(_CPU_MAX).read_text().split()[:2]
        if quota != "max":
            cores = min(cores, max(1, -(-int(quota) // int(period))))
    except (OSError, ValueError):
        pass
    return min(cores, MAX_WORKERS)


class ConfigError(Exception):
    """A bad setting: the message is one line for the person starting the server."""

LISTEN: Final = "where to listen"
REDIS: Final = "state: Redis"
ROOMS: Final = "races and rooms"
CONNECTION: Final = "each connection"
CAPS: Final = "caps"
PLAYERS: Final = "players"
SOLVER: Final = "the solver"
DAILY: Final = "the daily deal"
FILES: Final = "logs and files"



@dataclass(frozen=True, slots=True)
class Option:
    """One setting of ``serve``: the :class:`Config` field it sets, its
    group, how a value is read and checked, and what it does, in one line
    (Markdown's backticks allowed: ``--help`` drops them)."""

    name: str
    group: str
    convert: Callable[[str], Any]
    what: str
    metavar: str = "VALUE"  # the value's unit or form: SECONDS, BYTES, N, URL…
    choices: tuple[str, ...] = ()  # shown instead of the metavar
    shown: str = ""  # what the default means, where the Config's value alone would not say
    more: str = ""  # for docs/operations.md only: a link to where it is explained
    flag: bool = False  # given alone on the command line (in the environment: 1 or 0)

    @property
    def option(self) -> str:
        return "--" + self.name.replace("_", "-")

    @property
    def env(self) -> str:
        return "KLONDIKE_" + self.name.upper()

    def default_text(self) -> str:
        """The default as ``--help`` and the docs give it."""
        if self.shown:
            return self.shown
        value = getattr(Config(), self.name)
        if isinstance(value, bool):
            return "on" if value else "off"
        if isinstance(value, float):
            return f"{value:g}"
        if isinstance(value, tuple):
            return ",".join(value)
        return str(value)


@dataclass(frozen=True, slots=True)
class computed:  # (lower case: read as a default, ``option(LISTEN, computed(available_cores), …)``)
    """A default computed when a :class:`Config` is made."""

    factory: Callable[[], Any]


def option(group: str, default: Any, convert: Callable[[str], Any], what: str, metavar: str = "VALUE", *,
           choices: tuple[str, ...] = (), shown: str = "", more: str = "", flag: bool = False) -> Any:
    """A :class:`Config` field that is an option of ``serve`` (see :class:`Option`)."""
    spec = Option("", group, convert, what, metavar, choices, shown, more, flag)
    if isinstance(default, computed):
        return field(default_factory=default.factory, metadata={"option": spec})
    return field(default=default, metadata={"option": spec})


@dataclass(frozen=True, slots=True, kw_only=True)
class Config:
    """Every setting and, for those a person sets, its option
    (:func:`option`: its group, default, check and what it does), in the
    order of ``--help`` and the docs: the one table of the options."""

    # where to listen
    host: str = option(
        LISTEN, "127.0.0.1", values.host, "address to listen on (`0.0.0.0`: every interface)", "HOST")
    port: int = option(
        LISTEN, 8080, values.port, "port of HTTP and the websocket (`0`: any free port)", "PORT")
    # server processes on the port
    workers: int = option(
        LISTEN, computed(available_cores), values.worker_count,
        "server processes sharing the port, 1 to 256; "
        "the default counts the cores this process may run on, fewer under a container's CPU quota; "
        "`1`: one process",
        "N", shown="the cores it may use", more="[workers](#workers-one-command-every-core)")
    # /metrics: the operator's
    metrics_address: tuple[str, int] | None = option(
        LISTEN, ("127.0.0.1", 9108), values.address, "where `/metrics` answers, apart from the players' "
        "port (which answers it 404): the operator's, so loopback unless your scraper needs more; "
        "`none`: nowhere", "HOST:PORT", shown="`127.0.0.1:9108`",
        more="[health and metrics](#health-and-metrics)")
    # state: Redis
    redis_url: str | None = option(
        REDIS, None, values.redis_url, "the Redis to use: `redis://host:port/db`, `rediss://…` (TLS) or "
        "`unix:///path`", "URL", shown="none: an embedded Redis",
        more="[embedded or your own](#redis-embedded-or-your-own)")
    redis_cluster: bool = option(
        REDIS, False, values.flag, "`--redis-url` names any one node of a Redis Cluster", flag=True,
        more="[Redis Cluster](#redis-cluster)")
    durability: str = option(
        REDIS, "os", values.durability, "what an acknowledged move survives: a crash of the server or "
        "redis-server (`os`), of the machine (`fsync`), the loss of the Redis master (`replica`)",
        choices=DURABILITIES, more="[durability](#durability-what-an-ack-survives)")
    data_dir: Path = option(  # noqa: RUF009 (a field: see option)
        REDIS, Path("var"), Path, "the embedded Redis's files (not used with `--redis-url`)", "DIR")
    # the embedded Redis's; None: sized from the machine
    redis_maxmemory: int | None = option(
        REDIS, None, values.size, "the embedded Redis's `maxmemory` (`noeviction`), in bytes or "
        "as Redis writes it (`512mb`, `2gb`; `0`: no limit, not advised); not with `--redis-url`",
        "BYTES",
        shown="40 % of the machine", more="[memory](#redis-memory)")
    redis_lanes: int = option(
        REDIS, 2, values.positive_int, "Redis connections for commands (each carries batches of "
        "them)", "N")
    presence_timeout: float = option(
        REDIS, 15.0, values.positive_float, "seconds before the players of a process that died "
        "show as disconnected", "SECONDS")
    # races and rooms
    countdown: float = option(
        ROOMS, 3.0, values.non_negative_float, "seconds from the host's start to a race's first move",
        "SECONDS")
    tick: float = option(
        ROOMS, 1.25, values.tick, "seconds between two leaderboards of a big room, and two looks at a big "
        "tournament's counts (0.1 to 10)", "SECONDS", more="[protocol.md](protocol.md#big-rooms)")
    # s between two lists of the public rooms to a lobby
    lobby_interval: float = option(
        ROOMS, 2.0, values.tick, "seconds between two lists of the public races sent to a lobby (0.1 "
        "to 10): each process reads the list once per interval and sends it, encoded once, to its "
        "lobbies when it changed", "SECONDS", more="[protocol.md](protocol.md#races-to-find)")
    # s a quick race waits after its second player
    quick_wait: int = option(
        ROOMS, 20, values.quick_wait, "seconds a quick race waits after its second player before it "
        "starts (1 to 600; at once when it is full)", "SECONDS")
    quick_per_minute: int = option(
        ROOMS, 20, values.positive_int, "quick-race requests one address may make a minute (`too_many` "
        "beyond; a refusal stores nothing)", "N", more="[races to find](protocol.md#races-to-find)")
    finished_ttl: int = option(
        ROOMS, 3600, values.positive_int, "seconds a room is kept after its race ended", "SECONDS")
    lobby_ttl: int = option(
        ROOMS, 86400, values.positive_int, "seconds an idle lobby is kept (and a tournament nobody "
        "registered for)", "SECONDS")
    tournament_ttl: int = option(
        ROOMS, 30 * 86400, values.positive_int, "seconds a tournament with players (and its rounds' rooms) "
        "is kept after its last change", "SECONDS")
    # a challenge's results and replays, once it closed
    challenge_ttl: int = option(
        ROOMS, 7 * 86400, values.positive_int, "seconds a challenge (its results and replays) is kept "
        "after its window closed", "SECONDS", more="[expiry](#data-and-expiry)")
    # each connection
    msg_rate: float = option(
        CONNECTION, 20.0, values.positive_float, "messages a second a connection may send (its credit's "
        "refill)", "RATE")
    msg_burst: int = option(
        CONNECTION, 60, values.positive_int, "messages a connection may send in a burst", "N")
    ping_rate: float = option(
        CONNECTION, 1.0, values.positive_float, "pings a second a connection may send free (past them a ping "
        "costs credit like any message)", "RATE")
    ping_burst: int = option(
        CONNECTION, 10, values.positive_int, "free pings in a burst", "N")
    slow_buffer: int = option(
        CONNECTION, 256 * 1024, values.positive_int,
        "bytes queued on a socket (beyond the kernel's) before it "
        "counts as behind and skips leaderboards and boards", "BYTES")
    slow_grace: float = option(
        CONNECTION, 10.0, values.positive_float, "seconds a socket may stay behind before it is closed with "
        "1011 (`slow_consumer`)", "SECONDS")
    # caps
    max_connections: int = option(
        CAPS, 10_000, values.positive_int, "websockets open at once on this process (at most its "
        "open-file limit less 128); more get HTTP 503", "N")
    max_connections_per_address: int = option(
        CAPS, 100, values.positive_int, "connections (and websockets) open at once "
        "from one address (a school behind one NAT fits); more are closed, or get HTTP 429", "N",
        more="[caps](#caps-and-hostile-clients)")
    creations_per_minute: int = option(
        CAPS, 30, values.positive_int, "rooms, solo games and tournaments one address may "
        "create in a minute, over every process (a refused one is not counted); more get `too_many`", "N")
    max_rooms: int = option(
        CAPS, 100_000, values.positive_int, "rooms holding a place at once, over every process; more get "
        "`server_full`", "N", more="[places](#caps-and-hostile-clients)")
    max_tournaments: int = option(
        CAPS, 10_000, values.positive_int, "the same for tournaments", "N")
    # percent of max_rooms (max_tournaments) one address may hold
    address_share: float = option(
        CAPS, 1.0, values.percent, "the per cent of `--max-rooms` (and of `--max-tournaments`) the "
        "rooms (tournaments) made from one address may hold, at least one place each; more get "
        "`address_full`", "PERCENT")
    unjoined_hold: int = option(
        CAPS, 600, values.positive_int, "seconds a room nobody joined (a tournament nobody registered "
        "for) holds its place; a join (a registration) holds it `--lobby-ttl` seconds from then",
        "SECONDS")
    # public rooms listed at once, from one address
    public_per_address: int = option(
        CAPS, 3, values.positive_int, "public rooms one address may have listed in the lobby "
        "at once, over every process; one more public room gets `too_many` (a private one does "
        "not)", "N")
    # challenges open at once, made from one address
    challenges_per_address: int = option(
        CAPS, 20, values.positive_int, "challenges one address may have open at once, "
        "over every process (a challenge holds its place in `--max-rooms` until its window "
        "closes, up to 7 days); more get `too_many`", "N")
    registrations_per_minute: int = option(
        CAPS, 20, values.positive_int, "`t_register` attempts one address may make in a "
        "minute, over every process; more get `too_many`", "N")
    proxy_header: str | None = option(
        CAPS, None, values.header, "behind a proxy you trust, the header that names the client "
        "(`X-Forwarded-For`: its last address counts); none: the peer's address", "HEADER",
        shown="none")
    # besides the server's own (see origins.py)
    allowed_origins: tuple[str, ...] = option(
        CAPS, (), values.origins, "pages of other sites whose browsers may open the websocket, "
        "comma-separated (`https://play.example.com`); the server's own pages always may, and so "
        "may programs that send no `Origin`", "ORIGINS", shown="none",
        more="[origin](#which-pages-may-open-the-websocket)")
    request_timeout: float = option(
        CAPS, 5.0, values.positive_float, "seconds a connection has, from its opening, to send "
        "the whole head of its request; then it is closed", "SECONDS")
    # players
    player_ttl: int = option(
        PLAYERS, 365 * 86400, values.positive_int,
        "seconds a player is kept untouched (no connection identified "
        "with their key, no result recorded); a player who never had a result is kept at most 30 days",
        "SECONDS", more="[players](#players-data)")
    players_per_hour: int = option(
        PLAYERS, 60, values.positive_int, "new players (keys) one address may ask for in an hour, "
        "over every process; more get `too_many` (the browser then plays without a player)", "N")
    claims_per_minute: int = option(
        PLAYERS, 10, values.positive_int, "device-move codes one address may try in a minute, over "
        "every process (right or wrong); more get `too_many`", "N")
    # the solver
    solver_workers: int = option(
        SOLVER, 1, values.solver_workers, "solver processes (0 to 64; 0: none, solver assists say "
        "`unknown` and give basic hints, and no winnable deals are refilled here)", "N",
        more="[the solver](#the-solver-workers-and-winnable-deals)")
    solver_queue: int = option(
        SOLVER, 8, values.non_negative_int, "solver jobs that may wait for a worker; past workers "
        "and queue a job is refused at once (`busy`)", "N")
    winnable_pool: int = option(
        SOLVER, 20, values.non_negative_int, "certified winnable codes kept ready per mode in Redis "
        "(0: this process refills none)", "N")
    winnable_modes: tuple[str, ...] = option(
        SOLVER, ("D1N",
        "D3N", "D1V", "D3V"), values.modes, "the modes whose winnable codes this process keeps "
        "ready, comma-separated, of `D1N`, `D3N`, `D1V`, `D3V`", "MODES")
    # the daily deal
    daily_modes: tuple[str, ...] = option(
        DAILY, ("D1N",
        "D3N", "D1V"), values.modes, "the modes of the daily deal, comma-separated (`none`: no "
        "daily deal); each day's deal of a mode is a certified winnable deal from that mode's pool, so "
        "each should be among `--winnable-modes` of some process", "MODES",
        more="[the daily deal](#the-daily-deal)")
    # seconds each attempt may last
    daily_time_limit: int = option(
        DAILY, 1800, values.daily_time_limit, "seconds each daily attempt may last (60 to "
        "14400); an attempt begun less than that before midnight UTC ends at midnight", "SECONDS")
    # attempts (seats taken) one address may make in a UTC day
    daily_per_address: int = option(
        DAILY, 100, values.positive_int, "daily-deal seats one address may take in a UTC day, "
        "over every process and mode; more get `too_many`", "N")
    daily_ranked_per_address: int = option(
        DAILY, 2, values.positive_int, "players of one address (an IPv6 address by its /64) ranked in a "
        "day's deal of a mode (a household); the others play it as practice, never ranked", "N",
        more="[the daily deal](#the-daily-deal)")
    # s: a player made this lately ranks only while their address has none
    daily_fresh: int = option(
        DAILY, 86_400, values.non_negative_int, "seconds after a player is made during which they rank "
        "in a daily deal only while nobody of their address does (a spare key made to scout "
        "the deal plays it as practice); 0: no such rule", "SECONDS")
    # logs and files
    log_level: str = option(
        FILES, "info", values.level, "the least level of the JSON log lines written to standard error",
        choices=LEVELS)
    static_dir: Path = option(  # noqa: RUF009 (a field: see option)
        FILES, WEB_CLIENT, values.static_dir, "the web client's files (for an installed package: a copy of "
        "`web_client/`)", "DIR", shown="web_client/ of this tree")
    # rehearsals and tests: ms added to the clock (clock.py)
    clock_offset_file: Path | None = option(  # noqa: RUF009 (a field: see option)
        FILES, None, Path, "a file holding milliseconds (a whole number, may be negative) "
        "added to the server's clock, read again within 0.1 s of a change: to rehearse days ahead "
        "(a challenge's close) on a staging server, and for the tests; every process the same "
        "file; never in production (players' clocks follow the server's)", "FILE",
        shown="none")
    # set by the code alone, not options
    event_cap: int = 256
    max_frame: int = 4096


def pick(config: Config, cls: type[T]) -> T:
    """The settings one service uses (``cls``, a frozen dataclass whose
    fields are named as :class:`Config`'s): each service receives those,
    built by the root from the one table, not the whole configuration."""
    return cls(**{f.name: getattr(config, f.name) for f in fields(cls)})


#: every option, in the order of --help and the docs
OPTIONS: Final = tuple(replace(f.metadata["option"], name=f.name) for f in fields(Config)
                       if "option" in f.metadata)
#: the options by group, in order
GROUPS: Final = tuple((title, tuple(o for o in OPTIONS if o.group == title))
                      for title in dict.fromkeys(o.group for o in OPTIONS))



def help_line(option: Option) -> str:
    """What ``--help`` says of ``option`` (its unit or choices are its metavar)."""
    env = f"{option.env}=1" if option.flag else option.env
    return f"{option.what.replace('`', '')} [default: {option.default_text()}] [env: {env}]"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``serve``'s options, a group each, from :data:`GROUPS`. Nothing is
    converted or checked here: :func:`load` does that, for the environment too."""
    for title, options in GROUPS:
        group = parser.add_argument_group(title)
        for option in options:
            text = help_line(option).replace("%", "%%")
            if option.flag:
                group.add_argument(option.option, dest=option.name, default=None, action="store_const",
                                   const="1", help=text)
            else:
                metavar = "{" + ",".join(option.choices) + "}" if option.choices else option.metavar
                group.add_argument(option.option, dest=option.name, default=None, metavar=metavar,
                                   help=text)


def markdown_table() -> str:
    """docs/operations.md's table of the options."""
    rows = ["| option | environment variable | default | what |", "|---|---|---|---|"]
    for option in OPTIONS:
        default = option.shown or f"`{option.default_text()}`"
        others = [f"`{c}`" for c in option.choices if c != option.default_text()]
        if others:
            default += f" (or {', '.join(others)})"
        what = option.what
        if option.flag:
            what += " (a flag; in the environment `1` or `0`)"
        if option.more:
            what += f"; see {option.more}"
        rows.append(f"| `{option.option}` | `{option.env}` | {default} | {what} |")
    return "\n".join(rows) + "\n"


def load(args: argparse.Namespace | None = None, env: Mapping[str, str] | None = None) -> Config:
    """The configuration from parsed arguments and the environment."""
    env = os.environ if env is None else env
    values: dict[str, Any] = {}
    for option in OPTIONS:
        raw = getattr(args, option.name, None) if args is not None else None
        source = option.option
        if raw is None:
            raw = env.get(option.env)
            source = option.env
        if raw is None or raw == "":
            continue
        try:
            values[option.name] = option.convert(raw)
        except ValueError as exc:
            raise ConfigError(f"bad value {raw!r} for {source}: {exc}") from None
    config = Config(**values)
    _check(config)
    return config


def _check(config: Config) -> None:
    """Settings that only make sense together."""
    if config.redis_cluster:
        url = urlparse(config.redis_url or "")
        if config.redis_url is None:
            raise ConfigError("--redis-cluster needs --redis-url naming a node of the cluster")
        if url.scheme == "unix":
            raise ConfigError("--redis-cluster needs a redis:// or rediss:// URL (nodes are "
                              "reached over TCP)")
        if url.path.strip("/") not in ("", "0"):
            raise ConfigError("--redis-cluster: a Redis Cluster has database 0 only "
                              f"(the URL names {url.path.strip('/')!r})")
    if config.redis_maxmemory is not None and config.redis_url is not None:
        raise ConfigError("--redis-maxmemory sizes the embedded Redis: give your own Redis its "
                          "maxmemory in its configuration")
    if config.durability == "replica" and config.redis_url is None:
        raise ConfigError("--durability replica needs a Redis with a replica: give --redis-url "
                          "(the embedded Redis has none)")


def parse(argv: Sequence[str], env: Mapping[str, str] | None = None) -> Config:
    """For tests: the configuration of ``serve`` with these arguments."""
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    return load(parser.parse_args(list(argv)), env)
