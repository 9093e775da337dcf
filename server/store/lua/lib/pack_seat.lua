-- pack_seat: a seat whose game is over keeps only what its replay and its
-- board need (issue 24, item 7): its log packed into its hash, the log's
-- list and the engine snapshot dropped. The packed log is the commands
-- separated by spaces, each shortened (draw d, recycle r, undo u, resign x;
-- a move's notation without its t's and its '>': t1:3>t5 is 1:35, w>f wf,
-- fs>t2 fs2; anything else kept as it is after a '='), a command after
-- '#' and its client sequence number where that is not the previous one
-- plus one (seat_state.py, unpack_log, reads it back), cut in
-- pieces of at most 64 bytes (fields log, log2, log3...: a hash of small
-- values stays a listpack, a few bytes a field, where one long value makes it
-- a hash table of some 400 bytes). The hash is written anew (a hash table
-- never becomes a listpack again), with its expiry. The board is rebuilt
-- from the deal and the log (seat_state.py: unpack_log, SeatState.snapshots);
-- ver, seq and done stay, so every check of a seat reads it as before.
local function pack_seat(seat, log)
  local words = {draw = 'd', recycle = 'r', undo = 'u', resign = 'x'}
  local out, prev = {}, nil
  for _, e in ipairs(redis.call('LRANGE', log, 0, -1)) do
    local space = string.find(e, ' ', 1, true)
    local seq = tonumber(string.sub(e, 1, space - 1))
    local command = string.sub(e, space + 1)
    if prev == nil or seq ~= prev + 1 then out[#out + 1] = '#' .. seq end
    if words[command] then
      out[#out + 1] = words[command]
    elseif string.find(command, '>', 1, true) then
      out[#out + 1] = (string.gsub(string.gsub(command, 't', ''), '>', ''))
    else
      out[#out + 1] = '=' .. command
    end
    prev = seq
  end
  local packed = table.concat(out, ' ')
  local fields = {}
  local kept = redis.call('HGETALL', seat)
  for i = 1, #kept, 2 do
    local name = kept[i]
    if name ~= 'snap' and string.sub(name, 1, 3) ~= 'log' then
      fields[#fields + 1] = name
      fields[#fields + 1] = kept[i + 1]
    end
  end
  fields[#fields + 1] = 'log'
  fields[#fields + 1] = string.sub(packed, 1, 64)
  local n = 1
  for i = 65, #packed, 64 do
    n = n + 1
    fields[#fields + 1] = 'log' .. n
    fields[#fields + 1] = string.sub(packed, i, i + 63)
  end
  local ttl = redis.call('PTTL', seat)
  redis.call('DEL', seat, log)
  redis.call('HSET', seat, unpack(fields))
  if ttl > 0 then redis.call('PEXPIRE', seat, ttl) end
end
