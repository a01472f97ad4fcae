import type { Dispatch, SetStateAction } from "react";
import { CountrySelect } from "../../components/country-select.tsx";
import { PasswordField, TextField } from "../../components/form-fields.tsx";
import { useTranslation } from "../../lib/i18n.ts";
import { PhoneField } from "./phone-field.tsx";

type Errors = Record<string, string | null>;

/** A username box (login: "username or phone number", read left to right once it looks like a phone). */
interface UsernameBox {
  label: string;
  value: string;
  onChange(value: string): void;
  hint?: string;
  ltr?: boolean;
}

/**
 * The fields the account screens share, in their order: the country, a username or a phone number, and a password
 * when the screen asks for one. Named for the form's post without scripts (server modules/web/form-posts.routes.ts);
 * a field's error goes as soon as the person changes that field.
 */
export function AccountFields({
  country: [country, onCountry],
  username,
  phone,
  password,
  errors: [errors, setErrors],
}: {
  /** The chosen country and its setter, as useState gives them. */
  country: [string | null, (code: string) => void];
  /** A username box, or else a phone number box (its value and setter). */
  username?: UsernameBox;
  phone?: [string, (value: string) => void];
  password?: { value: string; onChange(value: string): void; autoComplete: "current-password" | "new-password" };
  /** The screen's field errors and their setter. */
  errors: [Errors, Dispatch<SetStateAction<Errors>>];
}) {
  const { t } = useTranslation("account");
  const edited =
    (field: string, change: (value: string) => void) =>
    (value: string): void => {
      change(value);
      setErrors((e) => (e[field] ? { ...e, [field]: null } : e));
    };
  return (
    <>
      <CountrySelect
        label={t("fields.country")}
        name="country"
        value={country}
        onChange={edited("country", onCountry)}
        error={errors.country}
      />
      {phone && <PhoneField country={country} value={phone[0]} onChange={edited("phone", phone[1])} error={errors.phone} />}
      {username && (
        <TextField
          label={username.label}
          name="username"
          autoComplete="username"
          autoCapitalize="none"
          spellCheck={false}
          value={username.value}
          onChange={(e) => edited("username", username.onChange)(e.target.value)}
          hint={username.hint}
          error={errors.username}
          ltr={username.ltr}
        />
      )}
      {password && (
        <PasswordField
          label={t("fields.password")}
          name="password"
          autoComplete={password.autoComplete}
          value={password.value}
          onChange={(e) => edited("password", password.onChange)(e.target.value)}
          error={errors.password}
        />
      )}
    </>
  );
}
