import { createLlmPlanner, createOpenAiCompatibleModel, offlinePlanner, type Planner } from '@aqs/planner';

/**
 * The planner an evaluation measures: `offline`, or `llm` with the model the service would use
 * (LLM_API_KEY, LLM_BASE_URL, LLM_MODEL, as in the server's configuration).
 */
export function plannerFromEnvironment(kind: string, env: NodeJS.ProcessEnv = process.env): { planner: Planner; description: string } {
  if (kind === 'offline') return { planner: offlinePlanner, description: 'offline' };
  if (kind !== 'llm') throw new Error(`--planner must be offline or llm, not ${kind}.`);
  if (!env.LLM_API_KEY) throw new Error('--planner llm needs LLM_API_KEY (and LLM_BASE_URL, LLM_MODEL for a non-default model).');
  const model = env.LLM_MODEL ?? 'gpt-4o-mini';
  return {
    planner: createLlmPlanner({ model: createOpenAiCompatibleModel({ apiKey: env.LLM_API_KEY, baseURL: env.LLM_BASE_URL, model }) }),
    description: `llm (${model}${env.LLM_BASE_URL ? ` at ${env.LLM_BASE_URL}` : ''})`,
  };
}
