-- begin: a challenge's player, seated in a room whose seats live in hashes,
-- starts their own game: their seat in the race (made here), their line
-- racing on their own clock and ranked, counted among the racers and in the
-- field's progress. The caller checked that the window is open; the race
-- must still take moves.
--
-- KEYS: 1 room, 2 pl, 3 lb, 4 rank, 5 hist, 6 seat, 7 left
-- ARGV: 1 race, 2 seat no, 3 the racing line's JSON after its nickname, 4 its score
-- Returns {'ok', seats racing} or {'closed'} (the race takes no more moves),
-- {'unknown'} (no such player), {'begun'} (their game began already)
-- uses: keep, member
if redis.call('HGET', KEYS[1], 'live') ~= ARGV[1] then return {'closed'} end
local record = redis.call('HGET', KEYS[2], ARGV[2])
if not record or redis.call('SISMEMBER', KEYS[7], ARGV[2]) == 1 then return {'unknown'} end
if redis.call('EXISTS', KEYS[6]) == 1 then return {'begun'} end
local name = cjson.encode(cjson.decode(record).nickname)
redis.call('HSET', KEYS[6], 'ver', 0, 'seq', 0, 'done', 0)
keep(KEYS[6], KEYS[1])
redis.call('HSET', KEYS[3], ARGV[2], '{"seat":' .. ARGV[2] .. ',"nickname":' .. name .. ARGV[3])
redis.call('ZADD', KEYS[4], ARGV[4], member(ARGV[2]))
redis.call('HINCRBY', KEYS[5], '0', 1)
redis.call('HINCRBY', KEYS[5], 's:racing', 1)
return {'ok', redis.call('HINCRBY', KEYS[1], 'active', 1)}
