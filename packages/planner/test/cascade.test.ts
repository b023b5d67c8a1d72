import { describe, expect, it } from 'vitest';
import {
  createCascadePlanner,
  offlinePlanner,
  PlanningError,
  type Plan,
  type Planner,
  type PlanRequest,
} from '../src/index.ts';
import { shopSchema } from './fixtures.ts';

const now = new Date('2024-06-15T12:00:00Z');
const request = (question: string): PlanRequest => ({
  question,
  schema: shopSchema(),
  history: [],
  chartRequested: false,
  now,
});

function fakeModel(behaviour: 'answers' | 'down'): Planner & { calls: number } {
  const model = {
    id: 'llm' as const,
    calls: 0,
    async plan(r: PlanRequest): Promise<Plan> {
      model.calls += 1;
      if (behaviour === 'down') throw new PlanningError('model_unavailable', 'the model did not answer');
      const p = await offlinePlanner.plan({ ...r, question: 'how many orders' });
      return { ...p, planner: 'llm', usage: { prompt_tokens: 900, completion_tokens: 80 } };
    },
  };
  return model;
}

describe('cascade: offline first, the model for the rest', () => {
  it('uses a confident offline plan without calling the model', async () => {
    const model = fakeModel('answers');
    const plan = await createCascadePlanner({ offline: offlinePlanner, model }).plan(
      request('orders by channel'),
    );
    expect(plan.planner).toBe('offline');
    expect(model.calls).toBe(0);
  });

  it('asks the model what the offline planner refuses', async () => {
    const model = fakeModel('answers');
    const plan = await createCascadePlanner({ offline: offlinePlanner, model }).plan(
      request('what is the carbon footprint of our deliveries'),
    );
    expect(plan.planner).toBe('llm');
    expect(model.calls).toBe(1);
    expect(plan.notes.join(' ')).toMatch(/could not read it/);
  });

  it('asks the model about an unsure reading, and keeps that reading when the model is down', async () => {
    const unsure = 'hey, roughly how many orders do we have';
    const asked = fakeModel('answers');
    expect(
      (
        await createCascadePlanner({ offline: offlinePlanner, model: asked, minConfidence: 0.9 }).plan(
          request(unsure),
        )
      ).planner,
    ).toBe('llm');
    const down = fakeModel('down');
    const kept = await createCascadePlanner({
      offline: offlinePlanner,
      model: down,
      minConfidence: 0.9,
    }).plan(request(unsure));
    expect(kept.planner).toBe('offline');
    expect(kept.notes.join(' ')).toMatch(/offline reading was used/);
    await expect(
      createCascadePlanner({ offline: offlinePlanner, model: down }).plan(
        request('what is the carbon footprint of our deliveries'),
      ),
    ).rejects.toMatchObject({ type: 'model_unavailable' });
  });
});
