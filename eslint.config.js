// Lint: typescript-eslint's recommended rules, React hooks rules for the renderer, and the
// few house rules (no default exports outside config files, no process.env outside config).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';
import reactHooks from 'eslint-plugin-react-hooks';

export default tseslint.config(
  // *.as.ts is AssemblyScript (scripts/build-wasm.ts compiles it), which TypeScript's rules do not fit.
  { ignores: ['dist/**', 'node_modules/**', 'data/**', 'test-results/**', 'playwright-report/**', '**/*.as.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-restricted-exports': ['error', { restrictDefaultExports: { direct: true, named: true, defaultFrom: true } }],
    },
  },
  {
    // process.env is read in exactly two places: loadConfig and the Electron main process.
    files: ['server/**/*.ts'],
    ignores: ['server/config/**', 'server/main.ts', 'server/cli.ts', '**/*.test.ts', '**/test-support/**'],
    rules: {
      'no-restricted-properties': [
        'error',
        { object: 'process', property: 'env', message: 'Read configuration through loadConfig (server/config).' },
      ],
    },
  },
  {
    files: ['renderer/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
    plugins: { 'react-hooks': reactHooks },
    rules: reactHooks.configs.recommended.rules,
  },
  {
    files: ['**/*.config.{js,ts}', 'e2e/playwright.config.ts', 'renderer/vite.config.ts', '**/vendor-types.d.ts'],
    rules: { 'no-restricted-exports': 'off' },
  },
);
