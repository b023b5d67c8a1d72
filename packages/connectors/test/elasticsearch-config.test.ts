import { describe, expect, it } from 'vitest';
import { elasticsearchConnector as es } from '../src/elasticsearch/connector.ts';
import type { ConnectionTarget } from '../src/types.ts';
import { unrelatedCa } from './fixtures/elasticsearch/pem.ts';

const URL_OK = 'https://my-deployment.es.us-east-1.aws.elastic.cloud:443';

function apiKeyInput(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    cluster_url: URL_OK,
    api_key_id: 'key-id',
    api_key_secret: 'super-secret-value',
    allowed_indices: ['logs-*'],
    ...extra,
  };
}

function errorsOf(authMode: string, input: Record<string, unknown>): Record<string, string> {
  const r = es.parseConfig(authMode, input);
  if (r.ok) throw new Error('expected errors');
  return Object.fromEntries(r.errors.map((e) => [e.field, e.message]));
}

describe('descriptor', () => {
  it('describes the dialect, both auth modes and their fields in order', () => {
    const d = es.descriptor;
    expect(d).toMatchObject({
      id: 'elasticsearch',
      name: 'Elasticsearch',
      query_language: 'ES|QL',
      availability: 'available',
      availability_note: null,
    });
    expect(d.auth_modes.map((m) => [m.id, m.recommended])).toEqual([
      ['api_key', true],
      ['basic', false],
    ]);
    const [apiKey, basic] = d.auth_modes;
    expect(apiKey!.fields.map((f) => f.name)).toEqual([
      'cluster_url',
      'api_key_id',
      'api_key_secret',
      'verify_tls',
      'ca_cert_pem',
      'allowed_indices',
      'index_pattern',
    ]);
    expect(basic!.fields.map((f) => f.name)).toEqual([
      'cluster_url',
      'username',
      'password',
      'verify_tls',
      'ca_cert_pem',
      'allowed_indices',
      'index_pattern',
    ]);
    expect(apiKey!.warning).toBeNull();
    expect(basic!.warning).toMatch(/development only/);
    expect(basic!.warning).toMatch(/audit trail/);
    expect(basic!.warning).toMatch(/rotating the credentials requires editing the connection/);
    const byName = Object.fromEntries(apiKey!.fields.map((f) => [f.name, f]));
    expect(byName.cluster_url).toMatchObject({ label: 'Cluster URL', type: 'url', required: true });
    expect(byName.api_key_id).toMatchObject({ label: 'API key ID', secret: false });
    expect(byName.api_key_secret).toMatchObject({ label: 'API key secret', type: 'secret', secret: true });
    expect(byName.verify_tls).toMatchObject({ label: 'Verify TLS', type: 'boolean', default: true });
    expect(byName.verify_tls!.help).toMatch(/man-in-the-middle/);
    expect(byName.ca_cert_pem).toMatchObject({ label: 'CA cert PEM', type: 'pem' });
    expect(byName.ca_cert_pem!.help).toMatch(/BEGIN CERTIFICATE.*END CERTIFICATE/);
    expect(byName.allowed_indices).toMatchObject({ label: 'Allowed indices', type: 'string_list' });
    expect(byName.index_pattern).toMatchObject({ label: 'Index pattern', type: 'string' });
    const basicFields = Object.fromEntries(basic!.fields.map((f) => [f.name, f]));
    expect(basicFields.password).toMatchObject({ secret: true, type: 'secret' });
    expect(basicFields.username).toMatchObject({ secret: false });
  });
});

describe('parseConfig', () => {
  it('splits secrets from config and normalises the URL and lists', () => {
    const r = es.parseConfig(
      'api_key',
      apiKeyInput({ cluster_url: 'https://Example.COM/', allowed_indices: ' logs-*, metrics-web ,logs-*' }),
    );
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.secrets).toEqual({ api_key_secret: 'super-secret-value' });
    expect(r.value.config).toEqual({
      cluster_url: 'https://example.com:443',
      api_key_id: 'key-id',
      username: null,
      verify_tls: true,
      ca_cert_pem: null,
      allowed_indices: ['logs-*', 'metrics-web'],
      index_pattern: null,
    });
    expect(JSON.stringify(r.value.config)).not.toContain('super-secret-value');
  });

  it('basic auth stores the password as a secret', () => {
    const r = es.parseConfig('basic', {
      cluster_url: URL_OK,
      username: 'reader',
      password: 'pw-123',
      index_pattern: 'logs-*',
      verify_tls: false,
    });
    expect(r.ok && r.value).toMatchObject({
      config: { username: 'reader', verify_tls: false, index_pattern: 'logs-*', allowed_indices: [] },
      secrets: { password: 'pw-123' },
    });
  });

  it('requires an https URL and explains how to fix it', () => {
    expect(errorsOf('api_key', apiKeyInput({ cluster_url: 'not a url' }))['config.cluster_url']).toMatch(
      /https:\/\/ URL including the port, e\.g\. https:\/\/my-deployment/,
    );
    expect(errorsOf('api_key', apiKeyInput({ cluster_url: 'ftp://x:1' }))['config.cluster_url']).toMatch(
      /ftp/,
    );
    expect(
      errorsOf('api_key', apiKeyInput({ cluster_url: 'https://u:p@x.example:9243' }))['config.cluster_url'],
    ).toMatch(/credentials/);
    expect(
      errorsOf('api_key', apiKeyInput({ cluster_url: 'https://x.example:9243/?a=1' }))['config.cluster_url'],
    ).toMatch(/query string/);
    expect(errorsOf('api_key', apiKeyInput({ cluster_url: undefined }))['config.cluster_url']).toMatch(
      /required/,
    );
  });

  it('refuses plain http unless the operator allows insecure transport, and says how to fix it', () => {
    const strict = [undefined, { allowInsecureTransport: false }];
    for (const options of strict) {
      for (const url of ['http://127.0.0.1:9200', 'http://localhost:9200', 'http://es.example.com:9200']) {
        const r = es.parseConfig('api_key', apiKeyInput({ cluster_url: url }), options);
        expect(r.ok, url).toBe(false);
        if (r.ok) continue;
        expect(r.errors.map((e) => e.field)).toEqual(['config.cluster_url']);
        const message = r.errors[0]!.message;
        expect(message).toMatch(/plain http:\/\//);
        expect(message).toMatch(/https:\/\//);
        expect(message).toMatch(/ALLOW_INSECURE_TRANSPORT=true/);
      }
    }
    const allowed = { allowInsecureTransport: true };
    const ok = es.parseConfig('api_key', apiKeyInput({ cluster_url: 'http://127.0.0.1:9200' }), allowed);
    expect(ok.ok && ok.value.config.cluster_url).toBe('http://127.0.0.1:9200');
    const ok6 = es.parseConfig('api_key', apiKeyInput({ cluster_url: 'http://[::1]:9200/prefix/' }), allowed);
    expect(ok6.ok && ok6.value.config.cluster_url).toBe('http://[::1]:9200/prefix');
    // The operator's setting is about transport, not place: a self-hosted cluster on the network too.
    const lan = es.parseConfig(
      'basic',
      { cluster_url: 'http://elasticsearch:9200', username: 'u', password: 'p', index_pattern: 'logs-*' },
      allowed,
    );
    expect(lan.ok && lan.value.config.cluster_url).toBe('http://elasticsearch:9200');
    // https is accepted under both policies.
    expect(es.parseConfig('api_key', apiKeyInput(), { allowInsecureTransport: false }).ok).toBe(true);
  });

  it('requires the credentials of the chosen mode', () => {
    const e = errorsOf('api_key', { cluster_url: URL_OK, index_pattern: 'logs-*', api_key_id: '  ' });
    expect(e['config.api_key_id']).toMatch(/required/);
    expect(e['config.api_key_secret']).toMatch(/API key secret/);
    const b = errorsOf('basic', { cluster_url: URL_OK, index_pattern: 'logs-*' });
    expect(Object.keys(b).sort()).toEqual(['config.password', 'config.username']);
  });

  it('rejects unknown fields and fields of the other mode', () => {
    const e = errorsOf('api_key', apiKeyInput({ password: 'x', sslrootcert: '/etc/passwd' }));
    expect(e['config.password']).toMatch(/not a field of the api_key auth mode/);
    expect(e['config.sslrootcert']).toMatch(/remove it/);
    expect(es.parseConfig('oauth', apiKeyInput()).ok).toBe(false);
  });

  it('needs one of the two scope fields and names both', () => {
    const e = errorsOf('api_key', apiKeyInput({ allowed_indices: [], index_pattern: '' }));
    expect(e['config.allowed_indices']).toMatch(/Allowed indices or Index pattern/);
    expect(e['config.index_pattern']).toMatch(/Allowed indices or Index pattern/);
    expect(
      es.parseConfig('api_key', apiKeyInput({ allowed_indices: undefined, index_pattern: 'logs-*' })).ok,
    ).toBe(true);
  });

  it('validates patterns', () => {
    const cases: [unknown, RegExp][] = [
      [['logs-*', ''], /empty pattern/],
      [['logs *'], /whitespace/],
      [['remote:logs-*'], /remote cluster/],
      [['logs::failures'], /remote cluster or a selector/],
      [['-logs-secret'], /exclusion/],
      [['_all'], /cannot start with '_'/],
      [['Logs'], /lower-case/],
      [['logs|x'], /character/],
      [[1], /list of index patterns/],
    ];
    for (const [list, re] of cases)
      expect(errorsOf('api_key', apiKeyInput({ allowed_indices: list }))['config.allowed_indices']).toMatch(
        re,
      );
    expect(
      errorsOf('api_key', apiKeyInput({ allowed_indices: [], index_pattern: 'a,b' }))['config.index_pattern'],
    ).toMatch(/single pattern/);
    expect(
      errorsOf('api_key', apiKeyInput({ allowed_indices: [], index_pattern: 'x:y' }))['config.index_pattern'],
    ).toMatch(/cross-cluster/);
  });

  it('checks the CA PEM', () => {
    const { caPem } = unrelatedCa();
    const ok = es.parseConfig('api_key', apiKeyInput({ ca_cert_pem: `\n${caPem}\n` }));
    expect(ok.ok && ok.value.config.ca_cert_pem).toBe(caPem.trim());
    expect(errorsOf('api_key', apiKeyInput({ ca_cert_pem: 'hello' }))['config.ca_cert_pem']).toMatch(
      /BEGIN CERTIFICATE/,
    );
    expect(
      errorsOf(
        'api_key',
        apiKeyInput({ ca_cert_pem: '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----' }),
      )['config.ca_cert_pem'],
    ).toMatch(/not a valid certificate/);
    expect(
      errorsOf(
        'api_key',
        apiKeyInput({ ca_cert_pem: '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----' }),
      )['config.ca_cert_pem'],
    ).toMatch(/private key/);
    expect(
      errorsOf('api_key', apiKeyInput({ ca_cert_pem: `${caPem}\ntrailing` }))['config.ca_cert_pem'],
    ).toMatch(/outside/);
    expect(errorsOf('api_key', apiKeyInput({ verify_tls: 'no' }))['config.verify_tls']).toMatch(
      /true or false/,
    );
  });

  it('never echoes a secret in an error message', () => {
    const r = es.parseConfig(
      'api_key',
      apiKeyInput({
        api_key_secret: 'super-secret-value',
        cluster_url: 'http://super-secret-value.example:1',
      }),
    );
    expect(r.ok).toBe(false);
    if (!r.ok) for (const e of r.errors) expect(e.message).not.toContain('super-secret-value');
  });
});

describe('warnings', () => {
  const target = (authMode: string, config: Record<string, unknown>): ConnectionTarget => ({
    id: 'w',
    dialect: 'elasticsearch',
    authMode,
    config: { cluster_url: URL_OK, allowed_indices: ['x'], verify_tls: true, ...config },
    secrets: {},
  });
  it('warns for basic auth, TLS verification off and plain http', () => {
    expect(es.warnings(target('api_key', {}))).toEqual([]);
    expect(es.warnings(target('basic', {}))[0]).toMatch(/development only/);
    expect(es.warnings(target('api_key', { verify_tls: false }))[0]).toMatch(/man-in-the-middle/);
    expect(es.warnings(target('api_key', { cluster_url: 'http://127.0.0.1:9200' }))[0]).toMatch(/plain http/);
  });
});
