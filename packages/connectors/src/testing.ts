/**
 * The test MySQL / MariaDB server (127.0.0.1:3306, root without a password, or TEST_MYSQL_URL), for
 * the connector's tests, the evaluation and the benchmark. In CI an unreachable server is an error,
 * never a silent skip.
 */
import { randomBytes } from 'node:crypto';
import { createConnection, type Connection } from 'mysql2/promise';

export const testMysqlUrl = process.env.TEST_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306';
const inCi = process.env.CI === 'true';

export interface MysqlServerAddress {
  host: string;
  port: number;
  user: string;
  password: string;
}

export function testMysqlAddress(): MysqlServerAddress {
  const url = new URL(testMysqlUrl);
  return {
    host: url.hostname,
    port: Number(url.port || 3306),
    user: decodeURIComponent(url.username || 'root'),
    password: decodeURIComponent(url.password),
  };
}

/** An administrative connection (multi-statements on, for fixtures): close it with `end()`. */
export function openMysqlAdmin(database?: string): Promise<Connection> {
  return createConnection({
    ...testMysqlAddress(),
    ...(database ? { database } : {}),
    multipleStatements: true,
    connectTimeout: 3000,
  });
}

let reachable: Promise<boolean> | undefined;

export function isMysqlAvailable(): Promise<boolean> {
  reachable ??= (async () => {
    try {
      const admin = await openMysqlAdmin();
      await admin.end();
      return true;
    } catch (error) {
      if (inCi)
        throw new Error(
          `CI=true but the test MySQL / MariaDB at ${testMysqlUrl} is unreachable: ${String(error)}`,
        );
      console.warn(`MySQL tests skipped: ${testMysqlUrl} is unreachable (they always run in CI).`);
      return false;
    }
  })();
  return reachable;
}

/** A fresh database with a random name (in the server's default collation unless given), and a way to drop it with the users created for it. */
export async function createMysqlDatabase(
  prefix: string,
  options: { collation?: string } = {},
): Promise<{
  name: string;
  suffix: string;
  admin: Connection;
  drop(users?: string[]): Promise<void>;
}> {
  const suffix = randomBytes(5).toString('hex');
  const name = `${prefix}_${suffix}`;
  const admin = await openMysqlAdmin();
  await admin.query(
    `CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4${options.collation ? ` COLLATE ${options.collation}` : ''}`,
  );
  return {
    name,
    suffix,
    admin,
    async drop(users = []) {
      for (const user of users) await admin.query(`DROP USER IF EXISTS '${user}'@'%'`);
      await admin.query(`DROP DATABASE IF EXISTS \`${name}\``);
      await admin.end();
    },
  };
}
