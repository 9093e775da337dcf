-- seat_over: a challenge player's time ran out: their game is over as it
-- stands (the caller's line, status unfinished; its log packed), counted out of the race and
-- ranked among the ghosts. In a ranked room the line's score and the
-- field's statuses change; where lines travel as events, a progress event
-- says so to everyone.
--
-- KEYS: 1 room, 2 seat, 3 lb, 4 rank, 5 hist, 6 gz, 7 ev, 8 channel, 9 gh, 10 the seat's log
-- ARGV: 1 race, 2 seat no, 3 the seat's version the caller read, 4 the line after,
--       5 its score in the ranking ('' none: lines travel as events), 6 its place among
--       the ghosts, 7 event body ('' none), 8 event cap, 9 its ghost trace, ended,
--       10 its cards on foundations, 11 those the field's progress counted it at
--       (the same while its figures showed; 0 while they were hidden)
-- Returns {'ok', seats still racing}, {'no'} (the game or the race is over already, or
-- it never began) or {'changed'} (a command landed since the caller read it: read again)
-- uses: keep, member, pack_seat, push_event
if redis.call('HGET', KEYS[1], 'live') ~= ARGV[1] then return {'no'} end
local s = redis.call('HMGET', KEYS[2], 'ver', 'done')
if not s[1] or s[2] == '1' then return {'no'} end
if s[1] ~= ARGV[3] then return {'changed'} end
redis.call('HSET', KEYS[2], 'done', 1)
pack_seat(KEYS[2], KEYS[10])
redis.call('HSET', KEYS[3], ARGV[2], ARGV[4])
local m = member(ARGV[2])
if ARGV[5] ~= '' then
  redis.call('ZADD', KEYS[4], ARGV[5], m)
  redis.call('HINCRBY', KEYS[5], 's:racing', -1)
  redis.call('HINCRBY', KEYS[5], 's:unfinished', 1)
  if ARGV[10] ~= ARGV[11] then
    redis.call('HINCRBY', KEYS[5], ARGV[11], -1)
    redis.call('HINCRBY', KEYS[5], ARGV[10], 1)
  end
end
redis.call('ZADD', KEYS[6], ARGV[6], m)
keep(KEYS[6], KEYS[1])
redis.call('HSET', KEYS[9], ARGV[2], ARGV[9])
keep(KEYS[9], KEYS[1])
local active = redis.call('HINCRBY', KEYS[1], 'active', -1)
if ARGV[7] ~= '' then
  local v = redis.call('HINCRBY', KEYS[1], 'ev', 1)
  push_event(KEYS[7], KEYS[8], ARGV[7], v, tonumber(ARGV[8]))
end
return {'ok', active}
