-- p_record: a result into a player's history and totals. The history is a
-- list of JSON entries, newest first, each beginning with its ref
-- ('{"ref":"...",'): an entry with the same ref is replaced where it stands
-- (its game counted once: the totals take the difference of won and
-- finished), a new one is pushed in front and the oldest beyond the cap
-- dropped (the totals keep counting it). A finished game's time may lower
-- the mode's best; a finished daily attempt extends the daily streak (days
-- in a row; a day already counted, or older than the last, changes nothing).
--
-- KEYS: 1 the profile (kp:{P}:p), 2 its history (kp:{P}:h), 3 its keys (kp:{P}:k)
-- ARGV: 1 the entry's prefix ('{"ref":"...",'), 2 the entry JSON, 3 won (0/1),
--       4 finished (0/1), 5 finish time ms ('' none), 6 mode, 7 history cap,
--       8 ttl ms, 9 the daily's day number ('' none)
-- Returns 'new', 'replaced', or 'gone' (no such player: forgotten, or expired)
if redis.call('EXISTS', KEYS[1]) == 0 then return 'gone' end
local prefix, won, fin = ARGV[1], tonumber(ARGV[3]), tonumber(ARGV[4])
local entries = redis.call('LRANGE', KEYS[2], 0, -1)
local found = nil
for i, entry in ipairs(entries) do
  if string.sub(entry, 1, #prefix) == prefix then found = i break end
end
local outcome = 'new'
if found then
  local old = cjson.decode(entries[found])
  redis.call('LSET', KEYS[2], found - 1, ARGV[2])
  won = won - (old.won and 1 or 0)
  fin = fin - (old.finished and 1 or 0)
  outcome = 'replaced'
else
  redis.call('LPUSH', KEYS[2], ARGV[2])
  redis.call('LTRIM', KEYS[2], 0, tonumber(ARGV[7]) - 1)
  redis.call('HINCRBY', KEYS[1], 'games', 1)
end
if won ~= 0 then redis.call('HINCRBY', KEYS[1], 'wins', won) end
if fin ~= 0 then redis.call('HINCRBY', KEYS[1], 'finished', fin) end
if ARGV[4] == '1' and ARGV[5] ~= '' then
  local field = 'best:' .. ARGV[6]
  local best = redis.call('HGET', KEYS[1], field)
  if not best or tonumber(ARGV[5]) < tonumber(best) then
    redis.call('HSET', KEYS[1], field, ARGV[5])
  end
end
if ARGV[4] == '1' and ARGV[9] ~= '' then
  local day = tonumber(ARGV[9])
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
for i = 1, 3 do redis.call('PEXPIRE', KEYS[i], ARGV[8]) end
return outcome
