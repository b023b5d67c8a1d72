/**
 * SECURITY.md's SQL escape corpus, adapted to MySQL / MariaDB. Every case is refused by the validator
 * (mysql-validator.test.ts). At the server (mysql-live.test.ts), in the connector's own session:
 * - `refuses`: the server fails the statement even for a user allowed to write the table (read-only
 *   transaction, multi-statements off, LOAD DATA LOCAL off, pinned NO_BACKSLASH_ESCAPES);
 * - `least_privilege`: the server fails it for the documented SELECT-only user (MySQL's read-only
 *   transaction does not stop DDL, which commits implicitly: least privilege does);
 * - `harmless`: the server would run it, and it changes nothing and reads nothing outside the
 *   database (the reason is given); the validator alone refuses it.
 * `items` is the canary table the live test checks is unchanged afterwards.
 */
export interface CorpusCase {
  name: string;
  text: string;
  server: 'refuses' | 'least_privilege' | 'harmless';
  why?: string;
}

export const ESCAPE_CORPUS: readonly CorpusCase[] = [
  { name: 'DELETE', text: 'DELETE FROM items', server: 'refuses' },
  { name: 'comment inside a keyword gap', text: 'DELETE/**/FROM items', server: 'refuses' },
  { name: 'UPDATE', text: "UPDATE items SET label = 'x'", server: 'refuses' },
  { name: 'INSERT', text: "INSERT INTO items VALUES (99, 'x')", server: 'refuses' },
  { name: 'REPLACE', text: "REPLACE INTO items VALUES (1, 'x')", server: 'refuses' },
  { name: 'stacked statements', text: 'SELECT 1; DELETE FROM items', server: 'refuses' },
  { name: 'stacked after a comment', text: 'SELECT 1 /* ; */; DELETE FROM items', server: 'refuses' },
  { name: 'stacked after a trailing comment', text: 'SELECT 1 -- x\n; DELETE FROM items', server: 'refuses' },
  { name: 'data-modifying CTE', text: 'WITH d AS (SELECT 1) DELETE FROM items', server: 'refuses' },
  { name: 'commit, then write', text: 'COMMIT; DELETE FROM items', server: 'refuses' },
  { name: 'leaving the read-only transaction', text: 'SET TRANSACTION READ WRITE', server: 'refuses' },
  {
    name: 'read-write for the next transaction',
    text: 'SET SESSION TRANSACTION READ WRITE',
    server: 'harmless',
    why: 'it applies to the next transaction, and the session runs one statement before it ends',
  },
  {
    name: 'SELECT INTO OUTFILE',
    text: "SELECT * FROM items INTO OUTFILE '/tmp/aqs-corpus-out.txt'",
    server: 'refuses',
  },
  {
    name: 'SELECT INTO DUMPFILE',
    text: "SELECT label FROM items LIMIT 1 INTO DUMPFILE '/tmp/aqs-corpus-dump'",
    server: 'refuses',
  },
  {
    name: 'LOAD DATA LOCAL',
    text: "LOAD DATA LOCAL INFILE '/etc/hostname' INTO TABLE items",
    server: 'refuses',
  },
  { name: 'CALL', text: 'CALL mysql.nothing()', server: 'refuses' },
  {
    name: 'backslash desync of a literal',
    text: "SELECT 'a\\' UNION SELECT authentication_string FROM mysql.user -- '",
    server: 'least_privilege',
  },
  {
    name: 'executable comment',
    text: 'SELECT 1 /*!50000 , (SELECT COUNT(*) FROM mysql.user) */',
    server: 'least_privilege',
  },
  { name: 'system table', text: 'SELECT * FROM mysql.user', server: 'least_privilege' },
  { name: 'another database', text: 'SELECT * FROM aqs_outside.secrets', server: 'least_privilege' },
  { name: 'DDL', text: 'CREATE TABLE evil (a INT)', server: 'least_privilege' },
  { name: 'DROP', text: 'DROP TABLE items', server: 'least_privilege' },
  { name: 'TRUNCATE', text: 'TRUNCATE TABLE items', server: 'least_privilege' },
  { name: 'GRANT', text: "GRANT ALL ON *.* TO 'x'@'%'", server: 'least_privilege' },
  {
    name: 'locking read',
    text: 'SELECT * FROM items FOR UPDATE',
    server: 'least_privilege',
  },
  {
    name: 'shared locking read',
    text: 'SELECT * FROM items LOCK IN SHARE MODE',
    server: 'harmless',
    why: 'a shared lock held until the session ends, a moment later; it reads only the database',
  },
  {
    name: 'information_schema',
    text: 'SELECT * FROM information_schema.USER_PRIVILEGES',
    server: 'harmless',
    why: 'the server shows every user its own grants only',
  },
  {
    name: 'LOAD_FILE',
    text: "SELECT LOAD_FILE('/etc/passwd')",
    server: 'harmless',
    why: 'NULL without the FILE privilege',
  },
  { name: 'SLEEP', text: 'SELECT SLEEP(0)', server: 'harmless', why: 'bounded by the statement timeout' },
  {
    name: 'BENCHMARK',
    text: "SELECT BENCHMARK(10, MD5('a'))",
    server: 'harmless',
    why: 'bounded by the statement timeout',
  },
  {
    name: 'GET_LOCK',
    text: "SELECT GET_LOCK('aqs', 0)",
    server: 'harmless',
    why: 'released when the session ends',
  },
  {
    name: 'user variable',
    text: 'SELECT 1 INTO @x',
    server: 'harmless',
    why: 'session state, gone with the session',
  },
  { name: 'system variable', text: 'SELECT @@hostname', server: 'harmless', why: 'reads no table' },
  {
    name: 'SET a session variable',
    text: "SET SESSION sql_mode = ''",
    server: 'harmless',
    why: 'session state, gone with the session',
  },
  {
    name: 'MariaDB executable comment',
    text: "SELECT 1 /*M!100000 , LOAD_FILE('/etc/passwd') */",
    server: 'harmless',
    why: 'LOAD_FILE is NULL without the FILE privilege',
  },
  {
    name: 'query option',
    text: 'SELECT SQL_CALC_FOUND_ROWS * FROM items',
    server: 'harmless',
    why: 'a read of the table',
  },
  { name: 'HANDLER', text: 'HANDLER items OPEN', server: 'harmless', why: 'a read of the table' },
  { name: 'SHOW', text: 'SHOW GRANTS', server: 'harmless', why: "the user's own grants" },
  {
    name: 'EXPLAIN',
    text: 'EXPLAIN DELETE FROM items',
    server: 'harmless',
    why: 'EXPLAIN does not run the statement',
  },
  {
    name: 'a table inside a parenthesised join',
    text: 'SELECT * FROM items JOIN (items AS i2 CROSS JOIN mysql.user) ON 1',
    server: 'least_privilege',
  },
  {
    name: 'the catalog inside a parenthesised join',
    text: 'SELECT x.table_name FROM items JOIN (items AS i2 CROSS JOIN information_schema.tables AS x) ON 1',
    server: 'harmless',
    why: 'the server shows a user only the tables it may read',
  },
  {
    name: 'a quoted alias the printer would not escape',
    text: 'SELECT 1 AS "x`, --1, (SELECT COUNT(*) FROM mysql.user) AS leak,\n 2 AS `q" FROM items',
    server: 'harmless',
    why: 'to MySQL the whole of it is one quoted alias',
  },
  {
    name: 'a collation the printer writes raw',
    text: "SELECT label COLLATE 'utf8mb4_bin, --1, (SELECT COUNT(*) FROM mysql.user) AS leak,\n 2' FROM items",
    server: 'refuses',
  },
  { name: 'a stored function of another database', text: 'SELECT mysql.abs(1)', server: 'refuses' },
  {
    name: 'dashes that are not a comment',
    text: 'SELECT 1--1',
    server: 'harmless',
    why: 'MySQL reads 1 - -1',
  },
  { name: 'empty', text: '   ', server: 'refuses' },
];
