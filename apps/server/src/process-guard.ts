/**
 * The last line of defence: an exception nothing caught, or a promise rejection nothing handled,
 * must not end a process that serves every tenant. Each one is logged at error with its stack (never
 * silently), and the service keeps serving. Connectors are written so that nothing reaches here (a
 * data source's socket error ends that request); this is for the case they missed. A burst is logged
 * in full up to a bound per minute, then counted, so a hostile peer cannot flood the log either.
 */
import type { Logger } from 'pino';

const LOGGED_PER_MINUTE = 20;

export function installProcessGuards(logger: Logger, target: NodeJS.EventEmitter = process): () => void {
  let windowStart = Date.now();
  let inWindow = 0;
  let suppressed = 0;
  const report = (kind: string, error: unknown): void => {
    const now = Date.now();
    if (now - windowStart >= 60_000) {
      if (suppressed > 0)
        logger.error(
          { suppressed },
          `${suppressed} more uncaught errors in the last minute were not logged in full`,
        );
      windowStart = now;
      inWindow = 0;
      suppressed = 0;
    }
    if (inWindow++ < LOGGED_PER_MINUTE)
      logger.error(
        { err: error, kind },
        `${kind}: the operation that raised it failed; the service keeps serving`,
      );
    else suppressed++;
  };
  const onException = (error: unknown): void => report('uncaught exception', error);
  const onRejection = (reason: unknown): void => report('unhandled rejection', reason);
  target.on('uncaughtException', onException);
  target.on('unhandledRejection', onRejection);
  return () => {
    target.off('uncaughtException', onException);
    target.off('unhandledRejection', onRejection);
  };
}
