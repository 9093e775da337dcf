-- attach: a connection takes a seat; an older connection holding it is told
-- to close (a takeover notice). A room whose seats live in hashes does not
-- announce presence (an empty event body).
--
-- KEYS: 1 room, 2 on, 3 ev, 4 channel
-- ARGV: 1 seat, 2 connection id, 3 event body ('' for none), 4 event cap
-- Returns {'ok', event version or 0} or {'gone'}
-- uses: push_event
if redis.call('EXISTS', KEYS[1]) == 0 then return {'gone'} end
local prev = redis.call('HGET', KEYS[2], ARGV[1])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
if prev then
  publish(KEYS[4], '{"x":"takeover","seat":' .. ARGV[1] .. ',"conn":"' .. ARGV[2] .. '"}')
  return {'ok', 0}
end
if ARGV[3] == '' then return {'ok', 0} end
local v = redis.call('HINCRBY', KEYS[1], 'ev', 1)
push_event(KEYS[3], KEYS[4], ARGV[3], v, tonumber(ARGV[4]))
return {'ok', v}
