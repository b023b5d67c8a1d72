import type {
  AuthModeDescriptor,
  AvailableDialectDescriptor,
  DialectCapabilities,
  FormField,
} from '../types.ts';

export const BASIC_AUTH_WARNING =
  'Basic auth is for development only: every request is attributed to one user, so there is no per-connection audit trail, and rotating the credentials requires editing the connection. Prefer an API key.';

export const VERIFY_TLS_OFF_WARNING =
  'TLS verification is off: the cluster certificate is not checked, which allows active man-in-the-middle attacks. Use this in development only; supply the CA cert PEM instead.';

export const PLAIN_HTTP_WARNING =
  'The Cluster URL uses plain http://, accepted only because the operator allows insecure transport (ALLOW_INSECURE_TRANSPORT=true, development only): credentials and data travel unencrypted. Use https:// in production.';

const clusterUrl: FormField = {
  name: 'cluster_url',
  locatesTarget: true,
  label: 'Cluster URL',
  type: 'url',
  required: true,
  secret: false,
  help: 'The cluster endpoint as an HTTPS URL including the port, e.g. https://my-deployment.es.us-east-1.aws.elastic.cloud:443. On serverless, the project endpoint.',
  placeholder: 'https://my-deployment.es.us-east-1.aws.elastic.cloud:443',
};

const apiKeyId: FormField = {
  name: 'api_key_id',
  label: 'API key ID',
  type: 'string',
  required: true,
  secret: false,
  help: 'The `id` returned when the key is created. Create it with the index privileges read and view_index_metadata restricted to the target indices.',
};

const apiKeySecret: FormField = {
  name: 'api_key_secret',
  label: 'API key secret',
  type: 'secret',
  required: true,
  secret: true,
  help: 'The `api_key` returned when the key is created (not the base64 "encoded" value). Stored encrypted.',
};

const username: FormField = {
  name: 'username',
  label: 'Username',
  type: 'string',
  required: true,
  secret: false,
  help: 'A user with the index privileges read and view_index_metadata on the target indices.',
};

const password: FormField = {
  name: 'password',
  label: 'Password',
  type: 'secret',
  required: true,
  secret: true,
  help: 'Stored encrypted.',
};

const verifyTls: FormField = {
  name: 'verify_tls',
  locatesTarget: true,
  label: 'Verify TLS',
  type: 'boolean',
  required: false,
  secret: false,
  default: true,
  help: 'Verify the cluster certificate (against the CA cert PEM when given). On is the recommended value; off is for development only because it allows active man-in-the-middle attacks.',
};

const caCertPem: FormField = {
  name: 'ca_cert_pem',
  locatesTarget: true,
  label: 'CA cert PEM',
  type: 'pem',
  required: false,
  secret: false,
  help: 'For a self-signed or internal CA: paste the whole block, from the -----BEGIN CERTIFICATE----- line to the -----END CERTIFICATE----- line.',
  placeholder: '-----BEGIN CERTIFICATE-----\n...\n-----END CERTIFICATE-----',
};

const allowedIndices: FormField = {
  name: 'allowed_indices',
  label: 'Allowed indices',
  type: 'string_list',
  required: false,
  secret: false,
  default: [],
  help: 'Index patterns the connection may query, comma-separated (e.g. logs-*, metrics-web). Evaluated first. Set this or Index pattern. Several patterns cover several index groups.',
  placeholder: 'logs-*, metrics-*',
};

const indexPattern: FormField = {
  name: 'index_pattern',
  label: 'Index pattern',
  type: 'string',
  required: false,
  secret: false,
  help: 'A single index pattern (e.g. logs-*), used only when Allowed indices is empty.',
  placeholder: 'logs-*',
};

function fieldsFor(credentials: FormField[]): FormField[] {
  return [clusterUrl, ...credentials, verifyTls, caCertPem, allowedIndices, indexPattern];
}

const apiKeyMode: AuthModeDescriptor = {
  id: 'api_key',
  name: 'API key',
  description:
    'An Elasticsearch API key (id and secret). Authenticates every request, is revocable without restarting any service, and gives a per-connection audit trail. Required on serverless.',
  recommended: true,
  warning: null,
  fields: fieldsFor([apiKeyId, apiKeySecret]),
};

const basicMode: AuthModeDescriptor = {
  id: 'basic',
  name: 'Basic auth (development only)',
  description: 'A username and password of a native or file realm user. Not accepted by serverless projects.',
  recommended: false,
  warning: BASIC_AUTH_WARNING,
  fields: fieldsFor([username, password]),
};

/** ES|QL on 8.11+: no joins across indices but LOOKUP JOIN (8.13+, not planned yet), no window functions. */
export const elasticsearchCapabilities: DialectCapabilities = {
  query_language_id: 'esql',
  engine: 'Elasticsearch (ES|QL)',
  table_noun: { one: 'index', many: 'indices' },
  joins: false,
  related_rows: false,
  share_of_total: false,
  limit_per_group: false,
  median: true,
  percentiles: true,
  time_buckets: true,
  lookup_join_from: '8.13.0',
  analyzed_text: true,
  multi_valued_fields: true,
  grouped_sources: true,
};

export const elasticsearchDescriptor: AvailableDialectDescriptor = {
  id: 'elasticsearch',
  name: 'Elasticsearch',
  availability: 'available',
  availability_note: null,
  query_language: 'ES|QL',
  color: '#00a9a5',
  auth_modes: [apiKeyMode, basicMode],
  capabilities: elasticsearchCapabilities,
};

/** Field names of each auth mode (the only keys `parseConfig` accepts). */
export const FIELD_NAMES: Record<string, string[]> = Object.fromEntries(
  elasticsearchDescriptor.auth_modes.map((m) => [m.id, m.fields.map((f) => f.name)]),
);
