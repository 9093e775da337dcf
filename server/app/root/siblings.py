"""The workers of one ``serve --workers N`` answer ``/metrics`` and ``/healthz``
for the whole server, whichever of them the kernel handed the request to.

The port is shared (``SO_REUSEPORT``): a scrape or a health check lands on
any worker, so a worker answering only for itself would make every figure
jump from one scrape to the next. Instead each worker listens on a unix
socket of its own in the supervisor's private folder (:class:`WorkerSpec`'s
``rundir``, mode 700) and, asked for ``/metrics`` or ``/healthz``, asks its
siblings there (a line ``metrics`` or ``health``; the answer, then EOF):

- ``/metrics``: every worker's own figures, each sample labelled
  ``worker="i"``, then the server-wide ones (the embedded Redis's) once,
  unlabelled (:mod:`.metrics`). One scrape target, as with one process;
  the merge is made once at a time and given again for a second.
- ``/healthz``: degraded (503) when any worker is, or did not answer within
  ``ASK_TIMEOUT`` (restarting, or stuck): each reason names its ``worker``,
  and ``workers`` lists each one's status.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import orjson
import structlog
from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.metrics_core import Metric
from prometheus_client.parser import text_string_to_metric_families

from ..ground.metrics import Metrics

log = structlog.get_logger("app.root.siblings")

ASK_TIMEOUT: Final = 2.0  # s a sibling has to answer
MERGED_FOR: Final = 1.0  # s a merge of the workers' metrics is given again

Report = tuple[bool, dict[str, Any]]


@dataclass(frozen=True, slots=True)
class WorkerSpec:
    """Who a worker is among the workers of one server (sent to it at its start)."""

    index: int
    count: int
    rundir: Path  # the supervisor's private folder: the workers' sockets
    embedded: bool  # the Redis is the supervisor's embedded one

    def socket(self, index: int) -> Path:
        return self.rundir / f"worker-{index}.sock"


class Siblings:
    """This worker's socket for its siblings, and its questions to them."""

    def __init__(self, spec: WorkerSpec, metrics: Metrics,
                 health: Callable[[], Awaitable[Report]]) -> None:
        self.spec = spec
        self._metrics = metrics
        self._health = health
        self._server: asyncio.Server | None = None
        self._merged: tuple[float, bytes] | None = None  # (when, text): the latest merge
        self._merging: asyncio.Task[bytes] | None = None  # the merge under way

    async def start(self) -> None:
        path = self.spec.socket(self.spec.index)
        with contextlib.suppress(FileNotFoundError):
            path.unlink()  # left by this worker's predecessor
        self._server = await asyncio.start_unix_server(self._answer, path=str(path))

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
            with contextlib.suppress(OSError):
                self.spec.socket(self.spec.index).unlink()

    async def _answer(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            async with asyncio.timeout(ASK_TIMEOUT):
                question = (await reader.readline()).strip()
                if question == b"metrics":
                    writer.write(self._metrics.render())
                elif question == b"health":
                    writer.write(orjson.dumps(await self._health()))
                await writer.drain()
        except (OSError, TimeoutError):
            pass
        finally:
            writer.close()
            with contextlib.suppress(OSError):
                await writer.wait_closed()

    async def _ask(self, index: int, question: bytes) -> bytes | None:
        """A sibling's answer, or ``None`` if it gave none in time."""
        writer: asyncio.StreamWriter | None = None
        try:
            async with asyncio.timeout(ASK_TIMEOUT):
                reader, writer = await asyncio.open_unix_connection(str(self.spec.socket(index)))
                writer.write(question + b"\n")
                await writer.drain()
                return await reader.read()  # to its end: the sibling closes once it has answered
        except (OSError, TimeoutError):
            return None
        finally:
            if writer is not None:
                writer.close()

    async def _everyone(self, question: bytes, own: Callable[[], Awaitable[bytes]]
                        ) -> list[bytes | None]:
        """Each worker's answer, in index order (this one's without a socket)."""
        return list(await asyncio.gather(*(
            own() if i == self.spec.index else self._ask(i, question)
            for i in range(self.spec.count))))

    # ------------------------------------------------------------------ /metrics

    async def metrics(self) -> bytes:
        """Every worker's figures, merged: at most one merge at a time (a
        scrape during one waits for it) and one a second (a scrape within
        :data:`MERGED_FOR` of the last gets it again): however often
        ``/metrics`` is asked, this worker asks its siblings and parses their
        text about once a second, beside the moves it answers."""
        now = asyncio.get_running_loop().time()
        if self._merged is not None and now - self._merged[0] < MERGED_FOR:
            return self._merged[1]
        if self._merging is None:
            self._merging = asyncio.create_task(self._merge(), name="merge-metrics")
        return await asyncio.shield(self._merging)

    async def _merge(self) -> bytes:
        try:
            text = await self._merge_now()
            self._merged = (asyncio.get_running_loop().time(), text)
            return text
        finally:
            self._merging = None

    async def _merge_now(self) -> bytes:
        async def own() -> bytes:
            return self._metrics.render()
        texts = await self._everyone(b"metrics", own)
        families: dict[str, Metric] = {}
        for index, text in enumerate(texts):
            if not text:
                continue
            try:
                parsed = list(text_string_to_metric_families(text.decode()))
            except ValueError:
                log.warning("sibling_metrics_unreadable", sibling=index)
                continue
            for family in parsed:
                merged = families.get(family.name)
                if merged is None:
                    merged = families[family.name] = Metric(
                        family.name, family.documentation, family.type, family.unit)
                merged.samples.extend(s._replace(labels={**s.labels, "worker": str(index)})
                                      for s in family.samples)
        registry = CollectorRegistry(auto_describe=False)
        registry.register(_Families(list(families.values())))
        return generate_latest(registry) + self._metrics.render_server_wide()

    # ------------------------------------------------------------------ /healthz

    async def health(self) -> Report:
        async def own() -> bytes:
            return orjson.dumps(await self._health())
        answers = await self._everyone(b"health", own)
        reasons: list[dict[str, Any]] = []
        workers: list[dict[str, Any]] = []
        faults: dict[str, int] = {}
        body: dict[str, Any] = {}
        for index, answer in enumerate(answers):
            report = _report(answer)
            if report is None:
                workers.append({"worker": index, "status": "down"})
                reasons.append({"what": "worker", "kind": "down", "worker": index,
                                "detail": "this worker did not answer: restarting, or stuck"})
                continue
            _, theirs = report
            workers.append({"worker": index, "status": theirs.get("status", "?")})
            reasons.extend({**reason, "worker": index} for reason in theirs.get("reasons", []))
            for where, count in theirs.get("faults", {}).items():
                faults[where] = faults.get(where, 0) + int(count)
            if index == self.spec.index:
                body = theirs
        out: dict[str, Any] = {"status": "degraded" if reasons else "ok"}
        if reasons:
            out["reasons"] = reasons
        if "redis_memory" in body:  # the one Redis they share: as this worker sees it
            out["redis_memory"] = body["redis_memory"]
        if faults:
            out["faults"] = faults
        out["worker"] = self.spec.index
        out["workers"] = workers
        return not reasons, out


def _report(answer: bytes | None) -> Report | None:
    if not answer:
        return None
    try:
        ok, body = orjson.loads(answer)
    except (orjson.JSONDecodeError, TypeError, ValueError):
        return None
    return (bool(ok), body) if isinstance(body, dict) else None


class _Families:
    """A collector of families already gathered."""

    def __init__(self, families: list[Metric]) -> None:
        self._families = families

    def collect(self) -> list[Metric]:
        return self._families
