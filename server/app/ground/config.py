"""The server's configuration: command line over environment over defaults,
read once at start and checked; a bad value stops the start with one line.

Every option is one :class:`Option` of :data:`GROUPS`: its value's form and
check, and what it does. ``klondike-race serve --help`` is made from that
table, and so is the option table of docs/operations.md
(:func:`markdown_table`; a test holds the two equal). The defaults are
:class:`Config`'s.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final
from urllib.parse import urlparse

from ...store import DURABILITIES
from .origins import origin_key

WEB_CLIENT: Final = Path(__file__).resolve().parents[3] / "web_client"
LEVELS: Final = ("debug", "info", "warning", "error")
MAX_WORKERS: Final = 256
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


@dataclass(frozen=True, slots=True, kw_only=True)
class Config:
    # where to listen
    host: str = "127.0.0.1"
    port: int = 8080
    workers: int = field(default_factory=available_cores)  # server processes on the port
    metrics_address: tuple[str, int] | None = ("127.0.0.1", 9108)  # /metrics: the operator's
    # state
    redis_url: str | None = None
    redis_cluster: bool = False
    durability: str = "os"
    data_dir: Path = Path("var")
    redis_maxmemory: int | None = None  # the embedded Redis's; None: sized from the machine
    redis_lanes: int = 2
    presence_timeout: float = 15.0
    # rooms
    countdown: float = 3.0
    tick: float = 1.25
    finished_ttl: int = 3600
    lobby_ttl: int = 86400
    tournament_ttl: int = 30 * 86400
    # players (app/players)
    player_ttl: int = 365 * 86400
    players_per_hour: int = 60
    claims_per_minute: int = 10
    challenge_ttl: int = 7 * 86400  # a challenge's results and replays, once it closed
    event_cap: int = 256
    lobby_interval: float = 2.0  # s between two lists of the public rooms to a lobby
    quick_wait: int = 20  # s a quick race waits after its second player
    quick_per_minute: int = 20  # quick-race requests one address may make a minute
    # connections
    msg_rate: float = 20.0
    msg_burst: int = 60
    ping_rate: float = 1.0
    ping_burst: int = 10
    max_frame: int = 4096
    slow_buffer: int = 256 * 1024
    slow_grace: float = 10.0
    # caps
    max_connections: int = 10_000
    max_connections_per_address: int = 100
    creations_per_minute: int = 30
    max_rooms: int = 100_000
    max_tournaments: int = 10_000
    address_share: float = 1.0  # percent of max_rooms (max_tournaments) one address may hold
    unjoined_hold: int = 600
    registrations_per_minute: int = 20
    public_per_address: int = 3  # public rooms listed at once, from one address
    challenges_per_address: int = 20  # challenges open at once, made from one address
    proxy_header: str | None = None
    allowed_origins: tuple[str, ...] = ()  # besides the server's own (see admission.py)
    request_timeout: float = 5.0
    # the solver (app/solving.py, app/winnable.py)
    solver_workers: int = 1
    solver_queue: int = 8
    winnable_pool: int = 20
    winnable_modes: tuple[str, ...] = ("D1N", "D3N", "D1V", "D3V")
    # the daily deal (app/daily)
    daily_modes: tuple[str, ...] = ("D1N", "D3N", "D1V")
    daily_time_limit: int = 1800  # seconds each attempt may last
    daily_per_address: int = 100  # attempts (seats taken) one address may make in a UTC day
    daily_ranked_per_address: int = 2  # players of one address ranked in a day's deal of a mode
    daily_fresh: int = 86_400  # s: a player made this lately ranks only while their address has none
    # the rest
    log_level: str = "info"
    static_dir: Path = WEB_CLIENT
    clock_offset_file: Path | None = None  # rehearsals and tests: ms added to the clock (clock.py)


def _port(v: str) -> int:
    port = int(v)
    if not 0 <= port <= 65535:
        raise ValueError("outside 0..65535")
    return port


def _positive_float(v: str) -> float:
    x = float(v)
    if not x > 0:
        raise ValueError("must be more than 0")
    return x


def _non_negative_float(v: str) -> float:
    x = float(v)
    if not x >= 0:
        raise ValueError("must be 0 or more")
    return x


def _positive_int(v: str) -> int:
    x = int(v)
    if x <= 0:
        raise ValueError("must be more than 0")
    return x


def _non_negative_int(v: str) -> int:
    x = int(v)
    if x < 0:
        raise ValueError("must be 0 or more")
    return x


def _percent(v: str) -> float:
    x = float(v)
    if not 0 < x <= 100:
        raise ValueError("a percentage: more than 0, at most 100")
    return x


def _solver_workers(v: str) -> int:
    x = _non_negative_int(v)
    if x > 64:
        raise ValueError("at most 64 (one per core is plenty)")
    return x


def _worker_count(v: str) -> int:
    x = _positive_int(v)
    if x > MAX_WORKERS:
        raise ValueError(f"at most {MAX_WORKERS}")
    return x


def _modes(v: str) -> tuple[str, ...]:
    if v.strip().lower() == "none":
        return ()
    modes = tuple(dict.fromkeys(m.strip().upper() for m in v.split(",") if m.strip()))
    bad = [m for m in modes if m not in ("D1N", "D3N", "D1V", "D3V")]
    if bad:
        raise ValueError(f"{bad[0]!r} is not a mode (D1N, D3N, D1V, D3V)")
    return modes


def _daily_time_limit(v: str) -> int:
    x = _positive_int(v)
    if not 60 <= x <= 4 * 3600:
        raise ValueError("must be from 60 to 14400 seconds")
    return x


def _tick(v: str) -> float:
    x = float(v)
    if not 0.1 <= x <= 10:
        raise ValueError("must be from 0.1 to 10 seconds")
    return x


def _quick_wait(v: str) -> int:
    x = int(v)
    if not 1 <= x <= 600:
        raise ValueError("must be from 1 to 600 seconds")
    return x


def _redis_url(v: str) -> str:
    u = urlparse(v)
    if u.scheme not in ("redis", "rediss", "unix") or not (u.netloc or u.path):
        raise ValueError("expected redis://host:port[/db], rediss://… or unix:///path")
    return v


def _flag(v: str) -> bool:
    if v.lower() in ("1", "yes", "true", "on"):
        return True
    if v.lower() in ("0", "no", "false", "off"):
        return False
    raise ValueError("expected 1 or 0 (yes/no, true/false, on/off)")


def _durability(v: str) -> str:
    if v.lower() not in DURABILITIES:
        raise ValueError(f"expected one of {', '.join(DURABILITIES)}")
    return v.lower()


_UNITS: Final = {"": 1, "b": 1, "k": 1000, "kb": 1024, "m": 1000**2, "mb": 1024**2,
                  "g": 1000**3, "gb": 1024**3}


def _size(v: str) -> int:
    """Bytes, written as Redis writes them: ``268435456``, ``256mb``, ``2gb``."""
    text = v.strip().lower()
    digits = text.rstrip("kmgb")
    unit = text[len(digits):]
    if not digits.isdigit() or unit not in _UNITS:
        raise ValueError("expected bytes, or a number with kb, mb or gb (as Redis writes "
                         "them: 256mb)")
    return int(digits) * _UNITS[unit]


def _static_dir(v: str) -> Path:
    path = Path(v)
    if not (path / "index.html").is_file():
        raise ValueError("not a folder with an index.html")
    return path


def _level(v: str) -> str:
    if v.lower() not in LEVELS:
        raise ValueError(f"expected one of {', '.join(LEVELS)}")
    return v.lower()


def _header(v: str) -> str:
    name = v.strip()
    if not name or not all(ch.isalnum() or ch == "-" for ch in name):
        raise ValueError("expected a header name such as X-Forwarded-For")
    return name


def _origins(v: str) -> tuple[str, ...]:
    """Origins such as ``https://play.example.com``, comma-separated, as
    ``scheme://host:port``."""
    out = []
    for given in (o.strip() for o in v.split(",")):
        if not given:
            continue
        key = origin_key(given)
        if key is None:
            raise ValueError(f"{given!r} is not an origin such as https://play.example.com "
                             "(a scheme, http or https, and a host; a port if not the default)")
        scheme, host, port = key
        out.append(f"{scheme}://{f'[{host}]' if ':' in host else host}:{port}")
    return tuple(dict.fromkeys(out))


def _address(v: str) -> tuple[str, int] | None:
    """``HOST:PORT`` (an IPv6 host in brackets), or ``none``."""
    v = v.strip()
    if v.lower() == "none":
        return None
    host, colon, port = v.rpartition(":")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    if not colon or not host:
        raise ValueError("expected HOST:PORT (`[::1]:9108` for IPv6), or none")
    return host, _port(port)


def _host(v: str) -> str:
    if not v.strip():
        raise ValueError("empty")
    return v.strip()


@dataclass(frozen=True, slots=True)
class Option:
    """One setting of ``serve``: the :class:`Config` field it sets, how a
    value is read and checked, and what it does, in one line (Markdown's
    backticks allowed: ``--help`` drops them)."""

    name: str
    convert: Callable[[str], Any]
    what: str
    metavar: str = "VALUE"  # the value's unit or form: SECONDS, BYTES, N, URL…
    choices: tuple[str, ...] = ()  # shown instead of the metavar
    default: str = ""  # what the default means, where the Config's value alone would not say
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
        if self.default:
            return self.default
        value = getattr(Config(), self.name)
        if isinstance(value, bool):
            return "on" if value else "off"
        if isinstance(value, float):
            return f"{value:g}"
        if isinstance(value, tuple):
            return ",".join(value)
        return str(value)


GROUPS: Final[tuple[tuple[str, tuple[Option, ...]], ...]] = (
    ("where to listen", (
        Option("host", _host, "address to listen on (`0.0.0.0`: every interface)", "HOST"),
        Option("port", _port, "port of HTTP and the websocket (`0`: any free port)", "PORT"),
        Option("workers", _worker_count, "server processes sharing the port, 1 to 256; the default counts "
               "the cores this process may run on, fewer under a container's CPU quota; `1`: one process",
               "N", default="the cores it may use", more="[workers](#workers-one-command-every-core)"),
        Option("metrics_address", _address, "where `/metrics` answers, apart from the players' port "
               "(which answers it 404): the operator's, so loopback unless your scraper needs more; "
               "`none`: nowhere", "HOST:PORT", default="`127.0.0.1:9108`",
               more="[health and metrics](#health-and-metrics)"),
    )),
    ("state: Redis", (
        Option("redis_url", _redis_url, "the Redis to use: `redis://host:port/db`, `rediss://…` (TLS) or "
               "`unix:///path`", "URL", default="none: an embedded Redis",
               more="[embedded or your own](#redis-embedded-or-your-own)"),
        Option("redis_cluster", _flag, "`--redis-url` names any one node of a Redis Cluster", flag=True,
               more="[Redis Cluster](#redis-cluster)"),
        Option("durability", _durability, "what an acknowledged move survives: a crash of the server or "
               "redis-server (`os`), of the machine (`fsync`), the loss of the Redis master (`replica`)",
               choices=DURABILITIES, more="[durability](#durability-what-an-ack-survives)"),
        Option("data_dir", Path, "the embedded Redis's files (not used with `--redis-url`)", "DIR"),
        Option("redis_maxmemory", _size, "the embedded Redis's `maxmemory` (`noeviction`), in bytes or "
               "as Redis writes it (`512mb`, `2gb`; `0`: no limit, not advised); not with `--redis-url`",
               "BYTES",
               default="40 % of the machine", more="[memory](#redis-memory)"),
        Option("redis_lanes", _positive_int, "Redis connections for commands (each carries batches of "
               "them)", "N"),
        Option("presence_timeout", _positive_float, "seconds before the players of a process that died "
               "show as disconnected", "SECONDS"),
    )),
    ("races and rooms", (
        Option("countdown", _non_negative_float, "seconds from the host's start to a race's first move",
               "SECONDS"),
        Option("tick", _tick, "seconds between two leaderboards of a big room, and two looks at a big "
               "tournament's counts (0.1 to 10)", "SECONDS", more="[protocol.md](protocol.md#big-rooms)"),
        Option("lobby_interval", _tick, "seconds between two lists of the public races sent to a lobby (0.1 "
               "to 10): each process reads the list once per interval and sends it, encoded once, to its "
               "lobbies when it changed", "SECONDS", more="[protocol.md](protocol.md#races-to-find)"),
        Option("quick_wait", _quick_wait, "seconds a quick race waits after its second player before it "
               "starts (1 to 600; at once when it is full)", "SECONDS"),
        Option("quick_per_minute", _positive_int, "quick-race requests one address may make a "
               "minute (`too_many` beyond; a refusal stores nothing)", "N",
               more="[races to find](protocol.md#races-to-find)"),
        Option("finished_ttl", _positive_int, "seconds a room is kept after its race ended", "SECONDS"),
        Option("lobby_ttl", _positive_int, "seconds an idle lobby is kept (and a tournament nobody "
               "registered for)", "SECONDS"),
        Option("tournament_ttl", _positive_int, "seconds a tournament with players (and its rounds' rooms) "
               "is kept after its last change", "SECONDS"),
        Option("challenge_ttl", _positive_int, "seconds a challenge (its results and replays) is kept "
               "after its window closed", "SECONDS", more="[expiry](#data-and-expiry)"),
    )),
    ("each connection", (
        Option("msg_rate", _positive_float, "messages a second a connection may send (its credit's "
               "refill)", "RATE"),
        Option("msg_burst", _positive_int, "messages a connection may send in a burst", "N"),
        Option("ping_rate", _positive_float, "pings a second a connection may send free (past them a ping "
               "costs credit like any message)", "RATE"),
        Option("ping_burst", _positive_int, "free pings in a burst", "N"),
        Option("slow_buffer", _positive_int, "bytes queued on a socket (beyond the kernel's) before it "
               "counts as behind and skips leaderboards and boards", "BYTES"),
        Option("slow_grace", _positive_float, "seconds a socket may stay behind before it is closed with "
               "1011 (`slow_consumer`)", "SECONDS"),
    )),
    ("caps", (
        Option("max_connections", _positive_int, "websockets open at once on this process (at most its "
               "open-file limit less 128); more get HTTP 503", "N"),
        Option("max_connections_per_address", _positive_int, "connections (and websockets) open at once "
               "from one address (a school behind one NAT fits); more are closed, or get HTTP 429", "N",
               more="[caps](#caps-and-hostile-clients)"),
        Option("creations_per_minute", _positive_int, "rooms, solo games and tournaments one address may "
               "create in a minute, over every process (attempts count); more get `too_many`", "N"),
        Option("max_rooms", _positive_int, "rooms holding a place at once, over every process; more get "
               "`server_full`", "N", more="[places](#caps-and-hostile-clients)"),
        Option("max_tournaments", _positive_int, "the same for tournaments", "N"),
        Option("address_share", _percent, "the per cent of `--max-rooms` (and of `--max-tournaments`) the "
               "rooms (tournaments) made from one address may hold, at least one place each; more get "
               "`address_full`", "PERCENT"),
        Option("unjoined_hold", _positive_int, "seconds a room nobody joined (a tournament nobody registered "
               "for) holds its place; a join (a registration) holds it `--lobby-ttl` seconds from then",
               "SECONDS"),
        Option("public_per_address", _positive_int, "public rooms one address may have listed in the lobby "
               "at once, over every process; one more public room gets `too_many` (a private one does "
               "not)", "N"),
        Option("challenges_per_address", _positive_int, "challenges one address may have open at once, "
               "over every process (a challenge holds its place in `--max-rooms` until its window "
               "closes, up to 7 days); more get `too_many`", "N"),
        Option("registrations_per_minute", _positive_int, "`t_register` attempts one address may make in a "
               "minute, over every process; more get `too_many`", "N"),
        Option("proxy_header", _header, "behind a proxy you trust, the header that names the client "
               "(`X-Forwarded-For`: its last address counts); none: the peer's address", "HEADER",
               default="none"),
        Option("allowed_origins", _origins, "pages of other sites whose browsers may open the websocket, "
               "comma-separated (`https://play.example.com`); the server's own pages always may, and so "
               "may programs that send no `Origin`", "ORIGINS", default="none",
               more="[origin](#which-pages-may-open-the-websocket)"),
        Option("request_timeout", _positive_float, "seconds a connection has, from its opening, to send "
               "the whole head of its request; then it is closed", "SECONDS"),
    )),
    ("players", (
        Option("player_ttl", _positive_int, "seconds a player is kept untouched (no connection identified "
               "with their key, no result recorded); a player who never had a result is kept at most 30 days",
               "SECONDS", more="[players](#players-data)"),
        Option("players_per_hour", _positive_int, "new players (keys) one address may ask for in an hour, "
               "over every process; more get `too_many` (the browser then plays without a player)", "N"),
        Option("claims_per_minute", _positive_int, "device-move codes one address may try in a minute, over "
               "every process (right or wrong); more get `too_many`", "N"),
    )),
    ("the solver", (
        Option("solver_workers", _solver_workers, "solver processes (0 to 64; 0: none, solver assists say "
               "`unknown` and give basic hints, and no winnable deals are refilled here)", "N",
               more="[the solver](#the-solver-workers-and-winnable-deals)"),
        Option("solver_queue", _non_negative_int, "solver jobs that may wait for a worker; past workers "
               "and queue a job is refused at once (`busy`)", "N"),
        Option("winnable_pool", _non_negative_int, "certified winnable codes kept ready per mode in Redis "
               "(0: this process refills none)", "N"),
        Option("winnable_modes", _modes, "the modes whose winnable codes this process keeps ready, "
               "comma-separated, of `D1N`, `D3N`, `D1V`, `D3V`", "MODES"),
    )),
    ("the daily deal", (
        Option("daily_modes", _modes, "the modes of the daily deal, comma-separated (`none`: no daily "
               "deal); each day's deal of a mode is a certified winnable deal from that mode's pool, so "
               "each should be among `--winnable-modes` of some process", "MODES",
               more="[the daily deal](#the-daily-deal)"),
        Option("daily_time_limit", _daily_time_limit, "seconds each daily attempt may last (60 to "
               "14400); an attempt begun less than that before midnight UTC ends at midnight", "SECONDS"),
        Option("daily_per_address", _positive_int, "daily-deal seats one address may take in a UTC day, "
               "over every process and mode; more get `too_many`", "N"),
        Option("daily_ranked_per_address", _positive_int, "players of one address (an IPv6 address by "
               "its /64) ranked in a day's deal of a mode (a household); the others play it as practice, "
               "never ranked", "N", more="[the daily deal](#the-daily-deal)"),
        Option("daily_fresh", _non_negative_int, "seconds after a player is made during which they rank "
               "in a daily deal only while nobody of their address does (a spare key made to scout "
               "the deal plays it as practice); 0: no such rule", "SECONDS"),
    )),
    ("logs and files", (
        Option("log_level", _level, "the least level of the JSON log lines written to standard error",
               choices=LEVELS),
        Option("static_dir", _static_dir, "the web client's files (for an installed package: a copy of "
               "`web_client/`)", "DIR", default="web_client/ of this tree"),
        Option("clock_offset_file", Path, "a file holding milliseconds (a whole number, may be negative) "
               "added to the server's clock, read again within 0.1 s of a change: to rehearse days ahead "
               "(a challenge's close) on a staging server, and for the tests; every process the same "
               "file; never in production (players' clocks follow the server's)", "FILE",
               default="none"),
    )),
)

#: every option, in the order of --help and the docs
OPTIONS: Final = tuple(option for _, options in GROUPS for option in options)


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
        default = option.default or f"`{option.default_text()}`"
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
