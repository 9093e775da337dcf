"""The socket and HTTP edge: one connection per websocket, its credit and slow-
consumer policy, plain HTTP (the web client's files, health, metrics, the
results API) and the caps on connections and creations."""
