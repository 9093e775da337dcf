-- t_count: write standing lines that have not changed since the caller read
-- them: each new line (with its score) replaces the old one only if the
-- stored line is still that old one. A line gone (a kicked player) is left alone.
--
-- KEYS: 1 st, 2 rank
-- ARGV: for each player: player, old line, new line, score
-- Returns the players whose line had changed (the caller reads them again)
-- uses: member
local changed = {}
for i = 1, #ARGV, 4 do
  local line = redis.call('HGET', KEYS[1], ARGV[i])
  if line == ARGV[i + 1] then
    redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 2])
    redis.call('ZADD', KEYS[2], ARGV[i + 3], member(ARGV[i]))
  elseif line then
    changed[#changed + 1] = ARGV[i]
  end
end
return changed
