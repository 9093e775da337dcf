-- p_record: a result into a player's history and totals. The history is a
-- list of results, newest first, each a JSON array beginning with its ref
-- and its flags ('["ref",flags,...': flags is 1 if finished, plus 2 if won):
-- an entry with the same ref is replaced where it stands (its game counted
-- once: the totals take the difference of the flags), a new one is pushed in
-- front and the oldest beyond the cap dropped (the totals keep counting
-- it). A game on a deal the server did not draw (flag 4: typed, or solo)
-- counts in the games and finished, never in the wins nor the best times
-- (anyone could set those with a known winning line). Flag 8: a place so
-- far (a daily attempt before the day's close; never won: the close's
-- entry replaces it, and counts the win if it is one). A finished game's
-- time may lower the mode's best; a finished daily
-- attempt extends the daily streak (days in a row; a day already counted,
-- or older than the last, changes nothing).
--
-- KEYS: 1 the profile (kp:{P}:p), 2 its history (kp:{P}:h)
-- ARGV: 1 the entry's prefix ('["ref",'), 2 the entry, 3 flags (0..15),
--       4 finish time ms ('' none), 5 mode, 6 history cap, 7 ttl ms,
--       8 the daily's day number ('' none)
-- Returns 'new', 'replaced', or 'gone' (no such player: forgotten, or expired)
if redis.call('EXISTS', KEYS[1]) == 0 then return 'gone' end
local prefix, flags = ARGV[1], tonumber(ARGV[3])
local typed = math.floor(flags / 4) % 2
local fin, won = flags % 2, math.floor(flags / 2) % 2 * (1 - typed)
local entries = redis.call('LRANGE', KEYS[2], 0, -1)
local found = nil
for i, entry in ipairs(entries) do
  if string.sub(entry, 1, #prefix) == prefix then found = i break end
end
local outcome = 'new'
if found then
  local old = tonumber(cjson.decode(entries[found])[2]) or 0
  redis.call('LSET', KEYS[2], found - 1, ARGV[2])
  fin = fin - old % 2
  won = won - math.floor(old / 2) % 2 * (1 - math.floor(old / 4) % 2)
  outcome = 'replaced'
else
  redis.call('LPUSH', KEYS[2], ARGV[2])
  redis.call('LTRIM', KEYS[2], 0, tonumber(ARGV[6]) - 1)
  redis.call('HINCRBY', KEYS[1], 'games', 1)
end
if won ~= 0 then redis.call('HINCRBY', KEYS[1], 'wins', won) end
if fin ~= 0 then redis.call('HINCRBY', KEYS[1], 'finished', fin) end
if flags % 2 == 1 and typed == 0 and ARGV[4] ~= '' then
  local field = 'best:' .. ARGV[5]
  local best = redis.call('HGET', KEYS[1], field)
  if not best or tonumber(ARGV[4]) < tonumber(best) then
    redis.call('HSET', KEYS[1], field, ARGV[4])
  end
end
if flags % 2 == 1 and ARGV[8] ~= '' then
  local day = tonumber(ARGV[8])
  local last = tonumber(redis.call('HGET', KEYS[1], 'streak_day') or '-1')
  if day > last then
    local streak = 1
    if day == last + 1 then streak = tonumber(redis.call('HGET', KEYS[1], 'streak') or '0') + 1 end
    redis.call('HSET', KEYS[1], 'streak', streak, 'streak_day', day)
    if streak > tonumber(redis.call('HGET', KEYS[1], 'streak_best') or '0') then
      redis.call('HSET', KEYS[1], 'streak_best', streak)
    end
  end
end
redis.call('PEXPIRE', KEYS[1], ARGV[7])
redis.call('PEXPIRE', KEYS[2], ARGV[7])
return outcome
