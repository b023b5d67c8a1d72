import { PlanningError, type Plan, type Planner, type PlanRequest } from './types.ts';

export interface CascadeOptions {
  /** Answers first, in microseconds and without tokens. */
  offline: Planner;
  /** Gets what the offline planner refuses or is unsure of. */
  model: Planner;
  /** An offline plan at or above this confidence is used as is (default 0.8: at most one unexplained filler word). */
  minConfidence?: number;
}

/**
 * The planner used when a model is configured. A plan the offline planner is confident in is used
 * as is (`planner: "offline"`, no model call); the model gets the questions the offline planner
 * refuses or reads with unexplained words. When the model is down, an unsure offline plan is still
 * better than nothing and is used, with a note; a refusal stays a refusal.
 */
export function createCascadePlanner(options: CascadeOptions): Planner {
  const minConfidence = options.minConfidence ?? 0.8;
  return {
    id: 'cascade',
    ...(options.model.readStyle ? { readStyle: options.model.readStyle } : {}),
    ...(options.model.describeSchema ? { describeSchema: options.model.describeSchema } : {}),
    async plan(request: PlanRequest): Promise<Plan> {
      let offline: Plan | null = null;
      let refusal: PlanningError | null = null;
      try {
        offline = await options.offline.plan(request);
      } catch (error) {
        if (!(error instanceof PlanningError) || error.type === 'cancelled') throw error;
        refusal = error;
      }
      if (offline && (offline.confidence ?? 1) >= minConfidence) return offline;
      try {
        const planned = await options.model.plan(request);
        const why = offline
          ? 'The offline reading was unsure'
          : `The offline planner could not read it (${refusal?.message.split('. ')[0] ?? 'unknown'})`;
        return { ...planned, notes: [...planned.notes, `${why}; the model planned this question.`] };
      } catch (error) {
        if (offline && error instanceof PlanningError && error.recoverable) {
          return {
            ...offline,
            notes: [
              ...offline.notes,
              `The model could not plan it (${error.message}); the offline reading was used.`,
            ],
          };
        }
        throw error;
      }
    },
  };
}
