import { describe, expect, it } from 'vitest';
import { MockLanguageModelV3 } from 'ai/test';
import { createLlmStyleReader, mentionsStyle, readStyleRequest } from '../src/index.ts';

function answer(fields: Record<string, unknown>) {
  const text = JSON.stringify({
    is_style_request: true,
    chart_type: null,
    preset: null,
    theme: null,
    palette: null,
    title: null,
    show_title: null,
    legend_position: null,
    axis_label_rotation: null,
    number_format: null,
    date_format: null,
    stacked: null,
    smooth: null,
    area: null,
    series_labels: null,
    bar_orientation: null,
    ...fields,
  });
  return new MockLanguageModelV3({
    doGenerate: {
      content: [{ type: 'text' as const, text }],
      finishReason: { unified: 'stop' as const, raw: 'stop' },
      usage: {
        inputTokens: { total: 90, noCache: 90, cacheRead: 0, cacheWrite: 0 },
        outputTokens: { total: 30, text: 30, reasoning: 0 },
      },
      warnings: [],
    },
  });
}

describe('the model reading of a style request', () => {
  it('turns the answer into a whitelisted patch with a summary and token counts', async () => {
    const read = await createLlmStyleReader({ model: answer({ palette: ['#008080'], chart_type: 'bar' }) })(
      'bars in our brand teal, a bit like the annual report',
    );
    expect(read).toMatchObject({
      patch: { palette: ['#008080'] },
      chartType: 'bar',
      usage: { prompt_tokens: 90, completion_tokens: 30 },
    });
    expect(read!.summary.length).toBeGreaterThan(0);
  });

  it('applies nothing outside the whitelist: a bad value or a data question gives null', async () => {
    const bad = createLlmStyleReader({ model: answer({ palette: ['url(https://evil.example/x)'] }) });
    expect(await bad('bars in our brand colour')).toBeNull();
    const rotated = createLlmStyleReader({ model: answer({ axis_label_rotation: 720 }) });
    expect(await rotated('tilt the labels all the way round')).toBeNull();
    const data = createLlmStyleReader({ model: answer({ is_style_request: false, theme: 'dark' }) });
    expect(await data('dark theme and only orders from 2024')).toBeNull();
    const empty = createLlmStyleReader({ model: answer({}) });
    expect(await empty('make it nicer')).toBeNull();
  });

  it('is asked only when the lexicon sees a style word it cannot read whole', () => {
    const question = 'teal bars, a bit like the annual report';
    expect(readStyleRequest(question)).toBeNull();
    expect(mentionsStyle(question)).toBe(true);
    expect(mentionsStyle('top customers by revenue')).toBe(false);
  });
});

describe('the cue for a model reading', () => {
  it('is off for a data question that mentions a style word among many others', () => {
    expect(mentionsStyle('revenue per region and channel for the last quarter as a stacked bar chart')).toBe(
      false,
    );
    expect(mentionsStyle('green bars please, like the brand guide')).toBe(true);
  });
});
