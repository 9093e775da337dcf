"""The asyncio edge, in layers that import only those below them: the root
(command line, lifespan, workers), the handlers, the socket and HTTP edge,
the services (daily, tournaments, players, rooms, solver) and the ground
(options, clock, logs, metrics, framing)."""
