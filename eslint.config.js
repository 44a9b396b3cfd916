// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import regexp from 'eslint-plugin-regexp';
import immoreel from './scripts/eslint/no-swallowed-errors.mjs';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
      'no-console': 'error',
    },
  },
  {
    // No regular expression in the product may backtrack super-linearly: one crafted text must
    // never stall the server (docs/security.md).
    files: ['src/**'],
    plugins: { regexp },
    rules: {
      'regexp/no-super-linear-backtracking': 'error',
      'regexp/no-super-linear-move': 'error',
    },
  },
  {
    // A promise nobody awaits is a failure nobody sees: a job left half-cancelled, a rejection that
    // kills the process. These rules need the type checker, so they run on src/ only.
    files: ['src/**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
    },
  },
  {
    // No swallowed error where jobs and their records are kept (scripts/eslint/no-swallowed-errors.mjs).
    files: ['src/jobs/**/*.ts', 'src/records/**/*.ts'],
    plugins: { immoreel },
    rules: { 'immoreel/no-swallowed-errors': 'error' },
  },
  {
    // Scripts and tests are allowed to print; the CLI prints through src/cli/output.ts only.
    files: ['scripts/**', 'test/**', 'src/cli/output.ts', 'bin/**'],
    rules: { 'no-console': 'off' },
  },
);
