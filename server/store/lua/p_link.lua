-- p_link: a seat of a room is a player's: the first player who holds it (on
-- any device) gets its results; a later holder with another key does not.
-- The link lives as long as the room (every commit of the room renews it).
--
-- KEYS: 1 the room (kr:{R}:room), 2 its seats' players (kr:{R}:pp)
-- ARGV: 1 seat, 2 the player's id
-- Returns the player the seat is linked to (this one, or the first)
-- uses: keep
if redis.call('HSETNX', KEYS[2], ARGV[1], ARGV[2]) == 1 then keep(KEYS[2], KEYS[1]) end
return redis.call('HGET', KEYS[2], ARGV[1])
