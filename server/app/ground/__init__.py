"""The ground every package of the app stands on, importing nothing of it:
the options, the clock, logs, metrics, background tasks, health, how busy
the process is, and the framing of writes (frames written whole, the
slow-consumer policy, the ``Origin`` check)."""
