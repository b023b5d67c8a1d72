import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

// The web app's page, read once at start-up from the @aqs/web package.
const require = createRequire(import.meta.url);
export const webIndexHtml = readFileSync(require.resolve('@aqs/web/index.html'), 'utf8');
