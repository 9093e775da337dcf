"""The asyncio edge: websocket and HTTP server, sessions, hubs, config, logs, metrics."""
