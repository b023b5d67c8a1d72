import {
  createCascadePlanner,
  createLlmPlanner,
  createOpenAiCompatibleModel,
  offlinePlanner,
  type Planner,
} from '@aqs/planner';

/**
 * The planner an evaluation measures: `offline`; `llm` (the model alone) or `cascade` (offline first,
 * the model for the rest, as the service runs with a model) with the model the service would use
 * (LLM_API_KEY, LLM_BASE_URL, LLM_MODEL, as in the server's configuration).
 */
export function plannerFromEnvironment(
  kind: string,
  env: NodeJS.ProcessEnv = process.env,
): { planner: Planner; description: string } {
  if (kind === 'offline') return { planner: offlinePlanner, description: 'offline' };
  if (kind !== 'llm' && kind !== 'cascade')
    throw new Error(`--planner must be offline, llm or cascade, not ${kind}.`);
  if (!env.LLM_API_KEY)
    throw new Error(
      `--planner ${kind} needs LLM_API_KEY (and LLM_BASE_URL, LLM_MODEL for a non-default model).`,
    );
  const model = env.LLM_MODEL ?? 'gpt-4o-mini';
  const llm = createLlmPlanner({
    model: createOpenAiCompatibleModel({ apiKey: env.LLM_API_KEY, baseURL: env.LLM_BASE_URL, model }),
  });
  const where = `${model}${env.LLM_BASE_URL ? ` at ${env.LLM_BASE_URL}` : ''}`;
  if (kind === 'llm') return { planner: llm, description: `llm (${where})` };
  return {
    planner: createCascadePlanner({ offline: offlinePlanner, model: llm }),
    description: `cascade (offline, then ${where})`,
  };
}
