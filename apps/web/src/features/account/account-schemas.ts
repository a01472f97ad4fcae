/**
 * The login and register forms' schemas, loaded on demand (lib/form-rules.ts `schemaOnDemand`): through this module, so
 * the bundler puts zod and the schemas in a chunk of their own rather than beside what the screens load at once.
 */
export { loginFormSchema, usernameRegisterFormSchema } from "@hikaya/contracts";
