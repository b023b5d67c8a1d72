import { useMemo, useRef } from 'react';
import {
  DndContext,
  KeyboardSensor,
  PointerSensor,
  closestCenter,
  useSensor,
  useSensors,
  type Announcements,
  type DragEndEvent,
  type UniqueIdentifier,
} from '@dnd-kit/core';
import {
  SortableContext,
  arrayMove,
  rectSortingStrategy,
  sortableKeyboardCoordinates,
} from '@dnd-kit/sortable';
import type { Dashboard } from '../../lib/api.ts';
import { ItemCard } from './ItemCard.tsx';
import type { DashboardActions } from './queries.ts';

const instructions = {
  draggable:
    'To move this item, press Space or Enter, move it with the arrow keys, then press Space or Enter to drop it there. Escape cancels.',
};

/**
 * What a screen reader hears while an item moves: its title and its place among the items. A drag
 * starts over the item's own place; that is not said, so the pick-up is not talked over.
 */
function announcementsFor(dashboard: Dashboard): Announcements {
  const titleOf = (id: UniqueIdentifier) => dashboard.items.find((i) => i.id === id)?.title ?? 'The item';
  const placeOf = (id: UniqueIdentifier) =>
    `position ${dashboard.items.findIndex((i) => i.id === id) + 1} of ${dashboard.items.length}`;
  let lastOver: UniqueIdentifier | null = null;
  return {
    onDragStart: ({ active }) => {
      lastOver = active.id;
      return `Picked up “${titleOf(active.id)}”, at ${placeOf(active.id)}.`;
    },
    onDragOver: ({ active, over }) => {
      if ((over?.id ?? null) === lastOver) return undefined;
      lastOver = over?.id ?? null;
      return over
        ? `“${titleOf(active.id)}” is over ${placeOf(over.id)}.`
        : `“${titleOf(active.id)}” is not over a place.`;
    },
    onDragEnd: ({ active, over }) =>
      over
        ? `“${titleOf(active.id)}” was dropped at ${placeOf(over.id)}.`
        : `“${titleOf(active.id)}” was dropped where it was.`,
    onDragCancel: ({ active }) =>
      `Moving was cancelled: “${titleOf(active.id)}” stays at ${placeOf(active.id)}.`,
  };
}

/**
 * The items on a 12-column grid (two columns on a tablet, one on a phone), in their saved order.
 * Dragging with a pointer or the keyboard moves an item; a drop sends the whole new order.
 */
export function ItemGrid({
  dashboard,
  reorder,
  refreshingAll,
}: {
  dashboard: Dashboard;
  reorder: DashboardActions['reorder'];
  refreshingAll: boolean;
}) {
  const sensors = useSensors(
    // A few pixels of travel before a drag starts, so a click on the handle stays a click.
    useSensor(PointerSensor, { activationConstraint: { distance: 4 } }),
    useSensor(KeyboardSensor, { coordinateGetter: sortableKeyboardCoordinates }),
  );
  const ids = dashboard.items.map((i) => i.id);
  const announcements = useMemo(() => announcementsFor(dashboard), [dashboard]);
  const gridRef = useRef<HTMLOListElement>(null);
  // After a removal the focus goes to the handle now in that place (or the one before), else to the page.
  const focusAfterRemoval = (index: number) =>
    requestAnimationFrame(() => {
      const handles = gridRef.current?.querySelectorAll<HTMLButtonElement>('.drag-handle') ?? [];
      const next = handles[Math.min(index, handles.length - 1)];
      (next ?? document.getElementById('main'))?.focus();
    });

  const onDragEnd = ({ active, over }: DragEndEvent) => {
    if (!over || active.id === over.id) return;
    const moved = arrayMove(ids, ids.indexOf(String(active.id)), ids.indexOf(String(over.id)));
    reorder.mutate(moved);
  };

  return (
    <DndContext
      sensors={sensors}
      collisionDetection={closestCenter}
      onDragEnd={onDragEnd}
      accessibility={{ announcements, screenReaderInstructions: instructions }}
    >
      <SortableContext items={ids} strategy={rectSortingStrategy}>
        <ol ref={gridRef} className="dash-grid" aria-label={`Items of ${dashboard.name}`}>
          {dashboard.items.map((item, index) => (
            <ItemCard
              key={item.id}
              dashboardId={dashboard.id}
              item={item}
              refreshingAll={refreshingAll}
              onRemoved={() => focusAfterRemoval(index)}
            />
          ))}
        </ol>
      </SortableContext>
    </DndContext>
  );
}
