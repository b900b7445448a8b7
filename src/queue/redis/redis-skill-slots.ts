import type { Redis } from "ioredis";
import type { RedisQueueKeys } from "./redis-queue-keys.js";

/**
 * A skill's pool-wide concurrency limit: a sorted set of the requests running under it, each
 * with a lease (its score) that the running worker renews. A worker killed with a slot loses it
 * when the lease runs out, so a crash never shrinks the limit for good.
 */
const TAKE_SLOT = `
redis.call("ZREMRANGEBYSCORE", KEYS[1], "-inf", ARGV[1])
if redis.call("ZSCORE", KEYS[1], ARGV[4]) or redis.call("ZCARD", KEYS[1]) < tonumber(ARGV[3]) then
  redis.call("ZADD", KEYS[1], ARGV[2], ARGV[4])
  redis.call("PEXPIRE", KEYS[1], ARGV[5])
  return 1
end
return 0
`;

/** Takes one of `limit` slots of `skill` for `requestId`, leased for `leaseMs`; false when all are taken. */
export async function takeSkillSlot(
  client: Redis,
  keys: RedisQueueKeys,
  skill: string,
  requestId: string,
  limit: number,
  leaseMs: number,
): Promise<boolean> {
  const now = Date.now();
  const taken = await client.eval(
    TAKE_SLOT,
    1,
    keys.skillSlots(skill),
    String(now),
    String(now + leaseMs),
    String(limit),
    requestId,
    String(leaseMs * 2),
  );
  return taken === 1;
}

/** Renews the leases of running requests' slots. */
export async function renewSkillSlots(
  client: Redis,
  keys: RedisQueueKeys,
  held: ReadonlyMap<string, string>,
  leaseMs: number,
): Promise<void> {
  if (held.size === 0) return;
  const pipeline = client.pipeline();
  const expiry = Date.now() + leaseMs;
  for (const [requestId, skill] of held) {
    pipeline.zadd(keys.skillSlots(skill), "XX", expiry, requestId);
    pipeline.pexpire(keys.skillSlots(skill), leaseMs * 2);
  }
  await pipeline.exec();
}

/** Gives a slot back. */
export async function releaseSkillSlot(
  client: Redis,
  keys: RedisQueueKeys,
  skill: string,
  requestId: string,
): Promise<void> {
  await client.zrem(keys.skillSlots(skill), requestId);
}
