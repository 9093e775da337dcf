"""Rooms: the room commands and the policy a room is created with (where its
seats live, how its leaderboard travels), and one hub per room on this
process."""
