-- made_by: a room or tournament remembers the address it was made from (if
-- it still exists), so that a join can renew the place that address holds.
--
-- KEYS: 1 a room's or tournament's document (hash)
-- ARGV: 1 the address
-- Returns 1
if redis.call('EXISTS', KEYS[1]) == 1 then redis.call('HSET', KEYS[1], 'by', ARGV[1]) end
return 1
