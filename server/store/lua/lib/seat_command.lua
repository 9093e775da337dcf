-- seat_command: the part of a game command every room shares. Checks that
-- the race is live, that the seat plays it and is held by this connection,
-- the sequence number, the seat's log version and that the log has room
-- (a seat's log is capped); then appends to the log,
-- writes the snapshot and the leaderboard line, and counts the seat out of
-- the race when it is done, its log then packed (pack_seat). In a challenge it also keeps the seat's ghost
-- trace and, once the seat is done, ranks it among the ghosts. Returns a
-- refusal (a reply) or nil, and the seats still racing when this command
-- ended the seat's race (-1: unchanged).
--
-- keys: room, seat, log, lb, on. a: the script's ARGV, whose first ten are
-- 1 race, 2 seat no, 3 connection id, 4 expected version, 5 seq, 6 log entry,
-- 7 snapshot, 8 leaderboard line, 9 '1' if the seat is done after it, 10 the
-- most commands the seat's log may hold with this one stored ({'full'} past it).
-- ranked: the seat's member in a ranking sorted set (false: none): a racer
-- ranked there who has no seat yet gets it with their first command.
-- ghost: {gh, gz, trace or '' (unchanged), score among the ghosts or '' (none)}
-- uses: keep, member, pack_seat
local function seat_command(room, seat, log, lb, on, a, rank, ranked, ghost)
  if redis.call('HGET', room, 'live') ~= a[1] then return {'not_playing'}, -1 end
  local s = redis.call('HMGET', seat, 'ver', 'seq', 'done')
  local fresh = false
  if not s[1] then
    if not ranked or not redis.call('ZSCORE', rank, ranked) then return {'not_playing'}, -1 end
    s, fresh = {'0', '0', '0'}, true
  end
  -- a seat done is refused first: a player withdrawn from a tournament is out
  -- of the round's race ('left') and no longer holds the seat, yet was not taken over
  if s[3] == '1' then return {'not_playing'}, -1 end
  if redis.call('HGET', on, a[2]) ~= a[3] then return {'taken_over'}, -1 end
  if tonumber(a[5]) <= tonumber(s[2]) then return {'seq', s[2], s[1]}, -1 end
  if s[1] ~= a[4] then return {'version', s[1]}, -1 end
  if tonumber(s[1]) >= tonumber(a[10]) then return {'full'}, -1 end
  redis.call('HSET', seat, 'ver', tonumber(s[1]) + 1, 'seq', a[5], 'snap', a[7])
  if fresh then
    redis.call('HSET', seat, 'done', 0)
    keep(seat, room)
  end
  if redis.call('RPUSH', log, a[6]) == 1 then
    redis.call('PEXPIRE', log, redis.call('PTTL', seat))
  end
  redis.call('HSET', lb, a[2], a[8])
  local active = -1
  if a[9] == '1' then
    redis.call('HSET', seat, 'done', '1')
    active = redis.call('HINCRBY', room, 'active', -1)
    pack_seat(seat, log)
  end
  if ghost[3] ~= '' then
    redis.call('HSET', ghost[1], a[2], ghost[3])
    keep(ghost[1], room)
  end
  if a[9] == '1' and ghost[4] ~= '' then
    redis.call('ZADD', ghost[2], ghost[4], member(a[2]))
    keep(ghost[2], room)
  end
  return nil, active
end
