/**
 * The ES|QL case table: each case is a query over fixtures/es-test with the expected columns
 * (`name:type`) and rows, or the expected error. Values were checked against the fixture data
 * independently (see scripts/generate-fixtures.ts for how the data is built).
 */
export interface QueryCase {
  q: string;
  cols?: string;
  rows?: unknown[][];
  error?: { status: number; type: string; reason: string };
}

export const CASES: QueryCase[] = [
  {
    q: 'FROM employees | KEEP emp_no, first_name, last_name | SORT emp_no | LIMIT 3',
    cols: 'emp_no:integer, first_name:keyword, last_name:keyword',
    rows: [
      [10001, 'Georgi', 'Facello'],
      [10002, 'Bezalel', 'Kalloufi'],
      [10003, 'Parto', 'Nooteboom'],
    ],
  },
  {
    q: 'FROM employees | SORT emp_no | LIMIT 1 | KEEP emp_no, languages, languages.long, languages.short',
    cols: 'emp_no:integer, languages:integer, languages.long:long, languages.short:integer',
    rows: [[10001, 1, 1, 1]],
  },
  {
    q: 'FROM employees | SORT emp_no | LIMIT 2 | KEEP height*',
    cols: 'height:double, height.float:double, height.half_float:double, height.scaled_float:double',
    rows: [
      [1.4, 1.399999976158142, 1.400390625, 1.4],
      [1.77, 1.7699999809265137, 1.76953125, 1.77],
    ],
  },
  {
    q: 'FROM employees | SORT emp_no | LIMIT 3 | KEEP emp_no, salary_change*',
    cols: 'emp_no:integer, salary_change:double, salary_change.int:integer, salary_change.keyword:keyword, salary_change.long:long',
    rows: [
      [10001, null, null, null, null],
      [10002, -6.25, -6, '-6.25', -6],
      [10003, [-4.5, -0.5], [-4, 0], ['-0.5', '-4.5'], [-4, 0]],
    ],
  },
  {
    q: 'FROM employees | SORT emp_no | LIMIT 3 | KEEP emp_no, job_positions',
    cols: 'emp_no:integer, job_positions:keyword',
    rows: [
      [10001, null],
      [10002, ['Internship', 'Purchase Manager']],
      [10003, ['Business Analyst', 'Senior Python Developer', 'Tech Lead']],
    ],
  },
  {
    q: 'FROM employees | SORT emp_no | LIMIT 2 | KEEP emp_no, address.*',
    cols: 'emp_no:integer, address.city:keyword, address.zip:keyword',
    rows: [
      [10001, 'Amsterdam', '10000'],
      [10002, 'Berlin', '10037'],
    ],
  },
  {
    q: 'FROM employees | SORT emp_no | LIMIT 2 | KEEP emp_no, photo',
    cols: 'emp_no:integer, photo:unsupported',
    rows: [
      [10001, null],
      [10002, null],
    ],
  },
  {
    q: 'FROM employees | SORT emp_no | LIMIT 2 | KEEP emp_no, last_login, app_version',
    cols: 'emp_no:integer, last_login:ip, app_version:version',
    rows: [
      [10001, '10.0.0.1', '1.0.0'],
      [10002, '10.0.1.2', '1.1.1'],
    ],
  },
  {
    q: 'FROM employees | SORT emp_no | LIMIT 2 | KEEP emp_no, bio, bio.keyword',
    cols: 'emp_no:integer, bio:text, bio.keyword:keyword',
    rows: [
      [10001, 'Georgi Facello works in Amsterdam', 'Georgi Facello works in Amsterdam'],
      [10002, 'Bezalel Kalloufi works in Berlin', 'Bezalel Kalloufi works in Berlin'],
    ],
  },
  {
    q: 'FROM employees | SORT emp_no | LIMIT 2 | KEEP emp_no, birth_date, hire_date',
    cols: 'emp_no:integer, birth_date:date, hire_date:date',
    rows: [
      [10001, '1952-01-01T00:00:00.000Z', '1985-01-01T00:00:00.000Z'],
      [10002, '1952-04-23T00:00:00.000Z', '1985-04-08T01:00:00.000Z'],
    ],
  },
  {
    q: 'FROM employees | SORT emp_no | LIMIT 3 | KEEP emp_no, still_hired, is_rehired',
    cols: 'emp_no:integer, still_hired:boolean, is_rehired:boolean',
    rows: [
      [10001, false, [false, true]],
      [10002, true, false],
      [10003, true, true],
    ],
  },
  {
    q: 'FROM employees | LIMIT 0',
    cols: 'address.city:keyword, address.zip:keyword, app_version:version, avg_worked_seconds:long, bio:text, bio.keyword:keyword, birth_date:date, emp_no:integer, first_name:keyword, gender:keyword, height:double, height.float:double, height.half_float:double, height.scaled_float:double, hire_date:date, is_rehired:boolean, job_positions:keyword, languages:integer, languages.long:long, languages.short:integer, last_login:ip, last_name:keyword, photo:unsupported, salary:integer, salary_change:double, salary_change.int:integer, salary_change.keyword:keyword, salary_change.long:long, still_hired:boolean',
    rows: [],
  },
  {
    q: 'FROM employees | KEEP first_name, emp_no, *name | SORT emp_no | LIMIT 1',
    cols: 'first_name:keyword, emp_no:integer, last_name:keyword',
    rows: [['Georgi', 10001, 'Facello']],
  },
  {
    q: 'FROM employees | KEEP *name, emp_no | SORT emp_no | LIMIT 1',
    cols: 'first_name:keyword, last_name:keyword, emp_no:integer',
    rows: [['Georgi', 'Facello', 10001]],
  },
  {
    q: 'FROM employees | KEEP emp_no, a* | SORT emp_no | LIMIT 1',
    cols: 'emp_no:integer, address.city:keyword, address.zip:keyword, app_version:version, avg_worked_seconds:long',
    rows: [[10001, 'Amsterdam', '10000', '1.0.0', 200000000]],
  },
  {
    q: 'FROM employees | DROP *name, height*, salary_change*, languages*, job_positions, bio*, address*, photo, last_login, app_version, birth_date, hire_date, is_rehired, still_hired, avg_worked_seconds | SORT emp_no | LIMIT 2',
    cols: 'emp_no:integer, gender:keyword, salary:integer',
    rows: [
      [10001, 'M', 25000],
      [10002, 'F', 32919],
    ],
  },
  {
    q: 'FROM employees | RENAME first_name AS fn, last_name AS ln | KEEP emp_no, fn, ln | SORT emp_no | LIMIT 2',
    cols: 'emp_no:integer, fn:keyword, ln:keyword',
    rows: [
      [10001, 'Georgi', 'Facello'],
      [10002, 'Bezalel', 'Kalloufi'],
    ],
  },
  {
    q: 'FROM employees | RENAME emp_no AS salary | KEEP salary | SORT salary | LIMIT 2',
    cols: 'salary:integer',
    rows: [[10001], [10002]],
  },
  { q: 'FROM staff | STATS COUNT(*)', cols: 'COUNT(*):long', rows: [[100]] },
  { q: 'FROM employees, languages | STATS COUNT(*)', cols: 'COUNT(*):long', rows: [[104]] },
  { q: 'FROM emp* | STATS COUNT(*)', cols: 'COUNT(*):long', rows: [[100]] },
  { q: 'FROM *, -metrics* | STATS COUNT(*)', cols: 'COUNT(*):long', rows: [[204]] },
  { q: 'FROM *, -logs*, -metrics-b | STATS COUNT(*)', cols: 'COUNT(*):long', rows: [[109]] },
  { q: 'FROM logs-* | STATS COUNT(*)', cols: 'COUNT(*):long', rows: [[100]] },
  { q: 'FROM logs-*, logs-archive | STATS COUNT(*)', cols: 'COUNT(*):long', rows: [[105]] },
  { q: 'FROM logs | STATS COUNT(*)', cols: 'COUNT(*):long', rows: [[100]] },
  {
    q: 'FROM .internal-logs | KEEP note | SORT note',
    cols: 'note:keyword',
    rows: [['internal'], ['secret']],
  },
  { q: 'FROM .int* | STATS COUNT(*)', cols: 'COUNT(*):long', rows: [[2]] },
  {
    q: 'FROM logs-2024.01 | SORT @timestamp | LIMIT 2 | KEEP @timestamp, host.name, status, tags, response_time',
    cols: '@timestamp:date, host.name:keyword, status:integer, tags:keyword, response_time:double',
    rows: [
      ['2024-01-01T00:00:00.000Z', 'web-1', 200, ['eu', 'prod'], 0.009999999776482582],
      ['2024-01-01T16:32:16.072Z', 'db-1', 200, ['eu', 'prod'], 0.28999999165534973],
    ],
  },
  {
    q: 'FROM logs-* | SORT @timestamp | LIMIT 1 | DROP message*',
    cols: '@timestamp:date, bytes:long, client_ip:ip, host.name:keyword, level:keyword, location:geo_point, response_time:double, service:keyword, status:unsupported, tags:keyword',
    rows: [
      [
        '2024-01-01T00:00:00.000Z',
        100,
        '192.168.1.1',
        'web-1',
        'info',
        'POINT (2.3 48.8)',
        0.009999999776482582,
        'frontend',
        null,
        ['eu', 'prod'],
      ],
    ],
  },
  {
    q: 'FROM logs-* | WHERE @timestamp >= "2024-02-01" | STATS COUNT(*)',
    cols: 'COUNT(*):long',
    rows: [[40]],
  },
  {
    q: 'FROM logs-* | STATS c = COUNT(*) BY service | SORT service',
    cols: 'c:long, service:keyword',
    rows: [[100, 'frontend']],
  },
  { q: 'FROM logs-* | STATS COUNT(location)', cols: 'COUNT(location):long', rows: [[60]] },
  {
    q: 'FROM employees METADATA _index, _id | SORT emp_no | LIMIT 2 | KEEP emp_no, _index, _id',
    cols: 'emp_no:integer, _index:keyword, _id:keyword',
    rows: [
      [10001, 'employees', 'employees-1'],
      [10002, 'employees', 'employees-2'],
    ],
  },
  {
    q: 'FROM languages | SORT language_code',
    cols: 'language_code:integer, language_name:keyword',
    rows: [
      [1, 'English'],
      [2, 'French'],
      [3, 'Spanish'],
      [4, 'German'],
    ],
  },
  {
    q: 'FROM employees | WHERE emp_no < 10004 | KEEP emp_no | SORT emp_no',
    cols: 'emp_no:integer',
    rows: [[10001], [10002], [10003]],
  },
  {
    q: 'FROM employees | WHERE emp_no == 10005 | KEEP emp_no, first_name',
    cols: 'emp_no:integer, first_name:keyword',
    rows: [[10005, 'Kyoichi']],
  },
  {
    q: 'FROM employees | WHERE emp_no != 10001 AND emp_no <= 10003 | KEEP emp_no | SORT emp_no',
    cols: 'emp_no:integer',
    rows: [[10002], [10003]],
  },
  { q: 'FROM employees | WHERE gender IS NULL | STATS COUNT(*)', cols: 'COUNT(*):long', rows: [[10]] },
  { q: 'FROM employees | WHERE gender IS NOT NULL | STATS COUNT(*)', cols: 'COUNT(*):long', rows: [[90]] },
  { q: 'FROM employees | WHERE gender == "M" | STATS COUNT(*)', cols: 'COUNT(*):long', rows: [[50]] },
  { q: 'FROM employees | WHERE gender != "M" | STATS COUNT(*)', cols: 'COUNT(*):long', rows: [[40]] },
  { q: 'FROM employees | WHERE NOT gender == "M" | STATS COUNT(*)', cols: 'COUNT(*):long', rows: [[40]] },
  {
    q: 'FROM employees | WHERE languages > 3 OR languages IS NULL | STATS COUNT(*)',
    cols: 'COUNT(*):long',
    rows: [[40]],
  },
  { q: 'FROM employees | WHERE still_hired | STATS COUNT(*)', cols: 'COUNT(*):long', rows: [[66]] },
  { q: 'FROM employees | WHERE NOT still_hired | STATS COUNT(*)', cols: 'COUNT(*):long', rows: [[34]] },
  { q: 'FROM employees | WHERE is_rehired | STATS COUNT(*)', cols: 'COUNT(*):long', rows: [[34]] },
  { q: 'FROM employees | WHERE salary_change > 0 | STATS COUNT(*)', cols: 'COUNT(*):long', rows: [[14]] },
  {
    q: 'FROM employees | WHERE job_positions == "Tech Lead" | KEEP emp_no | SORT emp_no',
    cols: 'emp_no:integer',
    rows: [[10040], [10082]],
  },
  {
    q: 'FROM employees | WHERE emp_no IN (10001, 10003, 99999) | KEEP emp_no | SORT emp_no',
    cols: 'emp_no:integer',
    rows: [[10001], [10003]],
  },
  {
    q: 'FROM employees | WHERE emp_no NOT IN (10001, 10002) AND emp_no < 10005 | KEEP emp_no | SORT emp_no',
    cols: 'emp_no:integer',
    rows: [[10003], [10004]],
  },
  {
    q: 'FROM employees | WHERE first_name LIKE "Geo*" | KEEP emp_no, first_name | SORT emp_no',
    cols: 'emp_no:integer, first_name:keyword',
    rows: [
      [10001, 'Georgi'],
      [10021, 'Georgi'],
      [10041, 'Georgi'],
      [10061, 'Georgi'],
      [10081, 'Georgi'],
    ],
  },
  { q: 'FROM employees | WHERE first_name LIKE "?ary" | STATS COUNT(*)', cols: 'COUNT(*):long', rows: [[5]] },
  {
    q: 'FROM employees | WHERE first_name NOT LIKE "*a*" | STATS COUNT(*)',
    cols: 'COUNT(*):long',
    rows: [[25]],
  },
  {
    q: 'FROM employees | WHERE first_name RLIKE "K.*i(to|de)" | STATS c = COUNT(*) BY first_name | SORT first_name',
    cols: 'c:long, first_name:keyword',
    rows: [
      [5, 'Kazuhide'],
      [5, 'Kazuhito'],
    ],
  },
  {
    q: 'FROM employees | WHERE hire_date < "1986-01-01" | KEEP emp_no | SORT emp_no',
    cols: 'emp_no:integer',
    rows: [[10001], [10002], [10003], [10004]],
  },
  {
    q: 'FROM employees | WHERE birth_date IS NULL | KEEP emp_no | SORT emp_no',
    cols: 'emp_no:integer',
    rows: [[10025], [10050], [10075], [10100]],
  },
  {
    q: 'FROM employees | WHERE last_login == "10.0.1.2" | KEEP emp_no',
    cols: 'emp_no:integer',
    rows: [[10002]],
  },
  { q: 'FROM employees | WHERE app_version > "1.10" | STATS COUNT(*)', cols: 'COUNT(*):long', rows: [[16]] },
  {
    q: 'FROM employees | WHERE height.float > 1.99 | KEEP emp_no, height | SORT emp_no',
    cols: 'emp_no:integer, height:double',
    rows: [
      [10029, 2],
      [10057, 1.99],
      [10090, 2],
    ],
  },
  {
    q: 'FROM employees | WHERE address.city == "Tokyo" AND salary > 60000 | KEEP emp_no, salary | SORT emp_no',
    cols: 'emp_no:integer, salary:integer',
    rows: [
      [10025, 65056],
      [10045, 73436],
      [10050, 63031],
      [10070, 71411],
      [10075, 61006],
      [10095, 69386],
    ],
  },
  {
    q: 'FROM employees | WHERE STARTS_WITH(last_name, "Ba") | STATS COUNT(*)',
    cols: 'COUNT(*):long',
    rows: [[5]],
  },
  { q: 'FROM employees | WHERE bio LIKE "*Lisbon" | STATS COUNT(*)', cols: 'COUNT(*):long', rows: [[20]] },
  {
    q: 'FROM employees | WHERE emp_no > 10098 OR emp_no < 10002 | KEEP emp_no | SORT emp_no DESC',
    cols: 'emp_no:integer',
    rows: [[10100], [10099], [10001]],
  },
  {
    q: 'ROW a = 1, b = 2.5, c = "x", d = true, e = null',
    cols: 'a:integer, b:double, c:keyword, d:boolean, e:null',
    rows: [[1, 2.5, 'x', true, null]],
  },
  {
    q: 'ROW a = 1 | EVAL b = a + 1, c = b * 2, a = 10',
    cols: 'b:integer, c:integer, a:integer',
    rows: [[2, 4, 10]],
  },
  {
    q: 'ROW x = 7 | EVAL d = x / 2, m = x % 3, f = x / 2.0, n = -x',
    cols: 'x:integer, d:integer, m:integer, f:double, n:integer',
    rows: [[7, 3, 1, 3.5, -7]],
  },
  { q: 'ROW x = 2147483647 | EVAL y = x + 1', cols: 'x:integer, y:integer', rows: [[2147483647, null]] },
  { q: 'ROW x = 5, y = 0 | EVAL d = x / y', cols: 'x:integer, y:integer, d:integer', rows: [[5, 0, null]] },
  {
    q: 'ROW a = "hello", b = "World" | EVAL c = CONCAT(a, " ", b), l = LENGTH(c), u = TO_UPPER(a), lo = TO_LOWER(b)',
    cols: 'a:keyword, b:keyword, c:keyword, l:integer, u:keyword, lo:keyword',
    rows: [['hello', 'World', 'hello World', 11, 'HELLO', 'world']],
  },
  {
    q: 'ROW s = "Elasticsearch" | EVAL a = SUBSTRING(s, 1, 7), b = SUBSTRING(s, -6), c = LEFT(s, 3), d = RIGHT(s, 6)',
    cols: 's:keyword, a:keyword, b:keyword, c:keyword, d:keyword',
    rows: [['Elasticsearch', 'Elastic', 'search', 'Ela', 'search']],
  },
  {
    q: 'ROW s = "  padded  " | EVAL t = TRIM(s), l = LTRIM(s), r = RTRIM(s)',
    cols: 's:keyword, t:keyword, l:keyword, r:keyword',
    rows: [['  padded  ', 'padded', 'padded  ', '  padded']],
  },
  {
    q: 'ROW s = "a,b,c" | EVAL parts = SPLIT(s, ","), n = MV_COUNT(SPLIT(s, ","))',
    cols: 's:keyword, parts:keyword, n:integer',
    rows: [['a,b,c', ['a', 'b', 'c'], 3]],
  },
  {
    q: 'ROW s = "foobar" | EVAL r = REPLACE(s, "o+", "0"), p = LOCATE(s, "bar"), st = STARTS_WITH(s, "foo"), en = ENDS_WITH(s, "baz")',
    cols: 's:keyword, r:keyword, p:integer, st:boolean, en:boolean',
    rows: [['foobar', 'f0bar', 4, true, false]],
  },
  {
    q: 'ROW x = -2.5 | EVAL a = ABS(x), r = ROUND(x), c = CEIL(x), f = FLOOR(x)',
    cols: 'x:double, a:double, r:double, c:double, f:double',
    rows: [[-2.5, 2.5, -3, -2, -3]],
  },
  {
    q: 'ROW x = 3.14159 | EVAL r2 = ROUND(x, 2), r0 = ROUND(x)',
    cols: 'x:double, r2:double, r0:double',
    rows: [[3.14159, 3.14, 3]],
  },
  { q: 'ROW x = 1234 | EVAL r = ROUND(x, -2)', cols: 'x:integer, r:integer', rows: [[1234, 1200]] },
  {
    q: 'ROW x = 16 | EVAL s = SQRT(x), p = POW(x, 0.5), l = LOG10(100)',
    cols: 'x:integer, s:double, p:double, l:double',
    rows: [[16, 4, 4, 2]],
  },
  {
    q: 'ROW a = null | EVAL b = COALESCE(a, "default"), c = a IS NULL',
    cols: 'a:null, b:keyword, c:boolean',
    rows: [[null, 'default', true]],
  },
  {
    q: 'ROW x = 5 | EVAL c = CASE(x > 3, "big", x > 1, "medium", "small"), d = CASE(x < 0, "neg")',
    cols: 'x:integer, c:keyword, d:keyword',
    rows: [[5, 'big', null]],
  },
  {
    q: 'ROW x = 5 | EVAL g = GREATEST(1, x, 3), l = LEAST(1, x, 3)',
    cols: 'x:integer, g:integer, l:integer',
    rows: [[5, 5, 1]],
  },
  {
    q: 'ROW s = "42" | EVAL i = TO_INTEGER(s), l = TO_LONG(s), d = TO_DOUBLE(s), b = TO_BOOLEAN("true")',
    cols: 's:keyword, i:integer, l:long, d:double, b:boolean',
    rows: [['42', 42, 42, 42, true]],
  },
  {
    q: 'ROW i = 42 | EVAL s = TO_STRING(i), d = TO_STRING(1.5), b = TO_STRING(true)',
    cols: 'i:integer, s:keyword, d:keyword, b:keyword',
    rows: [[42, '42', '1.5', 'true']],
  },
  { q: 'ROW s = "abc" | EVAL i = TO_INTEGER(s)', cols: 's:keyword, i:integer', rows: [['abc', null]] },
  {
    q: 'ROW s = "2024-03-05T10:11:12.123Z" | EVAL d = TO_DATETIME(s), y = DATE_EXTRACT("year", TO_DATETIME(s)), m = DATE_EXTRACT("MONTH_OF_YEAR", TO_DATETIME(s))',
    cols: 's:keyword, d:date, y:long, m:long',
    rows: [['2024-03-05T10:11:12.123Z', '2024-03-05T10:11:12.123Z', 2024, 3]],
  },
  {
    q: 'ROW d = TO_DATETIME("2024-03-05T10:11:12.123Z") | EVAL f = DATE_FORMAT("yyyy-MM-dd", d), g = DATE_FORMAT(d), h = DATE_FORMAT("HH:mm:ss.SSS", d)',
    cols: 'd:date, f:keyword, g:keyword, h:keyword',
    rows: [['2024-03-05T10:11:12.123Z', '2024-03-05', '2024-03-05T10:11:12.123Z', '10:11:12.123']],
  },
  {
    q: 'ROW d = TO_DATETIME("2024-03-05T10:11:12.123Z") | EVAL day = DATE_TRUNC(1 day, d), month = DATE_TRUNC(1 month, d), year = DATE_TRUNC(1 year, d), hour = DATE_TRUNC(1 hour, d)',
    cols: 'd:date, day:date, month:date, year:date, hour:date',
    rows: [
      [
        '2024-03-05T10:11:12.123Z',
        '2024-03-05T00:00:00.000Z',
        '2024-03-01T00:00:00.000Z',
        '2024-01-01T00:00:00.000Z',
        '2024-03-05T10:00:00.000Z',
      ],
    ],
  },
  {
    q: 'ROW d = TO_DATETIME("2024-03-05T10:11:12.123Z") | EVAL week = DATE_TRUNC(1 week, d), quarter = DATE_TRUNC(3 months, d)',
    cols: 'd:date, week:date, quarter:date',
    rows: [['2024-03-05T10:11:12.123Z', '2024-03-04T00:00:00.000Z', '2024-01-01T00:00:00.000Z']],
  },
  {
    q: 'ROW d = TO_DATETIME("2024-01-31T00:00:00Z") | EVAL plus = d + 1 month, minus = d - 1 day, h = d + 36 hours',
    cols: 'd:date, plus:date, minus:date, h:date',
    rows: [
      [
        '2024-01-31T00:00:00.000Z',
        '2024-02-29T00:00:00.000Z',
        '2024-01-30T00:00:00.000Z',
        '2024-02-01T12:00:00.000Z',
      ],
    ],
  },
  {
    q: 'ROW p = DATE_PARSE("yyyy-MM-dd", "2023-12-25") | EVAL diff = DATE_DIFF("day", p, TO_DATETIME("2024-01-01T00:00:00Z"))',
    cols: 'p:date, diff:integer',
    rows: [['2023-12-25T00:00:00.000Z', 7]],
  },
  {
    q: 'ROW ip = TO_IP("192.168.1.5") | EVAL m = CIDR_MATCH(ip, "192.168.0.0/16"), n = CIDR_MATCH(ip, "10.0.0.0/8")',
    cols: 'ip:ip, m:boolean, n:boolean',
    rows: [['192.168.1.5', true, false]],
  },
  {
    q: 'ROW v = TO_VERSION("1.10.0") | EVAL gt = v > TO_VERSION("1.9.0")',
    cols: 'v:version, gt:boolean',
    rows: [['1.10.0', true]],
  },
  {
    q: 'ROW mv = [3, 1, 2] | EVAL c = MV_COUNT(mv), mi = MV_MIN(mv), ma = MV_MAX(mv), s = MV_SUM(mv), a = MV_AVG(mv)',
    cols: 'mv:integer, c:integer, mi:integer, ma:integer, s:integer, a:double',
    rows: [[[3, 1, 2], 3, 1, 3, 6, 2]],
  },
  {
    q: 'ROW mv = [3, 1, 2, 3] | EVAL f = MV_FIRST(mv), l = MV_LAST(mv), d = MV_DEDUPE(mv), so = MV_SORT(mv, "DESC"), me = MV_MEDIAN(mv)',
    cols: 'mv:integer, f:integer, l:integer, d:integer, so:integer, me:integer',
    rows: [[[3, 1, 2, 3], 3, 3, [3, 1, 2], [3, 3, 2, 1], 2]],
  },
  {
    q: 'ROW mv = ["b", "a"] | EVAL j = MV_CONCAT(mv, "+"), s = MV_SLICE(mv, 0, 0)',
    cols: 'mv:keyword, j:keyword, s:keyword',
    rows: [[['b', 'a'], 'b+a', 'b']],
  },
  {
    q: 'FROM employees | SORT emp_no | LIMIT 3 | EVAL full = CONCAT(first_name, " ", last_name) | KEEP full',
    cols: 'full:keyword',
    rows: [['Georgi Facello'], ['Bezalel Kalloufi'], ['Parto Nooteboom']],
  },
  {
    q: 'FROM employees | SORT emp_no | LIMIT 3 | EVAL l = LENGTH(job_positions) | KEEP emp_no, l',
    cols: 'emp_no:integer, l:integer',
    rows: [
      [10001, null],
      [10002, null],
      [10003, null],
    ],
  },
  {
    q: 'FROM employees | SORT emp_no | LIMIT 3 | EVAL c = MV_COUNT(job_positions), f = MV_FIRST(job_positions) | KEEP emp_no, c, f',
    cols: 'emp_no:integer, c:integer, f:keyword',
    rows: [
      [10001, null, null],
      [10002, 2, 'Internship'],
      [10003, 3, 'Business Analyst'],
    ],
  },
  {
    q: 'FROM employees | SORT emp_no | LIMIT 3 | EVAL sc = salary_change + 1 | KEEP emp_no, sc',
    cols: 'emp_no:integer, sc:double',
    rows: [
      [10001, null],
      [10002, -5.25],
      [10003, null],
    ],
  },
  {
    q: 'FROM employees | SORT emp_no | LIMIT 3 | EVAL s = TO_STRING(salary_change) | KEEP emp_no, s',
    cols: 'emp_no:integer, s:keyword',
    rows: [
      [10001, null],
      [10002, '-6.25'],
      [10003, ['-4.5', '-0.5']],
    ],
  },
  {
    q: 'FROM employees | SORT emp_no | LIMIT 3 | EVAL i = TO_INTEGER(salary_change) | KEEP emp_no, i',
    cols: 'emp_no:integer, i:integer',
    rows: [
      [10001, null],
      [10002, -6],
      [10003, [-4, 0]],
    ],
  },
  {
    q: 'FROM employees | SORT emp_no | LIMIT 2 | EVAL y = DATE_EXTRACT("year", hire_date), f = DATE_FORMAT("yyyy", birth_date) | KEEP emp_no, y, f',
    cols: 'emp_no:integer, y:long, f:keyword',
    rows: [
      [10001, 1985, '1952'],
      [10002, 1985, '1952'],
    ],
  },
  {
    q: 'FROM employees | SORT emp_no | LIMIT 2 | EVAL h = ROUND(height * 100) | KEEP emp_no, h',
    cols: 'emp_no:integer, h:double',
    rows: [
      [10001, 140],
      [10002, 177],
    ],
  },
  {
    q: 'FROM employees | SORT emp_no | LIMIT 3 | EVAL g = COALESCE(gender, "?") , big = salary > 40000 | KEEP emp_no, g, big',
    cols: 'emp_no:integer, g:keyword, big:boolean',
    rows: [
      [10001, 'M', false],
      [10002, 'F', false],
      [10003, 'M', true],
    ],
  },
  {
    q: 'FROM employees | EVAL salary = salary + 1 | SORT emp_no | LIMIT 1 | KEEP emp_no, salary',
    cols: 'emp_no:integer, salary:integer',
    rows: [[10001, 25001]],
  },
  {
    q: 'FROM employees | SORT emp_no | LIMIT 1 | EVAL x = salary::double, y = emp_no::string | KEEP x, y',
    cols: 'x:double, y:keyword',
    rows: [[25000, '10001']],
  },
  {
    q: 'FROM employees | SORT emp_no | LIMIT 1 | EVAL salary * 2, ROUND(height, 1) | KEEP `salary * 2`, `ROUND(height, 1)`',
    cols: 'salary * 2:integer, ROUND(height, 1):double',
    rows: [[50000, 1.4]],
  },
  { q: 'FROM employees | STATS COUNT(*)', cols: 'COUNT(*):long', rows: [[100]] },
  {
    q: 'FROM employees | STATS COUNT(gender), COUNT(languages), COUNT(job_positions), COUNT(salary_change)',
    cols: 'COUNT(gender):long, COUNT(languages):long, COUNT(job_positions):long, COUNT(salary_change):long',
    rows: [[90, 95, 150, 99]],
  },
  {
    q: 'FROM employees | STATS COUNT_DISTINCT(gender), COUNT_DISTINCT(languages), COUNT_DISTINCT(first_name)',
    cols: 'COUNT_DISTINCT(gender):long, COUNT_DISTINCT(languages):long, COUNT_DISTINCT(first_name):long',
    rows: [[2, 5, 20]],
  },
  {
    q: 'FROM employees | STATS s = SUM(salary), a = AVG(salary), mi = MIN(salary), ma = MAX(salary)',
    cols: 's:long, a:double, mi:integer, ma:integer',
    rows: [[4949050, 49490.5, 25000, 74358]],
  },
  {
    q: 'FROM employees | STATS MEDIAN(salary), PERCENTILE(salary, 90), PERCENTILE(salary, 0), PERCENTILE(salary, 100)',
    cols: 'MEDIAN(salary):double, PERCENTILE(salary, 90):double, PERCENTILE(salary, 0):double, PERCENTILE(salary, 100):double',
    rows: [[49448.5, 69450.20000000001, 25000, 74358]],
  },
  {
    q: 'FROM employees | STATS c = COUNT(*) BY gender | SORT gender',
    cols: 'c:long, gender:keyword',
    rows: [
      [40, 'F'],
      [50, 'M'],
      [10, null],
    ],
  },
  {
    q: 'FROM employees | STATS c = COUNT(*) BY gender | SORT gender DESC',
    cols: 'c:long, gender:keyword',
    rows: [
      [10, null],
      [50, 'M'],
      [40, 'F'],
    ],
  },
  {
    q: 'FROM employees | STATS c = COUNT(*) BY languages | SORT languages',
    cols: 'c:long, languages:integer',
    rows: [
      [20, 1],
      [20, 2],
      [20, 3],
      [20, 4],
      [15, 5],
      [5, null],
    ],
  },
  {
    q: 'FROM employees | STATS avg_salary = AVG(salary) BY languages | SORT languages NULLS FIRST',
    cols: 'avg_salary:double, languages:integer',
    rows: [
      [42221, null],
      [48652.5, 1],
      [49071.5, 2],
      [49490.5, 3],
      [49909.5, 4],
      [53031, 5],
    ],
  },
  {
    q: 'FROM employees | STATS min_h = MIN(height), max_h = MAX(height) BY gender | SORT gender',
    cols: 'min_h:double, max_h:double, gender:keyword',
    rows: [
      [1.4, 1.98, 'F'],
      [1.4, 2, 'M'],
      [1.43, 2, null],
    ],
  },
  {
    q: 'FROM employees | STATS c = COUNT(*) BY still_hired | SORT still_hired',
    cols: 'c:long, still_hired:boolean',
    rows: [
      [34, false],
      [66, true],
    ],
  },
  {
    q: 'FROM employees | STATS c = COUNT(*) BY job_positions | SORT c DESC, job_positions | LIMIT 3',
    cols: 'c:long, job_positions:keyword',
    rows: [
      [25, null],
      [13, 'Data Scientist'],
      [13, 'Internship'],
    ],
  },
  {
    q: 'FROM employees | STATS c = COUNT(*) BY address.city | SORT address.city',
    cols: 'c:long, address.city:keyword',
    rows: [
      [20, 'Amsterdam'],
      [20, 'Berlin'],
      [20, 'Lisbon'],
      [20, 'Paris'],
      [20, 'Tokyo'],
    ],
  },
  {
    q: 'FROM employees | STATS c = COUNT(*) BY gender, still_hired | SORT gender, still_hired',
    cols: 'c:long, gender:keyword, still_hired:boolean',
    rows: [
      [13, 'F', false],
      [27, 'F', true],
      [17, 'M', false],
      [33, 'M', true],
      [4, null, false],
      [6, null, true],
    ],
  },
  {
    q: 'FROM employees | STATS sc = SUM(salary_change), mc = MAX(salary_change), cnt = COUNT(salary_change)',
    cols: 'sc:double, mc:double, cnt:long',
    rows: [[-15.25, 7.5, 99]],
  },
  { q: 'FROM employees | STATS v = VALUES(gender)', cols: 'v:keyword', rows: [[['F', 'M']]] },
  {
    q: 'FROM employees | WHERE emp_no < 10006 | STATS v = VALUES(languages) BY gender | SORT gender',
    cols: 'v:integer, gender:keyword',
    rows: [
      [[2, 4], 'F'],
      [[1, 3, 5], 'M'],
    ],
  },
  {
    q: 'FROM employees | STATS min_d = MIN(hire_date), max_d = MAX(birth_date)',
    cols: 'min_d:date, max_d:date',
    rows: [['1985-01-01T00:00:00.000Z', '1982-04-27T00:00:00.000Z']],
  },
  {
    q: 'FROM employees | STATS c = COUNT(*) BY decade = BUCKET(birth_date, 10 years) | SORT decade',
    cols: 'c:long, decade:date',
    rows: [
      [25, '1950-01-01T00:00:00.000Z'],
      [32, '1960-01-01T00:00:00.000Z'],
      [31, '1970-01-01T00:00:00.000Z'],
      [8, '1980-01-01T00:00:00.000Z'],
      [4, null],
    ],
  },
  {
    q: 'FROM employees | STATS c = COUNT(*) BY y = DATE_TRUNC(1 year, hire_date) | SORT y | LIMIT 3',
    cols: 'c:long, y:date',
    rows: [
      [4, '1985-01-01T00:00:00.000Z'],
      [4, '1986-01-01T00:00:00.000Z'],
      [4, '1987-01-01T00:00:00.000Z'],
    ],
  },
  {
    q: 'FROM employees | WHERE hire_date >= "1985-01-01" AND hire_date < "1986-01-01" | STATS c = COUNT(*) BY m = BUCKET(hire_date, 20, "1985-01-01T00:00:00Z", "1986-01-01T00:00:00Z") | SORT m',
    cols: 'c:long, m:date',
    rows: [
      [1, '1985-01-01T00:00:00.000Z'],
      [1, '1985-04-01T00:00:00.000Z'],
      [1, '1985-07-01T00:00:00.000Z'],
      [1, '1985-10-01T00:00:00.000Z'],
    ],
  },
  {
    q: 'FROM employees | STATS c = COUNT(*) BY b = BUCKET(salary, 10000) | SORT b',
    cols: 'c:long, b:double',
    rows: [
      [11, 20000],
      [20, 30000],
      [20, 40000],
      [20, 50000],
      [19, 60000],
      [10, 70000],
    ],
  },
  {
    q: 'FROM employees | STATS c = COUNT(*) BY b = BUCKET(salary, 5, 25000, 75000) | SORT b',
    cols: 'c:long, b:double',
    rows: [
      [11, 20000],
      [20, 30000],
      [20, 40000],
      [20, 50000],
      [19, 60000],
      [10, 70000],
    ],
  },
  {
    q: 'FROM employees | STATS r = ROUND(AVG(salary), 1), m = MAX(salary) - MIN(salary)',
    cols: 'r:double, m:integer',
    rows: [[49490.5, 49358]],
  },
  {
    q: 'FROM employees | STATS AVG(salary) BY gender | SORT `AVG(salary)` DESC',
    cols: 'AVG(salary):double, gender:keyword',
    rows: [
      [50031, 'M'],
      [49281, 'F'],
      [47626, null],
    ],
  },
  {
    q: 'FROM employees | EVAL high = salary > 50000 | STATS c = COUNT(*) BY high | SORT high',
    cols: 'c:long, high:boolean',
    rows: [
      [51, false],
      [49, true],
    ],
  },
  {
    q: 'FROM employees | STATS c = COUNT(*), hired = COUNT(*) WHERE still_hired BY gender | SORT gender',
    cols: 'c:long, hired:long, gender:keyword',
    rows: [
      [40, 27, 'F'],
      [50, 33, 'M'],
      [10, 6, null],
    ],
  },
  {
    q: 'FROM employees | STATS c = COUNT(*) BY gender | WHERE c > 20 | SORT c',
    cols: 'c:long, gender:keyword',
    rows: [
      [40, 'F'],
      [50, 'M'],
    ],
  },
  {
    q: 'FROM employees | STATS languages = MAX(languages) BY gender | SORT gender',
    cols: 'languages:integer, gender:keyword',
    rows: [
      [4, 'F'],
      [5, 'M'],
      [5, null],
    ],
  },
  {
    q: 'FROM employees | STATS total = SUM(languages.long), s = SUM(languages)',
    cols: 'total:long, s:long',
    rows: [[275, 275]],
  },
  {
    q: 'FROM employees | STATS BY gender | SORT gender',
    cols: 'gender:keyword',
    rows: [['F'], ['M'], [null]],
  },
  {
    q: 'FROM logs-* | STATS c = COUNT(*) BY level | SORT level',
    cols: 'c:long, level:keyword',
    rows: [
      [20, 'error'],
      [60, 'info'],
      [20, 'warn'],
    ],
  },
  {
    q: 'FROM logs-* | STATS c = COUNT(*), avg_bytes = AVG(bytes) BY host.name | SORT host.name',
    cols: 'c:long, avg_bytes:double, host.name:keyword',
    rows: [
      [33, 2675.4545454545455, 'db-1'],
      [34, 2412.0882352941176, 'web-1'],
      [33, 2607.5454545454545, 'web-2'],
    ],
  },
  {
    q: 'FROM logs-* | STATS c = COUNT(*) BY tags | SORT tags',
    cols: 'c:long, tags:keyword',
    rows: [
      [13, 'eu'],
      [50, 'prod'],
      [12, 'us'],
      [50, null],
    ],
  },
  {
    q: 'FROM logs-* | STATS c = COUNT(*) BY day = DATE_TRUNC(1 day, @timestamp) | SORT day | LIMIT 2',
    cols: 'c:long, day:date',
    rows: [
      [3, '2024-01-01T00:00:00.000Z'],
      [3, '2024-01-02T00:00:00.000Z'],
    ],
  },
  {
    q: 'FROM logs-* | STATS c = COUNT(*) BY bucket = BUCKET(@timestamp, 4, "2024-01-01T00:00:00Z", "2024-03-01T00:00:00Z") | SORT bucket',
    cols: 'c:long, bucket:date',
    rows: [
      [60, '2024-01-01T00:00:00.000Z'],
      [40, '2024-02-01T00:00:00.000Z'],
    ],
  },
  {
    q: 'FROM logs-2024.01 | STATS c = COUNT(*) BY status | SORT status',
    cols: 'c:long, status:integer',
    rows: [
      [30, 200],
      [10, 301],
      [10, 404],
      [10, 500],
    ],
  },
  {
    q: 'FROM logs-2024.02 | STATS c = COUNT(*) BY status | SORT status',
    cols: 'c:long, status:keyword',
    rows: [
      [21, '200'],
      [6, '301'],
      [7, '404'],
      [6, '500'],
    ],
  },
  {
    q: 'FROM logs-* | STATS MAX(response_time), MIN(client_ip)',
    cols: 'MAX(response_time):double, MIN(client_ip):ip',
    rows: [[1, '192.168.1.1']],
  },
  {
    q: 'FROM employees | SORT languages, emp_no | KEEP emp_no, languages | LIMIT 2',
    cols: 'emp_no:integer, languages:integer',
    rows: [
      [10001, 1],
      [10006, 1],
    ],
  },
  {
    q: 'FROM employees | SORT languages DESC, emp_no | KEEP emp_no, languages | LIMIT 2',
    cols: 'emp_no:integer, languages:integer',
    rows: [
      [10020, null],
      [10040, null],
    ],
  },
  {
    q: 'FROM employees | SORT languages NULLS FIRST, emp_no | KEEP emp_no, languages | LIMIT 2',
    cols: 'emp_no:integer, languages:integer',
    rows: [
      [10020, null],
      [10040, null],
    ],
  },
  {
    q: 'FROM employees | SORT languages DESC NULLS LAST, emp_no | KEEP emp_no, languages | LIMIT 2',
    cols: 'emp_no:integer, languages:integer',
    rows: [
      [10005, 5],
      [10010, 5],
    ],
  },
  {
    q: 'FROM employees | SORT salary DESC | KEEP emp_no, salary | LIMIT 3',
    cols: 'emp_no:integer, salary:integer',
    rows: [
      [10083, 74358],
      [10064, 73897],
      [10045, 73436],
    ],
  },
  {
    q: 'FROM employees | SORT salary_change, emp_no | KEEP emp_no, salary_change | LIMIT 3',
    cols: 'emp_no:integer, salary_change:double',
    rows: [
      [10012, [-7.5, 0.5]],
      [10014, -7.5],
      [10045, [-7.5, -0.5]],
    ],
  },
  {
    q: 'FROM employees | SORT salary_change DESC, emp_no | KEEP emp_no, salary_change | LIMIT 2',
    cols: 'emp_no:integer, salary_change:double',
    rows: [
      [10001, null],
      [10004, null],
    ],
  },
  {
    q: 'FROM employees | SORT last_login DESC | KEEP last_login | LIMIT 2',
    cols: 'last_login:ip',
    rows: [['10.0.3.100'], ['10.0.3.96']],
  },
  {
    q: 'FROM employees | SORT app_version DESC, emp_no | KEEP app_version | LIMIT 2',
    cols: 'app_version:version',
    rows: [['1.11.2'], ['1.11.2']],
  },
  {
    q: 'FROM employees | SORT first_name, emp_no | KEEP first_name, emp_no | LIMIT 2',
    cols: 'first_name:keyword, emp_no:integer',
    rows: [
      ['Anneke', 10006],
      ['Anneke', 10026],
    ],
  },
  {
    q: 'FROM employees | SORT gender DESC, emp_no | KEEP emp_no, gender | LIMIT 2',
    cols: 'emp_no:integer, gender:keyword',
    rows: [
      [10010, null],
      [10020, null],
    ],
  },
  {
    q: 'FROM employees | SORT birth_date, emp_no | KEEP emp_no | LIMIT 2',
    cols: 'emp_no:integer',
    rows: [[10001], [10002]],
  },
  {
    q: 'FROM employees | WHERE emp_no == 10003 | MV_EXPAND job_positions | KEEP emp_no, job_positions',
    cols: 'emp_no:integer, job_positions:keyword',
    rows: [
      [10003, 'Business Analyst'],
      [10003, 'Senior Python Developer'],
      [10003, 'Tech Lead'],
    ],
  },
  {
    q: 'ROW a = "2023-01-23T12:15:00.000Z - some text - 127.0.0.1" | DISSECT a "%{date} - %{msg} - %{ip}"',
    cols: 'a:keyword, date:keyword, msg:keyword, ip:keyword',
    rows: [
      [
        '2023-01-23T12:15:00.000Z - some text - 127.0.0.1',
        '2023-01-23T12:15:00.000Z',
        'some text',
        '127.0.0.1',
      ],
    ],
  },
  {
    q: 'ROW a = "1.2.3.4 GET /index.html 200" | GROK a "%{IP:ip} %{WORD:method} %{URIPATHPARAM:path} %{INT:status:int}"',
    cols: 'a:keyword, ip:keyword, method:keyword, path:keyword, status:integer',
    rows: [['1.2.3.4 GET /index.html 200', '1.2.3.4', 'GET', '/index.html', 200]],
  },
  {
    q: 'FROM logs-2024.01 | SORT @timestamp | LIMIT 1 | DISSECT message "%{lvl} request %{n} from %{host} %{rest}" | KEEP lvl, n, host, rest',
    cols: 'lvl:keyword, n:keyword, host:keyword, rest:keyword',
    rows: [['info', '0', 'web-1', 'status 200']],
  },
  { q: 'SHOW INFO | KEEP version', cols: 'version:keyword', rows: [['8.15.0']] },
  {
    q: 'FROM employees | KEEP nope',
    error: {
      status: 400,
      type: 'verification_exception',
      reason: 'Found 1 problem\nline 1:23: Unknown column [nope]',
    },
  },
  {
    q: 'FROM employees | WHERE x > 1 | EVAL y = z',
    error: {
      status: 400,
      type: 'verification_exception',
      reason: 'Found 2 problems\nline 1:24: Unknown column [x]\nline 1:41: Unknown column [z]',
    },
  },
  {
    q: 'FROM employees | KEEP frist_name',
    error: {
      status: 400,
      type: 'verification_exception',
      reason: 'Found 1 problem\nline 1:23: Unknown column [frist_name], did you mean [first_name]?',
    },
  },
  {
    q: 'FROM employees | KEEP nomatch*',
    error: {
      status: 400,
      type: 'verification_exception',
      reason: 'Found 1 problem\nline 1:23: No matches found for pattern [nomatch*]',
    },
  },
  {
    q: 'FROM nonexistent',
    error: {
      status: 400,
      type: 'verification_exception',
      reason: 'Found 1 problem\nline 1:6: Unknown index [nonexistent]',
    },
  },
  {
    q: 'FROM nonexistent*',
    error: {
      status: 400,
      type: 'verification_exception',
      reason: 'Found 1 problem\nline 1:6: Unknown index [nonexistent*]',
    },
  },
  {
    q: 'FROM employees | EVAL x = LENGTH(salary)',
    error: {
      status: 400,
      type: 'verification_exception',
      reason:
        'Found 1 problem\nline 1:27: argument of [LENGTH(salary)] must be [string], found value [salary] type [integer]',
    },
  },
  {
    q: 'FROM employees | WHERE first_name > 1',
    error: {
      status: 400,
      type: 'verification_exception',
      reason:
        'Found 1 problem\nline 1:24: first argument of [first_name > 1] is [keyword] so second argument must also be [keyword] but was [integer]',
    },
  },
  {
    q: 'FROM employees | STATS salary',
    error: {
      status: 400,
      type: 'verification_exception',
      reason:
        'Found 1 problem\nline 1:24: column [salary] must appear in the STATS BY clause or be used in an aggregate function',
    },
  },
  {
    q: 'FROM employees | WHERE salary',
    error: {
      status: 400,
      type: 'verification_exception',
      reason: 'Found 1 problem\nline 1:24: Condition expression needs to be boolean, found [INTEGER]',
    },
  },
  {
    q: 'FROM employees | EVAL x = foo(salary)',
    error: {
      status: 400,
      type: 'verification_exception',
      reason: 'Found 1 problem\nline 1:27: Unknown function [foo]',
    },
  },
  {
    q: 'FROM employees | ENRICH languages_policy ON languages',
    error: {
      status: 400,
      type: 'verification_exception',
      reason: 'Found 1 problem\nline 1:25: unresolved enrich policy [languages_policy]',
    },
  },
  {
    q: 'FROM logs-* | WHERE status == 200',
    error: {
      status: 400,
      type: 'verification_exception',
      reason:
        'Found 1 problem\nline 1:21: Cannot use field [status] due to ambiguities being mapped as [2] incompatible types: [integer] in [logs-2024.01], [keyword] in [logs-2024.02]',
    },
  },
  {
    q: 'FROM employees | WHERE photo IS NULL',
    error: {
      status: 400,
      type: 'verification_exception',
      reason: 'Found 1 problem\nline 1:24: Cannot use field [photo] with unsupported type [binary]',
    },
  },
  {
    q: 'FROM employees | SORT emp_no | WHERE',
    error: {
      status: 400,
      type: 'parsing_exception',
      reason:
        "line 1:37: mismatched input '<EOF>' expecting {QUOTED_STRING, INTEGER_LITERAL, DECIMAL_LITERAL, 'false', '(', 'not', 'null', '?', 'true', '+', '-', NAMED_OR_POSITIONAL_PARAM, '[', UNQUOTED_IDENTIFIER, QUOTED_IDENTIFIER}",
    },
  },
  {
    q: 'SELECT * FROM employees',
    error: {
      status: 400,
      type: 'parsing_exception',
      reason: "line 1:1: mismatched input 'SELECT' expecting {'row', 'from', 'show'}",
    },
  },
  {
    q: 'FROM employees | STATS AVG(first_name)',
    error: {
      status: 400,
      type: 'verification_exception',
      reason:
        'Found 1 problem\nline 1:24: argument of [AVG(first_name)] must be [numeric except unsigned_long or counter types], found value [first_name] type [keyword]',
    },
  },
];
