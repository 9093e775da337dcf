"""The server's configuration: command line over environment over defaults,
read once at start and checked; a bad value stops the start with one line.

=============================  ====================================  ================================
option                         environment variable                  default
=============================  ====================================  ================================
--host                         KLONDIKE_HOST                         127.0.0.1
--port                         KLONDIKE_PORT                         8080 (0: any free port)
--redis-url                    KLONDIKE_REDIS_URL                    none: start an embedded Redis
--redis-cluster                KLONDIKE_REDIS_CLUSTER                off (a flag; env 1/0: any node)
--durability                   KLONDIKE_DURABILITY                   os (or fsync, replica)
--data-dir                     KLONDIKE_DATA_DIR                     ./var (embedded Redis's files)
--redis-maxmemory              KLONDIKE_REDIS_MAXMEMORY              40 % of the machine (embedded)
--log-level                    KLONDIKE_LOG_LEVEL                    info
--countdown                    KLONDIKE_COUNTDOWN                    3 (seconds before a race)
--tick                         KLONDIKE_TICK                         1.25 (s: big rooms' lb, counts)
--finished-ttl                 KLONDIKE_FINISHED_TTL                 3600 (s a finished room is kept)
--lobby-ttl                    KLONDIKE_LOBBY_TTL                    86400 (s an idle lobby is kept)
--tournament-ttl               KLONDIKE_TOURNAMENT_TTL               2592000 (s a tournament is kept)
--challenge-ttl                KLONDIKE_CHALLENGE_TTL                604800 (s a closed challenge is kept)
--msg-rate                     KLONDIKE_MSG_RATE                     20 (messages/s per connection)
--msg-burst                    KLONDIKE_MSG_BURST                    60 (messages in a burst)
--ping-rate                    KLONDIKE_PING_RATE                    1 (free pings a second)
--ping-burst                   KLONDIKE_PING_BURST                   10 (free pings in a burst)
--slow-buffer                  KLONDIKE_SLOW_BUFFER                  262144 (bytes: a socket behind)
--slow-grace                   KLONDIKE_SLOW_GRACE                   10 (s behind before 1011)
--max-connections              KLONDIKE_MAX_CONNECTIONS              10000 (websockets at once)
--max-connections-per-address  KLONDIKE_MAX_CONNECTIONS_PER_ADDRESS  100 (from one address)
--creations-per-minute         KLONDIKE_CREATIONS_PER_MINUTE         30 (per address)
--max-rooms                    KLONDIKE_MAX_ROOMS                    100000 (rooms live at once)
--max-tournaments              KLONDIKE_MAX_TOURNAMENTS              10000 (tournaments live at once)
--challenges-per-address       KLONDIKE_CHALLENGES_PER_ADDRESS       20 (open challenges per address)
--proxy-header                 KLONDIKE_PROXY_HEADER                 none (a trusted proxy's)
--redis-lanes                  KLONDIKE_REDIS_LANES                  2 (connections for commands)
--presence-timeout             KLONDIKE_PRESENCE_TIMEOUT             15 (s: a dead process)
--solver-workers               KLONDIKE_SOLVER_WORKERS               1 (solver processes; 0: none)
--solver-queue                 KLONDIKE_SOLVER_QUEUE                 8 (solver jobs waiting, at most)
--winnable-pool                KLONDIKE_WINNABLE_POOL                20 (winnable codes kept per mode)
--winnable-modes               KLONDIKE_WINNABLE_MODES               D1N,D3N,D1V,D3V (modes kept ready)
--player-ttl                   KLONDIKE_PLAYER_TTL                   31536000 (s a player is kept idle)
--players-per-hour             KLONDIKE_PLAYERS_PER_HOUR             60 (new player keys per address)
--claims-per-minute            KLONDIKE_CLAIMS_PER_MINUTE            10 (device-move codes tried)
--daily-modes                  KLONDIKE_DAILY_MODES                  D1N,D3N,D1V (daily deals; none: off)
--daily-time-limit             KLONDIKE_DAILY_TIME_LIMIT             1800 (s of a daily attempt)
--daily-per-address            KLONDIKE_DAILY_PER_ADDRESS            100 (daily attempts a day)
--static-dir                   KLONDIKE_STATIC_DIR                   web_client/ of this tree
--clock-offset-file            KLONDIKE_CLOCK_OFFSET_FILE            none (ms added to the clock)
=============================  ====================================  ================================
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final
from urllib.parse import urlparse

from ...store import DURABILITIES

WEB_CLIENT: Final = Path(__file__).resolve().parents[3] / "web_client"
LEVELS: Final = ("debug", "info", "warning", "error")


class ConfigError(Exception):
    """A bad setting: the message is one line for the person starting the server."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Config:
    # where to listen
    host: str = "127.0.0.1"
    port: int = 8080
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
    challenges_per_address: int = 20  # challenges open at once, made from one address
    proxy_header: str | None = None
    # the solver (app/solving.py, app/winnable.py)
    solver_workers: int = 1
    solver_queue: int = 8
    winnable_pool: int = 20
    winnable_modes: tuple[str, ...] = ("D1N", "D3N", "D1V", "D3V")
    # the daily deal (app/daily)
    daily_modes: tuple[str, ...] = ("D1N", "D3N", "D1V")
    daily_time_limit: int = 1800  # seconds each attempt may last
    daily_per_address: int = 100  # attempts (seats taken) one address may make in a UTC day
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


def _workers(v: str) -> int:
    x = _non_negative_int(v)
    if x > 64:
        raise ValueError("at most 64 (one per core is plenty)")
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


def _host(v: str) -> str:
    if not v.strip():
        raise ValueError("empty")
    return v.strip()


_OPTIONS: Final[tuple[tuple[str, Callable[[str], Any]], ...]] = (
    ("host", _host),
    ("port", _port),
    ("redis_url", _redis_url),
    ("redis_cluster", _flag),
    ("durability", _durability),
    ("data_dir", Path),
    ("redis_maxmemory", _size),
    ("log_level", _level),
    ("countdown", _non_negative_float),
    ("finished_ttl", _positive_int),
    ("lobby_ttl", _positive_int),
    ("tournament_ttl", _positive_int),
    ("player_ttl", _positive_int),
    ("players_per_hour", _positive_int),
    ("claims_per_minute", _positive_int),
    ("challenge_ttl", _positive_int),
    ("msg_rate", _positive_float),
    ("msg_burst", _positive_int),
    ("ping_rate", _positive_float),
    ("ping_burst", _positive_int),
    ("slow_buffer", _positive_int),
    ("slow_grace", _positive_float),
    ("max_connections", _positive_int),
    ("max_connections_per_address", _positive_int),
    ("creations_per_minute", _positive_int),
    ("max_rooms", _positive_int),
    ("max_tournaments", _positive_int),
    ("challenges_per_address", _positive_int),
    ("proxy_header", _header),
    ("redis_lanes", _positive_int),
    ("presence_timeout", _positive_float),
    ("tick", _tick),
    ("solver_workers", _workers),
    ("solver_queue", _non_negative_int),
    ("winnable_pool", _non_negative_int),
    ("winnable_modes", _modes),
    ("daily_modes", _modes),
    ("daily_time_limit", _daily_time_limit),
    ("daily_per_address", _positive_int),
    ("static_dir", _static_dir),
    ("clock_offset_file", Path),
)


_FLAGS: Final = ("redis_cluster",)  # given alone on the command line


def add_arguments(parser: argparse.ArgumentParser) -> None:
    for name, _ in _OPTIONS:
        if name in _FLAGS:
            parser.add_argument("--" + name.replace("_", "-"), dest=name, default=None,
                                action="store_const", const="1",
                                help=f"(env KLONDIKE_{name.upper()}=1)")
            continue
        parser.add_argument("--" + name.replace("_", "-"), dest=name, default=None, metavar="VALUE",
                            help=f"(env KLONDIKE_{name.upper()})")


def load(args: argparse.Namespace | None = None, env: Mapping[str, str] | None = None) -> Config:
    """The configuration from parsed arguments and the environment."""
    env = os.environ if env is None else env
    values: dict[str, Any] = {}
    for name, convert in _OPTIONS:
        raw = getattr(args, name, None) if args is not None else None
        source = "--" + name.replace("_", "-")
        if raw is None:
            raw = env.get("KLONDIKE_" + name.upper())
            source = "KLONDIKE_" + name.upper()
        if raw is None or raw == "":
            continue
        try:
            values[name] = convert(raw)
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
