-- release: give back a lease only if this holder still has it: one whose
-- lease ran out while it worked must not delete the next holder's.
--
-- KEYS: 1 the lease
-- ARGV: 1 holder
-- Returns 1 if it was released, else 0
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
