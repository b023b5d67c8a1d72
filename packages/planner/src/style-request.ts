import {
  chartStylePatchSchema,
  type ChartStylePatch,
  type ChartType,
  type DateFormat,
  type LegendPosition,
  type NumberFormat,
  type StylePresetName,
} from '@aqs/contracts';
import { MONTH_RE } from './offline/time.ts';
import { normalize, tokenize, wordTable } from './text.ts';

/**
 * Chart-style requests in plain language ("dark theme", "legend at the bottom", "green bars"): a
 * question that only changes how the last answer's chart looks. Phrases are recognised by class
 * (chart nouns, theme words, preset synonyms, colour names, ...); the question is a style request
 * only when nothing but filler words is left once they are taken out.
 */
export interface StyleRequest {
  patch: ChartStylePatch;
  chartType: ChartType | null;
  /** One plain-English sentence built from the patch, e.g. "Line chart; legend at the bottom." */
  summary: string;
}

/** What one recognised phrase sets. */
type Setting = ChartStylePatch & { chartType?: ChartType };

interface StyleRule {
  pattern: RegExp;
  /** null: the words matched but do not make a setting (an unknown colour, an ambiguous date). */
  read: (match: RegExpMatchArray) => Setting | null;
}

/** Style requests are short; anything longer is a data question (and is not scanned). */
const MAX_QUESTION_LENGTH = 400;
const MAX_TITLE_LENGTH = 120;
const MAX_PALETTE_LENGTH = 12;

/** A pattern that starts and ends at word boundaries (also around `$`, `€` and `%`). */
function phrase(source: string): RegExp {
  return new RegExp(String.raw`(?<![\p{L}\p{N}_])(?:${source})(?![\p{L}\p{N}_])`, 'gu');
}

function rule(source: string, read: StyleRule['read']): StyleRule {
  return { pattern: phrase(source), read };
}

const fixed =
  (setting: Setting): StyleRule['read'] =>
  () =>
    setting;

const alternation = (words: readonly string[]): string =>
  [...words].sort((a, b) => b.length - a.length).join('|');

/* ---------------------------------------------------------------- vocabulary */

/** Words that may stay in a style request: they ask, point or name the chart but carry no content. */
const FILLER = new Set(
  `make made it its the a an please pls plz use using show display switch change set turn into to as with and can
  could would will you i me my we our us want wanna like chart charts graph graphs plot plots diagram visual
  colour colours color colors coloured colored palette scheme theme style styled look version mode settings
  instead now this that them these those let go back put move give have be should in on for at also too then
  but just rather again same one everything write written flip try maybe need add apply so do ok okay thanks thank hey hi
  d ll m re ve bars columns lines slices points dots markers series wedges segments`
    .split(/\s+/)
    .filter((w) => w.length > 0),
);

const CHART_WORD = String.raw`(?:chart|graph|plot|diagram)s?(?![\p{L}\p{N}_])`;
/** Where a chart's marks are: the nouns a colour or label request points at (not `line` of `line chart`). */
const MARKS = String.raw`(?:bars?|columns?|lines?|slices?|points?|dots?|markers?|series|areas?|wedges?|segments?)(?![\s-]*${CHART_WORD})`;

const CHART_NOUNS = wordTable<Setting>({
  line: { chartType: 'line' },
  bar: { chartType: 'bar' },
  column: { chartType: 'bar', bar_orientation: 'vertical' },
  pie: { chartType: 'pie' },
  donut: { chartType: 'pie' },
  doughnut: { chartType: 'pie' },
  scatter: { chartType: 'scatter' },
  area: { chartType: 'line', area: true },
});
const CHART_NOUN = alternation(Object.keys(CHART_NOUNS));

const PRESET_WORDS: ReadonlyArray<[StylePresetName, string]> = [
  [
    'colourblind',
    String.raw`colou?r[\s-]*blind(?:ness)?(?:[\s-]*(?:friendly|safe|accessible))?|accessible|accessibility`,
  ],
  [
    'print',
    String.raw`print(?:er|ing|able)?(?:[\s-]*(?:friendly|ready))?|monochrome|black\s*(?:and|&)\s*white|b\s*&\s*w|gr[ae]y[\s-]*scale`,
  ],
  ['minimal', String.raw`minimal(?:ist|istic)?|clean(?:er)?|simple(?:r)?`],
  ['vivid', String.raw`vivid|bright(?:er)?|bold(?:er)?|vibrant|saturated`],
  ['pastel', String.raw`pastels?|soft(?:er)?|muted`],
  ['default', String.raw`default|normal|standard|original|reset`],
];

const NUMBER_FORMAT_WORDS: ReadonlyArray<[NumberFormat, string]> = [
  [
    'auto',
    String.raw`(?:plain|default|normal|regular|raw|ordinary|auto(?:matic)?)\s+(?:numbers?|values|number\s+format)|no\s+(?:currency|percent(?:age)?s?|units?)`,
  ],
  ['percent', String.raw`percent(?:age)?s?|per\s+cent`],
  ['usd', String.raw`dollars?|usd|us\$|\$`],
  ['eur', String.raw`euros?|eur|€`],
  ['gbp', String.raw`pounds?(?:\s+sterling)?|sterling|gbp|£`],
  ['jpy', String.raw`yen|jpy|¥`],
];

/**
 * Date formats named in words. `alone`: the words say dates by themselves (`month and year`); the
 * others (`US`, `ISO`, `default`) only next to a date noun (`US dates`). Three-part names come before
 * the two-part ones they contain.
 */
const DATE_FORMAT_WORDS: ReadonlyArray<{ format: DateFormat; words: string; alone: boolean }> = [
  { format: 'iso_date', words: String.raw`iso[\s-]*8601|year[\s/-]+month[\s/-]+day|yyyy-mm-dd`, alone: true },
  { format: 'iso_date', words: 'iso', alone: false },
  { format: 'day_month_year', words: String.raw`day[\s/-]+month[\s/-]+year|dd/mm/yyyy`, alone: true },
  { format: 'day_month_year', words: 'european|british|uk', alone: false },
  { format: 'month_day_year', words: String.raw`month[\s/-]+day[\s/-]+year|mm/dd/yyyy`, alone: true },
  { format: 'month_day_year', words: 'american|us', alone: false },
  { format: 'iso_month', words: String.raw`year[\s/-]+month|yyyy-mm`, alone: true },
  { format: 'month_year', words: String.raw`month\s+(?:and|&)\s+year|month[\s/-]+year`, alone: true },
  { format: 'year', words: String.raw`(?:just|only)\s+(?:the\s+)?years?|years?\s+only`, alone: true },
  { format: 'auto', words: 'default|normal|standard|automatic|auto', alone: false },
];

const LEGEND_PLACES = wordTable<LegendPosition>({
  top: 'top',
  above: 'top',
  bottom: 'bottom',
  below: 'bottom',
  under: 'bottom',
  underneath: 'bottom',
  beneath: 'bottom',
  left: 'left',
  right: 'right',
});
const LEGEND_PLACE = alternation(Object.keys(LEGEND_PLACES));

/** Label angles said in words (`vertical labels`). */
const LABEL_ANGLES = wordTable<number>({
  vertical: 90,
  upright: 90,
  sideways: 90,
  diagonal: 45,
  slanted: 45,
  angled: 45,
  tilted: 45,
  rotated: 45,
  straight: 0,
  flat: 0,
  horizontal: 0,
  level: 0,
  unrotated: 0,
});
const LABEL_ANGLE = alternation(Object.keys(LABEL_ANGLES));

/** CSS colour names (British and American spellings) and their hex values; the first name of a hex names it. */
const COLOUR_ENTRIES: ReadonlyArray<[string, string]> = [
  ['red', '#ff0000'],
  ['green', '#008000'],
  ['blue', '#0000ff'],
  ['orange', '#ffa500'],
  ['yellow', '#ffff00'],
  ['purple', '#800080'],
  ['pink', '#ffc0cb'],
  ['brown', '#a52a2a'],
  ['black', '#000000'],
  ['white', '#ffffff'],
  ['grey', '#808080'],
  ['gray', '#808080'],
  ['teal', '#008080'],
  ['navy', '#000080'],
  ['navy blue', '#000080'],
  ['maroon', '#800000'],
  ['olive', '#808000'],
  ['cyan', '#00ffff'],
  ['aqua', '#00ffff'],
  ['magenta', '#ff00ff'],
  ['fuchsia', '#ff00ff'],
  ['lime', '#00ff00'],
  ['gold', '#ffd700'],
  ['silver', '#c0c0c0'],
  ['violet', '#ee82ee'],
  ['indigo', '#4b0082'],
  ['turquoise', '#40e0d0'],
  ['coral', '#ff7f50'],
  ['salmon', '#fa8072'],
  ['crimson', '#dc143c'],
  ['tomato', '#ff6347'],
  ['beige', '#f5f5dc'],
  ['tan', '#d2b48c'],
  ['khaki', '#f0e68c'],
  ['lavender', '#e6e6fa'],
  ['plum', '#dda0dd'],
  ['orchid', '#da70d6'],
  ['chocolate', '#d2691e'],
  ['sky blue', '#87ceeb'],
  ['royal blue', '#4169e1'],
  ['steel blue', '#4682b4'],
  ['forest green', '#228b22'],
  ['sea green', '#2e8b57'],
  ['hot pink', '#ff69b4'],
  ['dark red', '#8b0000'],
  ['dark green', '#006400'],
  ['dark blue', '#00008b'],
  ['dark orange', '#ff8c00'],
  ['dark violet', '#9400d3'],
  ['dark cyan', '#008b8b'],
  ['dark magenta', '#8b008b'],
  ['dark grey', '#a9a9a9'],
  ['dark gray', '#a9a9a9'],
  ['light blue', '#add8e6'],
  ['light green', '#90ee90'],
  ['light pink', '#ffb6c1'],
  ['light yellow', '#ffffe0'],
  ['light cyan', '#e0ffff'],
  ['light grey', '#d3d3d3'],
  ['light gray', '#d3d3d3'],
];
const compact = (name: string): string => name.replace(/[\s-]+/g, '');
const COLOUR_HEX = wordTable(Object.fromEntries(COLOUR_ENTRIES.map(([name, hex]) => [compact(name), hex])));
const COLOUR_NAMES = wordTable(
  Object.fromEntries([...COLOUR_ENTRIES].reverse().map(([name, hex]) => [hex, name])),
);
const COLOUR = alternation(COLOUR_ENTRIES.map(([name]) => name.replace(/ /g, String.raw`[\s-]?`)));
const COLOUR_JOIN = String.raw`(?:\s*,\s*(?:and\s+|then\s+)?|\s+(?:and|then|plus)\s+|\s*[/&+]\s*)`;
const COLOUR_LIST = `(?:${COLOUR})(?:${COLOUR_JOIN}(?:${COLOUR}))*`;
const COLOUR_PATTERN = phrase(COLOUR);
const COLOUR_WORD = String.raw`colou?rs?|palette|colou?r\s+scheme`;

/** Ways to say "stop showing" and "show" an element (the legend, the title, value labels). */
const HIDE = String.raw`hide|remove|drop|lose|no|without|turn\s+off|switch\s+off|get\s+rid\s+of|take\s+(?:away|out|off)|(?:do\s+not|don'?t)\s+(?:show|display|need|want|include)`;
const SHOW = String.raw`show|add|display|turn\s+on|switch\s+on|bring\s+back|put\s+back|with|include|restore`;

/* ---------------------------------------------------------------- readers */

function readPalette(match: RegExpMatchArray): Setting | null {
  const palette: string[] = [];
  for (const name of match[0].matchAll(COLOUR_PATTERN)) {
    const hex = COLOUR_HEX[compact(name[0])];
    if (hex === undefined) return null;
    palette.push(hex);
  }
  return palette.length > 0 ? { palette } : null;
}

function readChartNoun(match: RegExpMatchArray): Setting | null {
  const noun = match.slice(1).find((group) => group !== undefined);
  return noun === undefined ? null : (CHART_NOUNS[noun] ?? null);
}

function readRotation(match: RegExpMatchArray): Setting | null {
  const [, degrees, word] = match;
  if (word !== undefined) {
    const angle = LABEL_ANGLES[word];
    return angle === undefined ? null : { axis_label_rotation: angle };
  }
  // Turning the labels without saying how far: the usual diagonal.
  const angle = degrees === undefined ? 45 : Math.round(Number(degrees));
  return { axis_label_rotation: Math.max(-90, Math.min(90, angle)) };
}

/** A sample date written the way the user wants dates written. */
function sampleDateFormat(sample: string): DateFormat | null {
  if (/^\d{4}-\d{1,2}-\d{1,2}$/.test(sample)) return 'iso_date';
  if (/^\d{4}[-/]\d{1,2}$/.test(sample)) return 'iso_month';
  if (/^\d{4}$/.test(sample)) return 'year';
  if (new RegExp(`^(?:${MONTH_RE})\\.?\\s+\\d{4}$`).test(sample)) return 'month_year';
  const parts = /^(\d{1,2})[/.-](\d{1,2})[/.-]\d{4}$/.exec(sample);
  if (!parts) return null;
  const [first, second] = [Number(parts[1]), Number(parts[2])];
  // 03/04/2025 could be either; only a day past 12 tells the order.
  if (first > 12 && first <= 31 && second >= 1 && second <= 12) return 'day_month_year';
  if (second > 12 && second <= 31 && first >= 1 && first <= 12) return 'month_day_year';
  return null;
}

function readSampleDate(match: RegExpMatchArray): Setting | null {
  const sample = match.slice(1).find((group) => group !== undefined);
  const format = sample === undefined ? null : sampleDateFormat(sample);
  return format === null ? null : { date_format: format };
}

/* ---------------------------------------------------------------- rules */

function toggleRules(element: string, off: Setting, on: Setting): StyleRule[] {
  return [
    rule(
      String.raw`(?:${HIDE})\s+(?:the\s+|a\s+|any\s+)?(?:${element})|(?:${element})\s+(?:off|hidden|gone)`,
      fixed(off),
    ),
    rule(
      String.raw`(?:${SHOW})\s+(?:the\s+|a\s+)?(?:${element})(?:\s+back)?|(?:${element})\s+(?:on|shown|back|visible)`,
      fixed(on),
    ),
  ];
}

/** A year a chart may show (not the 8601 of `ISO 8601`). */
const YEAR = String.raw`(?:1[6-9]|2\d)\d\d`;
const DATE_SAMPLE = String.raw`(${YEAR}-\d{1,2}-\d{1,2}|\d{1,2}[/.-]\d{1,2}[/.-]${YEAR}|${YEAR}[-/]\d{1,2}|(?:${MONTH_RE})\.?\s+${YEAR}|${YEAR})`;
const DATE_WORDS = String.raw`(?:the\s+)?(?:dates?|date\s+labels?|time\s+axis(?:\s+labels?)?|axis\s+dates)`;

/** `dates like 2025-01-31`, `31/01/2025 dates`, `dates in the 2025-01 format`: never a bare date (a filter). */
function sampleDateRules(): StyleRule[] {
  const verbs = String.raw`(?:(?:formatted|written|shown|displayed|format|style|should|look)\s+)*`;
  const lead = String.raw`(?:format(?:ted)?\s+)?${DATE_WORDS}\s+${verbs}(?:(?:like|as|to|be)\s+)*(?:(?:the\s+)?format\s+)?(?:e\.?g\.?\s+)?["']?`;
  const after = String.raw`["']?\s+(?:style|format(?:ted)?|type)`;
  return [
    rule(lead + DATE_SAMPLE, readSampleDate),
    rule(String.raw`${DATE_WORDS}\s+in\s+(?:the\s+)?["']?${DATE_SAMPLE}${after}`, readSampleDate),
    rule(String.raw`["']?${DATE_SAMPLE}(?:${after})?\s+(?:dates?|date\s+format)`, readSampleDate),
  ];
}

function dateWordRules(): StyleRule[] {
  const trailer = String.raw`(?:[\s-]+(?:style|format(?:ted)?))*`;
  const named = (words: string) =>
    String.raw`${DATE_WORDS}\s+(?:(?:as|in|like|to)\s+)?(?:${words})${trailer}|(?:${words})${trailer}\s+(?:dates?|date\s+format)`;
  const alone = (words: string) => String.raw`(?:${words})${trailer}(?:\s+only)?`;
  return DATE_FORMAT_WORDS.flatMap(({ format, words, alone: saysDates }) => [
    rule(named(words), fixed({ date_format: format })),
    ...(saysDates ? [rule(alone(words), fixed({ date_format: format }))] : []),
  ]);
}

function labelRules(): StyleRule[] {
  const labels = String.raw`(?:the\s+)?(?:(?:x|category|bottom)[\s-]*)?(?:axis\s+)?labels?`;
  const angle = String.raw`(-?\d{1,4})(?:\s*(?:degrees?|deg|°))?`;
  const turn = String.raw`rotate[ds]?|tilt(?:ed)?|turn(?:ed)?|angle[ds]?|slant(?:ed)?`;
  const marks = String.raw`(?:\s+(?:on|above|over|in|inside|next\s+to)\s+(?:the\s+|each\s+)?(?:${MARKS}|chart|graph))?`;
  return [
    rule(
      String.raw`(?:(?:${turn})\s+)?${labels}\s+(?:(?:${turn}|at|by|to|be)\s+)*(?:${angle}|(${LABEL_ANGLE}))`,
      readRotation,
    ),
    // Not `turn`: `turn the labels on` shows value labels.
    rule(String.raw`(?:rotate|tilt|angle|slant)\s+${labels}`, readRotation),
    rule(String.raw`(?:${angle}[\s-]*(?:degrees?|deg|°)?|(${LABEL_ANGLE}))\s+${labels}`, readRotation),
    ...toggleRules(
      String.raw`(?:(?:value|data|number)\s+)?labels?${marks}|values${marks}|numbers${marks}`,
      { series_labels: false },
      { series_labels: true },
    ),
    rule(String.raw`label\s+(?:the\s+|each\s+)?(?:${MARKS})`, fixed({ series_labels: true })),
    rule(
      String.raw`(?:values|numbers|(?:value|data)\s+labels?)\s+(?:on|above|over|inside)\s+(?:the\s+|each\s+)?(?:${MARKS})`,
      fixed({ series_labels: true }),
    ),
  ];
}

function legendRules(): StyleRule[] {
  const place = (m: RegExpMatchArray): Setting | null => {
    const word = m.slice(1).find((group) => group !== undefined);
    const position = word === undefined ? undefined : LEGEND_PLACES[word];
    return position === undefined ? null : { legend_position: position };
  };
  return [
    rule(
      String.raw`(?:the\s+)?legends?\s+(?:(?:at|on|to|in|onto|towards?|up)\s+)?(?:the\s+)?(${LEGEND_PLACE})(?:\s+(?:side|edge))?`,
      place,
    ),
    rule(String.raw`(${LEGEND_PLACE})(?:[\s-]+(?:side|hand))?\s+legends?`, place),
    ...toggleRules(String.raw`legends?`, { legend_position: 'none' }, { legend_position: 'top' }),
  ];
}

function titleRules(): StyleRule[] {
  return toggleRules(
    String.raw`(?:chart\s+|graph\s+)?(?:title|heading)`,
    { show_title: false },
    { show_title: true },
  );
}

/** Before value labels: `show values in USD` is a format, not a request for labels. */
function numberFormatRules(): StyleRule[] {
  const values = String.raw`(?:(?:the\s+)?(?:values|numbers|figures|amounts)\s+(?:in|as)\s+)?`;
  return NUMBER_FORMAT_WORDS.map(([format, words]) =>
    rule(format === 'auto' ? words : `${values}(?:${words})`, fixed({ number_format: format })),
  );
}

function lookRules(): StyleRule[] {
  return [
    ...PRESET_WORDS.map(([preset, words]) => rule(words, fixed({ preset }))),
    rule(String.raw`(dark|night|black|light|white|day)[\s-]*(?:mode|theme|background|bg)`, (m) => ({
      theme: m[1] === 'dark' || m[1] === 'night' || m[1] === 'black' ? 'dark' : 'light',
    })),
  ];
}

function shapeRules(): StyleRule[] {
  const direction = String.raw`(horizontal|sideways|vertical|upright)(?:ly)?`;
  const barNoun = String.raw`(?:bar|column)s?(?:\s+(?:chart|graph|plot)s?)?`;
  const orient = (word: string | undefined, withNoun: boolean): Setting => ({
    bar_orientation: word === 'horizontal' || word === 'sideways' ? 'horizontal' : 'vertical',
    ...(withNoun ? { chartType: 'bar' as const } : {}),
  });
  return [
    rule(String.raw`${direction}\s+${barNoun}`, (m) => orient(m[1], true)),
    rule(String.raw`${barNoun}\s+(?:(?:go|going|run|running)\s+)?${direction}`, (m) => orient(m[1], true)),
    rule(direction, (m) => orient(m[1], false)),
    rule(
      String.raw`un-?stack(?:ed)?|(?:not|no|don'?t|do\s+not|stop)\s+stack(?:ed|ing)?|side[\s-]+by[\s-]+side|grouped|clustered|next\s+to\s+each\s+other`,
      fixed({ stacked: false }),
    ),
    rule(
      String.raw`stack(?:ed|ing)?(?:\s+up)?|on\s+top\s+of\s+(?:each\s+other|one\s+another)`,
      fixed({ stacked: true }),
    ),
    ...lineRules(),
  ];
}

function lineRules(): StyleRule[] {
  const lines = String.raw`(?:\s+(?:out\s+)?(?:the\s+)?(?:lines?|curves?)(?![\s-]*${CHART_WORD}))?`;
  return [
    rule(
      String.raw`(?:(?:not|no|un)[\s-]*smooth(?:ed|ing)?|straight(?:en)?|sharp|jagged|angular)${lines}`,
      fixed({ smooth: false }),
    ),
    rule(
      String.raw`(?:smooth(?:ed|er|ly|ing)?|curved|curvy|curves|rounded)${lines}`,
      fixed({ smooth: true }),
    ),
    rule(
      String.raw`(?:no|without|remove(?:\s+the)?|drop(?:\s+the)?|turn\s+off(?:\s+the)?)\s+(?:area\s+)?fill(?:ing)?|unfilled|not\s+filled|hollow`,
      fixed({ area: false }),
    ),
    rule(
      String.raw`(?:fill(?:ed)?|shade[ds]?)(?:\s+in)?(?:\s+(?:the\s+)?(?:area|space))?(?:\s+(?:under(?:neath)?|below|beneath)(?:\s+(?:the\s+)?(?:lines?|curves?))?)?`,
      fixed({ area: true }),
    ),
  ];
}

function colourAndChartRules(): StyleRule[] {
  const target = String.raw`(?:the\s+)?(?:${MARKS})`;
  const chart = String.raw`(?:it|them|everything|this|the\s+(?:chart|graph|plot))`;
  return [
    rule(String.raw`${target}\s+(?:(?:in|to)\s+)?${COLOUR_LIST}`, readPalette),
    rule(
      String.raw`${COLOUR_LIST}(?:\s+(?:${MARKS}|${COLOUR_WORD})|(?=\s+(?:${CHART_NOUN})s?[\s-]*${CHART_WORD}))`,
      readPalette,
    ),
    rule(String.raw`(?:${COLOUR_WORD})(?:\s+(?:to|as|of)\s+|\s*:\s*|\s+)${COLOUR_LIST}`, readPalette),
    rule(
      String.raw`(?:(?:make|use|paint|colou?r|turn|change|switch|set)\s+(?:${chart}\s+)?(?:(?:to|in|with)\s+)?|${chart}\s+in\s+)${COLOUR_LIST}`,
      readPalette,
    ),
    // `a bar chart with red and gold`, `the chart in green`
    rule(String.raw`(?<=(?:chart|graph|plot)s?\s+)(?:with|in)\s+(?:the\s+)?${COLOUR_LIST}`, readPalette),
    rule(
      String.raw`(${CHART_NOUN})s?[\s-]*${CHART_WORD}|(scatter)[\s-]?plots?|(?:as|in|into|to|an?)\s+(?:an?\s+)?(${CHART_NOUN})s?|(pie|donut|doughnut)s?`,
      readChartNoun,
    ),
    rule(String.raw`(dark|light)`, (m) => ({ theme: m[1] === 'dark' ? 'dark' : 'light' })),
  ];
}

/**
 * In order: a rule's words are taken out before the next rule looks, so the narrower reading wins
 * (`plain numbers` before `plain`, `vertical labels` before `vertical`, `white background` before
 * the colour white, `dark green` before the dark theme).
 */
const RULES: readonly StyleRule[] = [
  ...sampleDateRules(),
  ...dateWordRules(),
  ...numberFormatRules(),
  ...labelRules(),
  ...legendRules(),
  ...titleRules(),
  ...lookRules(),
  ...shapeRules(),
  ...colourAndChartRules(),
];

/* ---------------------------------------------------------------- title */

const CHART_ITSELF = String.raw`(?:the|this)\s+(?:chart|graph|plot)`;
/** Words that introduce a title: `call it`, `title this`, `rename the chart to`, `title:`, `title "..."`. */
const TITLE_LEAD = new RegExp(
  [
    String.raw`(?:(?:re)?title|call)\s+(?:it|this|that|${CHART_ITSELF})(?:\s+(?:to|as))?\s+`,
    String.raw`(?:name|rename|label)\s+(?:it|${CHART_ITSELF})(?:\s+(?:to|as))?\s+`,
    String.raw`rename\s+(?:to|as)\s+`,
    String.raw`title(?:\s+(?:to|as|should\s+be|is|will\s+be)\s+|\s*[:=]\s*|\s+(?=["'\u201c\u2018]))`,
  ]
    .map((lead) => String.raw`(?<![\p{L}\p{N}_])${lead}`)
    .join('|'),
  'iu',
);
/** A quoted title; an apostrophe inside a word (`Bob's`) does not close it. */
const QUOTED = /^["'\u201c\u2018](.*?)["'\u201d\u2019](?![\p{L}\p{N}])/su;

function cleanTitle(raw: string): string {
  const text = raw
    .replace(/\p{Cc}+/gu, ' ')
    .replace(/\s+/g, ' ')
    .replace(/^["'\u201c\u2018\s]+|["'\u201d\u2019\s.!?]+$/g, '');
  const chars = Array.from(text).slice(0, MAX_TITLE_LENGTH);
  while (chars.join('').length > MAX_TITLE_LENGTH) chars.pop();
  return chars.join('').trim();
}

/**
 * Takes a chart title out of the question, in the user's own case: quoted text runs to its closing
 * quote, unquoted text to the end of the question. `rest` is what is left to read; null when a title
 * was asked for but is empty.
 */
function splitTitle(question: string): { title: string | null; rest: string } | null {
  const lead = TITLE_LEAD.exec(question);
  if (!lead) return { title: null, rest: question };
  const before = question.slice(0, lead.index);
  const after = question.slice(lead.index + lead[0].length).trimStart();
  const quoted = QUOTED.exec(after);
  const title = cleanTitle(quoted ? (quoted[1] ?? '') : after);
  if (title.length === 0) return null;
  return { title, rest: quoted ? `${before} ${after.slice(quoted[0].length)}` : before };
}

/* ---------------------------------------------------------------- reading */

/** Adds a phrase's settings; false when it contradicts an earlier phrase. Colours add up in order. */
function merge(into: Setting, add: Setting): boolean {
  const target = into as Record<string, unknown>;
  for (const [key, value] of Object.entries(add)) {
    if (key === 'palette') {
      into.palette = [...(into.palette ?? []), ...(value as string[])].slice(0, MAX_PALETTE_LENGTH);
    } else if (target[key] !== undefined && target[key] !== value) {
      return false;
    } else {
      target[key] = value;
    }
  }
  return true;
}

/** Applies every rule, blanking what each one recognised; null on a contradiction. */
function applyRules(text: string, setting: Setting): string | null {
  let rest = text;
  for (const { pattern, read } of RULES) {
    for (const match of rest.matchAll(pattern)) {
      const found = read(match);
      if (found === null) continue;
      if (!merge(setting, found)) return null;
      const start = match.index ?? 0;
      // Not spaces: a later rule must not read across a phrase already taken out.
      rest = rest.slice(0, start) + '|'.repeat(match[0].length) + rest.slice(start + match[0].length);
    }
  }
  return rest;
}

function onlyFiller(text: string): boolean {
  return tokenize(text).every((token) => FILLER.has(token.text));
}

/**
 * The chart-style change a question asks for, or null when the question is (or contains) anything
 * else: a data question, an unknown word, a number outside a style phrase, or two settings that
 * contradict each other ("dark and light").
 */
export function readStyleRequest(question: string): StyleRequest | null {
  if (question.length > MAX_QUESTION_LENGTH) return null;
  const split = splitTitle(question);
  if (split === null) return null;
  const setting: Setting = split.title === null ? {} : { title: split.title, show_title: true };
  const rest = applyRules(normalize(split.rest), setting);
  if (rest === null || !onlyFiller(rest)) return null;
  const { chartType, ...patch } = setting;
  // A plain line chart asked for by name drops an earlier area fill.
  if (chartType === 'line' && patch.area === undefined) patch.area = false;
  if (chartType === undefined && Object.keys(patch).length === 0) return null;
  if (!chartStylePatchSchema.safeParse(patch).success) return null;
  return { patch, chartType: chartType ?? null, summary: summarize(patch, chartType ?? null) };
}

/** Other words a question may hold beside its style words and still be worth a model's reading. */
const MAX_WORDS_BESIDE_STYLE = 4;

/**
 * Whether a question is mostly about how a chart looks, with a few words the lexicon does not know
 * ("teal bars, a bit like the annual report"): the cue for asking a model to read it. A question with
 * more words beside its style words is a data question and goes to the planner without a model call.
 */
export function mentionsStyle(question: string): boolean {
  if (question.length > MAX_QUESTION_LENGTH) return false;
  const split = splitTitle(question);
  if (split === null) return false;
  const setting: Setting = {};
  const rest = applyRules(normalize(split.rest), setting);
  if (rest === null || (split.title === null && Object.keys(setting).length === 0)) return false;
  return tokenize(rest).filter((token) => !FILLER.has(token.text)).length <= MAX_WORDS_BESIDE_STYLE;
}

/* ---------------------------------------------------------------- summary */

const PRESET_TEXT: Readonly<Record<StylePresetName, string>> = {
  default: 'the default style',
  dark: 'the dark style',
  minimal: 'a minimal style',
  colourblind: 'colour-blind friendly colours',
  print: 'a print style',
  vivid: 'vivid colours',
  pastel: 'pastel colours',
};
const NUMBER_TEXT: Readonly<Record<NumberFormat, string>> = {
  auto: 'plain numbers',
  percent: 'values as percentages',
  usd: 'values in US dollars',
  eur: 'values in euros',
  gbp: 'values in pounds sterling',
  jpy: 'values in yen',
};
const DATE_TEXT: Readonly<Record<DateFormat, string>> = {
  auto: 'dates written automatically',
  iso_date: 'dates like 2025-01-31',
  iso_month: 'dates like 2025-01',
  month_year: 'dates like Jan 2025',
  day_month_year: 'dates like 31/01/2025',
  month_day_year: 'dates like 01/31/2025',
  year: 'dates as the year only',
};
const LEGEND_TEXT: Readonly<Record<LegendPosition, string>> = {
  top: 'legend at the top',
  bottom: 'legend at the bottom',
  left: 'legend on the left',
  right: 'legend on the right',
  none: 'no legend',
};

function listNames(names: string[]): string {
  return names.length === 1 ? (names[0] ?? '') : `${names.slice(0, -1).join(', ')} and ${names.at(-1) ?? ''}`;
}

function describeLook(patch: ChartStylePatch): Array<string | null> {
  const colours = patch.palette?.map((hex) => COLOUR_NAMES[hex] ?? hex);
  return [
    patch.preset === undefined ? null : PRESET_TEXT[patch.preset],
    patch.theme === undefined ? null : `${patch.theme} theme`,
    colours === undefined ? null : `${listNames(colours)} series colours`,
    patch.title ? `title "${patch.title}"` : patch.show_title === false ? 'no title' : null,
    patch.title === undefined && patch.show_title === true ? 'title shown' : null,
    patch.legend_position === undefined ? null : LEGEND_TEXT[patch.legend_position],
  ];
}

function describeMarks(patch: ChartStylePatch, chartType: ChartType | null): Array<string | null> {
  const rotation = patch.axis_label_rotation;
  return [
    patch.bar_orientation === undefined ? null : `${patch.bar_orientation} bars`,
    typeof patch.stacked !== 'boolean' ? null : patch.stacked ? 'series stacked' : 'series side by side',
    patch.smooth === undefined ? null : patch.smooth ? 'smooth lines' : 'straight lines',
    patch.area === undefined || chartType === 'line' ? null : patch.area ? 'area filled' : 'no area fill',
    patch.series_labels === undefined ? null : patch.series_labels ? 'values shown' : 'values hidden',
    rotation === undefined ? null : rotation === 0 ? 'axis labels level' : `axis labels turned ${rotation}°`,
    patch.number_format === undefined ? null : NUMBER_TEXT[patch.number_format],
    patch.date_format === undefined ? null : DATE_TEXT[patch.date_format],
  ];
}

/** One plain-English sentence saying what a patch (and a chart type) changes. */
export function summarize(patch: ChartStylePatch, chartType: ChartType | null): string {
  const chart =
    chartType === null ? null : `${chartType === 'line' && patch.area ? 'area' : chartType} chart`;
  const parts = [chart, ...describeLook(patch), ...describeMarks(patch, chartType)].filter(
    (part): part is string => part !== null,
  );
  const sentence = parts.join('; ');
  return `${sentence.charAt(0).toUpperCase()}${sentence.slice(1)}.`;
}
