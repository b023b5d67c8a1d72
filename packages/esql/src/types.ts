/** ES|QL data types as a query's `columns[].type` reports them. */
export type EsqlType =
  | 'boolean'
  | 'long'
  | 'integer'
  | 'unsigned_long'
  | 'double'
  | 'keyword'
  | 'text'
  | 'date'
  | 'date_nanos'
  | 'ip'
  | 'version'
  | 'geo_point'
  | 'geo_shape'
  | 'cartesian_point'
  | 'cartesian_shape'
  | 'null'
  | 'unsupported'
  | 'date_period'
  | 'time_duration'
  | '_source';

/** Elasticsearch mapping type -> the type ES|QL reads it as (its widening rules; ESQL.md). */
const TYPE_BY_MAPPING: Record<string, EsqlType> = {
  boolean: 'boolean',
  byte: 'integer',
  short: 'integer',
  integer: 'integer',
  token_count: 'integer',
  long: 'long',
  unsigned_long: 'unsigned_long',
  float: 'double',
  half_float: 'double',
  scaled_float: 'double',
  double: 'double',
  keyword: 'keyword',
  wildcard: 'keyword',
  constant_keyword: 'keyword',
  text: 'text',
  match_only_text: 'text',
  semantic_text: 'text',
  date: 'date',
  date_nanos: 'date_nanos',
  ip: 'ip',
  version: 'version',
  geo_point: 'geo_point',
  geo_shape: 'geo_shape',
  point: 'cartesian_point',
  shape: 'cartesian_shape',
};

/** The ES|QL type of a mapping type (after widening); `unsupported` for anything ES|QL cannot read. */
export function esqlTypeOfMapping(mappingType: string): EsqlType {
  return TYPE_BY_MAPPING[mappingType] ?? 'unsupported';
}
