/**
 * Where the title, the legend and the plot go, in pixels. The builder lays a chart out with these and
 * the style engine lays it out again with them when a setting moves something (a hidden title, a
 * legend at the side), so a default style leaves a built chart exactly as it was.
 */

const TITLE_TOP = 8;
const TITLE_HEIGHT = 26;
const SUBTEXT_HEIGHT = 18;
/** A horizontal legend row above the plot, with its gap. */
const LEGEND_ROW = 34;
const GAP_ABOVE_PLOT = 10;

/** Where whatever comes below the title starts (the legend, or the plot). */
export function belowTitle(showTitle: boolean, hasSubtext: boolean): number {
  if (!showTitle) return TITLE_TOP;
  return TITLE_TOP + TITLE_HEIGHT + (hasSubtext ? SUBTEXT_HEIGHT : 0);
}

/** `grid.top`: below the title, and below the legend when the legend is a row at the top. */
export function plotTop(showTitle: boolean, hasSubtext: boolean, legendOnTop: boolean): number {
  return belowTitle(showTitle, hasSubtext) + (legendOnTop ? LEGEND_ROW : TITLE_TOP) + GAP_ABOVE_PLOT;
}

/** `grid.bottom` of a cartesian chart, and the data-zoom slider under the plot. */
export const PLOT_BOTTOM = 40;
export const PLOT_BOTTOM_WITH_SLIDER = 84;
export const SLIDER = { bottom: 8, height: 22 } as const;
/** `grid.left` and `grid.right`: the axis labels are kept inside the canvas by ECharts (outerBounds). */
export const PLOT_LEFT = 24;
export const PLOT_RIGHT = 32;

/** A legend at the bottom: 8 px from the edge, and the room it takes from the plot. */
export const LEGEND_BOTTOM = 8;
export const LEGEND_BOTTOM_ROW = 30;
/** A vertical legend at the left or right: its offset from the edge, text width and the room it takes. */
export const LEGEND_SIDE = 8;
export const LEGEND_SIDE_TEXT_WIDTH = 100;
export const LEGEND_SIDE_ROOM = 150;

/** Axis name gaps: a name under the plot, and a value name left of the value labels. */
export const NAME_GAP_BELOW = 28;
export const NAME_GAP_BELOW_CATEGORIES = 30;
export const NAME_GAP_LEFT = 52;

/**
 * Category-axis labels: on a vertical bar or line chart every label is tried and overlapping ones
 * hidden; on horizontal bars (one label per row) long labels are cut wider.
 */
export function categoryAxisLabel(horizontal: boolean): Record<string, unknown> {
  return horizontal
    ? { width: 160, overflow: 'truncate' }
    : { interval: 0, hideOverlap: true, width: 100, overflow: 'truncate' };
}

const PIE_CENTRES: Record<'top' | 'bottom' | 'left' | 'right' | 'none', [string, string]> = {
  top: ['50%', '57%'],
  none: ['50%', '55%'],
  bottom: ['50%', '50%'],
  left: ['60%', '55%'],
  right: ['40%', '55%'],
};

/** A pie's radius and centre, leaving room for its legend where it is. */
export function piePlace(legend: keyof typeof PIE_CENTRES): { radius: string; center: [string, string] } {
  const [x, y] = PIE_CENTRES[legend];
  return { radius: '60%', center: [x, y] };
}
