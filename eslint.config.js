// ESLint's flat config: the recommended rules of JavaScript and typescript-eslint, with
// Prettier (.prettierrc.json) owning the layout. `npm run lint` runs both checks.
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import { defineConfig, globalIgnores } from 'eslint/config';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default defineConfig(
  globalIgnores([
    'src/generated/',
    'dist/',
    'dist-demo/',
    'coverage/',
    'test-artifacts/',
    'bench/results/',
    'docs/api/',
    'docs/.vitepress/dist/',
    'docs/.vitepress/cache/',
  ]),
  js.configs.recommended,
  tseslint.configs.recommended,
  { languageOptions: { globals: { ...globals.node } } },
  {
    rules: {
      // A name that starts with _ is unused on purpose (a parameter a signature needs, a field left out of a rest).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
    },
  },
  {
    // The OpenAI Agents SDK's own session tests, ported with their code as written upstream.
    files: ['test/integrations/openai-agents/memory-session.test.ts', 'test/integrations/openai-agents/run-sessions.test.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off', 'no-useless-assignment': 'off' },
  },
  { files: ['viewer/**/*.js'], languageOptions: { globals: { ...globals.browser } } },
  prettier,
);
