import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

/**
 * The dependency graph docs/ARCHITECTURE.md draws: which workspace packages each package's sources
 * may import. Anything else under @aqs/ fails lint. Tests may also use the test tooling listed apart.
 */
const LAYERS = {
  'packages/contracts': [],
  'packages/esql': [],
  'packages/db': [],
  'packages/client': [],
  'packages/charts': ['contracts'],
  'packages/connectors': ['contracts', 'esql'],
  'packages/planner': ['connectors', 'contracts'],
  'packages/core': ['charts', 'connectors', 'contracts', 'db', 'planner'],
  'packages/api': ['contracts', 'core'],
  'apps/server': ['api', 'connectors', 'contracts', 'core', 'db', 'planner'],
  'apps/web': ['api', 'charts', 'contracts'],
  'tooling/hostile-servers': [],
  'tooling/es-test-cluster': ['contracts', 'esql'],
};
const TEST_ONLY = {
  'packages/connectors': ['db', 'es-test-cluster', 'hostile-servers'],
  'packages/core': ['hostile-servers'],
  'packages/planner': ['es-test-cluster'],
  'packages/api': ['connectors', 'db', 'es-test-cluster', 'planner'],
  'apps/server': ['client', 'es-test-cluster', 'hostile-servers'],
};

function layerRule(folder, allowed, files) {
  const group = ['@aqs/*', ...allowed.flatMap((name) => [`!@aqs/${name}`, `!@aqs/${name}/*`])];
  const message = `${folder} may import only ${allowed.length ? allowed.map((n) => `@aqs/${n}`).join(', ') : 'no workspace package'} here (docs/ARCHITECTURE.md draws the graph).`;
  return { files, rules: { 'no-restricted-imports': ['error', { patterns: [{ group, message }] }] } };
}

const layerRules = Object.entries(LAYERS).flatMap(([folder, allowed]) => [
  layerRule(folder, allowed, [`${folder}/src/**/*.{ts,tsx}`]),
  layerRule(folder, [...allowed, ...(TEST_ONLY[folder] ?? [])], [`${folder}/test/**/*.{ts,tsx}`]),
]);

export default tseslint.config(
  {
    ignores: [
      '**/node_modules/**',
      '**/dist/**',
      '**/.data/**',
      '**/test-output/**',
      'packages/client/src/schema.ts',
      'packages/db/migrations/**',
      'tooling/eval/sets/**',
    ] /* evaluation data and its generators, written blind and frozen */,
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': 'off',
    },
  },
  ...layerRules,
  {
    files: ['**/test/**/*.ts', '**/*.test.ts', '**/src/testing.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off', '@typescript-eslint/no-non-null-assertion': 'off' },
  },
);
