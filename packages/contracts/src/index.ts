export * from './errors.ts';
export * from './common.ts';
export * from './accounts.ts';
export * from './connections.ts';
export * from './query-spec.ts';
export * from './runs.ts';
export * from './style.ts';
export * from './templates.ts';
export { seededRandom } from './random.ts';
