import { isParameterName } from './values.ts';

/** `{{name}}`, with spaces allowed inside the braces. The content is bounded so a scan stays linear. */
const PLACEHOLDER = /\{\{([^{}\n]{0,100})\}\}/g;

export type QuestionPart = { kind: 'text'; text: string } | { kind: 'parameter'; name: string };

/** The question as literal text and parameters; `invalid` lists placeholders that do not hold a parameter name (they stay text). */
export function parseQuestion(question: string): { parts: QuestionPart[]; invalid: string[] } {
  const parts: QuestionPart[] = [];
  const invalid: string[] = [];
  let text = '';
  let last = 0;
  for (const match of question.matchAll(PLACEHOLDER)) {
    const name = (match[1] ?? '').trim();
    text += question.slice(last, match.index);
    last = match.index + match[0].length;
    if (!isParameterName(name)) {
      invalid.push(match[0]);
      text += match[0];
      continue;
    }
    if (text) parts.push({ kind: 'text', text });
    text = '';
    parts.push({ kind: 'parameter', name });
  }
  text += question.slice(last);
  if (text) parts.push({ kind: 'text', text });
  return { parts, invalid };
}

/** The question with each `{{name}}` replaced by the text of its value. */
export function fillQuestion(question: string, values: ReadonlyMap<string, string | number>): string {
  return question.replace(PLACEHOLDER, (whole, inner: string) => {
    const value = values.get(inner.trim());
    return value === undefined ? whole : String(value);
  });
}
