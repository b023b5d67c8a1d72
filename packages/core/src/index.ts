export * from './errors.ts';
export * from './ports.ts';
export * from './principal.ts';
export { randomToken, sha256Hex } from './crypto.ts';
export * as accounts from './accounts/accounts.ts';
export * as apiKeys from './accounts/api-keys.ts';
export {
  authenticate,
  type Authenticated,
  type Credential,
  type RateLimitHit,
} from './accounts/authenticate.ts';
export { createLocalAuth, PRINCIPALS_CHANNEL, type LocalAuth } from './accounts/local-auth.ts';
export { hashPassword, verifyPassword } from './accounts/passwords.ts';
export { deleteExpiredSessions } from './accounts/sessions.ts';
export { hitFixedWindow, deleteExpiredCounters, type WindowHit } from './limits/rate-limit.ts';
export {
  clearStreamLeases,
  createStreamLeases,
  deleteExpiredLeases,
  STREAM_LEASE_TTL_MS,
  type StreamLeases,
} from './limits/stream-leases.ts';
export { INSTANCE_ID } from './instance.ts';
export { deliverEmail } from './mail/deliver.ts';
export * as connections from './connections/service.ts';
export * as schema from './connections/schema.ts';
export { createSecretBox, type SecretBox } from './secret-box.ts';
export { csvCell, csvStream, neutralizeFormula, type CsvColumn } from './artifacts/csv.ts';
export { contentDisposition, downloadFilename, type DownloadExtension } from './artifacts/filename.ts';
export {
  PLAN_LIMITS,
  parsePlanOverrides,
  planLimitsOf,
  type PlanLimits,
  type PlanTable,
} from './limits/plans.ts';
export * as billing from './billing/service.ts';
export type { BillingEvent, BillingProvider, SubscriptionState } from './billing/provider.ts';
export * as workspaces from './workspaces/service.ts';
export * as runs from './runs/store.ts';
export * as artifacts from './artifacts/service.ts';
export { csvExport, downloadArtifact, renderArtifact, type FileResponse } from './artifacts/exports.ts';
export * as style from './style/service.ts';
export * as templates from './templates/service.ts';
export * as dashboards from './dashboards/service.ts';
export { refreshDashboard, refreshDashboardItem, REFRESH_CONCURRENCY } from './dashboards/refresh.ts';
export { downloadItem } from './dashboards/exports.ts';
export {
  executeRun,
  prepareRun,
  silentObserver,
  type PreparedRun,
  type RunObserver,
  type RunDeps,
} from './runs/pipeline.ts';
export {
  consumeUsage,
  refundCharge,
  refundStaleCharges,
  staleChargeAgeMs,
  usagePeriod,
} from './limits/usage.ts';
export { checkTemplateDefinition } from './templates/definition.ts';
export { bindTemplate } from './templates/bind.ts';
export { matchTemplate } from './templates/match.ts';
export * as discovery from './discovery/jobs.ts';
export { semanticTypeOf, type ColumnFacts } from './discovery/semantics.ts';
export { startDiscoveryWorker, type DiscoveryWorker } from './discovery/worker.ts';
export { isStoreUnavailable } from '@aqs/db';
