-- since: the events after a version, or 'resync' when they are no longer kept.
--
-- KEYS: 1 room (or tournament header), 2 ev
-- ARGV: 1 the last version the client has
-- Returns {latest version, events or 'resync'}
local v = tonumber(redis.call('HGET', KEYS[1], 'ev') or '0')
local since = tonumber(ARGV[1])
if since == v then return {v, {}} end
local missing = v - since
if since > v or missing > redis.call('LLEN', KEYS[2]) then return {v, 'resync'} end
return {v, redis.call('LRANGE', KEYS[2], -missing, -1)}
