/**
 * Builds what `npm start` runs: the server and the workspace packages it uses compiled to plain
 * JavaScript in `dist/` (ES modules; the workspace code loaded on first use, the Elasticsearch
 * connector's cluster half and the OpenAPI document, in chunks of their own), with the npm packages
 * left as imports. Node then starts without compiling TypeScript (tsx spent more than a second of
 * every start on it). The CLI and the tests keep running the sources.
 *
 * The server's `start` script builds before it runs, so it never runs a stale build. Several
 * instances may build and run from one checkout at once: every file is written whole under a
 * temporary name and renamed into place, and no chunk is deleted (chunks are named by their
 * content), so a running instance still finds the chunks it loads later.
 *
 * `import.meta.url` in a workspace file is replaced by that file's own URL, so what it locates
 * beside itself (the migrations, the web build, packages it loads on first use) is found from the
 * bundle as from the sources. The bundle is therefore tied to this checkout; it is rebuilt by every
 * `npm start`.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, readFile, realpath, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build, type Plugin } from 'esbuild';

const serverDir = dirname(fileURLToPath(import.meta.url));
export const DEFAULT_BUNDLE_DIR = join(serverDir, 'dist');

const workspaceSources: Plugin = {
  name: 'workspace-sources',
  setup(builder) {
    // npm packages stay imports (their own files, native parts and WebAssembly load as installed).
    builder.onResolve({ filter: /^[^./]/ }, (args) =>
      args.path.startsWith('@aqs/') ? undefined : { path: args.path, external: true },
    );
    builder.onLoad({ filter: /\.ts$/ }, async (args) => {
      const source = await readFile(args.path, 'utf8');
      const ownUrl = JSON.stringify(pathToFileURL(args.path).href);
      return { contents: source.replaceAll('import.meta.url', ownUrl), loader: 'ts' };
    });
  },
};

/** Writes `<outdir>/main.mjs` (run it as `node <outdir>/main.mjs serve`) and its chunks. */
export async function buildServerBundle(outdir: string = DEFAULT_BUNDLE_DIR): Promise<string> {
  const result = await build({
    entryPoints: { main: join(serverDir, 'src', 'main.ts') },
    outdir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    outExtension: { '.js': '.mjs' },
    chunkNames: 'chunks/[name]-[hash]',
    sourcemap: 'linked',
    logLevel: 'warning',
    plugins: [workspaceSources],
    write: false,
  });
  // The chunks before the entry: a process starting meanwhile finds every chunk its entry names.
  const entries = new Set([join(outdir, 'main.mjs'), join(outdir, 'main.mjs.map')]);
  const files = [...result.outputFiles].sort(
    (a, b) => Number(entries.has(a.path)) - Number(entries.has(b.path)),
  );
  for (const file of files) {
    await mkdir(dirname(file.path), { recursive: true });
    // Unique per write: processes in two containers may share a pid.
    const temporary = `${file.path}.${randomUUID()}.tmp`;
    try {
      await writeFile(temporary, file.contents);
      await rename(temporary, file.path);
    } finally {
      await rm(temporary, { force: true });
    }
  }
  return join(outdir, 'main.mjs');
}

const invokedAs = process.argv[1] ? await realpath(process.argv[1]).catch(() => undefined) : undefined;
if (invokedAs === (await realpath(fileURLToPath(import.meta.url)))) {
  const started = performance.now();
  const entry = await buildServerBundle();
  console.log(`Built ${entry} in ${Math.round(performance.now() - started)} ms.`);
}
