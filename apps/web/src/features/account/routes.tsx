import type { RouteObject } from "react-router";
import { loadNamespaces } from "../../lib/i18n.ts";

/** A screen's chunk together with its strings, so it never renders untranslated. */
const withStrings = async <T,>(screen: Promise<T>) => (await Promise.all([screen, loadNamespaces("account")]))[0];

/** Each screen is its own lazily loaded chunk, so a first visit to /login downloads only that screen. */
export const accountRoutes: RouteObject[] = [
  { path: "/register", lazy: async () => ({ Component: (await withStrings(import("./register-page.tsx"))).RegisterPage }) },
  {
    path: "/arabic-register",
    lazy: async () => ({ Component: (await withStrings(import("./arabic-register-page.tsx"))).ArabicRegisterPage }),
  },
  { path: "/login", lazy: async () => ({ Component: (await withStrings(import("./login-page.tsx"))).LoginPage }) },
  {
    path: "/forgot-password",
    lazy: async () => ({ Component: (await withStrings(import("./forgot-password-page.tsx"))).ForgotPasswordPage }),
  },
  {
    path: "/send-otp/:userId",
    lazy: async () => ({ Component: (await withStrings(import("./verify-otp-page.tsx"))).VerifyOtpPage }),
  },
  {
    path: "/reset-password",
    lazy: async () => ({ Component: (await withStrings(import("./reset-password-page.tsx"))).ResetPasswordPage }),
  },
  {
    path: "/change-password",
    lazy: async () => ({ Component: (await withStrings(import("./change-password-page.tsx"))).ChangePasswordPage }),
  },
  {
    path: "/edit-profile",
    lazy: async () => ({ Component: (await withStrings(import("./edit-profile-page.tsx"))).EditProfilePage }),
  },
];
