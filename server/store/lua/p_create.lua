-- p_create: a new player: their profile and their first key (its digest).
-- The caller then writes the key's index (kp:key:{digest}, another slot).
--
-- KEYS: 1 the profile (kp:{P}:p), 2 its keys (kp:{P}:k)
-- ARGV: 1 nickname, 2 now ms, 3 the key's digest, 4 ttl ms (a profile with no result yet)
-- Returns 1, or 0 if a player has that id already (the caller draws another)
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'nick', ARGV[1], 'created', ARGV[2], 'seen', ARGV[2],
           'games', 0, 'wins', 0, 'finished', 0)
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
redis.call('PEXPIRE', KEYS[2], ARGV[4])
return 1
