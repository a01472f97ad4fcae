import { lazyScreen } from "../../lib/lazy-screen.ts";
import type { RouteObject } from "../../lib/router.tsx";

/** Each screen is its own lazily loaded chunk, so a first visit to /login downloads only that screen. */
export const accountRoutes: RouteObject[] = [
  { path: "/register", lazy: lazyScreen(() => import("./register-page.tsx"), "RegisterPage", "account") },
  {
    path: "/arabic-register",
    lazy: lazyScreen(() => import("./arabic-register-page.tsx"), "ArabicRegisterPage", "account"),
  },
  { path: "/login", lazy: lazyScreen(() => import("./login-page.tsx"), "LoginPage", "account") },
  {
    path: "/forgot-password",
    lazy: lazyScreen(() => import("./forgot-password-page.tsx"), "ForgotPasswordPage", "account"),
  },
  {
    path: "/send-otp/:userId",
    lazy: lazyScreen(() => import("./verify-otp-page.tsx"), "VerifyOtpPage", "account"),
  },
  {
    path: "/reset-password",
    lazy: lazyScreen(() => import("./reset-password-page.tsx"), "ResetPasswordPage", "account"),
  },
  {
    path: "/change-password",
    lazy: lazyScreen(() => import("./change-password-page.tsx"), "ChangePasswordPage", "account"),
  },
  {
    path: "/edit-profile",
    lazy: lazyScreen(() => import("./edit-profile-page.tsx"), "EditProfilePage", "account"),
  },
];
