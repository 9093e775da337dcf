-- commit: a change of a room's (or a tournament's) document: check the version
-- the caller read, write the new document, run the writes the change implies
-- (ops built by the store's Changes), record and publish the events.
--
-- KEYS: 1 document (room or tournament header), 2 ev, 3 channel, 4.. keys named by the ops
-- ARGV: 1 expected version ('new': the document must not exist), 2 document JSON,
--       3 event cap, 4 ops: JSON array of [command, key index, args...], 5 the room's
--       phase ('' for a tournament), 6.. event bodies (JSON without the opening brace)
-- An op RESET_SEATS names its keys by index: pl, lb, rank, hist, ready, left, room,
-- then tail, score, race ('0': a lobby), ttl ms (see reset_seats).
-- Returns {'ok', last event version, new version, seats racing} or {'conflict', version or 'gone'}
-- uses: push_event, reset_seats
local rv = redis.call('HGET', KEYS[1], 'rv')
if ARGV[1] == 'new' then
  if rv then return {'conflict', rv} end
  rv = '0'
elseif rv ~= ARGV[1] then
  return {'conflict', rv or 'gone'}
end
rv = tonumber(rv) + 1
redis.call('HSET', KEYS[1], 'state', ARGV[2], 'rv', rv)
if ARGV[5] ~= '' then redis.call('HSET', KEYS[1], 'phase', ARGV[5]) end
for _, op in ipairs(cjson.decode(ARGV[4])) do
  if op[1] == 'RESET_SEATS' then
    reset_seats(KEYS[op[2]], KEYS[op[3]], KEYS[op[4]], KEYS[op[5]], KEYS[op[6]], KEYS[op[7]],
                KEYS[op[8]], op[9], op[10], op[11], op[12])
  else
    local args = {op[1], KEYS[op[2]]}
    for i = 3, #op do args[#args + 1] = op[i] end
    redis.call(unpack(args))
  end
end
local v = tonumber(redis.call('HGET', KEYS[1], 'ev') or '0')
for i = 6, #ARGV do
  v = v + 1
  push_event(KEYS[2], KEYS[3], ARGV[i], v, tonumber(ARGV[3]))
end
redis.call('HSET', KEYS[1], 'ev', v)
return {'ok', v, rv, tonumber(redis.call('HGET', KEYS[1], 'active') or '0')}
