"""Scripted players beside the browsers: plain websocket clients (harness.Client)
on an event loop of their own in a thread, so that a synchronous Playwright
test can fill a big room and play in it. Each call waits for its answers."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine, Sequence
from concurrent.futures import Future
from typing import Any, TypeVar

from harness import Client

T = TypeVar("T")


class Crowd:
    def __init__(self, ws_url: str) -> None:
        self.ws_url = ws_url
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="test-crowd", daemon=True)
        self.thread.start()
        self.clients: list[Client] = []

    def run(self, coro: Coroutine[Any, Any, T], timeout: float = 60) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def open(self, name: str) -> Client:
        async def go() -> Client:
            client = await Client.open(self.ws_url, name)
            self.clients.append(client)
            return client
        return self.run(go())

    def join(self, room: str, names: Sequence[str]) -> list[Client]:
        """Seat one player per nickname, one after the other."""
        async def go() -> list[Client]:
            out = []
            for name in names:
                client = await Client.open(self.ws_url, name)
                self.clients.append(client)
                await client.join(room, name)
                out.append(client)
            return out
        return self.run(go())

    def ready(self, players: Sequence[Client]) -> None:
        async def go() -> None:
            for p in players:
                await p.send("ready", {"ready": True})
        self.run(go())

    def boards(self, players: Sequence[Client]) -> None:
        """Wait until each player has its board (the race has begun)."""
        async def go() -> None:
            await asyncio.gather(*(p.expect("board", timeout=30) for p in players))
        self.run(go())

    def play(self, players: Sequence[tuple[Client, Sequence[str]]], *,
             resign: Sequence[Client] = ()) -> Future[None]:
        """Each player plays their moves, each once the one before is
        acknowledged, all at the same time; then those in ``resign`` resign.
        Returns at once: the future says when it is all done."""
        async def one(client: Client, moves: Sequence[str]) -> None:
            for m in moves:
                answer = await client.move(m)
                assert answer["t"] == "ack", f"{client.name}: {m} refused: {answer}"
            if client in resign:
                answer = await client.command("resign")
                assert answer["t"] == "ack", f"{client.name}: resign refused: {answer}"

        async def go() -> None:
            await asyncio.gather(*(one(c, ms) for c, ms in players))
        return asyncio.run_coroutine_threadsafe(go(), self.loop)

    def resign(self, players: Sequence[Client]) -> None:
        async def go() -> None:
            for p in players:
                answer = await p.command("resign")
                assert answer["t"] == "ack", f"{p.name}: resign refused: {answer}"
        self.run(go())

    def ask(self, client: Client, t: str, d: dict[str, Any], answer: str) -> dict[str, Any]:
        """Send a command and return its answer (a frame of type ``answer``)."""
        async def go() -> dict[str, Any]:
            await client.send(t, d)
            return await client.expect(answer)
        return self.run(go())

    def close(self) -> None:
        async def go() -> None:
            for client in self.clients:
                await client.close()
        try:
            self.run(go(), timeout=20)
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self.thread.join(5)
            self.loop.close()
