import { parseArgs } from 'node:util';
import { listSets, loadSet } from './cases.ts';
import { formatReport, runEvaluation } from './evaluate.ts';
import { plannerFromEnvironment } from './planners.ts';

const { values } = parseArgs({
  options: {
    set: { type: 'string', multiple: true },
    holdout: { type: 'boolean', default: false },
    planner: { type: 'string', default: 'offline' },
    summary: { type: 'boolean', default: false },
    case: { type: 'string', multiple: true },
    engine: { type: 'string' },
  },
});

// Holdout sets are blind sets kept for the final report: they run only when named or with --holdout.
const sets = values.set?.length
  ? values.set
  : listSets().filter((name) => values.holdout || loadSet(name).status !== 'holdout');
const planner = plannerFromEnvironment(values.planner ?? 'offline');
if (values.engine !== undefined && values.engine !== 'mysql')
  throw new Error(
    `--engine ${values.engine}: the only other engine a PostgreSQL set can be asked on is mysql.`,
  );
const report = await runEvaluation({
  sets,
  planner: planner.planner,
  only: values.case,
  ...(values.engine === 'mysql' ? { engine: 'mysql' as const } : {}),
});
console.log(`planner: ${planner.description}`);
console.log(formatReport(report, !values.summary));
