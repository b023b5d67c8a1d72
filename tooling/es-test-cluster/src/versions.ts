import { createHash } from 'node:crypto';

/** What a given Elasticsearch version (or serverless) knows about. */
export interface VersionInfo {
  /** The version string the cluster reports in `GET /`. */
  readonly number: string;
  readonly major: number;
  readonly minor: number;
  readonly patch: number;
  readonly serverless: boolean;
  readonly buildHash: string;
  readonly luceneVersion: string;
}

const LUCENE: Record<string, string> = {
  '8.10': '9.7.0',
  '8.11': '9.8.0',
  '8.12': '9.9.1',
  '8.13': '9.10.0',
  '8.14': '9.10.0',
  '8.15': '9.11.1',
  '8.16': '9.12.0',
  '8.17': '9.12.0',
  '8.18': '9.12.1',
  '8.19': '9.12.2',
  '9.0': '10.1.0',
  '9.1': '10.2.2',
  '9.2': '10.3.1',
  '9.3': '10.3.2',
};

export const DEFAULT_VERSION = '8.15.0';

/**
 * Parses `8.15.0`, `8.15`, `9.1.2` or `serverless`. Accepts 8.x and 9.x; ES|QL exists from 8.11.
 * Serverless reports a version number that is not meaningful (`8.11.0`) and behaves like the
 * newest release.
 */
export function parseVersion(input: string): VersionInfo {
  const text = input.trim();
  if (text.toLowerCase() === 'serverless') {
    return {
      number: '8.11.0',
      major: 9,
      minor: 3,
      patch: 0,
      serverless: true,
      buildHash: '00000000',
      luceneVersion: '10.3.2',
    };
  }
  const m = /^(\d+)\.(\d+)(?:\.(\d+))?$/.exec(text);
  if (!m) throw new Error(`invalid version [${input}]: expected MAJOR.MINOR[.PATCH] or "serverless"`);
  const major = Number(m[1]);
  const minor = Number(m[2]);
  const patch = Number(m[3] ?? '0');
  if (major !== 8 && major !== 9)
    throw new Error(`unsupported version [${input}]: only 8.x and 9.x are emulated`);
  const number = `${major}.${minor}.${patch}`;
  const buildHash = createHash('sha1').update(`es-test-cluster:${number}`).digest('hex');
  return {
    number,
    major,
    minor,
    patch,
    serverless: false,
    buildHash,
    luceneVersion: LUCENE[`${major}.${minor}`] ?? (major === 8 ? '9.12.2' : '10.3.2'),
  };
}

/** `a >= major.minor` */
export function atLeast(v: VersionInfo, major: number, minor: number): boolean {
  return v.major > major || (v.major === major && v.minor >= minor);
}

/** Feature switches derived from the version, following ESQL.md. */
export interface Capabilities {
  esql: boolean;
  took: boolean;
  isPartial: boolean;
  documentsFound: boolean;
  allowPartialResultsParam: boolean;
  /** Partial results are returned by default (8.19 / 9.1+). */
  partialByDefault: boolean;
  dropNullColumns: boolean;
  includeCcsMetadata: boolean;
  defaultLimit: number;
  maxLimit: number;
  lookupJoin: boolean;
  fork: boolean;
  completion: boolean;
  inlineStats: boolean;
  changePoint: boolean;
  timeSeries: boolean;
  /** `FROM idx METADATA _id` without brackets (8.13+). */
  metadataNoBrackets: boolean;
  /** `FROM idx [METADATA _id]` bracket form (removed in 9.0). */
  metadataBrackets: boolean;
  quotedIndexNames: boolean;
  bucket: boolean;
  /** Media-type compatibility majors the REST layer accepts. */
  compatibleWith: readonly number[];
}

export function capabilities(v: VersionInfo): Capabilities {
  const is819 = v.major === 8 && v.minor >= 19;
  return {
    esql: atLeast(v, 8, 11),
    took: atLeast(v, 8, 16),
    isPartial: atLeast(v, 8, 18),
    documentsFound: atLeast(v, 9, 1),
    allowPartialResultsParam: is819 || atLeast(v, 9, 1),
    partialByDefault: is819 || atLeast(v, 9, 1),
    dropNullColumns: atLeast(v, 8, 13),
    includeCcsMetadata: atLeast(v, 8, 16),
    defaultLimit: atLeast(v, 8, 13) ? 1000 : 500,
    maxLimit: 10000,
    lookupJoin: atLeast(v, 8, 18),
    fork: atLeast(v, 9, 1),
    completion: atLeast(v, 9, 1),
    inlineStats: atLeast(v, 9, 2),
    changePoint: atLeast(v, 9, 2),
    timeSeries: atLeast(v, 9, 2),
    metadataNoBrackets: atLeast(v, 8, 13),
    metadataBrackets: !atLeast(v, 9, 0),
    quotedIndexNames: atLeast(v, 8, 15),
    bucket: atLeast(v, 8, 13),
    compatibleWith: v.major === 9 ? [8, 9] : [7, 8],
  };
}
