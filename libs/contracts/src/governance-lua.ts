/**
 * Lua shared by the gateway's admission (which releases the reservation of a request refused
 * before its run began) and the invocation service's reconciliation (which releases it when the
 * run's ledger record ends): one definition of what a run's reservation holds and how it is let
 * go, beside the key layout it follows (GovernanceKeys).
 *
 * A run's reservation hash (GovernanceKeys.reservation): `cost` (micro-USD reserved in each
 * scope it names), `tokens` (the token estimate added to the token windows), `minute` (the
 * epoch minute of those windows), `key` (the API key id, may be empty), `user` (the end user,
 * may be empty), and a flag field per scope kind (`ws`, `key`, `user`): `cost:<kind>` when the
 * cost was reserved in that scope's pending set, `tokens:<kind>` when the estimate was added to
 * that scope's token window.
 */

/** The `GovernanceKeys` of one workspace all start with this: `waggle:gov:{<workspace id>}:`. */
export function governanceKeyBase(workspaceId: string): string {
  return `waggle:gov:{${workspaceId}}:`;
}

/**
 * `releaseReservation(base, resKey, requestId, actualTokens)`: removes the run's cost from the
 * pending reservations of each scope it reserved, adds `actualTokens − estimate` to each token
 * window it added to (when that window still exists; never below 0), and deletes the
 * reservation. Idempotent: a reservation already released (or expired) is a no-op.
 */
export const RELEASE_RESERVATION_LUA = `
local function releaseReservation(base, resKey, requestId, actualTokens)
  local r = redis.call('HGETALL', resKey)
  if #r == 0 then return end
  local h = {}
  for i = 1, #r, 2 do h[r[i]] = r[i + 1] end
  local tokens = {{'ws', 'ws'}}
  if h.key and h.key ~= '' then tokens[#tokens + 1] = {'key', 'key:' .. h.key} end
  if h.user and h.user ~= '' then tokens[#tokens + 1] = {'user', 'user:' .. h.user} end
  for _, scope in ipairs(tokens) do
    if h['cost:' .. scope[1]] then
      local amounts = base .. 'pending-amounts:' .. scope[2]
      local held = redis.call('HGET', amounts, requestId)
      redis.call('ZREM', base .. 'pending:' .. scope[2], requestId)
      if held then
        redis.call('HDEL', amounts, requestId)
        redis.call('HINCRBY', amounts, 'total', -tonumber(held))
      end
    end
    if h['tokens:' .. scope[1]] then
      local bucket = base .. 'tokens:' .. h.minute .. ':' .. scope[2]
      if redis.call('EXISTS', bucket) == 1 then
        local left = redis.call('INCRBY', bucket, actualTokens - tonumber(h.tokens))
        if left < 0 then redis.call('INCRBY', bucket, -left) end
      end
    end
  end
  redis.call('DEL', resKey)
end
`;
