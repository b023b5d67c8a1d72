/**
 * The chart style engine of `@aqs/charts/style` for the live preview. It pulls zod in, so it is only
 * ever imported dynamically (by <Chart> while a draft style is shown, and by the style panel's chunk),
 * never from the main chunk.
 */
import { applyChartStyle } from '@aqs/charts/style';
import type { ChartStyle } from '@aqs/contracts';

export { mergeChartStyle } from '@aqs/charts/style';

/** The option drawn in `style`; the option itself when the draft is not a valid style (yet). */
export function previewOption(option: Record<string, unknown>, style: ChartStyle): Record<string, unknown> {
  try {
    return applyChartStyle(option, style);
  } catch {
    return option;
  }
}
