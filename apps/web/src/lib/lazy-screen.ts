import type { ComponentType } from "react";
import { type LazyNamespace, loadNamespaces } from "./i18n.ts";

/**
 * A route's `lazy`: the screen's own chunk and its strings, loaded together so a screen never renders
 * untranslated and a first visit downloads only the screen it opens.
 */
export function lazyScreen<T extends Record<string, unknown>>(
  load: () => Promise<T>,
  name: keyof T,
  ...namespaces: LazyNamespace[]
) {
  return async () => {
    const [module] = await Promise.all([load(), loadNamespaces(...namespaces)]);
    return { Component: module[name] as ComponentType };
  };
}
