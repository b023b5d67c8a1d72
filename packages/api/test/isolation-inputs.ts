// What the isolation matrices (here through callers, in apps/server over REST) fill every procedure
// with: the owner's real ids in the path, and a valid rest of the input, so that each answer is
// about ownership and not about validation.

export interface OwnedIds {
  connectionId: string;
  runId: string;
  conversationId: string;
  artifactId: string;
  chartId: string;
  templateId: string;
  dashboardId: string;
  itemId: string;
  jobId: string;
  inviteId: string;
  memberUserId: string;
}

/** Ids of the right shape that nothing has: a foreign id must answer exactly as these do. */
export const UNKNOWN_IDS: OwnedIds = {
  connectionId: 'con_unknown0000000000',
  runId: 'run_unknown0000000000',
  conversationId: 'cnv_unknown0000000000',
  artifactId: 'art_unknown0000000000',
  chartId: 'art_unknown0000000001',
  templateId: 'tpl_unknown0000000000',
  dashboardId: 'dsh_unknown0000000000',
  itemId: 'itm_unknown0000000000',
  jobId: 'djb_unknown0000000000',
  inviteId: 'inv_unknown0000000000',
  memberUserId: 'usr_unknown0000000000',
};

/** The path parameters of a REST route, from the ids (`{id}` is the resource the path starts with). */
export function pathParamsOf(restPath: string, ids: OwnedIds): Record<string, string | number> {
  const params: Record<string, string | number> = {};
  for (const [, name] of restPath.matchAll(/\{(\w+)\}/g)) {
    params[name!] = {
      id: restPath.startsWith('/api/v1/conversations/')
        ? ids.conversationId
        : restPath.startsWith('/api/v1/dashboards/')
          ? ids.dashboardId
          : ids.connectionId,
      item_id: ids.itemId,
      connection_id: ids.connectionId,
      table_name: 'employees',
      run_id: ids.runId,
      artifact_id: ids.artifactId,
      template_id: ids.templateId,
      job_id: ids.jobId,
      invite_id: ids.inviteId,
      member_user_id: ids.memberUserId,
      from_turn_index: 5,
    }[name!]!;
  }
  return params;
}

/** A valid rest of the input of each procedure that takes more than its path. */
export function bodyOf(procedure: string, ids: OwnedIds): Record<string, unknown> | undefined {
  const bodies: Record<string, Record<string, unknown>> = {
    'connections.authModes': { dialect: 'elasticsearch' },
    'style.update': { legend_position: 'bottom' },
    'style.restyle': { run_id: ids.runId, artifact_id: ids.chartId },
    'templates.create': { name: 'Saved', question: 'number of employees by gender', run_id: ids.runId },
    'dashboards.update': { name: 'Renamed' },
    'dashboards.addItem': { artifact_id: ids.artifactId },
    'dashboards.reorder': { item_ids: [ids.itemId] },
    'dashboards.updateItem': { title: 'Renamed' },
    'templates.update': { name: 'Renamed', question: 'number of employees by gender', parameters: [] },
    'connections.update': { name: 'renamed' },
    'connections.paused': { paused: false },
    'connections.tags': { tags: ['x'] },
    'schema.putMetadata': { tables: [] },
    'schema.putOverrides': { primary_keys: [], relationships: [] },
    'schema.putSelection': { tables: [] },
    'schema.putSelectedTables': { tables: [] },
  };
  return bodies[procedure];
}

/** What only the workspace's owner may do: a member is refused (403 `owner_required`) before any id is looked up. */
export const OWNER_ONLY = [
  'connections.create',
  'connections.update',
  'connections.delete',
  'connections.duplicate',
  'connections.paused',
  'billing.checkout',
  'billing.portal',
  'workspace.invite',
  'workspace.revokeInvite',
] as const;
