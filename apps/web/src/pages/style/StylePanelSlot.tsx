import { lazy, Suspense, useEffect, useState } from 'react';
import type { ChartStyle } from '@aqs/contracts';
import { Spinner } from '../../components/ui.tsx';

// The panel (and the style engine with zod under it) is fetched the first time it is opened.
const StylePanel = lazy(() => import('./StylePanel.tsx'));

/** Whether a conversation's style panel is open, and the unsaved style it previews; both end with the conversation. */
export function useStyling(conversationId: string | null) {
  const [open, setOpen] = useState(false);
  const [preview, setPreview] = useState<ChartStyle | null>(null);
  useEffect(() => {
    setOpen(false);
    setPreview(null);
  }, [conversationId]);
  return { open, toggle: () => setOpen((was) => !was), close: () => setOpen(false), preview, setPreview };
}

export function StylePanelSlot({
  conversationId,
  styling,
}: {
  conversationId: string | null;
  styling: ReturnType<typeof useStyling>;
}) {
  if (!conversationId || !styling.open) return null;
  return (
    <Suspense fallback={<Spinner label="Loading the style panel…" />}>
      <StylePanel conversationId={conversationId} onPreview={styling.setPreview} onClose={styling.close} />
    </Suspense>
  );
}
