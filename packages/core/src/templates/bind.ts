import {
  querySpecSchema,
  type FieldError,
  type QuerySpec,
  type TemplateParameter,
  type TemplateValue,
} from '@aqs/contracts';
import { DomainError } from '../errors.ts';
import { checkTemplateDefinition, resolveTarget } from './definition.ts';
import { fillQuestion } from './question.ts';
import { bindableSlots, encodePointer } from './slots.ts';
import { valueProblem } from './values.ts';

function placeAt(root: object, path: readonly (string | number)[], value: TemplateValue): void {
  let node = root as Record<string | number, unknown>;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
  node[path[path.length - 1]!] = value;
}

/**
 * The template's spec with each parameter's value (given, else its default) placed at its target, and
 * its question with each `{{name}}` replaced by the value's text. Values are checked against their
 * parameter's type and placed as typed values (never spliced into query text: the connectors'
 * compilers quote literals); the template is not changed. Throws DomainError `validation` naming
 * `template.parameters.<name>` for an unknown name or a value that does not fit, and `conflict` when the
 * stored template no longer fits its own spec.
 */
export function bindTemplate(
  template: { question: string; parameters: TemplateParameter[]; query_spec: QuerySpec },
  values: Record<string, TemplateValue>,
): { spec: QuerySpec; question: string } {
  const definitionProblems = checkTemplateDefinition({
    question: template.question,
    parameters: template.parameters,
    spec: template.query_spec,
  });
  const [firstProblem] = definitionProblems;
  if (firstProblem)
    throw new DomainError(
      'conflict',
      `The template no longer fits its query (${firstProblem.field} ${firstProblem.message}); edit the template.`,
    );

  const fields: FieldError[] = [];
  const names = template.parameters.map((p) => p.name);
  for (const name of Object.keys(values))
    if (!names.includes(name))
      fields.push({
        field: `template.parameters.${name}`,
        message: names.length
          ? `is not a parameter of this template; its parameters are ${names.join(', ')}`
          : 'is not a parameter of this template, which takes none',
      });
  const bound = new Map<string, TemplateValue>();
  for (const parameter of template.parameters) {
    const value = Object.hasOwn(values, parameter.name) ? values[parameter.name] : parameter.default;
    const problem = valueProblem(parameter, value);
    if (problem) fields.push({ field: `template.parameters.${parameter.name}`, message: problem });
    else bound.set(parameter.name, value as TemplateValue);
  }
  if (fields.length)
    throw new DomainError('validation', 'The template parameters are not valid.', { fields });

  const spec = structuredClone(template.query_spec);
  const slots = bindableSlots(spec);
  const nameByPointer = new Map<string, string>();
  for (const parameter of template.parameters) {
    const resolved = resolveTarget(slots, spec, parameter.target);
    if ('problem' in resolved) throw new Error('a checked template target did not resolve'); // checked above
    placeAt(spec, resolved.slot.path, bound.get(parameter.name)!);
    nameByPointer.set(resolved.pointer, parameter.name);
  }
  const parsed = querySpecSchema.safeParse(spec);
  if (!parsed.success)
    throw new DomainError('validation', 'The template parameters do not make a valid query.', {
      fields: parsed.error.issues.slice(0, 20).map((issue) => {
        const name = nameByPointer.get(encodePointer(issue.path.map((key) => String(key))));
        return { field: name ? `template.parameters.${name}` : 'template', message: issue.message };
      }),
    });
  return { spec: parsed.data, question: fillQuestion(template.question, bound) };
}
