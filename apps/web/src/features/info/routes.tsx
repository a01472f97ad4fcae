import type { RouteObject } from "react-router";
import { MaintenancePage } from "./maintenance-page.tsx";

export const infoRoutes: RouteObject[] = [{ path: "/maintenance", element: <MaintenancePage /> }];
