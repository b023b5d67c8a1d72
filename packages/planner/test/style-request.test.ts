import { chartStylePatchSchema, type ChartStylePatch, type ChartType } from '@aqs/contracts';
import { describe, expect, it } from 'vitest';
import { readStyleRequest, type StyleRequest } from '../src/index.ts';

/**
 * Chart-style requests read offline. Every sentence here is written for this file; each class of
 * phrase is tried in a few wordings, and data questions that mention chart words or colours must be
 * left to the planner (null).
 */
function style(question: string): StyleRequest {
  const read = readStyleRequest(question);
  expect(read, question).not.toBeNull();
  expect(chartStylePatchSchema.safeParse(read!.patch).success, question).toBe(true);
  return read!;
}

type Case = [question: string, patch: ChartStylePatch, chartType?: ChartType];

function expectCases(cases: Case[]): void {
  for (const [question, patch, chartType] of cases) {
    const read = style(question);
    expect(read.patch, question).toEqual(patch);
    expect(read.chartType, question).toBe(chartType ?? null);
  }
}

describe('chart types', () => {
  it('reads chart nouns and their synonyms; area is a filled line chart', () => {
    expectCases([
      ['turn this into a line graph', { area: false }, 'line'],
      ['could we have it as a bar chart?', {}, 'bar'],
      ['pie please', {}, 'pie'],
      ['switch to a donut', {}, 'pie'],
      ['scatterplot instead', {}, 'scatter'],
      ['show it as a scatter plot', {}, 'scatter'],
      ['make it an area chart', { area: true }, 'line'],
      ['column graph', { bar_orientation: 'vertical' }, 'bar'],
    ]);
  });

  it('two different chart types in one sentence are a contradiction', () => {
    expect(readStyleRequest('a pie chart as a bar chart')).toBeNull();
    expect(readStyleRequest('line chart or scatter plot')).toBeNull();
  });
});

describe('theme and presets', () => {
  it('reads light and dark in words of theme, mode and background', () => {
    expectCases([
      ['switch to dark mode', { theme: 'dark' }],
      ['use a black background', { theme: 'dark' }],
      ['can it be dark please', { theme: 'dark' }],
      ['back to the light theme', { theme: 'light' }],
      ['white background', { theme: 'light' }],
    ]);
  });

  it('reads preset names and their synonyms', () => {
    expectCases([
      ['colorblind safe palette', { preset: 'colourblind' }],
      ['use colour blind friendly colours', { preset: 'colourblind' }],
      ['make it accessible', { preset: 'colourblind' }],
      ['printer friendly please', { preset: 'print' }],
      ['grayscale', { preset: 'print' }],
      ['make it monochrome', { preset: 'print' }],
      ['black and white', { preset: 'print' }],
      ['a cleaner look', { preset: 'minimal' }],
      ['minimalist style', { preset: 'minimal' }],
      ['brighter colours', { preset: 'vivid' }],
      ['vibrant palette', { preset: 'vivid' }],
      ['softer colours please', { preset: 'pastel' }],
      ['pastels', { preset: 'pastel' }],
      ['reset the style', { preset: 'default' }],
      ['go back to the normal colours', { preset: 'default' }],
    ]);
  });

  it('a word the preset class does not know keeps the question out', () => {
    expect(readStyleRequest('black & white for the handout')).toBeNull();
  });
});

describe('colours', () => {
  it('reads CSS colour names, British and American, into a palette in the order said', () => {
    expectCases([
      ['purple bars', { palette: ['#800080'] }],
      ['colour the slices teal, coral and navy', { palette: ['#008080', '#ff7f50', '#000080'] }],
      ['paint it grey', { palette: ['#808080'] }],
      ['gray lines', { palette: ['#808080'] }],
      ['the columns in dark grey and light gray', { palette: ['#a9a9a9', '#d3d3d3'] }],
      ['palette: gold / silver', { palette: ['#ffd700', '#c0c0c0'] }],
      ['make the points crimson and the lines sky blue', { palette: ['#dc143c', '#87ceeb'] }],
    ]);
  });

  it('a colour before a chart noun colours the chart it names', () => {
    expectCases([['an orange bar graph', { palette: ['#ffa500'] }, 'bar']]);
    expectCases([['a pie chart in magenta and lime', { palette: ['#ff00ff', '#00ff00'] }, 'pie']]);
  });

  it('a colour name nobody points at is not a style request (it may be a filter)', () => {
    for (const question of ['yellow', 'just the maroon ones', 'and olive?', 'light blue'])
      expect(readStyleRequest(question), question).toBeNull();
  });
});

describe('legend', () => {
  it('reads placements and hiding', () => {
    expectCases([
      ['legend on the left side', { legend_position: 'left' }],
      ['move the legend up top', { legend_position: 'top' }],
      ['put the legend beneath the chart', { legend_position: 'bottom' }],
      ['right legend', { legend_position: 'right' }],
      ['lose the legend', { legend_position: 'none' }],
      ["don't show a legend", { legend_position: 'none' }],
      ['legend off', { legend_position: 'none' }],
      ['bring back the legend', { legend_position: 'top' }],
    ]);
  });

  it('hiding and placing the legend at once is a contradiction', () => {
    expect(readStyleRequest('no legend, legend on the right')).toBeNull();
    expect(readStyleRequest('legend at the top and legend at the bottom')).toBeNull();
  });
});

describe('stacking, lines and fill', () => {
  it('reads stacking and its opposite', () => {
    expectCases([
      ['stacked please', { stacked: true }],
      ['put the series on top of each other', { stacked: true }],
      ['un-stack the bars', { stacked: false }],
      ['grouped bars side by side', { stacked: false }],
      ["don't stack them", { stacked: false }],
    ]);
  });

  it('reads smooth and straight lines', () => {
    expectCases([
      ['curved lines', { smooth: true }],
      ['smooth out the curves', { smooth: true }],
      ['jagged lines please', { smooth: false }],
      ['no smoothing', { smooth: false }],
    ]);
  });

  it('reads filling the area under lines', () => {
    expectCases([
      ['fill in the area beneath the lines', { area: true }],
      ['shaded', { area: true }],
      ['without fill', { area: false }],
      ['unfilled', { area: false }],
    ]);
  });

  it('a stacked smooth area chart combines', () => {
    expectCases([['a stacked smooth area chart', { stacked: true, smooth: true, area: true }, 'line']]);
  });
});

describe('value labels', () => {
  it('reads showing and hiding values on the marks', () => {
    expectCases([
      ['add data labels', { series_labels: true }],
      ['put the numbers above the bars', { series_labels: true }],
      ['label each slice', { series_labels: true }],
      ['with values on the points', { series_labels: true }],
      ['remove the value labels', { series_labels: false }],
      ['values off', { series_labels: false }],
    ]);
  });
});

describe('label rotation', () => {
  it('reads degrees and angle words, clamped to -90..90', () => {
    expectCases([
      ['tilt the x axis labels 30 degrees', { axis_label_rotation: 30 }],
      ['labels rotated by -60', { axis_label_rotation: -60 }],
      ['rotate the category labels to 200°', { axis_label_rotation: 90 }],
      ['rotate labels -135 deg', { axis_label_rotation: -90 }],
      ['sideways labels', { axis_label_rotation: 90 }],
      ['slanted axis labels', { axis_label_rotation: 45 }],
      ['make the labels flat', { axis_label_rotation: 0 }],
      ['angle the labels', { axis_label_rotation: 45 }],
    ]);
  });
});

describe('bar orientation', () => {
  it('reads horizontal and vertical bars', () => {
    expectCases([
      ['make the bars go horizontal', { bar_orientation: 'horizontal' }, 'bar'],
      ['vertical columns', { bar_orientation: 'vertical' }, 'bar'],
      ['flip it horizontally', { bar_orientation: 'horizontal' }],
    ]);
  });
});

describe('number formats', () => {
  it('reads percentages and currencies by name, code and sign', () => {
    expectCases([
      ['show it as a percentage', { number_format: 'percent' }],
      ['in %', { number_format: 'percent' }],
      ['values in USD', { number_format: 'usd' }],
      ['use $ please', { number_format: 'usd' }],
      ['switch to EUR', { number_format: 'eur' }],
      ['€ instead', { number_format: 'eur' }],
      ['pounds sterling', { number_format: 'gbp' }],
      ['in £', { number_format: 'gbp' }],
      ['yen', { number_format: 'jpy' }],
      ['in ¥', { number_format: 'jpy' }],
      ['regular numbers again', { number_format: 'auto' }],
      ['no currency', { number_format: 'auto' }],
    ]);
  });

  it('two formats at once are a contradiction', () => {
    expect(readStyleRequest('in dollars and euros')).toBeNull();
  });
});

describe('date formats', () => {
  it('reads a sample date written as the user wants dates written', () => {
    expectCases([
      ['dates like 2024-12-05', { date_format: 'iso_date' }],
      ['format the dates as 2023-07', { date_format: 'iso_month' }],
      ['write dates as 28/02/2026', { date_format: 'day_month_year' }],
      ['dates as 02/28/2026', { date_format: 'month_day_year' }],
      ['date labels like Sep 2024', { date_format: 'month_year' }],
      ['dates like 1999', { date_format: 'year' }],
      ['"14.03.2025" style dates', { date_format: 'day_month_year' }],
    ]);
  });

  it('a sample that could be either day or month first is not guessed', () => {
    expect(readStyleRequest('dates like 05/06/2025')).toBeNull();
  });

  it('reads date formats said in words', () => {
    expectCases([
      ['ISO 8601 dates', { date_format: 'iso_date' }],
      ['dates in ISO format', { date_format: 'iso_date' }],
      ['american style dates', { date_format: 'month_day_year' }],
      ['UK dates', { date_format: 'day_month_year' }],
      ['month/year', { date_format: 'month_year' }],
      ['only the years', { date_format: 'year' }],
      ['year-month', { date_format: 'iso_month' }],
      ['automatic dates', { date_format: 'auto' }],
    ]);
  });

  it('a bare date or year is a filter, not a format', () => {
    for (const question of ['2024-03-01', 'show 2023', 'dates in 2022', 'us'])
      expect(readStyleRequest(question), question).toBeNull();
  });
});

describe('titles', () => {
  it('takes the title text in the user’s own case, quoted or to the end of the question', () => {
    expectCases([
      ['title it Signups per Week', { title: 'Signups per Week', show_title: true }],
      ["call the chart 'Q3 Pipeline' and go dark", { title: 'Q3 Pipeline', show_title: true, theme: 'dark' }],
      ['name it “Tickets by Team”', { title: 'Tickets by Team', show_title: true }],
      ['rename to How many orders?', { title: 'How many orders', show_title: true }],
      ['with the title: Top sellers by region', { title: 'Top sellers by region', show_title: true }],
      ["dark mode, title 'Ann's report'", { title: "Ann's report", show_title: true, theme: 'dark' }],
    ]);
  });

  it('cleans the title: control characters out, whitespace collapsed, at most 120 characters', () => {
    expect(style('call it Weekly\u0007 \t revenue\n').patch.title).toBe('Weekly revenue');
    const long = style(`call it ${'Ab '.repeat(60)}`).patch.title!;
    expect(long.length).toBeLessThanOrEqual(120);
    expect(long.startsWith('Ab Ab')).toBe(true);
    const emoji = style(`call it ${'😀'.repeat(70)}`).patch.title!;
    expect(emoji.length).toBeLessThanOrEqual(120);
    expect(emoji).toBe('😀'.repeat(60));
  });

  it('hides and shows the title', () => {
    expectCases([
      ['hide the chart title', { show_title: false }],
      ['without a heading', { show_title: false }],
      ['show the title again', { show_title: true }],
    ]);
  });

  it('an empty title, or naming a title while hiding it, is not a style request', () => {
    expect(readStyleRequest('call it ""')).toBeNull();
    expect(readStyleRequest('remove the title and call it Sales')).toBeNull();
  });
});

describe('combinations and conflicts', () => {
  it('several requests in one sentence combine', () => {
    expectCases([
      [
        'horizontal bars, pastel colours and the legend below',
        { bar_orientation: 'horizontal', preset: 'pastel', legend_position: 'bottom' },
        'bar',
      ],
      [
        'I would like a smooth line chart in euros with ISO dates',
        { smooth: true, area: false, number_format: 'eur', date_format: 'iso_date' },
        'line',
      ],
      [
        'dark theme, stacked, values shown, labels at 90 degrees',
        { theme: 'dark', stacked: true, series_labels: true, axis_label_rotation: 90 },
      ],
      ['dark green bars on a light background', { palette: ['#006400'], theme: 'light' }],
    ]);
  });

  it('contradictions in one sentence are not read', () => {
    for (const question of [
      'dark mode with a white background',
      'stacked side by side',
      'smooth straight lines',
      'vertical and horizontal bars',
      'show the values and hide the values',
      'percent and yen',
    ])
      expect(readStyleRequest(question), question).toBeNull();
  });
});

describe('data questions are left to the planner', () => {
  it('returns null when anything but style and filler words is left', () => {
    for (const question of [
      'orders by colour',
      'sales in the north region as a bar chart',
      'how many red products',
      'top 5 customers by revenue',
      'show revenue by month',
      'revenue per month in a line graph',
      'line chart of signups per week',
      'pie chart of tickets per assignee',
      'count of black t-shirts sold',
      'which products come in green or blue',
      'average price of white sneakers',
      'revenue in euros last quarter',
      'what percentage of orders were refunded',
      'refunds in dollars by country',
      'stacked bar of orders per channel and status',
      'dark roast coffee sales',
      'light users vs heavy users',
      'the legend of zelda sales',
      'print jobs per printer',
      'bold customers',
      'smooth jazz streams this year',
      'label counts by category',
      'dates of the first orders',
      'orders between 2024-01-01 and 2024-02-01',
      'title of the top selling book',
      'what is the title of ticket 42',
      'horizontal scaling events per cluster',
      'how many orders were in pounds',
      'area with the most stores',
      'show values greater than 100',
      'only the top 3 as a pie',
      'the red ones',
      'scatter of price against rating',
      'sum of line totals by product',
    ])
      expect(readStyleRequest(question), question).toBeNull();
  });

  it('a question word, a number or a time period keeps an otherwise stylish question out', () => {
    for (const question of [
      'how about a bar chart',
      'what colour is the line',
      'bar chart for 2024',
      'green bars for last month',
      'legend at the bottom by week',
      'top 10 in a line graph',
    ])
      expect(readStyleRequest(question), question).toBeNull();
  });
});

describe('summary', () => {
  it('is one plain sentence built from the patch', () => {
    expect(style('make it a line chart with the legend at the bottom').summary).toBe(
      'Line chart; legend at the bottom.',
    );
    expect(style('area graph, vivid').summary).toBe('Area chart; vivid colours.');
    expect(style('teal and gold columns').summary).toBe('Teal and gold series colours.');
    expect(style('call it Weekly margin').summary).toBe('Title "Weekly margin".');
    expect(style('rotate the labels 45 degrees').summary).toBe('Axis labels turned 45°.');
  });

  it('never repeats the raw words apart from the title', () => {
    const summary = style('PLEASE make it DARK, thanks').summary;
    expect(summary).toBe('Dark theme.');
  });
});

describe('hostile input', () => {
  it('object member names are words like any other', () => {
    for (const question of ['constructor', 'toString bars', '__proto__ legend', 'make it hasOwnProperty'])
      expect(readStyleRequest(question), question).toBeNull();
  });

  it('long or repetitive input returns null', () => {
    let seed = 7;
    const random = (): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const words = ['red', 'and', 'bars', 'labels', 'dates', 'legend', '2025', 'at', 'the', ',', 'x', 'stack'];
    let noise = '';
    while (noise.length < 390) noise += `${words[Math.floor(random() * words.length)]} `;
    expect(readStyleRequest(noise)).toBeNull();
    expect(readStyleRequest('dark '.repeat(20_000))).toBeNull();
    expect(readStyleRequest(`${'red, '.repeat(79)}revenue`)).toBeNull();
    expect(readStyleRequest(`${'dates like '.repeat(35)}sales`)).toBeNull();
  });
});
