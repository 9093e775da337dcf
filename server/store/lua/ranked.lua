-- ranked: may this player's attempt at a day's deal of a mode rank, from their
-- address? The players of one address ranked that day and mode are a set of
-- at most its cap (a household): a player in it ranks again (a seat taken
-- again), another is added while it holds fewer than the cap, and a player
-- made lately ('fresh': a spare key) is added only while it is empty. A
-- refusal adds nothing.
--
-- KEYS: 1 the address's ranked players (set), kept until the day's end
-- ARGV: 1 the player, 2 the cap, 3 ms left of the day, 4 '1' if the player is fresh
-- Returns 1 if the player ranks, else 0
if redis.call('SISMEMBER', KEYS[1], ARGV[1]) == 1 then return 1 end
local n = redis.call('SCARD', KEYS[1])
if n >= tonumber(ARGV[2]) or (ARGV[4] == '1' and n > 0) then return 0 end
redis.call('SADD', KEYS[1], ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
