-- p_forget: a player asks to be forgotten: their profile, keys and history
-- are deleted. The caller then deletes the keys' index entries (other slots).
--
-- KEYS: 1 the profile (kp:{P}:p), 2 its keys (kp:{P}:k), 3 its history (kp:{P}:h)
-- ARGV: none
-- Returns the digests of the player's keys (empty if there was no such player)
local digests = redis.call('ZRANGE', KEYS[2], 0, -1)
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3])
return digests
