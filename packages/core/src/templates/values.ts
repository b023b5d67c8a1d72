import {
  isIsoDate,
  TEMPLATE_STRING_MAX,
  templateParameterSchema,
  type TemplateParameter,
  type TemplateValue,
} from '@aqs/contracts';

export { isIsoDate };

export const LIMIT_TARGET = '/limit';
export const LIMIT_MAX = 5000;

/* eslint-disable-next-line no-control-regex */
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/;

export function isParameterName(text: string): boolean {
  return templateParameterSchema.shape.name.safeParse(text).success;
}

export function isLimitTarget(target: string): boolean {
  return target === LIMIT_TARGET;
}

export function isRowLimit(value: unknown): boolean {
  return Number.isInteger(value) && (value as number) >= 1 && (value as number) <= LIMIT_MAX;
}

const LIMIT_RULE = `must be a whole number from 1 to ${LIMIT_MAX} (it sets the row limit)`;

function listed(values: readonly TemplateValue[]): string {
  const shown = values.slice(0, 10).map((v) => JSON.stringify(typeof v === 'string' ? v.slice(0, 40) : v));
  return shown.join(', ') + (values.length > shown.length ? ', ...' : '');
}

/**
 * Why `value` cannot be this parameter's value (a message for its field), or null when it can. Nothing
 * is converted: a number parameter given the text "5" is refused, so what is bound is what was sent.
 */
export function valueProblem(parameter: TemplateParameter, value: unknown): string | null {
  switch (parameter.type) {
    case 'number':
      if (typeof value === 'string') return 'must be a JSON number, not text: send 5, not "5"';
      if (typeof value !== 'number' || !Number.isFinite(value)) return 'must be a number';
      if (isLimitTarget(parameter.target) && !isRowLimit(value)) return LIMIT_RULE;
      return null;
    case 'date':
      if (typeof value !== 'string' || !isIsoDate(value))
        return 'must be a real date as YYYY-MM-DD or an ISO date-time such as 2024-01-31T09:30:00Z';
      return null;
    case 'string':
      if (typeof value !== 'string') return 'must be text (a JSON string)';
      if (value.length > TEMPLATE_STRING_MAX) return `must be at most ${TEMPLATE_STRING_MAX} characters`;
      if (CONTROL_CHARACTER.test(value)) return 'must not contain control characters (line breaks, tabs...)';
      return null;
    case 'enum': {
      const allowed = parameter.values ?? [];
      if (!allowed.some((v) => v === value)) return `must be one of ${listed(allowed)}`;
      return null;
    }
  }
}
