import { describe, expect, it } from 'vitest';
import { accuracy, formatReport, precision, runEvaluation } from '../src/evaluate.ts';
import { listSets, loadSet } from '../src/cases.ts';
import { isMysqlAvailable } from '@aqs/connectors/testing';

/**
 * Floors the service's own pipeline (offline planner) must keep on each evaluation set: the figures
 * measured on 2026-11-24 (fourth session) less a margin of about three questions, so that an
 * improvement elsewhere that moves a case or two does not fail CI while a regression in context,
 * planning, compiling, validation or execution does. Tuned sets hold fit (fleet, clinic and cicd
 * became tuned in the fourth session, when their wrong answers were read); the holdouts (lettings,
 * telemetry, and the fresh donations and payments: written blind and frozen before use) hold the
 * blind figures. This test reports only whether a floor holds: no failure of a holdout is read from
 * it. Measured (accuracy / precision):
 *   demo 47/48 / 47/47, weblogs 30/30 / 30/30, saas 63/108 / 52/54, hr 39/97 / 29/33,
 *   support 65/96 / 56/56, observability 54/103 / 44/47, clickstream 39/96 / 30/37, fleet 42/97 / 32/35,
 *   clinic 40/90 / 31/32, cicd 28/93 / 19/22 (tuned); donations 21/100 / 11/29, payments 31/99 / 21/40,
 *   lettings 17/93 / 8/17, telemetry 18/95 / 9/19 (holdout).
 */
const FLOORS: Record<string, { accuracy: number; precision: number }> = {
  demo: { accuracy: 0.89, precision: 0.91 },
  weblogs: { accuracy: 0.9, precision: 0.9 },
  saas: { accuracy: 0.55, precision: 0.9 },
  hr: { accuracy: 0.37, precision: 0.78 },
  support: { accuracy: 0.64, precision: 0.94 },
  observability: { accuracy: 0.49, precision: 0.87 },
  clickstream: { accuracy: 0.37, precision: 0.72 },
  fleet: { accuracy: 0.39, precision: 0.8 },
  clinic: { accuracy: 0.41, precision: 0.87 },
  cicd: { accuracy: 0.26, precision: 0.72 },
  donations: { accuracy: 0.18, precision: 0.27 },
  payments: { accuracy: 0.28, precision: 0.45 },
  lettings: { accuracy: 0.15, precision: 0.32 },
  telemetry: { accuracy: 0.16, precision: 0.36 },
};

describe('evaluation sets', () => {
  it('are well formed: at least 60 questions each, with follow-ups and unanswerable ones in the blind sets', () => {
    for (const name of listSets()) {
      const set = loadSet(name);
      expect(set.cases.length, name).toBeGreaterThanOrEqual(30);
      if (set.status === 'tuned') continue;
      expect(set.cases.length, name).toBeGreaterThanOrEqual(60);
      expect(set.cases.filter((c) => c.follows).length, name).toBeGreaterThanOrEqual(4);
      expect(set.cases.filter((c) => c.kind === 'unanswerable').length, name).toBeGreaterThanOrEqual(5);
    }
  });

  it('every set has a floor', () => {
    expect(Object.keys(FLOORS).sort()).toEqual(listSets().sort());
  });

  it('keeps the accuracy and precision floors of every set', async () => {
    const report = await runEvaluation({ sets: Object.keys(FLOORS) });
    console.log(formatReport(report, false));
    for (const [name, floor] of Object.entries(FLOORS)) {
      const tally = report.bySet[name]!;
      expect(
        report.results.filter((r) => r.set === name && r.outcome === 'broken_case').map((r) => r.case.id),
        `${name}: gold queries that fail`,
      ).toEqual([]);
      expect(accuracy(tally), `${name} accuracy`).toBeGreaterThanOrEqual(floor.accuracy);
      expect(precision(tally), `${name} precision`).toBeGreaterThanOrEqual(floor.precision);
    }
  }, 600_000);

  it('answers the demo shop copied into MySQL / MariaDB as well as on PostgreSQL (gold run on PostgreSQL)', async (context) => {
    if (!(await isMysqlAvailable())) return context.skip();
    const [postgres, mysql] = [
      await runEvaluation({ sets: ['demo'] }),
      await runEvaluation({ sets: ['demo'], engine: 'mysql' }),
    ];
    console.log(formatReport(mysql, false));
    expect(mysql.results.filter((r) => r.outcome === 'broken_case')).toEqual([]);
    expect(mysql.overall.correct).toBeGreaterThanOrEqual(postgres.overall.correct);
    expect(precision(mysql.overall)).toBeGreaterThanOrEqual(precision(postgres.overall));
  }, 300_000);
});
