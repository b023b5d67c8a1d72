/**
 * ES|QL parser benchmark: queries per second for tokenize-only and for full parse over a
 * representative query mix, plus the parse/tokenize ratio (both measured in the same run, so the
 * ratio is comparable across machines; tokenize-only is the baseline).
 */
import { parse, tokenize } from '@aqs/esql';

const QUERIES: readonly string[] = [
  'FROM employees | LIMIT 10',
  'FROM employees | WHERE salary > 50000 AND still_hired | KEEP emp_no, first_name, last_name, salary | SORT salary DESC | LIMIT 20',
  'FROM employees | STATS avg_salary = AVG(salary), c = COUNT(*) BY gender, languages | SORT avg_salary DESC NULLS LAST',
  'FROM employees | EVAL type = CASE(languages <= 1, "monolingual", languages <= 2, "bilingual", "polyglot") | STATS c = COUNT(*) BY type',
  'FROM logs-*, -logs-debug-* METADATA _index | WHERE @timestamp >= NOW() - 7 days AND http.response.status_code >= 500 | STATS errors = COUNT(*) BY service.name, bucket = BUCKET(@timestamp, 1 hour) | SORT bucket, errors DESC | LIMIT 1000',
  'FROM logs-* | DISSECT message "%{clientip} %{ident} %{auth} [%{@timestamp}] \\"%{verb} %{request} HTTP/%{httpversion}\\" %{response} %{bytes}" | EVAL response = TO_INTEGER(response) | WHERE response >= 400',
  'FROM web_traffic | WHERE url.path LIKE "/api/*" AND user_agent.name NOT IN ("curl", "wget") | EVAL kb = bytes / 1024.0 | STATS p95 = PERCENTILE(response_time_ms, 95), kb = SUM(kb) BY url.domain | SORT p95 DESC | LIMIT 25',
  'FROM employees | KEEP emp_no, languages | MV_EXPAND languages | ENRICH languages_policy ON languages WITH language_name | LOOKUP JOIN lang_lookup ON language_name | STATS c = COUNT(*) BY language_name',
  'ROW a = [1, 2, 3], b = "x", c = 1.5e3, d = -2, e = 1 day, f = `weird``name` | EVAL g = a::string, h = b RLIKE """[a-z]+""" | WHERE d IS NOT NULL',
  '// dashboard panel\nFROM metrics-* /* all hosts */\n| STATS max_cpu = MAX(system.cpu.total.pct) WHERE host.name IS NOT NULL BY host.name, t = DATE_TRUNC(1 minute, @timestamp)\n| SORT t DESC\n| LIMIT 500',
];

/** Runs `fn` over all queries repeatedly for about `ms` milliseconds; returns queries per second. */
function measure(fn: (q: string) => unknown, ms: number): number {
  let sink = 0;
  let queries = 0;
  const start = process.hrtime.bigint();
  const budget = BigInt(ms) * 1_000_000n;
  let elapsed = 0n;
  while (elapsed < budget) {
    for (let r = 0; r < 20; r++) {
      for (const q of QUERIES) {
        const out = fn(q);
        if (out !== undefined) sink++;
      }
      queries += QUERIES.length;
    }
    elapsed = process.hrtime.bigint() - start;
  }
  if (sink < 0) console.log(sink);
  return queries / (Number(elapsed) / 1e9);
}

export async function benchEsqlParser(): Promise<void> {
  const totalChars = QUERIES.reduce((n, q) => n + q.length, 0);
  // Warm up both paths so the JIT has compiled them before timing.
  measure(tokenize, 200);
  measure(parse, 200);
  const tokenizeQps = measure(tokenize, 1500);
  const parseQps = measure(parse, 1500);
  const avgChars = totalChars / QUERIES.length;
  console.log(`esql-parser: ${QUERIES.length} queries, ${avgChars.toFixed(0)} chars on average`);
  console.log(
    `  tokenize only : ${Math.round(tokenizeQps).toLocaleString('en-US')} queries/s (baseline 1.00x)`,
  );
  console.log(
    `  full parse    : ${Math.round(parseQps).toLocaleString('en-US')} queries/s (${(parseQps / tokenizeQps).toFixed(2)}x of tokenize; parse costs ${(tokenizeQps / parseQps).toFixed(2)}x tokenize)`,
  );
  console.log(`  parse throughput: ${((parseQps * avgChars) / 1e6).toFixed(1)} MB/s of query text`);
}
