/**
 * The style presets: a series palette and the colours of everything else (the "chrome": background,
 * texts, axes). The `default` preset is exactly what a built chart looks like under ECharts' own
 * defaults, so the default style changes nothing visible; the light and dark bases are what a theme
 * switch over another preset uses.
 */
import type { ChartTheme, StylePreset, StylePresetName } from '@aqs/contracts';
import { stylePresetNames } from '@aqs/contracts';

/** Series colours of a built chart (ECharts 5's palette, kept when ECharts 6 changed its own). */
export const DEFAULT_PALETTE = [
  '#5470c6',
  '#91cc75',
  '#fac858',
  '#ee6666',
  '#73c0de',
  '#3ba272',
  '#fc8452',
  '#9a60b4',
  '#ea7ccc',
  '#6e7074',
];

export interface Chrome {
  background: string;
  title: string;
  subtext: string;
  /** Axis labels and names, legend and value labels. */
  text: string;
  /** Legend page numbers and data-zoom labels. */
  mutedText: string;
  axisLine: string;
  splitLine: string;
  pagerIcon: string;
  pagerIconInactive: string;
}

/** ECharts 6's own light colours (its `tokens.ts`), which a built chart is drawn with. */
const LIGHT: Chrome = {
  background: '#ffffff',
  title: '#3c3c41',
  subtext: '#86878c',
  text: '#54555a',
  mutedText: '#6d6e73',
  axisLine: '#54555a',
  splitLine: '#dbdee4',
  pagerIcon: '#6578ba',
  pagerIconInactive: '#e0e4f2',
};

const DARK: Chrome = {
  background: '#1b1f24',
  title: '#eeeff1',
  subtext: '#9ba1a9',
  text: '#c8ccd2',
  mutedText: '#9ba1a9',
  axisLine: '#8a9099',
  splitLine: '#343a42',
  pagerIcon: '#8fa6e6',
  pagerIconInactive: '#3d434b',
};

export const THEME_CHROME: Readonly<Record<ChartTheme, Chrome>> = { light: LIGHT, dark: DARK };

export interface PresetDefinition {
  label: string;
  description: string;
  theme: ChartTheme;
  palette: readonly string[];
  chrome: Chrome;
  /** Greys only: series are told apart by ECharts' decal patterns and line dashes instead. */
  monochrome: boolean;
}

const PRESETS: Readonly<Record<StylePresetName, PresetDefinition>> = {
  default: {
    label: 'Default',
    description: 'The standard colours on a white background.',
    theme: 'light',
    palette: DEFAULT_PALETTE,
    chrome: LIGHT,
    monochrome: false,
  },
  dark: {
    label: 'Dark',
    description: 'Bright series on a dark background, for dark screens.',
    theme: 'dark',
    palette: [
      '#4992ff',
      '#7cffb2',
      '#fddd60',
      '#ff6e76',
      '#58d9f9',
      '#05c091',
      '#ff8a45',
      '#8d48e3',
      '#dd79ff',
    ],
    chrome: DARK,
    monochrome: false,
  },
  minimal: {
    label: 'Minimal',
    description: 'Muted series with light axes and faint grid lines.',
    theme: 'light',
    palette: ['#3b6ea8', '#9aa5b1', '#c9773c', '#5f8f5a', '#7d6aa8', '#b3b3b3'],
    chrome: {
      ...LIGHT,
      title: '#444444',
      subtext: '#999999',
      text: '#777777',
      mutedText: '#999999',
      axisLine: '#cccccc',
      splitLine: '#f0f0f0',
    },
    monochrome: false,
  },
  colourblind: {
    label: 'Colour-blind safe',
    description: "Okabe and Ito's palette, told apart with the common colour-vision deficiencies.",
    theme: 'light',
    palette: ['#0072B2', '#E69F00', '#009E73', '#D55E00', '#56B4E9', '#CC79A7', '#F0E442', '#000000'],
    chrome: LIGHT,
    monochrome: false,
  },
  print: {
    label: 'Print',
    description: 'Black and greys on white, with patterns so series stay apart without colour.',
    theme: 'light',
    palette: ['#000000', '#5a5a5a', '#9a9a9a', '#2e2e2e', '#777777', '#bdbdbd', '#161616', '#484848'],
    chrome: {
      ...LIGHT,
      title: '#000000',
      subtext: '#333333',
      text: '#000000',
      mutedText: '#333333',
      axisLine: '#000000',
      splitLine: '#cccccc',
      pagerIcon: '#000000',
      pagerIconInactive: '#cccccc',
    },
    monochrome: true,
  },
  vivid: {
    label: 'Vivid',
    description: 'Strong, saturated series colours.',
    theme: 'light',
    palette: ['#e8193c', '#1f6fe0', '#1faa3c', '#ff7a00', '#8e2bd6', '#00a8a8', '#e62e9e', '#c9a200'],
    chrome: LIGHT,
    monochrome: false,
  },
  pastel: {
    label: 'Pastel',
    description: 'Soft, light series colours.',
    theme: 'light',
    palette: ['#8fb8de', '#f4a6a6', '#a8d5a2', '#f9d48b', '#c5a3d9', '#8fd3d0', '#f7b7d2', '#c9c9a3'],
    chrome: LIGHT,
    monochrome: false,
  },
};

export function presetDefinition(name: StylePresetName): PresetDefinition {
  return PRESETS[name];
}

/** The presets, in the order of `stylePresetNames`, as the public `StylePreset` records. */
export function stylePresetList(): StylePreset[] {
  return stylePresetNames.map((name) => {
    const preset = PRESETS[name];
    return {
      name,
      label: preset.label,
      description: preset.description,
      theme: preset.theme,
      palette: [...preset.palette],
      background_color: preset.chrome.background,
      text_color: preset.chrome.title,
      axis_line_color: preset.chrome.axisLine,
    };
  });
}
