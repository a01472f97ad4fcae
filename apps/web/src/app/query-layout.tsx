import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { Outlet } from "../lib/router.tsx";

export const queryClient = new QueryClient({
  defaultOptions: { queries: { retry: 1, refetchOnWindowFocus: false } },
});

/**
 * TanStack Query for the screens that fetch through it: a lazily loaded layout route (app/router.tsx),
 * so the landing page and the sign-in screens, which do not, never download it (issue 15).
 */
export function QueryLayout() {
  return (
    <QueryClientProvider client={queryClient}>
      <Outlet />
    </QueryClientProvider>
  );
}
