import { useEffect, useMemo, useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { DEFAULT_CHART_STYLE, chartStyleSchema, type ChartStyle, type ChartStylePatch } from '@aqs/contracts';
import { keys, trpc, type ConversationStyle } from '../../lib/api.ts';
import { mergeChartStyle } from '../../lib/chart-style.ts';
import { Button, ErrorNote, Spinner } from '../../components/ui.tsx';
import { presetsQuery, styleQuery } from './queries.ts';
import { StyleControls } from './StyleControls.tsx';

const SETTINGS = Object.keys(chartStyleSchema.shape) as (keyof ChartStyle)[];

function settingsOf(style: ConversationStyle): ChartStyle {
  return Object.fromEntries(SETTINGS.map((key) => [key, style[key]])) as ChartStyle;
}

/** The settings that differ from the saved style: what Save sends. */
function changesOf(draft: ChartStyle, saved: ChartStyle): ChartStylePatch {
  const changed = SETTINGS.filter((key) => JSON.stringify(draft[key]) !== JSON.stringify(saved[key]));
  return Object.fromEntries(changed.map((key) => [key, draft[key]])) as ChartStylePatch;
}

/**
 * The chart style of a conversation. Every change is drawn at once on the conversation's charts,
 * here in the browser (`onPreview`), without a request; Save sends one `style.update` with the
 * changed settings and then reads the conversation again, whose charts come back styled.
 */
export default function StylePanel({
  conversationId,
  onPreview,
  onClose,
}: {
  conversationId: string;
  onPreview: (style: ChartStyle | null) => void;
  onClose: () => void;
}) {
  const queryClient = useQueryClient();
  const style = useQuery(styleQuery(conversationId));
  const presets = useQuery(presetsQuery);
  const [draft, setDraft] = useState<ChartStyle | null>(null);
  const saved = useMemo(() => (style.data ? settingsOf(style.data) : null), [style.data]);
  const current = draft ?? saved;
  const changes = current && saved ? changesOf(current, saved) : {};
  const dirty = Object.keys(changes).length > 0;

  useEffect(() => onPreview(dirty ? current : null), [dirty, current, onPreview]);
  useEffect(() => () => onPreview(null), [onPreview]);

  const save = useMutation({
    mutationFn: (patch: ChartStylePatch) => trpc.style.update.mutate({ id: conversationId, ...patch }),
    onSuccess: async (next) => {
      // The preview stays until the restyled charts are here, so nothing flashes back.
      await queryClient.invalidateQueries({ queryKey: keys.conversation(conversationId) });
      void queryClient.invalidateQueries({ queryKey: keys.runsAll, refetchType: 'none' });
      queryClient.setQueryData(keys.style(conversationId), next);
      setDraft(null);
    },
  });

  return (
    <aside className="style-panel" aria-labelledby="style-panel-title">
      <div>
        <h2 id="style-panel-title">Chart style</h2>
        <p className="muted small">
          For every chart of this conversation. Changes show at once; Save keeps them.
        </p>
      </div>
      {style.isPending || presets.isPending ? <Spinner label="Loading the style…" /> : null}
      <ErrorNote error={style.error ?? presets.error} title="The style could not be loaded" />
      {current && presets.data ? (
        <StyleControls
          style={current}
          presets={presets.data.presets}
          error={save.error}
          onPatch={(patch) => setDraft(mergeChartStyle(current, patch))}
        />
      ) : null}
      {save.error ? <ErrorNote error={save.error} title="The style was not saved" /> : null}
      <div className="row gap wrap">
        <Button
          variant="primary"
          disabled={!dirty}
          busy={save.isPending}
          onClick={() => save.mutate(changes)}
        >
          Save style
        </Button>
        <Button
          disabled={!current}
          onClick={() =>
            current && setDraft(mergeChartStyle({ ...DEFAULT_CHART_STYLE }, { preset: current.preset }))
          }
          title="Every setting back to the preset's default"
        >
          Reset
        </Button>
        <Button variant="ghost" onClick={onClose}>
          Close
        </Button>
        {dirty ? (
          <span className="muted small" role="status">
            Previewing unsaved changes
          </span>
        ) : null}
      </div>
    </aside>
  );
}
