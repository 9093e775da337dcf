-- p_create: a new player: their profile, holding their first key's digest
-- (as a field k:{digest}, the time it was given). The caller then writes the
-- key's index (kp:key:{digest}, another slot).
--
-- KEYS: 1 the profile (kp:{P}:p)
-- ARGV: 1 nickname, 2 now ms, 3 the key's digest, 4 ttl ms (a profile with no result yet)
-- Returns 1, or 0 if a player has that id already (the caller draws another)
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'nick', ARGV[1], 'seen', ARGV[2], 'games', 0, 'wins', 0,
           'finished', 0, 'k:' .. ARGV[3], ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return 1
