import { type FormEvent, useEffect, useState } from "react";
import { useNavigate } from "react-router";
import { toast } from "react-toastify";
import { CountrySelect } from "../../components/country-select.tsx";
import { PasswordField } from "../../components/form-fields.tsx";
import { useRequireUser } from "../../components/require-user.ts";
import { SubmitButton } from "../../components/submit-button.tsx";
import { findCountryByCode } from "../../lib/countries.ts";
import { errorText } from "../../lib/errors.ts";
import { useTranslation } from "../../lib/i18n.ts";
import { useMe } from "../../lib/me.ts";
import { type AccountChanges, saveAccountChanges } from "./api/account-api.ts";
import { AuthScreen } from "./auth-screen.tsx";
import { InstructionVideo } from "./instruction-video.tsx";
import { PhoneField } from "./phone-field.tsx";

/** Edit profile: country, phone number, current and new password; empty values are left out. */
export function EditProfilePage() {
  const { t } = useTranslation("account");
  const navigate = useNavigate();
  useRequireUser();
  const me = useMe();
  const [country, setCountry] = useState<string | null>(null);
  const [phone, setPhone] = useState("");
  const [current, setCurrent] = useState("");
  const [next, setNext] = useState("");
  const [errors, setErrors] = useState<Record<string, string | null>>({});
  const [busy, setBusy] = useState(false);
  const savedCountry = typeof me.data?.countryCode === "string" ? me.data.countryCode : null;

  const saved = findCountryByCode(savedCountry);
  useEffect(() => {
    if (saved) setCountry((c) => c ?? saved.code);
  }, [saved]);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const found = {
      current: next && !current ? t("validation.currentPasswordRequired") : null,
      next: current && !next ? t("validation.newPasswordRequired") : null,
    };
    setErrors(found);
    const first = found.current ?? found.next;
    if (first) {
      toast.error(first, { toastId: `edit-${first}` });
      return;
    }
    const changes: AccountChanges = {};
    if (phone.trim()) changes.phoneNumber = phone.trim();
    if (country && (phone.trim() || country !== saved?.code)) changes.country = country;
    if (current && next) {
      changes.oldPassword = current;
      changes.newPassword = next;
    }
    if (Object.keys(changes).length === 0) {
      toast.info(t("edit.nothing"), { toastId: "edit-nothing" });
      return;
    }
    setBusy(true);
    try {
      await saveAccountChanges(changes);
      await me.refetch();
      toast.success(t("edit.success"));
      setCurrent("");
      setNext("");
      navigate("/");
    } catch (error) {
      toast.error(errorText(error));
    } finally {
      setBusy(false);
    }
  };

  const storedPhone = typeof me.data?.phoneNumber === "string" ? me.data.phoneNumber : null;
  const currentPhone = storedPhone && !storedPhone.startsWith("+") && saved ? `${saved.dialCode} ${storedPhone}` : storedPhone;

  return (
    <AuthScreen title={t("edit.title")} heading={t("edit.heading")} intro={t("edit.intro")} backTo="/">
      <form className="auth-form" onSubmit={submit} noValidate>
        <CountrySelect label={t("fields.country")} value={country} onChange={setCountry} detect={false} error={errors.country} />
        <PhoneField country={country} value={phone} onChange={setPhone} current={currentPhone} />
        <PasswordField
          label={t("fields.currentPassword")}
          name="current-password"
          autoComplete="current-password"
          value={current}
          onChange={(e) => setCurrent(e.target.value)}
          error={errors.current}
        />
        <PasswordField
          label={t("fields.newPassword")}
          name="new-password"
          autoComplete="new-password"
          value={next}
          onChange={(e) => setNext(e.target.value)}
          error={errors.next}
        />
        <SubmitButton busy={busy} className="button--block">
          {t("edit.submit")}
        </SubmitButton>
      </form>
      <InstructionVideo location="Edit Profile" label={t("edit.video")} />
    </AuthScreen>
  );
}
