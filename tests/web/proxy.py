"""A TCP proxy between the browser and a server, for losing the connection on purpose.

``pause()`` holds what the browser sends (and new connections) without
failing anything; ``cut()`` drops every connection at once, like a network
that went away; ``resume()`` lets everything through again. It runs its own
event loop in a thread, so synchronous Playwright tests can drive it.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from typing import Any


class Proxy:
    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="test-proxy", daemon=True)
        self.port = 0
        self.connections = 0
        self._writers: set[asyncio.StreamWriter] = set()
        self._open: asyncio.Event | None = None
        self._server: asyncio.Server | None = None

    def _call(self, coro: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(10)

    def start(self) -> Proxy:
        self.thread.start()
        self._call(self._start())
        return self

    async def _start(self) -> None:
        self._open = asyncio.Event()
        self._open.set()
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def pause(self) -> None:
        self._call(self._set(False))

    def resume(self) -> None:
        self._call(self._set(True))

    async def _set(self, open_: bool) -> None:
        assert self._open is not None
        if open_:
            self._open.set()
        else:
            self._open.clear()

    def cut(self) -> None:
        """Drop every connection (a reset, no goodbye)."""
        self._call(self._cut())

    async def _cut(self) -> None:
        for writer in list(self._writers):
            writer.transport.abort()
        self._writers.clear()

    async def _handle(self, client_r: asyncio.StreamReader, client_w: asyncio.StreamWriter) -> None:
        assert self._open is not None
        self._writers.add(client_w)
        try:
            await self._open.wait()
            server_r, server_w = await asyncio.open_connection("127.0.0.1", self.target_port)
        except OSError:
            client_w.transport.abort()
            return
        self.connections += 1
        self._writers.add(server_w)
        await asyncio.gather(self._pipe(client_r, server_w, held=True), self._pipe(server_r, client_w),
                             return_exceptions=True)

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, *,
                    held: bool = False) -> None:
        assert self._open is not None
        try:
            while data := await reader.read(65536):
                if held:
                    await self._open.wait()
                if writer.transport.is_closing():
                    break
                writer.write(data)
                await writer.drain()
        except (ConnectionError, OSError):
            pass
        finally:
            self._writers.discard(writer)
            with contextlib.suppress(Exception):
                writer.transport.abort()

    def close(self) -> None:
        async def stop() -> None:
            await self._cut()
            if self._server is not None:
                self._server.close()

        with contextlib.suppress(Exception):
            self._call(stop())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)
        self.loop.close()
