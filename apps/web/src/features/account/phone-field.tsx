import type { ChangeEvent } from "react";
import { TextField } from "../../components/form-fields.tsx";
import { findCountry } from "../../lib/countries.ts";
import { useTranslation } from "../../lib/i18n.ts";

/** A phone number input, left-to-right in both languages, with the example format of the pinned countries. */
export function PhoneField({
  country,
  value,
  onChange,
  error,
  label,
  current,
}: {
  country: string | null;
  value: string;
  onChange(value: string): void;
  error?: string | null;
  label?: string;
  /** The number on record, shown under the field (edit profile). */
  current?: string | null;
}) {
  const { t } = useTranslation("account");
  const selected = findCountry(country);
  return (
    <TextField
      label={label ?? t("fields.phone")}
      name="phone"
      type="tel"
      inputMode="tel"
      autoComplete="tel-national"
      ltr
      placeholder={selected?.example}
      value={value}
      onChange={(e: ChangeEvent<HTMLInputElement>) => onChange(e.target.value)}
      error={error}
      hint={
        current ? (
          <>
            {t("fields.phoneCurrent")} <bdi className="ltr">{current}</bdi>
          </>
        ) : selected?.example ? (
          <>
            {t("fields.phoneExample")}{" "}
            <bdi className="ltr">
              {selected.dialCode} {selected.example}
            </bdi>
          </>
        ) : undefined
      }
    />
  );
}
