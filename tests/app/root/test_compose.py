"""compose.yaml and the Dockerfile, checked without Docker: their services,
ports, volumes and healthchecks, and that they agree with each other and with
the server's real options (the healthcheck command is run against a real
server). The profile "cluster" (a 3-node Redis Cluster and two server
processes) is also run: its nodes' commands, its init script and its apps'
settings, with redis-server and the server on this machine."""

from __future__ import annotations

import asyncio
import fnmatch
import json
import os
import re
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest
import yaml
from harness import ROOT, Client, RedisServer, ServerProcess, Servers, free_port, wait_until

from server.app.ground import config

COMPOSE: dict[str, Any] = yaml.safe_load((ROOT / "compose.yaml").read_text())
SERVICES: dict[str, dict[str, Any]] = COMPOSE["services"]
APPS = {name: s for name, s in SERVICES.items() if "build" in s}
PLAIN_APPS = {name: s for name, s in APPS.items() if "profiles" not in s}
CLUSTER = {name: s for name, s in SERVICES.items() if "cluster" in s.get("profiles", ())}
CLUSTER_NODES = {name: s for name, s in CLUSTER.items() if s.get("command", [""])[0] == "redis-server"}
CLUSTER_APPS = {name: s for name, s in CLUSTER.items() if "build" in s}
DOCUMENTED_ENV = {option.env for option in config.OPTIONS}


def dockerfile() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) of the Dockerfile, continuations joined, comments dropped."""
    out: list[tuple[str, str]] = []
    pending = ""
    for raw in (ROOT / "Dockerfile").read_text().splitlines():
        stripped = raw.strip()
        if not pending and (not stripped or stripped.startswith("#")):
            continue
        if stripped.endswith("\\"):
            pending += stripped[:-1] + " "
            continue
        text = pending + stripped
        pending = ""
        word, _, rest = text.partition(" ")
        out.append((word.upper(), rest.strip()))
    assert not pending, "a continuation line ends the Dockerfile"
    return out


DOCKERFILE = dockerfile()


def instructions(name: str) -> list[str]:
    return [args for word, args in DOCKERFILE if word == name]


def exec_form(args: str) -> list[str]:
    """An exec-form (JSON array) argument list; the shell form is refused."""
    assert args.startswith("["), f"not exec form (signals would go to a shell): {args}"
    value = json.loads(args)
    assert isinstance(value, list) and all(isinstance(x, str) for x in value)
    return value


def dockerfile_env() -> dict[str, str]:
    env: dict[str, str] = {}
    for args in instructions("ENV"):
        for item in shlex.split(args):
            key, eq, value = item.partition("=")
            assert eq, f"ENV without '=': {args}"
            env[key] = value
    return env


def image_healthcheck() -> list[str]:
    [args] = instructions("HEALTHCHECK")
    _, cmd, rest = args.partition("CMD ")
    assert cmd, args
    return exec_form(rest.strip())


def container_port() -> int:
    """The players' port: the first the image exposes (the second is /metrics')."""
    exposed = instructions("EXPOSE")[0]
    return int(exposed.split("/")[0])


def seconds(text: str) -> float:
    total = 0.0
    for number, unit in re.findall(r"(\d+(?:\.\d+)?)(ms|s|m|h)", text):
        total += float(number) * {"ms": 0.001, "s": 1, "m": 60, "h": 3600}[unit]
    return total


# ---------------------------------------------------------------------- compose.yaml

def test_redis_keeps_its_data_in_a_named_volume_with_aof_on() -> None:
    redis = SERVICES["redis"]
    assert redis["image"] == "redis:7" or redis["image"].startswith("redis:7.")
    command = redis["command"]
    assert command[0] == "redis-server"
    assert command[command.index("--appendonly") + 1] == "yes"
    volumes = [v.split(":") for v in redis["volumes"]]
    assert [target for _, target in volumes] == ["/data"]
    [(volume, _)] = volumes
    assert volume in COMPOSE["volumes"], "a named volume, not a host folder"
    assert redis["healthcheck"]["test"] == ["CMD", "redis-cli", "ping"]
    assert "ports" not in redis, "Redis stays inside the compose network"


def test_every_app_waits_for_a_healthy_redis_and_is_reachable() -> None:
    assert "app" in PLAIN_APPS and len(PLAIN_APPS) >= 2, "the app, and a second to show several processes"
    host_ports = []
    for name, app in APPS.items():
        assert app["build"] == ".", name
        if name in PLAIN_APPS:
            assert app["depends_on"]["redis"]["condition"] == "service_healthy", name
        else:
            assert app["depends_on"] == {
                "redis-cluster-init": {"condition": "service_completed_successfully"}}, name
        for port in app["ports"]:
            assert isinstance(port, str), f"{name}: quote ports (YAML 1.1 reads 22:22 as a number)"
            host, target = port.split(":")
            assert int(target) == container_port(), name
            host_ports.append(host)
        url = urlparse(app["environment"]["KLONDIKE_REDIS_URL"])
        assert url.scheme == "redis" and url.hostname in SERVICES and url.port == 6379, name
        assert seconds(app["stop_grace_period"]) >= 10, f"{name}: time to drain on SIGTERM"
    assert "8080:8080" in APPS["app"]["ports"]
    assert len(host_ports) == len(set(host_ports)), "two services on one host port"


# ---------------------------------------------------------------------- the profile "cluster"

def option(command: list[str], name: str) -> str:
    assert command.count(name) == 1, f"{name} in {command}"
    return command[command.index(name) + 1]


def test_the_cluster_profile_has_three_nodes_that_name_themselves() -> None:
    assert len(CLUSTER_NODES) == 3 and len(CLUSTER_APPS) == 2
    for name, node in CLUSTER_NODES.items():
        command = node["command"]
        assert node["image"] == SERVICES["redis"]["image"], name
        assert option(command, "--cluster-enabled") == "yes"
        assert option(command, "--appendonly") == "yes"
        assert option(command, "--port") == "6379"
        # what CLUSTER SLOTS and MOVED tell clients: the service name, which the network resolves
        assert option(command, "--cluster-announce-hostname") == name
        assert option(command, "--cluster-preferred-endpoint-type") == "hostname"
        [volume] = node["volumes"]
        source, target = volume.split(":")
        assert target == "/data" and source in COMPOSE["volumes"], "a named volume per node"
        assert node["healthcheck"]["test"] == ["CMD", "redis-cli", "ping"]
        assert "ports" not in node, "the cluster stays inside the compose network"
    volumes = [n["volumes"][0].split(":")[0] for n in CLUSTER_NODES.values()]
    assert len(set(volumes)) == 3


def test_the_cluster_is_made_once_from_every_node_and_the_apps_wait_for_it() -> None:
    init = SERVICES["redis-cluster-init"]
    assert init["profiles"] == ["cluster"] and init["restart"] == "no"
    assert init["depends_on"] == {n: {"condition": "service_healthy"} for n in CLUSTER_NODES}
    assert init["environment"]["NODES"].split() == [f"{n}:6379" for n in CLUSTER_NODES]
    assert init["command"][:2] == ["sh", "-c"]
    nodes_named = set()
    for name, app in CLUSTER_APPS.items():
        env = {k: str(v) for k, v in app["environment"].items()}
        cfg = config.load(None, env)
        assert cfg.redis_cluster, name
        url = urlparse(env["KLONDIKE_REDIS_URL"])
        assert url.hostname in CLUSTER_NODES and url.port == 6379, name
        nodes_named.add(url.hostname)
    assert len(nodes_named) == 2, "each app is given a node of its own: any one will do"


def compose_command(command: list[str]) -> list[str]:
    """A command as compose runs it: ``$$`` is a plain ``$``."""
    return [part.replace("$$", "$") for part in command]


def test_the_cluster_profile_runs(tmp_path: Path, servers: Servers) -> None:
    """The nodes' commands, the init script (it creates the cluster, finds it
    made, and finds it made again when a node has just restarted) and the
    apps' settings, on this machine: names become localhost and ports free
    ones."""
    ports = {name: free_port() for name in CLUSTER_NODES}
    commands: dict[str, list[str]] = {}
    nodes: list[subprocess.Popen[bytes]] = []
    try:
        for name, node in CLUSTER_NODES.items():
            command = compose_command(node["command"])
            command[command.index("--port") + 1] = str(ports[name])
            command[command.index("--cluster-announce-hostname") + 1] = "localhost"
            (tmp_path / name).mkdir()
            commands[name] = [*command, "--cluster-port", str(free_port()), "--bind", "127.0.0.1 -::1",
                              "--dir", str(tmp_path / name), "--logfile", str(tmp_path / name / "redis.log")]
            nodes.append(subprocess.Popen(commands[name], stdout=subprocess.DEVNULL,
                                          stderr=subprocess.DEVNULL))
        for name, proc in zip(CLUSTER_NODES, nodes, strict=True):
            wait_until(lambda name=name, proc=proc: _up_or_dead(
                proc, ports[name], tmp_path / name / "redis.log"), what=f"{name} up")
        init = SERVICES["redis-cluster-init"]
        env = {**os.environ, "NODES": " ".join(f"localhost:{ports[n]}" for n in CLUSTER_NODES)}
        first = next(iter(CLUSTER_NODES))
        for run in ("creates", "finds it made", "finds it made after a restart"):
            if run.endswith("restart"):
                # a master says "fail" for its first seconds after a start:
                # judging "made" by cluster_state created it again, refused
                nodes[0].terminate()
                nodes[0].wait(20)
                nodes[0] = subprocess.Popen(commands[first], stdout=subprocess.DEVNULL,
                                            stderr=subprocess.DEVNULL)
                wait_until(lambda: _up_or_dead(nodes[0], ports[first], tmp_path / first / "redis.log"),
                           what=f"{first} up again")
            done = subprocess.run(compose_command(init["command"]), env=env, capture_output=True,
                                  timeout=90)
            said = done.stdout.decode() + done.stderr.decode()
            assert done.returncode == 0, said
            assert ("Performing hash slots allocation" in said) == (run == "creates"), said
            # and it ends only once the cluster says ok
            info = subprocess.run(["redis-cli", "-p", str(ports[first]), "cluster", "info"],
                                  capture_output=True, timeout=10)
            assert b"cluster_state:ok" in info.stdout, info.stdout
        started = []
        for app in CLUSTER_APPS.values():
            url = urlparse(app["environment"]["KLONDIKE_REDIS_URL"])
            env = {k: str(v) for k, v in app["environment"].items()}
            env["KLONDIKE_REDIS_URL"] = f"redis://localhost:{ports[str(url.hostname)]}/0"
            started.append(servers.start(None, env=env))
        for server in started:
            wait_until(lambda server=server: run_check(image_healthcheck(), server.port) == 0,
                       timeout=30, what="the app's healthcheck to pass")
        asyncio.run(_one_room_on_both(*started))
    finally:
        for proc in nodes:
            proc.terminate()
        for proc in nodes:
            proc.wait(20)


def _up_or_dead(proc: subprocess.Popen[bytes], port: int, log: Path) -> bool:
    """True once the node answers; a node that exited fails with its log."""
    if proc.poll() is not None:
        text = log.read_text(errors="replace") if log.exists() else "(no log)"
        raise AssertionError(f"redis node on {port} exited {proc.returncode}:\n{text[-2000:]}")
    return RedisServer.answers(port)


async def _one_room_on_both(first: ServerProcess, second: ServerProcess) -> None:
    ann = await Client.open(first.ws_url, "ann")
    bob = await Client.open(second.ws_url, "bob")
    try:
        room = (await ann.create("ann"))["room"]
        await bob.join(room, "bob")
        assert (await ann.event("joined"))["nickname"] == "bob"
    finally:
        await ann.close()
        await bob.close()


def test_compose_only_sets_variables_the_server_reads() -> None:
    assert {"KLONDIKE_REDIS_URL", "KLONDIKE_PORT", "KLONDIKE_LOG_LEVEL"} <= DOCUMENTED_ENV
    for name, app in APPS.items():
        assert set(app["environment"]) <= DOCUMENTED_ENV, name
        cfg = config.load(None, {k: str(v) for k, v in app["environment"].items()})
        assert cfg.redis_url == app["environment"]["KLONDIKE_REDIS_URL"]


def test_app_healthchecks_ask_healthz_on_the_served_port() -> None:
    for name, app in APPS.items():
        check = app["healthcheck"]
        assert check["test"][0] == "CMD" and check["test"][1:] == image_healthcheck(), name
        assert f":{container_port()}/healthz" in " ".join(check["test"])
        assert seconds(check["timeout"]) < seconds(check["interval"])


# ---------------------------------------------------------------------- the Dockerfile

def test_the_image_is_python_slim_and_runs_as_a_user() -> None:
    assert instructions("FROM") == ["python:3.11-slim"]
    users = instructions("USER")
    assert users and users[-1] not in ("root", "0")
    words = [word for word, _ in DOCKERFILE]
    assert words.index("USER") < words.index("CMD")
    assert any("pip install" in args for args in instructions("RUN"))


def test_the_image_command_is_the_console_script_with_real_options() -> None:
    cmd = exec_form(instructions("CMD")[-1])
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert cmd[0] in scripts and cmd[1] == "serve"
    env = dockerfile_env()
    assert {k for k in env if k.startswith("KLONDIKE_")} <= DOCUMENTED_ENV
    for name, app in APPS.items():
        cfg = config.parse(cmd[2:], env={**env, **{k: str(v) for k, v in app["environment"].items()}})
        assert cfg.host == "0.0.0.0", name
        assert cfg.port == container_port(), name
        assert cfg.redis_url == app["environment"]["KLONDIKE_REDIS_URL"], name
        # /metrics on a port of its own, reachable on the compose network, published nowhere
        assert cfg.metrics_address is not None and cfg.metrics_address[1] != cfg.port, name
        assert app["expose"] == [str(cfg.metrics_address[1])], name
        assert instructions("EXPOSE")[1:] == [str(cfg.metrics_address[1])]
        assert all(p.split(":")[-1] != str(cfg.metrics_address[1]) for p in app.get("ports", ())), name
    assert urlparse(env["KLONDIKE_REDIS_URL"]).hostname in SERVICES


def test_the_build_context_holds_what_the_image_copies_and_not_the_rest() -> None:
    rules = [line.strip().rstrip("/") for line in (ROOT / ".dockerignore").read_text().splitlines()
             if line.strip() and not line.startswith("#")]

    def is_ignored(path: str) -> bool:
        """As Docker reads it: a pattern covers what lies under it; the last rule that matches wins."""
        out = False
        for rule in rules:
            pattern = rule.removeprefix("!")
            if fnmatch.fnmatch(path, pattern) or path.startswith(pattern + "/"):
                out = not rule.startswith("!")
        return out

    copied = []
    for args in instructions("COPY"):
        *sources, _ = args.split()
        copied += [s.rstrip("/") for s in sources]
    assert {"pyproject.toml", "server", "web_client"} <= set(copied)
    for source in copied:
        assert (ROOT / source).exists(), source
        assert not is_ignored(source), f"{source} is copied but .dockerignore leaves it out"
    readme = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["readme"]
    assert readme in copied, "the build reads the readme named in pyproject.toml"
    for heavy in (".git", ".venv", "tests", "var"):
        assert is_ignored(heavy), heavy


# ---------------------------------------------------------------------- the healthcheck, run

def run_check(command: list[str], port: int) -> int:
    """Run the image's healthcheck against a server on ``port`` instead of 8080."""
    assert command[0] == "python"
    argv = [c.replace(f":{container_port()}/", f":{port}/") for c in command]
    assert argv != command, "the healthcheck does not name the container port"
    return subprocess.run([sys.executable, *argv[1:]], capture_output=True, timeout=30).returncode


@pytest.mark.parametrize("source", ["Dockerfile", "compose.yaml"])
def test_the_healthcheck_passes_with_redis_and_fails_without(
        source: str, own_redis: RedisServer, servers: Servers) -> None:
    command = image_healthcheck() if source == "Dockerfile" else APPS["app"]["healthcheck"]["test"][1:]
    server = servers.start(own_redis.url)
    assert run_check(command, server.port) == 0
    own_redis.stop()
    try:
        assert run_check(command, server.port) != 0
    finally:
        own_redis.start()

