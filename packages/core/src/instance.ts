import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';

/**
 * This process among the instances sharing a store: host, pid and a random part (a restarted process
 * is another instance). Job claims and stream leases carry it.
 */
export const INSTANCE_ID = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
