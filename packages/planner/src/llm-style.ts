import type { LanguageModel } from 'ai';
import { z } from 'zod';
import {
  barOrientations,
  chartStylePatchSchema,
  chartThemes,
  chartTypes,
  dateFormats,
  legendPositions,
  numberFormats,
  stylePresetNames,
  type ChartStylePatch,
} from '@aqs/contracts';
import { summarize, type StyleRequest } from './style-request.ts';

/** Reads a chart-style request the lexicon could not; null when the question is not one. */
export type StyleReader = (
  question: string,
  signal?: AbortSignal,
) => Promise<(StyleRequest & { usage: { prompt_tokens: number; completion_tokens: number } }) | null>;

// Strict-JSON-schema friendly: every field required, null for "not asked".
const styleAnswerSchema = z.object({
  is_style_request: z
    .boolean()
    .describe('True only if the message asks to change how the chart looks and asks for no other data.'),
  chart_type: z.enum(chartTypes).nullable(),
  preset: z.enum(stylePresetNames).nullable(),
  theme: z.enum(chartThemes).nullable(),
  palette: z.array(z.string()).nullable().describe('Series colours as #rrggbb, in order.'),
  title: z.string().nullable(),
  show_title: z.boolean().nullable(),
  legend_position: z.enum(legendPositions).nullable(),
  axis_label_rotation: z.number().int().nullable(),
  number_format: z.enum(numberFormats).nullable(),
  date_format: z.enum(dateFormats).nullable(),
  stacked: z.boolean().nullable(),
  smooth: z.boolean().nullable(),
  area: z.boolean().nullable(),
  series_labels: z.boolean().nullable(),
  bar_orientation: z.enum(barOrientations).nullable(),
});

const SYSTEM = [
  'You read one message from a user looking at a chart in a data-analysis chat.',
  'Decide whether it only asks to change how the chart looks (type, colours, theme, legend, labels, title, formats).',
  'If it asks for other data, a filter, a period or a different measure, it is not a style request.',
  'Fill only the settings the message asks for; every other setting is null. Never invent a title.',
].join(' ');

/**
 * A model reading of a style request, applied only through the same whitelist as a typed patch:
 * the answer is checked by `chartStylePatchSchema`, so nothing outside the settings reaches a chart.
 */
export function createLlmStyleReader(options: { model: LanguageModel; maxRetries?: number }): StyleReader {
  return async (question, signal) => {
    const { generateText, Output } = await import('ai');
    const result = await generateText({
      model: options.model,
      system: SYSTEM,
      messages: [{ role: 'user', content: question }],
      output: Output.object({ schema: styleAnswerSchema, name: 'chart_style' }),
      maxOutputTokens: 400,
      maxRetries: options.maxRetries ?? 1,
      temperature: 0,
      ...(signal ? { abortSignal: signal } : {}),
    });
    const answer = result.output;
    if (!answer.is_style_request) return null;
    const { is_style_request: _style, chart_type: chartType, ...settings } = answer;
    const patch = Object.fromEntries(
      Object.entries(settings).filter(([, v]) => v !== null),
    ) as ChartStylePatch;
    const checked = chartStylePatchSchema.safeParse(patch);
    if (!checked.success || (chartType === null && Object.keys(checked.data).length === 0)) return null;
    return {
      patch: checked.data,
      chartType,
      summary: summarize(checked.data, chartType),
      usage: {
        prompt_tokens: result.usage.inputTokens ?? 0,
        completion_tokens: result.usage.outputTokens ?? 0,
      },
    };
  };
}
