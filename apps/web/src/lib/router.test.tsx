// @vitest-environment jsdom
import { act, cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import {
  createBrowserRouter,
  Link,
  matchRoutes,
  Navigate,
  NavLink,
  navigate,
  Outlet,
  type RouteObject,
  RouterProvider,
  useLocation,
  useParams,
  useRoutes,
  useSearchParams,
} from "./router.tsx";

afterEach(cleanup);

const paths = (routes: RouteObject[], pathname: string) => matchRoutes(routes, pathname)?.map((m) => m.route.path ?? "(layout)");

describe("matching a pathname", () => {
  const routes: RouteObject[] = [
    {
      children: [
        { path: "/" },
        { path: "/story/:id" },
        { path: "/story/new" },
        { path: "/questions/:id/:index" },
        { path: "/admin/*" },
        { path: "*" },
      ],
    },
  ];

  it("prefers a static segment to a :param and a :param to a splat, whatever the order", () => {
    expect(paths(routes, "/story/new")).toEqual(["(layout)", "/story/new"]);
    expect(paths(routes, "/story/42")).toEqual(["(layout)", "/story/:id"]);
    expect(paths(routes, "/")).toEqual(["(layout)", "/"]);
    expect(paths(routes, "/admin/users/7")).toEqual(["(layout)", "/admin/*"]);
    expect(paths(routes, "/nowhere/at/all")).toEqual(["(layout)", "*"]);
  });

  it("reads params (decoded) and the part a splat left to descendant routes", () => {
    const [, questions] = matchRoutes(routes, "/questions/a%20b/3") ?? [];
    expect(questions?.params).toEqual({ id: "a b", index: "3" });
    const [, admin] = matchRoutes(routes, "/admin/users/7") ?? [];
    expect(admin?.params["*"]).toBe("users/7");
    expect(admin?.base).toBe("/admin");
  });

  it("ignores case and a trailing slash, and needs every segment", () => {
    expect(paths(routes, "/Story/42/")).toEqual(["(layout)", "/story/:id"]);
    expect(paths([{ path: "/questions/:id/:index" }], "/questions/1")).toBeUndefined();
  });
});

function Show() {
  const { pathname, search } = useLocation();
  const params = useParams();
  return (
    <p data-testid="where">
      {pathname}
      {search} {JSON.stringify(params)}
    </p>
  );
}

function First() {
  return <h1>first</h1>;
}

function Console() {
  return useRoutes([
    { path: "login", element: <h1>login</h1> },
    {
      element: (
        <>
          <NavLink to="/admin/users" className={({ isActive }) => (isActive ? "on" : "off")}>
            users
          </NavLink>
          <Outlet />
        </>
      ),
      children: [
        { index: true, element: <Navigate to="/admin/users" replace /> },
        { path: "users/:id", element: <Show /> },
        { path: "users", element: <h1>list</h1> },
      ],
    },
  ]);
}

function Register() {
  const [params] = useSearchParams();
  return (
    <>
      <p>{params.get("fromLandingPage")}</p>
      <Link to="/login">login</Link>
    </>
  );
}

function Search() {
  const [params, setParams] = useSearchParams();
  return (
    <>
      <p data-testid="q">{params.get("q")}</p>
      <button
        type="button"
        onClick={() => setParams((current) => new URLSearchParams({ ...Object.fromEntries(current), q: "b" }), { replace: true })}
      >
        search
      </button>
      <Link to={{ pathname: "/inbox", search: "?filter=waiting" }}>inbox</Link>
    </>
  );
}

describe("rendering and navigating", () => {
  it("waits for a screen's lazy chunk before showing it, then keeps the old screen until the next one is in", async () => {
    window.history.replaceState(null, "", "/first");
    let release: () => void = () => {};
    const routes: RouteObject[] = [
      {
        element: (
          <main>
            <Link to="/second/9?x=1">go</Link>
            <Outlet />
          </main>
        ),
        children: [
          { path: "/first", lazy: async () => ({ Component: First }) },
          {
            path: "/second/:n",
            lazy: () =>
              new Promise((ok) => {
                release = () => ok({ Component: Show });
              }),
          },
        ],
      },
    ];
    const router = createBrowserRouter(routes);
    render(<RouterProvider router={router} />);
    expect(await screen.findByRole("heading", { name: "first" })).toBeTruthy();

    fireEvent.click(screen.getByRole("link", { name: "go" }));
    expect(window.location.pathname).toBe("/second/9");
    // The chunk is not in yet: still the first screen.
    expect(screen.getByRole("heading", { name: "first" })).toBeTruthy();
    await act(async () => release());
    // The screen renders once the chunk's promise has settled, a few microtasks after release().
    expect((await screen.findByTestId("where")).textContent).toBe('/second/9?x=1 {"n":"9"}');

    // Back: the first screen's route is loaded already.
    await act(async () => {
      window.history.back();
      await new Promise((ok) => window.addEventListener("popstate", ok, { once: true }));
    });
    expect(await screen.findByRole("heading", { name: "first" })).toBeTruthy();
  });

  it("Navigate replaces the entry; useRoutes matches below what its parent matched; NavLink marks the active link", async () => {
    window.history.replaceState(null, "", "/admin");
    const router = createBrowserRouter([{ path: "/admin/*", element: <Console /> }]);
    const length = window.history.length;
    render(<RouterProvider router={router} />);
    expect(await screen.findByRole("heading", { name: "list" })).toBeTruthy();
    expect(window.history.length).toBe(length);
    const link = screen.getByRole("link", { name: "users" });
    expect(link.className).toBe("on");
    expect(link.getAttribute("aria-current")).toBe("page");

    await act(async () => navigate("/admin/users/5"));
    expect((await screen.findByTestId("where")).textContent).toBe('/admin/users/5 {"*":"users/5","id":"5"}');
    expect(screen.getByRole("link", { name: "users" }).className).toBe("on");
    await act(async () => navigate("/admin/login"));
    expect(await screen.findByRole("heading", { name: "login" })).toBeTruthy();
    expect(screen.queryByRole("link", { name: "users" })).toBeNull();
  });

  it("leaves a modified click (new tab) to the browser and reads the query string", async () => {
    window.history.replaceState(null, "", "/register?fromLandingPage=1");
    const router = createBrowserRouter([{ path: "/register", element: <Register /> }]);
    render(<RouterProvider router={router} />);
    expect(screen.getByText("1")).toBeTruthy();
    const link = screen.getByRole("link", { name: "login" });
    expect(link.getAttribute("href")).toBe("/login");
    fireEvent.click(link, { ctrlKey: true });
    expect(window.location.pathname).toBe("/register");
  });

  it("sets the query string from the current one and takes { pathname, search } links", async () => {
    window.history.replaceState(null, "", "/inbox?q=a&filter=all");
    const router = createBrowserRouter([{ path: "/inbox", element: <Search /> }]);
    render(<RouterProvider router={router} />);
    expect(screen.getByTestId("q").textContent).toBe("a");
    const length = window.history.length;
    await act(async () => fireEvent.click(screen.getByRole("button", { name: "search" })));
    expect(window.location.search).toBe("?q=b&filter=all");
    expect(window.history.length).toBe(length);
    await waitFor(() => expect(screen.getByTestId("q").textContent).toBe("b"));
    const link = screen.getByRole("link", { name: "inbox" });
    expect(link.getAttribute("href")).toBe("/inbox?filter=waiting");
  });
});
