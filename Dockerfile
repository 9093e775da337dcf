# Klondike Race: the server process, for compose.yaml (or any orchestrator).
# The image holds no Redis: KLONDIKE_REDIS_URL names the one to use (compose
# runs it as the service "redis"). See docs/operations.md.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /app
COPY pyproject.toml README.md ./
COPY server/ server/
COPY web_client/ web_client/
# the rule book, which the server also serves as /rules.md (the client's rules page)
COPY docs/rules.md docs/rules.md
# Installed in place (editable): the server serves the web client from the
# folder next to its package, /app/web_client.
RUN pip install -e . \
 && useradd --system --uid 10001 --user-group --no-create-home --shell /usr/sbin/nologin klondike

USER klondike
ENV KLONDIKE_REDIS_URL=redis://redis:6379/0
EXPOSE 8080
# /metrics: the operator's, on a port of its own. Inside a container loopback
# is the container's, so it listens on every interface here: publish it to
# your scraper's network only, never beside 8080 (compose.yaml exposes it to
# the compose network and publishes nothing)
EXPOSE 9108
# python:3.11-slim has no curl: ask /healthz with the standard library
# (a 503, Redis unreachable, raises and fails the check)
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
    CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8080/healthz', timeout=2)"]
# exec form: the server is PID 1 and gets docker stop's SIGTERM (sockets
# closed with 1001, commands in flight stored, exit 0)
CMD ["klondike-race", "serve", "--host", "0.0.0.0", "--metrics-address", "0.0.0.0:9108"]
