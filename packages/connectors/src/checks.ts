import type { ConnectorError } from './errors.ts';
import type { SslMode } from './server-config.ts';
import type { CheckStatus, TestCheck, TestResult } from './types.ts';

/**
 * The checks of one `test()`, in a fixed order: each set as it is decided, the rest reported as
 * skipped (after a failure) or not applicable, and the failure's symptom, cause and fix beside them.
 */
export class TestReport {
  private readonly checks = new Map<string, TestCheck>();

  /** `names`: each check's id and name, in the order they are reported. */
  constructor(private readonly names: Readonly<Record<string, string>>) {}

  get order(): string[] {
    return Object.keys(this.names);
  }

  set(id: string, status: CheckStatus, detail: string): void {
    this.checks.set(id, { id, name: this.names[id] ?? id, status, detail });
  }

  result(failure: ConnectorError | null, server: TestResult['server']): TestResult {
    for (const id of this.order)
      if (!this.checks.has(id))
        this.set(id, 'skipped', failure ? 'Not checked: an earlier check failed.' : 'Not applicable.');
    const list = this.order.map((id) => this.checks.get(id) as TestCheck);
    return {
      ok: !list.some((c) => c.status === 'failed'),
      checks: list,
      symptom: failure?.symptom ?? null,
      cause: failure?.cause_ ?? null,
      fix: failure?.fix ?? null,
      server,
    };
  }
}

/** The `tls` check of a SQL server connection, from its TLS mode (the handshake having passed). */
export function tlsCheck(sslMode: SslMode): [CheckStatus, string] {
  if (sslMode === 'disable')
    return ['warning', 'TLS is off (ssl_mode=disable): development or local servers only.'];
  if (sslMode === 'require')
    return ['warning', 'Encrypted, but the server certificate is not verified (ssl_mode=require).'];
  return ['passed', `Encrypted; certificate verified (${sslMode}).`];
}
