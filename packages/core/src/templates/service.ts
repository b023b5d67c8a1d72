import { and, asc, count, eq } from 'drizzle-orm';
import { connections, newId, queryTemplates, runs, type Database, type Executor } from '@aqs/db';
import { querySpecSchema, type QuerySpec, type Template, type TemplateParameter } from '@aqs/contracts';
import { DomainError } from '../errors.ts';
import type { Principal } from '../principal.ts';
import { loadOwnedConnection } from '../connections/service.ts';
import { checkTemplateDefinition } from './definition.ts';

export type TemplateRow = typeof queryTemplates.$inferSelect;

/** Templates a connection may hold: each question asked on it is compared with every one. */
export const MAX_TEMPLATES_PER_CONNECTION = 200;

interface TemplateFields {
  name: string;
  description?: string | null | undefined;
  question: string;
  parameters: TemplateParameter[];
}

export function toTemplate(row: TemplateRow): Template {
  return {
    id: row.id,
    connection_id: row.connectionId,
    name: row.name,
    description: row.description,
    question: row.question,
    parameters: row.parameters as unknown as TemplateParameter[],
    query_spec: row.querySpec as unknown as QuerySpec,
    source_run_id: row.sourceRunId,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

/** The QuerySpec of a succeeded run of this connection, in the caller's workspace. */
async function specOfRun(db: Executor, principal: Principal, runId: string, connectionId: string) {
  const [run] = await db
    .select({ id: runs.id, connectionId: runs.connectionId, status: runs.status, spec: runs.querySpec })
    .from(runs)
    .where(and(eq(runs.id, runId), eq(runs.workspaceId, principal.workspaceId)))
    .limit(1);
  if (!run) throw new DomainError('not_found', `Run ${runId} was not found in your workspace.`);
  const refuse = (message: string) =>
    new DomainError('validation', `run_id ${message}`, { fields: [{ field: 'run_id', message }] });
  if (run.connectionId !== connectionId) throw refuse('belongs to another connection');
  const spec = querySpecSchema.safeParse(run.spec);
  if (run.status !== 'succeeded' || !spec.success)
    throw refuse('did not answer with a query; save a template from a succeeded run');
  return spec.data;
}

function assertDefinition(fields: TemplateFields, spec: QuerySpec): void {
  const problems = checkTemplateDefinition({
    question: fields.question,
    parameters: fields.parameters,
    spec,
  });
  if (problems.length > 0)
    throw new DomainError('validation', 'The template does not fit its question or query.', {
      fields: problems,
    });
}

async function loadOwnedTemplate(
  db: Executor,
  principal: Principal,
  templateId: string,
): Promise<TemplateRow> {
  const [row] = await db
    .select()
    .from(queryTemplates)
    .where(and(eq(queryTemplates.id, templateId), eq(queryTemplates.workspaceId, principal.workspaceId)))
    .limit(1);
  if (!row) throw new DomainError('not_found', `Template ${templateId} was not found in your workspace.`);
  return row;
}

export async function listTemplates(
  db: Executor,
  principal: Principal,
  connectionId: string,
): Promise<{ templates: Template[] }> {
  const connection = await loadOwnedConnection(db, principal, connectionId);
  return { templates: (await templatesOfConnection(db, connection.id)).map(toTemplate) };
}

/** Every template of a connection, oldest first (the order a question is matched in). */
export function templatesOfConnection(db: Executor, connectionId: string): Promise<TemplateRow[]> {
  return db
    .select()
    .from(queryTemplates)
    .where(eq(queryTemplates.connectionId, connectionId))
    .orderBy(asc(queryTemplates.createdAt), asc(queryTemplates.id));
}

export async function createTemplate(
  db: Database,
  principal: Principal,
  input: TemplateFields & { id: string; run_id: string },
): Promise<Template> {
  const connection = await loadOwnedConnection(db, principal, input.id);
  const spec = await specOfRun(db, principal, input.run_id, connection.id);
  assertDefinition(input, spec);
  return db.transaction(async (tx) => {
    // Creates for one connection take turns, so the count below holds until the insert.
    await tx
      .select({ id: connections.id })
      .from(connections)
      .where(eq(connections.id, connection.id))
      .for('update');
    const [held] = await tx
      .select({ n: count() })
      .from(queryTemplates)
      .where(eq(queryTemplates.connectionId, connection.id));
    if ((held?.n ?? 0) >= MAX_TEMPLATES_PER_CONNECTION)
      throw new DomainError(
        'conflict',
        `A connection holds at most ${MAX_TEMPLATES_PER_CONNECTION} templates; delete one first.`,
      );
    const [row] = await tx
      .insert(queryTemplates)
      .values({
        id: newId('tpl'),
        workspaceId: principal.workspaceId,
        connectionId: connection.id,
        name: input.name,
        description: input.description ?? null,
        question: input.question,
        parameters: input.parameters as unknown as Record<string, unknown>[],
        querySpec: spec as unknown as Record<string, unknown>,
        sourceRunId: input.run_id,
        createdBy: principal.userId,
      })
      .returning();
    return toTemplate(row!);
  });
}

/** Replaces a template's name, description, question and parameters (and its query, given a run). */
export async function updateTemplate(
  db: Database,
  principal: Principal,
  input: TemplateFields & { template_id: string; run_id?: string | undefined },
): Promise<Template> {
  const current = await loadOwnedTemplate(db, principal, input.template_id);
  const spec = input.run_id
    ? await specOfRun(db, principal, input.run_id, current.connectionId)
    : (current.querySpec as unknown as QuerySpec);
  assertDefinition(input, spec);
  const [row] = await db
    .update(queryTemplates)
    .set({
      name: input.name,
      description: input.description ?? null,
      question: input.question,
      parameters: input.parameters as unknown as Record<string, unknown>[],
      querySpec: spec as unknown as Record<string, unknown>,
      sourceRunId: input.run_id ?? current.sourceRunId,
      updatedAt: new Date(),
    })
    .where(eq(queryTemplates.id, current.id))
    .returning();
  return toTemplate(row!);
}

export async function deleteTemplate(db: Database, principal: Principal, templateId: string): Promise<void> {
  const row = await loadOwnedTemplate(db, principal, templateId);
  await db.delete(queryTemplates).where(eq(queryTemplates.id, row.id));
}

/** The template a run request names: in the caller's workspace (404) and of the run's connection (422). */
export async function templateForRun(
  db: Executor,
  principal: Principal,
  templateId: string,
  connectionId: string,
): Promise<TemplateRow> {
  const row = await loadOwnedTemplate(db, principal, templateId);
  if (row.connectionId !== connectionId)
    throw new DomainError('validation', 'The template belongs to another connection.', {
      fields: [{ field: 'template.id', message: 'belongs to another connection; use its connection_id' }],
    });
  return row;
}
