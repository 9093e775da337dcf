"""What the server tests share (``from support.race import Racer``): racers,
players, tournaments, clocks, the edge's probes. A package on the path the
suite's conftest gives (``tests/``), not a ``pythonpath`` entry."""
