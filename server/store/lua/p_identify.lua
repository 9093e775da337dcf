-- p_identify: a connection presents a player's key: if the profile still
-- holds that key's digest, the player was seen now and is kept for another
-- ttl (a profile with no result yet for the shorter one).
--
-- KEYS: 1 the profile (kp:{P}:p), 2 its history (kp:{P}:h), 3 its rating history (kp:{P}:rh)
-- ARGV: 1 the key's digest, 2 now ms, 3 ttl ms, 4 ttl ms of a profile with no result
-- Returns the nickname, or false: no such player, or the key is not (or no longer) theirs
if redis.call('HEXISTS', KEYS[1], 'k:' .. ARGV[1]) == 0 then return false end
redis.call('HSET', KEYS[1], 'seen', ARGV[2])
local ttl = ARGV[3]
if tonumber(redis.call('HGET', KEYS[1], 'games') or '0') == 0 then ttl = ARGV[4] end
redis.call('PEXPIRE', KEYS[1], ttl)
redis.call('PEXPIRE', KEYS[2], ttl)
redis.call('PEXPIRE', KEYS[3], ttl)
return redis.call('HGET', KEYS[1], 'nick')
