"""The Lua scripts: every state change is one of these, run atomically.

Each script is a file of ``lua/`` (package data), read once when this module
is imported: its header says what it does, its KEYS, its ARGV and what it
returns, and a line ``-- uses: a, b`` names the helpers of ``lua/lib/`` it
calls, which are put in front of it (each once, the helpers a helper uses
before it).

Events are stored and published as JSON objects whose first member is the
version the script gives them: the caller passes the event's body without its
opening brace and the script prepends ``{"v":N,`` (``push_event``). Notices
(``{"x": kind, ...}``) are published but not stored: a takeover, a kick in a
room whose seats live in hashes, a ranked room's leaderboard tick.

A room whose seats live in hashes (see :mod:`.keys`) is visited by scripts
that name in their KEYS each key they touch (a cluster checks them before it
runs the script): the scripts that visit every seat of such a room (a start,
a rematch) touch only the room's hashes, and a racer's seat is made by the
``move_ranked`` of their first command. Leaderboard lines are built from JSON
pieces the caller passes (``'{"seat":' .. seat .. piece``): the scripts never
encode JSON themselves, except for small numbers (and the nickname of a
player record, with ``cjson``).

**Publishing.** A script never calls ``PUBLISH`` or ``SPUBLISH`` itself (a
script that does is refused when it is loaded): it calls ``publish(channel,
message)``, a Lua function of the prelude every script gets. Each script is
rendered twice, once per way the store runs: with ``PUBLISH`` for one Redis,
with ``SPUBLISH`` for a Redis Cluster (sharded pub/sub: the message stays on
the shard that owns the channel's slot, instead of crossing the whole
cluster). The store picks the rendering of its mode (``Script.rendered[mode]``,
``Script.shas[mode]``), so a new script publishes correctly on both by
following this rule. The channel goes in the script's KEYS like the room's
keys (all with the room's hash tag): a cluster then checks it is in the
script's slot, and the store routes the call by the slot of its first key.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from importlib import resources
from typing import Final

#: the publish command of each rendering: index 0 one Redis, 1 a Redis Cluster
PUBLISH_COMMANDS: Final = ("PUBLISH", "SPUBLISH")
CLASSIC: Final = 0
SHARDED: Final = 1

_PRELUDE: Final = """local function publish(channel, message)
  return redis.call('{command}', channel, message)
end
"""
_DIRECT_PUBLISH: Final = re.compile(r"""['"]S?PUBLISH['"]""", re.IGNORECASE)
_USES: Final = re.compile(r"^-- uses: (.+)$", re.MULTILINE)
_LUA: Final = resources.files(__package__) / "lua"


@dataclass(frozen=True, slots=True)
class Script:
    name: str
    source: str  # as written, its helpers in front: publishes with publish(channel, message)
    rendered: tuple[str, str] = field(init=False)  # the source run, by mode (CLASSIC, SHARDED)
    shas: tuple[str, str] = field(init=False)  # what EVALSHA names each by, hashed once

    def __post_init__(self) -> None:
        if _DIRECT_PUBLISH.search(self.source):
            raise ValueError(f"script {self.name!r} publishes directly: call publish(channel, "
                             "message) so that it also runs on a Redis Cluster")
        classic, sharded = (_PRELUDE.replace("{command}", command) + self.source
                            for command in PUBLISH_COMMANDS)
        object.__setattr__(self, "rendered", (classic, sharded))
        object.__setattr__(self, "shas", (_sha(classic), _sha(sharded)))


def _sha(source: str) -> str:
    return hashlib.sha1(source.encode()).hexdigest()


def _helpers(source: str, seen: list[str]) -> None:
    """The helpers ``source`` uses, those they use first, each once, into ``seen``."""
    for line in _USES.findall(source):
        for name in (n.strip() for n in line.split(",")):
            if name and name not in seen:
                _helpers((_LUA / "lib" / f"{name}.lua").read_text(), seen)
                if name not in seen:
                    seen.append(name)


def load(name: str) -> Script:
    """The script ``lua/{name}.lua``, its helpers in front."""
    source = (_LUA / f"{name}.lua").read_text()
    used: list[str] = []
    _helpers(source, used)
    helpers = "".join((_LUA / "lib" / f"{h}.lua").read_text() for h in used)
    return Script(name, helpers + source)


MOVE: Final = load("move")
MOVE_RANKED: Final = load("move_ranked")
COMMIT: Final = load("commit")
LOAD: Final = load("load")
SEAT: Final = load("seat")
ATTACH: Final = load("attach")
DETACH: Final = load("detach")
SINCE: Final = load("since")
STOP: Final = load("stop")
CLAIM_DUE: Final = load("claim_due")
CREATION: Final = load("creation")
HOLD: Final = load("hold")
MADE_BY: Final = load("made_by")
WINDOW: Final = load("window")
COUNTER: Final = load("counter")
RANKED: Final = load("ranked")
LIVE_COUNT: Final = load("live_count")
JOIN: Final = load("join")
LEAVE: Final = load("leave")
READY: Final = load("ready")
TICK: Final = load("tick")
NEAR: Final = load("near")
PAGE: Final = load("page")
FIND: Final = load("find")
T_REGISTER: Final = load("t_register")
T_PLAYER: Final = load("t_player")
T_OUT: Final = load("t_out")
T_COUNT: Final = load("t_count")
ROUND_SEAT: Final = load("round_seat")
ROUND_OUT: Final = load("round_out")
RELEASE: Final = load("release")
P_CREATE: Final = load("p_create")
P_IDENTIFY: Final = load("p_identify")
P_RENAME: Final = load("p_rename")
P_RECORD: Final = load("p_record")
P_MOVE: Final = load("p_move")
P_CLAIM: Final = load("p_claim")
P_FORGET: Final = load("p_forget")
P_LINK: Final = load("p_link")
BEGIN: Final = load("begin")
SEAT_OVER: Final = load("seat_over")
GHOSTS: Final = load("ghosts")
R_APPLY: Final = load("r_apply")

LIST_PUBLIC: Final = load("list_public")
UNLIST_PUBLIC: Final = load("unlist_public")
PUBLIC_PAGE: Final = load("public_page")
QUICK: Final = load("quick")
QUICK_LEFT: Final = load("quick_left")

ALL: Final = (MOVE, MOVE_RANKED, COMMIT, LOAD, SEAT, ATTACH, DETACH, SINCE, STOP, CLAIM_DUE,
              CREATION, HOLD, MADE_BY, WINDOW, COUNTER, RANKED, LIVE_COUNT, JOIN, LEAVE, READY, TICK,
              NEAR, PAGE,
              FIND, T_REGISTER, T_PLAYER, T_OUT, T_COUNT, ROUND_SEAT, ROUND_OUT, RELEASE, P_CREATE,
              P_IDENTIFY, P_RENAME, P_RECORD, P_MOVE, P_CLAIM, P_FORGET, P_LINK, LIST_PUBLIC,
              UNLIST_PUBLIC, PUBLIC_PAGE, QUICK, QUICK_LEFT, BEGIN, SEAT_OVER, GHOSTS, R_APPLY)
