import type { TemplateParameter, TemplateValue } from '@aqs/contracts';
import { parseQuestion } from './question.ts';
import { isIsoDate, valueProblem } from './values.ts';

const CAPTURE_MAX = 200;
/** Capture ends tried per template before it is given up as not matching: a bound on hostile questions. */
const STEP_BUDGET = 50_000;
/** ... and for all the templates of a connection together, so that many cannot multiply the work of one. */
const QUESTION_STEP_BUDGET = 200_000;
const TRAILING_IGNORED = new Set(['?', '.', '!', ' ']);
const QUOTE_PAIRS = [
  ['"', '"'],
  ["'", "'"],
  ['`', '`'],
  ['\u201c', '\u201d'],
  ['\u2018', '\u2019'],
  ['\u00ab', '\u00bb'],
] as const;
const NUMBER_TEXT = /^[+-]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?$/;
const YEAR_MONTH = /^(\d{4})-(\d{2})$/;

/** Whitespace runs collapsed to one space, surrounding whitespace and trailing `?`, `.` and `!` dropped. */
function normalize(text: string): string {
  const collapsed = text.replace(/\s+/g, ' ');
  let end = collapsed.length;
  while (end > 0 && TRAILING_IGNORED.has(collapsed[end - 1]!)) end--;
  return collapsed.slice(0, end).trimStart();
}

function escapeRegExp(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&');
}

interface CompiledTemplate {
  /** Sticky, case-insensitive matchers of the literal text before, between and after the parameters. */
  literals: RegExp[];
  names: string[];
  /** Characters of literal text the template itself has (its preference weight). */
  literalChars: number;
  /** Words of literal text: the values read may not say more words than that. */
  literalWords: number;
  /** The shortest and longest question the template can match. */
  minLength: number;
  maxLength: number;
}

/**
 * Words read into string parameters, which take any text: a question that says more words in them
 * than the template says around them is another question sharing a few words ("number of {{thing}}"
 * must not answer "number of orders per status"). Numbers, dates and enum values parse or fail.
 */
function freeTextWords(
  values: Record<string, TemplateValue>,
  parameters: readonly TemplateParameter[],
): number {
  return parameters
    .filter((p) => p.type === 'string' && Object.hasOwn(values, p.name))
    .reduce((n, p) => n + wordCount(String(values[p.name])), 0);
}

function wordCount(text: string): number {
  return text.split(/[^\p{L}\p{N}]+/u).filter(Boolean).length;
}

function compile(question: string): CompiledTemplate {
  const literalTexts = [''];
  const names: string[] = [];
  let literalChars = 0;
  for (const part of parseQuestion(normalize(question)).parts) {
    if (part.kind === 'text') {
      literalTexts[literalTexts.length - 1] += part.text;
      literalChars += part.text.length;
      continue;
    }
    // Two parameters with no literal text between them are read as if one space separated them: the
    // question must have a space there, and the first value takes the fewest words that let the rest
    // match and parse (`top {{count}}{{unit}}` reads "top 10 kg" as 10 and "kg", never "1" and "0 kg").
    if (names.length > 0 && literalTexts[literalTexts.length - 1] === '')
      literalTexts[literalTexts.length - 1] = ' ';
    names.push(part.name);
    literalTexts.push('');
  }
  const literalLength = literalTexts.reduce((sum, text) => sum + text.length, 0);
  return {
    literals: literalTexts.map((text) => new RegExp(escapeRegExp(text), 'iuy')),
    names,
    literalChars,
    literalWords: wordCount(literalTexts.join(' ')),
    minLength: literalLength + names.length,
    maxLength: literalLength + names.length * CAPTURE_MAX,
  };
}

function unquote(text: string): string {
  const trimmed = text.trim();
  for (const [open, close] of QUOTE_PAIRS)
    if (trimmed.length >= 2 && trimmed.startsWith(open) && trimmed.endsWith(close))
      return trimmed.slice(1, -1).trim();
  return trimmed;
}

function readNumber(text: string): number | undefined {
  if (!NUMBER_TEXT.test(text)) return undefined;
  const value = Number(text.replaceAll(',', ''));
  return Number.isFinite(value) ? value : undefined;
}

function readDate(text: string): string | undefined {
  const month = YEAR_MONTH.exec(text);
  // A month alone reads as its first day, the one form a date parameter binds.
  if (month) return Number(month[2]) >= 1 && Number(month[2]) <= 12 ? `${text}-01` : undefined;
  return isIsoDate(text) ? text : undefined;
}

/** The captured text as the parameter's value, or undefined when it is not one. */
function readCapture(parameter: TemplateParameter, captured: string): TemplateValue | undefined {
  const text = unquote(captured);
  if (!text) return undefined;
  let value: TemplateValue | undefined;
  switch (parameter.type) {
    case 'string':
      value = text;
      break;
    case 'number':
      value = readNumber(text);
      break;
    case 'date':
      value = readDate(text);
      break;
    case 'enum': {
      const lower = text.toLowerCase();
      const number = readNumber(text);
      value = (parameter.values ?? []).find((v) =>
        typeof v === 'string' ? v.toLowerCase() === lower : v === number,
      );
      break;
    }
  }
  return value !== undefined && valueProblem(parameter, value) === null ? value : undefined;
}

/**
 * The values of the template's parameters read from the (normalized) question, or null. A depth-first
 * search over (parameter, position) tries shorter captures first, as a lazy regex would, but skips a
 * split whose value does not parse; positions already known to fail are not searched again, so the work
 * is bounded by parameters × length × CAPTURE_MAX (and by STEP_BUDGET) whatever the question.
 */
function readValues(
  question: string,
  compiled: CompiledTemplate,
  parameters: readonly TemplateParameter[],
  total: { steps: number },
): Record<string, TemplateValue> | null {
  const { literals, names } = compiled;
  const length = question.length;
  if (length < compiled.minLength || length > compiled.maxLength) return null;
  const byName = names.map((name) => parameters.find((p) => p.name === name));
  if (byName.some((p) => p === undefined)) return null;
  const head = literals[0]!;
  head.lastIndex = 0;
  if (!head.test(question)) return null;
  if (names.length === 0) return head.lastIndex === length ? {} : null;

  // A name asked twice must read the same value both times, so a failure then depends on earlier captures.
  const failed = new Set(names).size === names.length ? new Set<number>() : null;
  const captured: TemplateValue[] = [];
  const budget = { steps: STEP_BUDGET };
  const search = (index: number, start: number): boolean => {
    const key = index * (length + 1) + start;
    if (failed?.has(key)) return false;
    const literal = literals[index + 1]!;
    const isLast = index === names.length - 1;
    for (let end = start + 1; end <= Math.min(length, start + CAPTURE_MAX); end++) {
      if (--budget.steps < 0 || --total.steps < 0) return false;
      if (question[end - 1] === '\n') break;
      literal.lastIndex = end;
      if (!literal.test(question)) continue;
      const next = literal.lastIndex;
      if (isLast !== (next === length)) continue;
      const value = readCapture(byName[index]!, question.slice(start, end));
      if (value === undefined) continue;
      const earlier = names.indexOf(names[index]!);
      if (earlier < index && captured[earlier] !== value) continue;
      captured[index] = value;
      if (isLast || search(index + 1, next)) return true;
    }
    if (budget.steps >= 0 && total.steps >= 0) failed?.add(key);
    return false;
  };
  if (!search(0, head.lastIndex)) return null;
  return Object.fromEntries(names.map((name, i) => [name, captured[i]!]));
}

/**
 * The template a question asks, with the values it gives, or null. The question says the template's
 * question with values in the parameter positions: compared case-insensitively, whitespace runs
 * collapsed, surrounding whitespace and trailing `?`/`.`/`!` ignored; each `{{name}}` takes 1 to 200
 * characters (quotes around a value are dropped) that must read as the parameter's type. When several
 * templates match, the one with the most literal text wins, then the earliest.
 */
export function matchTemplate<T extends { question: string; parameters: TemplateParameter[] }>(
  question: string,
  templates: readonly T[],
): { template: T; values: Record<string, TemplateValue> } | null {
  const asked = normalize(question);
  if (!asked) return null;
  const candidates = templates
    .map((template, index) => ({ template, index, compiled: compile(template.question) }))
    .sort((a, b) => b.compiled.literalChars - a.compiled.literalChars || a.index - b.index);
  const total = { steps: QUESTION_STEP_BUDGET };
  for (const { template, compiled } of candidates) {
    const values = readValues(asked, compiled, template.parameters, total);
    if (values && freeTextWords(values, template.parameters) <= compiled.literalWords)
      return { template, values };
  }
  return null;
}
