"""Operating the server: configuration checked at start, the command line,
/healthz, /metrics and the web client's files, with real processes."""

from __future__ import annotations

import asyncio
import http.client
import json
import os
import re
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from harness import ROOT, Client, RedisServer, ServerProcess, Servers
from prometheus_client.parser import text_string_to_metric_families

from server.app.ground import config

OPERATIONS = (ROOT / "docs" / "operations.md").read_text()


# ---------------------------------------------------------------------- configuration

def start(args: list[str], env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("KLONDIKE_")}
    return subprocess.Popen([sys.executable, "-m", "server", *args], cwd=ROOT,
                            env={**clean, **(env or {})}, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def run(args: list[str], env: dict[str, str] | None = None,
        command: list[str] | None = None) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("KLONDIKE_")}
    return subprocess.run([*(command or [sys.executable, "-m", "server"]), *args], cwd=ROOT,
                          env={**clean, **(env or {})}, capture_output=True, text=True, timeout=60)


BAD_SETTINGS = [
    (["--port", "99999"], {}, "--port"),
    (["--port", "eighty"], {}, "--port"),
    ([], {"KLONDIKE_PORT": "-1"}, "KLONDIKE_PORT"),
    ([], {"KLONDIKE_PORT": "http"}, "KLONDIKE_PORT"),
    (["--redis-url", "http://localhost:6379"], {}, "--redis-url"),
    ([], {"KLONDIKE_REDIS_URL": "localhost:6379"}, "KLONDIKE_REDIS_URL"),
    (["--log-level", "loud"], {}, "--log-level"),
    (["--countdown", "-1"], {}, "--countdown"),
    ([], {"KLONDIKE_COUNTDOWN": "soon"}, "KLONDIKE_COUNTDOWN"),
    (["--finished-ttl", "0"], {}, "--finished-ttl"),
    (["--msg-rate", "0"], {}, "--msg-rate"),
    (["--durability", "paper"], {}, "--durability"),
    ([], {"KLONDIKE_REDIS_CLUSTER": "maybe"}, "KLONDIKE_REDIS_CLUSTER"),
    (["--solver-workers", "-1"], {}, "--solver-workers"),
    ([], {"KLONDIKE_WINNABLE_MODES": "D1N,D2N"}, "KLONDIKE_WINNABLE_MODES"),
]


def test_the_solver_options() -> None:
    cfg = config.parse(["--solver-workers", "2", "--winnable-modes", "d1n, D3N,d1n"],
                       env={"KLONDIKE_SOLVER_QUEUE": "0", "KLONDIKE_WINNABLE_POOL": "5"})
    assert (cfg.solver_workers, cfg.solver_queue, cfg.winnable_pool, cfg.winnable_modes) == (
        2, 0, 5, ("D1N", "D3N"))
    default = config.Config()
    assert (default.solver_workers, default.solver_queue, default.winnable_pool) == (1, 8, 20)
    assert default.winnable_modes == ("D1N", "D3N", "D1V", "D3V")


@pytest.fixture(scope="module")
def bad_setting_runs() -> Iterator[dict[str, subprocess.CompletedProcess[str]]]:
    """Every bad setting's start, run at once (each is a Python start-up)."""
    procs = {repr((args, env)): (args, start(["serve", *args], env)) for args, env, _ in BAD_SETTINGS}
    try:
        done = {}
        for key, (args, proc) in procs.items():
            out, err = proc.communicate(timeout=60)
            done[key] = subprocess.CompletedProcess(args, proc.returncode, out, err)
        yield done
    finally:
        for _, proc in procs.values():
            if proc.poll() is None:
                proc.kill()
                proc.wait()


@pytest.mark.parametrize(("args", "env", "named"), [
    pytest.param(*case, id=" ".join(case[0]) or " ".join(f"{k}={v}" for k, v in case[1].items()))
    for case in BAD_SETTINGS])
def test_a_bad_setting_stops_the_start_with_one_line(
        args: list[str], env: dict[str, str], named: str,
        bad_setting_runs: dict[str, subprocess.CompletedProcess[str]]) -> None:
    done = bad_setting_runs[repr((args, env))]
    assert done.returncode != 0
    assert done.stdout == ""  # it never said it was running
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert "Traceback" not in done.stderr
    assert lines[0].startswith("klondike-race: bad value ") and named in lines[0]


def test_the_command_line_wins_over_the_environment() -> None:
    cfg = config.parse(["--port", "9001", "--log-level", "WARNING"],
                       env={"KLONDIKE_PORT": "oops", "KLONDIKE_COUNTDOWN": "1.5",
                            "KLONDIKE_REDIS_URL": "redis://r:6379/0"})
    assert (cfg.port, cfg.log_level, cfg.countdown, cfg.redis_url) == (
        9001, "warning", 1.5, "redis://r:6379/0")
    assert config.parse([], env={}) == config.Config()


@pytest.mark.parametrize(("argv", "env", "said"), [
    (["--redis-cluster"], {}, "--redis-cluster needs --redis-url"),
    (["--redis-cluster", "--redis-url", "unix:///tmp/r.sock"], {}, "redis:// or rediss://"),
    ([], {"KLONDIKE_REDIS_CLUSTER": "1", "KLONDIKE_REDIS_URL": "redis://r:6379/2"}, "database 0"),
    (["--durability", "replica"], {}, "the embedded Redis has none"),
])
def test_settings_that_do_not_go_together_are_refused(
        argv: list[str], env: dict[str, str], said: str) -> None:
    with pytest.raises(config.ConfigError, match=re.escape(said)):
        config.parse(argv, env=env)


def test_cluster_and_durability_settings_from_the_command_line_or_the_environment() -> None:
    assert config.parse([], env={}).redis_cluster is False
    cfg = config.parse(["--redis-cluster", "--redis-url", "redis://n1:7000", "--durability", "FSYNC"],
                       env={})
    assert (cfg.redis_cluster, cfg.durability) == (True, "fsync")
    cfg = config.parse([], env={"KLONDIKE_REDIS_CLUSTER": "yes", "KLONDIKE_DURABILITY": "replica",
                                "KLONDIKE_REDIS_URL": "redis://n1:7000/0"})
    assert (cfg.redis_cluster, cfg.durability) == (True, "replica")
    assert config.parse([], env={"KLONDIKE_REDIS_CLUSTER": "0"}).redis_cluster is False


def test_a_data_dir_in_use_by_another_server_is_refused(tmp_path: Path, servers: Servers) -> None:
    data = tmp_path / "data"
    servers.start(None, args=["--data-dir", str(data)])
    done = run(["serve", "--port", "0", "--data-dir", str(data)])
    assert done.returncode != 0 and done.stdout == ""
    assert "Traceback" not in done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("klondike-race: ") and "in use by another server" in last


def test_a_taken_port_is_one_line_not_a_traceback(redis_server: RedisServer, servers: Servers) -> None:
    first = servers.start(redis_server.url)
    done = run(["serve", "--port", str(first.port), "--redis-url", redis_server.url])
    assert done.returncode != 0 and done.stdout == ""
    assert "Traceback" not in done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("klondike-race: ") and "address already in use" in last


# ---------------------------------------------------------------------- the command line

def test_help_lists_the_commands_with_a_line_each() -> None:
    top = run(["--help"])
    assert top.returncode == 0
    assert re.search(r"^ +serve +serve the web client and the game on one port$", top.stdout, re.MULTILINE)
    assert re.search(r"^ +solve +say whether a deal can be won", top.stdout, re.MULTILINE)


def test_serve_help_gives_every_option_its_unit_or_choices_its_default_and_its_variable() -> None:
    done = run(["serve", "--help"])
    assert done.returncode == 0
    # each option's entry, its lines as wrapped to the terminal joined again
    entries = {m[1]: " ".join(m[0].split()) for m in re.finditer(
        r"^  (--[a-z-]+)[^\n]*(?:\n {3,}[^\n]*)*", done.stdout, re.MULTILINE)}
    for option in config.OPTIONS:
        form = "{" + ",".join(option.choices) + "}" if option.choices else option.metavar
        entry = entries[option.option]
        assert entry.startswith(f"{option.option} {form} " if not option.flag else f"{option.option} "), entry
        assert entry.endswith(" ".join(config.help_line(option).split())), entry
        assert f"[default: {option.default_text()}]" in entry and f"[env: {option.env}" in entry
    assert entries["--durability"].startswith("--durability {os,fsync,replica} what an acknowledged")
    assert entries["--log-level"].startswith("--log-level {debug,info,warning,error} ")
    assert entries["--countdown"].endswith("[default: 3] [env: KLONDIKE_COUNTDOWN]")  # the Config's own
    # every setting a Config has is an option, but two the code alone sets
    assert {o.name for o in config.OPTIONS} == set(config.Config.__dataclass_fields__) - {
        "event_cap", "max_frame"}


def test_the_operations_doc_lists_the_options_of_serve_help() -> None:
    start = OPERATIONS.index("| option | environment variable | default | what |")
    table = OPERATIONS[start:OPERATIONS.index("\n\n", start) + 1]
    assert table == config.markdown_table(), (
        "docs/operations.md's option table is server.app.ground.config.markdown_table():\n"
        + config.markdown_table())


def test_the_console_script_is_installed() -> None:
    script = Path(sys.executable).parent / "klondike-race"
    assert script.is_file() and os.access(script, os.X_OK)
    done = run(["--help"], command=[str(script)])
    assert done.returncode == 0 and done.stdout.startswith("usage: klondike-race")


# ---------------------------------------------------------------------- HTTP

def get(server: ServerProcess, path: str, *, port: int | None = None
        ) -> tuple[int, dict[str, str], bytes]:
    """GET ``path`` exactly as written (no client-side normalisation), of the
    players' port (or ``port``)."""
    conn = http.client.HTTPConnection("127.0.0.1", port or server.port, timeout=10)
    try:
        conn.request("GET", path)
        resp = conn.getresponse()
        return resp.status, {k.lower(): v for k, v in resp.getheaders()}, resp.read()
    finally:
        conn.close()


def metrics_port(server: ServerProcess) -> int:
    """The port of the server's ``--metrics-address``."""
    return int(server.metrics_url.rsplit(":", 1)[1].split("/")[0])


@pytest.fixture
def one(server: ServerProcess) -> ServerProcess:
    """The module's server (only the metrics test opens sockets to it)."""
    return server


@pytest.fixture
async def ann(one: ServerProcess) -> AsyncIterator[Client]:
    client = await Client.open(one.ws_url, "ann")
    yield client
    await client.close()


def metrics(server: ServerProcess) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    status, headers, body = get(server, "/metrics", port=metrics_port(server))
    assert status == 200 and headers["content-type"].startswith("text/plain; version=0.0.4")
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(body.decode()) for s in family.samples}


def value(samples: dict[tuple[str, tuple[tuple[str, str], ...]], float], name: str, **labels: str) -> float:
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


def test_metrics_answer_on_their_own_address_and_not_on_the_players_port(one: ServerProcess) -> None:
    """/metrics is the operator's (--metrics-address): the port everyone
    reaches answers it 404, as a page it has not."""
    status, _, body = get(one, "/metrics")
    assert status == 404 and json.loads(body)["error"] == "not_found"
    status, _, body = get(one, "/metrics", port=metrics_port(one))
    assert status == 200 and b"klondike_connections" in body
    status, _, body = get(one, "/healthz", port=metrics_port(one))  # nothing else there
    assert status == 404 and json.loads(body)["error"] == "not_found"


def test_the_operations_doc_names_exactly_the_metrics_served(one: ServerProcess) -> None:
    status, _, body = get(one, "/metrics", port=metrics_port(one))
    assert status == 200
    served = {family.name for family in text_string_to_metric_families(body.decode())
              if not family.name.endswith("_created")}  # the client library's start times
    documented = {re.sub(r"_total$", "", name) for name in re.findall(r"`(klondike_\w+)", OPERATIONS)}
    assert served == documented


def test_healthz_says_ok_in_json_while_redis_answers(one: ServerProcess) -> None:
    status, headers, body = get(one, "/healthz")
    assert headers["content-type"] == "application/json"
    report = json.loads(body)
    assert (status, report["status"]) == (200, "ok"), report
    assert "reasons" not in report and report["redis_memory"]["creations"] == "open"


async def test_metrics_count_connections_rooms_moves_and_latency(one: ServerProcess, ann: Client) -> None:
    names = {name for name, _ in metrics(one)}
    for name in ("klondike_connections", "klondike_rooms", "klondike_moves_accepted_total",
                 "klondike_move_seconds_bucket", "klondike_move_seconds_count",
                 "klondike_redis_seconds_bucket", "klondike_redis_seconds_count"):
        assert name in names, name
    before = await asyncio.to_thread(metrics, one)
    assert value(before, "klondike_connections") == 1

    await ann.solo(nickname="ann", code="KL1-D1N-AAAAAAA")
    await ann.expect("board")
    assert (await ann.move("t7>f"))["t"] == "ack"
    illegal = await ann.move("t1>t2")
    assert illegal["t"] == "reject" and illegal["d"]["code"] == "illegal_move"
    bad = await ann.move("t9>t1")
    assert bad["t"] == "reject" and bad["d"]["code"] == "bad_notation"

    after = await asyncio.to_thread(metrics, one)
    assert value(after, "klondike_connections") == 1
    assert value(after, "klondike_rooms") == value(before, "klondike_rooms") + 1
    assert value(after, "klondike_moves_accepted_total") == value(
        before, "klondike_moves_accepted_total") + 1
    for reason in ("illegal_move", "bad_notation"):
        assert value(after, "klondike_moves_rejected_total", reason=reason) == value(
            before, "klondike_moves_rejected_total", reason=reason) + 1
    assert value(after, "klondike_move_seconds_count") == value(before, "klondike_move_seconds_count") + 1
    assert value(after, "klondike_move_seconds_bucket", le="+Inf") == value(
        after, "klondike_move_seconds_count")
    assert value(after, "klondike_redis_seconds_count") > value(before, "klondike_redis_seconds_count")
    assert value(after, "klondike_commands_total", type="move") == value(
        before, "klondike_commands_total", type="move") + 3

    await ann.close()
    final = await asyncio.to_thread(metrics, one)
    assert value(final, "klondike_connections") == 0


# ---------------------------------------------------------------------- the web client's files

INDEX = (ROOT / "web_client" / "index.html").read_bytes()


def unversioned(page: bytes) -> bytes:
    """index.html as written: without the import map, the preload hints and the
    files' hashes that the server adds (tests/app/edge/test_http.py)."""
    page = re.sub(rb'<script type="importmap">.*?</script>\n', b"", page, flags=re.S)
    page = re.sub(rb'<link rel="modulepreload" href="[^"]+">\n', b"", page)
    return re.sub(rb"\?v=[0-9a-f]{20}", b"", page)


@pytest.mark.parametrize("path", ["/", "/r/ABCD2345", "/r/abcd2345?x=1", "/index.html"])
def test_the_web_client_is_served_for_its_pages(one: ServerProcess, path: str) -> None:
    status, headers, body = get(one, path)
    assert status == 200 and unversioned(body) == INDEX and body != INDEX
    assert headers["content-type"] == "text/html; charset=utf-8"
    assert headers["x-content-type-options"] == "nosniff"


def test_a_missing_file_is_404(one: ServerProcess) -> None:
    status, _, body = get(one, "/nope.js")
    assert status == 404 and unversioned(body) != INDEX


@pytest.mark.parametrize("path", [
    "/../pyproject.toml", "/../../etc/passwd", "/r/../../pyproject.toml", "/%2e%2e/pyproject.toml",
    "/%2e%2e%2fpyproject.toml", "/..%2fpyproject.toml", "/%2E%2E/%2E%2E/etc/passwd",
    "/web_client/../../pyproject.toml", "//etc/passwd", "/..\\pyproject.toml",
])
def test_no_path_leaves_the_web_client_folder(one: ServerProcess, path: str) -> None:
    status, _, body = get(one, path)
    assert status in (400, 404) or unversioned(body) == INDEX, (status, body[:80])
    assert b"[project]" not in body and b"root:" not in body


def test_static_dir_serves_another_folder_and_must_hold_an_index(
        tmp_path: Path, redis_server: RedisServer, servers: Servers) -> None:
    refused = run(["serve", "--static-dir", str(tmp_path)])
    assert refused.returncode == 2
    assert refused.stderr.strip().endswith("not a folder with an index.html")
    assert len(refused.stderr.strip().splitlines()) == 1
    (tmp_path / "index.html").write_text("<p>another client</p>")
    server = servers.start(redis_server.url, args=["--static-dir", str(tmp_path)])
    status, _, body = get(server, "/r/ABCDEFGH")
    assert (status, body) == (200, b"<p>another client</p>")
