import { availableParallelism } from "node:os";
import { isPlainObject } from "../core/safe-json.js";
import { bounded, mapping, unknownKeys } from "./config-fields.js";

/**
 * The `queue` section of config.yaml (docs/queue.md, "Configuration"): which backend the
 * worker pool uses, how many requests may wait, how many run at once per worker and per
 * skill, and how often a worker says it is alive.
 */
export interface QueueConfig {
  /** `local`: the file queue in the data folder; `redis`: BullMQ on {@link redis}. */
  readonly backend: "local" | "redis";
  readonly redis: {
    /** `redis://` or `rediss://`; required with backend `redis`. */
    readonly url?: string;
  };
  /** Requests that may wait at once; a submit beyond it is refused (`queue_full`). */
  readonly capacity: number;
  readonly workers: {
    /**
     * `auto`: `skillgate serve` starts one worker in its own process when the queue shows no
     * live worker at its start; `on`: always; `off`: never (workers run as `skillgate worker`).
     */
    readonly inProcess: "auto" | "on" | "off";
  };
  /** Runs at once per worker; default the number of cores. */
  readonly concurrency: number;
  /** Per-skill limits on runs at once across the whole pool. */
  readonly skills: { readonly [skill: string]: { readonly concurrency: number } };
  /** How often a worker refreshes its liveness; a worker silent for 3 of these is judged dead. */
  readonly heartbeatSeconds: number;
}

/** Local backend, 1,000 waiting, in-process worker when none runs, a worker per core, 2 s heartbeat. */
export const DEFAULT_QUEUE_CONFIG: QueueConfig = {
  backend: "local",
  redis: {},
  capacity: 1000,
  workers: { inProcess: "auto" },
  concurrency: Math.max(1, availableParallelism()),
  skills: {},
  heartbeatSeconds: 2,
};

const BOUNDS = {
  capacity: { min: 1, max: 1_000_000 },
  concurrency: { min: 1, max: 1024 },
  heartbeatSeconds: { min: 1, max: 300 },
  skillConcurrency: { min: 1, max: 1024 },
} as const;

/** A skill name as the store and the catalog allow it (lower case, digits, hyphens). */
const SKILL_NAME = /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;

/** Reads the `queue` section, adding every problem to `problems`. */
export function readQueueConfig(section: Record<string, unknown>, problems: string[]): QueueConfig {
  unknownKeys(
    section,
    "queue",
    ["backend", "redis", "capacity", "workers", "concurrency", "skills", "heartbeat_seconds"],
    problems,
  );
  const defaults = DEFAULT_QUEUE_CONFIG;
  const redis = mapping(section, "redis", "queue", problems);
  unknownKeys(redis, "queue.redis", ["url"], problems);
  const workers = mapping(section, "workers", "queue", problems);
  unknownKeys(workers, "queue.workers", ["in_process"], problems);
  const backend = section.backend ?? defaults.backend;
  if (backend !== "local" && backend !== "redis") problems.push('"queue.backend" must be local or redis');
  const url = redis.url;
  if (url !== undefined && (typeof url !== "string" || !/^rediss?:\/\/\S+$/.test(url)))
    problems.push('"queue.redis.url" must be a redis:// or rediss:// address');
  if (backend === "redis" && url === undefined)
    problems.push('"queue.redis.url" is required with "queue.backend: redis"');
  const inProcess = workers.in_process ?? defaults.workers.inProcess;
  if (inProcess !== "auto" && inProcess !== "on" && inProcess !== "off")
    problems.push('"queue.workers.in_process" must be auto, on or off');
  return {
    backend: backend === "redis" ? "redis" : "local",
    redis: typeof url === "string" ? { url } : {},
    capacity: bounded(section.capacity, "queue.capacity", BOUNDS.capacity, defaults.capacity, problems),
    workers: { inProcess: inProcess === "on" || inProcess === "off" ? inProcess : "auto" },
    concurrency: bounded(
      section.concurrency,
      "queue.concurrency",
      BOUNDS.concurrency,
      defaults.concurrency,
      problems,
    ),
    skills: skillLimits(section.skills, problems),
    heartbeatSeconds: bounded(
      section.heartbeat_seconds,
      "queue.heartbeat_seconds",
      BOUNDS.heartbeatSeconds,
      defaults.heartbeatSeconds,
      problems,
    ),
  };
}

function skillLimits(value: unknown, problems: string[]): QueueConfig["skills"] {
  if (value === undefined || value === null) return {};
  if (!isPlainObject(value)) {
    problems.push('"queue.skills" must be a mapping of skill names');
    return {};
  }
  const limits: Record<string, { concurrency: number }> = {};
  for (const [name, entry] of Object.entries(value)) {
    const where = `queue.skills.${name}`;
    if (!SKILL_NAME.test(name)) {
      problems.push(`"${where}" is not a skill name`);
      continue;
    }
    const inner = isPlainObject(entry) ? entry : {};
    if (!isPlainObject(entry)) problems.push(`"${where}" must be a mapping`);
    unknownKeys(inner, where, ["concurrency"], problems);
    limits[name] = {
      concurrency: bounded(inner.concurrency, `${where}.concurrency`, BOUNDS.skillConcurrency, 1, problems),
    };
  }
  return limits;
}
