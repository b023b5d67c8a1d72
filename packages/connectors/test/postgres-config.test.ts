import { describe, expect, it } from 'vitest';
import { postgresConnector } from '../src/postgres/connector.ts';
import { ConnectorError } from '../src/errors.ts';
import { mapPgError } from '../src/postgres/pg-errors.ts';
import {
  decimalValue,
  jsonSafe,
  parseArrayLiteral,
  parseElement,
  textArrayLiteral,
} from '../src/postgres/results.ts';
import type { ConnectionTarget } from '../src/types.ts';

const good = { host: 'db.example.com', database: 'analytics', username: 'aqs_reader', password: 'pw-1' };

describe('postgres descriptor and parseConfig', () => {
  it('describes the dialect with one password auth mode and the exact fields', () => {
    const d = postgresConnector.descriptor;
    expect(d).toMatchObject({
      id: 'postgres',
      name: 'PostgreSQL',
      query_language: 'SQL',
      availability: 'available',
    });
    expect(d.auth_modes.map((m) => m.id)).toEqual(['password']);
    const fields = d.auth_modes[0]?.fields ?? [];
    expect(fields.map((f) => f.name)).toEqual([
      'host',
      'port',
      'database',
      'username',
      'password',
      'ssl_mode',
      'ca_cert_pem',
      'schemas',
    ]);
    expect(fields.find((f) => f.name === 'password')?.secret).toBe(true);
    const ssl = fields.find((f) => f.name === 'ssl_mode');
    expect(ssl?.options).toEqual(['disable', 'require', 'verify-ca', 'verify-full']);
    expect(ssl?.default).toBe('verify-full');
    expect(ssl?.help).toMatch(/development or a local server only/);
    expect(fields.find((f) => f.name === 'port')?.default).toBe(5432);
    expect(fields.find((f) => f.name === 'schemas')?.default).toEqual(['public']);
  });

  it('accepts a minimal config, applies defaults and moves the password to secrets', () => {
    const r = postgresConnector.parseConfig('password', good);
    expect(r).toEqual({
      ok: true,
      value: {
        config: {
          host: 'db.example.com',
          port: 5432,
          database: 'analytics',
          username: 'aqs_reader',
          ssl_mode: 'verify-full',
          ca_cert_pem: null,
          schemas: ['public'],
        },
        secrets: { password: 'pw-1' },
      },
    });
  });

  it('accepts schemas as a comma-separated string and deduplicates', () => {
    const r = postgresConnector.parseConfig('password', {
      ...good,
      schemas: 'sales, public,sales',
      port: '6432',
      ssl_mode: 'verify-ca',
    });
    expect(r.ok && r.value.config).toMatchObject({
      schemas: ['sales', 'public'],
      port: 6432,
      ssl_mode: 'verify-ca',
    });
  });

  const bad: Array<[string, Record<string, unknown>, string]> = [
    ['missing host', { ...good, host: undefined }, 'config.host'],
    [
      'connection string as host',
      { ...good, host: 'postgres://u:p@h/db?sslrootcert=/etc/passwd' },
      'config.host',
    ],
    ['unix socket directory as host', { ...good, host: '/var/run/postgresql' }, 'config.host'],
    ['port out of range', { ...good, port: 70000 }, 'config.port'],
    ['port not a number', { ...good, port: 'abc' }, 'config.port'],
    ['empty database', { ...good, database: '' }, 'config.database'],
    ['missing username', { ...good, username: undefined }, 'config.username'],
    ['missing password', { ...good, password: undefined }, 'config.password'],
    ['unknown ssl mode', { ...good, ssl_mode: 'prefer' }, 'config.ssl_mode'],
    ['garbage PEM', { ...good, ca_cert_pem: 'not a certificate' }, 'config.ca_cert_pem'],
    [
      'broken PEM body',
      { ...good, ca_cert_pem: '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----' },
      'config.ca_cert_pem',
    ],
    ['empty schemas', { ...good, schemas: [] }, 'config.schemas'],
    ['system schema in scope', { ...good, schemas: ['public', 'pg_catalog'] }, 'config.schemas'],
    ['information_schema in scope', { ...good, schemas: ['information_schema'] }, 'config.schemas'],
    ['unknown field sslrootcert', { ...good, sslrootcert: '/etc/ssl/private/key.pem' }, 'config.sslrootcert'],
    [
      'unknown field connection_string',
      { ...good, connection_string: 'postgres://x' },
      'config.connection_string',
    ],
  ];
  for (const [name, input, field] of bad) {
    it(`refuses ${name} with an error on ${field}`, () => {
      const r = postgresConnector.parseConfig('password', input);
      expect(r.ok).toBe(false);
      if (r.ok) return;
      const e = r.errors.find((x) => x.field === field);
      expect(e, JSON.stringify(r.errors)).toBeDefined();
      expect(e?.message.length).toBeGreaterThan(15);
      expect(JSON.stringify(r.errors)).not.toContain('pw-1');
    });
  }

  it('says that connection-string options are not accepted', () => {
    const r = postgresConnector.parseConfig('password', { ...good, sslrootcert: 'x' });
    expect(!r.ok && r.errors[0]?.message).toMatch(/discrete fields/);
  });

  it('refuses the reserved embedded auth mode and unknown modes', () => {
    const r = postgresConnector.parseConfig('embedded', { database: 'demo', schemas: ['shop'] });
    expect(r.ok).toBe(false);
    expect(!r.ok && r.errors[0]).toMatchObject({ field: 'auth_mode' });
    expect(!r.ok && r.errors[0]?.message).toMatch(/reserved for the built-in demo/);
    expect(postgresConnector.parseConfig('api_key', good).ok).toBe(false);
  });
});

describe('postgres warnings', () => {
  const target = (ssl_mode: string): ConnectionTarget => ({
    id: 'c',
    dialect: 'postgres',
    authMode: 'password',
    config: { ...good, ssl_mode },
    secrets: { password: 'pw-1' },
  });
  it('warns for disable and require, not for verified modes', () => {
    expect(postgresConnector.warnings(target('disable'))[0]).toMatch(/development or a local server only/);
    expect(postgresConnector.warnings(target('require'))[0]).toMatch(/does not verify/);
    expect(postgresConnector.warnings(target('verify-ca'))).toEqual([]);
    expect(postgresConnector.warnings(target('verify-full'))).toEqual([]);
  });
});

describe('postgres error mapping', () => {
  const ctx = {
    host: 'db.example.com',
    port: 5432,
    database: 'analytics',
    username: 'aqs_reader',
    sslMode: 'verify-full',
    secrets: ['Hunter2-secret'],
  };
  it('maps SQLSTATEs to kinds with symptom, cause and fix, and never shows the password', () => {
    const cases: Array<[string, string, string]> = [
      ['28P01', 'password authentication failed for user "aqs_reader" (tried Hunter2-secret)', 'auth'],
      ['3D000', 'database "analytics" does not exist', 'unreachable'],
      ['42501', 'permission denied for table orders', 'privileges'],
      ['57014', 'canceling statement due to statement timeout', 'timeout'],
      ['42601', 'syntax error at or near "FORM"', 'query_syntax'],
      ['42703', 'column "nme" does not exist', 'unknown_column'],
      ['42P01', 'relation "ordrs" does not exist', 'unknown_column'],
      ['25006', 'cannot execute DELETE in a read-only transaction', 'query_rejected'],
    ];
    for (const [code, message, kind] of cases) {
      const e = mapPgError(Object.assign(new Error(message), { code }), { ...ctx, query: 'SELECT 1' });
      expect(e).toBeInstanceOf(ConnectorError);
      expect(e.kind).toBe(kind);
      expect(e.symptom && e.cause_ && e.fix).toBeTruthy();
      expect(JSON.stringify({ ...e, message: e.message })).not.toContain('Hunter2-secret');
    }
    expect(mapPgError(Object.assign(new Error('x'), { code: '42703' }), ctx).recoverable).toBe(true);
    expect(
      mapPgError(Object.assign(new Error('x'), { code: '42601' }), { ...ctx, query: 'SELEC 1' }).query,
    ).toBe('SELEC 1');
    expect(
      mapPgError(Object.assign(new Error('canceling statement due to user request'), { code: '57014' }), {
        ...ctx,
        aborted: true,
      }).kind,
    ).toBe('cancelled');
  });
  it('maps network and certificate failures', () => {
    expect(
      mapPgError(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }), ctx).kind,
    ).toBe('unreachable');
    expect(
      mapPgError(Object.assign(new Error('write CONNECT_TIMEOUT'), { code: 'CONNECT_TIMEOUT' }), ctx).kind,
    ).toBe('unreachable');
    const tls = mapPgError(
      Object.assign(new Error('self-signed certificate'), { code: 'DEPTH_ZERO_SELF_SIGNED_CERT' }),
      ctx,
    );
    expect(tls).toMatchObject({ kind: 'tls', symptom: 'TLS verify failed' });
    expect(
      mapPgError(
        Object.assign(new Error("Hostname/IP does not match certificate's altnames"), {
          code: 'ERR_TLS_CERT_ALTNAME_INVALID',
        }),
        ctx,
      ).fix,
    ).toMatch(/verify-ca/);
  });
});

describe('postgres result values', () => {
  it('keeps numbers exact: number when safe, string otherwise', () => {
    expect(decimalValue('42')).toBe(42);
    expect(decimalValue('9007199254740993')).toBe('9007199254740993');
    expect(decimalValue('12.50')).toBe(12.5);
    expect(decimalValue('0.1234567890123456789')).toBe('0.1234567890123456789');
    expect(decimalValue('NaN')).toBe('NaN');
    expect(jsonSafe(12n, 20)).toBe(12);
    expect(jsonSafe(2n ** 70n, 20)).toBe((2n ** 70n).toString());
    expect(jsonSafe(Number.POSITIVE_INFINITY, 701)).toBe('Infinity');
  });
  it('formats dates and times as ISO strings without inventing a zone', () => {
    expect(jsonSafe('2024-02-29', 1082)).toBe('2024-02-29');
    expect(jsonSafe('2024-02-29 13:14:15.5', 1114)).toBe('2024-02-29T13:14:15.5');
    expect(jsonSafe('2024-02-29 13:14:15+02', 1184)).toBe('2024-02-29T11:14:15.000Z');
    expect(jsonSafe('2024-02-29 13:14:15.123456+05:30', 1184)).toBe('2024-02-29T07:44:15.123456Z');
    expect(jsonSafe(new Date(Date.UTC(2024, 1, 29)), 1082)).toBe('2024-02-29');
    expect(jsonSafe(new Date(Date.UTC(2024, 1, 29, 1, 2, 3)), 1114)).toBe('2024-02-29T01:02:03');
    expect(jsonSafe('infinity', 1184)).toBe('infinity');
    expect(jsonSafe(new Uint8Array([1, 255]), 17)).toBe('\\x01ff');
    expect(jsonSafe(['1', '99999999999999999999'], 1016)).toEqual([1, '99999999999999999999']);
  });
});

describe('postgres arrays (parsed by the connector, not by the driver)', () => {
  it('parses the text form of arrays: nesting, quoting, NULL, bounds', () => {
    expect(parseArrayLiteral('{}')).toEqual([]);
    expect(parseArrayLiteral('{a,"b c",NULL,"NULL","q\\"\\\\"}')).toEqual(['a', 'b c', null, 'NULL', 'q"\\']);
    expect(parseArrayLiteral('{{1,2},{3,4}}', (x) => parseElement(23, x))).toEqual([
      [1, 2],
      [3, 4],
    ]);
    expect(parseArrayLiteral('[0:1]={7,8}', (x) => parseElement(23, x))).toEqual([7, 8]);
    expect(parseArrayLiteral('{t,f}', (x) => parseElement(16, x))).toEqual([true, false]);
    expect(() => parseArrayLiteral('not an array')).toThrow();
    expect(() => parseArrayLiteral('{"unterminated}')).toThrow();
  });
  it('writes lists as one array parameter that round-trips', () => {
    const values = ['public', 'we"ird', 'back\\slash', 'a,b'];
    expect(parseArrayLiteral(textArrayLiteral(values))).toEqual(values);
  });
});

describe('server text in errors is bounded', () => {
  it('cuts a huge server message', () => {
    const e = mapPgError(Object.assign(new Error('x'.repeat(100_000)), { code: 'XX000' }), {
      host: 'h',
      port: 1,
      database: 'd',
      username: 'u',
      sslMode: 'disable',
      secrets: [],
    });
    expect(e.symptom.length).toBeLessThan(600);
    expect(e.message.length).toBeLessThan(1000);
  });
  it('scrubs the password before cutting, so no part of it survives the cut', () => {
    const secret = 'Hunter2-secret-long-password';
    const e = mapPgError(
      Object.assign(new Error(`${'x'.repeat(490)}${secret}${'y'.repeat(1000)}`), { code: 'XX000' }),
      { host: 'h', port: 1, database: 'd', username: 'u', sslMode: 'disable', secrets: [secret] },
    );
    expect(JSON.stringify({ ...e, message: e.message })).not.toContain('Hunter2');
  });
});
