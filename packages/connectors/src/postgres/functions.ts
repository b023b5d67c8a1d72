/**
 * Functions and types a generated analytics query may use. Everything else is refused by the
 * validator: the list is an allow-list, so a function added to PostgreSQL (or installed by an
 * extension, or defined by a user) is refused until someone reviews it and adds it here.
 *
 * Left out on purpose: anything that sleeps, signals or inspects backends (`pg_sleep`,
 * `pg_terminate_backend`, `pg_cancel_backend`, `pg_stat_*`), touches files or large objects
 * (`pg_read_file`, `pg_ls_dir`, `lo_*`), changes settings (`set_config`), runs SQL text
 * (`query_to_xml`, `dblink`, `cursor_to_xml`, `ts_stat`), writes (`nextval`, `setval`,
 * `pg_notify`, `txid_*`), takes locks (`pg_advisory_*`), reveals server configuration or
 * privileges (`current_setting`, `pg_get_*`, `has_*_privilege`, `version`) and everything else.
 */
export const ALLOWED_FUNCTIONS: ReadonlySet<string> = new Set([
  // aggregates
  'count', 'sum', 'avg', 'min', 'max', 'stddev', 'stddev_pop', 'stddev_samp', 'variance', 'var_pop', 'var_samp',
  'bool_and', 'bool_or', 'every', 'string_agg', 'array_agg', 'percentile_cont', 'percentile_disc', 'mode',
  'corr', 'covar_pop', 'covar_samp', 'regr_slope', 'regr_intercept', 'regr_r2', 'regr_count', 'regr_avgx',
  'regr_avgy', 'bit_and', 'bit_or', 'json_agg', 'jsonb_agg', 'json_object_agg', 'jsonb_object_agg', 'any_value',
  // window functions
  'row_number', 'rank', 'dense_rank', 'percent_rank', 'cume_dist', 'ntile', 'lag', 'lead', 'first_value',
  'last_value', 'nth_value',
  // mathematics
  'abs', 'ceil', 'ceiling', 'floor', 'round', 'trunc', 'sign', 'sqrt', 'cbrt', 'power', 'pow', 'exp', 'ln', 'log',
  'log10', 'mod', 'div', 'pi', 'degrees', 'radians', 'width_bucket', 'gcd', 'lcm', 'scale', 'trim_scale',
  'sin', 'cos', 'tan', 'asin', 'acos', 'atan', 'atan2',
  // strings
  'lower', 'upper', 'initcap', 'length', 'char_length', 'character_length', 'octet_length', 'bit_length',
  'substr', 'substring', 'left', 'right', 'btrim', 'ltrim', 'rtrim', 'lpad', 'rpad', 'replace', 'concat',
  'concat_ws', 'position', 'strpos', 'split_part', 'starts_with', 'reverse', 'repeat', 'translate', 'ascii',
  'chr', 'overlay', 'md5', 'regexp_replace', 'regexp_match', 'regexp_matches', 'regexp_like', 'regexp_count',
  'regexp_substr', 'regexp_split_to_array', 'regexp_split_to_table', 'string_to_array', 'array_to_string',
  'format', 'to_char', 'to_number', 'to_date', 'to_timestamp', 'similar_to_escape', 'like_escape', 'normalize',
  'is_normalized',
  // dates and times
  'now', 'date_trunc', 'date_part', 'extract', 'age', 'make_date', 'make_time', 'make_timestamp',
  'make_timestamptz', 'make_interval', 'date_bin', 'justify_days', 'justify_hours', 'justify_interval',
  'isfinite', 'timezone', 'statement_timestamp', 'transaction_timestamp', 'clock_timestamp', 'overlaps',
  'date_add', 'date_subtract',
  // arrays and sets
  'array_length', 'cardinality', 'unnest', 'array_position', 'array_positions', 'array_cat', 'array_append',
  'array_prepend', 'array_remove', 'array_replace', 'array_upper', 'array_lower', 'array_ndims', 'generate_series',
  // JSON
  'json_build_object', 'jsonb_build_object', 'json_build_array', 'jsonb_build_array', 'to_json', 'to_jsonb',
  'row_to_json', 'json_extract_path', 'json_extract_path_text', 'jsonb_extract_path', 'jsonb_extract_path_text',
  'json_array_length', 'jsonb_array_length', 'json_typeof', 'jsonb_typeof', 'json_array_elements',
  'json_array_elements_text', 'jsonb_array_elements', 'jsonb_array_elements_text', 'json_each', 'json_each_text',
  'jsonb_each', 'jsonb_each_text', 'json_object_keys', 'jsonb_object_keys', 'jsonb_strip_nulls', 'json_strip_nulls',
  // misc
  'num_nulls', 'num_nonnulls', 'nullif', 'coalesce', 'greatest', 'least',
]);

/**
 * Types a query may cast to (`::type`, `CAST(x AS type)`). Casts to `regclass`, `regproc` and the
 * other object-identifier types are refused: they look objects up in the catalog by name.
 */
export const ALLOWED_TYPES: ReadonlySet<string> = new Set([
  'bool', 'boolean', 'int2', 'int4', 'int8', 'smallint', 'integer', 'int', 'bigint', 'numeric', 'decimal',
  'float4', 'float8', 'real', 'double precision', 'text', 'varchar', 'bpchar', 'char', 'character',
  'character varying', 'name', 'date', 'time', 'timetz', 'timestamp', 'timestamptz', 'interval', 'json',
  'jsonb', 'uuid', 'bytea', 'money', 'inet', 'cidr', 'macaddr', 'bit', 'varbit',
]);
