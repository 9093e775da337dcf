"""Which of Redis's error replies are Redis's trouble (answered
``unavailable``) and which are bugs (``internal``), from the replies' texts
as Redis sends them, parsed by redis-py as the store's connections parse
them. The app-level tests (tests/app/root/test_redis_trouble.py) put real
redis-servers in most of these states; LOADING and the auth errors are
pinned here."""

from __future__ import annotations

import pytest
from redis._parsers.base import BaseParser
from redis.exceptions import TimeoutError as RedisTimeoutError

from server.store.batch import trouble_of


@pytest.mark.parametrize(("reply", "kind"), [
    ("OOM command not allowed when used memory > 'maxmemory'.", "oom"),
    ("OOM command not allowed when used memory > 'maxmemory'. script: 2d52c0, on @user_script:34.",
     "oom"),
    ("READONLY You can't write against a read only replica.", "readonly"),
    ("LOADING Redis is loading the dataset in memory", "loading"),
    ("MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'.",
     "masterdown"),
    ("BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.",
     "busy"),
    ("MISCONF Redis is configured to save RDB snapshots, but it's currently unable to persist "
     "to disk.", "misconf"),
    ("NOREPLICAS Not enough good replicas to write.", "noreplicas"),
    ("NOAUTH Authentication required.", "auth"),
    ("WRONGPASS invalid username-password pair or user is disabled.", "auth"),
    ("NOPERM User default has no permissions to run the 'evalsha' command", "auth"),
    ("ERR max number of clients reached", "maxclients"),
])
def test_each_error_reply_of_redis_s_trouble_is_a_kind_of_unavailable(reply: str, kind: str) -> None:
    assert trouble_of(BaseParser.parse_error(reply)) == kind


@pytest.mark.parametrize("reply", [
    "WRONGTYPE Operation against a key holding the wrong kind of value",
    "ERR Error running script (call to f_0123): @user_script:3: user_script:3: bad argument",
    "ERR wrong number of arguments for 'hset' command",
    "NOSCRIPT No matching script. Please use EVAL.",  # answered by sending the script
    "MOVED 3999 127.0.0.1:6381",  # the cluster router's to follow
    "ASK 3999 127.0.0.1:6381",
    "TRYAGAIN Multiple keys request during rehashing of slot",
    "CLUSTERDOWN The cluster is down",
])
def test_other_error_replies_are_bugs_or_the_routers_not_trouble(reply: str) -> None:
    assert trouble_of(BaseParser.parse_error(reply)) is None


def test_a_lost_connection_and_a_timeout_are_trouble_too() -> None:
    assert trouble_of(ConnectionResetError("reset by peer")) == "connection"
    assert trouble_of(RedisTimeoutError("Timeout reading from socket")) == "timeout"
    assert trouble_of(TimeoutError()) == "timeout"
