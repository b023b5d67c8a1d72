import { describe, expect, it } from 'vitest';
import { parse, print } from '@aqs/esql';
import { readConfig, scopePatterns } from '../src/elasticsearch/config.ts';
import { covers, dateMathToGlob } from '../src/elasticsearch/patterns.ts';
import { elasticsearchConnector as es } from '../src/elasticsearch/connector.ts';
import { ConnectorError } from '../src/errors.ts';
import { validateEsql } from '../src/elasticsearch/validator.ts';
import type { ConnectionTarget } from '../src/types.ts';

function target(allowed: string[], indexPattern: string | null = null): ConnectionTarget {
  return {
    id: 'validator',
    dialect: 'elasticsearch',
    authMode: 'api_key',
    config: {
      cluster_url: 'https://es.example.com:443',
      api_key_id: 'k',
      verify_tls: true,
      ca_cert_pem: null,
      allowed_indices: allowed,
      index_pattern: indexPattern,
    },
    secrets: { api_key_secret: 's3cret-value' },
  };
}

const scoped = target(['logs-*', 'employees', 'languages', '.internal-*']);

// The connector's validateQuery is this, with the scope read from the connection.
function validate(text: string, t = scoped, rowCap = 5000) {
  return validateEsql(text, scopePatterns(readConfig(t)), rowCap);
}

function rejection(text: string, t = scoped): ConnectorError {
  try {
    validate(text, t);
  } catch (e) {
    if (e instanceof ConnectorError) return e;
    throw e;
  }
  throw new Error(`accepted: ${text}`);
}

describe('pattern coverage', () => {
  it('decides glob inclusion', () => {
    expect(covers('logs-*', 'logs-web')).toBe(true);
    expect(covers('logs-*', 'logs-*')).toBe(true);
    expect(covers('logs-*', 'logs-2024.*')).toBe(true);
    expect(covers('logs-*', 'logs*')).toBe(false);
    expect(covers('logs-*', '*')).toBe(false);
    expect(covers('logs-*', 'logs-')).toBe(true);
    expect(covers('*', 'anything-*')).toBe(true);
    expect(covers('*', '.hidden')).toBe(false);
    expect(covers('.internal-*', '.internal-logs')).toBe(true);
    expect(covers('*-prod', 'web-*-prod')).toBe(true);
    expect(covers('*-prod', 'web-*')).toBe(false);
    expect(covers('a*b*c', 'a*bxb*c')).toBe(true);
    expect(covers('a*b*c', 'a*c')).toBe(false);
  });
  it('turns date math into a glob', () => {
    expect(dateMathToGlob('<logs-{now/d}>')).toBe('logs-*');
    expect(dateMathToGlob('<logs-{now/M{yyyy.MM}}>')).toBe('logs-*');
    expect(dateMathToGlob('<{now/d}>')).toBe('*');
    expect(dateMathToGlob('<logs-{now/d>')).toBeNull();
    expect(dateMathToGlob('plain')).toBe('plain');
  });
});

describe('the connector validates with the scope of its connection', () => {
  it('accepts in scope and refuses outside it', async () => {
    await expect(es.validateQuery(scoped, 'FROM employees', { rowCap: 10 })).resolves.toMatchObject({
      text: 'FROM employees | LIMIT 10',
    });
    await expect(es.validateQuery(target(['logs-*']), 'FROM employees', { rowCap: 10 })).rejects.toThrow(
      "Index 'employees' is not in allowlist",
    );
  });
});

describe('validateQuery: accepted queries', () => {
  it('returns the canonical text with LIMIT appended', () => {
    const v = validate('from logs-web | where status >= 500 | stats c = count(*) by host.name | sort c desc');
    expect(v.text).toBe(
      'FROM logs-web | WHERE status >= 500 | STATS c = count(*) BY host.name | SORT c DESC | LIMIT 5000',
    );
    expect(v.warnings.map((w) => w.code)).toEqual(['default_limit']);
  });
  it('keeps a LIMIT under the cap and clamps one above it', () => {
    expect(validate('FROM employees | LIMIT 10').text).toBe('FROM employees | LIMIT 10');
    const v = validate('FROM employees | LIMIT 100000');
    expect(v.text).toBe('FROM employees | LIMIT 5000');
    expect(v.warnings[0]).toMatchObject({ code: 'row_cap' });
    expect(validate('FROM employees | LIMIT 100000', scoped, 20).text).toBe('FROM employees | LIMIT 20');
  });
  it('appends a LIMIT when an earlier LIMIT is followed by other commands', () => {
    expect(validate('FROM employees | LIMIT 10 | MV_EXPAND job_positions').text).toBe(
      'FROM employees | LIMIT 10 | MV_EXPAND job_positions | LIMIT 5000',
    );
  });
  it('accepts several patterns, exclusions, date math, allowed metadata, in-scope joins', () => {
    expect(validate('FROM logs-2024.01, logs-2024.02, employees | KEEP emp_no').text).toContain(
      'FROM logs-2024.01, logs-2024.02, employees',
    );
    expect(validate('FROM logs-*, -logs-2024.01').text).toBe('FROM logs-*, -logs-2024.01 | LIMIT 5000');
    expect(validate('FROM logs-*, -secret-*').text).toContain('-secret-*');
    expect(validate('FROM <logs-{now/d}> | LIMIT 5').text).toContain('<logs-{now/d}>');
    expect(validate('FROM employees METADATA _id, _index | KEEP _id').text).toContain('METADATA _id, _index');
    expect(validate('FROM employees | LOOKUP JOIN languages ON language_code').text).toContain(
      'LOOKUP JOIN languages',
    );
    expect(validate('FROM .internal-logs').text).toContain('.internal-logs');
    expect(validate('ROW a = 1, b = "x"').text).toBe('ROW a = 1, b = "x" | LIMIT 5000');
    expect(
      validate('FROM logs-web | DISSECT message "%{a} %{b}" | GROK message "%{IP:ip}" | EVAL x = a').text,
    ).toContain('GROK');
  });
  it('uses Index pattern only when Allowed indices is empty', () => {
    expect(validate('FROM metrics-a', target([], 'metrics-*')).text).toBe('FROM metrics-a | LIMIT 5000');
    expect(rejection('FROM metrics-a', target(['logs-*'], 'metrics-*')).message).toBe(
      "Index 'metrics-a' is not in allowlist",
    );
  });
  it('is a fixed point: validating the validated text changes nothing', () => {
    const once = validate('FROM logs-web // trailing\n| WHERE level == "error" /* c */').text;
    const twice = validate(once);
    expect(twice.text).toBe(once);
    expect(twice.warnings).toEqual([]);
  });
});

describe('validateQuery: comment tricks cannot swallow the LIMIT', () => {
  it('drops a trailing // comment before appending the LIMIT', () => {
    const v = validate('FROM employees // show everything');
    expect(v.text).toBe('FROM employees | LIMIT 5000');
    expect(parse(v.text).commands.at(-1)).toMatchObject({ type: 'limit' });
  });
  it('ignores a LIMIT hidden in comments and clamps the real one', () => {
    expect(validate('FROM employees /* | LIMIT 1 */').text).toBe('FROM employees | LIMIT 5000');
    expect(validate('FROM employees // | LIMIT 1\n| LIMIT 1000000').text).toBe('FROM employees | LIMIT 5000');
    expect(validate('FROM employees | LIMIT 3 // | LIMIT 999999').text).toBe('FROM employees | LIMIT 3');
    expect(validate('FROM /* nested /* comment */ */ employees').text).toBe('FROM employees | LIMIT 5000');
  });
  it('rejects an unterminated block comment that would swallow an appended LIMIT', () => {
    const e = rejection('FROM employees /* open');
    expect(e.kind).toBe('query_syntax');
    expect(e.symptom).toBe('parsing_exception');
  });
  it('the printed text never contains comments', () => {
    const text = validate('FROM employees // a\n| KEEP emp_no /* b */ // c').text;
    expect(text).not.toMatch(/\/\/|\/\*/);
    expect(print(parse(text))).toBe(text);
  });
});

describe('validateQuery: rejected queries (SECURITY.md corpus)', () => {
  const outOfScope: [string, string][] = [
    ['FROM logs*', 'logs*'],
    ['FROM *', '*'],
    ['FROM logs-*, secret', 'secret'],
    ['FROM secret, -logs-*', 'secret'],
    ['FROM employees*', 'employees*'],
    ['FROM staff', 'staff'],
    ['FROM .security-7', '.security-7'],
    ['FROM .*', '.*'],
    ['FROM <secret-{now/d}>', '<secret-{now/d}>'],
    ['FROM <logs{now/d}>', '<logs{now/d}>'],
    ['FROM "secret"', 'secret'],
    ['FROM employees | LOOKUP JOIN secret ON emp_no', 'secret'],
    ['FROM employees | ENRICH languages_policy ON language_code', 'languages_policy'],
    ['FROM employees | ENRICH _any:languages_policy ON language_code', 'languages_policy'],
    ['FROM employees | FORK (WHERE true) (LOOKUP JOIN secret ON emp_no)', 'secret'],
  ];
  for (const [q, index] of outOfScope) {
    it(`rejects ${q}`, () => {
      const e = rejection(q);
      if (q.includes('FORK')) {
        expect(e.kind).toBe('query_rejected');
        return;
      }
      expect(e.kind).toBe('out_of_scope');
      expect(e.message).toBe(`Index '${index}' is not in allowlist`);
      expect(e.symptom).toBe(`Index '${index}' is not in allowlist`);
      expect(e.fix).toBe('Add the index pattern to Allowed indices.');
    });
  }

  const refused: [string, RegExp][] = [
    ['FROM remote:logs-web', /remote cluster/],
    ['FROM *:logs-*', /remote cluster/],
    ['FROM logs-web, remote:logs-web', /remote cluster/],
    ['FROM employees | LOOKUP JOIN remote:languages ON language_code', /remote cluster/],
    ['FROM employees | ENRICH _remote:employees ON emp_no', /cross-cluster/],
    ['FROM employees METADATA _source', /METADATA _source/],
    ['FROM employees METADATA _seq_no', /METADATA _seq_no is not allowed/],
    ['FROM logs-web::failures', /::failures/],
    ['TS logs-web | LIMIT 1', /TS/],
    ['SHOW INFO', /SHOW/],
    ['FROM employees | FORK (WHERE true) (WHERE false)', /FORK/],
    ['FROM employees | COMPLETION c = "hi" WITH { "inference_id": "x" }', /inference/],
    ['FROM employees | RERANK "q" ON first_name WITH { "inference_id": "x" }', /inference/],
    ['FROM employees | WHERE emp_no == ?', /parameters/],
    ['FROM employees | LIMIT ?n', /parameters|whole number/],
    ['FROM -logs-*', /only exclusions/],
  ];
  for (const [q, re] of refused) {
    it(`refuses ${q}`, () => {
      const e = rejection(q);
      expect(e.kind).toBe('query_rejected');
      expect(e.message).toMatch(re);
      expect(e.query).toBe(q);
    });
  }

  it('reports syntax errors as parsing_exception with line:column and the query attached', () => {
    const q = 'FROM employees\n| WHERE emp_no ==';
    const e = rejection(q);
    expect(e.kind).toBe('query_syntax');
    expect(e.symptom).toBe('parsing_exception');
    expect(e.message).toMatch(/^parsing_exception: line 2:\d+: /);
    expect(e.fix).toBe('Report the question and the generated query to the operator.');
    expect(e.query).toBe(q);
  });

  it('rejects SQL and mutation-looking text (ES|QL has no writes: they do not parse)', () => {
    for (const q of [
      'DELETE FROM employees',
      'SELECT * FROM employees',
      'FROM employees; DROP TABLE x',
      'FROM employees | DELETE',
      'PUT employees/_doc/1',
      'FROM employees | UPDATE salary = 0',
    ]) {
      const e = rejection(q);
      expect(e.kind, q).toBe('query_syntax');
    }
  });

  it('never includes a secret in a rejection', () => {
    const e2 = rejection('FROM nope');
    expect(JSON.stringify({ ...e2, message: e2.message })).not.toContain(scoped.secrets.api_key_secret);
  });
});
