/**
 * The app's router: the part of React Router the app uses (nested routes, `:params`, `*`, lazily loaded
 * screens, Link, NavLink, Navigate, and the hooks), in about 3 KB instead of React Router's 31 KB
 * gzipped, which alone was a third of the first page's budget (issue 15). Like React Router's data
 * router, a navigation waits for the next screen's `lazy` before it shows, so the old screen stays
 * until the new one can render.
 */
import {
  type AnchorHTMLAttributes,
  type ComponentType,
  createContext,
  type MouseEvent,
  type ReactNode,
  useContext,
  useEffect,
  useLayoutEffect,
  useMemo,
  useRef,
  useState,
  useSyncExternalStore,
} from "react";

export interface RouteObject {
  path?: string;
  index?: boolean;
  element?: ReactNode;
  Component?: ComponentType | null;
  lazy?: () => Promise<{ Component?: ComponentType | null; element?: ReactNode }>;
  children?: RouteObject[];
}

export interface Location {
  pathname: string;
  search: string;
  hash: string;
  state: unknown;
  /** This history entry's own key (React Router's `location.key`): where its scroll position is kept. */
  key: string;
}

/** How the current location was reached, as React Router names it: back/forward is "POP". */
export type NavigationType = "POP" | "PUSH" | "REPLACE";

/** Where to go: a path, or its parts as React Router takes them (`{ pathname, search }`). */
export type To = string | { pathname?: string; search?: string; hash?: string };

const href = (to: To) =>
  typeof to === "string" ? to : `${to.pathname ?? window.location.pathname}${to.search ?? ""}${to.hash ?? ""}`;

export interface NavigateOptions {
  replace?: boolean;
  state?: unknown;
}

interface Match {
  route: RouteObject;
  params: Record<string, string>;
  /** The part of the pathname this route and its parents matched, without a splat. */
  base: string;
}

/** A route and its ancestors with the full pattern they make together. */
interface Branch {
  chain: RouteObject[];
  segments: string[];
  score: number;
}

const joinPath = (...parts: (string | undefined)[]) => `/${parts.filter(Boolean).join("/").split("/").filter(Boolean).join("/")}`;

function flatten(routes: RouteObject[], parents: RouteObject[] = [], parentPath = ""): Branch[] {
  const branches: Branch[] = [];
  for (const route of routes) {
    const path = route.path?.startsWith("/") ? route.path : joinPath(parentPath, route.path);
    const chain = [...parents, route];
    if (route.children?.length) branches.push(...flatten(route.children, chain, path));
    if (route.path !== undefined || route.index) {
      const segments = path.split("/").filter(Boolean);
      // React Router's ranking: a static segment beats a :param, which beats a splat.
      const score = segments.reduce(
        (sum, s) => sum + (s === "*" ? -2 : s.startsWith(":") ? 3 : 10),
        (route.index ? 2 : 0) + segments.length,
      );
      branches.push({ chain, segments, score });
    }
  }
  return branches;
}

function matchBranch(branch: Branch, pathname: string): Record<string, string> | null {
  const parts = pathname.split("/").filter(Boolean);
  const params: Record<string, string> = {};
  for (let i = 0; i < branch.segments.length; i++) {
    const segment = branch.segments[i] as string;
    if (segment === "*") {
      params["*"] = parts.slice(i).map(decodeURIComponent).join("/");
      return params;
    }
    const part = parts[i];
    if (part === undefined) return null;
    if (segment.startsWith(":")) params[segment.slice(1)] = decodeURIComponent(part);
    else if (segment.toLowerCase() !== part.toLowerCase()) return null;
  }
  return parts.length === branch.segments.length ? params : null;
}

/** The routes (outermost first) that render `pathname`, or null. Paths are relative to `base`. */
export function matchRoutes(routes: RouteObject[], pathname: string, base = "/"): Match[] | null {
  const branches = flatten(routes, [], base).sort((a, b) => b.score - a.score);
  for (const branch of branches) {
    const params = matchBranch(branch, pathname);
    if (!params) continue;
    const splat = params["*"];
    const matched = splat === undefined ? pathname : pathname.slice(0, pathname.length - splat.length);
    return branch.chain.map((route) => ({ route, params, base: joinPath(matched) }));
  }
  return null;
}

// ---- history ----

type Listener = () => void;
const listeners = new Set<Listener>();
// The real one is read when the router is made (createBrowserRouter), once the history helpers below exist.
let current: Location = { pathname: "/", search: "", hash: "", state: null, key: "default" };
let navigationType: NavigationType = "POP";
/** The location being loaded (its screens' `lazy`), shown once ready unless another navigation overtook it. */
let pendingId = 0;
let loadRoutes: ((location: Location) => Promise<void>) | null = null;

/** What the router keeps in `history.state`: the caller's state and the entry's key. */
interface EntryState {
  usr: unknown;
  key: string;
}

const isEntryState = (value: unknown): value is EntryState =>
  typeof value === "object" && value !== null && typeof (value as EntryState).key === "string";

const newKey = () => Math.random().toString(36).slice(2, 10);

function readLocation(entry: unknown): Location {
  if (typeof window === "undefined") return { pathname: "/", search: "", hash: "", state: null, key: "default" };
  const { pathname, search, hash } = window.location;
  return isEntryState(entry)
    ? { pathname, search, hash, state: entry.usr, key: entry.key }
    : { pathname, search, hash, state: null, key: "default" };
}

function publish(location: Location, type: NavigationType) {
  current = location;
  navigationType = type;
  for (const listener of listeners) listener();
}

async function go(location: Location, type: NavigationType) {
  const id = ++pendingId;
  try {
    await loadRoutes?.(location);
  } catch {
    // A screen's chunk did not load (a new deployment, a dropped connection): the browser loads the page itself.
    if (id === pendingId) window.location.assign(location.pathname + location.search + location.hash);
    return;
  }
  if (id === pendingId) publish(location, type);
}

export function navigate(to: To, options: NavigateOptions = {}) {
  const url = new URL(href(to), window.location.href);
  const entry: EntryState = { usr: options.state ?? null, key: newKey() };
  if (options.replace) window.history.replaceState(entry, "", url);
  else window.history.pushState(entry, "", url);
  void go(readLocation(entry), options.replace ? "REPLACE" : "PUSH");
}

if (typeof window !== "undefined") {
  window.addEventListener("popstate", (event) => void go(readLocation(event.state), "POP"));
}

function subscribe(listener: Listener) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function useLocation(): Location {
  return useSyncExternalStore(
    subscribe,
    () => current,
    () => current,
  );
}

/** "POP" for the first screen and for back/forward; "PUSH" or "REPLACE" for a navigation the app made. */
export function useNavigationType(): NavigationType {
  useLocation();
  return navigationType;
}

export function useNavigate(): typeof navigate {
  return navigate;
}

type SearchInit = URLSearchParams | string | Record<string, string>;

/** Like React Router's: a function gets the current query string (the latest, not the last render's). */
function setSearchParams(next: SearchInit | ((current: URLSearchParams) => SearchInit), options?: NavigateOptions) {
  const value = typeof next === "function" ? next(new URLSearchParams(window.location.search)) : next;
  const search = new URLSearchParams(value).toString();
  navigate({ pathname: window.location.pathname, search: search ? `?${search}` : "" }, options);
}

export function useSearchParams(): [URLSearchParams, typeof setSearchParams] {
  const { search } = useLocation();
  const params = useMemo(() => new URLSearchParams(search), [search]);
  return [params, setSearchParams];
}

// ---- rendering ----

interface RouteContextValue {
  outlet: ReactNode;
  params: Record<string, string>;
  base: string;
}

const RouteContext = createContext<RouteContextValue>({ outlet: null, params: {}, base: "/" });

export function useParams<T extends string = string>(): Partial<Record<T, string>> {
  return useContext(RouteContext).params as Partial<Record<T, string>>;
}

export function Outlet() {
  return <>{useContext(RouteContext).outlet}</>;
}

function renderMatches(matches: Match[]): ReactNode {
  // Innermost first: each route's element gets what is inside it as its <Outlet />.
  let outlet: ReactNode = null;
  for (const { route, params, base } of [...matches].reverse()) {
    const { Component } = route;
    const element = route.element ?? (Component ? <Component /> : <Outlet />);
    outlet = <RouteContext.Provider value={{ outlet, params, base }}>{element}</RouteContext.Provider>;
  }
  return outlet;
}

/** Routes inside a matched route (the console under /admin/*): paths relative to what the parent matched. */
export function useRoutes(routes: RouteObject[]): ReactNode {
  const { pathname } = useLocation();
  const parent = useContext(RouteContext);
  const matches = matchRoutes(routes, pathname, parent.base);
  // As in React Router, a descendant route sees its ancestors' params too.
  return matches ? renderMatches(matches.map((m) => ({ ...m, params: { ...parent.params, ...m.params } }))) : null;
}

async function resolveLazy(route: RouteObject) {
  if (!route.lazy) return;
  const loaded = await route.lazy();
  // Once loaded, a route is an ordinary one: the next visit renders without waiting.
  route.Component = loaded.Component ?? null;
  if (loaded.element !== undefined) route.element = loaded.element;
  route.lazy = undefined;
}

export interface Router {
  routes: RouteObject[];
  /** The first screen's `lazy`, started at once so its chunk downloads beside the rest. */
  ready: Promise<void>;
}

export function createBrowserRouter(routes: RouteObject[]): Router {
  // The first entry gets a key too, so coming back to it restores its scroll position.
  if (!isEntryState(window.history.state)) window.history.replaceState({ usr: null, key: newKey() }, "");
  current = readLocation(window.history.state);
  keepScrollPositions();
  loadRoutes = async (location) => {
    await Promise.all((matchRoutes(routes, location.pathname) ?? []).map((m) => resolveLazy(m.route)));
  };
  return { routes, ready: loadRoutes(current) };
}

/**
 * A router held at one path, with no window: the build prerenders the public screens with it (app/prerender.tsx).
 * Its `ready` resolves once the screen's lazy chunks are in, so the render is the screen, not an empty router.
 */
export function createStaticRouter(routes: RouteObject[], pathname: string): Router {
  current = { pathname, search: "", hash: "", state: null, key: "default" };
  const ready = Promise.all((matchRoutes(routes, pathname) ?? []).map((m) => resolveLazy(m.route))).then(() => undefined);
  return { routes, ready };
}

export function RouterProvider({ router }: { router: Router }) {
  const location = useLocation();
  const [failed, setFailed] = useState<{ error: unknown } | null>(null);
  const [, setLoaded] = useState(false);
  const matches = matchRoutes(router.routes, location.pathname);
  const waiting = matches?.some((m) => m.route.lazy) ?? false;
  useEffect(() => {
    if (waiting)
      router.ready.then(
        () => setLoaded(true),
        (error: unknown) => setFailed({ error }),
      );
  }, [waiting, router]);
  useScrollRestoration(location);
  if (failed) throw failed.error;
  // Until the first screen's chunk is in, nothing: the same as React Router without a HydrateFallback.
  if (waiting) return null;
  return matches ? renderMatches(matches) : null;
}

// ---- scroll ----

const SCROLL_STORAGE_KEY = "hikaya-scroll";
/** Each history entry's last scroll position, by its key; kept in session storage across a reload. */
let scrollPositions: Record<string, number> = {};

function keepScrollPositions() {
  window.history.scrollRestoration = "manual";
  try {
    scrollPositions = JSON.parse(sessionStorage.getItem(SCROLL_STORAGE_KEY) ?? "{}") as Record<string, number>;
  } catch {
    scrollPositions = {};
  }
  window.addEventListener("scroll", () => (scrollPositions[current.key] = window.scrollY), { passive: true });
  window.addEventListener("pagehide", () => {
    try {
      sessionStorage.setItem(SCROLL_STORAGE_KEY, JSON.stringify(scrollPositions));
    } catch {
      // storage full or blocked: positions are kept for this page's life only
    }
  });
}

/**
 * React Router's <ScrollRestoration>: back/forward returns to where the person was on that entry; a new screen
 * starts at the top (a change of the query string alone, such as a tab, keeps the place).
 */
function useScrollRestoration(location: Location) {
  const type = useNavigationType();
  const shown = useRef(location.pathname);
  useLayoutEffect(() => {
    if (type === "POP") window.scrollTo(0, scrollPositions[location.key] ?? 0);
    else if (location.pathname !== shown.current) window.scrollTo(0, 0);
    shown.current = location.pathname;
  }, [location.key, location.pathname, type]);
}

// ---- links ----

function isPlainClick(event: MouseEvent<HTMLAnchorElement>, target?: string) {
  return (
    event.button === 0 &&
    !event.defaultPrevented &&
    !(event.metaKey || event.altKey || event.ctrlKey || event.shiftKey) &&
    (!target || target === "_self")
  );
}

type LinkProps = Omit<AnchorHTMLAttributes<HTMLAnchorElement>, "href"> & { to: To; replace?: boolean };

export function Link({ to, replace, onClick, target, ...rest }: LinkProps) {
  return (
    <a
      {...rest}
      href={href(to)}
      target={target}
      onClick={(event) => {
        onClick?.(event);
        if (!isPlainClick(event, target)) return;
        event.preventDefault();
        navigate(to, { replace });
      }}
    />
  );
}

type NavLinkProps = Omit<LinkProps, "className"> & {
  className?: string | ((state: { isActive: boolean }) => string);
  end?: boolean;
};

export function NavLink({ className, end, to, ...rest }: NavLinkProps) {
  const { pathname } = useLocation();
  const path = href(to).split(/[?#]/)[0] ?? "";
  const isActive = pathname === path || (!end && pathname.startsWith(path.endsWith("/") ? path : `${path}/`));
  return (
    <Link
      {...rest}
      to={to}
      aria-current={isActive ? "page" : undefined}
      className={typeof className === "function" ? className({ isActive }) : className}
    />
  );
}

export function Navigate({ to, replace, state }: { to: string } & NavigateOptions) {
  useEffect(() => navigate(to, { replace, state }), [to, replace, state]);
  return null;
}
