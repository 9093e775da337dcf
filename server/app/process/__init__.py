"""The process: its command line and configuration, its lifespan and the
services its connections share, logs, metrics, the embedded Redis."""
