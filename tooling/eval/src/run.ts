import { formatReport, runEvaluation } from './evaluate.ts';

const report = await runEvaluation();
console.log(formatReport(report, !process.argv.includes('--summary')));
