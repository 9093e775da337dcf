"""Tournaments: one model for any size, its commands, rounds and recording, how
it shows itself, and one hub per tournament on this process."""
