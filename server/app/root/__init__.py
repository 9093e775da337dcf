"""The root that nothing imports: the command line, the lifespan that makes
every service and connects them, the supervisor and its workers, the
embedded Redis."""
