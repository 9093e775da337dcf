-- p_identify: a connection presents a player's key: if the profile still
-- holds that key's digest, the player was seen now and is kept for another
-- ttl (a profile with no result yet for the shorter one).
--
-- KEYS: 1 the profile (kp:{P}:p), 2 its keys (kp:{P}:k), 3 its history (kp:{P}:h)
-- ARGV: 1 the key's digest, 2 now ms, 3 ttl ms, 4 ttl ms of a profile with no result
-- Returns the nickname, or false: no such player, or the key is not (or no longer) theirs
if not redis.call('ZSCORE', KEYS[2], ARGV[1]) then return false end
local nick = redis.call('HGET', KEYS[1], 'nick')
if not nick then return false end
redis.call('HSET', KEYS[1], 'seen', ARGV[2])
local ttl = ARGV[3]
if tonumber(redis.call('HGET', KEYS[1], 'games') or '0') == 0 then ttl = ARGV[4] end
for i = 1, 3 do redis.call('PEXPIRE', KEYS[i], ttl) end
return nick
