"""Helpers for the players' tests: identifying a connection, reading a
player's history and public profile, and a game played to its end."""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request
from typing import Any

from harness import Client, ServerProcess, eventually

from server.klondike import Game


async def identify(client: Client, key: str | None = None, nickname: str | None = None
                   ) -> dict[str, Any]:
    """``identify`` (with ``key``, or as a new player); the ``player`` frame."""
    d: dict[str, Any] = {}
    if key is not None:
        d["key"] = key
    if nickname is not None:
        d["nickname"] = nickname
    await client.send("identify", d)
    return await client.expect("player")


async def refused(client: Client, t: str, d: dict[str, Any] | None = None) -> dict[str, Any]:
    """Send ``t``; its ``reject``."""
    await client.send(t, d)
    return await client.expect("reject", lambda r: r["cmd"] == t)


async def history(client: Client, first: int = 1, count: int = 20) -> dict[str, Any]:
    await client.send("p_history", {"first": first, "count": count})
    return await client.expect("p_history")


async def history_of(client: Client, count: int, *, at_least: int | None = None
                     ) -> list[dict[str, Any]]:
    """The newest results once the history holds ``at_least`` (default
    ``count``): a race's results are recorded just after its end."""
    want = count if at_least is None else at_least

    async def enough() -> list[dict[str, Any]] | None:
        page = await history(client, 1, count)
        return page["results"] if page["of"] >= want else None

    return list(await eventually(enough, what=f"{client.name}: {want} results"))


async def public(server: ServerProcess, player_id: str) -> tuple[int, dict[str, Any]]:
    """``GET /api/players/{id}``: its status and JSON."""
    def get() -> tuple[int, dict[str, Any]]:
        try:
            with urllib.request.urlopen(f"{server.http_url}/api/players/{player_id}",
                                        timeout=5) as resp:
                return int(resp.status), json.loads(resp.read())
        except urllib.error.HTTPError as exc:
            with exc:
                return exc.code, json.loads(exc.read())
    return await asyncio.to_thread(get)


async def play_solo(client: Client, code: str, moves: list[str], *, resign: bool,
                    nickname: str = "ann") -> None:
    """A solo game of ``code``: ``moves`` acknowledged, then resigned or not
    (the moves win it)."""
    await client.solo(nickname=nickname, code=code)
    await client.expect("board")
    client.seq = 0
    game = Game(code)
    for m in moves:
        ack = await client.move(m)
        assert ack["t"] == "ack", ack
        game.push(m)
    if resign:
        assert (await client.command("resign"))["t"] == "ack"
    await client.event("ended")
