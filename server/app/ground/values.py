"""How each option's value is read and checked: one function per form of
value, raising ``ValueError`` with what is wrong (:func:`.config.load` turns
it into one line naming the option)."""

from __future__ import annotations

from pathlib import Path
from typing import Final
from urllib.parse import urlparse

from ...store import DURABILITIES
from .origins import origin_key

LEVELS: Final = ("debug", "info", "warning", "error")
MAX_WORKERS: Final = 256


def port(v: str) -> int:
    port = int(v)
    if not 0 <= port <= 65535:
        raise ValueError("outside 0..65535")
    return port


def address(v: str) -> tuple[str, int] | None:
    """``HOST:PORT`` (an IPv6 host in brackets), or ``none``."""
    v = v.strip()
    if v.lower() == "none":
        return None
    host, colon, number = v.rpartition(":")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    if not colon or not host:
        raise ValueError("expected HOST:PORT (`[::1]:9108` for IPv6), or none")
    return host, port(number)


def positive_float(v: str) -> float:
    x = float(v)
    if not x > 0:
        raise ValueError("must be more than 0")
    return x


def non_negative_float(v: str) -> float:
    x = float(v)
    if not x >= 0:
        raise ValueError("must be 0 or more")
    return x


def positive_int(v: str) -> int:
    x = int(v)
    if x <= 0:
        raise ValueError("must be more than 0")
    return x


def non_negative_int(v: str) -> int:
    x = int(v)
    if x < 0:
        raise ValueError("must be 0 or more")
    return x


def percent(v: str) -> float:
    x = float(v)
    if not 0 < x <= 100:
        raise ValueError("a percentage: more than 0, at most 100")
    return x


def solver_workers(v: str) -> int:
    x = non_negative_int(v)
    if x > 64:
        raise ValueError("at most 64 (one per core is plenty)")
    return x


def worker_count(v: str) -> int:
    x = positive_int(v)
    if x > MAX_WORKERS:
        raise ValueError(f"at most {MAX_WORKERS}")
    return x


def modes(v: str) -> tuple[str, ...]:
    if v.strip().lower() == "none":
        return ()
    modes = tuple(dict.fromkeys(m.strip().upper() for m in v.split(",") if m.strip()))
    bad = [m for m in modes if m not in ("D1N", "D3N", "D1V", "D3V")]
    if bad:
        raise ValueError(f"{bad[0]!r} is not a mode (D1N, D3N, D1V, D3V)")
    return modes


def daily_time_limit(v: str) -> int:
    x = positive_int(v)
    if not 60 <= x <= 4 * 3600:
        raise ValueError("must be from 60 to 14400 seconds")
    return x


def tick(v: str) -> float:
    x = float(v)
    if not 0.1 <= x <= 10:
        raise ValueError("must be from 0.1 to 10 seconds")
    return x


def quick_wait(v: str) -> int:
    x = int(v)
    if not 1 <= x <= 600:
        raise ValueError("must be from 1 to 600 seconds")
    return x


def redis_url(v: str) -> str:
    u = urlparse(v)
    if u.scheme not in ("redis", "rediss", "unix") or not (u.netloc or u.path):
        raise ValueError("expected redis://host:port[/db], rediss://… or unix:///path")
    return v


def flag(v: str) -> bool:
    if v.lower() in ("1", "yes", "true", "on"):
        return True
    if v.lower() in ("0", "no", "false", "off"):
        return False
    raise ValueError("expected 1 or 0 (yes/no, true/false, on/off)")


def durability(v: str) -> str:
    if v.lower() not in DURABILITIES:
        raise ValueError(f"expected one of {', '.join(DURABILITIES)}")
    return v.lower()


UNITS: Final = {"": 1, "b": 1, "k": 1000, "kb": 1024, "m": 1000**2, "mb": 1024**2,
                  "g": 1000**3, "gb": 1024**3}


def size(v: str) -> int:
    """Bytes, written as Redis writes them: ``268435456``, ``256mb``, ``2gb``."""
    text = v.strip().lower()
    digits = text.rstrip("kmgb")
    unit = text[len(digits):]
    if not digits.isdigit() or unit not in UNITS:
        raise ValueError("expected bytes, or a number with kb, mb or gb (as Redis writes "
                         "them: 256mb)")
    return int(digits) * UNITS[unit]


def static_dir(v: str) -> Path:
    path = Path(v)
    if not (path / "index.html").is_file():
        raise ValueError("not a folder with an index.html")
    return path


def level(v: str) -> str:
    if v.lower() not in LEVELS:
        raise ValueError(f"expected one of {', '.join(LEVELS)}")
    return v.lower()


def header(v: str) -> str:
    name = v.strip()
    if not name or not all(ch.isalnum() or ch == "-" for ch in name):
        raise ValueError("expected a header name such as X-Forwarded-For")
    return name


def origins(v: str) -> tuple[str, ...]:
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


def host(v: str) -> str:
    if not v.strip():
        raise ValueError("empty")
    return v.strip()
