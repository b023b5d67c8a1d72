import { and, eq, inArray } from 'drizzle-orm';
import { conversations, type Database, type Executor } from '@aqs/db';
import {
  DEFAULT_CHART_STYLE,
  chartStyleSchema,
  type ChartStyle,
  type ChartStylePatch,
  type ChartTheme,
  type ConversationStyle,
  type StylePreset,
} from '@aqs/contracts';
import { applyChartStyle, mergeChartStyle, parseChartStylePatch, stylePresetList } from '@aqs/charts';
import { DomainError } from '../errors.ts';
import type { Principal } from '../principal.ts';
import { loadOwnedConversation } from '../runs/store.ts';

/** What `conversations.style` holds: the settings, their version and when they last changed. */
interface StoredStyle {
  settings: ChartStyle;
  version: number;
  updated_at: string;
}

/** The stored style of a conversation, or null when it never had one (a stored value that no longer parses is ignored). */
export function storedStyleOf(value: unknown): StoredStyle | null {
  if (typeof value !== 'object' || value === null) return null;
  const stored = value as Partial<StoredStyle>;
  const settings = chartStyleSchema.safeParse(stored.settings);
  if (!settings.success || typeof stored.version !== 'number') return null;
  return { settings: settings.data, version: stored.version, updated_at: String(stored.updated_at) };
}

/** The settings of a conversation's style, without its id, version and time. */
function settingsOf(style: ConversationStyle): ChartStyle {
  const { conversation_id: _id, version: _version, updated_at: _updated, ...settings } = style;
  return settings;
}

function toConversationStyle(conversationId: string, stored: StoredStyle | null): ConversationStyle {
  return {
    ...(stored?.settings ?? DEFAULT_CHART_STYLE),
    conversation_id: conversationId,
    version: stored?.version ?? 0,
    updated_at: stored?.updated_at ?? null,
  };
}

export async function getConversationStyle(
  db: Executor,
  principal: Principal,
  conversationId: string,
): Promise<ConversationStyle> {
  const row = await loadOwnedConversation(db, principal, conversationId);
  return toConversationStyle(row.id, storedStyleOf(row.style));
}

/** The styles of several conversations at once (for run lists); conversations without one are left out. */
export async function stylesOf(
  db: Executor,
  conversationIds: string[],
): Promise<Map<string, ConversationStyle>> {
  const styles = new Map<string, ConversationStyle>();
  if (conversationIds.length === 0) return styles;
  const rows = await db
    .select({ id: conversations.id, style: conversations.style })
    .from(conversations)
    .where(inArray(conversations.id, [...new Set(conversationIds)]));
  for (const row of rows) {
    const style = conversationStyleOf(row.id, row.style);
    if (style) styles.set(row.id, style);
  }
  return styles;
}

/** A conversation's style from its stored `style` column; null when it never had one. */
export function conversationStyleOf(conversationId: string, value: unknown): ConversationStyle | null {
  const stored = storedStyleOf(value);
  return stored ? toConversationStyle(conversationId, stored) : null;
}

/** Parses a style patch from a request; an unknown setting or a bad value is a 422 naming it. */
export function parsePatch(patch: unknown): ChartStylePatch {
  const parsed = parseChartStylePatch(patch);
  if (!parsed.ok)
    throw new DomainError('validation', 'The style patch is invalid.', {
      fields: parsed.errors.map((e) => ({ field: e.field, message: e.message })),
    });
  return parsed.patch;
}

/**
 * Applies a checked patch to a conversation's style and bumps its version, under the conversation's
 * row lock (inside the caller's transaction) so two patches at once both land.
 */
export async function patchConversationStyle(
  tx: Executor,
  workspaceId: string,
  conversationId: string,
  patch: ChartStylePatch,
): Promise<ConversationStyle> {
  const [row] = await tx
    .select({ id: conversations.id, style: conversations.style })
    .from(conversations)
    .where(and(eq(conversations.id, conversationId), eq(conversations.workspaceId, workspaceId)))
    .for('update')
    .limit(1);
  if (!row)
    throw new DomainError('not_found', `Conversation ${conversationId} was not found in your workspace.`);
  const current = storedStyleOf(row.style);
  const next: StoredStyle = {
    settings: mergeChartStyle(current?.settings ?? { ...DEFAULT_CHART_STYLE }, patch),
    version: (current?.version ?? 0) + 1,
    updated_at: new Date().toISOString(),
  };
  await tx
    .update(conversations)
    .set({ style: next as unknown as Record<string, unknown> })
    .where(eq(conversations.id, row.id));
  return toConversationStyle(row.id, next);
}

/** POST .../style: a whitelisted patch, no model involved. */
export async function updateConversationStyle(
  db: Database,
  principal: Principal,
  conversationId: string,
  patch: unknown,
): Promise<ConversationStyle> {
  const checked = parsePatch(patch);
  return db.transaction((tx) => patchConversationStyle(tx, principal.workspaceId, conversationId, checked));
}

export function listStylePresets(): { presets: StylePreset[] } {
  return { presets: stylePresetList() };
}

/** A chart option with a conversation's style, and an optional theme for one render; unchanged when neither is set. */
export function styledOption(
  option: Record<string, unknown>,
  style: ConversationStyle | null,
  overrides?: { theme?: ChartTheme },
): Record<string, unknown> {
  if (!style && !overrides?.theme) return option;
  return applyChartStyle(option, style ? settingsOf(style) : DEFAULT_CHART_STYLE, overrides);
}
