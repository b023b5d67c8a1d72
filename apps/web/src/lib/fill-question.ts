/**
 * The question with every `{{name}}` filled with its value, as a template run will read. A module of
 * its own so that the main chunk (the run stream) does not take template-slots.ts, which only the
 * lazily loaded "Save as template" dialog needs.
 */
export function fillQuestion(question: string, values: Readonly<Record<string, string | number>>): string {
  return question.replace(/\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g, (whole, name: string) =>
    Object.hasOwn(values, name) ? String(values[name]) : whole,
  );
}
