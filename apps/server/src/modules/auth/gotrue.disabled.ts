import type { FastifyInstance, FastifyRequest } from "fastify";
import { AuthError } from "./auth-errors.ts";

/**
 * What Hikaya leaves off (third-party sign-in, SSO, identity linking, the OAuth 2.1 server, id_token and web3
 * grants) answers with the errors Supabase Auth gives when those features are disabled, so supabase-js reports
 * them the same way.
 */

/** Providers Supabase knows, none enabled here; the id_token issuers it checks them against. */
const ID_TOKEN_ISSUERS: Record<string, string> = {
  google: "https://accounts.google.com",
  apple: "https://appleid.apple.com",
  azure: "https://login.microsoftonline.com/common/v2.0",
  facebook: "https://www.facebook.com",
  kakao: "https://kauth.kakao.com",
  keycloak: "",
  snapchat: "https://accounts.snapchat.com",
};
const OAUTH_PROVIDERS = new Set([
  "apple",
  "azure",
  "bitbucket",
  "discord",
  "facebook",
  "figma",
  "fly",
  "github",
  "gitlab",
  "google",
  "kakao",
  "keycloak",
  "linkedin",
  "linkedin_oidc",
  "notion",
  "slack",
  "slack_oidc",
  "spotify",
  "twitch",
  "twitter",
  "workos",
  "zoom",
  "snapchat",
]);

const queryOf = (request: FastifyRequest) => (request.query ?? {}) as Record<string, string | undefined>;

export function disabledFeatureRoutes(
  app: FastifyInstance,
  guards: { caller: (request: FastifyRequest) => Promise<unknown>; requireAdmin: (request: FastifyRequest) => Promise<unknown> },
) {
  const { caller, requireAdmin } = guards;
  app.get("/authorize", async (request) => {
    const provider = queryOf(request).provider ?? "";
    const detail = OAUTH_PROVIDERS.has(provider) ? "provider is not enabled" : `Provider ${provider} could not be found`;
    throw new AuthError(400, "validation_failed", `Unsupported provider: ${detail}`);
  });
  app.post("/sso", async () => {
    throw new AuthError(404, "saml_provider_disabled", "SAML 2.0 is disabled");
  });
  app.get("/user/identities/authorize", async () => {
    throw new AuthError(404, "manual_linking_disabled", "Manual linking is disabled");
  });
  app.delete("/user/identities/:id", async () => {
    throw new AuthError(404, "manual_linking_disabled", "Manual linking is disabled");
  });
  // The OAuth 2.1 server (Hikaya as an identity provider for other apps) is off.
  const oauthServerDisabled = async () => {
    throw new AuthError(404, "feature_disabled", "OAuth server is disabled");
  };
  app.get("/.well-known/oauth-authorization-server", oauthServerDisabled);
  app.all("/oauth/*", oauthServerDisabled);
  app.all("/user/oauth/*", async (request) => {
    await caller(request);
    return oauthServerDisabled();
  });
  app.all("/admin/oauth/*", async (request) => {
    await requireAdmin(request);
    return oauthServerDisabled();
  });
}

export function idTokenNotEnabled(body: Record<string, unknown>): never {
  const provider = typeof body.provider === "string" ? body.provider : "";
  if (typeof body.id_token !== "string" || body.id_token === "")
    throw new AuthError(400, "invalid request", "id_token required", { oauth: true });
  if (!provider && !(body.client_id && body.issuer))
    throw new AuthError(400, "invalid request", "provider or client_id and issuer required", { oauth: true });
  const issuer = ID_TOKEN_ISSUERS[provider];
  if (issuer !== undefined) throw new AuthError(400, "provider_disabled", `Provider (issuer "${issuer}") is not enabled`);
  throw new AuthError(400, "validation_failed", `Custom OIDC provider "${provider}" not allowed`);
}
