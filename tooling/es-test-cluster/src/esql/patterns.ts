/** DISSECT and GROK pattern support. */

export interface DissectKey {
  name: string;
  append: boolean;
  skip: boolean;
  rightPad: boolean;
  order: number;
}

export interface DissectPattern {
  /** Text before the first key. */
  prefix: string;
  keys: { key: DissectKey; delimiter: string }[];
}

export function parseDissect(pattern: string): DissectPattern {
  const re = /%\{([^}]*)\}/g;
  let last = 0;
  let prefix = '';
  const keys: { key: DissectKey; delimiter: string }[] = [];
  let m: RegExpExecArray | null;
  let first = true;
  while ((m = re.exec(pattern)) !== null) {
    const between = pattern.slice(last, m.index);
    if (first) prefix = between;
    else {
      const prev = keys[keys.length - 1];
      if (prev) prev.delimiter = between;
    }
    first = false;
    let spec = m[1] ?? '';
    let rightPad = false;
    if (spec.endsWith('->')) {
      rightPad = true;
      spec = spec.slice(0, -2);
    }
    let append = false;
    let skip = false;
    let order = 0;
    if (spec.startsWith('+')) {
      append = true;
      spec = spec.slice(1);
    } else if (spec.startsWith('?') || spec === '') {
      skip = true;
      spec = spec.replace(/^\?/, '');
    } else if (spec.startsWith('&') || spec.startsWith('*'))
      throw new Error('reference keys are not supported');
    const om = /^(.*)\/(\d+)$/.exec(spec);
    if (om) {
      spec = om[1] ?? '';
      order = Number(om[2]);
    }
    keys.push({ key: { name: spec, append, skip, rightPad, order }, delimiter: '' });
    last = re.lastIndex;
  }
  const tail = pattern.slice(last);
  const lastKey = keys[keys.length - 1];
  if (lastKey) lastKey.delimiter = tail;
  if (keys.length === 0) throw new Error('Unable to find any keys or delimiters.');
  return { prefix, keys };
}

/** Output column names of a dissect pattern, in order. */
export function dissectColumns(p: DissectPattern): string[] {
  const out: string[] = [];
  for (const { key } of p.keys) if (!key.skip && !out.includes(key.name)) out.push(key.name);
  return out;
}

/** Returns name -> value, or null when the input does not match. */
export function applyDissect(
  p: DissectPattern,
  input: string,
  appendSeparator: string,
): Map<string, string> | null {
  if (!input.startsWith(p.prefix)) return null;
  let pos = p.prefix.length;
  const parts: { key: DissectKey; value: string }[] = [];
  for (let i = 0; i < p.keys.length; i++) {
    const { key, delimiter } = p.keys[i] as { key: DissectKey; delimiter: string };
    let value: string;
    if (delimiter === '') {
      if (i === p.keys.length - 1) {
        value = input.slice(pos);
        pos = input.length;
      } else {
        value = '';
      }
    } else {
      const idx = input.indexOf(delimiter, pos);
      if (idx < 0) return null;
      value = input.slice(pos, idx);
      pos = idx + delimiter.length;
      if (key.rightPad) while (input.startsWith(delimiter, pos)) pos += delimiter.length;
    }
    parts.push({ key, value });
  }
  const out = new Map<string, string>();
  const appends = new Map<string, { order: number; value: string }[]>();
  for (const { key, value } of parts) {
    if (key.skip) continue;
    if (key.append) {
      const list = appends.get(key.name) ?? [];
      list.push({ order: key.order, value });
      appends.set(key.name, list);
    } else {
      const list = appends.get(key.name);
      if (list) list.push({ order: key.order, value });
      else out.set(key.name, value);
    }
  }
  for (const [name, list] of appends) {
    const base = out.get(name);
    const items = list.sort((a, b) => a.order - b.order).map((x) => x.value);
    out.set(name, base !== undefined ? [base, ...items].join(appendSeparator) : items.join(appendSeparator));
  }
  return out;
}

const GROK_BASE: Record<string, string> = {
  USERNAME: '[a-zA-Z0-9._-]+',
  USER: '%{USERNAME}',
  EMAILLOCALPART: "[a-zA-Z0-9!#$%&'*+\\-/=?^_`{|}~]{1,64}(?:\\.[a-zA-Z0-9!#$%&'*+\\-/=?^_`{|}~]{1,62}){0,63}",
  EMAILADDRESS: '%{EMAILLOCALPART}@%{HOSTNAME}',
  INT: '(?:[+-]?(?:[0-9]+))',
  BASE10NUM: '(?:[+-]?(?:(?:[0-9]+(?:\\.[0-9]+)?)|(?:\\.[0-9]+)))',
  NUMBER: '(?:%{BASE10NUM})',
  BASE16NUM: '(?:0[xX]?[0-9a-fA-F]+)',
  POSINT: '\\b(?:[1-9][0-9]*)\\b',
  NONNEGINT: '\\b(?:[0-9]+)\\b',
  WORD: '\\b\\w+\\b',
  NOTSPACE: '\\S+',
  SPACE: '\\s*',
  DATA: '.*?',
  GREEDYDATA: '.*',
  QUOTEDSTRING: '(?:"(?:\\\\.|[^\\\\"]+)+"|""|\'(?:\\\\.|[^\\\\\']+)+\'|\'\')',
  QS: '%{QUOTEDSTRING}',
  UUID: '[A-Fa-f0-9]{8}-(?:[A-Fa-f0-9]{4}-){3}[A-Fa-f0-9]{12}',
  MAC: '(?:(?:[A-Fa-f0-9]{2}[:-]){5}[A-Fa-f0-9]{2}|(?:[A-Fa-f0-9]{4}\\.){2}[A-Fa-f0-9]{4})',
  IPV4: '(?:(?:25[0-5]|2[0-4][0-9]|[01]?[0-9][0-9]?)\\.){3}(?:25[0-5]|2[0-4][0-9]|[01]?[0-9][0-9]?)',
  IPV6: '(?:[0-9A-Fa-f]{0,4}:){2,7}[0-9A-Fa-f]{0,4}',
  IP: '(?:%{IPV6}|%{IPV4})',
  HOSTNAME: '\\b(?:[0-9A-Za-z][0-9A-Za-z-]{0,62})(?:\\.(?:[0-9A-Za-z][0-9A-Za-z-]{0,62}))*(?:\\.?|\\b)',
  IPORHOST: '(?:%{IP}|%{HOSTNAME})',
  HOSTPORT: '%{IPORHOST}:%{POSINT}',
  PATH: '(?:/[^\\s]*)+',
  URIPROTO: '[A-Za-z][A-Za-z0-9+\\-.]+',
  URIPATH: "(?:/[A-Za-z0-9$.+!*'(){},~:;=@#%&_\\-]*)+",
  URIPARAM: "\\?[A-Za-z0-9$.+!*'|(){},~@#%&/=:;_?\\-\\[\\]<>]*",
  URIPATHPARAM: '%{URIPATH}(?:%{URIPARAM})?',
  URI: '%{URIPROTO}://(?:%{USER}(?::[^@]*)?@)?(?:%{IPORHOST}(?::%{POSINT})?)?(?:%{URIPATHPARAM})?',
  MONTH:
    '\\b(?:[Jj]an(?:uary|uar)?|[Ff]eb(?:ruary|ruar)?|[Mm](?:a|ä)?r(?:ch|z)?|[Aa]pr(?:il)?|[Mm]a(?:y|i)?|[Jj]un(?:e|i)?|[Jj]ul(?:y|i)?|[Aa]ug(?:ust)?|[Ss]ep(?:tember)?|[Oo](?:c|k)?t(?:ober)?|[Nn]ov(?:ember)?|[Dd]e(?:c|z)(?:ember)?)\\b',
  MONTHNUM: '(?:0?[1-9]|1[0-2])',
  MONTHDAY: '(?:(?:0[1-9])|(?:[12][0-9])|(?:3[01])|[1-9])',
  DAY: '(?:Mon(?:day)?|Tue(?:sday)?|Wed(?:nesday)?|Thu(?:rsday)?|Fri(?:day)?|Sat(?:urday)?|Sun(?:day)?)',
  YEAR: '(?:\\d\\d){1,2}',
  HOUR: '(?:2[0123]|[01]?[0-9])',
  MINUTE: '(?:[0-5][0-9])',
  SECOND: '(?:(?:[0-5]?[0-9]|60)(?:[:.,][0-9]+)?)',
  TIME: '%{HOUR}:%{MINUTE}(?::%{SECOND})?',
  ISO8601_TIMEZONE: '(?:Z|[+-]%{HOUR}(?::?%{MINUTE}))',
  TIMESTAMP_ISO8601:
    '%{YEAR}-%{MONTHNUM}-%{MONTHDAY}[T ]%{HOUR}:?%{MINUTE}(?::?%{SECOND})?%{ISO8601_TIMEZONE}?',
  DATE_US: '%{MONTHNUM}[/-]%{MONTHDAY}[/-]%{YEAR}',
  DATE_EU: '%{MONTHDAY}[./-]%{MONTHNUM}[./-]%{YEAR}',
  HTTPDATE: '%{MONTHDAY}/%{MONTH}/%{YEAR}:%{TIME} %{INT}',
  LOGLEVEL:
    '(?:[Aa]lert|ALERT|[Tt]race|TRACE|[Dd]ebug|DEBUG|[Nn]otice|NOTICE|[Ii]nfo(?:rmation)?|INFO(?:RMATION)?|[Ww]arn(?:ing)?|WARN(?:ING)?|[Ee]rr(?:or)?|ERR(?:OR)?|[Cc]rit(?:ical)?|CRIT(?:ICAL)?|[Ff]atal|FATAL|[Ss]evere|SEVERE|EMERG(?:ENCY)?|[Ee]merg(?:ency)?)',
};

export interface GrokPattern {
  regex: RegExp;
  /** Output columns in order, with their ES|QL types. */
  columns: { name: string; type: 'keyword' | 'integer' | 'long' | 'double' | 'boolean' }[];
  /** Capture group name -> column name. */
  groups: Map<string, string>;
}

const GROK_TYPES: Record<string, 'integer' | 'long' | 'double' | 'boolean'> = {
  int: 'integer',
  long: 'long',
  float: 'double',
  double: 'double',
  boolean: 'boolean',
};

/** Compiles a grok expression into a JavaScript regex with named groups. */
export function compileGrok(pattern: string): GrokPattern {
  const columns: GrokPattern['columns'] = [];
  const groups = new Map<string, string>();
  let counter = 0;
  const expand = (p: string, depth: number): string => {
    if (depth > 20) throw new Error('grok pattern nesting too deep');
    return p.replace(
      /%\{(\w+)(?::([\w.@[\]-]+))?(?::(\w+))?\}/g,
      (_all, syntax: string, semantic: string | undefined, type: string | undefined) => {
        const def = GROK_BASE[syntax];
        if (def === undefined)
          throw new Error(`Unable to find pattern [${syntax}] in Grok's pattern dictionary`);
        const body = expand(def, depth + 1);
        if (!semantic) return `(?:${body})`;
        const group = `g${counter++}`;
        groups.set(group, semantic);
        if (!columns.some((c) => c.name === semantic))
          columns.push({ name: semantic, type: type ? (GROK_TYPES[type] ?? 'keyword') : 'keyword' });
        return `(?<${group}>${body})`;
      },
    );
  };
  let source = expand(pattern, 0);
  source = source.replace(/\(\?<([A-Za-z][\w.]*)>/g, (all, name: string) => {
    if (/^g\d+$/.test(name) && groups.has(name)) return all;
    const group = `g${counter++}`;
    groups.set(group, name);
    if (!columns.some((c) => c.name === name)) columns.push({ name, type: 'keyword' });
    return `(?<${group}>`;
  });
  return { regex: new RegExp(source), columns, groups };
}
