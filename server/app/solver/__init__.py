"""The solver pool: a bounded process pool, the plain functions its workers
run, the certified winnable deals kept ready, a seat's solver assists."""
