import { INSTANCE_ID } from '../instance.ts';
import { claimJob, JOB_STALE_MS, runJob, type DiscoveryDeps } from './jobs.ts';

export interface DiscoveryWorker {
  /** Looks for a job now instead of at the next poll (a job was just started here). */
  kick(): void;
  /** Takes no new job; the one running goes on (another instance resumes it if this process ends). */
  stop(): Promise<void>;
}

/**
 * Runs queued discovery jobs on this instance, one at a time: claims the oldest queued job (or one
 * whose holder went quiet for `staleMs`), runs it to its end, and looks again; idle, it polls the
 * store every `pollMs` (the first time one interval after it starts). Jobs live in the store, so any
 * instance sharing it may take them.
 */
export function startDiscoveryWorker(
  deps: DiscoveryDeps,
  options: { pollMs?: number; staleMs?: number; instanceId?: string } = {},
): DiscoveryWorker {
  const pollMs = options.pollMs ?? 1000;
  const staleMs = options.staleMs ?? deps.discoveryJobStaleMs ?? JOB_STALE_MS;
  const instanceId = options.instanceId ?? INSTANCE_ID;
  let stopped = false;
  let wake: (() => void) | undefined;
  const pause = () =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, pollMs);
      timer.unref?.();
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    }).then(() => {
      wake = undefined;
    });
  const loop = (async () => {
    // The first look waits an interval too: a start's first statements are the store's slowest (cold
    // caches), and the first requests the instance answers should not queue behind them.
    await pause();
    while (!stopped) {
      try {
        const job = await claimJob(deps, instanceId, undefined, staleMs);
        if (job) {
          await runJob(deps, job, { staleMs });
          continue;
        }
      } catch (error) {
        deps.logger.warn({ err: error }, 'the discovery worker could not take a job');
      }
      await pause();
    }
  })();
  return {
    kick: () => wake?.(),
    stop: async () => {
      stopped = true;
      wake?.();
      await Promise.race([loop, new Promise((resolve) => setTimeout(resolve, 100))]);
    },
  };
}
