-- detach: a connection lets go of its seat, only if it still holds it.
--
-- KEYS: 1 room, 2 on, 3 ev, 4 channel
-- ARGV: 1 seat, 2 connection id, 3 event body ('' for none), 4 event cap
-- Returns {'ok', event version or 0} or {'gone'}
-- uses: push_event
if redis.call('HGET', KEYS[2], ARGV[1]) ~= ARGV[2] then return {'ok', 0} end
redis.call('HDEL', KEYS[2], ARGV[1])
if redis.call('EXISTS', KEYS[1]) == 0 then return {'gone'} end
if ARGV[3] == '' then return {'ok', 0} end
local v = redis.call('HINCRBY', KEYS[1], 'ev', 1)
push_event(KEYS[3], KEYS[4], ARGV[3], v, tonumber(ARGV[4]))
return {'ok', v}
