-- p_rename: a player's new nickname (an existing profile only).
--
-- KEYS: 1 the profile (kp:{P}:p)
-- ARGV: 1 the nickname
-- Returns 1, or 0 if there is no such player
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'nick', ARGV[1])
return 1
