import type { Alias } from "vite";

/**
 * The app is written to React's API and imports "react"; Preact (through preact/compat) is what runs it. react-dom
 * was 45-60 KB of every first page's gzipped JavaScript and most of its main-thread time on a throttled phone;
 * preact + hooks + compat are about 11 KB (issue 15). Exact matches, so "react-dom/client" is not caught by "react-dom".
 * Used by the build (vite.config.ts) and the unit tests (vitest.config.ts), so both run the same runtime.
 */
export const preactAliases: Alias[] = [
  { find: /^react$/, replacement: "preact/compat" },
  { find: /^react\/jsx-runtime$/, replacement: "preact/jsx-runtime" },
  { find: /^react\/jsx-dev-runtime$/, replacement: "preact/jsx-runtime" },
  { find: /^react-dom$/, replacement: "preact/compat" },
  { find: /^react-dom\/client$/, replacement: "preact/compat/client" },
  { find: /^react-dom\/test-utils$/, replacement: "preact/test-utils" },
];
